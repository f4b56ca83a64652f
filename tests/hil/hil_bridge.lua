--- Hardware in the loop: the simulator behind the real drivers.
--
--   tycho run tests/hil/hil_bridge.lua WORLD.lua DIR
--
-- Runs the simulated world at wall-clock pace and stands in for the
-- robot's hardware: an OpenCR board on a pseudo-terminal (the base driver's
-- velocity commands drive the simulated robot; its wheel encoders and IMU
-- come from the simulator), an LDS-01 on a pseudo-terminal (the
-- simulator's scans as real revolutions), two AMG8833 cameras on the fake
-- I2C bus (the simulator's thermal frames as register contents, through
-- DIR/cam<i>) and the launcher's GPIO lines (read back from the fake
-- libgpiod's log DIR/gpio.log: the arming line spins the simulated
-- flywheels, each feeder push fires a ball the simulator judges).
--
-- Writes DIR/robot.lua (the robot config naming those devices) and
-- DIR/env (the environment the runtime needs: LD_PRELOAD, the fake bus and
-- chip), then DIR/ready; keeps DIR/judge.lua up to date (launches and the
-- heat sources engaged); stops when DIR/stop appears.
local tycho = require "tycho"
local hil = require "tycho_hil"

local world, dir = arg[1], arg[2]
if not (world and dir) then
  io.stderr:write("usage: tycho run tests/hil/hil_bridge.lua WORLD.lua DIR\n")
  return 2
end
local preload = os.getenv("TYCHO_HIL_PRELOAD") or ""

local sim = tycho.sim.load(world)
local info = sim:world()
local board = hil.opencr()
local lds = hil.lds01()
local BUS, CHIP = "/dev/i2c-fake1", "/dev/gpiochip-fake0"
local ARM, ESC, FEEDER = 17, 18, 27

local function write_file(path, text)
  local tmp = path .. ".tmp"
  local f = assert(io.open(tmp, "wb"))
  f:write(text)
  f:close()
  assert(os.rename(tmp, path))
end

