--- The robot's device interface on real hardware: the same table as
-- robot_sim.lua (pose, pose_at, scan, thermal, imu, drive, stop, launcher,
-- step, time, safe_stop), backed by driver plugins opened from a robot
-- config (robots/*.lua). step() polls the devices (never waits); device
-- problems become log lines and nil samples, never errors.
--
--   local robot = require("robot_hw").open("robots/turtlebot3.lua", { log = log })
local tycho = require "tycho"

local M = {}

-- A robot config runs in tycho's data sandbox (tycho.load_data: copies of
-- the safe libraries, instruction, CPU-time and memory budgets).
local function load_config(path)
  if type(path) ~= "string" then error("robot config: path expected, got " .. type(path), 0) end
  local cfg, err = tycho.load_data(path)
  if err then error(err, 0) end
  if type(cfg) ~= "table" then error(path .. ": must return a table", 0) end
  if type(cfg.base) ~= "table" then error(path .. ": base: a device table {driver =, settings =} is required", 0) end
  return cfg
end

local function wrap(a) return (a + math.pi) % (2 * math.pi) - math.pi end

--- M.open(config_path, {log =, sim =}) -> robot (raises with the device's
-- message when a required device cannot be opened). With a tycho.sim, devices
-- whose driver is "sim" are the simulator's twins (sim_twins.lua), the clock
-- is the simulator's and step(dt) advances it.
function M.open(path, o)
  o = o or {}
  local cfg = load_config(path)
  local log = o.log
  local function note(fmt, ...)
    local msg = fmt:format(...)
    if log then log:warn("%s", msg) else io.stderr:write(msg, "\n") end
  end
  local robot = { kind = "hardware", config = cfg, devices = {}, cameras = {} }
  local opened = {}
  local function open(name, kind, spec)
    if not spec then return nil end
    if type(spec) ~= "table" or type(spec.driver) ~= "string" then
      error(("%s: %s: {driver =, settings =} expected"):format(path, name), 0)
    end
    local dev, err
    if spec.driver == "sim" then
      if not o.sim then error(("%s: %s: driver 'sim' needs the simulator (robot_hw.open(path, {sim =}))"):format(path, name), 0) end
      dev, err = require("sim_twins").open(o.sim, kind, spec.settings)
    else
      dev, err = tycho.device.open(kind, spec.driver, spec.settings or {})
    end
    if not dev then
      if spec.optional then note("%s: %s not available: %s", path, name, err) return nil end
      for _, d in ipairs(opened) do d:close() end
      error(("%s: %s: %s"):format(path, name, err), 0)
    end
    opened[#opened + 1] = dev
    robot.devices[name] = dev
    return dev
  end
  local base = open("base", "diff_base", cfg.base)
  local lidar = open("lidar", "range_scanner", cfg.lidar)
  local cams = {}
  for i, c in ipairs(cfg.cameras or {}) do
    cams[i] = open("camera " .. i, "thermal_camera", c)
    robot.cameras[i] = { yaw = c.yaw or 0, fov = c.fov or math.rad(60) }
  end
  local imu_dev = open("imu", "imu", cfg.imu)
  local launcher = open("launcher", "launcher", cfg.launcher)
  local limits = cfg.limits or {}

  -- latest samples, and an odometry history for stamping sensor data
  local odom, hist = { x = 0, y = 0, yaw = 0, roll = 0, pitch = 0, gyro_z = 0 }, {}
  local pending = { scan = nil, thermal = {} }
  local last_error = {}
  -- the newest sample a device has queued (older scans and frames are stale)
  local function poll(name, dev)
    local newest
    while true do
      local s, err = dev:read()
      if err and last_error[name] ~= err then note("%s: %s", name, err) end
      last_error[name] = err
      if not s then return newest end
      newest = s
    end
  end

  function robot.step(dt)
    if o.sim and dt then o.sim:step(dt) end
    local s = poll("base", base)
    while s do
      odom = s
      hist[#hist + 1] = { t = s.t, x = s.x, y = s.y, yaw = s.yaw }
      if #hist > 128 then table.remove(hist, 1) end
      s = base:read()
    end
    if lidar then pending.scan = poll("lidar", lidar) or pending.scan end
    for i, c in ipairs(cams) do pending.thermal[i] = poll("camera " .. i, c) or pending.thermal[i] end
  end
  function robot.time() return o.sim and o.sim.time or tycho.clock.monotonic() end
  function robot.pose() return odom.x, odom.y, odom.yaw end
  function robot.pose_at(t)
    local newer
    for k = #hist, 1, -1 do
      local h = hist[k]
      if h.t <= t then
        if not newer then return h.x, h.y, h.yaw end
        local u = (t - h.t) / (newer.t - h.t)
        return h.x + u * (newer.x - h.x), h.y + u * (newer.y - h.y), wrap(h.yaw + u * wrap(newer.yaw - h.yaw))
      end
      newer = h
    end
    return odom.x, odom.y, odom.yaw
  end
  local function stamped(sample)
    local x, y, yaw = robot.pose_at(sample.t)
    return sample.t, { x = x, y = y, yaw = yaw }
  end
  -- A LiDAR reading of 0 means no echo. Most often nothing within range
  -- (the LDS-01 in an open room), so by default it becomes +inf (REP-117's
  -- "no return": the scan clears space up to range_max, as the simulator's
  -- scans do and as gmapping treats the TurtleBot3's zeros); a config that
  -- says lidar.zero_is = "invalid" keeps it as an unusable reading instead
  -- (a black, absorbing wall would otherwise be cleared).
  local zero_far = not (cfg.lidar and cfg.lidar.zero_is == "invalid")
  function robot.scan()
    local s = pending.scan
    if not s then return nil end
    pending.scan = nil
    local ranges = s.ranges
    if zero_far then
      for i = 1, #ranges do if ranges[i] == 0 then ranges[i] = math.huge end end
    end
    local scan = tycho.scan.new({ angle_min = s.angle_min, angle_increment = s.angle_increment,
                                  range_min = s.range_min, range_max = s.range_max }, ranges)
    return scan, stamped(s)
  end
  function robot.thermal(i)
    local s = pending.thermal[i]
    if not s then return nil end
    pending.thermal[i] = nil
    return s.pixels, stamped(s)
  end
  local imu_last
  function robot.imu()
    if imu_dev then
      local s = poll("imu", imu_dev)
      if s then imu_last = s end
      if imu_last then return imu_last.pitch, imu_last.roll, imu_last.gz end
    end
    return odom.pitch, odom.roll, odom.gyro_z
  end
  function robot.drive(v, w)
    local vm, wm = limits.v or math.huge, limits.w or math.huge
    v = math.max(-vm, math.min(vm, v))
    w = math.max(-wm, math.min(wm, w))
    local ok, err = base:write("velocity", v, w)
    if not ok then note("base: %s", err) end
  end
  function robot.stop() robot.drive(0, 0) end
  robot.launcher = {
    spin = function(on)
      if not launcher then return nil, "no launcher" end
      return launcher:write(on and "arm" or "disarm")
    end,
    feed = function()
      if not launcher then return nil, "no launcher" end
      local ok, err = launcher:write("fire", 1)
      if not ok then return nil, err end
      return { fired = true } -- the hardware cannot tell what the ball hit
    end,
    state = function() return launcher and launcher:read() end,
  }
  function robot.safe_stop()
    base:write("safe_stop")
    if launcher then launcher:write("safe_stop") end
  end
  function robot.close()
    robot.safe_stop()
    for _, d in ipairs(opened) do d:close() end
  end
  return robot
end

return M
