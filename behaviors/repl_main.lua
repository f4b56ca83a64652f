--- `tycho repl [--world W] [--seed N] [--history PATH] [session options]`:
-- the runtime with an interactive console. With a world, the simulator runs
-- in real time beside the console (the robot is `robot`, the simulator
-- `sim`); drive it by hand (`robot.drive(0.1, 0)`), plan on its map, load
-- and start behaviours. Other terminals attach with `tycho attach`.
local tycho = require "tycho"
local logmod = require "log"
local Session = require "session"

local USAGE = [[
usage: tycho repl [--world WORLD.lua | --robot ROBOT.lua] [--seed N] [--history PATH] [options]
  --world PATH       start the simulator on this world (maps/*.lua)
  --robot PATH       open the robot's devices from a robot config (robots/*.lua)
  --seed N           simulator seed (default: the world's)
  --history PATH     console history file (default ~/.tycho_history)
]] .. Session.USAGE .. [[
Type :help in the console; :quit or Ctrl-D leaves.]]

local opt, i = {}, 1
while i <= #arg do
  local a = arg[i]
  local nexti, err = Session.take_arg(arg, i, opt)
  if err then io.stderr:write("tycho repl: ", err, "\n") return 2 end
  if nexti then i = nexti
  elseif a == "-h" or a == "--help" then print(USAGE) return 0
  elseif a == "--world" or a == "--seed" or a == "--history" or a == "--robot" then
    if not arg[i + 1] then io.stderr:write("tycho repl: ", a, " needs a value\n", USAGE, "\n") return 2 end
    opt[a:sub(3)] = arg[i + 1]
    i = i + 2
  else
    io.stderr:write("tycho repl: unknown argument '", tostring(a), "'\n", USAGE, "\n")
    return 2
  end
end
if opt.seed and not tonumber(opt.seed) then io.stderr:write("tycho repl: --seed expects a number\n") return 2 end
if opt.world and opt.robot then io.stderr:write("tycho repl: --world or --robot, not both\n") return 2 end

local clock = tycho.clock.new { mode = "sim" }
local sched = tycho.scheduler.new { clock = clock, realtime = 1 }
local log = logmod.new { clock = clock, level = os.getenv("TYCHO_LOG") or "info", sinks = {} }
local env = setmetatable({ tycho = tycho, sched = sched, clock = clock, log = log,
                           fsm = require "fsm", tasks = require "tasks", params = require "params" },
                         { __index = _G })
local paused = false
local exit_code -- os.exit(n) typed at a console: leave as :quit does, with n
local host = {
  exit = function(code) exit_code = code end,
  log_tail = function(n) return log:recent(n) end,
  pause = function() paused = true end,
  resume = function() paused = false end,
}
if opt.world then
  local ok, robot = pcall(require("robot_sim").open, opt.world, { seed = opt.seed and tonumber(opt.seed) })
  if not ok then io.stderr:write("tycho repl: ", tostring(robot), "\n") return 1 end
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
  -- the devices are polled at 20 Hz; a drive command from the console keeps
  -- the wheels turning only until the base's command watchdog (0.5 s)
  sched:every(0.05, function() if not paused then robot.step() end end, "devices")
end
sched:every(0.1, function() end, "console") -- keeps the loop (and the console) ticking

local ok, session = pcall(Session.new, { opt = opt, env = env, host = host, log = log, console = true,
                                         history = opt.history, name = "tycho repl" })
if not ok then io.stderr:write("tycho repl: ", tostring(session), "\n") return 1 end
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
