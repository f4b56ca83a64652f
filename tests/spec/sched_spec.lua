local tycho = require "tycho"
local log = require "log"

local function sim()
  local clock = tycho.clock.new { mode = "sim" }
  local errors = {}
  local s = tycho.scheduler.new { clock = clock,
                                  on_error = function(name, msg) errors[#errors + 1] = { name, msg } end }
  return s, clock, errors
end

describe("tycho.clock", function()
  it("sim time starts at 0 and moves only when advanced", function()
    local c = tycho.clock.new { mode = "sim" }
    assert.are.equal("sim", c.mode)
    assert.are.equal(0, c:now())
    assert.are.equal(0.25, c:advance(0.25))
    assert.are.equal(0.25, c:now())
    assert.error_matches(function() c:advance(-1) end, "#1.*dt must be finite and >= 0")
    assert.matches("tycho.clock sim t=0.25 s", tostring(c))
  end)

  it("wall time is monotonic seconds since creation and cannot be advanced", function()
    local c = tycho.clock.new { mode = "wall" }
    local a = c:now()
    local t0 = tycho.clock.monotonic()
    while tycho.clock.monotonic() - t0 < 0.003 do end
    assert.is_true(a >= 0 and a < 1)
    assert.is_true(c:now() - a >= 0.003)
    assert.error_matches(function() c:advance(1) end, "wall clock cannot be advanced")
    assert.error_matches(function() tycho.clock.new { mode = "lunar" } end, "bad field 'mode'")
  end)
end)

describe("tycho.scheduler", function()
  it("advances a sim clock exactly to each due time", function()
    local s, clock = sim()
    local seen = {}
    s:every(0.25, function(t) seen[#seen + 1] = { t, clock:now() } end)
    assert.are.equal("until_time", s:run { until_time = 1.0 })
    assert.are.equal(5, #seen)
    for i, e in ipairs(seen) do
      assert.are.equal((i - 1) * 0.25, e[1]) -- the task's argument is its due time
      assert.are.equal(e[1], e[2])           -- and the clock reads exactly that
    end
    assert.are.equal(1.0, clock:now())
    assert.are.equal("until_time", s:run { until_time = 1.1 })
    assert.are.equal(1.1, clock:now()) -- ends exactly at until_time
    assert.are.equal(5, #seen)
  end)

  it("runs equal due times in registration order, with phases", function()
    local s = sim()
    local order = {}
    local function rec(name) return function(t) order[#order + 1] = ("%s@%.2f"):format(name, t) end end
    s:every(0.5, rec("a"), { name = "a" })
    s:after(0.5, rec("once"))
    s:every(0.5, rec("b"), { phase = 0.25 })
    s:every(0.25, rec("c"))
    s:run { until_time = 0.5 }
    assert.are.same({ "a@0.00", "c@0.00", "b@0.25", "c@0.25", "a@0.50", "once@0.50", "c@0.50" },
      order)
  end)

  it("is deterministic: the sequence is a pure function of the registrations", function()
    local function trace()
      local s = sim()
      local out = {}
      for i = 1, 30 do
        local p = 0.05 * (i % 7 + 1)
        s:every(p, function(t) out[#out + 1] = i .. ":" .. t end, { phase = 0.01 * (i % 5) })
        s:after(0.1 * (i % 4), function(t) out[#out + 1] = "o" .. i .. ":" .. t end)
      end
      s:run { until_time = 3 }
      return out
    end
    local a, b = trace(), trace()
    assert.is_true(#a > 300)
    assert.are.same(a, b)
  end)

  it("returns the reason it stopped", function()
    local s, clock = sim()
    local n = 0
    local h = s:every(0.1, function() n = n + 1 end, "counter")
    assert.are.equal("until_fn", s:run { until_fn = function() return n >= 3 end })
    assert.are.equal(3, n)
    assert.are.equal("max_steps", s:run { max_steps = 4 })
    assert.are.equal(7, n)
    s:after(0.05, function() s:stop() end)
    assert.are.equal("stopped", s:run { until_time = 100 })
    assert.near(0.65, clock:now(), 1e-9)
    h:cancel()
    assert.are.equal("idle", s:run())
    assert.are.equal("until_time", s:run { until_time = 5 })
    assert.are.equal(5, clock:now())
    s:every(1, function() error("kaput") end, "bad")
    local reason, task, msg = s:run { until_time = 10, stop_on_error = true }
    assert.are.equal("error", reason)
    assert.are.equal("bad", task)
    assert.matches("sched_spec.lua:%d+: kaput", msg)
    assert.are.equal(5, clock:now())
    local r2, t2, m2 = s:run { until_fn = function() error("oops") end }
    assert.are.same({ "error", "until_fn" }, { r2, t2 })
    assert.matches("oops", m2)
  end)

  it("catches task errors, disables the task and keeps running the others", function()
    local s, clock, errors = sim()
    local good = 0
    local bad = s:every(0.1, function(t) if t >= 0.2 then error("sensor unplugged") end end,
                        { name = "reader" })
    s:every(0.1, function() good = good + 1 end, { name = "ok" })
    assert.are.equal("until_time", s:run { until_time = 1 })
    assert.are.equal(11, good)
    assert.are.equal(1, #errors)
    assert.are.equal("reader", errors[1][1])
    assert.matches("sched_spec.lua:%d+: sensor unplugged", errors[1][2])
    assert.matches("stack traceback", errors[1][2])
    assert.are.equal("failed", bad.status)
    assert.is_false(bad.active)
    assert.matches("sensor unplugged", bad.error)
    assert.are.equal(1, #s)
    -- a failing handler does not take the scheduler down either
    s:on_error(function() error("handler broken") end)
    s:after(0, function() error("again") end)
    assert.are.equal("until_time", s:run { until_time = 2 })
    assert.are.equal(21, good)
    assert.are.equal(2, clock:now())
  end)

  it("cancels tasks from outside and from inside themselves", function()
    local s = sim()
    local runs = 0
    local h
    h = s:every(0.1, function(_, self)
      runs = runs + 1
      assert.are.equal(h, self)
      if runs == 3 then assert.is_true(self:cancel()) end
    end, "selfish")
    local other = s:every(0.1, function() end)
    assert.are.equal("scheduled", h.status)
    assert.are.equal("selfish", h.name)
    assert.are.equal(0.1, h.period)
    s:run { until_time = 1 }
    assert.are.equal(3, runs)
    assert.are.equal("cancelled", h.status)
    assert.is_false(h:cancel())
    assert.are.equal(11, other.runs)
    assert.is_true(other:cancel())
    assert.is_nil(other.runs)
    assert.are.equal(0, #s)
    local once = s:after(0.5, function() end)
    s:run { until_time = 2 }
    assert.are.equal("done", once.status)
    assert.is_false(once:cancel())
    -- cancel_all
    for _ = 1, 5 do s:every(1, function() end) end
    assert.are.equal(5, #s)
    s:cancel_all()
    assert.are.equal(0, #s)
  end)

  it("pauses, steps one task and ticks one due time", function()
    local s, clock = sim()
    local log_ = {}
    s:every(0.5, function(t) log_[#log_ + 1] = ("a%.1f"):format(t) end, "a")
    s:every(0.5, function(t) log_[#log_ + 1] = ("b%.1f"):format(t) end, "b")
    s:pause()
    assert.is_true(s.paused)
    assert.are.equal("paused", s:run { until_time = 10 })
    assert.are.equal(0, clock:now())
    assert.are.equal("a", s:step())
    assert.are.same({ "a0.0" }, log_)
    assert.are.equal("b", s:step())
    assert.are.equal(2, s:tick()) -- both tasks due at 0.5
    assert.are.equal(0.5, clock:now())
    assert.are.same({ "a0.0", "b0.0", "a0.5", "b0.5" }, log_)
    s:resume()
    assert.are.equal("until_time", s:run { until_time = 1 })
    assert.are.equal(6, #log_)
    -- pause from inside a task
    s:after(0.2, function() s:pause() end)
    assert.are.equal("paused", s:run { until_time = 5 })
    assert.near(1.2, clock:now(), 1e-9)
    s:cancel_all()
    assert.is_nil(s:step())
    assert.are.equal(0, s:tick())
  end)

  it("does not ask until_fn again right after an observer task", function()
    local s = sim()
    local worker, watcher, asked = 0, 0, 0
    s:every(0.1, function() worker = worker + 1 end, "worker")
    s:every(0.1, function() watcher = watcher + 1 end, { name = "watcher", observer = true })
    local reason = s:run { until_fn = function() asked = asked + 1 return worker >= 3 end }
    assert.are.equal("until_fn", reason)
    -- the run still ends right after the task that made until_fn true
    assert.are.equal(3, worker)
    assert.are.equal(2, watcher)
    assert.are.equal(4, asked) -- at the start and after each worker run
    assert.error_matches(function() s:every(1, function() end, { observer = "yes" }) end, "bad field 'observer'")
  end)

  it("refuses re-entrant runs and bad arguments with the argument named", function()
    local s, _, errors = sim()
    s:after(0, function() s:run() end, "nested")
    s:run { until_time = 1 }
    assert.matches("already running", errors[1][2])
    assert.error_matches(function() s:every(0, function() end) end, "#1.*period must be finite and > 0")
    assert.error_matches(function() s:every(1, 5) end, "#2")
    assert.error_matches(function() s:after(-1, function() end) end, "#1.*delay")
    assert.error_matches(function() s:every(1, function() end, { phase = -1 }) end, "bad field 'phase'")
    assert.error_matches(function() s:run { max_steps = 1.5 } end, "bad field 'max_steps'")
    assert.error_matches(function() s:run { until_fn = 3 } end, "bad field 'until_fn'")
    assert.error_matches(function() tycho.scheduler.new { clock = 3 } end, "bad field 'clock'")
    assert.error_matches(function() tycho.scheduler.new { realtime = "yes" } end, "bad field 'realtime'")
  end)

  it("lists its tasks and prints itself", function()
    local s = sim()
    s:every(0.2, function() end, "scan")
    s:after(1, function() end, "later")
    local ts = s:tasks()
    assert.are.equal(2, #ts)
    assert.are.same({ "scan", 0.2, 0, "scheduled" }, { ts[1].name, ts[1].period, ts[1].next_due, ts[1].status })
    assert.are.same({ "later", 0, 1 }, { ts[2].name, ts[2].period, ts[2].next_due })
    assert.matches("tycho.scheduler sim clock t=0%.?0? s, 2 tasks", tostring(s))
    assert.matches("tycho.task 'scan' every 0.2 s %(scheduled%)", tostring(s:every(0.2, function() end, "scan")))
    assert.are.equal("sim", s.clock.mode)
  end)

  it("releases task functions: 10000 create/cancel cycles leave memory flat", function()
    local s = sim()
    local function churn(n)
      for i = 1, n do
        local payload = { i }
        local h = s:every(0.1, function() return payload end, "churn")
        if i % 2 == 0 then h:cancel() else s:after(0, function() return payload end):cancel() h:cancel() end
      end
    end
    churn(10000)
    collectgarbage() collectgarbage()
    local before = collectgarbage("count")
    churn(10000)
    collectgarbage() collectgarbage()
    local after = collectgarbage("count")
    assert.are.equal(0, #s)
    assert.is_true(after - before < 64, ("grew by %.1f KiB"):format(after - before))

    -- the function is dropped on cancel, not when the handle dies
    local weak = setmetatable({}, { __mode = "v" })
    local h = s:every(1, function() end)
    weak[1] = (function() local f = function() end; weak[2] = f; return s:every(1, f) end)()
    h:cancel()
    weak[1]:cancel()
    collectgarbage() collectgarbage()
    assert.is_nil(weak[2])
  end)

  it("can be collected even when its callbacks capture it", function()
    local weak = setmetatable({}, { __mode = "v" })
    do
      local s = sim()
      s:every(0.1, function() return s end)
      weak[1] = s
    end
    collectgarbage() collectgarbage()
    assert.is_nil(weak[1])
  end)

  it("runs in real time on a wall clock, and paces a sim clock when asked", function()
    local clock = tycho.clock.new { mode = "wall" }
    local s = tycho.scheduler.new { clock = clock }
    local n = 0
    local t0 = tycho.clock.monotonic()
    s:every(0.01, function() n = n + 1 end)
    assert.are.equal("until_time", s:run { until_time = clock:now() + 0.05 })
    local took = tycho.clock.monotonic() - t0
    assert.is_true(took >= 0.045 and took < 1, "took " .. took)
    assert.is_true(n >= 2 and n <= 7, "runs " .. n)

    -- a wait hook replaces the sleep (a console polls its input there) and may stop the run
    local waited = 0
    s:run { until_time = clock:now() + 0.03, wait = function(sec)
      assert(sec > 0 and sec <= 0.011)
      waited = waited + 1
      local t1 = tycho.clock.monotonic()
      while tycho.clock.monotonic() - t1 < sec do end
    end }
    assert.is_true(waited >= 2)
    local r = s:run { until_time = clock:now() + 1, wait = function() s:stop() end }
    assert.are.equal("stopped", r)
    local r2, who2, msg = s:run { until_time = clock:now() + 1, wait = function() error("console gone") end }
    assert.are.same({ "error", "wait" }, { r2, who2 })
    assert.matches("console gone", msg)

    local s2, c2 = sim()
    s2:every(0.1, function() end)
    t0 = tycho.clock.monotonic()
    s2:run { until_time = 0.3, realtime = 10 }
    took = tycho.clock.monotonic() - t0
    assert.is_true(took >= 0.025 and took < 1, "took " .. took)
    assert.near(0.3, c2:now(), 1e-9)
  end)
end)

describe("log", function()
  it("formats lines with clock time, level and tag, and keeps a ring", function()
    local clock = tycho.clock.new { mode = "sim" }
    local lines = log.list_sink(10)
    local L = log.new { clock = clock, sinks = { lines }, ring = 3 }
    clock:advance(12.344)
    local S = L:child("state")
    assert.are.equal("[  12.34s] INFO  state: Explore -> Cluster", S:info("%s -> %s", "Explore", "Cluster"))
    assert.is_nil(L:debug("hidden"))
    L:set_level("debug")
    L:debug("shown")
    L:warn("w")
    L:error("e %d", 5)
    assert.are.same({ "[  12.34s] DEBUG shown", "[  12.34s] WARN  w", "[  12.34s] ERROR e 5" }, L:recent())
    assert.are.same({ "[  12.34s] ERROR e 5" }, L:recent(1))
    assert.are.equal(4, #lines.lines)
    -- never raises from a bad format or a broken sink
    L:add_sink(function() error("disk full") end)
    assert.matches("bad log format", L:info("%d", "x"))
    assert.error_matches(function() L:set_level("loud") end, "level debug, info, warn or error")
  end)

  it("logs scheduler errors once attached, and writes files and JSON lines", function()
    local s, clock = sim()
    local sink = log.list_sink()
    local L = log.new { clock = s, sinks = { sink } }:attach(s)
    s:after(1.5, function() error("boom") end, "igniter")
    s:run { until_time = 2 }
    assert.matches("^%[   1.50s%] ERROR task 'igniter' failed: .*sched_spec.lua:%d+: boom", sink.lines[1])
    local path = os.tmpname()
    local f = L:add_sink(log.file_sink(path, "w"))
    local buf = {}
    L:add_sink(log.json_sink { write = function(_, s_) buf[#buf + 1] = s_ end })
    clock:advance(0.5)
    L:child("nav"):info("goal \"x\"")
    L:remove_sink(f)
    local text = io.open(path):read("a")
    os.remove(path)
    assert.are.equal("[   2.50s] INFO  nav: goal \"x\"\n", text)
    assert.are.equal('{"level":"info","msg":"goal \\"x\\"","t":2.5,"tag":"nav"}', buf[1])
  end)

  it("encodes JSON", function()
    assert.are.equal('[1,2.5,"a\\nb",true,null]', log.json { 1, 2.5, "a\nb", true, 0 / 0 })
    assert.are.equal('{"a":{"b":[]},"z":1}', log.json { z = 1, a = { b = {} } })
    assert.are.equal('"\\u0001"', log.json "\1")
    local t = {}
    t.self = t
    assert.error_matches(function() log.json(t) end, "cycle")
  end)
end)
