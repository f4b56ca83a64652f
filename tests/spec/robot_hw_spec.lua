-- The hardware robot (behaviors/robot_hw.lua) from a robot config, with its
-- devices opened through the driver plugins against simulated hardware on
-- pseudo-terminals (an OpenCR board and an LDS-01): the same interface as
-- the simulator's robot, and `tycho repl --robot`.
local tycho = require "tycho"

local exe = require "helpers.exe"
local EXE = exe.EXE
local function sleep(s) tycho.net.wait({}, s) end

-- starts a fake device program (with an argument, if given); returns its
-- pty path and a handle whose closing stops it
local function fake(env, arg)
  local prog = os.getenv(env)
  if not prog then return nil end
  local out = os.tmpname()
  local h = io.popen(("'%s' %s > '%s'"):format(prog, arg and exe.quote(arg) or "", out), "w")
  for _ = 1, 100 do
    local f = io.open(out)
    local path = f and f:read("*l")
    if f then f:close() end
    if path then os.remove(out) return path, h end
    sleep(0.02)
  end
  error("no path from " .. prog)
end

local function config(base_port, lidar_port, extra)
  local path = os.tmpname() .. ".lua"
  local f = assert(io.open(path, "w"))
  f:write(("return { base = { driver = 'tb3_base', settings = { port = %q } },\n"):format(base_port),
    ("  lidar = { driver = 'lds01', settings = { port = %q } },\n"):format(lidar_port), extra or "", "}\n")
  f:close()
  return path
end

