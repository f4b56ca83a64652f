--- The fleet mission: plan every robot's route (prioritized planning with
-- preconditions), execute the routes in the fleet simulator under route
-- supervisors and a route distributor running on the scheduler, inject
-- seeded delays and stops, detect robots held up for good (a stopped robot
-- ahead, or a deadlock) and re-plan from where everyone is, and write
-- DIR/summary.json and DIR/routes.png.
--
--   tycho run behaviors/fleet.lua --map tests/data/warehouse/map.yaml
--       --starts tests/data/warehouse/stage.world
--       --goals tests/data/warehouse/goals032/goals000.txt [--delays 0.1] [--seed 1]
--   tycho run behaviors/fleet.lua --fleet maps/fleet_small.lua
--
-- Exits 0 when every robot reached its goal with no collision, 1 otherwise,
-- 2 on bad arguments.
local tycho = require "tycho"
local inputs = require "fleet.inputs"
local Distributor = require "fleet.route_distributor"
local Supervisor = require "fleet.route_supervisor"
local report = require "fleet.report"
local Mission = require "mission"
local cli = require "cli"

-- command line: every option declared here, once (--help is generated from it)
local OPTIONS = {
  { name = "map", type = "string", metavar = "PATH", doc = "map_server map (YAML)" },
  { name = "starts", type = "string", metavar = "PATH",
    doc = "Stage world with the robots' start poses (pose [ x y z yaw_deg ])" },
  { name = "goals", type = "string", metavar = "PATH", doc = "goal file (robot_N, then x, y, z, qx, qy, qz, qw)" },
  { name = "fleet", type = "string", metavar = "PATH",
    doc = "our own format instead: a Lua file returning {map =, robots = {...}}" },
  { name = "robots", type = "integer", min = 1, metavar = "N", doc = "only the first N robots" },
  { name = "delays", type = "number", default = 0, min = 0, max = 1, metavar = "P",
    doc = "probability of a short stop (1-8 s) at each vertex reached" },
  { name = "stops", type = "number", default = 0, min = 0, max = 1, metavar = "P",
    doc = "probability of a long stop (40-90 s, a breakdown) at each vertex" },
  { name = "seed", type = "integer", default = 1, min = 0, metavar = "N", doc = "seed of the injected delays" },
  { name = "no-replan", type = "boolean", doc = "never re-plan (robots behind a stopped one wait)" },
  { name = "graph", type = "choice", choices = { "grid", "sparse" }, default = "grid", metavar = "KIND",
    doc = "route graph: the grid, or the aisles' skeleton (see README)" },
  { name = "connectivity", type = "choice", choices = { "4", "8" }, default = "4", metavar = "N", doc = "grid graph" },
  { name = "spacing", type = "number", default = 1.0, min = 0.01, metavar = "M",
    doc = "sparse graph: metres between vertices along an aisle" },
  { name = "cell", type = "number", default = 1.0, min = 0.01, metavar = "M", doc = "grid graph cell size, m" },
  { name = "radius", type = "number", default = 0.3, min = 0, metavar = "M", doc = "robot radius for the map inflation, m" },
  { name = "speed", type = "number", min = 0.001, metavar = "X",
    doc = "pace the simulation at X simulated seconds per wall second (default: as fast as it goes)" },
  { name = "timeout", type = "number", default = 3600, min = 0.001, metavar = "S", doc = "give up after S simulated seconds" },
  { name = "out", type = "string", default = "out/fleet", allow_empty = true, metavar = "DIR", doc = "output folder" },
  { name = "quiet", type = "boolean", doc = "only warnings and the summary" },
}
-- what the hooks below share
local opt, log, sched, clock, guard, map, robots, notes, planner, plan_ms, sim, stats, per, trails, all_done
local function now() return clock:now() end

