--- The reference mission: explore an unknown maze by frontiers, find heat
-- sources with two thermal cameras fused with the LiDAR, cluster them into
-- targets, drive to each and fire, react to ramps felt by the IMU, and
-- optionally climb the ramp at the end.
--
--   tycho run behaviors/heat_seek.lua --world maps/maze_small.lua
--   tycho run behaviors/heat_seek.lua --replay run.mcap   (a recorded run played back)
--       [--out DIR] [--seed N] [--realtime] [--repl [--speed X]] [--set name=value ...] [--quiet]
--
-- Writes DIR/summary.json, DIR/map.png (map, path driven, detections,
-- targets, launches), DIR/map.yaml + DIR/map.pgm. Exits 0 when the mission
-- completed, 1 with the reason otherwise, 2 on bad arguments.
local tycho = require "tycho"
local tasks = require "tasks"
local fsm = require "fsm"
local P = require "heat_seek_params"
local Mapping = require "mapping"
local Nav = require "nav"
local ThermalSweep = require "thermal_sweep"
local Targets = require "targets"
local Reloader = require "reload"
local Report = require "heat_seek_report"
local Mission = require "mission"
local cli = require "cli"

-- command line: every option declared here, once (--help is generated from it)
local OPTIONS = {
  { name = "world", type = "string", metavar = "PATH", doc = "simulator world file (maps/*.lua)" },
  { name = "robot", type = "string", metavar = "PATH",
    doc = "run on the robot instead: its devices from a robot config (robots/*.lua), in real time on the wall clock" },
  { name = "replay", type = "string", metavar = "FILE.mcap",
    doc = "drive the mission from a recording's raw device samples (made with --record) instead of the simulator; its commands are compared with the recorded ones" },
  { name = "out", type = "string", metavar = "DIR", allow_empty = true, doc = "output folder (default out/<world name>)" },
  { name = "seed", type = "integer", metavar = "N", doc = "simulator seed (default: the world's)" },
  { name = "realtime", type = "boolean", doc = "pace the simulation at wall-clock speed" },
  { name = "repl", type = "boolean", doc = "open the console beside the running mission (paced at --speed)" },
  { name = "speed", type = "number", metavar = "X", min = 0.001,
    doc = "with --repl: simulated seconds per wall second (default 1)" },
  { name = "watch", type = "boolean", doc = "reload heat_seek_states.lua when it is saved (on with --repl)" },
  { name = "quiet", type = "boolean", doc = "only warnings and the final summary" },
}
-- what the hooks below share: start sets them up, finish reads them
local opt, log, now, guard, world_name, tape
local robot, x0, y0, yaw0, mapping, nav, report, bb, machine

