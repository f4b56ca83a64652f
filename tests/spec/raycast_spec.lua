local tycho = require "tycho"

local HUGE = math.huge

-- 20x20 cells of 0.1 m, free, with a wall at column 10 (x in [1.0, 1.1))
-- except a gap at the top row
local function walled()
  local g = tycho.grid.new { width = 20, height = 20, resolution = 0.1, fill = 0 }
  for y = 0, 18 do g:set(10, y, tycho.grid.LETHAL) end
  return g
end

describe("grid:raycast", function()
  it("returns the distance to the first blocked cell's boundary", function()
    local g = walled()
    assert.are.near(0.75, g:raycast(0.25, 0.55, 0, 5), 1e-12)
    assert.are.near(0.85, g:raycast(1.95, 0.55, math.pi, 5), 1e-12)
    assert.are.equal(HUGE, g:raycast(0.25, 0.55, math.pi, 5)) -- leaves the grid
    assert.are.equal(HUGE, g:raycast(0.25, 1.95, 0, 5))       -- through the gap
    assert.are.equal(0, g:raycast(1.05, 0.55, 1.0, 5))        -- starts in the wall
    assert.are.equal(HUGE, g:raycast(0.25, 0.55, 0, 0.7))     -- beyond max_range
    assert.are.near(0.75, g:raycast(0.25, 0.55, 0, 0.75), 1e-12) -- a hit at max_range counts
  end)

  it("takes a threshold and treats unknown as free unless asked", function()
    local g = walled()
    g:set(4, 5, 100)
    g:set(4, 8, tycho.grid.UNKNOWN)
    assert.are.equal(HUGE, g:raycast(0.05, 0.55, 0, 0.8))
    assert.are.near(0.35, g:raycast(0.05, 0.55, 0, 0.8, { threshold = 100 }), 1e-12)
    assert.are.near(0.75 + 0.2, g:raycast(0.05, 0.85, 0, 5), 1e-12)
    assert.are.near(0.35, g:raycast(0.05, 0.85, 0, 5, { unknown_blocked = true }), 1e-12)
    -- the outside is unknown: blocked with unknown_blocked
    assert.are.near(0.25, g:raycast(0.25, 0.55, math.pi, 5, { unknown_blocked = true }), 1e-12)
    assert.are.equal(0, g:raycast(-1, 0.55, 0, 5, { unknown_blocked = true }))
    assert.are.near(2.0, g:raycast(-1, 0.55, 0, 5), 1e-12) -- enters, then hits the wall
  end)

  it("names bad arguments", function()
    local g = walled()
    assert.error_matches(function() g:raycast("a", 0, 0, 1) end, "#1")
    assert.error_matches(function() g:raycast(0, 0, 0, -1) end, "max_range must be >= 0")
    assert.error_matches(function() g:raycast(0, 0, 0 / 0, 1) end, "angle must be finite")
    assert.error_matches(function() g:raycast(0, 0, 0, 1, { threshold = 300 }) end,
      "bad field 'threshold'")
    assert.error_matches(function() g:raycast(0, 0, 0, 1, { unknown_blocked = 1 }) end,
      "bad field 'unknown_blocked'")
  end)
end)

