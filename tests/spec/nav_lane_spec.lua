-- The lane keeper the ramp climb falls back on when the planner finds no
-- way through a narrow passage (a map drawn from a real robot's scans
-- narrows it): driving straight in the simulator down a 0.4 m passage,
-- started off its middle, it must end in the middle without touching a wall.
local tycho = require "tycho"
local Nav = require "nav"

local RES = 0.05
-- 4 m long, 0.4 m clear between walls whose inner faces are at y = 0.3 and 0.7
local function passage()
  local g = tycho.grid.new { width = 90, height = 20, resolution = RES, fill = 0 }
  for x = 0, 89 do
    for y = 0, 5 do g:set(x, y, 254) end
    for y = 14, 19 do g:set(x, y, 254) end
  end
  for y = 0, 19 do g:set(89, y, 254) end
  return g
end

local function wrap(a) return (a + math.pi) % (2 * math.pi) - math.pi end

-- Drives at 0.12 m/s holding heading 0 (plus the keeper's offset, if any)
-- for 2.5 m; returns the final lateral offset from the middle, the largest
-- one seen and the collisions.
local function drive(start_y, start_yaw, keep)
  local sim = tycho.sim.new(passage(), { start = { x = 0.4, y = start_y, yaw = start_yaw }, lidar = { noise = 0 } })
  local left, right = math.huge, math.huge
  local steer = keep and Nav.lane_keeper(function() return left, right end, 1.0, 3) or function() return 0 end
  local worst = 0
  while sim:pose() < 2.9 do
    local scan = sim:last_scan()
    local _
    _, left, right = Nav.lane_ranges(scan, 0.145)
    local _, _, yaw = sim:pose()
    sim:set_cmd(0.12, math.max(-1, math.min(1, 3 * wrap(steer() - yaw))))
    sim:step(0.05)
    local _, y = sim:pose()
    worst = math.max(worst, math.abs(y - 0.5))
  end
  local _, y = sim:pose()
  return y - 0.5, worst, sim.collisions
end

describe("Nav.lane_ranges", function()
  it("measures the passage's walls on either side and the wall ahead", function()
    local sim = tycho.sim.new(passage(), { start = { x = 3.0, y = 0.45, yaw = 0 }, lidar = { noise = 0 } })
    local front, left, right = Nav.lane_ranges(sim:last_scan(), 0.145)
    assert.are.near(0.25, left, 0.03)   -- wall face at 0.70
    assert.are.near(0.15, right, 0.03)  -- wall face at 0.30
    assert.are.near(1.45, front, 0.06)  -- end wall at 4.45
  end)

  it("refuses what is not a scan", function()
    assert.has_error(function() Nav.lane_ranges({}, 0.1) end, "bad argument #1 to 'lane_ranges' (scan expected, got table)")
    local sim = tycho.sim.new(passage(), { start = { x = 1, y = 0.5 } })
    assert.has_error(function() Nav.lane_ranges(sim:last_scan(), -1) end, "bad argument #2 to 'lane_ranges' (half-width > 0 expected)")
  end)
end)

describe("Nav.lane_keeper", function()
  it("brings a robot started 7 cm off the middle, turned 5 deg towards the wall, to the middle", function()
    local off, worst, hits = drive(0.57, math.rad(5), true)
    assert.are.equal(0, hits)
    assert.is_true(math.abs(off) < 0.02, ("ended %.3f m off the middle"):format(off))
    assert.is_true(worst < 0.09, ("came %.3f m off the middle"):format(worst))
  end)

  it("is what does it: holding the heading alone keeps the offset", function()
    local off = drive(0.57, math.rad(5), false)
    assert.is_true(off > 0.06, ("ended %.3f m off the middle"):format(off))
  end)

  it("does nothing where there is no passage", function()
    local keep = Nav.lane_keeper(function() return 2.0, 0.1 end, 1.0, 3)
    assert.are.equal(0, keep())
    keep = Nav.lane_keeper(function() return 0.3, 0.1 end, 1.0, 3)
    assert.are.near(0.3, keep(), 1e-12) -- clamped
    keep = Nav.lane_keeper(function() return 0.19, 0.21 end, 1.0, 3)
    assert.are.near(-0.03, keep(), 1e-12)
  end)
end)
