-- The fleet mission (behaviors/fleet.lua) through the real executable: the
-- warehouse goal sets with and without injected delays and stops, our own
-- input format, re-planning around a broken-down robot, bad input; and the
-- route distributor's rules on a hand-made plan.
local tycho = require "tycho"
local _ -- the results a test does not look at
local exe = require "helpers.exe"
local SRC = exe.SRC
local Distributor = require "fleet.route_distributor"

local DATA = exe.DATA .. "/warehouse/"

local function run(args)
  local out = exe.tmpdir()
  local code, text = exe.run(("run behaviors/fleet.lua --quiet --out %s %s"):format(exe.quote(out), args))
  local s = exe.read_json(out .. "/summary.json")
  local png = exe.exists(out .. "/routes.png")
  exe.remove_tree(out)
  return code, s, text, png
end

local function warehouse(set, extra)
  return ("--map %smap.yaml --starts %sstage.world --goals %sgoals032/goals%03d.txt %s"):format(
    DATA, DATA, DATA, set, extra or "")
end

local function all_home(s, text)
  assert.is_table(s, text)
  assert.are.equal(0, s.totals.collisions, text)
  assert.are.equal(s.totals.robots, s.totals.reached, text)
  for _, r in ipairs(s.robots) do
    assert.is_true(r.reached, r.name .. " did not reach its goal")
    assert.is_true(r.goal_offset_m < 0.75, r.name .. " ended away from its goal")
  end
  assert.is_false(s.emergency_stop)
end

