--- Channels: the topics a running robot publishes for people to watch (the
-- Foxglove live view) and to keep (MCAP recordings), JSON-encoded with the
-- Foxglove schemas (viz/schemas). One publisher, several sinks; each topic
-- has a minimum period so a fast loop never floods a viewer or a file.
--
--   local ch = Channels.new()
--   ch:add_sink(assert(Channels.mcap_sink("run.mcap")))
--   if ch:due("/scan", t) then ch:emit("/scan", t, "scan", scan, "laser") end
--   if ch:due("/state", t) then ch:publish("/state", t, { state = "Explore" }) end
--   ch:close()
--
-- emit hands over a message's inputs (a recording copies them and encodes
-- on its writer's thread, so the robot's loop does not); publish takes
-- text or a table. A sink is a table with advertise(self, topic,
-- schema_name, schema_json), publish(self, topic, t, data), close(self)
-- and, to take emit's inputs itself, emit(self, topic, t, kind, ...)
-- returning whether it wrote; channels are advertised to
-- every sink when it is added. A sink with live = true (the viewer) is paced
-- by the wall clock as well (Channels.LIVE_SLACK); the others (a recording)
-- get every message the periods allow in the mission's time.
local tycho = require "tycho"

local Channels = {}
Channels.__index = Channels

--- topic -> schema and minimum period in seconds (0: every change). Rates
-- from the viewer's needs: maps at most 1 Hz (and only when changed),
-- scans and thermal images 5 Hz, poses 20 Hz.
Channels.TOPICS = {
  { topic = "/map", schema = "foxglove.Grid", period = 1.0 },
  { topic = "/costmap", schema = "foxglove.Grid", period = 1.0 },
  { topic = "/scan", schema = "foxglove.LaserScan", period = 0.2 },
  { topic = "/tf", schema = "foxglove.FrameTransforms", period = 0.05 },
  { topic = "/path", schema = "foxglove.PosesInFrame", period = 0.2 },
  { topic = "/trail", schema = "foxglove.PosesInFrame", period = 1.0 },
  { topic = "/scene", schema = "foxglove.SceneUpdate", period = 1.0 },
  { topic = "/fleet", schema = "foxglove.SceneUpdate", period = 0.2 }, -- fleet: robots, routes, goals, reservations
  { topic = "/points", schema = "foxglove.PointCloud", period = 0.5 },  -- terrain: the last 3D LiDAR sweep
  { topic = "/terrain", schema = "foxglove.PointCloud", period = 1.0 }, -- terrain: the height map, once
  { topic = "/thermal/1", schema = "foxglove.RawImage", period = 0.2 },
  { topic = "/thermal/2", schema = "foxglove.RawImage", period = 0.2 },
  { topic = "/imu", schema = "tycho.Imu", period = 0.05 },
  { topic = "/cmd_vel", schema = "tycho.Command", period = 0.05 },
  { topic = "/state", schema = "tycho.State", period = 0 },
  { topic = "/log", schema = "foxglove.Log", period = 0 },
}

local function source_dir()
  local src = debug.getinfo(1, "S").source
  return (src:match("^@(.*)/[^/]+$")) or "."
end

--- Folder of the JSON Schemas: $TYCHO_VIZ_SCHEMAS, else viz/schemas in the
-- runtime's data folder (the source tree, or share/tycho when installed),
-- else beside behaviors/.
function Channels.schema_dir()
  local env = os.getenv("TYCHO_VIZ_SCHEMAS")
  if env and env ~= "" then return env end
  local ok, home = pcall(function() return tycho.home and tycho.home() end)
  if ok and type(home) == "table" and type(home.data) == "string" and home.data ~= "" then
    return home.data .. "/viz/schemas"
  end
  return source_dir() .. "/../viz/schemas"
end

local schema_cache = {}
--- The JSON Schema text of a schema name; raises naming the file if missing.
function Channels.schema(name)
  if schema_cache[name] then return schema_cache[name] end
  local path = Channels.schema_dir() .. "/" .. name .. ".json"
  local f, err = io.open(path, "rb")
  if not f then error("channels: schema " .. name .. ": " .. tostring(err), 0) end
  local text = f:read("*a")
  f:close()
  schema_cache[name] = text
  return text
