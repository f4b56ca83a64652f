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
--                     L log line   C candidates (one per line)   X error, then closed
--
--   local srv = AttachServer.new { loop = io_loop, env = env, host = host, log = log,
--                                  socket = path|true (default path)|false, listen = "127.0.0.1:7000", token_file = f }
--   srv:close()
local tycho = require "tycho"
local Repl = require "repl"

local AttachServer = {}
AttachServer.__index = AttachServer

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
                              clients = {}, servers = {}, next_id = 0, name = o.name or "tycho" }, AttachServer)
  local function fail(msg) self:close() error(msg, 0) end
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
  return self
end

function AttachServer:_serve(srv, tcp)
  self.servers[#self.servers + 1] = srv
  self.loop:add(srv:fd(), function()
    while true do
      local conn = srv:accept()
      if not conn then break end
      self:_client(conn, tcp)
    end
  end)
end

function AttachServer:_note(fmt, ...)
  if self.log then self.log:info("attach: " .. fmt, ...) end
end

function AttachServer:_client(conn, tcp)
  self.next_id = self.next_id + 1
  local c = { conn = conn, id = self.next_id, tcp = tcp, fd = conn:fd() }
  if not tcp and conn:peer_uid() ~= tycho.sys.uid() then
    conn:send("X", "refused: not the robot's user")
    conn:close()
    return
  end
  c.repl = Repl.new { env = self.env, host = self.host, print = function(s) self:_send(c, "O", s) end }
  self.clients[c.fd] = c
  self.loop:add(c.fd, function() self:_receive(c) end)
  if not tcp then self:_welcome(c) end
end

function AttachServer:_welcome(c)
  c.authed = true
  self:_send(c, "H", ("%s %s (%s), pid %d — :help for commands, :quit to detach"):format(
    self.name, tycho.version, tycho.lua, tycho.sys.pid()))
  self:_send(c, "P", c.repl:prompt())
  self:_note("client %d attached (%s)", c.id, c.tcp and "tcp" or "unix socket")
end

--- Drops a client (after telling it why, if it still listens).
function AttachServer:drop(c, why)
  if not self.clients[c.fd] then return end
  self.clients[c.fd] = nil
  self.loop:remove(c.fd)
  if why then
    pcall(c.conn.send, c.conn, "X", why)
    pcall(c.conn.flush, c.conn)
  end
  c.conn:close()
  if c.authed or why then self:_note("client %d %s", c.id, why and ("dropped: " .. why) or "detached") end
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
    if t == "A" and tycho.net.equal(payload, self.token) then return self:_welcome(c) end
    return self:drop(c, t == "A" and "authentication failed" or "authenticate first (frame A)")
  end
  if t == "E" then
    if payload:match("^%s*:q") or payload:match("^%s*:exit") or payload:match("^%s*:detach") then
      return self:drop(c)
    end
    local ok, err = pcall(c.repl.feed, c.repl, payload)
    if not ok then self:_send(c, "O", "error: " .. tostring(err)) end
    self:_send(c, "P", c.repl:prompt())
  elseif t == "C" then
    local ok, cands = pcall(c.repl.complete, c.repl, split0(payload))
    self:_send(c, "C", ok and table.concat(cands, "\n") or "")
  elseif t == "Q" then
    self:drop(c)
  else
    self:drop(c, ("unexpected frame type '%s'"):format(t))
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

function AttachServer:count()
  local n = 0
  for _, c in pairs(self.clients) do if c.authed then n = n + 1 end end
  return n
end

function AttachServer:close()
  for _, c in pairs(self.clients) do self:drop(c, "the runtime is shutting down") end
  for _, srv in ipairs(self.servers) do
    pcall(function() self.loop:remove(srv:fd()) end)
    srv:close()
  end
  self.servers = {}
  if self.sink and self.log then self.log:remove_sink(self.sink) end
end

return AttachServer
