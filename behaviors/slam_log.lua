--- SLAM on a recorded laser log: a CARMEN log (tycho.carmen.load; plain or
-- gzip) fed to tycho.slam scan by scan, with the log's odometry (its ODOM
-- lines interpolated at each scan's time, or the laser lines' own odometry
-- poses when it has none) as the front end's guess.
--
--   tycho run behaviors/slam_log.lua --carmen FILE [--out DIR] [options]
--
-- The laser's geometry comes from the log (FLASER/RLASER: N beams over half
-- a turn; ROBOTLASER1 says its own), no-return readings (the laser's
-- saturation value) are free space up to --max-range and never hits, the
-- laser's offset on the robot from its PARAM lines. Logs with unusable
-- timestamps are taken in file order (said in the summary).
--
-- Writes DIR/map.yaml + map.pgm and map.png (every scan at its optimised
-- pose), trajectory.csv (t, the SLAM pose, the log's own pose, the
-- odometry's) and summary.json; prints the figures: time against the log's
-- duration, the trajectory against the log's own poses (in a
-- GMapping-processed log, GMapping's corrected poses: a consistency figure,
-- not ground truth) as absolute trajectory error after the best-fitting
-- rigid alignment and relative pose error over scans 1 and 10 apart, for
-- SLAM and for the odometry it was given; loop closures and their lag;
-- memory. A motion filter keeps scans taken where the last one was out of the
-- SLAM (--min-move, --min-turn). --odometry-drift SEED puts seeded systematic errors into the
-- odometry first, so that real scans test drift correction.
-- Exit 0, 1 if SLAM failed, 2 on bad arguments or an unreadable log.
local tycho = require "tycho"
local cli = require "cli"
local json = require "json"
local metrics = require "traj_metrics"

local spec = cli.spec { prog = "slam_log", usage_line = "--carmen FILE | --bag FILE.mcap [options]",
  summary = "SLAM on a CARMEN laser log or a rosbag2 MCAP: map, trajectory and its error against the log's own poses",
  options = {
    { name = "carmen", type = "string", metavar = "FILE", doc = "the CARMEN log (.log or .log.gz)" },
    { name = "bag", type = "string", metavar = "FILE.mcap",
      doc = "a rosbag2 recording (MCAP, CDR): sensor_msgs/msg/LaserScan and nav_msgs/msg/Odometry (no reference poses: no ATE)" },
    { name = "scan", type = "string", metavar = "TOPIC", doc = "--bag: the LaserScan topic (default: the only one)" },
    { name = "odom", type = "string", metavar = "TOPIC", doc = "--bag: the Odometry topic (default: the only one)" },
    { name = "out", type = "string", metavar = "DIR", default = "out/slam_log", doc = "output folder" },
    { name = "scans", type = "integer", metavar = "N", min = 1, doc = "only the first N laser scans" },
    { name = "fov", type = "number", metavar = "DEG", min = 1, max = 360,
      doc = "override the laser's field of view (default: from the log: N beams over 180 deg, or ROBOTLASER1's own)" },
    { name = "max-range", type = "number", metavar = "M", default = 20, min = 0.1,
      doc = "readings at or beyond this (or the laser's no-return value) are no return: free space up to here, never a hit" },
    { name = "odometry-drift", type = "integer", metavar = "SEED", min = 0,
      doc = "put seeded systematic errors into the odometry (wheel scale 2-4 %, turns 2-5 %, 0.5-1.5 deg/m of yaw drift)" },
    { name = "resolution", type = "number", metavar = "M", default = 0.05, min = 0.01, max = 1, doc = "map cell size" },
    { name = "submap-scans", type = "integer", metavar = "N", default = 15, min = 2,
      doc = "scans in a submap (a log's scans are far apart: a few per submap)" },
    { name = "window", type = "number", metavar = "M", default = 0.3, min = 0.01,
      doc = "front-end search window around the odometry's guess" },
    { name = "window-deg", type = "number", metavar = "DEG", default = 10, min = 0.1, doc = "front-end search window, heading" },
    { name = "min-move", type = "number", metavar = "M", default = 0.05, min = 0,
      doc = "motion filter: a scan goes into the SLAM when the odometry moved this far since the last one taken (or turned --min-turn); the others take their pose from it and the odometry" },
    { name = "min-turn", type = "number", metavar = "DEG", default = 2, min = 0, doc = "motion filter: turn" },
    { name = "loop-rate", type = "number", metavar = "N", default = 10, min = 0.1,
      doc = "loop-closure matches per second of log (a robot's compute budget, whatever its scan rate); per scan when the log has no usable times: --slam loop_candidates" },
    { name = "no-loops", type = "boolean", doc = "front end only: no loop closure" },
    { name = "scale", type = "integer", metavar = "N", default = 1, min = 1, max = 8,
      doc = "picture pixels per map cell" },
    { name = "slam", type = "string", repeatable = true, metavar = "NAME=VALUE",
      doc = "any other tycho.slam.new parameter (numbers and true/false), e.g. --slam prior_yaw=0.3" },
    { name = "quiet", type = "boolean", doc = "no progress lines" },
  } }