end

-- the shortest period of a periodic topic
Channels.MIN_PERIOD = math.huge
for _, t in ipairs(Channels.TOPICS) do
  if t.period > 0 then Channels.MIN_PERIOD = math.min(Channels.MIN_PERIOD, t.period) end
end

--- The raw device samples (behaviors/robot_replay.lua writes them): every
-- sample as the robot delivered it, for recordings only (a viewer has no use
-- for them, a replay needs every one).
Channels.RAW_TOPICS = {}
for _, t in ipairs(require("robot_replay").TOPICS) do
  Channels.RAW_TOPICS[#Channels.RAW_TOPICS + 1] = { topic = t.topic, schema = t.schema, period = 0, raw = true }
end

--- A live sink (sink.live = true: the viewer) gets a topic at most once per
-- this fraction of its period of wall-clock time, whatever the simulation's
-- speed: a person watches at wall-clock pace, and a run 300 times faster
-- than real time would otherwise build and send 300 seconds of messages
-- every second for a viewer that can draw one. (Not the whole period: at
-- real-time pace the ticks fall a few milliseconds either side of it.)
Channels.LIVE_SLACK = 0.8

--- Channels.new() -> channels (no sinks yet: nothing is encoded until one is added)
function Channels.new()
  local self = setmetatable({ sinks = {}, raw_sinks = {}, topics = {}, last = {}, counts = {},
                              generation = 0, emitters = {}, kept = 0, last_live = {}, wall = tycho.clock.monotonic }, Channels)
  for _, t in ipairs(Channels.TOPICS) do self.topics[t.topic] = t end
  for _, t in ipairs(Channels.RAW_TOPICS) do self.topics[t.topic] = t end
  return self
end

--- Adds a sink; {raw = true} also gives it the raw device samples.
function Channels:add_sink(sink, o)
  if type(sink) ~= "table" or type(sink.publish) ~= "function" or type(sink.advertise) ~= "function" then
    error("bad argument #1 to 'add_sink' (sink with advertise and publish expected)", 2)
  end
  for _, t in ipairs(Channels.TOPICS) do sink:advertise(t.topic, t.schema, Channels.schema(t.schema)) end
  if o and o.raw then
    for _, t in ipairs(Channels.RAW_TOPICS) do sink:advertise(t.topic, t.schema, Channels.schema(t.schema)) end
    self.raw_sinks[#self.raw_sinks + 1] = sink
  end
  self.sinks[#self.sinks + 1] = sink
  if not sink.live then self.kept = self.kept + 1 end
  self.generation = self.generation + 1 -- emitters look at the sinks again
  return sink
end

-- True when the live sinks may have a topic now (wall-clock pacing).
local function live_due(self, spec)
  if spec.period == 0 then return true end
  local last = self.last_live[spec.topic]
  return last == nil or self.wall() - last >= spec.period * Channels.LIVE_SLACK
end

--- False when only live sinks listen and the wall clock has not moved on by
-- the smallest period since they last got something: nothing periodic can
-- be due (a feeder returns early, at every tick of a fast run).
function Channels:live_window()
  if self.kept > 0 then return true end
  local now = self.wall()
  if self.window and now - self.window < Channels.MIN_PERIOD * Channels.LIVE_SLACK then return false end
  self.window = now
  return true
end

--- True when some sink takes the raw device samples.
function Channels:records_raw() return #self.raw_sinks > 0 end

--- True when some sink listens and the topic's period has passed since its
-- last message (in the mission's time; with live sinks alone, in wall-clock
-- time too).
function Channels:due(topic, t)
  local spec = self.topics[topic]
  if not spec then error("channels: unknown topic '" .. tostring(topic) .. "'", 2) end
  -- called for every topic at every tick: the common answer (not yet) first
  local last = self.last[topic]
  if last and t - last < spec.period - 1e-9 and t >= last then return false end
  if self.kept > 0 then return true end
  return #self.sinks > 0 and live_due(self, spec)
end

--- The earliest mission time at which one of these topics may be due
-- again (its last message plus its period; never sent: now).
function Channels:next_due(topics)
  local at = math.huge
  for i = 1, #topics do
    local topic = topics[i]
    local last = self.last[topic]
    if not last then return -math.huge end
    local due = last + self.topics[topic].period - 1e-9
    if due < at then at = due end
  end
  return at
end

--- Publishes JSON text (a string) or a table (encoded here) on a topic at time t.
function Channels:publish(topic, t, data)
  local spec = self.topics[topic]
  if not spec then error("channels: unknown topic '" .. tostring(topic) .. "'", 2) end
  if type(data) == "table" then data = tycho.viz.json(data) end
  if type(data) ~= "string" then error("bad argument #3 to 'publish' (string or table expected)", 2) end
  self.last[topic] = t
  self.counts[topic] = (self.counts[topic] or 0) + 1
  if spec.raw then
    for _, s in ipairs(self.raw_sinks) do s:publish(topic, t, data) end
    return
  end
  local live = nil -- whether the live sinks take this one (asked once)
  for _, s in ipairs(self.sinks) do
    if s.live then
      if live == nil then
        live = live_due(self, spec)
        if live then self.last_live[topic] = self.wall() end
      end
      if live then s:publish(topic, t, data) end
    else
      s:publish(topic, t, data)
    end
  end
end

-- the encoders of Channels:emit, for sinks that take text (a viewer): the
-- recording's writer encodes the same messages itself, on its own thread
local ENCODE = {
  grid = function(t, grid, frame) return tycho.viz.grid(grid, t, frame) end,
  scan = function(t, scan, frame) return tycho.viz.scan(scan, t, frame) end,
  image = function(t, values, w, h, lo, hi, frame) return tycho.viz.image(values, w, h, lo, hi, t, frame) end,
  poses = function(t, points, frame, max) return tycho.viz.poses(points, t, frame, max) end,
  format = function(t, template, ...) return tycho.viz.format(template, t, ...) end,
  join = function(_, ...)
    local parts = { ... }
    for i, p in ipairs(parts) do
      if type(p) == "table" then parts[i] = table.concat(p, ",")
      elseif type(p) == "userdata" then parts[i] = p:text() end -- a tycho.viz.text_window
    end
    return table.concat(parts)
  end,
}

-- False when a sink that takes text got this very grid last on this topic
-- (a grid goes out only when its cells changed); true for other kinds
local function grid_changed(sink, topic, kind, grid)
  if kind ~= "grid" then return true end
  local key = tycho.viz.digest(grid)
  sink.grid_seen = sink.grid_seen or {}
  if sink.grid_seen[topic] == key then return false end
  sink.grid_seen[topic] = key
  return true
end

--- Publishes the message an encoder makes from these inputs (kind "grid",
-- "scan", "image", "poses" or "format", the arguments of tycho.viz's
-- function of that name without the time; or "join", the message's
-- strings in order, a list of strings or a tycho.viz.text_window standing
-- for them joined with ","). A recording copies the inputs
-- and encodes them on its writer's thread; other sinks get the text,
-- encoded here once. A grid goes to each sink only when it changed since
-- the last one that sink got. True when some sink took the message.
function Channels:emit(topic, t, kind, ...)
  local spec = self.topics[topic]
  if not spec then error("channels: unknown topic '" .. tostring(topic) .. "'", 2) end
  local encode = ENCODE[kind]
  if not encode then error("channels: unknown message kind '" .. tostring(kind) .. "'", 2) end
  local sent, text, live = false, nil, nil
  local sinks = spec.raw and self.raw_sinks or self.sinks
  for i = 1, #sinks do
    local s = sinks[i]
    local writer = s.emit_writer -- a recording (mcap_sink): its writer takes the inputs
    if writer then
      if not s.error then
        local ok, err = writer[kind](writer, s.ids[topic], t, ...)
        if ok then sent = true elseif ok == nil then s.error = err end
      end
    elseif s.emit then
      if s:emit(topic, t, kind, ...) then sent = true end
    else
      if s.live and not spec.raw and live == nil then live = live_due(self, spec) end
      if live ~= false and grid_changed(s, topic, kind, ...) then
        text = text or encode(t, ...)
        s:publish(topic, t, text)
        sent = true
        if s.live then self.last_live[topic] = self.wall() end
      end
    end
  end
  if sent then
    self.last[topic] = t
    self.counts[topic] = (self.counts[topic] or 0) + 1
  end
  return sent
end

--- Adds a tap: messages written to a recording by C code on their own
-- (the simulator's raw samples, robot_replay.lua); stop() -> messages
-- written, error, called when the channels close (before the sinks are).
function Channels:add_tap(stop)
  if type(stop) ~= "function" then error("bad argument #1 to 'add_tap' (function expected)", 2) end
  self.taps = self.taps or {}
  self.taps[#self.taps + 1] = stop
end

--- Messages published so far (a tap's counted once the channels close).
function Channels:message_count()
  local n = self.tapped or 0
  for _, c in pairs(self.counts) do n = n + c end
  for _, count in ipairs(self.emitters) do n = n + count() end
  return n
end

--- The recording (an mcap_sink: its emit_writer and channel ids) when it is
-- the one sink of the viewer's topics (raw: of the raw samples), else nil.
-- Look again when ch.generation changes.
function Channels:sole_recording(raw)
  local sinks = raw and self.raw_sinks or self.sinks
  return #sinks == 1 and sinks[1].emit_writer and sinks[1] or nil
end

--- ch:emitter(topic, kind) -> emit(t, ...): ch:emit(topic, t, kind, ...)
-- for one topic and kind, for a feeder that sends them many times a
-- second. When a recording is the one sink, its writer is called straight
-- away (the sinks looked up once, not at every message; the messages
-- counted here, in message_count).
function Channels:emitter(topic, kind)
  local spec = self.topics[topic]
  if not spec then error("channels: unknown topic '" .. tostring(topic) .. "'", 2) end
  if not ENCODE[kind] then error("channels: unknown message kind '" .. tostring(kind) .. "'", 2) end
  local last, n = self.last, 0
  self.emitters[#self.emitters + 1] = function() return n end
  local seen, sink, writer, id, method -- the sinks as last looked at
  return function(t, ...)
    if seen ~= self.generation then
      seen = self.generation
      sink = self:sole_recording(spec.raw)
      if sink then writer, id = sink.emit_writer, sink.ids[topic] method = writer[kind] end
    end
    if not sink then return self:emit(topic, t, kind, ...) end
    if sink.error then return false end
    local ok, err = method(writer, id, t, ...)
    if ok then
      last[topic], n = t, n + 1
      return true
    end
    if ok == nil then sink.error = err end
    return false
  end
end

--- Starts closing: the taps stop and every sink starts closing (a
-- recording's writer thread finishes and syncs its file while the caller
-- goes on, writing its own outputs); close() waits for them and reports.
function Channels:close_start()
  self.generation = self.generation + 1
  local closing = self.closing or { sinks = {}, problems = {} }
  self.closing = closing
  for _, stop in ipairs(self.taps or {}) do
    local n, err = stop()
    self.tapped = (self.tapped or 0) + (n or 0)
    if err then closing.problems[#closing.problems + 1] = err end
  end
  self.taps = nil
  for _, s in ipairs(self.sinks) do
    if s.close_start then s:close_start() end
    closing.sinks[#closing.sinks + 1] = s
  end
  self.sinks, self.raw_sinks, self.kept = {}, {}, 0
end

--- Closes the sinks (started by close_start, or now): true, or nil and
-- what went wrong.
function Channels:close()
  self:close_start()
  local closing = self.closing
  local problems = closing.problems
  for _, s in ipairs(closing.sinks) do
    local ok, err = s:close()
    if not ok and err then problems[#problems + 1] = err end
  end
  self.closing = nil
  if #problems > 0 then return nil, table.concat(problems, "; ") end
  return true
end

-- message helpers ---------------------------------------------------------------

--- sec, nsec of t seconds (rounded to the nanosecond).
function Channels.sec_nsec(t)
  local sec = math.floor(t)
  local nsec = math.floor((t - sec) * 1e9 + 0.5)
  if nsec >= 1000000000 then sec, nsec = sec + 1, nsec - 1000000000 end
  return sec, nsec
end

--- {sec, nsec} of t seconds.
function Channels.stamp(t)
  local sec, nsec = Channels.sec_nsec(t)
  return { sec = sec, nsec = nsec }
end

--- A quaternion rotating by yaw about z.
function Channels.yaw_q(yaw)
  return { x = 0, y = 0, z = math.sin(yaw / 2), w = math.cos(yaw / 2) }
end

function Channels.pose(x, y, yaw, z)
  return { position = { x = x, y = y, z = z or 0 }, orientation = Channels.yaw_q(yaw or 0) }
end

function Channels.transform(t, parent, child, x, y, yaw)
  return { timestamp = Channels.stamp(t), parent_frame_id = parent, child_frame_id = child,
           translation = { x = x, y = y, z = 0 }, rotation = Channels.yaw_q(yaw) }
end

--- foxglove.PosesInFrame of a list of {x, y[, yaw]} points.
function Channels.poses(t, frame, pts)
  local poses = {}
  for i, p in ipairs(pts) do poses[i] = Channels.pose(p.x, p.y, p.yaw or 0) end
  return { timestamp = Channels.stamp(t), frame_id = frame, poses = poses }
end

local LOG_LEVEL = { debug = 1, info = 2, warn = 3, error = 4 }
--- foxglove.Log of a log record (log.lua's {t, level, tag, msg}).
function Channels.log_message(rec)
  return { timestamp = Channels.stamp(math.max(0, rec.t or 0)), level = LOG_LEVEL[rec.level] or 0,
           message = tostring(rec.msg), name = rec.tag or "tycho", file = "", line = 0 }
end

-- the MCAP sink -------------------------------------------------------------------

--- Channels.mcap_sink(path [, mcap options]) -> sink | nil, err
-- A write that fails (a full disk) ends the recording with an error kept
-- in sink.error; the robot carries on.
function Channels.mcap_sink(path, o)
  -- the messages are written by the writer's own thread (the same file):
  -- the robot's loop only copies them
  local opts = { threaded = true }
  for k, v in pairs(o or {}) do opts[k] = v end
  local w, err = tycho.mcap.open(path, opts)
  if not w then return nil, err end
  local sink = { path = path, writer = w, ids = {}, schema_ids = {} }
  function sink.advertise(s, topic, schema_name, schema_json)
    local sid = s.schema_ids[schema_name]
    if not sid then
      sid = s.writer:schema(schema_name, "jsonschema", schema_json)
      s.schema_ids[schema_name] = sid
    end
    s.ids[topic] = s.writer:channel(topic, sid, "json")
  end
  function sink.publish(s, topic, t, data)
    if s.error or not s.writer then return end
    local ok, werr = s.writer:write(s.ids[topic], t, data)
    if not ok then s.error = werr end
  end
  -- Channels:emit calls the writer itself (one Lua call a message fewer)
  sink.emit_writer = w
  function sink.emit(s, topic, t, kind, ...)
    local writer = s.writer
    if not writer or s.error then return false end
    local ok, werr = writer[kind](writer, s.ids[topic], t, ...)
    if ok == nil then s.error = werr end
    return ok
  end
  function sink.close_start(s)
    if s.writer then s.writer:close_start() end
  end
  function sink.close(s)
    if not s.writer then return true end
    local ok, cerr = s.writer:close()
    s.writer, s.emit_writer = nil, nil
    if s.error then return nil, s.error end
    return ok, cerr
  end
  return sink
end

return Channels