--- The inputs, the plan, and the tasks that run it on the runner's scheduler.
local function start(m)
  opt, log, sched, clock, guard = m.opt, m.log, m.sched, m.clock, m.guard
  -- a missing or malformed input file is bad input: one line with its file:line, exit 2
  local robots_or_code
  map, robots_or_code, notes = cli.load("fleet", function()
    if opt.fleet then return inputs.from_lua(opt.fleet) end
    return inputs.from_files(opt.map, opt.starts, opt.goals, opt.robots)
  end)
  if not map then return robots_or_code end
  robots = robots_or_code
  local n = #robots
  if notes then
    log:info("%d robots in %s%s", notes.robots, opt.starts, notes.unused_goals > 0
      and (", goals for %d more (%s) in %s unused"):format(notes.unused_goals, notes.unused_range, opt.goals) or "")
  end

  -- planning ----------------------------------------------------------------------
  local costmap = map:inflate { inscribed_radius = opt.radius, inflation_radius = opt.radius }
  planner = tycho.fleet.planner(costmap, { cell = opt.cell, graph = opt.graph, connectivity = opt.connectivity,
                                                 spacing = opt.spacing })
  local starts, goals = {}, {}
  for i, r in ipairs(robots) do starts[i], goals[i] = { x = r.x, y = r.y }, { x = r.gx, y = r.gy } end
  local t_plan = tycho.clock.monotonic()
  local planned, why = planner:plan(starts, goals)
  plan_ms = (tycho.clock.monotonic() - t_plan) * 1e3
  -- the planner numbers robots from 1; people know them by name
  local function named(msg)
    return (tostring(msg):gsub("robot (%d+)", function(k)
      local r = robots[tonumber(k)]
      return r and r.name or ("robot " .. k)
    end))
  end
  if not planned then
    io.stderr:write("fleet: planning failed: ", named(why), "\n")
    return 1
  end
  log:info("planned %d robots in %.1f ms (%d priority orders tried, %d graph vertices)", n, plan_ms,
    planner.orders_tried, planner.vertices)

  -- execution -----------------------------------------------------------------------
  sim = tycho.fleet.sim(n)
  local d = Distributor.new(n)
  local function load_routes()
    d:load(planner, now())
    for i = 1, n do
      local pts = {}
      for k, s in ipairs(d.routes[i]) do pts[k] = { x = s.x, y = s.y } end
      sim:set_route(i, pts)
    end
  end
  for i, r in ipairs(robots) do sim:set_pose(i, r.x, r.y, r.yaw) end
  load_routes()
  -- the vertex each goal was snapped to: "home" is being there
  local goal_vertex = {}
  for i = 1, n do goal_vertex[i] = d.routes[i][#d.routes[i]] end

  -- seeded disturbances: the same seed gives the same run on every Lua
  local rng_state = math.floor(opt.seed) % 2147483647
  if rng_state == 0 then rng_state = 1 end
  local function rand()
    rng_state = (rng_state * 48271) % 2147483647
    return rng_state / 2147483647
  end
  stats = { delays = 0, stops = 0, replans = 0, replan_failures = 0 }
  per = {}
  for i = 1, n do per[i] = { replans = 0, arrived = nil } end

  local function on_arrival(i, k)
    if k >= #d.routes[i] then return end -- no stops at the goal
    if opt.stops > 0 and rand() < opt.stops then
      local s = 40 + 50 * rand()
      sim:stop_until(i, now() + s)
      stats.stops = stats.stops + 1
      log:info("%s breaks down for %.0f s at (%.0f, %.0f)", robots[i].name, s, d.routes[i][k].x, d.routes[i][k].y)
    elseif opt.delays > 0 and rand() < opt.delays then
      sim:stop_until(i, now() + 1 + 7 * rand())
      stats.delays = stats.delays + 1
    end
  end

  local sups = {}
  for i = 1, n do sups[i] = Supervisor.new { id = i, sim = sim, distributor = d, on_arrival = on_arrival } end
  local function holding(i) return sups[i]:holding() end

  -- re-planning: let everyone finish the edge it is on, then plan from the
  -- vertices they are at; robots that are stopped stay where they are (as
  -- obstacles) and get a route of their own once they move again
  local draining, parked, last_replan = nil, {}, -math.huge
  local function start_replan(reason)
    if draining or opt["no-replan"] then return end
    draining = reason
    for i = 1, n do sim:allow(i, sim:reached(i)) ; sups[i].granted = -1 end
    log:info("re-plan: %s; waiting for the robots to reach their next vertex", reason)
  end

  local function replan()
    local s, g = {}, {}
    for i = 1, n do
      local at = d.routes[i][math.max(1, sim:reached(i))]
      s[i] = { x = at.x, y = at.y }
      parked[i] = sim:stopped(i) and not d:finished(i)
      g[i] = parked[i] and s[i] or goals[i]
    end
    local okp, err = planner:plan(s, g)
    last_replan = now()
    if not okp then
      -- keep the old plan (its progress is still valid) and try again later
      stats.replan_failures = stats.replan_failures + 1
      log:warn("re-plan failed (%s); carrying on with the old routes", named(err))
      return false
    end
    for i = 1, n do
      if not d:finished(i) then per[i].replans = per[i].replans + 1 end
    end
    load_routes()
    for i = 1, n do sups[i]:reset() end
    stats.replans = stats.replans + 1
    return true
  end

  -- the tasks: physics, supervision, watch for robots held up ---------------------------
  local DT = 0.05
  local STUCK_AFTER = 10 -- s without progress before a held-up chain counts as stuck
  trails = {}
  for i = 1, n do trails[i] = { { x = robots[i].x, y = robots[i].y } } end
  local estop_logged = false

  sched:every(DT, function()
    if sim:step(1) > 0 and not estop_logged then
      estop_logged = true
      local best, bi, bj = math.huge, 1, 1
      for i = 1, n do
        local xi, yi = sim:pose(i)
        for j = i + 1, n do
          local xj, yj = sim:pose(j)
          local dd = (xi - xj) ^ 2 + (yi - yj) ^ 2
          if dd < best then best, bi, bj = dd, i, j end
        end
      end
      local xi, yi = sim:pose(bi)
      local xj, yj = sim:pose(bj)
      log:error("EMERGENCY STOP at t = %.2f s: %s at (%.2f, %.2f) and %s at (%.2f, %.2f) touched", now(),
        robots[bi].name, xi, yi, robots[bj].name, xj, yj)
    end
  end, "physics")

  all_done = function()
    for i = 1, n do if not per[i].arrived then return false end end
    return true
  end

  sched:every(0.1, function()
    for i = 1, n do
      sups[i]:tick(now())
      -- home: at the end of its route, and that end is its own goal (not a
      -- parking place while it was broken down); a re-plan may send a robot
      -- that was home out of the way and back, so this is checked every time
      local route = d.routes[i]
      local last = route[#route]
      local x, y = sim:pose(i)
      local gv = goal_vertex[i]
      local function near_goal(px, py) return math.abs(px - gv.x) < 1e-6 and math.abs(py - gv.y) < 1e-6 end
      local home = near_goal(last.x, last.y) and near_goal(x, y) and not sim:moving(i)
      if home and not per[i].arrived then per[i].arrived = now()
      elseif not home then per[i].arrived = nil end
    end
    if draining then
      for i = 1, n do if sim:moving(i) then return end end
      local reason = draining
      draining = nil
      if replan() then log:info("re-planned (%s): %d routes", reason, n) end
      for i = 1, n do sups[i].granted = -1 end
    end
  end, { name = "supervise", phase = 0.01 })

  sched:every(1.0, function()
    if draining or now() - last_replan < STUCK_AFTER then return end
    for i = 1, n do
      if parked[i] and not sim:stopped(i) then
        parked[i] = false
        return start_replan(robots[i].name .. " moves again")
      end
    end
    local stuck = d:stuck(now(), STUCK_AFTER, holding)
    if #stuck > 0 then
      local s1 = stuck[1]
      start_replan(("%s held up by %s (%s)%s"):format(robots[s1.robot].name, robots[s1.cause].name, s1.why,
        #stuck > 1 and (", and " .. (#stuck - 1) .. " more") or ""))
    end
  end, { name = "watch", phase = 0.02 })

  sched:every(0.5, function()
    for i = 1, n do
      local x, y = sim:pose(i)
      local t = trails[i]
      local last = t[#t]
      if (x - last.x) ^ 2 + (y - last.y) ^ 2 > 0.01 then t[#t + 1] = { x = x, y = y } end
    end
  end, "trails")

  sched:every(60, function()
    local done = 0
    for i = 1, n do if per[i].arrived then done = done + 1 end end
    log:info("progress: %d/%d robots at their goals, %d delays, %d stops, %d re-plans", done, n, stats.delays,
      stats.stops, stats.replans)
  end, { name = "progress", phase = 60 })
  -- --viz, --record: the map, every robot, the rest of its route, its goal,
  -- the vertices it holds
  m:channels(function(channels)
    return require("fleet.channels").new(channels, {
      sim = sim, n = n, map = map, now = now, route = function(i) return d.routes[i], sim:reached(i) end,
      home = function(i) return per[i].arrived ~= nil end, granted = function(i) return sups[i].granted end })
  end)
  -- what the console (`tycho attach`, --socket) sees
  m.host = { log_tail = function(k) return log:recent(k) end }
  m.env = setmetatable({ tycho = tycho, sim = sim, planner = planner, robots = robots, stats = stats, per = per,
                         log = log, clock = clock, sched = sched }, { __index = _G })
end

--- The summary and the picture.
local function finish(m, reason)
  -- outputs ---------------------------------------------------------------------------
  local summary = report.summary {
    robots = robots, sim = sim, per = per, stats = stats, plan_ms = plan_ms, planner = planner,
    wall_s = tycho.clock.monotonic() - m.wall0, sim_s = now(), seed = opt.seed, delays = opt.delays, stops = opt.stops,
    end_reason = guard:end_reason(reason),
  }
  summary.inputs = notes or nil
  local okw, werr = report.write(opt.out, summary, map, trails, robots)
  if not okw then io.stderr:write("fleet: ", tostring(werr), "\n") return 1 end
  local t = summary.totals
  print(("summary: %d/%d robots at their goals in %.1f s simulated (%.2f s wall, %.0fx real time), " ..
    "%d collisions, %d delays + %d stops injected, %d re-plans, %d waits"):format(t.reached, t.robots, t.makespan_s,
    t.wall_time_s, t.realtime_factor, t.collisions, t.delays, t.stops, t.replans, t.waits))
  print("summary: wrote " .. opt.out .. "/{summary.json,routes.png}")
  return (t.reached == t.robots and t.collisions == 0) and 0 or 1
end

return Mission.run {
  name = "fleet", usage_line = "(--map M --starts S --goals G | --fleet F.lua) [options]", options = OPTIONS,
  check = function(o)
    o.connectivity = tonumber(o.connectivity)
    if o.fleet and (o.map or o.starts or o.goals) then return "--fleet, or --map, --starts and --goals, not both" end
    if not o.fleet and not (o.map and o.starts and o.goals) then return "give --map, --starts and --goals, or --fleet" end
  end,
  out = function(o) return o.out end,
  start = start,
  done = function() return all_done() or sim.estopped end,
  time_limit = function(m) return m.opt.timeout end,
  pace = function(o) return tonumber(o.speed) or nil end,
  finish = finish,
}
