-- The per-source verdicts of summary.json (behaviors/heat_seek_report.lua):
-- one hand-built world, one scene per category. The world: a 3 x 2 m room
-- with a thin wall (x 1.45-1.55 m, from the floor to y = 1.4 m); source A on
-- its west face, source B on its east face (a pair), source C on the north
-- wall.
local tycho = require "tycho"
local worldgen = require "worldgen"
local Report = require "heat_seek_report"

local A, B, C = 1, 2, 3

local function world_dir()
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p '" .. dir .. "'")
  local w = { seed = 0, resolution = 0.05, width = 3.0, height = 2.0,
              rects = { { 0, 0, 3, 0.05 }, { 0, 1.95, 3, 2 }, { 0, 0, 0.05, 2 }, { 2.95, 0, 3, 2 },
                        { 1.45, 0, 1.55, 1.4 } } }
  local f = assert(io.open(dir .. "/map.pgm", "wb"))
  f:write(worldgen.pgm(w))
  f:close()
  f = assert(io.open(dir .. "/map.yaml", "w"))
  f:write(worldgen.yaml(w, "map.pgm"))
  f:close()
  f = assert(io.open(dir .. "/world.lua", "w"))
  f:write([[return { map = "map.yaml", start = { x = 0.6, y = 0.7, yaw = 0 }, ambient = 22,
    heat_sources = { { x = 1.34, y = 0.7, temp = 50 }, { x = 1.66, y = 0.7, temp = 50 },
                     { x = 0.7, y = 1.84, temp = 50 } } }]])
  f:close()
  return dir .. "/world.lua"
end

local WORLD = world_dir()
local JUDGE = { range = 1.5, angle = math.rad(15) }

local function scene()
  local sim = tycho.sim.load(WORLD)
  local report = Report.new { sim = sim, cameras = { { yaw = 0, fov = math.rad(60) } } }
  local bb = { detections = {}, targets = {}, launches = {} }
  return sim, report, bb
end

-- Fires one ball from (x, y, yaw) at mission target `target`.
local function fire(sim, bb, x, y, yaw, target)
  sim:teleport(x, y, yaw)
  sim:launcher_spin(true)
  sim:step(1.5)
  local shot = assert(sim:launcher_feed())
  bb.launches[#bb.launches + 1] = { target = target, engaged_source = shot.engaged }
  return shot
end

local function verdicts(sim, report, bb, map)
  local out = {}
  for i, s in ipairs(report:sources(bb, map or sim:truth(), JUDGE)) do
    out[i] = s.engaged and "engaged" or s.missed_because
  end
  return out
end

describe("miss classifier", function()
  it("not_explored: the space in front of the source is unknown", function()
    local sim, report, bb = scene()
    local unknown = sim:truth():copy()
    unknown:fill(255)
    assert.are.same({ "not_explored", "not_explored", "not_explored" }, verdicts(sim, report, bb, unknown))
  end)

  it("never_seen: mapped, no detection", function()
    local sim, report, bb = scene()
    assert.are.same({ "never_seen", "never_seen", "never_seen" }, verdicts(sim, report, bb))
  end)

  it("seen_not_targeted: detections from the source's side only count for it", function()
    local sim, report, bb = scene()
    -- seen on the wall's west face from the west: A, not B behind it
    for k = 1, 5 do bb.detections[k] = { x = 1.45, y = 0.7 + k * 0.01, rx = 0.6, ry = 0.7, t = k } end
    local v = verdicts(sim, report, bb)
    assert.are.equal("seen_not_targeted", v[A])
    assert.are.equal("never_seen", v[B])
  end)

  it("targeted_not_fired: a target seen from the source's side", function()
    local sim, report, bb = scene()
    bb.targets[1] = { x = 1.45, y = 0.7, ux = -1, uy = 0 }
    local v = verdicts(sim, report, bb)
    assert.are.equal("targeted_not_fired", v[A])
    assert.are.equal("never_seen", v[B], "the target faces away from B")
  end)

  it("fired_out_of_range", function()
    local sim, report, bb = scene()
    bb.targets[1] = { x = 0.7, y = 1.9 }
    fire(sim, bb, 0.7, 0.2, math.pi / 2, 1)
    local v = verdicts(sim, report, bb)
    assert.are.equal("fired_out_of_range", v[C])
  end)

  it("fired_off_angle", function()
    local sim, report, bb = scene()
    bb.targets[1] = { x = 0.7, y = 1.9 }
    fire(sim, bb, 0.7, 1.0, math.pi / 2 + 0.5, 1)
    assert.are.equal("fired_off_angle", verdicts(sim, report, bb)[C])
  end)

  it("fired_wrong_side: aimed at A from behind its wall (the judge gives B)", function()
    local sim, report, bb = scene()
    bb.targets[1] = { x = 1.45, y = 0.7, ux = -1, uy = 0 }
    local shot = fire(sim, bb, 2.1, 0.7, math.pi, 1)
    assert.are.equal(B, shot.engaged)
    local v = verdicts(sim, report, bb)
    assert.are.equal("fired_wrong_side", v[A])
    assert.are.equal("engaged", v[B])
  end)

  it("fired_no_line_of_sight: another wall in the way", function()
    local sim, report, bb = scene()
    bb.targets[1] = { x = 0.7, y = 1.9 }
    fire(sim, bb, 2.0, 0.6, math.atan(1.84 - 0.6, 0.7 - 2.0), 1)
    assert.are.equal("fired_no_line_of_sight", verdicts(sim, report, bb)[C])
  end)

  it("engaged, with the figures behind every entry", function()
    local sim, report, bb = scene()
    bb.targets[1] = { x = 0.7, y = 1.9 }
    report:observe()
    fire(sim, bb, 0.7, 1.0, math.pi / 2, 1)
    local s = report:sources(bb, sim:truth(), JUDGE)
    assert.is_true(s[C].engaged)
    assert.is_nil(s[C].missed_because)
    for _, e in ipairs(s) do
      assert.is_number(e.closest_approach_m)
      assert.is_number(e.detections_near)
      assert.is_not_nil(e.best_view)
    end
    assert.near(0.84, s[C].launch.distance_m, 1e-6)
  end)
end)
