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

describe("slam_log.lua", function()
  it("maps the first 150 scans of the Intel log and keeps to the corrected poses far better than the wheels", function()
    local dir = tmpdir()
    local code, out = exe.run { "run", "behaviors/slam_log.lua", "--carmen", LOG, "--out", dir, "--scans", "150", "--quiet" }
    assert.are.equal(0, code, out)
    local s = exe.read_json(dir .. "/summary.json")
    assert.are.equal(150, s.scans)
    local schema = require "json_schema"
    local v = schema.load(exe.SRC .. "/schemas/slam_log_summary.schema.json")
    assert.are.same({}, v:errors(schema.read(dir .. "/summary.json")))
    -- measured 0.064 m RMSE (wheels alone 1.43 m), best fit 0.058 m, 63 loop closures (3 set aside)
    assert.is_true(s.trajectory.rmse_m < 0.10, out)
    assert.is_true(s.trajectory.rmse_m < s.trajectory.odometry_rmse_m / 10, out)
    assert.is_true(s.trajectory.best_fit_rmse_m <= s.trajectory.rmse_m + 1e-9, out)
    assert.is_true(s.loop_closures >= 20, out)
    assert.is_true(s.times_real_time > 20, out)
    local map = assert(tycho.map.load(dir .. "/map.yaml"))
    local st = map:stats()
    assert.is_true(st.free > 50000 and st.lethal > 2000, out)
    local rows = 0
    for _ in io.lines(dir .. "/trajectory.csv") do rows = rows + 1 end
    assert.are.equal(151, rows)
    exe.shell("rm -rf " .. exe.quote(dir))
  end)

  it("refuses bad input with exit 2 and a one-line reason", function()
    local code, out = exe.run { "run", "behaviors/slam_log.lua" }
    assert.are.equal(2, code)
    assert.matches("slam_log: --carmen FILE is required", out, 1, true)
    code, out = exe.run { "run", "behaviors/slam_log.lua", "--carmen", "/nonexistent/x.log" }
    assert.are.equal(2, code)
    assert.matches("slam_log: /nonexistent/x.log: cannot open", out, 1, true)
    code, out = exe.run { "run", "behaviors/slam_log.lua", "--carmen=" .. LOG, "--scans=0" }
    assert.are.equal(2, code)
    assert.matches("--scans", out, 1, true)
  end)
end)
