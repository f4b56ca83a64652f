--- The mission skeleton: the one runner every mission script is built on
-- (after Nav2's bt_navigator: a generic runner, and a mission that plugs
-- into it). The runner owns what every mission does the same way:
--
--   * the command line: the mission's options + the parameter options
--     (--set, --params [--json|--yaml], --params-file, --strict, generated
--     from the params schema) + the session's (--socket, --viz, --record,
--     ...); --help; exit 2 with one line on bad usage;
--   * the signal guard (SIGINT/SIGTERM end the run with its outputs
--     written), the output folder's check;
--   * the clock, the scheduler and the log;
--   * the session: the console (--repl), `tycho attach`, --viz, --record,
--     and feeding the channels at 20 Hz;
--   * the run loop: as fast as it goes, at wall-clock pace (--realtime, on
--     the robot), or with the console beside it (:pause, :step N, :resume);
--     --paused starts it paused, so a console attaches before anything moves;
--   * the exit code (0 done, 1 failed, 2 bad usage; a signal's own code).
--
-- A mission gives hooks (only `name`, `options`, `start` and `finish` are
-- required):
--
--   return require("mission").run {
--     name = "heat_seek", usage_line = "--world WORLD.lua [options]", epilog = "...",
--     options = OPTIONS,            -- cli.lua declarations of the mission's own options; the
--                                   -- runner reads --realtime, --repl, --speed, --quiet and
--                                   -- --out when the mission declares them
--     params = P,                   -- its params group (omit: no parameter options)
--     defaults = function(opt, P) end,  -- before --set/--params-file apply
--     check = function(opt) return "a usage problem" end,  -- nil when fine
--     out = function(opt) return "out/" .. name end,        -- the default output folder
--     clock = function(opt) return "sim" end,               -- or "wall" (a robot)
--     start = function(m) ... end,  -- load the world or robot, set up the tasks on m.sched;
--                                   -- return nil to go on, or an exit code
--     host = ..., env = ...,        -- set on m by start: what the console and attach see
--                                   -- (the runner adds :pause, :resume, :step unless `run` is given)
--     halt = function() end,        -- set on m by start for a robot that moves by itself (hardware):
--                                   -- the runner's :pause calls it to stop the wheels at once,
--                                   -- and again after the tasks a :step N ran
--     feeder = ...,                 -- set by m:channels(fn) from start
--     done = function(m) return finished end,
--     time_limit = function(m) return seconds end,
--     pace = function(opt) return speed end,  -- simulated s per wall s (default: --realtime's 1, or none)
--     run = function(m) return reason end,  -- instead of the runner's loop (terrain_nav; --paused
--                                   -- then needs the mission's own m.host.pause)
--     finish = function(m, reason) return 0 or 1 end,  -- outputs, summary lines
--   }
--
-- m (the mission's handle) carries opt, spec, guard, clock, sched, log,
-- now(), wall0 (tycho.clock.monotonic() at the start, moved on by pauses), session, and the
-- console's pause/step state.
local tycho = require "tycho"
local cli = require "cli"
local params_cli = require "params_cli"
local Session = require "session"
local logmod = require "log"
local MissionGuard = require "mission_guard"

local M = {}

--- The runner's own options (after the mission's, before the session's).
M.OPTIONS = {
  { name = "paused", type = "boolean",
    doc = "start paused: nothing moves until :resume (or :step N) from the console (--repl) or `tycho attach`"
      .. " (turns the attach socket on)" },
}

local KNOWN = { name = true, usage_line = true, epilog = true, options = true, params = true, defaults = true,
                check = true, out = true, clock = true, start = true, done = true, time_limit = true, run = true,
                finish = true, argv = true, socket_default = true, pace = true }

local function check_def(def)
  if type(def) ~= "table" then error("bad argument #1 to 'mission.run' (table expected)", 3) end
  for k in pairs(def) do
    if not KNOWN[k] then error(("mission.run: unknown field '%s'"):format(tostring(k)), 3) end
  end
  for _, k in ipairs { "start", "finish" } do
    if type(def[k]) ~= "function" then error(("mission.run: '%s' must be a function"):format(k), 3) end
  end
  if type(def.name) ~= "string" or type(def.options) ~= "table" then
    error("mission.run: 'name' (string) and 'options' (table) are required", 3)
  end
end

--- The command line: opt, spec, or nil and the exit code.
local function parse(def)
  if def.params then
    return params_cli.parse_mission { prog = def.name, usage_line = def.usage_line,
                                      options = cli.options(def.options, M.OPTIONS),
                                      params = def.params, argv = def.argv or arg, defaults = def.defaults,
                                      epilog = def.epilog }
  end
  local spec = cli.spec { prog = def.name, usage_line = def.usage_line, epilog = def.epilog,
                          options = cli.options(def.options, M.OPTIONS, Session.OPTIONS) }
  local opt, usage_err = spec:parse(def.argv or arg)
  if not opt then return nil, cli.usage_error(spec, usage_err) end
  if opt.help then io.write(spec:usage()) return nil, 0 end
  Session.from_cli(opt)
  if def.defaults then def.defaults(opt) end
  return opt, spec
end

local Handle = {}
Handle.__index = Handle

function Handle:now() return self.clock:now() end

--- A usage problem found after parsing (exit 2, one line).
function Handle:usage_error(msg) return cli.usage_error(self.spec, msg) end

--- Feeds the channels (--viz, --record) from fn(channels) -> a feeder with
-- :tick(), 20 times a simulated second, or as often as the period (seconds)
-- the last tick returned asks; nothing when neither is on.
function Handle:channels(make)
  self.make_feeder = make
end

--- A hardware robot goes on with its last command while nothing runs:
-- stopped now (m.halt, set by the mission), not when the base's command
-- watchdog gives up on it (0.5 s on a TurtleBot3: 11 cm at full speed).
-- A simulated robot stops with time and sets none.
local function halt(m)
  if not m.halt then return end
  local ok, err = pcall(m.halt)
  if not ok then m.log:error("pause: could not stop the robot: %s", tostring(err)) end
end

--- The runner's own loop: returns the scheduler's reason for stopping.
local function default_run(m, def)
  local opt, sched, session, guard = m.opt, m.sched, m.session, m.guard
  local done = function() return def.done and def.done(m) or false end
  local limit = def.time_limit and def.time_limit(m) or nil
  -- :step N runs N tasks while paused (from the console or `tycho attach`)
  local function step()
    local n = m.steps
    m.steps = 0
    sched:run { max_steps = n, realtime = false }
    halt(m) -- still paused: what the steps commanded stops again
    session:print(("stepped %d task(s); sim time %.2f s%s"):format(n, m:now(),
      m.state and (", state " .. tostring(m.state())) or ""))
  end
  local reason
  if not opt.repl then
    -- paced: the scheduler's own (--realtime), or the mission's (fleet's --speed);
    -- a :pause from `tycho attach` returns from the scheduler, clients are served
    -- while it lasts
    local pace = def.pace and def.pace(opt) or nil
    while not guard:stop_requested() do
      if m.steps > 0 then step()
      elseif m.paused and not done() then session.wait(0.1) -- (:stop while paused ends the run)
      else
        reason = sched:run { until_fn = function() return done() or m.paused or guard:stop_requested() end,
                             until_time = limit, realtime = pace, wait = (opt.realtime or pace) and session.wait or nil }
        if not (reason == "until_fn" and m.paused and not done()) then break end
      end
    end
    return reason
  end
  -- the console beside the mission: keys are read while the scheduler
  -- waits for the next task; :pause freezes everything (the scheduler
  -- returns), :step N runs N tasks, :resume carries on
  session:print(("console beside the mission (%sx real time): :help for commands, :quit to end"):format(
    opt.speed or "1"))
  while not session:quitting() and not guard:stop_requested() do
    if m.steps > 0 then step()
    elseif m.paused or done() then
      session.wait(0.1)
    else
      reason = sched:run { until_fn = function() return done() or m.paused or session:quitting() or guard:stop_requested() end,
                           until_time = limit, realtime = tonumber(opt.speed) or 1, wait = session.wait }
      if reason == "until_time" then break end
    end
  end
  return reason
end

--- Runs a mission (see the top of this file); returns the script's exit code.
function M.run(def)
  check_def(def)
  local guard = MissionGuard.install(def.name)
  local opt, spec = parse(def)
  if not opt then return spec end -- the exit code
  local m = setmetatable({ def = def, opt = opt, spec = spec, guard = guard, params = def.params,
                           paused = false, steps = 0 }, Handle)
  if opt.paused and opt.socket == false and not opt.listen and not opt.repl then
    return m:usage_error("--paused with --no-socket: nothing could resume the mission (drop --no-socket, "
      .. "or add --repl or --listen)")
  end
  if def.check then
    local problem = def.check(opt)
    if problem then return m:usage_error(problem) end
  end
  if def.out then
    opt.out = opt.out or def.out(opt)
    local ok, err = guard.check_out(opt.out)
    if not ok then return m:usage_error(err) end
  end

  m.wall0 = tycho.clock.monotonic()
  m.clock = tycho.clock.new { mode = def.clock and def.clock(opt) or "sim" }
  m.sched = tycho.scheduler.new { clock = m.clock, realtime = opt.realtime or false }
  -- with the console up the log goes to the console (Session.new adds it), not to stderr
  m.log = logmod.new { clock = m.clock, level = opt.quiet and "warn" or (os.getenv("TYCHO_LOG") or "info"),
                       sinks = opt.repl and {} or nil }
  m.sched:on_error(function(name, msg)
    if m.on_task_error then m.on_task_error(name, msg) end
    m.log:error("task %s failed: %s", name, msg)
  end)

  local code = def.start(m)
  if code then return code end
  if not def.run then
    -- the console's :pause, :resume and :step N drive the runner's own loop
    local host = m.host or {}
    host.pause = host.pause or function()
      if not m.paused then m.paused_at = tycho.clock.monotonic() end
      m.paused = true
      halt(m) -- the next tick after :resume commands it again
    end
    host.resume = host.resume or function()
      -- the wall time a summary reports (from m.wall0) is the time the mission ran
      if m.paused and m.paused_at then m.wall0 = m.wall0 + (tycho.clock.monotonic() - m.paused_at) end
      m.paused, m.paused_at = false, nil
    end
    host.step = host.step or function(n)
      if not m.paused then return m.session:print(":step works while paused") end
      m.steps = m.steps + n -- run by the loop, outside the scheduler
    end
    m.host = host
  end
  if opt.paused and not (m.host and m.host.pause) then -- its own run loop, and no pause of its own
    return m:usage_error("--paused: this mission cannot be paused (its console has no :pause)")
  end

  -- the runtime around the mission: console (--repl), attach socket, log
  -- file, live view and recording
  local socket_default = def.socket_default
  if socket_default == nil then socket_default = (opt.repl or opt.realtime) and true or false end
  if opt.paused then socket_default = true end -- a paused mission waits for a console
  local ok, s = pcall(Session.new, { opt = opt, env = m.env or setmetatable({ tycho = tycho }, { __index = _G }),
                                     host = m.host or {}, log = m.log, console = opt.repl,
                                     socket_default = socket_default, name = def.name })
  if not ok then
    io.stderr:write(def.name, ": ", tostring(s), "\n")
    return 1
  end
  m.session = s
  if s.channels and m.make_feeder then
    m.feeder = m.make_feeder(s.channels)
    -- an observer: the run need not ask whether the mission ended after it
    if m.feeder and m.feeder.tick then
      -- made again at the period a tick asks for (robot_channels: 0.2 s
      -- while the simulator writes the 20 Hz frames itself)
      local period, task = 0.05, nil
      local function schedule()
        task = m.sched:every(period, function()
          local want = m.feeder:tick()
          if type(want) == "number" and want > 0 and want ~= period then
            period = want
            task:cancel()
            schedule()
          end
        end, { name = "channels", observer = true })
      end
      schedule()
    end
  end
  if not def.run and not (opt.repl or opt.realtime) and (s.server or s.viz) then
    -- faster than real time the scheduler never sleeps: serve clients in passing
    m.sched:every(0.1, function() s:service() end, "attach")
  end

  if opt.paused then
    m.host.pause()
    local how = {}
    if s.console then how[#how + 1] = "type :resume here" end
    if s.server and s.server.path then how[#how + 1] = ("`tycho attach %s -e :resume`"):format(s.server.path) end
    if s.server and s.server.port then how[#how + 1] = ("`tycho attach --tcp` to port %d"):format(s.server.port) end
    s:print(("paused before the first step: resume with %s%s"):format(table.concat(how, " or "),
      m.host.step and " (:step N runs N tasks)" or ""))
  end
  local reason = (def.run or default_run)(m, def)
  -- the recording syncs to the disk while the outputs are written
  s:end_recording()
  local finished, exit_code = xpcall(def.finish, debug.traceback, m, reason)
  s:close()
  if not finished then error(exit_code, 0) end
  return guard:exit_code(exit_code)
end

return M
