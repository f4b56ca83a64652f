-- SLAM on a real laser log: the Intel Research Lab log (tests/data/carmen,
-- provenance in tests/data/README.md) through tycho.carmen.load and
-- behaviors/slam_log.lua. The log's own laser poses are GMapping's corrected
-- ones: the reference the trajectory is held against.
local exe = require "helpers.exe"
local tycho = require "tycho"

local LOG = exe.DATA .. "/carmen/intel.gfs.log"

local tmpdir = exe.tmpdir

describe("tycho.carmen.load", function()
  it("reads the Intel log: odometry, laser scans, the wheels at each scan", function()
    local log = assert(tycho.carmen.load(LOG))
    assert.are.equal(14541, #log.odom)
    assert.are.equal(910, #log.lasers)
    assert.are.equal(910, log.ignored) -- NEFF lines
    local l = log.lasers[1]
    assert.are.equal(180, #l.ranges)
    assert.are.near(32.9068, l.t, 1e-9)
    assert.is_false(l.rear)
    assert.are.near(l.x, l.odom.x, 1e-12) -- a .gfs log: both triples corrected
    assert.is_number(l.wheel.yaw)
  end)

  it("returns nil and file:line for a malformed log, nil and the reason for a missing one", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write("ODOM 0 0 0 0 0 0 1 h 1\nFLASER 3 1 2\n")
    f:close()
    local log, err = tycho.carmen.load(path)
    assert.is_nil(log)
    assert.are.equal(path .. ":2: FLASER: reading 3 of 3 missing or not a number", err)
    os.remove(path)
    log, err = tycho.carmen.load("/nonexistent/x.log")
    assert.is_nil(log)
    assert.matches("/nonexistent/x.log: cannot open", err, 1, true)
    assert.has_error(function() tycho.carmen.load() end)
  end)
end)

describe("tycho.carmen.load on crafted logs", function()
  local function write(text, gz)
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write(text)
    f:close()
    if gz then
      exe.shell("gzip -n -c " .. exe.quote(path) .. " > " .. exe.quote(path .. ".gz"))
      os.remove(path)
      return path .. ".gz"
    end
    return path
  end
  local function flaser(n, reading, t)
    return ("FLASER %d%s 0 0 0 0 0 0 %s h %s\n"):format(n, (" " .. reading):rep(n), t, t)
  end

  it("gives each laser its geometry: 181 and 361 beams end to end, 180 and 360 one step short", function()
    for _, n in ipairs { 180, 181, 360, 361 } do
      local path = write(flaser(n, "2.5", 1))
      local log = assert(tycho.carmen.load(path))
      local l = log.lasers[1]
      local last = l.angle_min + (n - 1) * l.angle_increment
      assert.are.near(-math.pi / 2, l.angle_min, 1e-12)
      assert.are.near(n % 2 == 1 and math.pi / 2 or math.pi / 2 - l.angle_increment, last, 1e-9)
      os.remove(path)
    end
  end)

  it("reads ROBOTLASER1's own geometry, no-return readings, PARAM offsets, zero stamps, gzip", function()
    local lines = { "PARAM robot_frontlaser_offset 0.12 nohost 0\n" }
    for k = 1, 30 do
      -- 361 beams, every 4th no return (81.91); stamps all zero
      local r = {}
      for i = 1, 361 do r[i] = i % 4 == 0 and "81.91" or "4.0" end
      lines[#lines + 1] = ("ODOM %d 0 0 0 0 0 0\nFLASER 361 %s %d 0 0 %d 0 0 0 h 0\n"):format(k, table.concat(r, " "), k, k)
    end
    lines[#lines + 1] = "ROBOTLASER1 0 -2.0 4.0 0.5 8.1 0.01 0 3 1 8.1 2 0 1 1 0 1 1 0.5 0 0 0 0 0 2 h 2\n"
    local path = write(table.concat(lines), true)
    local log = assert(tycho.carmen.load(path))
    assert.are.near(0.12, log.front_offset.x, 1e-12)
    assert.is_false(log.times_usable)
    assert.are.equal(30, log.time_zero)
    local f = log.lasers[1]
    assert.are.equal("FLASER", f.kind)
    assert.is_true(f.max_range > 81.8 and f.max_range < 81.91)
    -- file order: the ODOM line before the scan, not an interpolation by stamps
    assert.are.near(1, log.lasers[1].wheel.x, 1e-12)
    assert.are.near(30, log.lasers[30].wheel.x, 1e-12)
    local r = log.lasers[31]
    assert.are.equal("ROBOTLASER1", r.kind)
    assert.are.near(-2.0, r.angle_min, 1e-12)
    assert.are.near(0.5, r.angle_increment, 1e-12)
    assert.are.near(8.1, r.max_range, 1e-12)
    assert.are.near(0.5, r.odom.yaw, 1e-12) -- the robot's pose; the laser's is r.x, r.y, r.yaw
    assert.are.near(1, r.x, 1e-12)
    os.remove(path)
  end)
end)

describe("tycho.carmen.load with scans", function()
  it("gives each laser a tycho.scan of its geometry, range_max the no-return value or the cap", function()
    local tables = assert(tycho.carmen.load(LOG))
    local log = assert(tycho.carmen.load(LOG, { scans = true, range_cap = 20 }))
    local l, t = log.lasers[1], tables.lasers[1]
    assert.is_nil(l.ranges)
    assert.are.equal(180, l.count)
    assert.are.equal(180, l.scan.count)
    assert.are.near(20, l.scan.range_max, 1e-12)
    assert.are.near(-math.pi / 2, l.scan.angle_min, 1e-12)
    for k = 1, 180, 37 do assert.are.near(t.ranges[k], l.scan:range(k), 1e-6) end
    assert.has_error(function() tycho.carmen.load(LOG, { range_cap = 0 }) end)
    assert.has_error(function() tycho.carmen.load(LOG, { scan = true }) end) -- unknown key
  end)
end)

describe("tycho.slam on a log's scans", function()
  it("searches loops only when asked (loop_matches_per_scan = 0), renders the map coarser on request", function()
    local log = assert(tycho.carmen.load(LOG, { scans = true, range_cap = 20 }))
    local slam = tycho.slam.new { loop_matches_per_scan = 0, loop_every = 1, loop_radius = 5, loop_min_separation = 10,
      submap_scans = 15, loop_window_xy = 1.0, loop_min_score = 0.5 }
    for i = 1, 150 do slam:add_scan(log.lasers[i].scan, log.lasers[i].wheel) end
    assert.are.equal(0, slam:stats().loop_candidates)
    local found = slam:search_loops(40)
    local st = slam:stats()
    assert.is_true(st.loop_candidates > 0 and st.loop_candidates <= 40, st.loop_candidates)
    assert.are.equal(st.loop_closures, found)
    local fine, coarse = slam:map(), slam:map { resolution = 0.1 }
    assert.is_true(math.abs(coarse.width - fine.width / 2) <= 2, fine.width .. " " .. coarse.width)
    assert.has_error(function() slam:map { resolution = 0.01 } end) -- finer than the SLAM's
    assert.has_error(function() slam:search_loops(-1) end)
  end)
end)

describe("traj_metrics", function()
  local metrics = require "traj_metrics"
  local function square(n)
    local p = {}
    for i = 1, n do p[i] = { x = i * 0.1, y = math.sin(i / 7), yaw = i * 0.05 } end
    return p
  end

  it("is blind to a rigid motion of the whole trajectory (ATE after the best fit, RPE)", function()
    local ref = square(60)
    local moved = {}
    for i, p in ipairs(ref) do moved[i] = metrics.compose({ x = 3, y = -2, yaw = 0.7 }, p) end
    local ate = metrics.ate(moved, ref)
    assert.is_true(ate < 1e-9)
    local rpe = metrics.rpe(moved, ref, 1)
    assert.is_true(rpe.trans_m < 1e-9 and rpe.rot_deg < 1e-9)
    assert.are.equal(59, rpe.pairs)
  end)

  it("--odometry-drift: a seed gives the same errors every time, in the stated ranges, and another seed others", function()
    local a, b, c = metrics.drift_model(7), metrics.drift_model(7), metrics.drift_model(8)
    assert.are.same(a, b)
    assert.are_not.same(a, c)
    for seed = 0, 50 do
      local m = metrics.drift_model(seed)
      local ts, rs, yd = math.abs(m.trans_scale - 1), math.abs(m.turn_scale - 1), math.abs(math.deg(m.yaw_per_m))
      assert.is_true(ts >= 0.02 and ts <= 0.04, "wheel scale " .. ts)
      assert.is_true(rs >= 0.02 and rs <= 0.05, "turn scale " .. rs)
      assert.is_true(yd >= 0.5 and yd <= 1.5, "yaw drift " .. yd)
    end
    -- the drifted trajectory drifts: 1.3 deg/m over 6 m of travel bends it
    local ref = square(60)
    local drifted = metrics.drift(ref, a)
    assert.are.same(drifted, metrics.drift(ref, b))
    assert.is_true(metrics.ate(drifted, ref) > 0.01)
  end)
end)

describe("slam_log.lua", function()
  it("maps the first 150 scans of the Intel log and keeps to the corrected poses far better than the wheels", function()
    local dir = tmpdir()
    local code, out = exe.run { "run", "behaviors/slam_log.lua", "--carmen", LOG, "--out", dir, "--scans", "150", "--quiet" }
    assert.are.equal(0, code, out)
    local s = exe.read_json(dir .. "/summary.json")
    assert.are.equal(150, s.scans)
    assert.is_true(s.loop_lag.max >= s.loop_lag.median)
    local schema = require "json_schema"
    local v = schema.load(exe.SRC .. "/schemas/slam_log_summary.schema.json")
    assert.are.same({}, v:errors(schema.read(dir .. "/summary.json")))
    assert.are.equal(180, s.laser.beams)
    assert.are.near(-90, s.laser.angle_min_deg, 1e-9)
    assert.are.near(1, s.laser.angle_increment_deg, 1e-9)
    assert.are.equal("the scans' own", s.timestamps)
    assert.is_true(s.trajectory.ate_m < 0.10, out)
    assert.is_true(s.trajectory.rpe.trans_m < 0.05 and s.trajectory.rpe.rot_deg < 1, out)
    -- the odometry's own step errors are larger than SLAM's
    assert.is_true(s.trajectory.rpe.rot_deg < s.trajectory.odometry_rpe.rot_deg, out)
    assert.is_true(s.loop_closures >= 20, out)
    local map = assert(tycho.map.load(dir .. "/map.yaml"))
    local st = map:stats()
    assert.is_true(st.free > 50000 and st.lethal > 2000, out)
    local rows = 0
    for _ in io.lines(dir .. "/trajectory.csv") do rows = rows + 1 end
    assert.are.equal(151, rows)
    exe.shell("rm -rf " .. exe.quote(dir))
  end)

  it("--odometry-drift: the same seed, the same odometry; SLAM brings the drifted odometry back", function()
    local dirs = { tmpdir(), tmpdir() }
    for _, dir in ipairs(dirs) do
      local code, out = exe.run { "run", "behaviors/slam_log.lua", "--carmen", LOG, "--out", dir, "--scans", "120",
        "--quiet", "--odometry-drift", "3" }
      assert.are.equal(0, code, out)
    end
    local function odom_columns(dir)
      local rows = {}
      for line in io.lines(dir .. "/trajectory.csv") do rows[#rows + 1] = line:match("[^,]+,[^,]+,[^,]+$") end
      return rows
    end
    assert.are.same(odom_columns(dirs[1]), odom_columns(dirs[2]))
    local s = exe.read_json(dirs[1] .. "/summary.json")
    assert.are.equal(3, s.odometry_drift.seed)
    assert.is_true(s.trajectory.odometry_ate_m > 3 * s.trajectory.ate_m, "drift " .. s.trajectory.odometry_ate_m .. " m, SLAM " .. s.trajectory.ate_m .. " m")
    for _, dir in ipairs(dirs) do exe.shell("rm -rf " .. exe.quote(dir)) end
  end)

  it("refuses bad input with exit 2 and a one-line reason", function()
    local code, out = exe.run { "run", "behaviors/slam_log.lua" }
    assert.are.equal(2, code)
    assert.matches("slam_log: --carmen FILE or --bag FILE.mcap is required (one of them)", out, 1, true)
    code, out = exe.run { "run", "behaviors/slam_log.lua", "--carmen", "/nonexistent/x.log" }
    assert.are.equal(2, code)
    assert.matches("slam_log: /nonexistent/x.log: cannot open", out, 1, true)
    code, out = exe.run { "run", "behaviors/slam_log.lua", "--carmen=" .. LOG, "--scans=0" }
    assert.are.equal(2, code)
    assert.matches("--scans", out, 1, true)
  end)
end)
