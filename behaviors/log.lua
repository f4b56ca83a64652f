--- Logging with clock timestamps, sinks and a ring of recent lines; plus a
-- small JSON encoder for machine-readable output.
--
--   local log = require "log"
--   local L = log.new { clock = clock, level = "info" }   -- stderr sink by default
--   local S = L:child("state")
--   S:info("%s -> %s", "Explore", "Cluster")   --> [  12.34s] INFO  state: Explore -> Cluster
--   L:add_sink(log.file_sink("out/run.log"))
--   local attach = L:add_sink(log.list_sink(500))  -- lines for a later attach client
--   L:attach(scheduler)   -- task and coroutine errors are logged as ERROR
--
-- A sink is a function(line, record) or a table with :write(line, record);
-- record = {t=, level=, tag=, msg=}. Logging never raises: a bad format
-- string or a failing sink is reported inline instead.
local log = {}

log.LEVELS = { debug = 10, info = 20, warn = 30, error = 40 }
local LABEL = { [10] = "DEBUG", [20] = "INFO", [30] = "WARN", [40] = "ERROR" }

local function level_value(l, argn)
  local v = log.LEVELS[l]
  if not v then
    error(("bad argument #%d (level debug, info, warn or error expected, got %s)"):format(
      argn, tostring(l)), 3)
  end
  return v
end

-- Accepts a tycho.clock, a scheduler, anything with :now(), or a function.
local function clock_fn(c)
  if c == nil then
    local ok, tycho = pcall(require, "tycho")
    if ok and tycho.clock then
      local wall = tycho.clock.new { mode = "wall" }
      return function() return wall:now() end
    end
    local t0 = os.clock()
    return function() return os.clock() - t0 end
  end
  if type(c) == "function" then return c end
  local ok, now = pcall(function() return c.now end)
  if ok and type(now) == "function" then return function() return c:now() end end
  error("bad field 'clock' (tycho.clock, scheduler, object with :now() or function expected)", 3)
end

--- Formats one line: "[  12.34s] INFO  tag: message".
function log.format(t, level, tag, msg)
  return ("[%7.2fs] %-5s %s%s"):format(t, LABEL[level] or tostring(level),
    tag and (tag .. ": ") or "", msg)
end

local Logger = {}
Logger.__index = Logger

--- log.new{clock =, level = "info", sinks = {...} (default {log.stderr_sink()}), ring = 200}
-- Log lines go to stderr by default: stdout is for results and summaries,
-- so a tool's output can be piped while its log stays on the terminal.
function log.new(opts)
  opts = opts or {}
  if type(opts) ~= "table" then error("bad argument #1 to 'log.new' (table expected)", 2) end
  local ring = opts.ring or 200
  if type(ring) ~= "number" or ring < 0 then error("bad field 'ring' (number >= 0 expected)", 2) end
  local core = {
    now = clock_fn(opts.clock),
    level = level_value(opts.level or "info", 1),
    sinks = opts.sinks or { log.stderr_sink() },
    ring = {}, ring_size = math.floor(ring), ring_pos = 0, ring_count = 0,
  }
  return setmetatable({ core = core }, Logger)
end

--- A logger sharing sinks, level, clock and ring, prefixing "tag: ".
function Logger:child(tag)
  if type(tag) ~= "string" then error("bad argument #1 to 'child' (string tag expected)", 2) end
  return setmetatable({ core = self.core, tag = self.tag and (self.tag .. "." .. tag) or tag }, Logger)
end

function Logger:set_level(l) self.core.level = level_value(l, 1) end
function Logger:set_clock(c) self.core.now = clock_fn(c) end
function Logger:enabled(l) return (log.LEVELS[l] or 0) >= self.core.level end

local function write_sink(s, line, rec)
  if type(s) == "function" then return pcall(s, line, rec) end
  return pcall(s.write, s, line, rec)
end

