local tycho = require "tycho"

local function rgb(pic, px, py)
  return { pic:pixel(px, py) }
end

describe("tycho.picture", function()
  local function grid()
    local g = tycho.grid.new { width = 20, height = 10, resolution = 0.1, origin = { x = -1, y = -0.5 }, fill = 0 }
    g:set(0, 0, 254)    -- bottom-left
    g:set(19, 9, 255)   -- top-right
    g:set(5, 5, 253)
    g:set(6, 5, 100)
    return g
  end

  it("draws cells with the top row at the top", function()
    local pic = tycho.picture(grid(), { scale = 2 })
    assert.are.equal(40, pic.width)
    assert.are.equal(20, pic.height)
    assert.are.equal(2, pic.scale)
    assert.are.same({ 0, 0, 0 }, rgb(pic, 0, 19))
    assert.are.same({ 0, 0, 0 }, rgb(pic, 1, 18))
    assert.are.same({ 128, 128, 128 }, rgb(pic, 39, 0))
    assert.are.same({ 255, 255, 255 }, rgb(pic, 0, 0))
    assert.are.same({ 139, 0, 0 }, rgb(pic, 10, 9)) -- cell (5, 5): rows (10-1-5)*2 = 8..9
    local r, g, b = pic:pixel(12, 8)
    assert.is_true(r < 255 and g < 255 and b > 100) -- inflated: on the ramp
    assert.is_nil(pic:pixel(40, 0))
    assert.matches("tycho.picture 40x20 px, 2 px/cell", tostring(pic))
  end)

  it("places world points through the grid transform", function()
    local g = grid()
    local pic = tycho.picture(g, { scale = 4 })
    local x, y = g:cell_to_world(7, 2)
    local px, py = pic:world_to_pixel(x, y)
    assert.are.near(30, px, 1e-9)       -- 7.5 cells * 4
    assert.are.near(30, py, 1e-9)       -- (10 - 2.5) cells * 4
    pic:point(x, y, { color = "#ff8000", radius = 1 })
    assert.are.same({ 255, 128, 0 }, rgb(pic, 30, 30))
    assert.are.same({ 255, 255, 255 }, rgb(pic, 33, 30))
    pic:point(x, y, { color = { 1, 2, 3 }, radius = 6, shape = "circle" })
    assert.are.same({ 1, 2, 3 }, rgb(pic, 35, 30))
    assert.are.same({ 255, 128, 0 }, rgb(pic, 30, 30)) -- hollow
    pic:point(x, y, { color = { r = 9, g = 8, b = 7 }, radius = 4, shape = "cross" })
    assert.are.same({ 9, 8, 7 }, rgb(pic, 31, 31))
  end)

  it("draws paths and poses, and chains", function()
    local g = grid()
    local pic = tycho.picture(g, { scale = 2 })
    local x0, y0 = g:cell_to_world(2, 4)
    local x1, y1 = g:cell_to_world(17, 4)
    local ret = pic:path({ { x = x0, y = y0 }, { x = x1, y = y1 } }, { color = "red", width = 1 })
    assert.are.equal(pic, ret)
    assert.are.same({ 255, 0, 0 }, rgb(pic, 20, 11)) -- row (10 - 4.5) * 2 = 11
    assert.are.same({ 255, 255, 255 }, rgb(pic, 20, 13))
    -- {x, y} pairs work too
    pic:path({ { x0, y0 - 0.3 }, { x1, y1 - 0.3 } }, { color = "#0000ff" })
    assert.are.same({ 0, 0, 255 }, rgb(pic, 20, 17))
    -- a pose arrow at yaw 0 points to +x (right), at pi/2 up
    local px, py = pic:world_to_pixel(x0, y0 + 0.3)
    pic:pose(x0, y0 + 0.3, 0, { color = "#00ff00", length = 8, width = 1 })
    assert.are.same({ 0, 255, 0 }, rgb(pic, math.floor(px) + 6, math.floor(py)))
    assert.are_not.same({ 0, 255, 0 }, rgb(pic, math.floor(px) - 4, math.floor(py)))
    pic:point(-100, 1e9, {}):pose(0, 0, 1, {}):path({}) -- off the picture, empty: no error
  end)

  it("accepts any indexable path with __len", function()
    local g = grid()
    local pic = tycho.picture(g)
    local pts = { { x = -0.95, y = 0.0 }, { x = 0.9, y = 0.0 } }
    local proxy = setmetatable({}, {
      __len = function() return #pts end,
      __index = function(_, i) return pts[i] end,
    })
    local ud = io.stdout -- a userdata without __len is rejected
    assert.error_matches(function() pic:path(ud) end, "#1")
    pic:path(pts, { color = "blue", width = 1 })
    local b = { pic:pixel(10, 4) }
    assert.are.same({ 0, 0, 255 }, b)
    -- a proxy table: its __len and __index are honoured
    pic:path(proxy, { color = "red", width = 1 })
    assert.are.same({ 255, 0, 0 }, { pic:pixel(10, 4) })
  end)

  it("saves a PNG", function()
    local pic = tycho.picture(grid(), { scale = 3 })
    local base = os.tmpname()
    local path = base .. ".png"
    os.remove(base)
    assert.is_true(pic:save(path))
    local f = assert(io.open(path, "rb"))
    local head = f:read(8)
    f:close()
    os.remove(path)
    assert.are.equal("\137PNG\r\n\26\n", head)
    local ok, err = pic:save("/nonexistent-dir/x.png")
    assert.is_nil(ok)
    assert.is_string(err)
  end)

  it("names bad arguments", function()
    local g = grid()
    assert.error_matches(function() tycho.picture(g, { scale = 0 }) end, "bad field 'scale'")
    assert.error_matches(function() tycho.picture({}) end, "#1")
    local pic = tycho.picture(g)
    assert.error_matches(function() pic:path({ { x = 1 } }) end, "point 1")
    assert.error_matches(function() pic:path({}, { color = "#12345" }) end, "bad field 'color'")
    assert.error_matches(function() pic:path({}, { color = { 1, 2, 300 } }) end, "bad field 'color'")
    assert.error_matches(function() pic:path({}, { width = -1 }) end, "bad field 'width'")
    assert.error_matches(function() pic:point(0, 0, { shape = "star" }) end, "bad field 'shape'")
    assert.error_matches(function() pic:point("a", 0) end, "#1")
    assert.error_matches(function() pic:pose(0, 0) end, "#3")
  end)
end)

