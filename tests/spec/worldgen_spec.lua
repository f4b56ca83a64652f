-- The world generator (behaviors/worldgen.lua) and its CLI
-- (behaviors/gen_world.lua): every knob lands in the world, impossible or
-- invalid knobs are refused with a clear message, a seed gives the same
-- files under every Lua, and the files load into the simulator.
local tycho = require "tycho"
local worldgen = require "worldgen"

local exe = require "helpers.exe"
local EXE = exe.EXE

local function shq(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local function run(args)
  local out = os.tmpname()
  local q = { shq(EXE), "run", "behaviors/gen_world.lua" }
  for _, a in ipairs(args) do q[#q + 1] = shq(a) end
  local a, _, c = os.execute(table.concat(q, " ") .. " > " .. out .. " 2> " .. out .. ".err")
  local code = c
  if type(a) == "number" then code = a >= 256 and math.floor(a / 256) or a end
  local f, e = io.open(out), io.open(out .. ".err")
  local text, err = f:read("*a"), e:read("*a")
  f:close() e:close()
  os.remove(out) os.remove(out .. ".err")
  return code, text, err
end

local function read(p)
  local f = assert(io.open(p, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

local function tmpdir()
  local d = os.tmpname()
  os.remove(d)
  os.execute("mkdir -p " .. shq(d))
  return d
end

describe("worldgen.generate", function()
  it("honours every knob", function()
    local w = worldgen.generate(5, { cols = 6, rows = 4, cell = 0.9, wall = 0.15, loops = 2, rooms = 1,
                                     sources = 5, temp = { 40, 41 }, ramp = "corridor", ramp_pitch = 0.15,
                                     min_separation = 0.8 })
    local k = w.knobs
    assert.are.same({ 6, 4, 2, 1 }, { k.cols, k.rows, k.loops, k.rooms })
    assert.near(0.9, k.cell, 1e-9)
    assert.near(0.15, k.wall, 1e-9)
    assert.are.equal(5, #w.heat_sources)
    assert.near(6 * 1.05 + 0.15, w.width, 1e-9)
    assert.near(4 * 1.05 + 0.15, w.height, 1e-9)
    for _, s in ipairs(w.heat_sources) do
      assert.is_true(s.temp >= 40 and s.temp <= 41)
    end
    assert.are.equal("corridor", w.ramp.kind)
    assert.are.equal(0.15, w.ramp.pitch)
    assert.are.equal(1, #w.rooms)
  end)

  it("spans corridor widths 0.5-1.5 m and wall thickness 0.05-0.3 m", function()
    for _, c in ipairs { { 0.5, 0.05 }, { 1.5, 0.3 }, { 1.0, 0.1 } } do
      local w = worldgen.generate(11, { cell = c[1], wall = c[2] })
      assert.near(c[1], w.knobs.cell, 1e-9)
      assert.near(c[2], w.knobs.wall, 1e-9)
    end
  end)

  it("draws unset knobs from the seed, inside the documented family", function()
    local seen_cells, kinds, ramps = {}, {}, {}
    for seed = 1, 40 do
      local w = worldgen.generate(seed)
      local k = w.knobs
      assert.is_true(k.cell >= 0.5 - 1e-9 and k.cell <= 1.5 + 1e-9)
      assert.is_true(k.wall >= 0.05 - 1e-9 and k.wall <= 0.3 + 1e-9)
      assert.is_true(#w.heat_sources >= 3 and #w.heat_sources <= 6)
      seen_cells[k.cell] = true
      for _, s in ipairs(w.heat_sources) do
        kinds[s.kind] = true
        assert.is_true(s.temp >= 34 and s.temp <= 60)
      end
      ramps[w.ramp.kind] = true
    end
    local n = 0
    for _ in pairs(seen_cells) do n = n + 1 end
    assert.is_true(n >= 8, "corridor widths vary with the seed")
    assert.are.same({ any = true, dead_end = true, corner = true, pair = true }, kinds)
    assert.is_true(ramps.doorway and ramps.corridor)
  end)

  it("puts a pair on the two faces of one wall, level with each other", function()
    local w = worldgen.generate(3, { kinds = { "pair" }, sources = 2, wall = 0.05, ramp = "none" })
    local a, b = w.heat_sources[1], w.heat_sources[2]
    assert.are.equal("pair", a.kind)
    -- 0.11 m off each face of a 0.05 m wall
    assert.near(0.27, math.sqrt((a.x - b.x) ^ 2 + (a.y - b.y) ^ 2), 1e-6)
  end)

  it("places a doorway ramp across the only way into part of the maze, with a source beyond it", function()
    for seed = 1, 10 do
      local w = worldgen.generate(seed, { ramp = "doorway", loops = 0, rooms = 0 })
      local r = w.ramp
      assert.are.equal("doorway", r.kind)
      -- the ramp spans the corridor between its walls (no way round)
      local across = (math.abs(math.cos(r.dir)) > 0.5) and (r.y1 - r.y0) or (r.x1 - r.x0)
      local span = across
      assert.near(w.knobs.cell, span, 1e-6)
    end
  end)

  it("is deterministic for a seed", function()
    local a, b = worldgen.generate(77), worldgen.generate(77)
    assert.are.same(worldgen.world_lua(a, "x", "m.yaml"), worldgen.world_lua(b, "x", "m.yaml"))
    assert.are.equal(worldgen.pgm(a), worldgen.pgm(b))
    assert.are_not.equal(worldgen.world_lua(worldgen.generate(78), "x", "m.yaml"),
                         worldgen.world_lua(a, "x", "m.yaml"))
  end)

  it("refuses impossible combinations with a message", function()
    assert.has_error(function() worldgen.generate(1, { cols = 2, rows = 2, sources = 16 }) end)
    assert.has_error(function() worldgen.generate(1, { kinds = { "ceiling" } }) end,
      "kinds: unknown source kind 'ceiling' (any, dead_end, corner, pair)")
  end)
end)

describe("gen_world.lua", function()
  it("writes a world the simulator loads, start and sources in free space", function()
    local dir = tmpdir()
    local code, text = run { "--seed=12", "--out", dir, "--sources", "4", "--ramp=doorway" }
    assert.are.equal(0, code)
    assert.truthy(text:find("world.lua", 1, true))
    local sim = tycho.sim.load(dir .. "/world.lua")
    local w = sim:world()
    assert.are.equal(4, #w.heat_sources)
    assert.are.equal(1, #w.ramps)
    local truth = sim:truth()
    for _, s in ipairs(w.heat_sources) do
      local cx, cy, inside = truth:world_to_cell(s.x, s.y)
      assert.is_true(inside)
      assert.are.equal(0, truth:get(cx, cy), "a source sits in free space")
    end
    -- the same seed writes the same bytes
    local dir2 = tmpdir()
    assert.are.equal(0, (run { "--seed", "12", "--out", dir2, "--sources", "4", "--ramp", "doorway" }))
    assert.are.equal(read(dir .. "/map.pgm"), read(dir2 .. "/map.pgm"))
    assert.are.equal(read(dir .. "/world.lua"):gsub("gen_12", ""), read(dir2 .. "/world.lua"):gsub("gen_12", ""))
  end)

  it("refuses bad knobs with exit 2 and the option's name", function()
    local dir = tmpdir()
    local cases = {
      { { "--seed", "1", "--out", dir, "--cell", "0.1" }, "--cell must be in" },
      { { "--seed", "1", "--out", dir, "--wall=2" }, "--wall must be in" },
      { { "--seed", "x", "--out", dir }, "--seed expects a number" },
      { { "--seed", "1", "--out", dir, "--temp", "60,30" }, "LO must be <= HI" },
      { { "--seed", "1", "--out", dir, "--ramp", "roof" }, "--ramp must be one of" },
      { { "--seed", "1", "--out", dir, "--colls", "3" }, "unknown option '--colls'" },
      { { "--out", dir }, "--seed is required" },
      { { "--seed", "1", "--out", dir, "--cols", "2", "--rows", "2", "--cell", "0.5", "--sources", "9", "--ramp", "none" }, "sources" },
      { { "--seed", "1", "--out", dir, "--cols", "2", "--rows", "2", "--ramp", "corridor", "--loops", "9" }, "no place for the ramp" },
    }
    for _, c in ipairs(cases) do
      local code, _, err = run(c[1])
      assert.are.equal(2, code, table.concat(c[1], " "))
      assert.truthy(err:find(c[2], 1, true), err)
    end
    local code, text = run { "--help" }
    assert.are.equal(0, code)
    for _, knob in ipairs { "--cols", "--rows", "--cell", "--wall", "--loops", "--rooms", "--sources", "--temp", "--ramp" } do
      assert.truthy(text:find(knob, 1, true), knob)
    end
  end)
end)