-- tycho.slam's parameters for a log, one set for every log (no per-log
-- settings), chosen on the tuning set declared in tests/data/README.md: a
-- front-end match that lands at its window's edge or scores poorly searched
-- again over 1 m and 30 degrees (the CSAIL log's odometry is off by 8.7
-- degrees a scan on average; that wide everywhere, the ACES log's corridors
-- slid), a prior on the odometry's guess that weakens as the step grows,
-- closures
-- sought for every scan over a wider window (1 m, 15 degrees) among the 6
-- nearest submaps and up to two per scan, searched at --loop-rate matches
-- per second of log (not per scan: fr079 has 4.5 scans a second, Intel one
-- in 3 s) from a queue of at most 4 scans (the oldest pushed out: the lag
-- stays a few seconds), and a closure the optimised graph misses by more
-- than 5 sigmas set aside.
local LOG_DEFAULTS = {
  prior_xy = 0.5, prior_yaw = 1.0, prior_per_m = 1, prior_per_rad = 1,
  wide_window_xy = 1.0, wide_window_yaw = math.rad(30),
  loop_every = 1, loop_radius = 5, loop_matches_per_scan = 0, loop_closures_per_node = 2,
  loop_window_xy = 1.0, loop_window_yaw = math.rad(15), loop_reject = 5,
  loop_candidates = 6, loop_queue_max = 4,
}

-- The process's peak resident memory so far (kB; nil where /proc is not).
local function peak_rss_kb()
  local status = io.open("/proc/self/status")
  if not status then return nil end
  local kb = tonumber(status:read("*a"):match("VmHWM:%s*(%d+)"))
  status:close()
  return kb
end