--- The mission on the runner's clock, scheduler and log (behaviors/mission.lua):
-- the robot, the tasks, the state machine; what the console and attach see.
local function start(m)
  opt, log, guard = m.opt, m.log, m.guard
  local clock, sched = m.clock, m.sched
  now = function() return clock:now() end
  world_name = (opt.world or opt.robot or opt.replay):match("([^/]+)%.%w+$") or "world"

  if opt.replay then
    local r, code = cli.load("heat_seek", require("robot_replay").open, opt.replay, { log = log })
    if not r then return code end
    robot = r
  elseif opt.robot then
    local ok, r = pcall(require("robot_hw").open, opt.robot, { log = log })
    if not ok then
      io.stderr:write("heat_seek: ", tostring(r), "\n")
      return 1
    end
    robot = r
    robot.step() -- the first samples (odometry) before anything looks at the pose
  else
    local r, code = cli.load("heat_seek", require("robot_sim").open, opt.world, { seed = opt.seed })
    if not r then return code end
    robot = r
  end
  local Localize = require "localize"
  local method = Localize.method(P, robot)
  -- --record: every raw sample the robot delivers, for --replay
  if opt.record and not opt.replay then
    tape = require("robot_replay").tap(robot, { world = opt.world, seed = robot.world and robot.world.seed, now = now,
                                                clock = clock, localization = method })
  end
  x0, y0, yaw0 = robot.pose()
  mapping = Mapping.new(P, x0, y0)
  if method ~= "odometry" then robot = Localize.wrap(robot, mapping, P, log, method) end
  nav = Nav.new { robot = robot, mapping = mapping, params = P, log = log, clock = now }
  local sweep = ThermalSweep.new { resolution = 0.05, max_range = P.sweep_check_distance }
  -- ground truth for the summary's per-source verdicts (simulator only)
  report = Report.new { sim = robot.sim, cameras = robot.cameras,
                              estimate = function() return robot.pose() end }
  local pitch = tycho.pitch_detector { window = P.pitch_window, multiple = P.pitch_multiple,
                                       abs_threshold = P.pitch_threshold }
  if robot.replay then
    log:info("replay %s: %d steps recorded (%s), %d camera(s), start (%.2f, %.2f, %.0f deg)", opt.replay,
      robot.replay.recorded_steps, robot.replay.recorded_kind, #robot.cameras, x0, y0, math.deg(yaw0))
  elseif robot.world then
    log:info("world %s: %d heat sources, %d ramps, start (%.2f, %.2f, %.0f deg)", opt.world,
      #robot.world.heat_sources, #robot.world.ramps, x0, y0, math.deg(yaw0))
  else
    log:info("robot %s: %d camera(s), start (%.2f, %.2f, %.0f deg)", opt.robot, #robot.cameras, x0, y0, math.deg(yaw0))
  end

  -- the blackboard: everything the behaviour knows, kept across reloads
  bb = {
    detections = {}, targets = {}, launches = {}, trail = {}, pose_history = {}, frames = {},
    blacklist = {}, unmapped_arrivals = {}, ti = 1, ramp = nil, ramp_events = 0, climbed = false,
    front_range = math.huge, left_range = math.huge, right_range = math.huge, max_pitch = 0,
  }

  local function dist(ax, ay, bx, by) return math.sqrt((ax - bx) ^ 2 + (ay - by) ^ 2) end

  -- fast task: mapping, thermal fusion, IMU watch ------------------------------
  local reported = {}
  local function note_detection(x, y, cam, from)
    bb.detections[#bb.detections + 1] = { x = x, y = y, t = now(), camera = cam, rx = from.x, ry = from.y }
    for _, r in ipairs(reported) do if dist(r.x, r.y, x, y) < 0.6 then return end end
    reported[#reported + 1] = { x = x, y = y }
    log:info("heat: new hot spot at (%.2f, %.2f) seen by camera %d (%d detections so far)",
      x, y, cam, #bb.detections)
  end

  local function fast_tick()
    local scan, _, scan_pose = robot.scan()
    if scan then
      mapping:insert_scan(scan_pose, scan)
      mapping:refresh()
      bb.scan, bb.scan_pose = scan, scan_pose
      bb.front_range, bb.left_range, bb.right_range = Nav.lane_ranges(scan, P.robot_radius + P.footprint_padding)
      nav:check_path()
    end
    if bb.scan then
      for i, cam in ipairs(robot.cameras) do
        local frame, _, frame_pose = robot.thermal(i)
        if frame then
          bb.frames[i] = frame
          -- the scan is older than the frame: look along the camera axis as it
          -- was when the frame was taken, expressed in the scan's robot frame
          local turn = frame_pose.yaw - bb.scan_pose.yaw
          sweep:observe(bb.scan_pose, bb.scan, cam.yaw + turn, cam.fov)
          local x, y = tycho.fusion.locate(bb.scan_pose, bb.scan, frame, {
            yaw = cam.yaw + turn, fov = cam.fov, threshold = P.temperature_threshold,
            max_range = P.detection_max_distance, bin_width = P.detection_bin_width,
            window = math.rad(P.detection_window) })
          if x then
            x, y = Targets.on_face(mapping.map, bb.scan_pose, x, y, P.face_snap_distance)
            note_detection(x, y, i, frame_pose)
          end
        end
      end
    end
    if report then report:observe() end
    local p, roll = robot.imu()
    bb.max_pitch = math.max(bb.max_pitch, math.abs(p))
    local anomaly = pitch:push(now(), p)
    local on_known_ramp = false
    if anomaly then
      local x, y = robot.pose()
      local _, d = mapping:nearest_keepout(x, y, "ramp")
      on_known_ramp = d < P.ramp_block_size * 1.5 + P.robot_radius + P.footprint_padding + 0.3
    end
    if anomaly and not on_known_ramp and not bb.climbing and not bb.pitch_alarm and bb.machine
       and bb.machine.state ~= "ImuInterrupt" then
      bb.pitch_alarm = true
      bb.alarm_pitch, bb.alarm_roll = p, roll
      log:warn("imu: pitch anomaly (%.1f deg)", math.deg(p))
    end
  end

  -- control task: follower + simulator step -------------------------------------
  local control_dt = 1 / P.control_rate
  -- paced runs (the robot, --realtime, --repl): how regular the control
  -- ticks are on the wall clock (the summary's timing)
  local paced = opt.realtime or opt.repl or opt.robot
  bb.timing = paced and { control_ticks = 0, control_period_ms = control_dt * 1000, worst_gap_ms = 0 } or nil
  local last_wall
  local function control_tick()
    if paced then
      local w = tycho.clock.monotonic()
      if last_wall then bb.timing.worst_gap_ms = math.max(bb.timing.worst_gap_ms, (w - last_wall) * 1000) end
      last_wall = w
      bb.timing.control_ticks = bb.timing.control_ticks + 1
    end
    nav:control(control_dt)
    robot.step(control_dt)
    local t = now()
    local x, y, yaw = robot.pose()
    local sim = robot.sim
    if sim and sim.collisions ~= (bb.collisions_seen or 0) then
      bb.collisions_seen = sim.collisions
      log:warn("sim: collision at (%.2f, %.2f, %.0f deg) in state %s", x, y, math.deg(yaw),
        tostring(bb.machine and bb.machine.state))
    end
    local last = bb.trail[#bb.trail]
    if not last or dist(last.x, last.y, x, y) > 0.05 then bb.trail[#bb.trail + 1] = { x = x, y = y } end
    local h = bb.pose_history
    if not h[#h] or t - h[#h].t >= 0.1 then
      h[#h + 1] = { t = t, x = x, y = y, yaw = yaw }
      if #h > 400 then table.remove(h, 1) end
    end
  end

  -- behaviour: the state machine (behaviors/heat_seek_states.lua, hot-reloadable)
  local ctx = { robot = robot, nav = nav, mapping = mapping, sweep = sweep, pitch = pitch,
                bb = bb, P = P, log = log, now = now }
  local states_path = package.searchpath("heat_seek_states", package.path)
  local reloader = Reloader.new { path = states_path, ctx = ctx, log = log }
  local def, def_err = reloader:build()
  if not def then
    io.stderr:write("heat_seek: ", tostring(def_err), "\n")
    return 1
  end

  local runner = tasks.new(sched, { rate = P.decision_rate, name = "decide" })
  bb.states = {}
  local feeder -- the channels (--record), once the session is up
  machine = fsm.new(def, bb, {
    runner = runner, fast_rate = P.fast_rate, name = "heat_seek",
    on_transition = function(from, to, t, reason)
      bb.states[#bb.states + 1] = { state = to, t = t }
      log:info("state: %s -> %s%s", tostring(from), to, reason and (" (" .. tostring(reason) .. ")") or "")
      if feeder then feeder:state(from, to, t, reason) end
    end,
  })
  bb.machine = machine
  reloader:attach(machine)
  if opt.repl or opt.watch then
    -- saving heat_seek_states.lua reloads it (checked every 0.1 s of mission time)
    reloader:watch()
    sched:every(0.1, function() reloader:check() end, "reload-watch")
  end

  sched:every(control_dt, control_tick, "control")
  sched:every(1 / P.fast_rate, fast_tick, "fast")
  sched:every(30, function()
    local s = mapping.map:stats()
    log:info("progress: %d scans, %.1f m2 known, %d detections, %d targets, %d launches",
      mapping.scans, (s.free + s.lethal + s.inflated + s.inscribed) * mapping.map.resolution ^ 2,
      #bb.detections, #bb.targets, #bb.launches)
  end, { name = "progress", phase = 30 })
  machine:start()

  -- what the console (--repl) and `tycho attach` see and do
  m.host = {
    params = P, machine = machine, history = function() return bb.states end,
    log_tail = function(n) return log:recent(n) end,
    reload = function() return reloader:reload() end,
    save_params = function(path)
      path = path or opt["params-file"]
      if not path then return nil, "no path (give one, or start with --params-file)" end
      local ok, err = P:save(path)
      return ok and path, err
    end,
    safe_stop = function()
      bb.failure = "safe stop from the console"
      machine:go("safe_stop", "console :stop")
    end,
  }
  m.env = setmetatable({ tycho = tycho, robot = robot, sim = robot.sim, sched = sched, P = P, bb = bb,
                         machine = machine, mapping = mapping, nav = nav, log = log, clock = clock },
                       { __index = _G })
  m.state = function() return machine.state end
  -- :pause stops the wheels of a hardware robot (see mission.lua)
  if robot.kind == "hardware" then m.halt = function() robot.stop() end end
  -- --viz, --record: the robot's channels
  m:channels(function(channels)
    if tape then tape:attach(channels) end
    feeder = require("robot_channels").new(channels, {
      robot = robot, now = now, clock = clock, mapping = mapping, nav = nav, bb = bb, machine = machine, world = robot.world,
      scan = function() return bb.scan end, thermal = function(i) return bb.frames[i] end })
    feeder:state(nil, machine.state, now())
    return feeder
  end)
end

--- After the run: the robot stopped, why it ended, and the outputs.
local function finish(m, reason)
  if m.session:quitting() and not machine.finished and not bb.failure then
    bb.failure = ("ended from the console in state %s"):format(tostring(machine.state))
  end
  robot.safe_stop()
  if guard:stop_requested() and not machine.finished and not bb.failure then bb.failure = guard:end_reason() end
  if not machine.finished and not bb.failure then
    bb.failure = ("mission timeout after %.0f s in state %s (%s)"):format(now(), tostring(machine.state), reason)
  end

  -- outputs ----------------------------------------------------------------------
  -- what only the simulator knows (the true map, the judge) is left out on a robot
  local sim = robot.sim
  local coverage = sim and sim:truth():coverage(mapping.map, x0, y0) or false
  local engaged = sim and sim:engaged() or {}
  local n_engaged = 0
  for _, e in ipairs(engaged) do if e then n_engaged = n_engaged + 1 end end
  local targets = {}
  local unconfirmed = 0
  for _, t in ipairs(bb.targets) do
    targets[#targets + 1] = { x = t.x, y = t.y, engaged = t.engaged or false, unconfirmed = t.unconfirmed or false,
                              retired = t.retired or false }
    if t.unconfirmed then unconfirmed = unconfirmed + 1 end
  end
  local launches = {}
  for _, l in ipairs(bb.launches) do
    launches[#launches + 1] = { t = l.t, x = l.x, y = l.y, yaw = l.yaw, balls = l.balls,
                                engaged_source = l.engaged_source, target = l.target or false }
  end
  -- the saved map: with SLAM, every scan re-rendered at its optimised pose
  local out_map = robot.final_map and robot.final_map() or mapping.map
  local summary = {
    schema_version = Report.SCHEMA_VERSION, -- schemas/heat_seek_summary.schema.json
    world = opt.world, robot = opt.robot, seed = robot.world and robot.world.seed or false,
    completed = bb.completed == true, failure = bb.failure,
    states = bb.states, detections = #bb.detections, targets = targets, launches = launches,
    engaged = engaged, coverage = coverage, collisions = sim and sim.collisions or false,
    ramp = { detected = bb.ramp ~= nil, climbed = bb.climbed == true, events = bb.ramp_events },
    nav = nav.stats,
    sources = report and report:sources(bb, mapping.map, robot.world.launcher) or nil,
    odometry = report and report:odometry() or nil,
    localization = report and report:localization(robot.localization) or nil,
    replay = robot.replay,
    timing = bb.timing,
    sim_time_s = now(), wall_time_s = tycho.clock.monotonic() - m.wall0,
    end_reason = guard:end_reason(bb.completed and "completed" or tostring(bb.failure or reason)),
  }

  -- picture of the known part of the map (the grid grew with margins),
  -- drawn before the files are written and saved after them: a recording
  -- finishes writing and syncing its file while the picture is drawn (some
  -- 20 ms), and the files' syncs do not wait behind it (a file system has
  -- one journal: summary.json's sync took 4 ms instead of 1.3 beside it)
  local function known_part(g)
    local left, bottom, right, top = g:known_box()
    if not left then return g end
    left, bottom = math.max(0, left - 10), math.max(0, bottom - 10)
    right, top = math.min(g.width - 1, right + 10), math.min(g.height - 1, top + 10)
    return g:crop(left, bottom, right - left + 1, top - bottom + 1)
  end
  local function draw()
    local pic = tycho.picture(known_part(out_map), { scale = 4 })
    pic:path(bb.trail, { color = "#2060ff", width = 2 })
    for _, d in ipairs(bb.detections) do pic:point(d.x, d.y, { color = "orange", radius = 2, shape = "dot" }) end
    for _, s in ipairs(robot.world and robot.world.heat_sources or {}) do pic:point(s.x, s.y, { color = "red", radius = 7, shape = "cross", width = 2 }) end
    for _, t in ipairs(targets) do pic:point(t.x, t.y, { color = "magenta", radius = 9, shape = "circle", width = 2 }) end
    for _, l in ipairs(launches) do pic:pose(l.x, l.y, l.yaw, { color = l.engaged_source and "green" or "black", length = 18 }) end
    pic:pose(x0, y0, yaw0, { color = "cyan", length = 18, width = 3 })
    if bb.ramp then pic:pose(bb.ramp.x, bb.ramp.y, bb.ramp.yaw, { color = "#c06000", length = 24, width = 3 }) end
    -- what the symbols mean, the scale and the axes, under the map
    local legend = {
      { label = "free", symbol = "cell", color = "white" }, { label = "wall", symbol = "cell", color = "black" },
      { label = "unknown", symbol = "cell", color = "grey" }, { label = "start", symbol = "arrow", color = "cyan" },
      { label = "driven trail", symbol = "line", color = "#2060ff" },
      { label = "heat detection", symbol = "dot", color = "orange" },
      { label = "target", symbol = "circle", color = "magenta" },
      { label = "launch, source engaged", symbol = "arrow", color = "green" },
      { label = "launch, none engaged", symbol = "arrow", color = "black" },
      { label = "ramp (the way up)", symbol = "arrow", color = "#c06000" },
    }
    if robot.world then table.insert(legend, 6, { label = "heat source (truth)", symbol = "cross", color = "red" }) end
    pic:annotate { legend = legend, title = ("%s: %s; %d targets, %d launches%s"):format(world_name,
      robot.world and ("%d of %d heat sources engaged"):format(n_engaged, #engaged)
        or (robot.replay and "replayed" or "on the robot"),
      #targets, #launches, summary.ramp.climbed and ", ramp climbed" or "") }
    return pic
  end
  local drawn, pic = xpcall(draw, debug.traceback)
  guard:write_json(opt.out .. "/summary.json", summary)
  -- the state machine as it ran (the last reload's), for Graphviz: dot -Tsvg
  guard:write(opt.out .. "/fsm.dot", fsm.dot(machine.def))
  guard:save(opt.out .. "/map.yaml", tycho.map.save, out_map, opt.out .. "/map.yaml")
  if not drawn then error(pic, 0) end -- the other files written first, as before
  guard:save(opt.out .. "/map.png", pic.save, pic, opt.out .. "/map.png")

  print(("summary: %s in %.0f s sim / %.2f s wall (%.0fx real time)"):format(
    summary.completed and "mission completed" or ("mission FAILED: " .. tostring(bb.failure)),
    summary.sim_time_s, summary.wall_time_s, summary.sim_time_s / math.max(summary.wall_time_s, 1e-6)))
  print(("summary: %d detections, %d targets (%d not confirmed when faced, not fired at), %d launches, engaged %d/%d heat sources, coverage %.0f%%, %d collisions, ramp detected %s climbed %s")
    :format(#bb.detections, #targets, unconfirmed, #launches, n_engaged, #engaged, (coverage or 0) * 100,
      sim and sim.collisions or 0,
      tostring(summary.ramp.detected), tostring(summary.ramp.climbed)))
  if summary.localization then
    local l = summary.localization
    print(("summary: localization %s: trajectory error %.3f m RMSE (%.3f m aligned), %.3f m max (odometry alone drifted %.2f m); of %d scans %d corrected the pose, %d agreed with the odometry")
      :format(l.method, l.ate_rmse_m, l.ate_aligned_rmse_m, l.ate_max_m, l.odom_drift_m, l.scans, l.scans_matched,
        l.scans_kept_odometry))
    if l.method == "slam" then
      print(("summary: SLAM closed %d loops (set aside: %d where the scan fitted the submap loosely, %d where the refinement moved the match); %d pose graph optimisations, the longest %.1f ms")
        :format(l.loop_closures, l.loops_loose or 0, l.loops_shifted or 0, l.optimizations or 0,
          l.max_optimization_ms or 0))
    end
  end
  if summary.odometry and summary.odometry.errors ~= "none" then
    local o = summary.odometry
    print(("summary: odometry (%s errors) drifted %.2f m from the truth at the end, %.2f m at most, heading %.1f deg")
      :format(o.errors, o.drift_m, o.max_drift_m, o.heading_drift_deg))
  end
  for i, src in ipairs(summary.sources or {}) do
    if not src.engaged then
      print(("summary: heat source %d at (%.2f, %.2f), %.1f C missed: %s (closest %.2f m, %d detections near)"):format(
        i, src.x, src.y, src.temp, src.missed_because, src.closest_approach_m or -1, src.detections_near))
    end
  end
  if bb.timing then
    print(("summary: %d control ticks every %.0f ms of wall clock, the longest gap %.1f ms"):format(
      bb.timing.control_ticks, bb.timing.control_period_ms, bb.timing.worst_gap_ms))
  end
  local replay = robot.replay
  if replay then
    print(("summary: replay of %s (%s run%s): %d of %d steps; %s"):format(replay.file, replay.recorded_kind,
      replay.cut and ", cut short" or "", replay.steps, replay.recorded_steps, replay.first_divergence_s
        and ("decisions DIVERGED at %.2f s (%d steps with another command, %d launcher calls not in the recording)")
          :format(replay.first_divergence_s, replay.commands_differing, replay.launches_unmatched)
        or "the same decisions as recorded"))
  end
  print("summary: wrote " .. opt.out .. "/{summary.json,map.png,map.yaml,map.pgm,fsm.dot}")
  if replay and replay.first_divergence_s then return 1 end
  -- a recording cut short ends before the mission does: replayed with the
  -- same decisions as far as it goes, it passes
  if replay and replay.cut then return 0 end
  return summary.completed and 0 or 1
end

return Mission.run {
  name = "heat_seek", usage_line = "--world WORLD.lua [options]", options = OPTIONS, params = P,
  -- on the robot everything runs at the wall clock's pace (and localizes
  -- with SLAM: localization = "auto", localize.lua)
  defaults = function(o)
    if o.robot then o.realtime = true end
  end,
  epilog = "the attach socket is on by default with --realtime or --repl (--socket turns it on otherwise)",
  check = function(o)
    local n = (o.world and 1 or 0) + (o.robot and 1 or 0) + (o.replay and 1 or 0)
    if n == 0 then return "--world (simulator), --robot (hardware) or --replay (a recording) is required" end
    if n > 1 then return "one of --world, --robot and --replay, not more" end
    if o.replay and o.replay == o.record then return "--record must not overwrite the --replay file" end
  end,
  out = function(o) return "out/" .. ((o.world or o.robot or o.replay):match("([^/]+)%.%w+$") or "world") end,
  clock = function(o) return o.robot and "wall" or "sim" end,
  start = start,
  -- a replay ends with its recording, whatever the mission wants
  done = function() return machine.finished or (robot.exhausted ~= nil and robot.exhausted()) end,
  time_limit = function() return P.mission_timeout end,
  finish = finish,
}
