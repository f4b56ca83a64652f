-- tycho.slam from Lua: a robot driven round a square room (scans ray cast
-- in a grid) with odometry 3 % long; every scan becomes a node, the map comes
-- back rendered from the poses; bad arguments are refused with their position.
local tycho = require "tycho"
local atan2 = math.atan -- two arguments on LuaJIT too (require "tycho" gives it Lua 5.4's atan(y, x))

-- a 6 x 6 m room with a 2 x 2 m pillar and two boxes on the walls (features
-- along every side, so no match is degenerate)
local function room()
  local g = tycho.grid.new { width = 124, height = 124, resolution = 0.05, origin = { x = -0.1, y = -0.1 }, fill = 0 }
  local function box(x0, y0, x1, y1)
    for cy = math.floor((y0 + 0.1) / 0.05), math.floor((y1 + 0.1) / 0.05) do
      for cx = math.floor((x0 + 0.1) / 0.05), math.floor((x1 + 0.1) / 0.05) do g:set(cx, cy, 254) end
    end
  end
  box(-0.1, -0.1, 6.1, 0); box(-0.1, 6, 6.1, 6.1); box(-0.1, -0.1, 0, 6.1); box(6, -0.1, 6.1, 6.1)
  box(2, 2, 4, 4); box(2.5, 0, 2.8, 0.3); box(6 - 0.3, 3.2, 6, 3.6); box(1.0, 5.7, 1.3, 6); box(0, 1.2, 0.25, 1.5)
  return g
end

describe("tycho.slam", function()
  it("takes a lap of a room with odometry 3 % long: every scan a node, matched, the map rendered from the poses", function()
    local world = room()
    local slam = tycho.slam.new { submap_scans = 20 }
    local tx, ty, tyaw = 1, 1, 0
    local ox, oy, oyaw = 1, 1, 0
    local worst, n = 0, 0
    local corners = { { 5, 1 }, { 5, 5 }, { 1, 5 }, { 1, 1 }, { 5, 1 } }
    for _, c in ipairs(corners) do
      local h = atan2(c[2] - ty, c[1] - tx)
      local dyaw = atan2(math.sin(h - tyaw), math.cos(h - tyaw))
      local turns = math.ceil(math.abs(dyaw) / math.rad(5))
      for _ = 1, turns do tyaw = tyaw + dyaw / turns; oyaw = oyaw + dyaw / turns * 1.02 end
      local d = math.sqrt((c[1] - tx) ^ 2 + (c[2] - ty) ^ 2)
      local steps = math.ceil(d / 0.04)
      for _ = 1, steps do
        tx, ty = tx + d / steps * math.cos(tyaw), ty + d / steps * math.sin(tyaw)
        ox, oy = ox + 1.03 * d / steps * math.cos(oyaw), oy + 1.03 * d / steps * math.sin(oyaw)
        local scan = world:scan({ x = tx, y = ty, yaw = tyaw }, { count = 360, range_max = 3.5 })
        local r = slam:add_scan(scan, { x = ox, y = oy, yaw = oyaw })
        worst = math.max(worst, math.sqrt((r.x - tx) ^ 2 + (r.y - ty) ^ 2))
        n = n + 1
      end
    end
    slam:finish()
    local st = slam:stats()
    assert.are.equal(n, st.nodes)
    assert.is_true(st.scans_matched > 0.9 * n, st.scans_matched .. " of " .. n)
    local odom_err = math.sqrt((ox - tx) ^ 2 + (oy - ty) ^ 2)
    assert.is_true(odom_err > 0.3, "odometry error " .. odom_err)
    -- (accuracy against the truth is test_slam's: a 48 m corridor loop, with and without closures)
    assert.is_true(worst < 0.6, "worst SLAM error " .. worst)
    local x, y = slam:pose()
    assert.are.equal(n, #slam:trajectory())
    local cx, cy = slam:correct(ox, oy, oyaw)
    assert.is_true(math.abs(cx - x) < 1e-9 and math.abs(cy - y) < 1e-9)
    local m = slam:map()
    -- the pillar's middle face is a wall in the rendered map, the room's middle of a corridor free
    local wx, wy = math.floor((2 - 0.5 * 0.05 - m.origin.x) / m.resolution), math.floor((3 - m.origin.y) / m.resolution)
    local hit = false
    for dx = -2, 2 do if m:get(wx + dx, wy) == 254 then hit = true end end
    assert.is_true(hit, "pillar face not in the rendered map")
    assert.are.equal(0, m:get(math.floor((1 - m.origin.x) / m.resolution), math.floor((3 - m.origin.y) / m.resolution)))
    assert.matches("tycho.slam %(%d+ scans", tostring(slam))
  end)

  it("refuses bad options and arguments, naming them", function()
    assert.has_error(function() tycho.slam.new { submap_scan = 3 } end)
    assert.has_error(function() tycho.slam.new { submap_scans = 1 } end, "bad argument #1 to 'new' (slam: submap_scans must be in 2..100000)")
    assert.has_error(function() tycho.slam.new { loop_sigma_xy = -1 } end)
    local slam = tycho.slam.new()
    local scan = room():scan({ x = 1, y = 1, yaw = 0 }, { count = 360, range_max = 3.5 })
    assert.has_error(function() slam:add_scan({}, { x = 0, y = 0, yaw = 0 }) end)
    assert.has_error(function() slam:add_scan(scan, { x = 0, y = 0 / 0, yaw = 0 }) end)
    assert.has_error(function() slam:correct(1, 2) end)
    assert.has_error(function() tycho.slam.new { loop_reject = -1 } end,
      "bad argument #1 to 'new' (slam: loop_reject must be in [0, 1000] (0: never))")
    assert.has_error(function() tycho.slam.new { prior_per_m = 1 / 0 } end)
    assert.has_error(function() tycho.slam.new { refine_steps = 9 } end,
      "bad argument #1 to 'new' (slam: refine_steps must be in 0..4)")
    assert.has_error(function() tycho.slam.new { loop_closures_per_node = 0 } end)
    assert.has_error(function() tycho.slam.new { loop_max_shift = -0.01 } end,
      "bad argument #1 to 'new' (slam: loop_max_shift must be in [0, 10] m)")
    assert.are.equal(0, tycho.slam.new { loop_max_shift = 0 }:stats().loops_shifted)
  end)

  it("close() frees it at once; every method afterwards says so", function()
    local slam = tycho.slam.new { prior_xy = 0.5, prior_yaw = 1, prior_per_m = 1, prior_per_rad = 1,
                                  loop_reject = 5, loop_closures_per_node = 2 }
    local scan = room():scan({ x = 1, y = 1, yaw = 0 }, { count = 360, range_max = 3.5 })
    slam:add_scan(scan, { x = 1, y = 1, yaw = 0 })
    assert.are.equal(0, slam:stats().loop_rejected)
    slam:close()
    slam:close() -- twice is harmless
    assert.has_error(function() slam:pose() end, "calling 'pose' on bad self (slam has been freed)")
    assert.are.equal("tycho.slam (freed)", tostring(slam))
  end)
end)