describe("scans", function()
  it("casts a scan into C-owned ranges", function()
    local g = walled()
    local s = g:scan({ x = 0.25, y = 0.55, yaw = 0 }, { count = 8, range_max = 3 })
    assert.are.equal(8, #s)
    assert.are.equal(8, s.count)
    assert.are.near(-math.pi, s.angle_min, 1e-12)
    assert.are.near(2 * math.pi / 8, s.angle_increment, 1e-12) -- a full turn by default
    assert.are.near(0.75, s:range(5), 1e-6)                     -- beam 5 points at +x
    assert.are.equal(HUGE, s:range(1))                          -- -x: leaves the grid
    assert.are.near(s:angle(5), 0, 1e-12)
    local copy = s:ranges()
    assert.are.equal(8, #copy)
    assert.are.equal(s:range(5), copy[5])
    assert.matches("tycho.scan 8 beams", tostring(s))
    assert.error_matches(function() s:range(9) end, "beam index out of range")
  end)

  it("follows LaserScan conventions for angles and limits", function()
    local g = walled()
    local pose = { x = 0.25, y = 0.55, yaw = math.pi / 2 }
    -- angle_max inclusive: 3 beams at -pi/2, 0, pi/2 relative to the sensor
    local s = g:scan(pose, { count = 3, angle_min = -math.pi / 2, angle_max = math.pi / 2, range_max = 3 })
    assert.are.near(math.pi / 2, s.angle_increment, 1e-12)
    assert.are.near(math.pi / 2, s.angle_max, 1e-12)
    assert.are.near(0.75, s:range(1), 1e-6) -- sensor yaw + (-pi/2) = world +x
    -- an explicit increment wins over angle_max
    local s2 = g:scan(pose, { count = 2, angle_min = -math.pi / 2, angle_increment = 0.1,
                              angle_max = 5, range_max = 3 })
    assert.are.near(0.1, s2.angle_increment, 1e-12)
    -- returns below range_min or above range_max are "no return"
    local s3 = g:scan(pose, { count = 1, angle_min = -math.pi / 2, range_min = 0.8, range_max = 3 })
    assert.are.equal(HUGE, s3:range(1))
    local s4 = g:scan(pose, { count = 1, angle_min = -math.pi / 2, range_max = 0.5 })
    assert.are.equal(HUGE, s4:range(1))
  end)

  it("names bad pose and parameter fields", function()
    local g = walled()
    assert.error_matches(function() g:scan({ x = 0 }, { range_max = 1 }) end, "bad field 'y'")
    assert.error_matches(function() g:scan({ x = 0, y = 0 }, {}) end, "bad field 'range_max'")
    assert.error_matches(function() g:scan({ x = 0, y = 0 }, { range_max = 1, count = 0 }) end,
      "bad field 'count'")
    assert.error_matches(function() g:scan({ x = 0, y = 0 }, { range_max = 1, range_min = 2 }) end,
      "bad field 'range_max'")
    assert.error_matches(function() g:scan({ x = 0, y = 0 }, { range_max = 1, angle_min = "a" }) end,
      "bad field 'angle_min'")
  end)

  it("builds scans from data", function()
    local s = tycho.scan.new({ angle_min = -1, angle_increment = 0.5, range_max = 4 },
      { 1.0, 2.5, HUGE, 3.0, 0.5 })
    assert.are.equal(5, #s)
    assert.are.near(1.0, s.angle_max, 1e-12)
    assert.are.equal(HUGE, s:range(3))
    assert.are.equal(2.5, s:range(2))
    s:set_range(3, 1.25)
    assert.are.equal(1.25, s:range(3))
    assert.error_matches(function() tycho.scan.new({ range_max = 4, count = 3 }, { 1, 2 }) end,
      "2 ranges for count = 3")
    assert.error_matches(function() tycho.scan.new({ range_max = 4 }, { 1, "x" }) end,
      "ranges%[2%] is string")
    assert.error_matches(function() tycho.scan.new({ range_max = 4 }, {}) end, "#2")
  end)
end)

describe("grid:raycaster", function()
  it("gives exactly what grid:raycast gives", function()
    local g = tycho.grid.new { width = 120, height = 90, resolution = 0.05, fill = 0,
                               origin = { x = -2, y = -1, yaw = 0.3 } }
    math.randomseed(7)
    for _ = 1, 150 do g:set(math.random(0, 119), math.random(0, 89), 254) end
    for x = 0, 119 do if x % 30 > 5 then g:set(x, 45, 254) end end
    local rm = g:raycaster()
    assert.matches("tycho.raymap", tostring(rm))
    local same, hits = 0, 0
    for _ = 1, 3000 do
      local x, y = math.random() * 8 - 3, math.random() * 7 - 2
      local a, r = math.random() * 7 - 3.5, math.random() * 6
      local want = g:raycast(x, y, a, r)
      if rm:cast(x, y, a, r) == want then same = same + 1 end
      if want < HUGE then hits = hits + 1 end
    end
    assert.are.equal(3000, same)
    assert.is_true(hits > 300)
    -- a snapshot: changes show after update()
    local x0, y0 = g:cell_to_world(60, 20)
    local before = rm:cast(x0, y0, 0.3, 1)
    g:set(62, 20, 254)
    assert.are.equal(before, rm:cast(x0, y0, 0.3, 1))
    rm:update(g)
    assert.are.equal(g:raycast(x0, y0, 0.3, 1), rm:cast(x0, y0, 0.3, 1))
    local s1 = rm:scan({ x = x0, y = y0 }, { range_max = 2 })
    local s2 = g:scan({ x = x0, y = y0 }, { range_max = 2 })
    for i = 1, #s1 do assert.are.equal(s2:range(i), s1:range(i)) end
  end)

  it("keeps its options", function()
    local g = walled()
    g:set(4, 8, tycho.grid.UNKNOWN)
    local rm = g:raycaster { unknown_blocked = true }
    assert.are.near(0.35, rm:cast(0.05, 0.85, 0, 5), 1e-12)
    assert.matches("unknown blocked", tostring(rm))
  end)
end)

describe("grid:insert_scan", function()
  it("maps walls as lethal and open space as free", function()
    local truth = tycho.grid.new { width = 60, height = 60, resolution = 0.05, fill = 0 }
    for i = 0, 59 do
      truth:set(i, 0, 254); truth:set(i, 59, 254); truth:set(0, i, 254); truth:set(59, i, 254)
    end
    for y = 10, 30 do truth:set(40, y, 254) end
    local map = tycho.grid.new { width = 60, height = 60, resolution = 0.05 } -- unknown
    local params = { count = 720, range_max = 3.5 }
    local n
    for k = 0, 5 do
      local pose = { x = 0.8 + 0.1 * k, y = 1.0, yaw = 0.2 * k }
      n = map:insert_scan(pose, truth:scan(pose, params), { grow = false })
    end
    assert.is_true(n > 500)
    assert.are.equal(60, map.width) -- cells keep their indices: no growth
    local agree, known = 0, 0
    for y = 1, 58 do
      for x = 1, 58 do
        local c = map:get(x, y)
        if c ~= 255 then
          known = known + 1
          if c == truth:get(x, y) then agree = agree + 1 end
        end
      end
    end
    assert.is_true(known > 1500)
    assert.is_true(agree / known > 0.97)
    assert.are.equal(254, map:get(40, 20)) -- the inner wall, facing the sensor
    assert.are.equal(255, map:get(45, 20)) -- behind it: never seen
  end)

  it("grows the grid, updates a cell once per scan, and honours options", function()
    local map = tycho.grid.new { width = 20, height = 20, resolution = 0.1 }
    local s = tycho.scan.new({ count = 360, range_max = 1.5 }, (function()
      local t = {}
      for i = 1, 360 do t[i] = HUGE end
      return t
    end)())
    local n = map:insert_scan({ x = 1.0, y = 1.0 }, s)
    assert.is_true(map.width > 20 and map.height > 20)
    local cx, cy = map:world_to_cell(1.0, 1.0)
    assert.are.near(math.log(0.4 / 0.6), map:logodds(cx, cy), 1e-6) -- one miss, not 360
    assert.is_true(n > 600)
    assert.are.equal(0, map:insert_scan({ x = 1.0, y = 1.0 }, s, { clear_on_max_range = false }))
    local small = tycho.grid.new { width = 20, height = 20, resolution = 0.1 }
    small:insert_scan({ x = 1.0, y = 1.0 }, s, { grow = false })
    assert.are.equal(20, small.width)
    assert.error_matches(function() map:insert_scan({ x = 0, y = 0 }, "s") end, "#2")
    assert.error_matches(function() map:insert_scan({ x = 0, y = 0 }, s, { grow = 1 }) end,
      "bad field 'grow'")
  end)
end)
