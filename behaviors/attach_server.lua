--- The attach server: the robot's console over a Unix socket (and, when
-- asked, TCP with a token), for `tycho attach` from another terminal or a
-- laptop. Every client gets its own console (its own multi-line buffer)
-- over the runtime's one environment and host, so evaluation, completion
-- and pretty printing all happen on the robot; log lines stream to every
-- client.
--
-- Protocol (frames from tycho.net: 4-byte length, type byte, payload):
--   client -> robot   A token (TCP: must come first)   E line   C word\0line\0pos   Q
--   robot -> client   H hello   P prompt (ends each command's output)   O output
--                     S status of the line just run, before its P: "ok" or "failed"
--                     (a Lua error, a refused or unknown command; older clients ignore it)
--                     L log line   C candidates (one per line)   X error, then closed
--
--   local srv = AttachServer.new { loop = io_loop, env = env, host = host, log = log,
--                                  socket = path|true (default path)|false, listen = "127.0.0.1:7000", token_file = f,
--                                  limits = { pending = 16, ... } }
--   srv:close()
--
-- Limits (AttachServer.LIMITS; the threat is anyone who can reach the TCP
-- port, see README "Threat model"): a TCP connection that has not sent the
-- token is *pending*; at most `pending` of them are held, a new one beyond
-- that pushes out the oldest, and each gets `token_deadline_s` to
-- authenticate; its frames are limited to `pending_frame` bytes. At most
-- `clients` consoles at once (further ones are refused with an X frame).
-- Each client may have `out_limit` bytes of output queued; a client that
-- stops reading past that is dropped. Accepting is bounded per poll
-- (`accept_burst`) so a flood of connections cannot hold up the control
-- loop, and running out of descriptors (EMFILE) refuses the connection,
-- pauses accepting for `accept_pause_s` and is logged, never fatal. Drops
-- of unauthenticated connections are summed up in the log at most every
-- `note_every_s` seconds (a flood must not flood the log).
local tycho = require "tycho"
local Repl = require "repl"

local AttachServer = {}
AttachServer.__index = AttachServer

AttachServer.LIMITS = {
  pending = 16, token_deadline_s = 2, pending_frame = 4096, clients = 32, out_limit = 1024 * 1024,
  accept_burst = 64, accept_pause_s = 0.1, note_every_s = 10,
}

local function merge_limits(given)
  local out = {}
  for k, v in pairs(AttachServer.LIMITS) do out[k] = v end
  if given == nil then return out end
  if type(given) ~= "table" then error("attach: limits must be a table", 0) end
  for k, v in pairs(given) do
    if AttachServer.LIMITS[k] == nil then error(("attach: unknown limit '%s'"):format(tostring(k)), 0) end
    if type(v) ~= "number" or not (v > 0) or v == math.huge then
      error(("attach: limit %s must be a number > 0"):format(k), 0)
    end
    out[k] = v
  end
  return out
end

--- The socket path a runtime uses unless told otherwise.
function AttachServer.default_path()
  local dir, err = tycho.sys.runtime_dir()
  if not dir then return nil, err end
  return ("%s/tycho-%d.sock"):format(dir, tycho.sys.pid())
end

local function parse_hostport(s)
  local host, port = tostring(s):match("^([%w%.%-]*):(%d+)$")
  port = tonumber(port)
  if not port or port > 65535 then return nil end
  return host ~= "" and host or "127.0.0.1", port
end

function AttachServer.new(o)
  local self = setmetatable({ loop = o.loop, env = o.env, host = o.host or {}, log = o.log,
                              clients = {}, servers = {}, next_id = 0, name = o.name or "tycho",
                              pending = {}, n_authed = 0, paused = {},
                              dropped = { pending_cap = 0, deadline = 0, refused = 0, emfile = 0 },
                              last_note = -math.huge }, AttachServer)
  local function fail(msg) self:close() error(msg, 0) end
  self.limits = merge_limits(o.limits)
  if o.socket ~= false then
    local path = o.socket ~= true and o.socket or nil
    if not path then
      local err
      path, err = AttachServer.default_path()
      if not path then fail("attach socket: " .. tostring(err)) end
    end
    local srv, err = tycho.net.listen_unix(path)
    if not srv then fail("attach socket: " .. tostring(err)) end
    self.path = path
    self:_serve(srv, false)
  end
  if o.listen then
    local host, port = parse_hostport(o.listen)
    if not host then fail(("--listen: HOST:PORT expected, got '%s'"):format(tostring(o.listen))) end
    if not o.token_file then fail("--listen needs --token-file FILE (a secret only you can read)") end
    local token, err = tycho.net.read_secret(o.token_file)
    if not token then fail("--token-file: " .. tostring(err)) end
    self.token = token
    local srv
    srv, err = tycho.net.listen_tcp(host, port)
    if not srv then fail("--listen: " .. tostring(err)) end
    self.tcp_host, self.port = host, srv:port()
    self:_serve(srv, true)
  end
  if self.log then
    self.sink = function(line) self:broadcast("L", line) end
    self.log:add_sink(self.sink)
  end
  -- token deadlines, the drop summary and long evaluations on every poll
  self.loop:add_idle(function(seconds) return self:_sweep(seconds) end)
  return self
end

function AttachServer:_serve(srv, tcp)
  self.servers[#self.servers + 1] = srv
  local fd = srv:fd()
  local function on_ready()
    for _ = 1, self.limits.accept_burst do
      local conn, err, kind = srv:accept()
      if not conn then
        if err then self:_accept_failed(srv, fd, on_ready, err, kind) end
        break
      end
      self:_client(conn, tcp)
    end
  end
  self.loop:add(fd, on_ready)
end

-- Out of descriptors or another accept failure: the connection was refused
-- (in C); stop listening for a moment so the loop does not spin on it.
function AttachServer:_accept_failed(srv, fd, on_ready, err, kind)
  if kind == "emfile" then
    self.dropped.emfile = self.dropped.emfile + 1
    -- give a descriptor back: the oldest connection still without a token
    if self.pending[1] then
      self.dropped.pending_cap = self.dropped.pending_cap + 1
      self:drop(self.pending[1], "out of descriptors", true)
    end
  end
  self.accept_error = err
  self.loop:remove(fd)
  self.paused[#self.paused + 1] = { fd = fd, fn = on_ready, srv = srv,
                                    until_t = tycho.clock.monotonic() + self.limits.accept_pause_s }
  self:_summary(true)
end

function AttachServer:_note(fmt, ...)
  if self.log then self.log:info("attach: " .. fmt, ...) end
end

--- Logs what was dropped or refused without a word since the last summary
-- (at most every note_every_s seconds, unless `now_if_new`).
function AttachServer:_summary(force)
  local d = self.dropped
  local t = tycho.clock.monotonic()
  if d.pending_cap + d.deadline + d.refused + d.emfile == 0 then return end
  if not force and t - self.last_note < self.limits.note_every_s then return end
  if force and t - self.last_note < 1 then return end
  self.last_note = t
  if self.log then
    self.log:warn("attach: %d unauthenticated connection(s) pushed out (more than %d waiting), %d past the %g s "
      .. "token deadline, %d refused (%d consoles open), %d refused for lack of descriptors%s",
      d.pending_cap, self.limits.pending, d.deadline, self.limits.token_deadline_s, d.refused, self.n_authed,
      d.emfile, self.accept_error and (" (" .. self.accept_error .. ")") or "")
  end
  self.dropped = { pending_cap = 0, deadline = 0, refused = 0, emfile = 0 }
  self.accept_error = nil
end

-- A slice of one client's long evaluation per poll (round robin): the
-- time until the scheduler's next task, within [2 ms, Repl.SLICE_S].
function AttachServer:_step_evaluations(seconds)
  local busy = {}
  for _, c in pairs(self.clients) do
    if c.repl and c.repl:busy() then busy[#busy + 1] = c end
  end
  if #busy == 0 then return false end
  table.sort(busy, function(a, b) return a.id < b.id end)
  self.turn = (self.turn or 0) % #busy + 1
  local c = busy[self.turn]
  local slice = seconds > 0 and math.max(0.002, math.min(seconds, Repl.SLICE_S)) or Repl.SLICE_S
  if not c.repl:step(slice) then self:_evaluated(c) end
  return #busy > 1 or (c.repl ~= nil and c.repl:busy())
end

function AttachServer:_sweep(seconds)
  local more = self:_step_evaluations(seconds or 0)
  local t = tycho.clock.monotonic()
  -- pending connections past their deadline (the oldest are first)
  while self.pending[1] and t - self.pending[1].since > self.limits.token_deadline_s do
    local c = self.pending[1]
    self.dropped.deadline = self.dropped.deadline + 1
    self:drop(c, "authentication timeout", true)
  end
  -- listening again after an accept failure
  for i = #self.paused, 1, -1 do
    local p = self.paused[i]
    if t >= p.until_t then
      table.remove(self.paused, i)
      if pcall(p.srv.fd, p.srv) then self.loop:add(p.fd, p.fn) end
    end
  end
  self:_summary(false)
  return more
end

local function remove_pending(self, c)
  for i, p in ipairs(self.pending) do
    if p == c then table.remove(self.pending, i) return end
  end
end

function AttachServer:_client(conn, tcp)
  self.next_id = self.next_id + 1
  local c = { conn = conn, id = self.next_id, tcp = tcp, fd = conn:fd(), since = tycho.clock.monotonic() }
  if not tcp and conn:peer_uid() ~= tycho.sys.uid() then
    conn:send("X", "refused: not the robot's user")
    conn:close()
    return
  end
  conn:set_out_limit(self.limits.out_limit)
  if tcp then
    -- nothing but a token is expected: small frames, a deadline, a cap
    conn:set_limit(self.limits.pending_frame)
    if #self.pending >= self.limits.pending then
      self.dropped.pending_cap = self.dropped.pending_cap + 1
      self:drop(self.pending[1], "too many connections waiting to authenticate", true)
    end
    self.pending[#self.pending + 1] = c
  elseif self.n_authed >= self.limits.clients then
    return self:_refuse(c)
  end
  self.clients[c.fd] = c
  self.loop:add(c.fd, function() self:_receive(c) end)
  if not tcp then self:_welcome(c) end
end

function AttachServer:_refuse(c)
  self.dropped.refused = self.dropped.refused + 1
  pcall(c.conn.send, c.conn, "X", ("refused: %d consoles are open already"):format(self.n_authed))
  pcall(c.conn.flush, c.conn)
  c.conn:close()
end

function AttachServer:_welcome(c)
  c.authed = true
  self.n_authed = self.n_authed + 1
  c.repl = Repl.new { env = self.env, host = self.host, print = function(s) self:_send(c, "O", s) end,
                      sliced = true }
  c.queue = {}
  self:_send(c, "H", ("%s %s (%s), pid %d — :help for commands, :quit to detach"):format(
    self.name, tycho.version, tycho.lua, tycho.sys.pid()))
  self:_send(c, "P", c.repl:prompt())
  self:_note("client %d attached (%s)", c.id, c.tcp and "tcp" or "unix socket")
end

--- Drops a client (after telling it why, if it still listens). `quiet`:
-- not logged one by one (unauthenticated connections; see _summary).
function AttachServer:drop(c, why, quiet)
  if not self.clients[c.fd] or self.clients[c.fd] ~= c then return end
  self.clients[c.fd] = nil
  self.loop:remove(c.fd)
  if c.authed then self.n_authed = self.n_authed - 1 else remove_pending(self, c) end
  if why then
    pcall(c.conn.send, c.conn, "X", why)
    pcall(c.conn.flush, c.conn)
  end
  c.conn:close()
  if not quiet and (c.authed or why) then
    self:_note("client %d %s", c.id, why and ("dropped: " .. why) or "detached")
  end
end

function AttachServer:_send(c, t, payload)
  if not self.clients[c.fd] then return end
  local ok = c.conn:send(t, payload)
  if not ok then return self:drop(c) end -- the peer is gone or stopped reading
  if c.conn:backlog() > 0 then
    self.loop:want_write(c.fd, function()
      if self.clients[c.fd] and not c.conn:flush() then self:drop(c) end
    end)
  end
end

function AttachServer:broadcast(t, payload)
  for _, c in pairs(self.clients) do
    if c.authed then self:_send(c, t, payload) end
  end
end

local function split0(s)
  local a, b, c = s:match("^([^%z]*)%z([^%z]*)%z(%d+)$")
  return a or s, b or s, tonumber(c) or (#s + 1)
end

function AttachServer:_handle(c, t, payload)
  if not c.authed then
    -- TCP: the token first, compared in constant time, before anything runs
    if t == "A" and tycho.net.equal(payload, self.token) then
      remove_pending(self, c)
      if self.n_authed >= self.limits.clients then
        self.clients[c.fd] = nil
        self.loop:remove(c.fd)
        return self:_refuse(c)
      end
      c.conn:set_limit(tycho.net.frame_limit)
      return self:_welcome(c)
    end
    return self:drop(c, t == "A" and "authentication failed" or "authenticate first (frame A)")
  end
  if t == "E" then
    if c.repl:busy() then -- after the evaluation in progress
      c.queue[#c.queue + 1] = payload
      return
    end
    self:_evaluate(c, payload)
  elseif t == "C" then
    local ok, cands = pcall(c.repl.complete, c.repl, split0(payload))
    self:_send(c, "C", ok and table.concat(cands, "\n") or "")
  elseif t == "Q" then
    self:drop(c)
  else
    self:drop(c, ("unexpected frame type '%s'"):format(t))
  end
end

function AttachServer:_evaluate(c, payload)
  if payload:match("^%s*:q") or payload:match("^%s*:exit") or payload:match("^%s*:detach") then
    return self:drop(c)
  end
  local ok, err = pcall(c.repl.feed, c.repl, payload)
  if not ok then self:_send(c, "O", "error: " .. tostring(err)) end
  if not c.repl:busy() then
    self:_send(c, "S", (not ok or c.repl.failed) and "failed" or "ok")
    self:_send(c, "P", c.repl:prompt())
  end
end

-- A long evaluation is over: the prompt, then the lines that came meanwhile.
function AttachServer:_evaluated(c)
  if not self.clients[c.fd] then return end
  self:_send(c, "S", c.repl.failed and "failed" or "ok")
  self:_send(c, "P", c.repl:prompt())
  while self.clients[c.fd] and not c.repl:busy() and #c.queue > 0 do
    self:_evaluate(c, table.remove(c.queue, 1))
  end
end

function AttachServer:_receive(c)
  local frames, err = c.conn:recv()
  if not frames then return self:drop(c, err ~= "closed" and err or nil) end
  for _, f in ipairs(frames) do
    if not self.clients[c.fd] then return end
    self:_handle(c, f[1], f[2])
  end
end

function AttachServer:count() return self.n_authed end

--- Connections held that have not authenticated yet.
function AttachServer:pending_count() return #self.pending end

function AttachServer:close()
  local all = {}
  for _, c in pairs(self.clients) do all[#all + 1] = c end
  for _, c in ipairs(all) do self:drop(c, "the runtime is shutting down", not c.authed) end
  for _, srv in ipairs(self.servers) do
    pcall(function() self.loop:remove(srv:fd()) end)
    srv:close()
  end
  self.servers = {}
  self.paused = {}
  if self.sink and self.log then self.log:remove_sink(self.sink) end
end

return AttachServer
