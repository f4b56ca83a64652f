-- Fleet route planning from Lua: the warehouse, 32 robots, goal set 1.
local exe = require "helpers.exe"
local tycho = require "tycho"

local DATA = exe.DATA
  .. "/warehouse/"

describe("tycho.fleet", function()
  it("loads the warehouse, plans 32 robots and gives routes with preconditions", function()
    local map = tycho.map.load(DATA .. "map.yaml")
    local cm = map:inflate { inscribed_radius = 0.3, inflation_radius = 0.3 }
    local starts = assert(tycho.fleet.stage_poses(DATA .. "stage.world"))
    local goals = assert(tycho.fleet.goals(DATA .. "goals032/goals001.txt"))
    assert.are.equal(32, #starts)
    assert.are.equal(0, starts[1].robot)
    local s, g = {}, {}
    for i = 1, 32 do s[i], g[i] = starts[i], goals[i] end
    local fp = tycho.fleet.planner(cm, { cell = 1.0 })
    assert.is_true(fp:plan(s, g))
    assert.is_true(fp.orders_tried >= 1)
    -- every route starts at the start and ends at the goal; waits are merged
    local total_pre = 0
    for i = 1, 32 do
      local r = fp:route(i)
      assert.is_true(math.abs(r[1].x - s[i].x) <= 1 and math.abs(r[1].y - s[i].y) <= 1)
      assert.is_true(math.abs(r[#r].x - g[i].x) <= 1 and math.abs(r[#r].y - g[i].y) <= 1)
      for k = 2, #r do assert.is_true(r[k].enter > r[k - 1].enter and r[k].vertex ~= r[k - 1].vertex) end
      for k = 1, #r do total_pre = total_pre + #fp:preconditions(i, k) end
    end
    assert.is_true(total_pre > 0)
    -- no two robots in one place at one step (checked here, independently)
    for t = 0, 120 do
      local seen = {}
      for i = 1, 32 do
        local x, y = fp:at(i, t)
        local key = x .. "," .. y
        assert.is_nil(seen[key], ("robots %s and %d at (%s) at step %d"):format(tostring(seen[key]), i, key, t))
        seen[key] = i
      end
    end
  end)

  it("names the robot and the reason on bad input", function()
    local g = tycho.grid.new { width = 10, height = 3, resolution = 1, origin = { x = -0.5, y = -0.5 } }
    g:fill(0)
    local fp = tycho.fleet.planner(g)
    local ok, err = fp:plan({ { x = 0, y = 1 }, { x = 0, y = 1 } }, { { x = 9, y = 1 }, { x = 8, y = 1 } })
    assert.is_nil(ok)
    assert.matches("robot 2: shares its start vertex with robot 1", err)
    assert.error_matches(function() fp:route(1) end, "no plan yet")
    assert.error_matches(function() fp:plan({ { x = 0 } }, { { x = 1, y = 1 } }) end, "bad start #1")
    local none, why = tycho.fleet.goals("/nonexistent.txt")
    assert.is_nil(none)
    assert.matches("cannot open", why)
  end)
end)
