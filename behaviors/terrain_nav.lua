--- Terrain navigation: a robot (differential drive or mecanum) drives from
-- start to goal across rough ground it has never seen, mapping it with a
-- 3D LiDAR, re-planning when a newly seen obstacle blocks its path, with
-- obstacles appearing on the way (see behaviors/terrain/mission.lua).
--
--   tycho run behaviors/terrain_nav.lua --world maps/terrain_rough.lua [--kind mecanum] [--out DIR]
--
-- Writes DIR/summary.json, DIR/terrain.png (height map shaded, what the
-- robot knew, every plan, the driven path), DIR/trajectory.csv and
-- DIR/plans.csv (compare them with behaviors/traj_compare.lua). Exits 0
-- when the goal was reached without entering an untraversable cell or
-- touching a moving obstacle, 1 otherwise, 2 on bad arguments.
local tycho = require "tycho"
local worldmod = require "terrain.world"
local mission = require "terrain.mission"
local P = require "terrain.params"
local tasks = require "tasks"
local Mission = require "mission"
local cli = require "cli"
local params_cli = require "params_cli"

-- command line: every option declared here, once (--help is generated from it)
local OPTIONS = {
  { name = "world", type = "string", metavar = "PATH", doc = "terrain world file (maps/terrain_*.lua)" },
  { name = "kind", type = "choice", choices = { "diff", "mecanum" }, metavar = "K",
    doc = "robot base (default: the world's, else diff)" },
  { name = "mode", type = "choice", choices = { "strafe", "face" }, metavar = "M",
    doc = "mecanum follower: strafe (hold the heading, go sideways) or face (default strafe)" },
  { name = "timeout", type = "number", min = 0.001, metavar = "S",
    doc = "give up after S simulated seconds (default: the world's, else 600)" },
  { name = "out", type = "string", metavar = "DIR", allow_empty = true,
    doc = "output folder (default out/<world name>[-mecanum])" },
  { name = "realtime", type = "boolean", doc = "pace the simulation at wall-clock speed (attachable: `tycho attach`)" },
  { name = "repl", type = "boolean", doc = "open the console beside the running mission (:params, :set, :pause, :stop ...)" },
  { name = "speed", type = "number", min = 0.001, metavar = "X",
    doc = "with --realtime or --repl: simulated seconds per wall second (default 1)" },
  { name = "quiet", type = "boolean", doc = "only warnings and the summary" },
}
-- what the hooks below share
local opt, log, clock, guard, w, kind, live, env
local res, last, last_bot, task_error, wall0

--- The world, its params (under --params-file and --set), the console's view.
local function start(m)
  opt, log, clock, guard = m.opt, m.log, m.clock, m.guard
  local world, load_code = cli.load("terrain_nav", worldmod.load, opt.world) -- a bad world: one line, exit 2
  if not world then return load_code end
  w = world
  -- the world's params, then --params-file and --set on top
  do
    local names = {}
    for name in pairs(w.params) do names[#names + 1] = name end
    table.sort(names)
    for _, name in ipairs(names) do
      local ok, err = P:set(name, w.params[name])
      if not ok then
        io.stderr:write(("terrain_nav: %s: params.%s: %s\n"):format(opt.world, name, tostring(err)))
        return 2
      end
    end
    params_cli.reapply(opt, P)
  end
  kind = opt.kind or w.robot.kind or "diff"
  opt.out = opt.out or ("out/" .. w.name .. (kind == "mecanum" and "-mecanum" or ""))
  do local ok, err = guard.check_out(opt.out) if not ok then return m:usage_error(err) end end

  log:info("world %s: %g x %g m at %g m, %d obstacles, %d scripted, %s robot from (%.1f, %.1f) to (%.1f, %.1f)",
    opt.world, w.size.width, w.size.height, w.resolution, #w.obstacles, #w.events, kind, w.start.x, w.start.y,
    w.goal.x, w.goal.y)

  -- the console and `tycho attach`: the mission's state and tunables, live
  live = { paused = false, stop = false }
  m.host = {
    params = P, log_tail = function(n) return log:recent(n) end,
    safe_stop = function() live.stop = true end,
    pause = function() live.paused = true end,
    resume = function() live.paused = false end,
  }
  env = setmetatable({ tycho = tycho, P = P, world = w, log = log, clock = clock, live = live },
                     { __index = _G })
  m.env = env
end

--- The mission runs as a task on a scheduler of its own, yielding after
-- every control step: a step that runs away (a loop in a world's Lua, a
-- planner that never returns to Lua) is stopped by the runner's CPU budget
-- and reported, and the robot is stopped where it was (the run ends as
-- failed, its outputs written) instead of the process hanging. The
-- mission's clock (the log's) follows the simulated robot.