describe("fleet mission #e2e", function()
  for _, set in ipairs { 0, 1, 2, 3, 4 } do
    it("takes all 32 robots of goal set " .. set .. " home, without and with delays and stops", function()
      local code, s, text, png = run(warehouse(set))
      assert.are.equal(0, code, text)
      all_home(s, text)
      assert.are.equal(32, s.totals.robots)
      assert.is_true(png)
      assert.is_true(s.totals.min_clearance_m > 0)
      code, s, text = run(warehouse(set, "--delays 0.2 --stops 0.01 --seed 5"))
      assert.are.equal(0, code, text)
      all_home(s, text)
      assert.is_true(s.totals.delays > 50 and s.totals.stops >= 1, text)
    end)
  end

  it("plans and drives on the sparse skeleton graph and on an 8-connected grid", function()
    local code, s, text = run(warehouse(4, "--graph sparse --delays 0.1 --seed 2"))
    assert.are.equal(0, code, text)
    all_home(s, text)
    code, s, text = run(warehouse(2, "--connectivity 8"))
    assert.are.equal(0, code, text)
    all_home(s, text)
    code, _, text = run(warehouse(2, "--graph voronoi"))
    assert.are.equal(2, code)
    assert.matches("--graph must be one of grid, sparse", text, 1, true)
  end)

  it("records every robot, the rest of its route and its goal (--record), and the summary is the same", function()
    local mcap = os.tmpname() .. ".mcap"
    local code, s, text = run(warehouse(1, "--record " .. exe.quote(mcap)))
    assert.are.equal(0, code, text)
    local _, plain = run(warehouse(1))
    assert.are.same(plain.totals.makespan_s, s.totals.makespan_s)
    assert.are.same(plain.totals.waits, s.totals.waits)
    local json = require "json_decode"
    local counts, first, last = {}, nil, nil
    local function entity(scene, id)
      for _, e in ipairs(scene.entities) do if e.id == id then return e end end
    end
    -- the vertices the robots hold: granted ahead of them (two robots may be
    -- granted one vertex: the distributor's preconditions order their passes)
    local held = 0
    local info = assert(tycho.mcap.read(mcap, function(topic, _, data)
      counts[topic] = (counts[topic] or 0) + 1
      if topic == "/fleet" then
        last = json.decode(data)
        first = first or last
        held = held + #entity(last, "reservations").cubes
      end
    end))
    os.remove(mcap)
    assert.is_true(info.messages > 0)
    assert.are.equal(1, counts["/map"])
    -- five a simulated second over the whole run
    assert.is_true(counts["/fleet"] >= math.floor(s.totals.makespan_s * 5) - 1, tostring(counts["/fleet"]))
    assert.are.equal(32, #entity(first, "robots").spheres)
    assert.is_true(held > counts["/fleet"], "reservations shown: " .. held)
    assert.are.equal(32, #entity(first, "routes").lines)
    assert.are.equal(32, #entity(first, "goals").cubes)
    -- at the start the routes lie ahead; by the last scene (5 Hz: the run ends at the
    -- last arrival) the robots are home, green, on their goals
    assert.is_true(#entity(first, "routes").lines[1].points > 2)
    local function home(scene)
      local k = 0
      for _, r in ipairs(entity(scene, "robots").spheres) do
        if r.color.g == 0.7 and r.color.r == 0 then k = k + 1 end
      end
      return k
    end
    assert.is_true(home(first) < 4 and home(last) >= 28, home(first) .. " / " .. home(last))
    -- a robot home holds nothing ahead: by the end only the last few do (at most 4 vertices each)
    assert.is_true(#entity(last, "reservations").cubes <= 4 * (32 - home(last)))
  end)

  it("gives the route graph with lengths and widths to Lua", function()
    local map = tycho.map.load(DATA .. "map.yaml")
    local cm = map:inflate { inscribed_radius = 0.3, inflation_radius = 0.3 }
    local g = tycho.fleet.graph(cm, { graph = "sparse", spacing = 1.0 })
    assert.is_true(#g.nodes > 300 and #g.edges > #g.nodes) -- aisles form loops
    for _, e in ipairs(g.edges) do
      assert.is_true(e.length > 0.5 and e.length < 1.6)
      assert.is_true(e.width > 0.8 and e.width < 1.3) -- the aisles are about a metre wide
    end
    local g4 = tycho.fleet.graph(cm)
    assert.are.equal(544, #g4.nodes)
    assert.error_matches(function() tycho.fleet.graph(cm, { graph = "mesh" }) end, "'grid' or 'sparse'")
    assert.error_matches(function() tycho.fleet.graph(cm, { connectivity = 6 }) end, "connectivity 4 or 8")
  end)

  it("is reproducible for a seed", function()
    local _, a = run(warehouse(1, "--delays 0.2 --stops 0.02 --seed 9"))
    local _, b = run(warehouse(1, "--delays 0.2 --stops 0.02 --seed 9"))
    for _, t in ipairs { a.totals, b.totals } do t.wall_time_s, t.realtime_factor, t.planning_ms = 0, 0, 0 end
    assert.are.same(a, b)
  end)

  it("re-plans around robots that break down, and everyone still gets home", function()
    local code, s, text = run("--fleet maps/fleet_loop.lua --delays 0.3 --stops 0.05 --seed 3")
    assert.are.equal(0, code, text)
    all_home(s, text)
    assert.is_true(s.totals.stops >= 1 and s.totals.replans >= 1, text)
    -- without re-planning, robots wait out the breakdowns (the preconditions
    -- keep the order safe) and get home too
    local code2, s2, text2 = run("--fleet maps/fleet_loop.lua --delays 0.3 --stops 0.05 --seed 3 --no-replan")
    assert.are.equal(0, code2, text2)
    all_home(s2, text2)
    assert.are.equal(0, s2.totals.replans)
  end)

  it("reads our own format and names robots in errors", function()
    local code, s, text = run("--fleet maps/fleet_loop.lua")
    assert.are.equal(0, code, text)
    all_home(s, text)
    assert.are.equal("a", s.robots[1].name)
    local bad = os.tmpname() .. ".lua"
    local f = io.open(bad, "w")
    f:write(('return { map = "%s/maps/fleet_loop.yaml", robots = {\n'):format(SRC),
      '{ name = "a", start = { x = 2, y = 3 }, goal = { x = 8, y = 1 } },\n',
      '{ name = "b", start = { x = 2, y = 3 }, goal = { x = 2, y = 1 } } } }\n')
    f:close()
    code, _, text = run("--fleet " .. bad)
    assert.are.equal(1, code) -- the planner refuses it: the run failed
    assert.matches("b: shares its start vertex with a", text)
    f = io.open(bad, "w")
    f:write(('return { map = "%s/maps/fleet_loop.yaml", robots = { { name = "a", start = { x = 2 }, goal = { x = 1, y = 1 } } } }'):format(SRC))
    f:close()
    code, _, text = run("--fleet " .. bad)
    assert.are.equal(2, code)
    assert.matches("robots%[1%]%.start%.y: number expected", text)
    os.remove(bad)
    code, _, text = run("--delays 2 --fleet maps/fleet_loop.lua")
    assert.are.equal(2, code)
    assert.matches("--delays must be in [0, 1]", text, 1, true)
    code, _, text = run("--map x.yaml")
    assert.are.equal(2, code)
    assert.matches("give %-%-map, %-%-starts and %-%-goals", text)
  end)
end)

-- a plan by hand: robot 1 goes a -> b -> c; robot 2 goes d -> b -> e after
-- robot 1 has left b (precondition: robot 1 completed its segment 2)
local function fake_planner()
  local routes = {
    { { x = 0, y = 0 }, { x = 1, y = 0 }, { x = 2, y = 0 } },
    { { x = 1, y = 1 }, { x = 1, y = 0 }, { x = 1, y = -1 } },
  }
  local pre = { [2] = { [2] = { { robot = 1, segment = 2 } } } }
  return {
    route = function(_, i) return routes[i] end,
    preconditions = function(_, i, k) return (pre[i] and pre[i][k]) or {} end,
  }
end

describe("route distributor", function()
  it("lets a robot into a vertex only after the robot planned there before has left it", function()
    local d = Distributor.new(2)
    d:load(fake_planner(), 0)
    assert.are.equal(3, d:grant(1, 4, 0))
    assert.are.equal(1, d:grant(2, 4, 0)) -- b is robot 1's first
    assert.are.same({ 1 }, d:blockers(2))
    d:report(1, 2, 1.0) -- robot 1 at b: not gone yet
    assert.are.equal(1, d:grant(2, 4, 1.0))
    d:report(1, 3, 2.0) -- robot 1 at c: b is free
    assert.are.equal(3, d:grant(2, 4, 2.0))
    assert.are.same({}, d:blockers(2))
  end)

  it("tells a queue from a robot held up for good", function()
    local d = Distributor.new(2)
    d:load(fake_planner(), 0)
    d:grant(1, 4, 0)
    local holding = { false, true }
    local function h(i) return holding[i] end
    -- robot 1 may drive but makes no progress: after the limit, robot 2 is stuck on it
    assert.are.same({}, d:stuck(5, 10, h))
    local s = d:stuck(11, 10, h)
    assert.are.equal(1, #s)
    assert.are.same({ robot = 2, cause = 1, why = "stopped" }, s[1])
    -- robot 1 arrives somewhere: a queue again
    d:report(1, 2, 11)
    assert.are.same({}, d:stuck(12, 10, h))
  end)
end)