-- The front laser's lines: ROBOTLASER1 where a log has them (they say their
-- geometry), else FLASER.
local function front_lasers(log)
  local robot, flaser = {}, {}
  for _, l in ipairs(log.lasers) do
    if l.kind == "ROBOTLASER1" then robot[#robot + 1] = l
    elseif l.kind == "FLASER" then flaser[#flaser + 1] = l end
  end
  return #robot > 0 and robot or flaser
end

-- Each scan's time: its own stamp when the log's are usable, else the last
-- non-zero stamp of the ODOM lines before it in the file (nil when those
-- are no better). Returns the times and how they were had.
local function scan_times(log, lasers)
  if log.times_usable then
    local times = {}
    for i, l in ipairs(lasers) do times[i] = l.t end
    return times, "the scans' own"
  end
  local last, upto = {}, 0
  for i, o in ipairs(log.odom) do
    if o.t > 0 then upto = o.t end
    last[i] = upto
  end
  local times, prev, repeated = {}, -math.huge, 0
  for i, l in ipairs(lasers) do
    local t = l.odom_before > 0 and last[l.odom_before] or 0
    if t <= 0 or t < prev - 1 then return nil, "none (file order)" end
    if t == prev then repeated = repeated + 1 end
    times[i], prev = t, t
  end
  -- stamps printed to 10 s (the CSAIL log's "1.13486e+09") repeat too
  if repeated * 10 > #lasers then return nil, "none (file order)" end
  if times[#times] <= times[1] then return nil, "none (file order)" end
  return times, "the ODOM lines' (the scans' are zero or unusable; file order)"
end

-- The odometry at time t: interpolated between the two messages around it
-- (sorted by stamp), the nearest one outside them.
local function odom_at(odoms, t)
  if t <= odoms[1].stamp then return odoms[1] end
  if t >= odoms[#odoms].stamp then return odoms[#odoms] end
  local lo, hi = 1, #odoms
  while hi - lo > 1 do
    local mid = math.floor((lo + hi) / 2)
    if odoms[mid].stamp <= t then lo = mid else hi = mid end
  end
  local a, b = odoms[lo], odoms[hi]
  local f = b.stamp > a.stamp and (t - a.stamp) / (b.stamp - a.stamp) or 0
  local dyaw = math.atan(math.sin(b.yaw - a.yaw), math.cos(b.yaw - a.yaw))
  return { x = a.x + f * (b.x - a.x), y = a.y + f * (b.y - a.y), yaw = a.yaw + f * dyaw }
end

-- The topic of the one channel of `schema`, or the one named; nil, why.
local function pick_topic(channels, schema, named, option)
  if named then
    local ch = channels[named]
    if not ch then return nil, ("no topic %s in the bag"):format(named) end
    if ch.schema ~= schema then return nil, ("%s is %s, not %s"):format(named, ch.schema, schema) end
    return named
  end
  local found = {}
  for topic, ch in pairs(channels) do
    if ch.schema == schema then found[#found + 1] = topic end
  end
  table.sort(found)
  if #found == 0 then return nil, ("no %s topic in the bag"):format(schema) end
  if #found > 1 then
    return nil, ("%d %s topics (%s): choose one with %s"):format(#found, schema, table.concat(found, ", "), option)
  end
  return found[1]
end

-- A rosbag2 MCAP as the CARMEN reader's log: its scans (tycho.scans) with
-- the odometry interpolated at each scan's stamp; no reference poses.
local function load_bag(opt)
  local info, err = tycho.mcap.read(opt.bag, function() end)
  if not info then return nil, err end
  local scan_topic, why = pick_topic(info.channels, "sensor_msgs/msg/LaserScan", opt.scan, "--scan")
  if not scan_topic then return nil, ("%s: %s"):format(opt.bag, why) end
  local odom_topic
  odom_topic, why = pick_topic(info.channels, "nav_msgs/msg/Odometry", opt.odom, "--odom")
  if not odom_topic then return nil, ("%s: %s"):format(opt.bag, why) end
  local scans, odoms, count, bad = {}, {}, 0, nil
  info, err = tycho.mcap.read(opt.bag, function(topic, _, data)
    count = count + 1
    local msg, decode_err
    if topic == scan_topic then
      msg, decode_err = tycho.ros.scan(data, { range_cap = opt["max-range"] })
      if msg then scans[#scans + 1] = msg end
    elseif topic == odom_topic then
      msg, decode_err = tycho.ros.odometry(data)
      if msg then odoms[#odoms + 1] = msg end
    else
      return
    end
    if not msg then
      bad = ("%s: message %d on %s: %s"):format(opt.bag, count, topic, decode_err)
      return true
    end
  end)
  if not info then return nil, err end
  if bad then return nil, bad end
  if #scans == 0 or #odoms == 0 then return nil, ("%s: no messages on %s or %s"):format(opt.bag, scan_topic, odom_topic) end
  table.sort(odoms, function(a, b) return a.stamp < b.stamp end)
  local lasers = {}
  for i, m in ipairs(scans) do
    local sc = m.scan
    lasers[i] = { t = m.stamp, scan = sc, count = sc.count, angle_min = sc.angle_min,
      angle_increment = sc.angle_increment, kind = "LaserScan", wheel = odom_at(odoms, m.stamp) }
  end
  return { lasers = lasers, odom = {}, times_usable = true, front_offset = { x = 0, y = 0, yaw = 0 }, bag = true }
end

local function median(sorted) return sorted[math.max(1, math.floor((#sorted + 1) / 2))] end

local function main(opt)
  if (opt.carmen == nil) == (opt.bag == nil) then return cli.usage_error(spec, "--carmen FILE or --bag FILE.mcap is required (one of them)") end
  if opt.bag and opt.fov then return cli.usage_error(spec, "--fov: a bag's LaserScan says its own geometry") end
  local source = opt.carmen or opt.bag
  local wall0 = tycho.clock.monotonic()
  -- the readings as tycho.scans (a quarter of the memory of tables), unless
  -- --fov asks for a geometry of its own
  local log, err
  if opt.bag then log, err = load_bag(opt)
  else log, err = tycho.carmen.load(opt.carmen, not opt.fov and { scans = true, range_cap = opt["max-range"] } or nil) end
  if not log then
    io.stderr:write("slam_log: ", err, "\n")
    return 2
  end
  local from_bag = log.bag
  local lasers = from_bag and log.lasers or front_lasers(log)
  if #lasers == 0 then
    io.stderr:write(("slam_log: %s: no FLASER or ROBOTLASER1 line\n"):format(source))
    return 2
  end
  local n = math.min(#lasers, opt.scans or #lasers)
  local times, time_source = scan_times(log, lasers)
  local duration = times and times[n] - times[1] or nil
  local ok_dir, dir_err = require("mission_guard").check_out(opt.out)
  if not ok_dir then return cli.usage_error(spec, dir_err) end

  local params = { resolution = opt.resolution, submap_scans = opt["submap-scans"],
    window_xy = opt.window, window_yaw = math.rad(opt["window-deg"]), loop_closure = not opt["no-loops"] }
  for k, v in pairs(LOG_DEFAULTS) do params[k] = v end
  for _, kv in ipairs(opt.slam) do
    local k, v = kv:match("^([%w_]+)=(.+)$")
    local value = v == "true" or (v ~= "false" and tonumber(v))
    if not k or value == nil then return cli.usage_error(spec, ("--slam %s: expected NAME=VALUE with a number, true or false"):format(kv)) end
    params[k] = value
  end
  local ok_new, slam = pcall(tycho.slam.new, params)
  if not ok_new then return cli.usage_error(spec, tostring(slam)) end

  -- the robot's odometry and reference poses (a laser line's second pose
  -- is the robot's), the laser's mounting on it
  local odom, ref, mounts = {}, {}, {}
  for i = 1, n do
    local l = lasers[i]
    odom[i] = l.wheel
    ref[i] = l.odom or l.wheel -- a bag has no reference poses: its odometry stands in
    mounts[i] = l.kind == "ROBOTLASER1" and metrics.between(l.odom, l) or log.front_offset
  end
  local drift = opt["odometry-drift"] and metrics.drift_model(opt["odometry-drift"])
  if drift then odom = metrics.drift(odom, drift) end

  local first = lasers[1]
  local geometry = { beams = first.count, angle_min_deg = math.deg(first.angle_min),
    angle_increment_deg = math.deg(first.angle_increment), no_return_m = first.max_range or json.null,
    offset = { x = log.front_offset.x, y = log.front_offset.y, yaw = log.front_offset.yaw }, kind = first.kind }
  -- the motion filter (Cartographer's): a scan the odometry says was taken
  -- where the last one was adds only cost (fr079: 4.5 scans a second);
  -- node_scan[k] is the scan of SLAM node k, node_of[i] the node scan i's
  -- pose is taken from
  local rows, add_ms, node_scan, node_of, budget = {}, {}, {}, {}, 0
  -- the front end's own word on each match: its standard deviation along the
  -- direction the scan pins least (infinite: a bare corridor, an open hall)
  local sigmas, unpinned = {}, 0
  local min_turn = math.rad(opt["min-turn"])
  for i = 1, n do
    local l = lasers[i]
    local last = node_scan[#node_scan]
    local moved = last and metrics.between(odom[last], odom[i])
    if not moved or math.sqrt(moved.x ^ 2 + moved.y ^ 2) >= opt["min-move"] or math.abs(moved.yaw) >= min_turn then
      local scan = l.scan
      if opt.fov then
        scan = tycho.scan.new({ angle_min = -math.rad(opt.fov) / 2, angle_increment = math.rad(opt.fov) / l.count,
          range_min = 0.01, range_max = math.min(l.max_range or math.huge, opt["max-range"]) }, l.ranges)
      end
      local t0 = tycho.clock.monotonic()
      local step = slam:add_scan(scan, metrics.compose(odom[i], mounts[i]))
      add_ms[#add_ms + 1] = (tycho.clock.monotonic() - t0) * 1000
      if step.sigma_xy then
        if step.sigma_xy == math.huge then unpinned = unpinned + 1 else sigmas[#sigmas + 1] = step.sigma_xy end
      end
      node_scan[#node_scan + 1] = i
    end
    -- the loop search's budget: the log time since the last scan (capped:
    -- a minute's gap is not a minute of searching at once)
    budget = budget + (times and i > 1 and math.min(times[i] - times[i - 1], 6) * opt["loop-rate"]
      or params.loop_candidates)
    if budget >= 1 and not opt["no-loops"] then
      slam:search_loops(math.floor(budget))
      budget = budget - math.floor(budget)
    end
    node_of[i] = #node_scan
    l.scan, l.ranges = nil, nil -- copied into the SLAM or filtered out: this one's memory can go
    rows[i] = { t = times and times[i] or (i - 1) }
    if not opt.quiet and i % 100 == 0 then
      local st = slam:stats()
      io.stderr:write(("slam_log: %d/%d scans, %d loop closures, %.1f s, %.1f MB held, peak RSS %.0f MB\n")
        :format(i, n, st.loop_closures, tycho.clock.monotonic() - wall0, st.bytes / 2 ^ 20, (peak_rss_kb() or 0) / 1024))
    end
  end
  -- the loop search's lag: log time from a scan to the end of its search
  -- (those still waiting are searched by finish)
  local lags, waiting = {}, 0
  for k, at in ipairs(slam:loop_searched_at()) do
    if at >= 1 and times then lags[#lags + 1] = times[node_scan[at]] - times[node_scan[k]]
    elseif at >= 1 then lags[#lags + 1] = node_scan[at] - node_scan[k] end
    if at == -3 then waiting = waiting + 1 end
  end
  table.sort(lags)
  local finish0 = tycho.clock.monotonic()
  slam:finish()
  local finish_s = tycho.clock.monotonic() - finish0
  -- the optimised trajectory (finish moved the poses add_scan returned), as
  -- the robot's poses; a filtered scan's from its node and the odometry since
  local est, traj, origin = {}, slam:trajectory(), { x = 0, y = 0, yaw = 0 }
  for i = 1, n do
    local j = node_scan[node_of[i]]
    local laser = metrics.compose(traj[node_of[i]], metrics.between(metrics.compose(odom[j], mounts[j]),
      metrics.compose(odom[i], mounts[i])))
    est[i] = metrics.compose(laser, metrics.between(mounts[i], origin))
    rows[i].slam, rows[i].ref, rows[i].odom = est[i], ref[i], odom[i]
  end
  -- the map saved at full resolution, then dropped; the picture's drawn from
  -- one of at most ~4 M cells (a 250 m corridor at 5 cm is 24 M: 95 MB of
  -- picture, more than the whole SLAM)
  local map = slam:map()
  local map_saved, map_err = tycho.map.save(map, opt.out .. "/map.yaml")
  local cells = map.width * map.height
  map = nil -- luacheck: ignore 311 (dropped for the collector)
  collectgarbage()
  local picture_res = opt.resolution * math.max(1, math.sqrt(cells / 4e6))
  local picture_map = slam:map { resolution = picture_res }
  local st = slam:stats()
  -- the log and the SLAM (submaps, fields, scans) are done with: freed
  -- before the pictures are drawn, so the peak is one or the other
  slam:close()
  log, lasers, slam = nil, nil, nil -- luacheck: ignore 311 (dropped for the collector)
  collectgarbage()
  local wall = tycho.clock.monotonic() - wall0

  local ate, ate_max = metrics.ate(est, ref)
  local odom_ate, odom_ate_max = metrics.ate(odom, ref)
  local function rpe(poses)
    local r1, r10 = metrics.rpe(poses, ref, 1), metrics.rpe(poses, ref, 10)
    return { trans_m = r1.trans_m, rot_deg = r1.rot_deg, trans_10_m = r10.trans_m, rot_10_deg = r10.rot_deg }
  end
  local slam_rpe, odom_rpe = rpe(est), rpe(odom)
  table.sort(add_ms)
  table.sort(sigmas)
  local peak_kb = peak_rss_kb()

  local csv = { "t,x,y,yaw,ref_x,ref_y,ref_yaw,odom_x,odom_y,odom_yaw" }
  for _, r in ipairs(rows) do
    -- the odometry to the last bit: what SLAM was fed, for a replay of it
    csv[#csv + 1] = ("%.6f,%.6f,%.6f,%.7f,%.6f,%.6f,%.7f,%.17g,%.17g,%.17g"):format(r.t, r.slam.x, r.slam.y,
      r.slam.yaw, r.ref.x, r.ref.y, r.ref.yaw, r.odom.x, r.odom.y, r.odom.yaw)
  end
  local summary = {
    schema_version = 2, log = source, scans = n, scans_added = #node_scan, laser = geometry,
    timestamps = time_source, log_duration_s = duration or json.null, wall_time_s = wall,
    times_real_time = duration and duration / math.max(wall, 1e-9) or json.null,
    scans_per_s = n / math.max(wall, 1e-9),
    add_scan_ms = { median = median(add_ms), p99 = add_ms[math.ceil(#add_ms * 0.99)], max = add_ms[#add_ms] },
    odometry_drift = drift and { seed = opt["odometry-drift"], trans_scale = drift.trans_scale,
      turn_scale = drift.turn_scale, yaw_deg_per_m = math.deg(drift.yaw_per_m) } or json.null,
    trajectory = {
      reference = from_bag and "none in a bag: its own odometry (how far SLAM moved off it, not an error)"
        or "the log's own poses (GMapping's corrected ones in a .gfs log), best-fit rigid alignment",
      ate_m = ate, ate_max_m = ate_max, rpe = slam_rpe,
      odometry_ate_m = odom_ate, odometry_ate_max_m = odom_ate_max, odometry_rpe = odom_rpe },
    loop_closures = st.loop_closures, loop_rejected = st.loop_rejected, optimizations = st.optimizations,
    loop_candidates = st.loop_candidates,
    loop_lag = { unit = times and "s of log time" or "scans", median = #lags > 0 and median(lags) or 0,
                 max = lags[#lags] or 0, searched = st.loop_searched, dropped = st.loop_dropped,
                 waiting_at_end = waiting },
    finish_s = finish_s,
    match_sigma_xy_m = { median = sigmas[1] and median(sigmas) or json.null,
      p95 = sigmas[1] and sigmas[math.ceil(#sigmas * 0.95)] or json.null, unpinned = unpinned },
    max_optimization_ms = st.max_optimization_ms, memory_held_mb = st.bytes / 2 ^ 20,
    peak_rss_mb = peak_kb and peak_kb / 1024 or json.null,
  }
  local name = source:match("[^/]+$")
  local files = {
    { "map.yaml", function() return map_saved, map_err end },
    { "map.png", function()
      local pic = tycho.picture(picture_map, { scale = opt.scale })
      pic:annotate { title = ("%s%s: %d scans, ATE %.2f m against the log's poses, %d loop closures")
        :format(name, drift and (" (drift seed %d)"):format(opt["odometry-drift"]) or "", n, ate, st.loop_closures), legend = {
        { label = "free", symbol = "cell", color = "white" }, { label = "wall", symbol = "cell", color = "black" },
        { label = "unknown", symbol = "cell", color = "grey" } } }
      return pic:save(opt.out .. "/map.png")
    end },
    { "trajectory.csv", function() return tycho.write_atomic(opt.out .. "/trajectory.csv", table.concat(csv, "\n") .. "\n") end },
    { "summary.json", function() return tycho.write_atomic(opt.out .. "/summary.json", json.encode(summary) .. "\n") end },
  }
  local failed = false
  for _, f in ipairs(files) do
    local ok, why = f[2]()
    if not ok then
      io.stderr:write(("slam_log: %s/%s not written: %s\n"):format(opt.out, f[1], tostring(why)))
      failed = true
    end
  end
  print(("slam_log: %s: %d scans (%d past the motion filter) of %d beams (%s, from %.1f deg by %.3f deg, no return %s), timestamps: %s")
    :format(name, n, #node_scan, geometry.beams, geometry.kind, geometry.angle_min_deg, geometry.angle_increment_deg,
      first.max_range and ("%.2f m"):format(first.max_range) or "none seen", time_source))
  if drift then
    print(("slam_log: odometry drift seed %d: translation x%.4f, turns x%.4f, %.2f deg/m of yaw drift")
      :format(opt["odometry-drift"], drift.trans_scale, drift.turn_scale, math.deg(drift.yaw_per_m)))
  end
  print(("slam_log: %.2f s wall (%s); add_scan median %.2f ms, worst %.1f ms; finish %.2f s")
    :format(wall, duration and ("%.0fx the log's %.0f s"):format(summary.times_real_time, duration) or
      ("%.0f scans/s, the log's duration unknown"):format(summary.scans_per_s), summary.add_scan_ms.median,
      summary.add_scan_ms.max, finish_s))
  print(("slam_log: ATE %.3f m (max %.3f m), RPE %.3f m %.2f deg (10 apart: %.3f m %.2f deg); odometry: ATE %.3f m (max %.3f m), RPE %.3f m %.2f deg")
    :format(ate, ate_max, slam_rpe.trans_m, slam_rpe.rot_deg, slam_rpe.trans_10_m, slam_rpe.rot_10_deg,
      odom_ate, odom_ate_max, odom_rpe.trans_m, odom_rpe.rot_deg))
  print(("slam_log: %d loop closures of %d candidates (%d set aside), lag median %.1f max %.1f %s (%d searched, %d dropped); %d optimisations (longest %.1f ms); memory held %.1f MB, peak RSS %s")
    :format(st.loop_closures, st.loop_candidates, st.loop_rejected, summary.loop_lag.median, summary.loop_lag.max, summary.loop_lag.unit,
      st.loop_searched, st.loop_dropped, st.optimizations, st.max_optimization_ms, summary.memory_held_mb,
      peak_kb and ("%.1f MB"):format(peak_kb / 1024) or "?"))
  print(("slam_log: wrote %s/{map.yaml,map.pgm,map.png,trajectory.csv,summary.json}"):format(opt.out))
  return failed and 1 or 0
end

return cli.run(spec, arg, main)
