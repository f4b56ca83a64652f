--- SLAM on a recorded laser log: a CARMEN log (tycho.carmen.load) fed to
-- tycho.slam scan by scan, with the wheel odometry (the log's ODOM lines,
-- interpolated at each scan's time) as the front end's guess.
--
--   tycho run behaviors/slam_log.lua --carmen FILE [--out DIR] [options]
--
-- Writes DIR/map.yaml + map.pgm and map.png (every scan at its optimised
-- pose), trajectory.csv (t, the SLAM pose, the log's own pose, the wheel
-- odometry's) and summary.json; prints the figures: time against the log's
-- duration, the trajectory against the log's own laser poses (in a
-- GMapping-processed log, GMapping's corrected poses: a consistency figure,
-- not ground truth) after aligning the first pose, loop closures, memory.
-- Exit 0, 1 if SLAM failed, 2 on bad arguments or an unreadable log.
local tycho = require "tycho"
local cli = require "cli"
local json = require "json"

local spec = cli.spec { prog = "slam_log", usage_line = "--carmen FILE [options]",
  summary = "SLAM on a CARMEN laser log: map, trajectory and its error against the log's own poses",
  options = {
    { name = "carmen", type = "string", metavar = "FILE", doc = "the CARMEN log (ODOM and FLASER lines)" },
    { name = "out", type = "string", metavar = "DIR", default = "out/slam_log", doc = "output folder" },
    { name = "scans", type = "integer", metavar = "N", min = 1, doc = "only the first N laser scans" },
    { name = "fov", type = "number", metavar = "DEG", default = 180, min = 1, max = 360,
      doc = "the laser's field of view, centred ahead (the log does not say; a SICK LMS: 180)" },
    { name = "max-range", type = "number", metavar = "M", default = 20, min = 0.1,
      doc = "readings at or beyond this are no return (the SICK's 81.9 m; long readings through glass and doors only blur)" },
    { name = "resolution", type = "number", metavar = "M", default = 0.05, min = 0.01, max = 1, doc = "map cell size" },
    { name = "submap-scans", type = "integer", metavar = "N", default = 15, min = 2,
      doc = "scans in a submap (a log's scans are far apart: a few per submap)" },
    { name = "window", type = "number", metavar = "M", default = 0.3, min = 0.01,
      doc = "front-end search window around the odometry's guess" },
    { name = "window-deg", type = "number", metavar = "DEG", default = 10, min = 0.1, doc = "front-end search window, heading" },
    { name = "no-loops", type = "boolean", doc = "front end only: no loop closure" },
    { name = "scale", type = "integer", metavar = "N", default = 1, min = 1, max = 8,
      doc = "picture pixels per map cell" },
    { name = "slam", type = "string", repeatable = true, metavar = "NAME=VALUE",
      doc = "any other tycho.slam.new parameter (numbers and true/false), e.g. --slam prior_yaw=0.3" },
    { name = "quiet", type = "boolean", doc = "no progress lines" },
  } }

-- tycho.slam's parameters for a log whose scans are far apart (this one's:
-- 3 s, a metre and 30 degrees at times, wheel odometry off by 16 degrees
-- over one such step), chosen on the first half of the Intel log (scans
-- 1-455; README "A real laser log"): a prior on the odometry's guess that
-- weakens as the step grows, closures sought for every scan over a wider
-- window (1 m, 15 degrees) and up to two per scan, and a closure the
-- optimised graph misses by more than 5 sigmas set aside.
local LOG_DEFAULTS = {
  prior_xy = 0.5, prior_yaw = 1.0, prior_per_m = 1, prior_per_rad = 1,
  loop_every = 1, loop_radius = 5, loop_matches_per_scan = 4, loop_closures_per_node = 2,
  loop_window_xy = 1.0, loop_window_yaw = math.rad(15), loop_reject = 5,
}

-- The process's peak resident memory so far (kB; nil where /proc is not).
local function peak_rss_kb()
  local status = io.open("/proc/self/status")
  if not status then return nil end
  local kb = tonumber(status:read("*a"):match("VmHWM:%s*(%d+)"))
  status:close()
  return kb