local function message(fmt, ...)
  if select("#", ...) == 0 then return tostring(fmt) end
  local ok, msg = pcall(string.format, tostring(fmt), ...)
  if ok then return msg end
  local parts = { tostring(fmt) }
  for i = 1, select("#", ...) do parts[#parts + 1] = tostring((select(i, ...))) end
  return table.concat(parts, " ") .. " (bad log format: " .. tostring(msg) .. ")"
end

--- logger:log(level, fmt, ...) -> the line, or nil when below the level.
function Logger:log(level, fmt, ...)
  local core = self.core
  local lv = log.LEVELS[level] or level_value(level, 1)
  if lv < core.level then return nil end
  local okt, t = pcall(core.now)
  if not okt or type(t) ~= "number" then t = 0 end
  local msg = message(fmt, ...)
  local line = log.format(t, lv, self.tag, msg)
  local rec = { t = t, level = level, tag = self.tag, msg = msg }
  if core.ring_size > 0 then
    core.ring_pos = core.ring_pos % core.ring_size + 1
    core.ring[core.ring_pos] = line
    if core.ring_count < core.ring_size then core.ring_count = core.ring_count + 1 end
  end
  for _, s in ipairs(core.sinks) do
    local ok, err = write_sink(s, line, rec)
    if not ok then io.stderr:write("log: sink failed: ", tostring(err), "\n") end
  end
  return line
end

function Logger:debug(...) return self:log("debug", ...) end
function Logger:info(...) return self:log("info", ...) end
function Logger:warn(...) return self:log("warn", ...) end
function Logger:error(...) return self:log("error", ...) end

function Logger:add_sink(s)
  if type(s) ~= "function" and not (type(s) == "table" and type(s.write) == "function") then
    error("bad argument #1 to 'add_sink' (function or table with :write expected)", 2)
  end
  local sinks = self.core.sinks
  sinks[#sinks + 1] = s
  return s
end

function Logger:remove_sink(s)
  local sinks = self.core.sinks
  for i = #sinks, 1, -1 do
    if sinks[i] == s then
      table.remove(sinks, i)
      if type(s) == "table" and s.close then pcall(s.close, s) end
      return true
    end
  end
  return false
end

--- The last n lines (default all kept), oldest first.
function Logger:recent(n)
  local core = self.core
  local count = core.ring_count
  n = math.min(n or count, count)
  local out = {}
  for i = count - n + 1, count do
    -- the i-th oldest line sits ring_pos - count + i (wrapped)
    local idx = (core.ring_pos - count + i - 1) % core.ring_size + 1
    out[#out + 1] = core.ring[idx]
  end
  return out
end

--- Routes a scheduler's task errors (and so coroutine and fsm errors) here.
function Logger:attach(sched)
  local lg = self
  sched:on_error(function(name, msg) lg:error("task '%s' failed: %s", name, msg) end)
  return self
end

-- Sinks ------------------------------------------------------------------------

--- Standard output, line-buffered: under systemd or a pipe the lines show
-- as they happen, not when a buffer fills (or never, if the robot dies).
function log.stdout_sink()
  io.stdout:setvbuf("line")
  return function(line) io.stdout:write(line, "\n") end
end

function log.stderr_sink()
  return function(line) io.stderr:write(line, "\n") end
end

--- Appends to a file (flushed per line, so a crash keeps the log).
function log.file_sink(path, mode)
  local f, err = io.open(path, mode or "a")
  if not f then error(("log.file_sink: cannot open %s: %s"):format(tostring(path), tostring(err)), 2) end
  local s = { path = path }
  function s.write(_, line)
    f:write(line, "\n")
    f:flush()
  end
  function s.close() if f then f:close() f = nil end end
  return s
end

--- Keeps the last `max` lines in s.lines (oldest first), e.g. for attach clients.
function log.list_sink(max)
  max = max or 1000
  local s = { lines = {}, max = max }
  function s.write(self, line)
    local lines = self.lines
    lines[#lines + 1] = line
    if #lines > self.max then table.remove(lines, 1) end
  end
  return s
end

--- One JSON object per line: {"t":..,"level":..,"tag":..,"msg":..}.
-- target: a path (appended) or an object with :write(string).
function log.json_sink(target)
  local f = target
  if type(target) == "string" then
    local err
    f, err = io.open(target, "a")
    if not f then error(("log.json_sink: cannot open %s: %s"):format(target, tostring(err)), 2) end
  end
  local s = {}
  function s.write(_, _, rec)
    f:write(log.json(rec), "\n")
    if f.flush then f:flush() end
  end
  function s.close() if type(target) == "string" and f then f:close() f = nil end end
  return s
end

-- JSON -----------------------------------------------------------------------

--- log.json(value) -> string: json.encode (valid UTF-8, shortest numbers,
-- sorted keys; an empty table is [] unless marked json.object).
function log.json(v)
  return require("json").encode(v)
end

return log
