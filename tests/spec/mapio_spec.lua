local exe = require "helpers.exe"
local tycho = require "tycho"

local src = exe.SRC
local data = os.getenv("TYCHO_TEST_DATA") or (src .. "/tests/data")
local maps = src .. "/tests/data/maps/"

local function tmpdir()
  local d = os.tmpname()
  os.remove(d)
  assert(os.execute("mkdir -p '" .. d .. "'"))
  return d
end

local function write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

describe("tycho.map", function()
  local dir
  setup(function() dir = tmpdir() end)
  teardown(function() os.execute("rm -rf '" .. dir .. "'") end)

  it("loads a map_server map with its metadata", function()
    local g, meta = tycho.map.load(maps .. "tiny.yaml")
    assert.are.equal(8, g.width)
    assert.are.equal(6, g.height)
    assert.are.equal(0.1, g.resolution)
    assert.are.equal(-0.4, g.origin.x)
    assert.are.equal(tycho.grid.LETHAL, g:get(0, 0))   -- border wall
    assert.are.equal(tycho.grid.FREE, g:get(1, 1))
    assert.are.equal(tycho.grid.UNKNOWN, g:get(4, 4))  -- gray 205
    assert.matches("tests/data/maps/tiny.pgm$", meta.image)
    assert.are.equal(0.1, meta.resolution)
    assert.are.same({ -0.4, -0.3, 0.0 }, { meta.origin[1], meta.origin[2], meta.origin[3] })
    assert.are.equal(-0.3, meta.origin.y)
    assert.is_false(meta.negate)
    assert.are.equal("trinary", meta.mode)
    assert.are.equal(0.65, meta.occupied_thresh)
    assert.are.equal(0.196, meta.free_thresh)
    local s = g:stats()
    assert.are.same({ 24, 19, 5 }, { s.lethal, s.free, s.unknown })
  end)

  it("loads scale and raw modes with Nav2's costs", function()
    local g, meta = tycho.map.load(maps .. "scale_rgba.yaml")
    assert.are.equal("scale", meta.mode)
    assert.are.equal(0.5, meta.origin.yaw)
    assert.are.same({ 254, 208, 116, 27, 0 },
      { g:get(0, 0), g:get(3, 0), g:get(4, 0), g:get(5, 0), g:get(6, 0) })
    assert.are.equal(255, g:get(3, 1))  -- transparent pixel
    local r = tycho.map.load(maps .. "raw.yaml")
    assert.are.same({ 0, 127, 254, 255 }, { r:get(0, 1), r:get(1, 1), r:get(2, 1), r:get(3, 1) })
  end)

  it("parses the YAML alone", function()
    local meta = tycho.map.parse_yaml(maps .. "raw.yaml")
    assert.are.equal("raw", meta.mode)
    assert.is_true(meta.negate)
    assert.matches("gray.png$", meta.image)
  end)

  it("saves and reloads the same cells, origin and resolution", function()
    local g = tycho.grid.new { width = 13, height = 7, resolution = 0.025,
                               origin = { x = -1.5, y = 2.25, yaw = 0.1 }, fill = 0 }
    g:set(0, 0, 254); g:set(12, 6, 255); g:set(5, 3, 254); g:set(6, 3, 255)
    for _, fmt in ipairs { "pgm", "png" } do
      local path = dir .. "/m_" .. fmt .. ".yaml"
      assert.is_true(tycho.map.save(g, path, fmt))
      local b, meta = tycho.map.load(path)
      assert.matches("m_" .. fmt .. "%." .. fmt .. "$", meta.image)
      assert.are.equal(0.025, b.resolution)
      assert.are.same(g.origin, b.origin)
      for y = 0, 6 do
        for x = 0, 12 do assert.are.equal(g:get(x, y), b:get(x, y)) end
      end
    end
    assert.is_true(tycho.map.save(g, dir .. "/default.yaml"))
    local w, h, ch = tycho.image.load(dir .. "/default.pgm")
    assert.are.same({ 13, 7, 1 }, { w, h, ch })
  end)

  it("reports errors with file and line, and names bad arguments", function()
    write(dir .. "/bad.yaml", "image: x.pgm\nresolution: 0\norigin: [0, 0, 0]\nnegate: 0\n" ..
      "occupied_thresh: 0.65\nfree_thresh: 0.25\n")
    -- a bad or missing file is the environment's failure: nil and file:line
    local none, why = tycho.map.load(dir .. "/bad.yaml")
    assert.is_nil(none)
    assert.matches("bad.yaml:2: resolution must be > 0", why, 1, true)
    write(dir .. "/mode.yaml", "image: x.pgm\nresolution: 1\norigin: [0, 0, 0]\nnegate: 0\n" ..
      "occupied_thresh: 0.65\nfree_thresh: 0.25\nmode: foo\n")
    none, why = tycho.map.parse_yaml(dir .. "/mode.yaml")
    assert.is_nil(none)
    assert.matches("mode.yaml:7: unknown mode 'foo' (trinary, scale, raw)", why, 1, true)
    write(dir .. "/noimg.yaml", "image: maze.pgm\nresolution: 1\norigin: [0, 0, 0]\nnegate: 0\n" ..
      "occupied_thresh: 0.65\nfree_thresh: 0.25\n")
    none, why = tycho.map.load(dir .. "/noimg.yaml")
    assert.is_nil(none)
    assert.matches("image 'maze.pgm' not found (looked in ", why, 1, true)
    none, why = tycho.map.load(dir .. "/nothing.yaml")
    assert.is_nil(none)
    assert.matches("cannot open", why)
    -- misuse raises
    assert.error_matches(function() tycho.map.load() end, "#1")
    local g = tycho.grid.new { width = 2, height = 2 }
    assert.error_matches(function() tycho.map.save(g, dir .. "/x.yaml", "bmp") end, "#3")
    assert.error_matches(function() tycho.map.save({}, dir .. "/x.yaml") end, "#1")
    -- a folder that is not there is the environment's failure: nil, message
    local saved
    saved, why = tycho.map.save(g, "/nonexistent/dir/x.yaml")
    assert.is_nil(saved)
    assert.matches("/nonexistent/dir/x.pgm", why)
    none, why = tycho.image.load(maps .. "tiny.yaml")
    assert.is_nil(none)
    assert.matches("unknown image format", why)
  end)

  it("loads the warehouse map and basement image from tests/data", function()
    local g = tycho.map.load(data .. "/warehouse/map.yaml")
    assert.are.same({ 600, 600 }, { g.width, g.height })
    local s = g:stats()
    assert.is_true(s.free > 100000 and s.lethal > 10000)
    assert.are.same({ 1200, 1200, 1 },
      { tycho.image.load(data .. "/raycast/basement_hallways_5cm.png") })
  end)
end)
