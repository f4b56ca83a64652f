-- Safety nets: a runaway loop or a memory bomb in a behaviour stops that
-- behaviour (the robot goes to safe stop) and the runtime carries on. Run
-- through the tycho executable, whose Lua state has the memory limit.
local EXE = os.getenv("TYCHO_EXE") or "build/tycho"
local LUAJIT = rawget(_G, "jit") ~= nil

local SCRIPT = [[
local tycho = require "tycho"
local tasks = require "tasks"
local fsm = require "fsm"
local robot = require("robot_sim").open("maps/maze_small.lua")
local clock = tycho.clock.new { mode = "sim" }
local sched = tycho.scheduler.new { clock = clock }
local errors = {}
sched:on_error(function(name, msg) errors[#errors + 1] = msg end)
local bb = { ticks = 0 }
sched:every(0.05, function() robot.step(0.05) bb.ticks = bb.ticks + 1 end, "control")
local BODY = (...)
local def = fsm.define {
  name = "victim", initial = "Go", fallback = "safe_stop",
  states = {
    Go = { enter = function() robot.drive(0.1, 0) robot.launcher.spin(true) end,
           run = function() tasks.sleep(0.5) BODY() end },
    safe_stop = { terminal = true, enter = function() robot.safe_stop() bb.safe = true end },
  },
}
local m = fsm.new(def, bb, { runner = tasks.new(sched, { rate = 10, budget = 1e6 }) })
m:start()
local t0 = tycho.clock.monotonic()
sched:run { until_time = 5 }
local v, w = robot.sim:velocity()
print(("state=%s safe=%s ticks=%d v=%.3f spinning=%s errors=%d wall=%.2f"):format(m.state,
  tostring(bb.safe), bb.ticks, v, tostring(robot.sim:launcher().spinning), #errors,
  tycho.clock.monotonic() - t0))
for _, e in ipairs(errors) do print("error: " .. e:match("[^\n]*")) end
]]

local BODIES = {
  loop = "function() while true do end end",
  pcall_loop = "function() while true do pcall(function() while true do end end) end end",
  bomb = "function() local t = {} while true do t[#t + 1] = string.rep('x', 1e6) .. #t end end",
  error = "function() local x = nil; return x.field end",
}

local function run(kind, timed)
  local path = os.tmpname() .. ".lua"
  local f = assert(io.open(path, "w"))
  local script = SCRIPT:gsub("local BODY = %(%.%.%.%)", "local BODY = " .. BODIES[kind])
  if timed then script = script:gsub("budget = 1e6", "budget_s = 0.1") end
  f:write(script)
  f:close()
  local p = io.popen("TYCHO_MEM_LIMIT_MB=64 '" .. EXE .. "' run '" .. path .. "' 2>&1")
  local out = p:read("*a")
  p:close()
  os.remove(path)
  return out
end

describe("safety nets", function()
  local function check(out, why)
    assert.matches("state=safe_stop safe=true", out, 1, true)
    assert.matches("ticks=101 ", out, 1, true)         -- the control task ran to the end
    assert.matches("v=0.000 spinning=false", out, 1, true) -- wheels stopped, launcher off
    assert.matches(why, out)
  end

  it("stops a runaway loop within its instruction budget", function()
    if LUAJIT then return pending("LuaJIT's compiled loops skip hooks: no instruction budget there") end
    check(run("loop"), "runaway: task ran more than 1000000 Lua instructions")
  end)

  it("stops a runaway loop that catches errors with pcall", function()
    if LUAJIT then return pending("LuaJIT cannot yield from a hook; its error hook can be caught") end
    check(run("pcall_loop"), "runaway")
  end)

  it("stops a pcall-wrapped runaway by its CPU-time budget (the default, no overhead)", function()
    if LUAJIT then return pending("LuaJIT cannot yield from a hook") end
    check(run("pcall_loop", true), "runaway: task ran more than 0.1 s of CPU")
  end)

  it("stops a memory bomb at the memory limit", function()
    if LUAJIT then return pending("LuaJIT's 64-bit allocator cannot be replaced") end
    check(run("bomb"), "not enough memory")
  end)

  it("reports an uncaught error with file:line and stops safely", function()
    check(run("error"), ":%d+: attempt to index")
  end)
end)
