--- The fleet mission's outputs: summary.json (per robot and totals) and
-- routes.png (the map, each robot's driven route in its own colour, starts
-- as dots, goals as crosses).
local tycho = require "tycho"
local logmod = require "log"

local report = {}
--- The version of summary.json's layout (schemas/fleet_summary.schema.json):
-- raised when a field changes meaning or goes away.
report.SCHEMA_VERSION = 1

function report.summary(o)
  local sim, n = o.sim, #o.robots
  local rows, totals = {}, { robots = n, reached = 0, distance_m = 0, waits = 0, wait_time_s = 0, makespan_s = 0,
                             sum_of_times_s = 0, replans = o.stats.replans, replan_failures = o.stats.replan_failures,
                             delays = o.stats.delays, stops = o.stats.stops, collisions = sim.collisions,
                             min_clearance_m = sim.min_clearance, planning_ms = o.plan_ms,
                             priority_orders_tried = o.planner.orders_tried, sim_time_s = o.sim_s,
                             wall_time_s = o.wall_s, realtime_factor = o.sim_s / math.max(o.wall_s, 1e-6) }
  for i, r in ipairs(o.robots) do
    local st = sim:stats(i)
    local x, y = sim:pose(i)
    local arrived = o.per[i].arrived
    rows[i] = { name = r.name, reached = arrived ~= nil, time_s = arrived or false, distance_m = st.distance,
                waits = st.waits, wait_time_s = st.wait_time, stop_time_s = st.stop_time,
                replans = o.per[i].replans, goal_offset_m = math.sqrt((x - r.gx) ^ 2 + (y - r.gy) ^ 2) }
    if arrived then
      totals.reached = totals.reached + 1
      totals.sum_of_times_s = totals.sum_of_times_s + arrived
      totals.makespan_s = math.max(totals.makespan_s, arrived)
    end
    totals.distance_m = totals.distance_m + st.distance
    totals.waits = totals.waits + st.waits
    totals.wait_time_s = totals.wait_time_s + st.wait_time
  end
  if totals.min_clearance_m == math.huge then totals.min_clearance_m = false end
  return { schema_version = report.SCHEMA_VERSION, robots = rows, totals = totals, seed = o.seed, delays = o.delays, stops = o.stops,
           emergency_stop = sim.estopped, end_reason = o.end_reason }
end

local PALETTE = { "#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#bfef45",
                  "#fabed4", "#469990", "#9a6324", "#800000", "#808000", "#000075", "#a9a9a9", "#ffd8b1" }

function report.write(dir, summary, map, trails, robots)
  local okd, derr = tycho.sys.mkdir(dir)
  if not okd then return nil, derr end
  local text = logmod.json(summary)
  local ok, err = tycho.write_atomic(dir .. "/summary.json", text .. "\n")
  if not ok then return nil, err end
  local pic = tycho.picture(map, { scale = map.width < 800 and 2 or 1 })
  for i, t in ipairs(trails) do
    local c = PALETTE[(i - 1) % #PALETTE + 1]
    if #t > 1 then pic:path(t, { color = c, width = 2 }) end
    pic:point(robots[i].x, robots[i].y, { color = c, radius = 4, shape = "dot" })
    pic:point(robots[i].gx, robots[i].gy, { color = c, radius = 5, shape = "cross", width = 2 })
  end
  -- each robot's colour keyed to its name (the palette repeats after 16),
  -- the symbols, the scale and the axes, under the map
  local legend = { { label = "start", symbol = "dot", color = "grey" }, { label = "goal", symbol = "cross", color = "grey" } }
  for i = 1, math.min(#robots, 60) do
    legend[#legend + 1] = { label = robots[i].name or ("robot " .. i), symbol = "line",
                            color = PALETTE[(i - 1) % #PALETTE + 1] }
  end
  local t = summary.totals or {}
  pic:annotate { legend = legend, title = ("%d robots: %s at their goals, %s collisions")
    :format(#robots, tostring(t.reached or "?"), tostring(t.collisions or "?")) }
  return pic:save(dir .. "/routes.png")
end

return report
