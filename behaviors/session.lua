--- The runtime around a mission or a console: one I/O loop serving the
-- local console (optional), the attach server (Unix socket by default, TCP
-- with a token when asked) and the log file. Missions and `tycho repl`
-- share it, so every way in behaves the same.
--
--   local opt = {}
--   i = Session.take_arg(args, i, opt) or ...      -- consumes --socket, --listen, ...
--   local s = Session.new { opt = opt, env = env, host = host, log = log, console = true }
--   sched:run { realtime = 1, wait = s.wait, until_fn = function() return s.quit end }
--   s:end_recording()  -- optional: the recording finishes while you write outputs
--   s:close()
local tycho = require "tycho"
local IoLoop = require "io_loop"

local Session = {}
Session.__index = Session

Session.USAGE = [[
  --socket PATH      the attach socket (default $XDG_RUNTIME_DIR/tycho/tycho-PID.sock,
                     or /tmp/tycho-UID/...); `tycho attach` finds it
  --no-socket        do not listen for `tycho attach`
  --listen HOST:PORT also accept `tycho attach --tcp` (127.0.0.1 unless told; needs --token-file)
  --token-file FILE  the shared secret for --listen (a file only you can read)
  --log-file PATH    also append log lines to PATH (with wall-clock time)
  --viz [HOST:]PORT  serve the channels to Foxglove / Lichtblick (WebSocket, default
                     127.0.0.1:8765): map, scan, frames, path, heat, thermal images, IMU,
                     state, log, the time, and the parameters (set with :set's checks)
  --record FILE.mcap record the channels (map, scan, frames, path, detections, thermal
                     images, IMU, commands, state, log) and the raw device samples (for
                     --replay) to an MCAP file
]]

--- The same options as declarations for cli.lua (a mission appends them to
-- its own); Session.from_cli(opt) turns the parsed values into Session.new's opt.
Session.OPTIONS = {
  { name = "socket", type = "string", metavar = "PATH",
    doc = "the attach socket (default $XDG_RUNTIME_DIR/tycho/tycho-PID.sock, or /tmp/tycho-UID/...); `tycho attach` finds it" },
  { name = "no-socket", type = "boolean", doc = "do not listen for `tycho attach`" },
  { name = "listen", type = "string", metavar = "HOST:PORT",
    doc = "also accept `tycho attach --tcp` (127.0.0.1 unless told; needs --token-file)" },
  { name = "token-file", type = "string", metavar = "FILE", doc = "the shared secret for --listen (a file only you can read)" },
  { name = "log-file", type = "string", metavar = "PATH", doc = "also append log lines to PATH (with wall-clock time)" },
  { name = "viz", type = "string", metavar = "[HOST:]PORT", bare = true,
    takes = function(v) return v:match("^%d+$") or v:match("^[%w%.%-]+:%d+$") or v:match("^%[.*%]:%d+$") end,
    doc = "serve the channels to Foxglove / Lichtblick (WebSocket, default 127.0.0.1:8765): map, scan, frames, path, heat, thermal images, IMU, state, log, the time, and the parameters (set with :set's checks)" },
  { name = "record", type = "string", metavar = "FILE.mcap",
    doc = "record the channels (map, scan, frames, path, detections, thermal images, IMU, commands, state, log) and the raw device samples (for --replay) to an MCAP file" },
}

--- Copies the session options parsed by cli.lua into the fields Session.new reads.
function Session.from_cli(opt)
  if opt["no-socket"] then opt.socket = false end
  opt.token_file, opt.log_file = opt["token-file"], opt["log-file"]
  return opt
end

local VALUED = { ["--socket"] = true, ["--listen"] = true, ["--token-file"] = true, ["--log-file"] = true,
                 ["--record"] = true }

--- If args[i] is a session option, stores it in opt and returns the index
-- after it; returns nil otherwise, or nil and a message for a missing value.
function Session.take_arg(args, i, opt)
  local a = args[i]
  if a == "--no-socket" then opt.socket = false return i + 1 end
  if a == "--viz" then
    -- the address is optional: taken when the next argument looks like one
    local v = args[i + 1]
    if type(v) == "string" and (v:match("^%d+$") or v:match("^[%w%.%-]+:%d+$") or v:match("^%[.*%]:%d+$")) then
      opt.viz = v
      return i + 2
    end
    opt.viz = true
    return i + 1
  end
  if VALUED[a] then
    if args[i + 1] == nil then return nil, a .. " needs a value" end
    opt[a:sub(3):gsub("%-", "_")] = args[i + 1]
    return i + 2
  end
  return nil
end

--- A log sink appending "wall-clock  [sim time] LEVEL tag: msg" lines.
function Session.log_file_sink(path)
  local f, err = io.open(path, "a")
  if not f then error(("--log-file: cannot open %s: %s"):format(path, tostring(err)), 0) end
  return {
    path = path,
    write = function(_, line)
      f:write(os.date("%Y-%m-%d %H:%M:%S "), line, "\n")
      f:flush()
    end,
    close = function() f:close() end,
  }
end

--- Session.new{opt =, env =, host =, log =, console = bool, history =, name =, socket_default = bool}
-- Errors (a socket in use, a bad token file) are raised as plain messages.
function Session.new(o)
  local opt = o.opt or {}
  local log = o.log
  local loop = IoLoop.new { on_error = function(msg)
    if log then log:error("%s", msg) else io.stderr:write(msg, "\n") end
  end }
  local self = setmetatable({ loop = loop, log = o.log, quit = false }, Session)
  self.wait = self.loop.wait
  if o.console then
    local ConsoleHost = require "console_host"
    self.console = ConsoleHost.new { env = o.env, host = o.host, history = o.history, loop = self.loop }
    if o.log then o.log:add_sink(function(line) self.console:print(line) end) end
  end
  if opt.log_file and o.log then
    self.file_sink = o.log:add_sink(Session.log_file_sink(opt.log_file))
  end
  local Channels = (opt.record or opt.viz) and require "channels"
  if opt.viz then
    local VizServer = require "viz_server"
    local host, port = VizServer.parse_address(opt.viz)
    if not host then error(port, 0) end
    host = host:match("^%[(.*)%]$") or host
    self.channels = Channels.new()
    self.viz = VizServer.new { loop = self.loop, host = host, port = port, log = o.log, name = o.name,
                               params = o.host and o.host.params }
    self.channels:add_sink(self.viz)
    self:print(("viz: Foxglove live view on ws://%s:%d"):format(host, self.viz.port))
  end
  if opt.record then
    -- the channels the robot publishes (behaviors/robot_channels.lua feeds them)
    if not tostring(opt.record):match("%.mcap$") then error("--record: the file name must end in .mcap", 0) end
    self.channels = self.channels or Channels.new()
    local sink, err = Channels.mcap_sink(opt.record)
    if not sink then error("--record: " .. tostring(err), 0) end
    self.channels:add_sink(sink, { raw = true })
    self.recording = sink
  end
  -- log lines on /log, for the viewer's Log panel and the recording
  if self.channels and o.log then
    self.channels_log_sink = o.log:add_sink(require("robot_channels").log_sink(self.channels))
  end
  local want_socket = opt.socket ~= false and (opt.socket or o.socket_default ~= false)
  if want_socket or opt.listen then
    local AttachServer = require "attach_server"
    self.server = AttachServer.new { loop = self.loop, env = o.env, host = o.host, log = o.log,
                                     socket = want_socket and opt.socket, name = o.name,
                                     listen = opt.listen, token_file = opt.token_file }
    if self.server.path then self:print("attach: tycho attach " .. self.server.path) end
    if self.server.port then
      self:print(("attach over TCP on %s:%d (token from %s)"):format(self.server.tcp_host, self.server.port,
        opt.token_file))
    end
  end
  return self
end

--- True when the person at the console asked to leave.
function Session:quitting() return self.console ~= nil and self.console.quit end

function Session:print(s)
  if self.console then self.console:print(s) else io.stdout:write(s, "\n") io.stdout:flush() end
end

--- Serves clients without waiting (for runs faster than real time, where
-- the scheduler never sleeps): at most every SERVICE_PERIOD of wall-clock
-- time, however many simulated seconds go by in it (a client cannot tell
-- 2 ms from no wait; a run 300 times faster than real time polled 30 times
-- a wall second per simulated second otherwise).
Session.SERVICE_PERIOD = 0.002
function Session:service()
  local now = tycho.clock.monotonic()
  if self.serviced and now - self.serviced < Session.SERVICE_PERIOD then return end
  self.serviced = now
  self.loop:poll(0)
end

--- The mission is over: the channels take nothing more, and a recording's
-- writer thread finishes and syncs its file while the mission writes its
-- outputs (close waits for it and reports).
function Session:end_recording()
  if self.channels then
    if self.channels_log_sink then self.log:remove_sink(self.channels_log_sink) end
    self.channels_log_sink = nil
    self.channels:close_start()
  end
end

function Session:close()
  if self.channels then
    self:end_recording()
    local ok, err = self.channels:close()
    local n = self.channels:message_count()
    if self.recording then
      if ok then self:print(("recorded %d messages to %s"):format(n, self.recording.path))
      else io.stderr:write("--record: ", tostring(err), "\n") end
    end
    self.channels = nil
  end
  if self.server then self.server:close() end
  if self.console then self.console:close() end
  if self.file_sink and self.log then self.log:remove_sink(self.file_sink) end
end

return Session
