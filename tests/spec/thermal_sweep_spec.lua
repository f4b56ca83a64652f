-- The thermal sweep's wall faces: what a camera has looked at, side by side.
-- A wall one cell thick (the generator's 5 cm walls on a 5 cm map) has two
-- faces; a camera on one side has not seen the other, where a heat source
-- may sit (the "far face of a thin wall" of the campaign).
local tycho = require "tycho"
local TS = require "thermal_sweep"

-- 2 x 1 m, free, walled round, and a wall one cell thick across it at
-- x = 1.0-1.05 m (column 20)
local function room()
  local g = tycho.grid.new { width = 40, height = 20, resolution = 0.05 }
  for y = 0, 19 do
    for x = 0, 39 do
      local wall = x == 0 or y == 0 or x == 39 or y == 19 or x == 20
      g:set(x, y, wall and 254 or 0)
    end
  end
  return g
end

-- A 360-beam scan of `g` from `pose`, cast on the grid itself.
local function scan_of(g, pose)
  local n, ranges = 360, {}
  for i = 1, n do
    local a = pose.yaw - math.pi + (i - 1) * 2 * math.pi / n
    local r = g:raycast(pose.x, pose.y, a, 3.5)
    ranges[i] = r
  end
  return tycho.scan.new({ angle_min = -math.pi, angle_increment = 2 * math.pi / n,
                          range_min = 0.05, range_max = 3.5 }, ranges)
end

describe("thermal sweep", function()
  it("lists both faces of a wall one cell thick, each facing its own side", function()
    local g = room()
    local west, east = 0, 0
    for _, f in ipairs(TS.new { resolution = 0.05, max_range = 1.25 }:faces(g)) do
      if f.cx == 20 and f.cy >= 1 and f.cy <= 18 then
        if f.nx == -1 then west = west + 1 elseif f.nx == 1 then east = east + 1 end
      end
    end
    assert.are.equal(18, west)
    assert.are.equal(18, east)
  end)

  it("checks only the side a camera looked at", function()
    local g = room()
    local sweep = TS.new { resolution = 0.05, max_range = 1.25 }
    -- half a metre west of the thin wall, a camera facing it (60 deg field)
    local pose = { x = 0.5, y = 0.5, yaw = 0 }
    local added = sweep:observe(pose, scan_of(g, pose), 0, math.rad(60))
    assert.is_true(added > 0)
    local seen, far = 0, 0
    for _, f in ipairs(sweep:faces(g)) do
      if f.cx == 20 and f.checked then
        if f.nx == -1 then seen = seen + 1 else far = far + 1 end
      end
    end
    assert.is_true(seen >= 8, "west faces checked: " .. seen)
    assert.are.equal(0, far)
    -- so the sweep's next view is of the far side (or elsewhere), never
    -- the side already seen
    local v = sweep:next_view(g, g, pose.x, pose.y, 0.5)
    assert.is_table(v)
    assert.is_false(v.face.cx == 20 and v.face.nx == -1 and v.face.cy >= 6 and v.face.cy <= 13)
  end)
end)