-- The terrain's channels (--viz, --record): the world's height map once
-- (/terrain, at most 200 x 200 points), the mission's traversability map
-- as a grid (/map: traversable free, untraversable lethal, unseen unknown)
-- and the last 3D LiDAR sweep (/points, 2 Hz, at most 5,000 points: a recording
-- stays a few megabytes).
local function publish_terrain(ch, t, r, map, points, feeder)
  if #ch.sinks == 0 then return end
  local hf = r.heightfield
  if not feeder.terrain_sent and hf and ch:due("/terrain", t) then
    feeder.terrain_sent = true
    local cell = hf.resolution
    local step = math.max(1, math.ceil(math.max(hf.width, hf.height) / 200))
    local xyz = {}
    for cy = 0, hf.height - 1, step do
      for cx = 0, hf.width - 1, step do
        local x, y = (cx + 0.5) * cell, (cy + 0.5) * cell
        local z = hf:at(x, y)
        if z then xyz[#xyz + 1], xyz[#xyz + 2], xyz[#xyz + 3] = x, y, z end
      end
    end
    ch:publish("/terrain", t, tycho.viz.points(xyz, t, "map"))
  end
  if ch:due("/map", t) then ch:publish("/map", t, tycho.viz.grid(map:to_grid(), t, "map")) end
  if points and ch:due("/points", t) then ch:publish("/points", t, tycho.viz.points(points(), t, "map", 5000)) end
end

local function run(m)
  local paced = opt.repl or opt.realtime
  -- CPU seconds one control step may take before the runner stops it as a
  -- runaway: a sweep and a re-plan take tens of milliseconds (more under the
  -- sanitizers); a step that takes seconds is a loop that never ends
  local BUDGET_S = 5
  local speed = tonumber(opt.speed) or 1
  local session = m.session

  -- --viz / --record: the robot's frames, attitude and driven trail (the
  -- terrain robot has no thermal cameras or 2D scan)
  local feeder, latest
  if session.channels then
    local pose_src = { cameras = {},
      pose = function() return latest.x, latest.y, latest.yaw or 0 end,
      imu = function() return latest.pitch or 0, latest.roll or 0, 0 end }
    feeder = { trail = {} }
    feeder.rc = require("robot_channels").new(session.channels,
      { robot = pose_src, now = function() return clock:now() end, bb = feeder })
  end

  local sched = tycho.scheduler.new { clock = tycho.clock.new { mode = "sim" } }
  local runner = tasks.new(sched, { rate = 1000, name = "terrain_nav", budget_s = tasks.DEFAULT_BUDGET_S and BUDGET_S })
  sched:on_error(function(name, msg)
    task_error = task_error or msg
    log:error("task %s failed: %s", name, msg)
  end)

  -- the wall clock's time at sim time 0, moved on by pauses: the pace and
  -- the summary's wall time leave them out
  wall0 = tycho.clock.monotonic()
  -- :pause (or --paused, before the first step): wait, serving the console
  -- and clients; the pace starts again from the resume (not a dash to
  -- catch up with the wall clock)
  local function wait_while_paused()
    if not live.paused then return end
    local paused_at = tycho.clock.monotonic()
    repeat session.wait(0.1) until not live.paused or live.stop or session:quitting() or guard:stop_requested()
    wall0 = wall0 + (tycho.clock.monotonic() - paused_at)
  end
  local ticks = 0
  local run_opts = { kind = kind, mode = opt.mode, log = log, timeout = opt.timeout, params = P,
    on_sweep = function(r, map, _, points)
      env.res, env.map = r, map
      if feeder then publish_terrain(session.channels, clock:now(), r, map, points, feeder) end
    end,
    on_tick = function(r, bot)
      last, last_bot = r, bot
      env.bot = bot
      clock:advance(r.trajectory[#r.trajectory].t - clock:now())
      ticks = ticks + 1
      if feeder then
        latest = r.trajectory[#r.trajectory]
        feeder.trail = r.trajectory
        feeder.rc:tick()
      end
      wait_while_paused()
      if paced then
        -- wait for the wall clock (serving the console and clients meanwhile)
        repeat
          local ahead = clock:now() / speed - (tycho.clock.monotonic() - wall0)
          if ahead > 0 then session.wait(math.min(ahead, 0.1)) end
        until ahead <= 0 or live.paused or live.stop or session:quitting() or guard:stop_requested()
      elseif (session.server or session.viz) and ticks % 10 == 0 then
        session:service()
      end
      if live.stop or session:quitting() or guard:stop_requested() then return "stop" end
      tasks.yield()
    end }
  wait_while_paused()
  runner:spawn("terrain_nav", function() res = mission.run(w, run_opts) end)
  sched:run { until_fn = function() return res ~= nil or task_error ~= nil end }
  runner:close()
end

--- The outputs: summary, trajectory and plans, the picture.
local function finish(m)
  if not res then
    -- the task failed: the robot stops where it is; report what it did
    if not last then
      io.stderr:write("terrain_nav: the mission failed before its first step: ", tostring(task_error), "\n")
      return 1
    end
    res = last
    res.failure = "behaviour error (see log): " .. tostring(task_error):match("[^\n]*")
    res.bumps = last_bot and last_bot.bumps or res.bumps
  end
  local wall = tycho.clock.monotonic() - wall0
  local bad = mission.untraversable_entered(res, w, res.trav)
  local dev = mission.deviation(res)
  local length = mission.length(res.trajectory)
  local ground = mission.ground_along(res, w)

  -- outputs (atomic and checked: a full disk is reported with the file's name) --
  local plans = {}
  for i, p in ipairs(res.plans) do
    plans[i] = { t = p.t, reason = p.reason, cost = p.cost, length = mission.length(p.points) }
  end
  local summary = {
    schema_version = 1, -- schemas/terrain_nav_summary.schema.json; raise it when a field changes meaning or goes
    world = opt.world, kind = kind, params = P:to_table(), reached = res.reached, failure = res.failure or false,
    time_s = res.time, path_length_m = length, replans = res.replans, plans = plans, events = res.events,
    max_pitch_deg = math.deg(res.max_pitch), max_roll_deg = math.deg(res.max_roll),
    deviation_m = dev, untraversable_entered = #bad, bumps = res.bumps, ground_along_path = ground,
    moving_obstacle_contacts = res.mover_contacts,
    sweeps = res.sweeps, sweep_ms = 1000 * res.sweep_time / math.max(1, res.sweeps),
    plan_ms = 1000 * res.plan_time / math.max(1, #res.plans),
    wall_time_s = wall, speedup = res.time / math.max(wall, 1e-6),
    end_reason = guard:end_reason(res.reached and "reached" or tostring(res.failure)),
  }
  guard:write_json(opt.out .. "/summary.json", summary)

  local rows = { "t,x,y,z,roll,pitch,yaw" }
  for _, p in ipairs(res.trajectory) do
    rows[#rows + 1] = ("%.2f,%.4f,%.4f,%.4f,%.5f,%.5f,%.5f"):format(p.t, p.x, p.y, p.z, p.roll, p.pitch, p.yaw)
  end
  guard:write(opt.out .. "/trajectory.csv", table.concat(rows, "\n") .. "\n")
  rows = { "plan,t,x,y" }
  for i, p in ipairs(res.plans) do
    for _, q in ipairs(p.points) do rows[#rows + 1] = ("%d,%.2f,%.4f,%.4f"):format(i, p.t, q.x, q.y) end
  end
  guard:write(opt.out .. "/plans.csv", table.concat(rows, "\n") .. "\n")

  local pic = tycho.picture(res.heightfield, { scale = 3, map = res.map })
  local colors = { "#ffd000", "#ff8000", "#ff00c0", "#00e0ff", "#a0ff00" }
  for i, p in ipairs(res.plans) do pic:path(p.points, { color = colors[(i - 1) % #colors + 1], width = 1 }) end
  pic:path(res.trajectory, { color = "#2040ff", width = 2 })
  pic:point(w.start.x, w.start.y, { color = "green", radius = 6, shape = "dot" })
  pic:point(w.goal.x, w.goal.y, { color = "red", radius = 7, shape = "cross", width = 2 })
  for _, b in ipairs(bad) do pic:point(b.x, b.y, { color = "black", radius = 4, shape = "cross" }) end
  pic:annotate { title = ("%s, %s robot: %s in %.0f s, %d plans"):format(w.name, kind,
      res.reached and "goal reached" or "goal not reached", res.time, #res.plans), legend = {
    { label = "ground: low to high", symbol = "cell", color = "#46783c" },
    { label = "ground: high", symbol = "cell", color = "#f0ebe1" },
    { label = "known untraversable", symbol = "cell", color = "#b84030" },
    { label = "never seen", symbol = "cell", color = "#505058" },
    { label = "plan (one colour each)", symbol = "line", color = colors[1] },
    { label = "driven path", symbol = "line", color = "#2040ff" },
    { label = "start", symbol = "dot", color = "green" }, { label = "goal", symbol = "cross", color = "red" },
    { label = "untraversable cell entered", symbol = "cross", color = "black" },
  } }
  guard:save(opt.out .. "/terrain.png", pic.save, pic, opt.out .. "/terrain.png")

  print(("summary: %s, %s robot, %.1f s sim / %.2f s wall (%.0fx real time)"):format(
    res.reached and "goal reached" or ("FAILED: " .. tostring(res.failure)), kind, res.time, wall, summary.speedup))
  print(("summary: driven %.1f m, %d plans (%d re-plans), max pitch %.1f deg, max roll %.1f deg, deviation from plan mean %.3f m max %.3f m, %d untraversable cells entered, %d bumps, %d moving-obstacle contacts")
    :format(length, #res.plans, res.replans, summary.max_pitch_deg, summary.max_roll_deg, dev.mean, dev.max, #bad,
      res.bumps, res.mover_contacts))
  print(("summary: ground along the path as mapped (plane fits): max slope %.1f deg, roughness mean %.1f mm, max %.1f mm")
    :format(ground.max_slope_deg, ground.mean_roughness_m * 1000, ground.max_roughness_m * 1000))
  print("summary: wrote " .. opt.out .. "/{summary.json,terrain.png,trajectory.csv,plans.csv}")
  return (res.reached and #bad == 0 and res.mover_contacts == 0) and 0 or 1
end

return Mission.run {
  name = "terrain_nav", usage_line = "--world WORLD.lua [options]", options = OPTIONS, params = P,
  epilog = "--set, --params-file win over the world's params; the attach socket is on by default with --realtime or --repl",
  check = function(o) if not o.world then return "--world is required" end end,
  start = start, run = run, finish = finish,
}
