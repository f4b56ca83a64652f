--- Raw device samples: written into a recording as the robot delivers them
-- (M.tap), and read back as a robot that plays them to a mission (M.open),
-- so a recorded run becomes a regression test: same input, same decisions.
--
--   -- recording: wrap the robot as it comes from robot_sim / robot_hw, then
--   -- hand it the channels once the session is up (samples wait till then)
--   local tape = RobotReplay.tap(robot)
--   tape:attach(channels)
--   -- replaying: the same table as robot_sim.lua gives, fed from the file
--   local robot = assert(RobotReplay.open("run.mcap"))
--
-- What is taped is what the robot's functions returned, when they returned
-- it: the odometry, IMU and command after every step; every scan and
-- thermal frame with the robot's clock at delivery, its stamp and the pose
-- the robot gave with it; every launcher call and its outcome. Numbers are
-- kept exactly (%.17g, and base64 floats for ranges and pixels: printed
-- decimals would round them, and one rounded range can move a frontier).
-- On replay the mission's own commands are compared with the recorded ones
-- at every step: the first that differs is where its decisions diverged.
local tycho = require "tycho"
local json_decode = require "json_decode"

local M = {}

-- Lua 5.4 and LuaJIT (5.1's unpack, no table.pack)
local unpack = table.unpack or unpack ---@diagnostic disable-line: deprecated
local function pack(...) return { n = select("#", ...), ... } end

-- topic -> schema of the raw channels (channels.lua adds them, recording only)
M.TOPICS = {
  { topic = "/raw/robot", schema = "tycho.RawRobot" },
  { topic = "/raw/odom", schema = "tycho.RawOdom" },
  { topic = "/raw/scan", schema = "tycho.RawScan" },
  { topic = "/raw/thermal/1", schema = "tycho.RawThermal" },
  { topic = "/raw/thermal/2", schema = "tycho.RawThermal" },
  { topic = "/raw/launcher", schema = "tycho.RawLauncher" },
}

local huge = math.huge
-- %.17g of a finite number (exact through tonumber); JSON null otherwise
local function num(v)
  if type(v) ~= "number" or v ~= v or v == huge or v == -huge then return "null" end
  return ("%.17g"):format(v)
end

-- the samples' templates: every number %.17g (exact), the arrays as base64
-- floats; filled in by the encoder (a recording's on its writer's thread)
local POSED = '"t":%.17g,"stamp":%.17g,"x":%.17g,"y":%.17g,"yaw":%.17g'
local ODOM = tycho.viz.template('{"t":%.17g,"x":%.17g,"y":%.17g,"yaw":%.17g,"pitch":%.17g,"roll":%.17g,'
  .. '"yaw_rate":%.17g,"v":%.17g,"w":%.17g}')
local SCAN = tycho.viz.template('{' .. POSED .. ',"angle_min":%.17g,"angle_increment":%.17g,"range_min":%.17g,'
  .. '"range_max":%.17g,"ranges":"%F"}')
local THERMAL = tycho.viz.template('{' .. POSED .. ',"seq":%.17g,"pixels":"%D"}')
local THERMAL_TOPICS = { "/raw/thermal/1", "/raw/thermal/2" }

--- M.tap(robot, {world =, seed =, now =, clock =, localization =}) -> tape. Wraps the robot's
-- functions in place; nothing is written until tape:attach(channels).
-- Messages are logged at now() (the mission's clock, which the other
-- channels use, so the file stays in time order; the robot's own clock
-- runs a step ahead of it in the simulator) and carry the robot's clock.
-- The simulator's robot, given the clock that now() reads, is tapped in C
-- once attached (sim:tap: the same messages without a Lua call per sample).
function M.tap(robot, o)
  o = o or {}
  local now = o.now or robot.time
  local tape = { queue = {}, cmd_v = 0, cmd_w = 0, in_c = false }
  local function put(topic, data)
    if tape.channels then tape.channels:publish(topic, now(), data)
    else tape.queue[#tape.queue + 1] = { topic, now(), data } end
  end
  -- a sample from a template: before attach it is encoded now (its inputs
  -- may change before the channels come)
  local function put_format(topic, template, ...)
    local channels = tape.channels
    if channels then channels:emit(topic, now(), "format", template, ...)
    else put(topic, tycho.viz.format(template, now(), ...)) end
  end
  -- the last command: asked of a robot that keeps it (robot.command), else kept as it passes
  local command = robot.command or function() return tape.cmd_v, tape.cmd_w end
  local function odom_now()
    local x, y, yaw = robot.pose()
    local pitch, roll, rate = robot.imu()
    local v, w = command()
    put_format("/raw/odom", ODOM, robot.time(), x, y, yaw, pitch, roll, rate, v, w)
  end
  do -- what kind of robot and its cameras, then where it starts
    local cams = {}
    for i, c in ipairs(robot.cameras or {}) do
      cams[i] = ('{"yaw":%s,"fov":%s}'):format(num(c.yaw or 0), num(c.fov or 0))
    end
    put("/raw/robot", ('{"kind":"%s","world":%s,"seed":%s,"localization":%s,"cameras":[%s]}'):format(
      robot.kind or "robot", o.world and tycho.viz.json(tostring(o.world)) or "null",
      num(o.seed), o.localization and tycho.viz.json(tostring(o.localization)) or "null", table.concat(cams, ",")))
    odom_now()
  end

  local step, drive, stop = robot.step, robot.drive, robot.stop
  if not robot.command then
    function robot.drive(v, w)
      tape.cmd_v, tape.cmd_w = v, w
      return drive(v, w)
    end
    function robot.stop(...)
      tape.cmd_v, tape.cmd_w = 0, 0
      return stop(...)
    end
  end
  local function stepped(...)
    if not tape.in_c then odom_now() end
    return ...
  end
  function robot.step(...) return stepped(step(...)) end
  local scan = robot.scan
  function robot.scan()
    local s, stamp, p = scan()
    if s and not tape.in_c then
      put_format("/raw/scan", SCAN, robot.time(), stamp, p and p.x, p and p.y, p and p.yaw, s.angle_min,
        s.angle_increment, s.range_min, s.range_max, s)
    end
    return s, stamp, p
  end
  local thermal = robot.thermal
  function robot.thermal(i)
    local f, stamp, p = thermal(i)
    if f and (i == 1 or i == 2) and not tape.in_c then
      put_format(THERMAL_TOPICS[i], THERMAL, robot.time(), stamp, p and p.x, p and p.y, p and p.yaw, f.seq, f)
    end
    return f, stamp, p
  end
  local wrappers = { step = robot.step, scan = robot.scan, thermal = robot.thermal }
  local L = robot.launcher
  if L then
    local spin, feed = L.spin, L.feed
    L.spin = function(on)
      local r = pack(spin(on))
      put("/raw/launcher", ('{"t":%s,"call":"spin","on":%s}'):format(num(robot.time()), tostring(on and true)))
      return unpack(r, 1, r.n)
    end
    L.feed = function()
      local shot, why = feed()
      put("/raw/launcher", ('{"t":%s,"call":"feed","fired":%s,"engaged":%s,"reason":%s}'):format(
        num(robot.time()), tostring(shot ~= nil), num(shot and shot.engaged),
        why and tycho.viz.json(tostring(why)) or "null"))
      return shot, why
    end
  end

  -- the simulator writes its samples itself when the one raw sink is a
  -- recording's writer (see sim:tap)
  local function tap_in_c(channels)
    local sim, sink = robot.sim, channels.raw_sinks[1]
    if not (o.clock and sim and sim.tap and #channels.raw_sinks == 1 and sink.emit_writer) then return false end
    local ids = sink.ids
    sim:tap(sink.emit_writer, o.clock,
      { odom = ids["/raw/odom"], scan = ids["/raw/scan"], thermal = { ids["/raw/thermal/1"], ids["/raw/thermal/2"] } },
      { odom = ODOM, scan = SCAN, thermal = THERMAL })
    -- counted with the other messages, and stopped before the file is closed
    channels:add_tap(function() return sim:untap() end)
    return true
  end

  --- Starts writing into the channels (the samples so far first).
  function tape.attach(self, channels)
    self.channels = channels
    for _, q in ipairs(self.queue) do channels:publish(q[1], q[2], q[3]) end
    self.queue = {}
    self.in_c = tap_in_c(channels)
    -- the sim writes them now: the robot's own functions back (a wrapper
    -- kept by someone still works, writing nothing)
    if self.in_c then
      for name, own in pairs { step = step, scan = scan, thermal = thermal } do
        if robot[name] == wrappers[name] then robot[name] = own end -- not if wrapped again since
      end
    end
  end
  return tape
end

-- replay --------------------------------------------------------------------------

local function float(v) return type(v) == "number" and v + 0.0 or v end

local function decode(topic, t, data)
  local ok, v = pcall(json_decode.decode, data)
  if not ok or type(v) ~= "table" then
    error(("%s at %.3f s: not JSON: %s"):format(topic, t, tostring(v)), 0)
  end
  for k, x in pairs(v) do v[k] = float(x) end
  return v
end

local function need(v, topic, ...)
  for _, k in ipairs { ... } do
    if type(v[k]) ~= "number" then
      error(("%s at %.3f s: field '%s' missing or not a number"):format(topic, v.t or -1, k), 0)
    end
  end
  return v
end

-- A topic's samples: the JSON texts as recorded, decoded one at a time as
-- the replay reaches them (decoded tables of a 15-minute run took 75 MB)
local Samples = {}
Samples.__index = Samples
local function samples(topic, fields) return setmetatable({ topic = topic, fields = fields, n = 0, t = {} }, Samples) end
function Samples:add(t, data) self.n = self.n + 1 self[self.n] = data self.t[self.n] = t end
--- Sample i decoded (nil past the end); raises naming the topic and time on a bad one.
function Samples:get(i)
  if i > self.n then return nil end
  if self.cached_i ~= i then
    self.cached = need(decode(self.topic, self.t[i], self[i]), self.topic, unpack(self.fields))
    self.cached_i = i
  end
  return self.cached
end

--- M.load(path) -> the raw samples of a recording (per topic, decoded as
-- they are used), or nil, err
function M.load(path)
  if type(path) ~= "string" then return nil, "replay: path expected, got " .. type(path) end
  local raw = { odom = samples("/raw/odom", { "t", "x", "y", "yaw", "v", "w" }),
                scan = samples("/raw/scan", { "t", "stamp", "angle_min", "angle_increment", "range_min", "range_max" }),
                thermal = { samples("/raw/thermal/1", { "t", "stamp" }), samples("/raw/thermal/2", { "t", "stamp" }) },
                launcher = samples("/raw/launcher", { "t" }) }
  local by_topic = { ["/raw/odom"] = raw.odom, ["/raw/scan"] = raw.scan, ["/raw/thermal/1"] = raw.thermal[1],
                     ["/raw/thermal/2"] = raw.thermal[2], ["/raw/launcher"] = raw.launcher }
  local ok, err = pcall(function()
    -- a recording cut short (the process died, the robot lost power) is
    -- played as far as it goes: the chunks written before the cut
    local info, rerr = tycho.mcap.read(path, function(topic, t, data)
      local list = by_topic[topic]
      if list then list:add(t, data)
      elseif topic == "/raw/robot" then raw.robot = decode(topic, t, data) end
    end, { cut_ok = true })
    if not info then error(rerr, 0) end
    raw.cut = info.cut and info.cut_offset or false
    -- every sample is checked before the mission starts, not when it gets there
    for _, list in pairs(by_topic) do
      for i = 1, list.n do list:get(i) end
    end
  end)
  if not ok then return nil, "replay: " .. tostring(err) end
  if raw.cut and (not raw.robot or raw.odom.n < 2) then
    return nil, ("replay: %s was cut short at byte %d, before any of its raw device samples were written (the first chunk)")
      :format(path, raw.cut)
  end
  if not raw.robot or raw.odom.n == 0 then
    return nil, ("replay: %s holds no raw device samples (/raw/robot, /raw/odom): record it with this version's --record")
      :format(path)
  end
  return raw
end

--- M.open(path, {log =}) -> robot | nil, err. The robot of robot_sim.lua's
-- interface, playing the recording: step() moves to the next recorded
-- step (the commands given are compared, not obeyed); scans and frames
-- come at the step they came in the recording. robot.replay holds the
-- comparison; robot.exhausted() is true once the recording has run out.
function M.open(path, o)
  o = o or {}
  local raw, err = M.load(path)
  if not raw then return nil, err end
  local meta = raw.robot
  local robot = { kind = "replay", replayed_kind = meta.kind, cameras = {} }
  for i, c in ipairs(meta.cameras or {}) do robot.cameras[i] = { yaw = float(c.yaw), fov = float(c.fov) } end
  local stats = { file = path, recorded_kind = meta.kind, world = meta.world or false, seed = meta.seed or false,
                  localization = type(meta.localization) == "string" and meta.localization or nil,
                  steps = 0, recorded_steps = raw.odom.n - 1, commands_differing = 0, first_divergence_s = false,
                  launches_unmatched = 0, ended_early = false, cut = raw.cut }
  robot.replay = stats
  local log = o.log
  if raw.cut and log then
    log:warn("replay: %s was cut short at byte %d (the recording did not finish): replaying its first %.1f s",
      path, raw.cut, raw.odom:get(raw.odom.n).t)
  end
  local history = tycho.odom_history() -- the simulator's own code (sim:odom_at)
  local k = 1                     -- the current /raw/odom record
  local cur = raw.odom:get(1)
  local next_scan, next_frame, next_launch = 1, { 1, 1 }, 1
  local cmd_v, cmd_w = 0, 0
  history:push(cur.t, cur.x, cur.y, cur.yaw)

  local function diverged(what)
    if not stats.first_divergence_s then
      stats.first_divergence_s = cur.t
      if log then log:warn("replay: decisions diverged at %.2f s: %s", cur.t, what) end
    end
  end

  function robot.time() return cur.t end
  function robot.pose() return cur.x, cur.y, cur.yaw end
  function robot.pose_at(t) return history:at(t) end
  function robot.imu() return cur.pitch or 0.0, cur.roll or 0.0, cur.yaw_rate or 0.0 end
  function robot.drive(v, w) cmd_v, cmd_w = v, w end
  function robot.stop() cmd_v, cmd_w = 0, 0 end
  function robot.safe_stop() cmd_v, cmd_w = 0, 0 end
  function robot.exhausted() return stats.ended_early end

  --- The next recorded step; the command given for it is checked against
  -- the recorded one.
  function robot.step()
    if k >= raw.odom.n then stats.ended_early = true return end
    k = k + 1
    local rec = raw.odom:get(k)
    stats.steps = stats.steps + 1
    if rec.v ~= cmd_v or rec.w ~= cmd_w then
      stats.commands_differing = stats.commands_differing + 1
      if not stats.first_divergence_s then
        cur = rec
        diverged(("commanded v %.4f w %.4f, recorded v %.4f w %.4f"):format(cmd_v, cmd_w, rec.v, rec.w))
      end
    end
    cur = rec
    history:push(cur.t, cur.x, cur.y, cur.yaw)
  end

  local function pose_of(s) return { x = s.x, y = s.y, yaw = s.yaw } end
  function robot.scan()
    local s = raw.scan:get(next_scan)
    if not s or s.t > cur.t then return nil end
    next_scan = next_scan + 1
    local ranges = tycho.viz.unpack(s.ranges, "f32")
    local scan = tycho.scan.new({ angle_min = s.angle_min, angle_increment = s.angle_increment,
                                  range_min = s.range_min, range_max = s.range_max }, ranges)
    return scan, s.stamp, pose_of(s)
  end
  function robot.thermal(i)
    local list = raw.thermal[i]
    local f = list and list:get(next_frame[i])
    if not f or f.t > cur.t then return nil end
    next_frame[i] = next_frame[i] + 1
    local frame = tycho.viz.unpack(f.pixels, "f64")
    frame.stamp, frame.seq, frame.camera = f.stamp, f.seq, i
    return frame, f.stamp, pose_of(f)
  end

  -- the launcher answers as it did; a call the recording does not have at
  -- this point is a divergence
  local function next_call(call)
    local l = raw.launcher:get(next_launch)
    if not l or l.call ~= call or l.t ~= cur.t then
      stats.launches_unmatched = stats.launches_unmatched + 1
      diverged(("launcher %s at a time the recording has none"):format(call))
      return nil
    end
    next_launch = next_launch + 1
    return l
  end
  robot.launcher = {
    spin = function() next_call("spin") return true end,
    feed = function()
      local l = next_call("feed")
      if not l then return nil, "replay: no recorded launch here" end
      if not l.fired then return nil, l.reason end
      return { fired = true, engaged = l.engaged and math.floor(l.engaged) or nil }
    end,
    state = function() return nil end,
  }
  return robot
end

return M
