-- tycho.cell_set: the thermal sweep's "cells a camera has looked at", in C.
-- It must hold exactly the cells the Lua it replaced held (the reference
-- below is that Lua, kept here as the oracle), or the mission's decisions
-- would change with the move.
local tycho = require "tycho"

local function wrap(a) return (a + math.pi) % (2 * math.pi) - math.pi end

-- the Lua implementation thermal_sweep.lua had: a table keyed by cell key
local function lua_key(res, x, y)
  return math.floor(x / res + 0.5) * 1048576 + math.floor(y / res + 0.5)
end
local function lua_observe(checked, res, max_range, pose, scan, cam_yaw, fov)
  local n, a0, inc = #scan, scan.angle_min, scan.angle_increment
  local i0 = math.floor((cam_yaw - fov / 2 - a0) / inc)
  local i1 = math.ceil((cam_yaw + fov / 2 - a0) / inc)
  local added = 0
  for j = i0, i1 do
    local i = j % n
    local a = a0 + i * inc
    if math.abs(wrap(a - cam_yaw)) <= fov / 2 then
      local r = scan:range(i + 1)
      if r > 0 and r <= max_range then
        local back = r > res and r - res or 0 -- a cell short of the hit: the seen side
        local x = pose.x + back * math.cos(pose.yaw + a)
        local y = pose.y + back * math.sin(pose.yaw + a)
        for dx = -1, 1 do
          for dy = -1, 1 do
            local k = lua_key(res, x + dx * res, y + dy * res)
            if not checked[k] then checked[k] = true added = added + 1 end
          end
        end
      end
    end
  end
  return added
end

describe("tycho.cell_set", function()
  it("holds exactly the cells the Lua reference holds, over 400 random camera frames", function()
    local res, max_range = 0.05, 1.6
    local set, ref, n_ref = tycho.cell_set { resolution = res }, {}, 0
    local seed = 12345
    local function rnd() seed = (seed * 1103515245 + 12345) % 2147483648 return seed / 2147483648 end
    local probes = {}
    for frame = 1, 400 do
      local ranges = {}
      for i = 1, 360 do ranges[i] = (rnd() < 0.1) and math.huge or rnd() * 3 end
      local scan = tycho.scan.new({ angle_min = frame % 2 == 0 and -math.pi or 0, angle_increment = 2 * math.pi / 360,
                                    range_min = 0.01, range_max = 3.5 }, ranges)
      local pose = { x = (rnd() - 0.5) * 20, y = (rnd() - 0.5) * 20, yaw = (rnd() - 0.5) * 7 }
      local cam_yaw, fov = (rnd() - 0.5) * 2, math.rad(60)
      local a = set:observe(pose, scan, cam_yaw, fov, max_range)
      local b = lua_observe(ref, res, max_range, pose, scan, cam_yaw, fov)
      n_ref = n_ref + b
      assert.are.equal(b, a, "frame " .. frame)
      probes[#probes + 1] = { pose.x + rnd() - 0.5, pose.y + rnd() - 0.5 }
    end
    assert.are.equal(n_ref, #set)
    assert.is_true(#set > 10000)
    -- membership agrees, near and far from what was seen
    local hits = 0
    for _, p in ipairs(probes) do
      local want = ref[lua_key(res, p[1], p[2])] == true
      assert.are.equal(want, set:has(p[1], p[2]))
      if want then hits = hits + 1 end
    end
    assert.is_true(hits > 0)
  end)

  it("adds and finds single cells, negative coordinates included", function()
    local set = tycho.cell_set { resolution = 0.1 }
    assert.is_true(set:add(-0.31, -0.02))
    assert.is_false(set:add(-0.29, 0.04)) -- the same cell (-3, 0)
    assert.is_true(set:has(-0.3, 0))
    assert.is_false(set:has(0.3, 0))
    assert.are.equal(1, #set)
    assert.matches("tycho.cell_set %(1 cells", tostring(set))
    -- the cell whose key is -1 (x cell 0, y cell -1): once a hole in the table
    assert.is_false(set:has(0.03, -0.13))
    assert.is_true(set:add(0, -0.1))
    assert.is_true(set:has(0.03, -0.13))
    assert.are.equal(2, #set)
  end)

  it("refuses bad arguments, naming them", function()
    assert.has_error(function() tycho.cell_set { resolution = 0 } end)
    assert.has_error(function() tycho.cell_set { resoluton = 1 } end)
    assert.has_error(function() tycho.cell_set {} end, "bad argument #1 to 'cell_set' (resolution required)")
    local set = tycho.cell_set { resolution = 0.1 }
    assert.has_error(function() set:has(0 / 0, 1) end)
    local scan = tycho.scan.new({ angle_min = 0, angle_increment = 0.1, range_max = 3 }, { 1, 1, 1 })
    assert.has_error(function() set:observe({ x = 0, y = 0, yaw = 0 }, scan, 0, 0, 1) end)
    assert.has_error(function() set:observe({ x = 0, y = 0 }, scan, 0, 1, 1) end)
    assert.has_error(function() set:observe({ x = 0, y = 0, yaw = 0 }, {}, 0, 1, 1) end)
  end)
end)
