-- Safety nets: a runaway loop or a memory bomb in a behaviour stops that
-- behaviour (the robot goes to safe stop) and the runtime carries on. Run
-- through the tycho executable, whose Lua state has the memory limit.
local exe = require "helpers.exe"
local EXE = exe.EXE
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

describe("tycho.watchdog.resume (the tasks runner's budgeted resume)", function()
  local tycho = require "tycho"
  local wd = tycho.watchdog
  local LJ = rawget(_G, "jit") ~= nil

  it("resumes like coroutine.resume: values both ways, errors, a dead coroutine", function()
    if LJ then
      assert.has_error(function() wd.resume(coroutine.create(print), 1) end,
        "tycho.watchdog.resume needs Lua 5.4 (LuaJIT cannot yield from a hook)")
      return
    end
    local co = coroutine.create(function(a, b)
      local c = coroutine.yield(a + b, "y")
      error({ code = c })
    end)
    assert.are.same({ true, 5, "y" }, { wd.resume(co, 1, 2, 3) })
    local ok, err = wd.resume(co, 1, 42)
    assert.is_false(ok)
    assert.are.equal(42, err.code)
    assert.are.same({ false, "cannot resume dead coroutine" }, { wd.resume(co, 1) })
    assert.has_error(function() wd.resume("x", 1) end)
    assert.has_error(function() wd.resume(coroutine.create(print), 0) end)
  end)

  it("stops a pcall-wrapped loop after its budget, and a console's arm_time in between does not disarm it", function()
    if LJ then return pending("Lua 5.4 only") end
    local spin = coroutine.create(function()
      while true do pcall(function() for _ = 1, 100 do end end) end
    end)
    local t0 = os.clock()
    local ok, msg = wd.resume(spin, 0.2)
    assert.is_false(ok)
    assert.matches("runaway: task ran more than 0.2 s of CPU", msg)
    assert.is_true(os.clock() - t0 < 1.5)
    -- the console takes the timer over, then hands it back
    local c = coroutine.create(function() return 1 end)
    assert.is_true(wd.arm_time(c, 5))
    wd.disarm_time(c)
    local spin2 = coroutine.create(function() while true do end end)
    t0 = os.clock()
    ok, msg = wd.resume(spin2, 0.2)
    assert.is_false(ok)
    assert.matches("runaway", msg)
    assert.is_true(os.clock() - t0 < 1.5)
    -- a step within its budget runs to its yield, however many run before it
    local n = 0
    local step = coroutine.create(function() while true do n = n + 1; coroutine.yield() end end)
    for _ = 1, 1000 do assert.is_true((wd.resume(step, 0.2))) end
    assert.are.equal(1000, n)
  end)
end)
