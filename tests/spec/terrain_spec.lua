-- tycho.terrain from Lua: height fields with roughness and obstacles, a 3D
-- LiDAR sweep into a terrain map, traversability, plane fits, terrain A*,
-- mecanum kinematics, and argument errors.
local tycho = require "tycho"

describe("tycho.terrain", function()
  it("builds rough ground, sees it with the 3D LiDAR and maps it", function()
    local hf = tycho.terrain.heightfield { width = 200, height = 200, resolution = 0.1 }
    hf:roughness { class = "A", seed = 3, blur = 0.2 }
    hf:bell(10, 10, 1.5, 0.6)              -- a mound
    hf:box(15, 2, 16, 18, 1.0)             -- a wall across the field
    assert.is_true(hf.zmax >= 1.0)
    assert.is_true(hf:at(10.05, 10.05) > 0.55)
    assert.is_nil(hf:at(-1, 5))            -- off the field
    local pts, beams = hf:sweep({ x = 5, y = 10, z = hf:at(5, 10) },
      { lines = 16, range_max = 20, mount = { z = 0.5 },
        self = { xmin = -0.3, xmax = 0.3, ymin = -0.3, ymax = 0.3, zmin = -1, zmax = 1 } })
    assert.are.equal(16 * 1800, beams)
    assert.is_true(#pts > 3 * 5000 and #pts % 3 == 0)
    -- the wall was seen: points at x ~ 15, up to its top
    local wall = 0
    for i = 1, #pts, 3 do if pts[i] > 14.9 and pts[i] < 15.2 and pts[i + 2] > 0.5 then wall = wall + 1 end end
    assert.is_true(wall > 50)
    local map = tycho.terrain.map { width = 200, height = 200, resolution = 0.1 }
    assert.are.equal(#pts / 3, map:add(pts))
    map:traversability { barrier = 0.2 }
    assert.is_false(map:traversable(150, 100)) -- the wall
    local free = 0 -- the open ground on the rings the beams drew
    for cy = 0, 199 do for cx = 0, 140 do if map:traversable(cx, cy) then free = free + 1 end end end
    assert.is_true(free > 1000, "traversable cells: " .. free)
  end)

  it("plans around what it cannot cross and reports slope and roughness", function()
    local hf = tycho.terrain.heightfield { width = 100, height = 60, resolution = 0.1 }
    hf:box(4.5, 0, 5.5, 4.5, 0.5) -- a wall with a gap above y = 4.5
    hf:prisms(1, 0, 3, 6, 0.5, 0.03)
    local map = tycho.terrain.map { width = 100, height = 60, resolution = 0.1 }
    local pts = {}
    for cy = 0, 59 do
      for cx = 0, 99 do
        local x, y = (cx + 0.5) * 0.1, (cy + 0.5) * 0.1
        pts[#pts + 1], pts[#pts + 2], pts[#pts + 3] = x, y, hf:at(x, y)
      end
    end
    map:add(pts)
    map:traversability { barrier = 0.1 }
    local path, cost = map:plan(10, 10, 90, 10, { slope_weight = 1 })
    assert.is_table(path, cost)
    local highest = 0
    for _, c in ipairs(path) do
      assert.is_true(map:traversable(c[1], c[2]))
      highest = math.max(highest, c[2])
    end
    assert.is_true(highest >= 45)       -- round the wall's end, through the gap
    assert.is_true(cost > 8)            -- longer than the 8 m straight line
    local slope, rough = map:plane_fit(70, 30, 1)
    assert.is_true(slope < 1e-6 and rough < 1e-6) -- flat floor
    local _, r2 = map:plane_fit(20, 30, 2)
    assert.is_true(r2 > 0.003)          -- the prisms' ridges
    assert.is_nil(map:plan(10, 10, 50, 10)) -- into the wall
  end)

  it("lets the 3D and the 2D LiDAR feed the same map", function()
    -- 10 x 6 m: a low wall the 3D LiDAR sees on the height field, and a
    -- post only the 2D LiDAR's world has (say, a table leg above the ground)
    local hf = tycho.terrain.heightfield { width = 100, height = 60, resolution = 0.1 }
    hf:box(5, 0, 5.3, 3.5, 0.4)
    local map = tycho.terrain.map { width = 100, height = 60, resolution = 0.1 }
    for _, x in ipairs { 1, 2, 3, 4, 6, 7, 8 } do
      hf:sweep({ x = x, y = 3, z = 0 }, { lines = 16, columns = 720, range_max = 12, mount = { z = 0.4 } }, map)
    end
    map:traversability { barrier = 0.2 }
    local g = map:to_grid()
    assert.are.equal(100, g.width)
    local function wall_lethal()
      for cx = 49, 53 do if g:get(cx, 10) == 254 then return true end end
      return false
    end
    assert.is_true(wall_lethal())            -- the wall's faces, lethal (its top half seen: barrier)
    assert.is_true(g:get(51, 10) >= 253)
    local free = 0
    for cy = 0, 59 do for cx = 0, 99 do if g:get(cx, cy) == 0 then free = free + 1 end end end
    assert.is_true(free > 1000, "free cells " .. free) -- open floor the sweeps saw
    local truth = tycho.grid.new { width = 100, height = 60, resolution = 0.1, fill = 0 }
    for cx = 69, 70 do for cy = 45, 46 do truth:set(cx, cy, 254) end end
    local scan = truth:scan({ x = 7, y = 3, yaw = math.pi / 2 }, { count = 181, angle_min = -math.pi / 2,
                                                                   angle_increment = math.pi / 180, range_max = 5 })
    for _ = 1, 5 do g:insert_scan({ x = 7, y = 3, yaw = math.pi / 2 }, scan, { grow = false }) end -- log-odds: a few scans
    assert.are.equal(254, g:get(70, 45))     -- the post, from the 2D scan
    assert.are.equal(0, g:get(70, 40))       -- and the floor in front of it, cleared
    assert.is_true(wall_lethal())            -- the wall is still there
  end)

  it("turns mecanum wheel speeds round trip and refuses bad arguments", function()
    local w1, w2, w3, w4 = tycho.terrain.mecanum_inverse(0.3, -0.2, 0.5)
    local vx, vy, wz = tycho.terrain.mecanum_forward(w1, w2, w3, w4)
    assert.is_true(math.abs(vx - 0.3) < 1e-9 and math.abs(vy + 0.2) < 1e-9 and math.abs(wz - 0.5) < 1e-9)
    assert.error_matches(function() tycho.terrain.mecanum_inverse(0, 0, 0, { r = 0 }) end, "must be > 0")
    assert.error_matches(function() tycho.terrain.heightfield { width = 0, height = 5 } end,
      "field 'width' in argument #1 to 'terrain.heightfield' %(must be > 0%)")
    local hf = tycho.terrain.heightfield { width = 10, height = 10 }
    assert.error_matches(function() hf:roughness { class = "Z" } end, "'A'..'H'")
    assert.error_matches(function() hf:roughness { clas = "A" } end, "unknown field 'clas'")
    assert.error_matches(function() hf:sweep({}, { lines = 24 }) end, "16, 32 or 64")
  end)
end)
