--- One wait for everything with a file descriptor: the console's stdin,
-- the attach server and its clients. The scheduler calls loop.wait(seconds)
-- when it has nothing to run (sched:run{wait = loop.wait}); a missed event
-- costs nothing but the next poll, and the control loop never blocks on a
-- person or a socket.
--
--   local loop = IoLoop.new()
--   loop:add(fd, function(fd) ... end)        -- readable
--   loop:want_write(fd, function(fd) ... end) -- once, when writable
--   loop.wait(0.05)
local tycho = require "tycho"

local IoLoop = {}
IoLoop.__index = IoLoop

function IoLoop.new()
  local self = setmetatable({ readers = {}, writers = {}, idle = {} }, IoLoop)
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

function IoLoop:want_write(fd, fn) self.writers[fd] = fn end

--- fn() runs at the start of every poll (e.g. the console redrawing its
-- prompt once a command's output is out).
function IoLoop:add_idle(fn) self.idle[#self.idle + 1] = fn end

local function sorted_keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out)
  return out
end

--- Waits up to `seconds` for any descriptor, then runs the handlers of the
-- ready ones (in descriptor order, so runs are reproducible).
function IoLoop:poll(seconds)
  for _, fn in ipairs(self.idle) do fn() end
  local rfds, wfds = sorted_keys(self.readers), sorted_keys(self.writers)
  if #rfds == 0 and #wfds == 0 then return end
  local ready = tycho.net.wait(rfds, seconds or 0, wfds)
  for _, fd in ipairs(wfds) do
    local fn = self.writers[fd]
    if ready[fd] and fn then
      self.writers[fd] = nil
      fn(fd)
    end
  end
  for _, fd in ipairs(rfds) do
    local fn = self.readers[fd]
    if ready[fd] and fn then fn(fd) end
  end
end

return IoLoop
