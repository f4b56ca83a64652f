--- `tycho repl [--world W] [--seed N] [--history PATH] [--paused] [session options]`:
-- the runtime with an interactive console. With a world, the simulator runs
-- in real time beside the console (the robot is `robot`, the simulator
-- `sim`); drive it by hand (`robot.drive(0.1, 0)`), plan on its map, load
-- and start behaviours. Other terminals attach with `tycho attach`.
local tycho = require "tycho"
local logmod = require "log"
local Session = require "session"

local cli = require "cli"

local spec = cli.spec { prog = "tycho repl", command = "tycho repl", usage_line = "[--world WORLD.lua | --robot ROBOT.lua] [options]",
  options = cli.options({
    { name = "world", type = "string", metavar = "PATH", doc = "start the simulator on this world (maps/*.lua)" },
    { name = "robot", type = "string", metavar = "PATH", doc = "open the robot's devices from a robot config (robots/*.lua)" },
    { name = "seed", type = "integer", metavar = "N", doc = "simulator seed (default: the world's)" },
    { name = "history", type = "string", metavar = "PATH", doc = "console history file (default ~/.tycho_history)" },
    { name = "paused", type = "boolean",
      doc = "start with the simulator (or the device polling) paused, until :resume (or :step N)" },
  }, Session.OPTIONS),
  epilog = "Type :help in the console; :quit or Ctrl-D leaves." }
local opt, usage_err = spec:parse(arg)
if not opt then return cli.usage_error(spec, usage_err) end
if opt.help then io.write(spec:usage()) return 0 end
Session.from_cli(opt)
if opt.world and opt.robot then return cli.usage_error(spec, "--world or --robot, not both") end

local clock = tycho.clock.new { mode = "sim" }
local sched = tycho.scheduler.new { clock = clock, realtime = 1 }
local log = logmod.new { clock = clock, level = os.getenv("TYCHO_LOG") or "info", sinks = {} }
local env = setmetatable({ tycho = tycho, sched = sched, clock = clock, log = log,
                           fsm = require "fsm", tasks = require "tasks", params = require "params" },
                         { __index = _G })
local paused = opt.paused or false
local exit_code -- os.exit(n) typed at a console: leave as :quit does, with n
local host = {
  exit = function(code) exit_code = code end,
  log_tail = function(n) return log:recent(n) end,
  pause = function() paused = true end,
  resume = function() paused = false end,
}
if opt.world then
  local robot, code = cli.load("tycho repl", require("robot_sim").open, opt.world, { seed = opt.seed })
  if not robot then return code end -- a bad world file: exit 2
  env.robot, env.sim = robot, robot.sim
  host.safe_stop = robot.safe_stop
  -- while paused, :step N advances the simulator N control periods
  host.step = function(n) for _ = 1, n do robot.step(0.05) end end
  sched:every(0.05, function() if not paused then robot.step(0.05) end end, "sim")
end
if opt.robot then
  local ok, robot = pcall(require("robot_hw").open, opt.robot, { log = log })
  if not ok then io.stderr:write("tycho repl: ", tostring(robot), "\n") return 1 end
  env.robot = robot
  host.safe_stop = robot.safe_stop
  -- :pause stops the wheels at once (the polling it holds would otherwise
  -- keep the last command going until the base's watchdog, 0.5 s)
  host.pause = function() paused = true robot.stop() end
  -- the devices are polled at 20 Hz; a drive command from the console keeps
  -- the wheels turning only until the base's command watchdog (0.5 s)
  sched:every(0.05, function() if not paused then robot.step() end end, "devices")
end
sched:every(0.1, function() end, "console") -- keeps the loop (and the console) ticking
-- --record: the raw device samples too, every one as the robot delivers it
-- to whoever asks (a behaviour, the console), for --replay
local tape = opt.record and env.robot and require("robot_replay").tap(env.robot, {
  world = opt.world, seed = opt.seed or (env.robot.world and env.robot.world.seed),
  now = function() return clock:now() end, clock = clock })

local ok, session = pcall(Session.new, { opt = opt, env = env, host = host, log = log, console = true,
                                         history = opt.history, name = "tycho repl" })
if not ok then io.stderr:write("tycho repl: ", tostring(session), "\n") return 1 end
if tape and session.channels then tape:attach(session.channels) end
if session.channels and env.robot then
  -- --record: the robot's channels; the simulator's newest scan and frames
  -- are read without taking them (the console may want them too)
  local sim = env.sim
  local feeder = require("robot_channels").new(session.channels, {
    robot = env.robot, now = function() return clock:now() end, world = env.robot.world,
    scan = sim and function() return (sim:last_scan()) end,
    thermal = sim and function(cam) return (sim:last_thermal(cam)) end,
    map = sim and sim:truth() })
  sched:every(0.05, function() if not paused then feeder:tick() end end, "channels")
end
session:print(("tycho %s (%s) — :help for commands, :quit to leave%s"):format(tycho.version, tycho.lua,
  opt.world and (", simulating " .. opt.world) or opt.robot and (", robot " .. opt.robot) or ""))
if paused and env.robot then session:print("paused: :resume starts the robot's clock, :step N steps it") end
sched:on_error(function(name, msg) log:error("task %s failed: %s", name, msg) end)
-- SIGTERM / SIGINT: leave as :quit does (safe stop, socket removed), exit 128 + N
tycho.sys.catch_signals()
local function signalled() return tycho.sys.signal_pending() ~= nil end
sched:run { realtime = 1, wait = session.wait,
            until_fn = function() return session:quitting() or signalled() or exit_code ~= nil end }
if env.robot then env.robot.safe_stop() end
if env.robot and env.robot.close then env.robot.close() end
session:close()
local _, signum = tycho.sys.signal_pending()
return signum and 128 + signum or exit_code or 0
