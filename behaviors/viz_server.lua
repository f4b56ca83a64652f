--- The Foxglove live view: a server for the Foxglove WebSocket protocol
-- (subprotocol foxglove.websocket.v1, github.com/foxglove/ws-protocol) on
-- the session's I/O loop, and a sink of the channels (behaviors/channels.lua):
-- every channel is advertised with its JSON Schema, subscribed viewers get
-- its messages. Capabilities: `time` (the mission's clock, so the viewer
-- follows the simulation at any speed), `parameters` and
-- `parametersSubscribe` (the mission's parameters, set with the same checks
-- as the console's :set; a refused set is reported back, never applied).
--
-- Nothing here waits: a viewer's messages queue in C (tycho.ws) and go out
-- when its socket takes them; a viewer that falls behind by more than its
-- queue limit loses messages, and one that stops reading for STALL_S is
-- disconnected. The robot never waits for a viewer.
local tycho = require "tycho"
local json = require "json_decode"

local VizServer = {}
VizServer.__index = VizServer

VizServer.DEFAULT_HOST, VizServer.DEFAULT_PORT = "127.0.0.1", 8765
-- bytes a viewer may have queued before its messages are dropped, and
-- seconds of dropping before it is disconnected ($TYCHO_VIZ_QUEUE_LIMIT,
-- $TYCHO_VIZ_STALL_S change them: a slow link, or a test)
VizServer.QUEUE_LIMIT = math.max(1024, tonumber(os.getenv("TYCHO_VIZ_QUEUE_LIMIT") or "") or 4 * 1024 * 1024)
VizServer.STALL_S = tonumber(os.getenv("TYCHO_VIZ_STALL_S") or "") or 5
VizServer.TIME_PERIOD = 0.05            -- time messages at most 20 per second of the mission's clock

--- "[HOST:]PORT" -> host, port | nil, message
function VizServer.parse_address(s)
  if s == nil or s == true then return VizServer.DEFAULT_HOST, VizServer.DEFAULT_PORT end
  local host, port = tostring(s):match("^(.*):(%d+)$")
  if not host then host, port = VizServer.DEFAULT_HOST, tostring(s):match("^(%d+)$") end
  port = tonumber(port)
  if not port or port > 65535 or host == "" then
    return nil, ("--viz: expected [HOST:]PORT, got '%s'"):format(tostring(s))
  end
  return host, port
end

--- VizServer.new{loop =, host =, port =, params = (a params group, optional), log =, name =}
-- Raises a plain message when the port cannot be opened.
function VizServer.new(o)
  local srv, err = tycho.ws.listen(o.host or VizServer.DEFAULT_HOST, o.port or VizServer.DEFAULT_PORT)
  if not srv then error("--viz: cannot listen on " .. tostring(err), 0) end
  local self = setmetatable({
    loop = o.loop, srv = srv, log = o.log, params = o.params, name = o.name or "tycho",
    host = o.host or VizServer.DEFAULT_HOST, port = srv:port(),
    channels = {}, by_topic = {}, clients = {}, last_time = nil, session = tostring(os.time()),
    dirty = {},
    live = true, -- channels.lua paces a live sink by the wall clock too
  }, VizServer)
  -- what was queued since the last poll is written once per poll of the
  -- loop, not once per message: one send() for many messages
  self.loop:add_idle(function()
    for cl in pairs(self.dirty) do
      self.dirty[cl] = nil
      self:_pump(cl)
    end
    return false
  end)
  self.loop:add(srv:fd(), function() self:_accept() end)
  if self.params then
    self.unwatch = self.params:on_change("*", function(value, _, name) self:_param_changed(name, value) end)
  end
  return self
end

function VizServer:_warn(fmt, ...)
  if self.log then self.log:warn("viz: " .. fmt, ...) end
end

-- sink interface (channels.lua) --------------------------------------------------

function VizServer:advertise(topic, schema_name, schema_json)
  local ch = { id = #self.channels + 1, topic = topic, encoding = "json", schemaName = schema_name,
               schema = schema_json, schemaEncoding = "jsonschema" }
  self.channels[ch.id] = ch
  self.by_topic[topic] = ch
  ch.subs = {} -- client -> subscription id
end

function VizServer:publish(topic, t, data)
  local ch = self.by_topic[topic]
  if not ch then return end
  if not self.last_time or t - self.last_time >= VizServer.TIME_PERIOD or t < self.last_time then
    self.last_time = t
    for cl in pairs(self.clients) do
      if cl.greeted then self:_send(cl, cl.conn:send_time(t)) end
    end
  end
  -- the newest message of each channel is kept (the string, no copy) for
  -- a viewer that subscribes later: maps, scene and state change rarely
  ch.last_t, ch.last = t, data
  for cl, sub in pairs(ch.subs) do self:_send(cl, cl.conn:send_message(sub, t, data)) end
end

--- Bytes queued for the most behind viewer (a replay waits on it instead of
-- letting the queue limit drop messages; a live robot never waits).
function VizServer:backlog()
  local most = 0
  for cl in pairs(self.clients) do
    local q = cl.conn:queued()
    if q > most then most = q end
  end
  return most
end

function VizServer:close()
  for cl in pairs(self.clients) do self:_drop(cl) end
  if self.unwatch then self.unwatch() end
  self.loop:remove(self.srv:fd())
  self.srv:close()
  return true
end

-- clients ---------------------------------------------------------------------------

function VizServer:_accept()
  while true do
    local conn, err = self.srv:accept()
    if not conn then
      if err then self:_warn("accept: %s", err) end
      return
    end
    conn:set_queue_limit(VizServer.QUEUE_LIMIT)
    local cl = { conn = conn, fd = conn:fd(), subs = {}, param_subs = {} }
    self.clients[cl] = true
    self.loop:add(cl.fd, function() self:_readable(cl) end)
  end
end

function VizServer:_drop(cl, why)
  if not self.clients[cl] then return end
  self.clients[cl] = nil
  self.dirty[cl] = nil
  for _, ch in ipairs(self.channels) do ch.subs[cl] = nil end
  self.loop:remove(cl.fd)
  cl.conn:close()
  if why and self.log then self.log:info("viz: viewer left (%s)", why) end
end

-- queues went well, or note the drop; write what the socket takes
function VizServer:_send(cl, queued)
  if queued == false and cl.greeted then
    cl.stall_since = cl.stall_since or tycho.clock.monotonic()
    if tycho.clock.monotonic() - cl.stall_since > VizServer.STALL_S then
      return self:_drop(cl, ("not reading: %d messages dropped"):format(cl.conn:dropped()))
    end
  elseif queued then
    cl.stall_since = nil
  end
  self.dirty[cl] = true
end

function VizServer:_pump(cl)
  if cl.waiting_write or not self.clients[cl] then return end
  if cl.conn:flush() then
    cl.waiting_write = true
    self.loop:want_write(cl.fd, function()
      cl.waiting_write = false
      self:_pump(cl)
    end)
  end
end

-- protocol messages (server info, channels, parameters, status) are never
-- dropped: a viewer cannot work without them, and they are few
function VizServer:_text(cl, t)
  self:_send(cl, cl.conn:send_text(tycho.viz.json(t), true))
end

function VizServer:_status(cl, level, message, id)
  self:_text(cl, { op = "status", level = level, message = message, id = id })
end

function VizServer:_readable(cl)
  local texts, err = cl.conn:service()
  if not texts then
    self:_pump(cl) -- a refused handshake's answer
    return self:_drop(cl, err)
  end
  if not cl.greeted and cl.conn:is_open() then
    cl.greeted = true
    if self.log then self.log:info("viz: viewer connected") end
    local caps = self.params and { "time", "parameters", "parametersSubscribe" } or { "time" }
    self:_text(cl, { op = "serverInfo", name = self.name, capabilities = caps,
                     supportedEncodings = { "json" }, sessionId = self.session })
    local list = {}
    for i, ch in ipairs(self.channels) do
      list[i] = { id = ch.id, topic = ch.topic, encoding = ch.encoding, schemaName = ch.schemaName,
                  schema = ch.schema, schemaEncoding = ch.schemaEncoding }
    end
    self:_text(cl, { op = "advertise", channels = list })
    if self.last_time then self:_send(cl, cl.conn:send_time(self.last_time)) end
  end
  for _, text in ipairs(texts) do
    local ok, msg = pcall(json.decode, text)
    if not ok or type(msg) ~= "table" or type(msg.op) ~= "string" then
      self:_status(cl, 2, "not a protocol message: " .. tostring(ok and "no op" or msg))
    else
      local handler = VizServer.ops[msg.op]
      if handler then
        local hok, herr = pcall(handler, self, cl, msg)
        if not hok then self:_status(cl, 2, ("%s: %s"):format(msg.op, tostring(herr)), msg.id) end
      else
        self:_status(cl, 1, "unsupported operation '" .. msg.op .. "'")
      end
    end
  end
  self:_pump(cl)
end

-- client operations ---------------------------------------------------------------------

local function param_list(self, names)
  local out = {}
  if not self.params then return out end
  if names == nil or #names == 0 then
    for _, p in ipairs(self.params:list()) do out[#out + 1] = { name = p.name, value = p.value } end
  else
    for _, name in ipairs(names) do
      local v = self.params:spec(name) and self.params:get(name)
      if v ~= nil then out[#out + 1] = { name = name, value = v } end
    end
  end
  return out
end

VizServer.ops = {}

function VizServer.ops.subscribe(self, cl, msg)
  for _, s in ipairs(msg.subscriptions or {}) do
    local ch = self.channels[tonumber(s.channelId) or -1]
    if not ch or type(s.id) ~= "number" then
      self:_status(cl, 1, ("subscribe: no channel %s"):format(tostring(s.channelId)))
    else
      cl.subs[s.id] = ch
      ch.subs[cl] = s.id
      if ch.last then self:_send(cl, cl.conn:send_message(s.id, ch.last_t, ch.last)) end
    end
  end
end

function VizServer.ops.unsubscribe(_, cl, msg)
  for _, id in ipairs(msg.subscriptionIds or {}) do
    local ch = cl.subs[id]
    if ch then
      ch.subs[cl] = nil
      cl.subs[id] = nil
    end
  end
end

function VizServer.ops.getParameters(self, cl, msg)
  self:_text(cl, { op = "parameterValues", parameters = param_list(self, msg.parameterNames), id = msg.id })
end

-- each parameter through params:set, the console's :set checks; refused ones
-- are reported with a status message and keep their value
function VizServer.ops.setParameters(self, cl, msg)
  local names = {}
  for _, p in ipairs(msg.parameters or {}) do
    names[#names + 1] = p.name
    if not self.params then
      self:_status(cl, 2, ("refused: %s: this runtime has no parameters"):format(tostring(p.name)), msg.id)
    else
      local ok, err = self.params:set(p.name, p.value)
      if not ok then self:_status(cl, 2, "refused: " .. tostring(err), msg.id)
      elseif self.log then self.log:info("viz: parameter %s = %s (from a viewer)", p.name, tostring(p.value)) end
    end
  end
  if msg.id ~= nil then
    self:_text(cl, { op = "parameterValues", parameters = param_list(self, names), id = msg.id })
  end
end

function VizServer.ops.subscribeParameterUpdates(_, cl, msg)
  for _, name in ipairs(msg.parameterNames or {}) do cl.param_subs[name] = true end
end

function VizServer.ops.unsubscribeParameterUpdates(_, cl, msg)
  for _, name in ipairs(msg.parameterNames or {}) do cl.param_subs[name] = nil end
end

function VizServer:_param_changed(name, value)
  for cl in pairs(self.clients) do
    if cl.param_subs[name] then
      self:_text(cl, { op = "parameterValues", parameters = { { name = name, value = value } } })
    end
  end
end

--- Connected viewers (for the console and tests).
function VizServer:viewer_count()
  local n = 0
  for cl in pairs(self.clients) do if cl.greeted then n = n + 1 end end
  return n
end

return VizServer
