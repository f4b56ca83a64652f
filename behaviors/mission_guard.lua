--- What every mission needs around its loop so that signals and full disks
-- lose nothing (issue 14). A mission calls it in a few places:
--
--   local guard = require("mission_guard").install("heat_seek")
--   local ok, err = guard.check_out(opt.out)     -- before the mission starts
--   sched:run { until_fn = function() return done or guard:stop_requested() end, ... }
--   robot.safe_stop()
--   summary.end_reason = guard:end_reason("completed")
--   guard:write_json(opt.out .. "/summary.json", summary)   -- atomic, checked
--   guard:save("map.png", pic.save, pic, path)               -- any saver, checked
--   return guard:exit_code(summary.completed and 0 or 1)
--
-- Signals: SIGINT and SIGTERM no longer kill the process; the first one asks
-- the mission to stop (stop_requested() turns true: the loop ends, the robot
-- is stopped safely, the outputs are written with "end_reason": "signal
-- SIGTERM", sockets are removed on close) and the exit status is 128 + the
-- signal's number, as if it had killed the process. A second one while the
-- first is being handled ends the process at once. SIGPIPE is ignored: with
-- stdout piped into `head -1`, printing fails quietly and the mission goes
-- on to write its outputs (exit status as usual). SIGXFSZ is ignored too, so
-- a file-size limit is a write error like a full disk.
--
-- Outputs: every file goes through tycho.write_atomic (temp file, fsync,
-- rename: the previous file stays whole until the new one is complete);
-- a failed write is printed with the file's name and makes the exit status
-- 1 (unless a signal's status applies).
local tycho = require "tycho"
local logmod = require "log"

local Guard = {}
Guard.__index = Guard

--- Guard.install(name) -> guard. Catches the signals from here on.
function Guard.install(name)
  if type(name) ~= "string" then error("bad argument #1 to 'install' (mission name expected)", 2) end
  tycho.sys.catch_signals()
  local self = setmetatable({ name = name, failed_writes = {} }, Guard)
  Guard.current = self -- the console's os.exit stops the mission through it
  return self
end

--- True once a signal arrived or stop() was called (the console's os.exit).
function Guard:stop_requested()
  if not self.signal then
    local name, number = tycho.sys.signal_pending()
    if name then self.signal, self.signal_number = name, number end
  end
  return self.signal ~= nil or self.stop_reason ~= nil
end

--- Asks the mission to stop as a signal would, with its own reason and exit status.
function Guard:stop(reason, code)
  if type(reason) ~= "string" then error("bad argument #1 to 'stop' (reason expected)", 2) end
  if code ~= nil and (type(code) ~= "number" or code % 1 ~= 0) then error("bad argument #2 to 'stop' (integer expected)", 2) end
  self.stop_reason, self.stop_code = reason, code
end

--- Why the mission ended: "signal SIGTERM", the stop() reason, or `otherwise`.
function Guard:end_reason(otherwise)
  self:stop_requested()
  if self.signal then return "signal " .. self.signal end
  return self.stop_reason or otherwise
end

--- The process's exit status: 128 + N after signal N, else 1 if an output
-- could not be written and `code` was 0, else `code`.
function Guard:exit_code(code)
  self:stop_requested()
  if self.signal then return 128 + self.signal_number end
  if self.stop_reason and self.stop_code then return self.stop_code end
  if code == 0 and #self.failed_writes > 0 then return 1 end
  return code
end

--- Guard.check_out(dir) -> true | nil, message. The output folder: not
-- empty, not the root, created if missing, and a file can be written there
-- (checked by writing one), all before the mission starts.
function Guard.check_out(dir)
  if type(dir) ~= "string" or dir == "" then return nil, "--out: an empty path (give a folder)" end
  local trimmed = dir:gsub("/+$", "")
  if trimmed == "" then return nil, "--out: refusing to write into / (give a folder)" end
  local ok, err = tycho.sys.mkdir(trimmed)
  if not ok then return nil, "--out: " .. tostring(err) end
  local probe = trimmed .. "/.tycho-write-check"
  ok, err = tycho.write_atomic(probe, "")
  if not ok then return nil, ("--out: %s is not writable: %s"):format(dir, tostring(err)) end
  os.remove(probe)
  return true
end

function Guard:_failed(what, err)
  local msg = ("%s: could not write %s: %s"):format(self.name, what, tostring(err))
  self.failed_writes[#self.failed_writes + 1] = msg
  io.stderr:write(msg, "\n")
  return nil, msg
end

--- Writes text to path atomically; true, or nil and the message (also printed).
function Guard:write(path, text)
  if type(path) ~= "string" or type(text) ~= "string" then
    error("bad arguments to 'write' (path and text expected)", 2)
  end
  local ok, err = tycho.write_atomic(path, text)
  if not ok then return self:_failed(path, err) end
  return true
end

--- Writes a table as JSON (log.json) to path atomically.
function Guard:write_json(path, t)
  return self:write(path, logmod.json(t) .. "\n")
end

--- Runs a saver (fn(...) that raises or returns nil, err on failure), checked.
function Guard:save(what, fn, ...)
  if type(fn) ~= "function" then error("bad argument #2 to 'save' (function expected)", 2) end
  local ok, res, err = pcall(fn, ...)
  if not ok then return self:_failed(what, res) end
  if not res then return self:_failed(what, err) end
  return true
end

--- Failed writes so far (messages).
function Guard:failures() return self.failed_writes end

return Guard