end

local function main(opt)
  if not opt.carmen then return cli.usage_error(spec, "--carmen FILE is required") end
  local wall0 = tycho.clock.monotonic()
  local log, err = tycho.carmen.load(opt.carmen)
  if not log then
    io.stderr:write("slam_log: ", err, "\n")
    return 2
  end
  local lasers = {}
  for _, l in ipairs(log.lasers) do
    if not l.rear then lasers[#lasers + 1] = l end
  end
  if #lasers == 0 then
    io.stderr:write(("slam_log: %s: no FLASER line\n"):format(opt.carmen))
    return 2
  end
  if #log.odom == 0 then
    io.stderr:write(("slam_log: %s: no ODOM line (the odometry SLAM starts from)\n"):format(opt.carmen))
    return 2
  end
  local n = math.min(#lasers, opt.scans or #lasers)
  local duration = lasers[n].t - lasers[1].t
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
  local fov = math.rad(opt.fov)
  local rows, add_ms = {}, {}
  for i = 1, n do
    local l = lasers[i]
    local count = #l.ranges
    local scan = tycho.scan.new({ angle_min = -fov / 2, angle_increment = fov / count, range_min = 0.01,
                                  range_max = opt["max-range"] }, l.ranges)
    local t0 = tycho.clock.monotonic()
    local step = slam:add_scan(scan, l.wheel)
    add_ms[#add_ms + 1] = (tycho.clock.monotonic() - t0) * 1000
    rows[i] = { t = l.t, slam = step, ref = { x = l.x, y = l.y, yaw = l.yaw }, wheel = l.wheel }
    if not opt.quiet and i % 100 == 0 then
      local st = slam:stats()
      io.stderr:write(("slam_log: %d/%d scans, %d loop closures, %.1f s, %.1f MB held, peak RSS %.0f MB\n")
        :format(i, n, st.loop_closures, tycho.clock.monotonic() - wall0, st.bytes / 2 ^ 20, (peak_rss_kb() or 0) / 1024))
    end
  end
  slam:finish()
  -- the optimised trajectory (finish moved the poses add_scan returned)
  for i, p in ipairs(slam:trajectory()) do rows[i].slam = p end
  local map = slam:map()
  local st = slam:stats()
  -- the log and the SLAM (submaps, fields, scans) are done with: freed
  -- before the pictures are drawn, so the peak is one or the other
  slam:close()
  log, lasers, slam = nil, nil, nil -- luacheck: ignore 311 (dropped for the collector)
  collectgarbage()
  local wall = tycho.clock.monotonic() - wall0

  -- both trajectories in the frame of the log's first pose
  local function align(get)
    local a, b = get(rows[1]), rows[1].ref
    local dyaw = b.yaw - a.yaw
    local c, s = math.cos(dyaw), math.sin(dyaw)
    return function(p)
      local dx, dy = p.x - a.x, p.y - a.y
      return b.x + c * dx - s * dy, b.y + s * dx + c * dy
    end
  end
  -- ... or by the rotation and translation that fit them best (least
  -- squares over every pose, Horn's closed form in 2D: the usual absolute
  -- trajectory error, blind to a disagreement in the first poses alone)
  local function fit(get)
    local count, ax, ay, bx, by = #rows, 0, 0, 0, 0
    for _, r in ipairs(rows) do
      local p = get(r)
      ax, ay, bx, by = ax + p.x / count, ay + p.y / count, bx + r.ref.x / count, by + r.ref.y / count
    end
    local sc, ss = 0, 0
    for _, r in ipairs(rows) do
      local p = get(r)
      local px, py, qx, qy = p.x - ax, p.y - ay, r.ref.x - bx, r.ref.y - by
      sc, ss = sc + px * qx + py * qy, ss + px * qy - py * qx
    end
    local th = math.atan(ss, sc)
    local c, s = math.cos(th), math.sin(th)
    return function(p)
      local dx, dy = p.x - ax, p.y - ay
      return bx + c * dx - s * dy, by + s * dx + c * dy
    end
  end
  local function errors(get, aligner)
    local to_ref, sum, worst = (aligner or align)(get), 0, 0
    for _, r in ipairs(rows) do
      local x, y = to_ref(get(r))
      local d2 = (x - r.ref.x) ^ 2 + (y - r.ref.y) ^ 2
      sum, worst = sum + d2, math.max(worst, math.sqrt(d2))
    end
    return math.sqrt(sum / #rows), worst
  end
  local rmse, max_err = errors(function(r) return r.slam end)
  local odom_rmse, odom_max = errors(function(r) return r.wheel end)
  local fit_rmse, fit_max = errors(function(r) return r.slam end, fit)
  table.sort(add_ms)
  local peak_kb = peak_rss_kb()

  local csv = { "t,x,y,yaw,ref_x,ref_y,ref_yaw,odom_x,odom_y,odom_yaw" }
  for _, r in ipairs(rows) do
    csv[#csv + 1] = ("%.6f,%.4f,%.4f,%.5f,%.4f,%.4f,%.5f,%.4f,%.4f,%.5f"):format(r.t, r.slam.x, r.slam.y,
      r.slam.yaw, r.ref.x, r.ref.y, r.ref.yaw, r.wheel.x, r.wheel.y, r.wheel.yaw)
  end
  local summary = {
    schema_version = 1, log = opt.carmen, scans = n, log_duration_s = duration, wall_time_s = wall,
    times_real_time = duration / math.max(wall, 1e-9),
    add_scan_ms = { median = add_ms[math.floor((#add_ms + 1) / 2)], p99 = add_ms[math.ceil(#add_ms * 0.99)],
                    max = add_ms[#add_ms] },
    trajectory = { rmse_m = rmse, max_m = max_err, odometry_rmse_m = odom_rmse, odometry_max_m = odom_max,
                   reference = "the log's own laser poses, first pose aligned",
                   best_fit_rmse_m = fit_rmse, best_fit_max_m = fit_max },
    loop_closures = st.loop_closures, loop_rejected = st.loop_rejected, optimizations = st.optimizations,
    max_optimization_ms = st.max_optimization_ms, memory_held_mb = st.bytes / 2 ^ 20,
    peak_rss_mb = peak_kb and peak_kb / 1024 or json.null,
  }
  local files = {
    { "map.yaml", function() return tycho.map.save(map, opt.out .. "/map.yaml") end },
    { "map.png", function()
      local pic = tycho.picture(map, { scale = opt.scale })
      pic:annotate { title = ("%s: %d scans, RMSE %.2f m against the log's poses, %d loop closures")
        :format(opt.carmen:match("[^/]+$"), n, rmse, st.loop_closures), legend = {
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
  print(("slam_log: %d scans over %.0f s of log in %.2f s wall (%.0fx real time); add_scan median %.2f ms, worst %.1f ms")
    :format(n, duration, wall, summary.times_real_time, summary.add_scan_ms.median, summary.add_scan_ms.max))
  print(("slam_log: trajectory against the log's poses: RMSE %.3f m, max %.3f m (wheel odometry alone: %.3f m, %.3f m); best-fit alignment: RMSE %.3f m, max %.3f m")
    :format(rmse, max_err, odom_rmse, odom_max, fit_rmse, fit_max))
  print(("slam_log: %d loop closures (%d set aside), %d optimisations (longest %.1f ms); memory held %.1f MB, peak RSS %s")
    :format(st.loop_closures, st.loop_rejected, st.optimizations, st.max_optimization_ms, summary.memory_held_mb,
      peak_kb and ("%.1f MB"):format(peak_kb / 1024) or "?"))
  print(("slam_log: wrote %s/{map.yaml,map.pgm,map.png,trajectory.csv,summary.json}"):format(opt.out))
  return failed and 1 or 0
end

return cli.run(spec, arg, main)
