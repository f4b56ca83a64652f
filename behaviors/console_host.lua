--- Puts the console beside a running scheduler: returns a `wait` hook for
-- sched:run{realtime = 1, wait = hook}, so the console reads keys while the
-- scheduler would otherwise sleep, and the control loop never waits for a
-- person. Log lines go through console:print so they do not garble the line
-- being typed.
--
--   local ch = ConsoleHost.new { env = env, host = host, history = path [, loop = io_loop] }
--   sched:run { realtime = 1, wait = ch.wait, until_fn = function() return ch.quit or done end }
--   ch:close()
local tycho = require "tycho"
local Repl = require "repl"

local ConsoleHost = {}
ConsoleHost.__index = ConsoleHost

local function default_history()
  local home = os.getenv("HOME")
  return home and (home .. "/.tycho_history") or nil
end

function ConsoleHost.new(o)
  local self = setmetatable({ quit = false }, ConsoleHost)
  local console
  -- sliced when served from an I/O loop: a long evaluation runs a slice per
  -- poll and the control loop keeps its ticks (lines typed meanwhile wait)
  local repl = Repl.new {
    env = o.env, host = o.host, sliced = o.loop ~= nil,
    print = function(s) if console then console:print(s) else io.write(s, "\n") end end,
  }
  console = tycho.console.open {
    prompt = repl:prompt(),
    history = o.history or default_history(),
    complete = function(word, line, pos) return repl:complete(word, line, pos) end,
  }
  self.console, self.repl = console, repl
  local queue = {}
  local function run_queued()
    while not repl:busy() and #queue > 0 do
      local line = table.remove(queue, 1)
      if line:match("^%s*:q") or line:match("^%s*:quit") or line:match("^%s*:exit") then
        self.quit = true
        return
      end
      repl:feed(line)
      if not repl:busy() then console:prompt(repl:prompt()) end
    end
  end
  local function poll(seconds)
    local lines, why = console:poll(seconds)
    if not lines then
      if why == "eof" then self.quit = true end
      return
    end
    for _, line in ipairs(lines) do queue[#queue + 1] = line end
    run_queued()
  end
  if o.loop then
    -- stdin is one descriptor among the attach clients'
    o.loop:add(0, function() poll(0) end)
    o.loop:add_idle(function(seconds)
      poll(0)
      if repl:busy() then
        local slice = seconds > 0 and math.max(0.002, math.min(seconds, Repl.SLICE_S)) or Repl.SLICE_S
        if not repl:step(slice) then
          console:prompt(repl:prompt())
          run_queued()
        end
      end
      return repl:busy()
    end)
    self.wait = o.loop.wait
  else
    self.wait = poll
  end
  return self
end

function ConsoleHost:print(s) self.console:print(s) end

function ConsoleHost:close() self.console:close() end

return ConsoleHost