describe("picture:annotate", function()
  local function pic()
    local g = tycho.grid.new { width = 100, height = 60, resolution = 0.05, fill = 0 }
    return tycho.picture(g, { scale = 2 })
  end

  it("adds a panel under the map, leaving the map's pixels as they were", function()
    local p = pic()
    p:point(1, 1, { color = "red", shape = "cross", radius = 5 })
    local before = { p:pixel(40, 80) }
    assert.are.equal(p, p:annotate { title = "t", legend = {
      { label = "source", symbol = "cross", color = "red" }, { label = "trail", symbol = "line", color = "#2060ff" },
      { label = "wall", symbol = "cell", color = { 0, 0, 0 } } } })
    assert.are.same(before, { p:pixel(40, 80) })
    assert.are.equal(400, p.width)
    assert.is_true(p.height > 120)
    assert.are.same({ 40, 80 }, { p:world_to_pixel(1, 1) })
  end)

  it("refuses what it does not know, naming the field", function()
    local p = pic()
    assert.has_error(function() p:annotate { legnd = {} } end)
    local ok, err = pcall(p.annotate, p, { legend = { { label = "x", symbol = "star" } } })
    assert.is_false(ok)
    assert.matches("legend[1].symbol", err, 1, true)
    ok, err = pcall(p.annotate, p, { legend = { "x" } })
    assert.is_false(ok)
    assert.matches("legend[1]' in argument #2 (table expected)", err, 1, true)
    ok, err = pcall(p.annotate, p, { legend = { { symbol = "dot" } } })
    assert.is_false(ok)
    assert.matches("legend[1].label", err, 1, true)
    ok, err = pcall(p.annotate, p, { legend = { { label = "x", colour = "red" } } })
    assert.is_false(ok)
    assert.matches("colour", err, 1, true)
    local many = {}
    for i = 1, 65 do many[i] = { label = tostring(i) } end
    ok, err = pcall(p.annotate, p, { legend = many })
    assert.is_false(ok)
    assert.matches("at most 64 items", err, 1, true)
  end)
end)
