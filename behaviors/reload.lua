--- Hot reload of a state machine kept in its own file.
--
--   local r = Reloader.new { path = "behaviors/x_states.lua", ctx = ctx, log = log }
--   local def = assert(r:build())          -- at start-up
--   r:attach(machine)                       -- then
--   r:reload() -> true, msg | nil, err       -- on demand (console :reload)
--   r:watch(); r:check()                     -- on save (inotify), e.g. from a task
--
-- The file returns function(ctx) -> fsm definition. A reload compiles it,
-- runs it, builds the definition (fsm.define validates: every transition
-- targets a known state, every state has its handlers) and only then hands
-- it to Machine:replace, which keeps the current state (restarting its
-- coroutine with the new code) and the blackboard, or moves to the
-- fallback if the state is gone. Any failure on the way changes nothing:
-- the old behaviour keeps running and the error (file:line) is logged.
local tycho = require "tycho"

local Reloader = {}
Reloader.__index = Reloader

function Reloader.new(o)
  if type(o) ~= "table" or type(o.path) ~= "string" then
    error("bad argument #1 to 'Reloader.new' ({path = string, ctx = table} expected)", 2)
  end
  return setmetatable({ path = o.path, ctx = o.ctx or {}, log = o.log, reloads = 0, refused = 0 }, Reloader)
end

local function trim_traceback(msg) return (tostring(msg):gsub("\nstack traceback:.*$", "")) end

--- Builds the definition from the file -> def | nil, "file:line: message"
function Reloader:build()
  local chunk, err = loadfile(self.path)
  if not chunk then return nil, err end
  local ok, builder = xpcall(chunk, debug.traceback)
  if not ok then return nil, trim_traceback(builder) end
  if type(builder) ~= "function" then
    return nil, ("%s: must return function(ctx) -> state machine definition, returned %s"):format(
      self.path, type(builder))
  end
  local def
  ok, def = xpcall(builder, debug.traceback, self.ctx)
  if not ok then return nil, trim_traceback(def) end
  if type(def) ~= "table" then return nil, ("%s: the builder returned %s, not a definition"):format(self.path, type(def)) end
  return def
end

function Reloader:attach(machine) self.machine = machine end

--- Builds, validates and swaps in the new definition.
function Reloader:reload()
  local t0 = tycho.clock.monotonic()
  local def, err = self:build()
  local ok, msg
  if def then
    ok, msg = self.machine:replace(def)
    if not ok then err = table.concat(msg, "; ") end
  end
  if not ok then
    self.refused = self.refused + 1
    if self.log then self.log:error("reload refused, the old behaviour keeps running: %s", tostring(err)) end
    return nil, err
  end
  self.reloads = self.reloads + 1
  self.last_ms = (tycho.clock.monotonic() - t0) * 1000
  if self.log then self.log:info("reload: %s: %s (%.1f ms)", self.path, msg, self.last_ms) end
  return true, msg
end

--- Starts watching the file (inotify on its folder).
function Reloader:watch()
  self.watcher = tycho.watch { self.path }
  return self
end

--- Reloads if the file was saved since the last check -> nil | reload's results
function Reloader:check()
  if not self.watcher then return nil end
  if #self.watcher:poll() == 0 then return nil end
  return self:reload()
end

function Reloader:close()
  if self.watcher then self.watcher:close() self.watcher = nil end
end

return Reloader
