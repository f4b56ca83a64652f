-- Scan-to-map matching (core/scan_match.c, tycho.scan_matcher): a known
-- offset recovered on synthetic scans, a featureless corridor flagged
-- degenerate instead of a wrong answer, a poor match refused, bad input
-- refused with the argument named.
local tycho = require "tycho"

-- a 6 x 4 m room with two boxes, as cells
local function room()
  local g = tycho.grid.new { width = 120, height = 80, resolution = 0.05, fill = 0 }
  for x = 0, 119 do g:set(x, 0, 254); g:set(x, 79, 254) end
  for y = 0, 79 do g:set(0, y, 254); g:set(119, y, 254) end
  for x = 30, 40 do for y = 20, 30 do g:set(x, y, 254) end end
  for x = 80, 85 do for y = 50, 70 do g:set(x, y, 254) end end
  return g
end

-- the robot's own map of it: scans inserted from known poses (the origin
-- off the room's cells by a fraction of a cell, as a robot's would be)
local function robot_map(truth_grid)
  local map = tycho.grid.new { width = 140, height = 100, resolution = 0.05, origin = { x = -0.487, y = -0.469 } }
  for k = 0, 20 do
    local p = { x = 1.0 + 0.2 * k, y = 1.7 + 0.05 * k, yaw = 0.1 * k }
    map:insert_scan(p, truth_grid:scan(p, { count = 360, range_max = 3.5 }))
  end
  return map
end

describe("tycho.scan_matcher", function()
  it("recovers the pose from a guess 10 cm and 4 degrees off", function()
    local g = room()
    local m = tycho.scan_matcher()
    m:set_map(robot_map(g))
    for _, truth in ipairs { { x = 2.0, y = 1.8, yaw = 0.3 }, { x = 3.3, y = 2.2, yaw = -1.0 }, { x = 4.5, y = 3.2, yaw = 2.5 } } do
      local scan = g:scan(truth, { count = 360, range_max = 3.5 })
      for _, off in ipairs { { 0.08, -0.06, 3 }, { -0.1, 0.05, -4 }, { 0.03, 0.1, 1 } } do
        local guess = { x = truth.x + off[1], y = truth.y + off[2], yaw = truth.yaw + math.rad(off[3]) }
        local r = m:match(scan, guess)
        assert.is_true(r.ok and not r.degenerate)
        -- within the map's cell (a wall is known to a cell, 5 cm)
        assert.is_true(math.sqrt((r.x - truth.x) ^ 2 + (r.y - truth.y) ^ 2) < 0.03,
          ("(%.3f, %.3f) for (%.3f, %.3f)"):format(r.x, r.y, truth.x, truth.y))
        assert.is_true(math.abs(r.yaw - truth.yaw) < math.rad(0.5))
        assert.is_true(r.score > r.guess_score)
        assert.is_true(r.beams > 250) -- the beams with a return in range
      end
    end
  end)

  it("flags a featureless corridor as degenerate (nothing fixes the position along it)", function()
    local c = tycho.grid.new { width = 400, height = 40, resolution = 0.05, fill = 0 }
    for x = 0, 399 do c:set(x, 10, 254); c:set(x, 30, 254) end
    local m = tycho.scan_matcher()
    m:set_map(c)
    local r = m:match(c:scan({ x = 10, y = 1.0, yaw = 0 }, { count = 360, range_max = 3.5 }),
                      { x = 10.1, y = 1.04, yaw = 0.03 })
    assert.is_true(r.degenerate)
    assert.is_true(r.info_min < 0.02 * r.info_max)
    -- across the corridor and in heading it is still right
    assert.is_near(1.0, r.y, 0.03)
    assert.is_near(0, r.yaw, math.rad(0.5))
  end)

  it("refuses a scan that matches nothing and keeps the guess", function()
    local m = tycho.scan_matcher { min_score = 0.25 }
    m:set_map(room())
    local empty = tycho.grid.new { width = 200, height = 200, resolution = 0.05, fill = 0 }
    for x = 0, 199 do empty:set(x, 100, 254) end -- one long wall, elsewhere
    local scan = empty:scan({ x = 5, y = 4.0, yaw = 0 }, { count = 360, range_max = 3.5 })
    local r = m:match(scan, { x = 3, y = 2, yaw = 0 })
    assert.is_false(r.ok)
    assert.are.same({ 3, 2, 0 }, { r.x, r.y, r.yaw })
  end)

  it("refuses bad input, naming the argument", function()
    assert.error_matches(function() tycho.scan_matcher { window_xyz = 1 } end,
      "unknown field 'window_xyz' in argument #1 to 'scan_matcher' %(accepted: window_xy, window_yaw,")
    assert.has_error(function() tycho.scan_matcher { window_xy = -1 } end)
    local m = tycho.scan_matcher()
    local scan = room():scan({ x = 2, y = 2, yaw = 0 }, { count = 90, range_max = 3.5 })
    assert.has_error(function() m:match(scan, { x = 2, y = 2, yaw = 0 }) end, "matcher: no map set")
    m:set_map(room())
    assert.has_error(function() m:set_map(room(), { sigma = 0 }) end)
    assert.has_error(function() m:set_map(room(), { sgima = 0.1 }) end)
    assert.has_error(function() m:match(scan, { x = 0 / 0, y = 2, yaw = 0 }) end)
    assert.has_error(function() m:match({}, { x = 2, y = 2, yaw = 0 }) end)
    assert.matches("tycho.scan_matcher", tostring(m))
  end)
end)
