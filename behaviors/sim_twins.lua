--- The simulator's twins of the robot's devices: objects with the interface
-- of a tycho.device (dev:read() -> the next sample or nil, or nil and an
-- error; dev:write(command, ...) -> true or nil and why; dev:close(); the
-- fields kind, driver, path) backed by a tycho.sim, with the samples shaped
-- as the real drivers' are. Code written against devices (robot_hw, device
-- subscriptions) then runs against the simulator unchanged: a robot config
-- whose devices say driver = "sim" opens these (robot_hw.open(path, {sim =})).
--
--   local twins = require "sim_twins"
--   local lidar = twins.open(sim, "range_scanner")
--   local cam2 = twins.open(sim, "thermal_camera", { camera = 2 })
--   local base = twins.open(sim, "diff_base")     -- base:write("velocity", 0.1, 0)
--
-- Times are the simulator's (seconds since the world started).
local M = {}

local KINDS = { range_scanner = true, thermal_camera = true, imu = true, diff_base = true, launcher = true }

local Twin = {}
Twin.__index = Twin

function Twin:close() self.closed = true end

local function numbered(self, s)
  self.seq = self.seq + 1
  s.seq = self.seq
  s.t = s.t or self.sim.time
  return s
end

local readers = {}

function readers.range_scanner(self)
  local scan, stamp = self.sim:scan()
  if not scan then return nil end
  local ranges = {}
  for i = 1, #scan do ranges[i] = scan:range(i) end
  return numbered(self, { t = stamp, angle_min = scan:angle(1), angle_increment = #scan > 1 and scan:angle(2) - scan:angle(1) or 0,
                          range_min = scan.range_min, range_max = scan.range_max, ranges = ranges })
end

function readers.thermal_camera(self)
  local frame, stamp = self.sim:thermal(self.camera)
  if not frame then return nil end
  local pixels = {}
  for i = 1, 64 do pixels[i] = frame[i] end
  return numbered(self, { t = stamp, pixels = pixels, thermistor = self.sim:world().ambient })
end

function readers.imu(self)
  local pitch, roll, yaw_rate, stamp = self.sim:imu()
  if stamp == self.last then return nil end
  self.last = stamp
  return numbered(self, { t = stamp, roll = roll, pitch = pitch, gz = yaw_rate, gx = 0, gy = 0, ax = 0, ay = 0, az = 9.81 })
end

function readers.diff_base(self)
  local t = self.sim.time
  if t == self.last then return nil end
  self.last = t
  local x, y, yaw = self.sim:odom()
  local v, w = self.sim:velocity()
  local pitch, roll, yaw_rate = self.sim:imu()
  return numbered(self, { x = x, y = y, yaw = yaw, v = v, w = w, roll = roll, pitch = pitch, gyro_z = yaw_rate })
end

function readers.launcher(self)
  local st = self.sim:launcher()
  if st.spinning == self.last_spinning and self.fired == self.last_fired then return nil end
  self.last_spinning, self.last_fired = st.spinning, self.fired
  return numbered(self, { fired = self.fired, running = st.spinning })
end

function Twin:read()
  if self.closed then return nil, self.driver .. ": closed" end
  return readers[self.kind](self)
end

function Twin:write(command, a, b)
  if self.closed then return nil, self.driver .. ": closed" end
  local sim = self.sim
  if self.kind == "diff_base" then
    if command == "velocity" then
      if type(a) ~= "number" or type(b) ~= "number" then return nil, "velocity: v and w (numbers) expected" end
      sim:set_cmd(a, b)
      return true
    elseif command == "safe_stop" then sim:set_cmd(0, 0) return true end
  elseif self.kind == "launcher" then
    if command == "arm" then sim:launcher_spin(true) return true
    elseif command == "disarm" or command == "safe_stop" then sim:launcher_spin(false) return true
    elseif command == "fire" then
      local shot, why = sim:launcher_feed()
      if not shot then return nil, "launcher: " .. tostring(why) end
      self.fired = self.fired + 1
      return true
    end
  end
  return nil, ("%s: %s does not take '%s'"):format(self.driver, self.kind, tostring(command))
end

--- M.open(sim, kind [, settings]) -> device | nil, why
-- settings: camera = i for a thermal camera (default 1).
function M.open(sim, kind, settings)
  if not KINDS[kind] then return nil, ("sim: no twin for device kind '%s'"):format(tostring(kind)) end
  settings = settings or {}
  local dev = setmetatable({ sim = sim, kind = kind, driver = "sim", path = "simulator", seq = 0, fired = 0 }, Twin)
  if kind == "thermal_camera" then
    local n = #(sim:world().cameras or {})
    dev.camera = settings.camera or 1
    if type(dev.camera) ~= "number" or dev.camera < 1 or dev.camera > n then
      return nil, ("sim: camera %s does not exist (the world has %d)"):format(tostring(settings.camera), n)
    end
  end
  return dev
end

return M
