local tycho = require "tycho"
local tasks = require "tasks"

local function setup(rate)
  local clock = tycho.clock.new { mode = "sim" }
  local errors = {}
  local s = tycho.scheduler.new { clock = clock,
                                  on_error = function(name, msg) errors[#errors + 1] = { name = name, msg = msg } end }
  return tasks.new(s, { rate = rate or 10 }), s, clock, errors
end

-- An operation that finishes after `n` polls with the given results.
local function op_after(n, ...)
  local results = table.pack and table.pack(...) or { n = select("#", ...), ... }
  local unpack = table.unpack or unpack
  local op = { polls = 0, cancelled = 0 }
  function op:poll()
    self.polls = self.polls + 1
    if self.polls >= n then return true, unpack(results, 1, results.n) end
    return false
  end
  function op:cancel() self.cancelled = self.cancelled + 1 end
  return op
end

describe("tasks", function()
  it("sleeps in clock time, waking on the first tick at or after the deadline", function()
    local r, s = setup(10)
    local woke = {}
    r:spawn("sleeper", function()
      woke[#woke + 1] = tasks.now()
      tasks.sleep(0.35)
      woke[#woke + 1] = tasks.now()
      tasks.sleep(0.2)
      woke[#woke + 1] = tasks.now()
      tasks.sleep(0)
      woke[#woke + 1] = tasks.now()
    end)
    s:run { until_time = 2 }
    assert.are.equal(4, #woke)
    assert.near(0.0, woke[1], 1e-9)
    assert.near(0.4, woke[2], 1e-9)
    assert.near(0.6, woke[3], 1e-9) -- 0.4 + 0.2 lands on the 0.6 tick despite rounding
    assert.near(0.7, woke[4], 1e-9) -- sleep(0) still yields one tick
  end)

  it("passes spawn arguments and keeps results; runs in spawn order", function()
    local r, s = setup(10)
    local order = {}
    local a = r:spawn("a", function(x, y) order[#order + 1] = "a" tasks.yield() order[#order + 1] = "a2" return x + y, "sum" end, 2, 3)
    local b = r:spawn("b", function() order[#order + 1] = "b" tasks.yield() order[#order + 1] = "b2" end)
    assert.are.equal("ready", a.status)
    s:run { until_time = 0.1 }
    assert.are.same({ "a", "b", "a2", "b2" }, order)
    assert.are.equal("done", a.status)
    assert.are.equal(5, a.result)
    assert.are.same({ n = 2, 5, "sum" }, a.results)
    assert.are.equal("done", b.status)
    assert.are.equal(0, #r:list())
  end)

  it("runs a coroutine spawned during a tick in that same tick", function()
    local r, s = setup(10)
    local seen = {}
    r:spawn("parent", function()
      r:spawn("child", function() seen[#seen + 1] = ("child@%.1f"):format(tasks.now()) end)
      seen[#seen + 1] = "parent"
    end)
    s:run { until_time = 0 }
    assert.are.same({ "parent", "child@0.0" }, seen)
  end)

  it("waits until a predicate holds, or times out", function()
    local r, s = setup(10)
    local door = false
    s:after(1.0, function() door = true end)
    local got = {}
    r:spawn("waiter", function()
      got.ok, got.why = tasks.wait_until(function() return door end, 0.5)
      got.t1 = tasks.now()
      got.ok2 = tasks.wait_until(function() return door end)
      got.t2 = tasks.now()
      got.ok3 = tasks.wait_until(function() return door end, 0) -- already true: no yield
      got.t3 = tasks.now()
    end)
    s:run { until_time = 3 }
    assert.is_false(got.ok)
    assert.are.equal("timeout", got.why)
    assert.near(0.5, got.t1, 1e-9)
    assert.is_true(got.ok2)
    -- the door opens at 1.0 but the runner, registered first, ticked at 1.0 just before it
    assert.near(1.1, got.t2, 1e-9)
    assert.is_true(got.ok3)
    assert.are.equal(got.t2, got.t3)
  end)

  it("awaits operations: results, failures and timeouts (which cancel the operation)", function()
    local r, s = setup(10)
    local out = {}
    local slow = op_after(100)
    local arrive = op_after(3, "arrived")
    local blocked = op_after(2, nil, "failed: path blocked")
    r:spawn("nav", function()
      out.a = { tasks.await(arrive, 5), tasks.now() }
      out.b = { tasks.await(blocked) }
      out.c = { tasks.await(slow, 1.0) }
      out.tc = tasks.now()
      out.d = { tasks.await(op_after(1, "instant")) }
      out.td = tasks.now()
    end)
    s:run { until_time = 5 }
    assert.are.same({ "arrived", 0.2 }, { out.a[1], math.floor(out.a[2] * 10 + 0.5) / 10 })
    assert.are.equal(3, arrive.polls)
    assert.are.equal(0, arrive.cancelled)
    assert.are.same({ nil, "failed: path blocked" }, { out.b[1], out.b[2] })
    assert.are.same({ nil, "timeout" }, { out.c[1], out.c[2] })
    assert.are.equal(1, slow.cancelled)
    assert.near(out.tc, out.td, 1e-12) -- done at the first poll: no tick lost
    assert.are.equal("instant", out.d[1])
  end)

  it("builds operations with tasks.operation", function()
    local r, s = setup(10)
    local started, stopped = 0, 0
    local pos = 0
    local function go_to(x, timeout)
      return tasks.await(tasks.operation {
        name = "go_to",
        start = function() started = started + 1 end,
        poll = function()
          pos = pos + 1
          if pos >= x then return true, "arrived" end
        end,
        cancel = function() stopped = stopped + 1 end,
      }, timeout)
    end
    local res = {}
    r:spawn("mission", function()
      res[1] = go_to(3)
      res[2], res[3] = go_to(100, 0.5)
    end)
    s:run { until_time = 2 }
    assert.are.same({ "arrived", nil, "timeout" }, { res[1], res[2], res[3] })
    assert.are.equal(2, started)
    assert.are.equal(1, stopped)
    assert.error_matches(function() tasks.operation { start = function() end } end, "poll")
  end)

  it("cancels a task: its operation is cancelled and it never runs again", function()
    local r, s = setup(10)
    local op = op_after(1000)
    local after_await = false
    local t = r:spawn("victim", function()
      tasks.await(op)
      after_await = true
    end)
    s:after(0.35, function() assert.is_true(r:cancel(t)) end)
    s:run { until_time = 1 }
    assert.are.equal("cancelled", t.status)
    assert.are.equal(1, op.cancelled)
    assert.is_false(after_await)
    assert.are.equal(4, op.polls) -- first poll at 0.0, then 0.1 .. 0.3
    assert.is_false(t:cancel())
  end)

  it("isolates errors: reported with file:line and traceback, the others continue", function()
    local r, s, _, errors = setup(10)
    local ticks = 0
    r:spawn("steady", function() while true do ticks = ticks + 1 tasks.yield() end end)
    local bad = r:spawn("faulty", function()
      tasks.sleep(0.2)
      local t = nil
      return t.field -- line reported
    end)
    s:run { until_time = 1 }
    assert.are.equal(11, ticks)
    assert.are.equal("failed", bad.status)
    assert.are.equal(1, #errors)
    assert.are.equal("faulty", errors[1].name)
    assert.matches("tasks_spec.lua:%d+: attempt to index", errors[1].msg)
    assert.matches("stack traceback", errors[1].msg)
    assert.are.equal(errors[1].msg, bad.error)
    -- a failing predicate or poll fails only its own task
    local w = r:spawn("pred", function() tasks.wait_until(function() error("bad pred") end) end)
    local o = r:spawn("poll", function() tasks.await({ poll = function(self) self.n = (self.n or 0) + 1 if self.n > 1 then error("bad poll") end end }) end)
    s:run { until_time = 1.5 }
    -- wait_until checks the predicate inside the coroutine first, so that error is the coroutine's
    assert.are.equal("failed", w.status)
    assert.are.equal("failed", o.status)
    assert.matches("bad poll", o.error)
    assert.are.equal(16, ticks)
  end)

  it("fails a runaway coroutine that never yields, and keeps the others", function()
    if rawget(_G, "jit") then return end -- LuaJIT: hooks are per VM, budget off by default
    local clock = tycho.clock.new { mode = "sim" }
    local errors = {}
    local s = tycho.scheduler.new { clock = clock, on_error = function(n_, m) errors[#errors + 1] = { n_, m } end }
    local r = tasks.new(s, { rate = 10, budget = 100000 })
    local ticks = 0
    r:spawn("steady", function() while true do ticks = ticks + 1 for _ = 1, 1000 do end tasks.yield() end end)
    local bad = r:spawn("spinner", function() tasks.sleep(0.2) while true do end end)
    s:run { until_time = 1 }
    assert.are.equal("failed", bad.status)
    assert.are.equal(11, ticks)
    assert.are.equal("spinner", errors[1][1])
    assert.matches("runaway: task ran more than 100000 Lua instructions without yielding", errors[1][2])
    assert.matches("tasks_spec.lua:%d+", errors[1][2]) -- where it was spinning
    assert.is_number(tasks.DEFAULT_BUDGET_S) -- the default is a CPU-time budget
  end)

  it("refuses misuse with clear messages", function()
    local r = setup(10)
    assert.error_matches(function() tasks.sleep(1) end, "must be called from inside a task coroutine")
    assert.error_matches(function() r:spawn(1, function() end) end, "#1.*string name")
    assert.error_matches(function() r:spawn("x", 1) end, "#2")
    assert.error_matches(function() tasks.new({}, {}) end, "tycho.scheduler expected")
    local _, s = setup(10)
    assert.error_matches(function() tasks.new(s, { rate = 0 }) end, "bad field 'rate'")
    local errs = {}
    s:on_error(function(_, m) errs[#errs + 1] = m end)
    local r2 = tasks.new(s, { rate = 10 })
    r2:spawn("neg", function() tasks.sleep(-1) end)
    s:run { until_time = 0.1 }
    assert.matches("bad argument #1 to 'sleep'", errs[1])
  end)

  it("runs tick hooks before the coroutines and releases everything on close", function()
    local r, s = setup(10)
    local seq = {}
    local h = r:on_tick(function(now) seq[#seq + 1] = "hook" end)
    r:spawn("co", function() while true do seq[#seq + 1] = "co" tasks.yield() end end)
    s:run { until_time = 0.1 }
    assert.are.same({ "hook", "co", "hook", "co" }, seq)
    h.remove()
    s:run { until_time = 0.2 }
    assert.are.same({ "hook", "co", "hook", "co", "co" }, seq)
    assert.are.equal(1, #s)
    r:close()
    assert.are.equal(0, #s)
    assert.error_matches(function() r:spawn("late", function() end) end, "closed runner")
  end)
end)