describe("robot_hw #slow", function()
  local base_port, base_h, lidar_port, lidar_h
  setup(function()
    base_port, base_h = fake("TYCHO_FAKE_OPENCR")
    lidar_port, lidar_h = fake("TYCHO_FAKE_LDS01")
  end)
  teardown(function()
    if base_h then base_h:close() end
    if lidar_h then lidar_h:close() end
  end)

  it("drives, scans and feels the slope like the simulated robot", function()
    if not base_port then return pending("fake devices not built") end
    local cfg = config(base_port, lidar_port, "  cameras = { { driver = 'amg8833', settings = { bus = '/dev/i2c-nope' }, optional = true } },\n")
    local robot = require("robot_hw").open(cfg)
    assert.are.equal("hardware", robot.kind)
    local t0 = tycho.clock.monotonic()
    local scan
    while tycho.clock.monotonic() - t0 < 1.0 do
      robot.drive(0.1, 0)
      robot.step()
      scan = robot.scan() or scan
      sleep(0.05)
    end
    robot.stop()
    sleep(0.2)
    robot.step()
    local x, y = robot.pose()
    assert.is_true(math.abs(x - 0.1) < 0.03 and math.abs(y) < 0.01, ("pose %.3f %.3f"):format(x, y))
    assert.is_truthy(scan)
    assert.are.equal(360, #scan)
    assert.is_true(math.abs(scan:range(1) - 0.5) < 1e-3)
    local pitch = robot.imu()
    assert.is_true(math.abs(pitch - 0.2) < 1e-3)
    assert.is_nil(robot.thermal(1)) -- the optional camera is missing: no frames, no error
    robot.close()
    os.remove(cfg)
  end)

  it("names the device that cannot be opened", function()
    if not base_port then return pending("fake devices not built") end
    local cfg = config(base_port, "/dev/ttyNOPE3")
    local ok, err = pcall(require("robot_hw").open, cfg)
    assert.is_false(ok)
    assert.matches("lidar: lds01: cannot open /dev/ttyNOPE3", err)
    os.remove(cfg)
  end)

  it("runs the reference mission on it: the same behaviour script, on the drivers", function()
    if not base_port then return pending("fake devices not built") end
    local cfg = config(base_port, lidar_port)
    local out = os.tmpname()
    os.remove(out)
    -- odometry alone: the fake LiDAR sends the same room whatever the base
    -- does, so scan matching (the --robot default, from the first scan) would
    -- rightly hold the robot where it started, and the back-off from the
    -- ramp alarm, measured on that pose, would never end
    local p = io.popen(("'%s' run %s/behaviors/heat_seek.lua --robot '%s' --set mission_timeout=10 --set localization=odometry --no-socket --out '%s' --record '%s.mcap' 2>&1; echo \"rc=$?\""):format(
      EXE, exe.SRC, cfg, out, out))
    local text = p:read("*a")
    p:close()
    assert.matches("rc=1", text) -- a fake room with no heat: it explores until the timeout
    assert.matches("mission timeout after 10 s", text)
    local f = assert(io.open(out .. "/summary.json"))
    local summary = f:read("*a")
    f:close()
    assert.matches('"robot":"' .. cfg:gsub("%p", "%%%0") .. '"', summary)
    assert.matches('"state":"Exploring"', summary)
    -- the board says the nose is up 0.2 rad: the IMU interrupt fires, through the base driver
    assert.matches('"detected":true', summary)
    -- the field run, recorded, plays back as a mission of its own: every
    -- recorded step replayed from the drivers' samples (on the wall clock
    -- the ticks fall where the scheduler could run them, so the commands are
    -- compared, not promised equal)
    p = io.popen(("'%s' run %s/behaviors/heat_seek.lua --replay '%s.mcap' --set localization=odometry --out '%s/replay' --quiet 2>&1; echo \"rc=$?\""):format(
      EXE, exe.SRC, out, out))
    text = p:read("*a")
    p:close()
    local replayed = exe.read_json(out .. "/replay/summary.json")
    assert.is_table(replayed, text)
    assert.are.equal("hardware", replayed.replay.recorded_kind)
    assert.is_true(replayed.replay.recorded_steps > 100, text)
    assert.are.equal("Initialising", replayed.states[1].state)
    assert.is_true(replayed.ramp.detected, "the IMU's pitch came through the recording")
    assert.matches("replay of .* %(hardware run%)", text)
    os.remove(out .. ".mcap")
    os.execute("rm -rf '" .. out .. "'")
    os.remove(cfg)
  end)

  -- the fake board's log of the velocities commanded: { {t, v, w}, ... }
  -- (seconds on tycho.clock.monotonic's clock, cm/s and centi-rad/s)
  local function commands(path)
    local list = {}
    for line in io.lines(path) do
      local t, v, w = line:match("^(%S+) (%S+) (%S+)$")
      list[#list + 1] = { tonumber(t), tonumber(v), tonumber(w) }
    end
    return list
  end
  -- a board of its own that logs the velocities it is sent, and a config
  -- with it: port, config path, log path, and a function that stops the
  -- board and removes both files
  local function logged_board()
    local log = os.tmpname()
    local port, board = fake("TYCHO_FAKE_OPENCR", log)
    local cfg = config(port, lidar_port)
    return cfg, log, function()
      board:close()
      os.remove(log)
      os.remove(cfg)
    end
  end
  -- the command the wheels had at time t (nil before the first)
  local function command_at(list, t)
    local at
    for _, c in ipairs(list) do if c[1] <= t then at = c end end
    return at
  end

  it("stops the wheels as soon as the mission is paused, and drives again on :resume", function()
    if not base_port then return pending("fake devices not built") end
    local cfg, log, remove_board = logged_board()
    local dir = exe.tmpdir()
    local sock = dir .. ".sock"
    local p = exe.start { "run", "behaviors/heat_seek.lua", "--robot", cfg, "--set", "localization=odometry",
                          "--set", "mission_timeout=60", "--socket=" .. sock, "--out", dir, "--quiet" }
    local ended = false
    local function ev(code)
      local status, out = exe.run { "attach", sock, "-e", code }
      assert.are.equal(0, status, out)
      return out
    end
    finally(function()
      if not ended then exe.run { "attach", sock, "-e", ":stop" } p:wait() end
      remove_board()
      exe.remove_tree(dir)
    end)
    require("helpers.attach_client").connect_unix(sock, 200):close()
    -- the mission drives (its first sweep turns on the spot)
    local moving
    for _ = 1, 200 do
      local now = command_at(commands(log), math.huge)
      if now and (now[2] ~= 0 or now[3] ~= 0) then moving = true break end
      sleep(0.05)
    end
    assert.is_true(moving, "the wheels never turned")
    assert.matches("paused", ev(":pause"), 1, true)
    local paused_at = tycho.clock.monotonic()
    sleep(1.0)
    -- stopped within a quarter of a second of the pause answering (the
    -- base's watchdog alone took half a second), and still stopped
    local list = commands(log)
    local soon = command_at(list, paused_at + 0.25)
    assert.are.same({ 0, 0 }, { soon[2], soon[3] })
    for _, c in ipairs(list) do
      assert.is_false(c[1] > paused_at + 0.25 and (c[2] ~= 0 or c[3] ~= 0), "the wheels turned while paused")
    end
    ev(":resume")
    local resumed_at = tycho.clock.monotonic()
    local again
    for _ = 1, 100 do
      for _, c in ipairs(commands(log)) do
        if c[1] > resumed_at - 0.1 and (c[2] ~= 0 or c[3] ~= 0) then again = true end
      end
      if again then break end
      sleep(0.05)
    end
    assert.is_true(again, "no drive command after :resume")
    ev(":stop")
    local rc, text = p:wait()
    ended = true
    assert.are.equal(1, rc, text) -- stopped from the console: not a completed mission
  end)

  it("stops the wheels when the console pauses tycho repl --robot", function()
    if not base_port then return pending("fake devices not built") end
    local cfg, log, remove_board = logged_board()
    local sock = os.tmpname() .. ".sock"
    local h = io.popen(("'%s' repl --robot '%s' --socket '%s' --history /dev/null > /dev/null 2>&1"):format(EXE, cfg, sock), "w")
    finally(function()
      h:close() -- its standard input closes: the console quits
      remove_board()
    end)
    require("helpers.attach_client").connect_unix(sock, 200):close()
    -- a drive from the console, paused a tenth of a second later: the
    -- base's watchdog alone would have held it for half a second
    local status, out = exe.run { "attach", sock, "-e", "robot.drive(0.1, 0)" }
    assert.are.equal(0, status, out)
    sleep(0.1)
    status, out = exe.run { "attach", sock, "-e", ":pause" }
    assert.are.equal(0, status, out)
    local paused_at = tycho.clock.monotonic()
    sleep(0.6)
    local list = commands(log)
    local drove = false
    for _, c in ipairs(list) do if c[2] == 10 then drove = true end end
    assert.is_true(drove, "the drive never reached the board")
    local soon = command_at(list, paused_at + 0.15)
    assert.are.same({ 0, 0 }, { soon[2], soon[3] })
  end)

  it("is the console's robot with tycho repl --robot", function()
    if not base_port then return pending("fake devices not built") end
    local cfg = config(base_port, lidar_port)
    local sock = os.tmpname() .. ".sock"
    local h = io.popen(("'%s' repl --robot '%s' --socket '%s' --history /dev/null > /dev/null 2>&1"):format(EXE, cfg, sock), "w")
    local text
    for _ = 1, 100 do
      local p = io.popen(("'%s' attach '%s' -e 'robot.kind' -e '#robot.scan() > 0 or robot.scan() == nil' 2>&1"):format(EXE, sock))
      text = p:read("*a")
      p:close()
      if text:find("hardware", 1, true) then break end
      sleep(0.05)
    end
    assert.matches('"hardware"', text)
    h:close()
    os.remove(cfg)
  end)
end)