-- the robot config the runtime opens
local cams, amg = {}, {}
for i, c in ipairs(info.cameras or {}) do
  local address = 0x67 + i
  cams[#cams + 1] = ("    { driver = 'amg8833', settings = { bus = %q, address = %d }, yaw = %.17g, fov = %.17g },")
    :format(BUS, address, c.yaw, c.fov_h or c.fov or math.rad(60))
  amg[#amg + 1] = ("%s,0x%x,%s/cam%d"):format(BUS, address, dir, i)
end
write_file(dir .. "/robot.lua", table.concat({
  "-- written by tests/hil/hil_bridge.lua: the simulator's devices",
  "return {",
  ("  base = { driver = 'tb3_base', settings = { port = %q } },"):format(board.path),
  ("  lidar = { driver = 'lds01', settings = { port = %q } },"):format(lds.path),
  "  cameras = {", table.concat(cams, "\n"), "  },",
  ("  launcher = { driver = 'launcher_gpio', settings = { chip = %q, arm_line = %d, esc_line = %d, feeder_line = %d,")
    :format(CHIP, ARM, ESC, FEEDER),
  "               spin_up = 0.2, feed = 0.25, spin_down = 0.2 } },",
  "  limits = { v = 0.22, w = 2.84 },",
  "}", "" }, "\n"))
write_file(dir .. "/env", table.concat({
  "LD_PRELOAD=" .. preload,
  "TYCHO_FAKE_I2C_AMG=" .. table.concat(amg, ";"),
  "TYCHO_FAKE_GPIO_CHIP=" .. CHIP,
  "TYCHO_FAKE_GPIO_LOG=" .. dir .. "/gpio.log", "" }, "\n"))
io.open(dir .. "/gpio.log", "w"):close()

-- the AMG8833's registers: thermistor, then 64 pixels, 12 bits little-endian
local function amg_frame(temps, ambient)
  local function raw(v) return v & 0xFFF end
  local t = math.floor(ambient / 0.0625 + 0.5)
  local bytes = { string.char(t & 0xFF, (t >> 8) & 0x0F) }
  for i = 1, 64 do
    local p = raw(math.floor(temps[i] / 0.25 + 0.5))
    bytes[#bytes + 1] = string.char(p & 0xFF, (p >> 8) & 0x0F)
  end
  return table.concat(bytes)
end

-- the simulator's scan as 360 one-degree beams, counter-clockwise from ahead
local function degrees(scan)
  local r, n = {}, #scan
  for d = 0, 359 do
    local a = math.rad(d)
    local k = math.floor(((a - scan:angle(1)) % (2 * math.pi)) / (2 * math.pi / n) + 0.5) % n + 1
    r[d + 1] = scan:range(k)
  end
  return r
end

-- wheel encoders from the simulated odometry (TurtleBot3 Burger wheels)
local TICKS = 4096 / (2 * math.pi * 0.033)
local ticks_l, ticks_r = 0, 0
local ox, oy, oyaw = sim:odom()
local function wrap(a) return (a + math.pi) % (2 * math.pi) - math.pi end

-- the launcher's lines, from the fake libgpiod's log
local gpio = assert(io.open(dir .. "/gpio.log", "r"))
local level, rose = {}, {}
-- A push is the feeder at 2000 us (rest 1000 us) for the feed time, 12
-- frames at 50 Hz. Software PWM on a loaded machine wakes late, so a rest
-- pulse can read 1.5 ms or more for a while (CI once saw such a stretch
-- counted as two pushes with the arming line low): a push needs six pulses
-- in a row of at least 1.75 ms; two narrower ones end it.
local wide_run, narrow_run = 0, 99
local launches = {}
local partial = ""
local function launcher_lines()
  -- whole lines only: the log's writer may be half way through a line
  local chunk = gpio:read("a") or ""
  local text = partial .. chunk
  local cut = text:match("^.*()\n") or 0
  partial = text:sub(cut + 1)
  for line in text:sub(1, cut):gmatch("[^\n]+") do
    local t, off, v = line:match("^(%S+) (%d+) (%d)$")
    t, off, v = tonumber(t), tonumber(off), tonumber(v)
    if t then
      if off == ARM and v ~= level[ARM] then sim:launcher_spin(v == 1) end
      if off == FEEDER then
        if v == 1 then rose[FEEDER] = t
        elseif rose[FEEDER] and t - rose[FEEDER] < 0.005 then
          -- a servo pulse (1-2 ms); a longer "high" is a line claimed or
          -- released between frames, not a pulse
          local width = t - rose[FEEDER]
          if width >= 0.00175 then
            if narrow_run >= 2 then wide_run = 0 end
            narrow_run = 0
            wide_run = wide_run + 1
            if wide_run == 6 then -- a push: a ball goes
              io.stderr:write(("bridge: feeder push at %.2f s (arming line %s)\n"):format(sim.time, tostring(level[ARM])))
              local shot, why = sim:launcher_feed()
              launches[#launches + 1] = shot and { t = sim.time, engaged = shot.engaged or false, reason = shot.reason }
                or { t = sim.time, fired = false, reason = why }
            end
          else
            narrow_run = narrow_run + 1
          end
        end
      end
      level[off] = v
    end
  end
end

local function judge()
  local parts = { "return { engaged = {" }
  for i, e in ipairs(sim:engaged()) do parts[#parts + 1] = ("[%d] = %s,"):format(i, tostring(e)) end
  parts[#parts + 1] = "}, launches = {"
  for _, l in ipairs(launches) do
    parts[#parts + 1] = ("{ t = %.2f, engaged = %s, reason = %q },"):format(l.t, tostring(l.engaged), tostring(l.reason))
  end
  parts[#parts + 1] = ("}, sim_time = %.2f, scans_sent = %d, scans_dropped = %d }"):format(sim.time, lds.sent, lds.dropped)
  write_file(dir .. "/judge.lua", table.concat(parts, "\n") .. "\n")
end

write_file(dir .. "/ready", "")
local DT = 0.01
local t0, steps, last_judge = tycho.clock.monotonic(), 0, 0
while not io.open(dir .. "/stop") do
  local due = math.floor((tycho.clock.monotonic() - t0) / DT)
  if due - steps > 50 then steps = due - 50 end -- the machine stalled: do not race to catch up
  while steps < due do
    local v, w, torque = board:command()
    if torque then sim:set_cmd(v, w) else sim:set_cmd(0, 0) end
    sim:step(DT)
    steps = steps + 1
    local x, y, yaw = sim:odom()
    local c, s = math.cos(oyaw), math.sin(oyaw)
    local ds, dth = c * (x - ox) + s * (y - oy), wrap(yaw - oyaw)
    ticks_l = ticks_l + (ds - dth * 0.160 / 2) * TICKS
    ticks_r = ticks_r + (ds + dth * 0.160 / 2) * TICKS
    ox, oy, oyaw = x, y, yaw
    local pitch, roll, yaw_rate = sim:imu()
    board:wheels(ticks_l, ticks_r)
    board:imu(roll, pitch, yaw, yaw_rate)
    local scan = sim:scan()
    if scan then lds:send(degrees(scan)) end
    for i = 1, #cams do
      local frame = sim:thermal(i)
      if frame then write_file(("%s/cam%d"):format(dir, i), amg_frame(frame, info.ambient or 22)) end
    end
  end
  launcher_lines()
  if sim.time - last_judge >= 1 then judge() last_judge = sim.time end
  tycho.net.wait({}, 0.004)
end
judge()
lds:close()
board:close()
return 0
