--- One wait for everything with a file descriptor: the console's stdin,
-- the attach server and its clients. The scheduler calls loop.wait(seconds)
-- when it has nothing to run (sched:run{wait = loop.wait}); a missed event
-- costs nothing but the next poll, and the control loop never blocks on a
-- person or a socket.
--
--   local loop = IoLoop.new { on_error = function(msg) log:error("%s", msg) end }
--   loop:add(fd, function(fd) ... end)        -- readable
--   loop:want_write(fd, function(fd) ... end) -- once, when writable
--   loop.wait(0.05)
--
-- Nothing a handler does ends the loop: a handler's error goes to on_error
-- (default: stderr) and the loop carries on; a failed poll (no memory, a
-- descriptor set the system refuses) is reported the same way, at most once
-- a second, and the wait is slept out instead of spinning.
local tycho = require "tycho"

local IoLoop = {}
IoLoop.__index = IoLoop

local function default_error(msg) io.stderr:write("io loop: ", msg, "\n") end

function IoLoop.new(o)
  o = o or {}
  if type(o) ~= "table" then error("bad argument #1 to 'IoLoop.new' (table or nil expected)", 2) end
  if o.on_error ~= nil and type(o.on_error) ~= "function" then
    error("bad field 'on_error' to 'IoLoop.new' (function expected)", 2)
  end
  local self = setmetatable({ readers = {}, writers = {}, idle = {}, on_error = o.on_error or default_error,
                              last_poll_error = -math.huge }, IoLoop)
  self.wait = function(seconds) return self:poll(seconds) end
  return self
end

function IoLoop:add(fd, fn)
  if type(fd) ~= "number" or type(fn) ~= "function" then
    error("bad arguments to 'add' (fd number and function expected)", 2)
  end
  self.readers[fd] = fn
end

function IoLoop:remove(fd)
  self.readers[fd] = nil
  self.writers[fd] = nil
end

function IoLoop:want_write(fd, fn)
  if type(fd) ~= "number" or type(fn) ~= "function" then
    error("bad arguments to 'want_write' (fd number and function expected)", 2)
  end
  self.writers[fd] = fn
end

--- fn(seconds) runs at the start of every poll, with the time the poll may
-- take (e.g. the console redrawing its prompt once a command's output is
-- out, or running a slice of a long evaluation); returning true says it has
-- more to do, and the poll then does not wait.
function IoLoop:add_idle(fn)
  if type(fn) ~= "function" then error("bad argument #1 to 'add_idle' (function expected)", 2) end
  self.idle[#self.idle + 1] = fn
end

local function sorted_keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out)
  return out
end

local traceback = debug and debug.traceback or tostring

function IoLoop:_call(fn, ...)
  local ok, res = xpcall(fn, traceback, ...)
  if not ok then pcall(self.on_error, "handler failed: " .. tostring(res)) return nil end
  return res
end

--- Waits up to `seconds` for any descriptor, then runs the handlers of the
-- ready ones (in descriptor order, so runs are reproducible).
function IoLoop:poll(seconds)
  seconds = seconds or 0
  local t0 = tycho.clock.monotonic()
  local busy = false
  for _, fn in ipairs(self.idle) do busy = self:_call(fn, seconds) == true or busy end
  -- what the idle work took comes off the wait; more of it waiting: no wait
  seconds = busy and 0 or math.max(0, seconds - (tycho.clock.monotonic() - t0))
  local rfds, wfds = sorted_keys(self.readers), sorted_keys(self.writers)
  if #rfds == 0 and #wfds == 0 then
    if seconds > 0 then tycho.net.wait({}, seconds) end -- nothing to watch: sleep, do not spin
    return
  end
  local ready, err = tycho.net.wait(rfds, seconds, wfds)
  if not ready then
    local now = tycho.clock.monotonic()
    if now - self.last_poll_error >= 1 then
      self.last_poll_error = now
      pcall(self.on_error, ("%s (%d descriptors); carrying on"):format(tostring(err), #rfds + #wfds))
    end
    tycho.net.wait({}, seconds or 0)
    return
  end
  for _, fd in ipairs(wfds) do
    local fn = self.writers[fd]
    if ready[fd] and fn then
      self.writers[fd] = nil
      self:_call(fn, fd)
    end
  end
  for _, fd in ipairs(rfds) do
    local fn = self.readers[fd]
    if ready[fd] and fn then self:_call(fn, fd) end
  end
end

return IoLoop
