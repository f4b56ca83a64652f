--- Coroutine tasks on top of tycho.scheduler (DESIGN principle 3: no blocking).
--
-- A runner owns one periodic scheduler task. On each of its ticks it first
-- calls its tick hooks (state machines check guards there), then resumes,
-- in spawn order, every coroutine whose wait is over. Coroutines spawned
-- during a tick run in that same tick. Inside a coroutine:
--
--   tasks.sleep(seconds)               clock time; wakes on the first tick >= now + seconds
--   tasks.wait_until(pred, timeout)    -> true | false, "timeout"
--   tasks.yield()                      until the next tick
--   tasks.await(op, timeout)           -> whatever op:poll() returned after `done`,
--                                         or nil, "timeout" (op:cancel() is called)
--
-- An operation is any table with op:poll() -> done, results... and optionally
-- op:cancel(); tasks.operation{start=, poll=, cancel=} builds one. Device and
-- navigation code use it to offer yielding calls, e.g.
--   function nav.go_to(x, y, timeout) return tasks.await(start_goal(x, y), timeout) end
-- returning "arrived" / nil, "failed: reason" / nil, "timeout".
--
-- A coroutine error is reported (task name, message, traceback with
-- file:line) through the scheduler's error handler and the runner carries on
-- with the others; so is a coroutine that runs more than `budget` Lua
-- instructions without yielding (a runaway loop). Timing granularity is the
-- runner's tick.
local tycho = require "tycho"

local tasks = {}

--- Default budget per resume for new runners (fail safe against a runaway
-- loop in a behaviour): 1 s of CPU, enforced by a timer that installs the
-- yielding hook only when a step overruns, so normal steps pay nothing. An
-- explicit instruction count (`budget = n`) uses a count hook instead, which
-- costs about two thirds more time in tight Lua loops (Lua 5.4 checks the
-- hook at every instruction once any count hook is set). Off under LuaJIT,
-- which can neither yield from a hook nor hook compiled code.
tasks.DEFAULT_BUDGET = false
tasks.DEFAULT_BUDGET_S = not rawget(_G, "jit") and 1.0 or false

local unpack = table.unpack or unpack
-- tracebacks that stop at the scheduler instead of listing its caller
local traceback = tycho.scheduler.traceback
local EPS = 1e-9 -- clock comparisons: 0.1 + 0.2 must reach a tick at 0.3

-- coroutine -> task record. Weak keys *and* values: the record refers to its
-- coroutine, and LuaJIT has no ephemerons, so weak keys alone would keep
-- every finished task alive there.
local by_co = setmetatable({}, { __mode = "kv" })

local FINAL = { done = true, failed = true, cancelled = true }

local Task = {}
Task.__index = Task

function Task:cancel() return self.runner:cancel(self) end
function Task:__tostring() return ("task '%s' (%s)"):format(self.name, self.status) end

local Runner = {}
Runner.__index = Runner

local function pack(...) return { n = select("#", ...), ... } end

local function check_sched(s)
  local ok, has = pcall(function() return s.every and s.now and s.report_error end)
  if not (ok and has) then
    error("bad argument #1 to 'tasks.new' (tycho.scheduler expected, got " .. type(s) .. ")", 3)
  end
end

-- Raised inside a coroutine that ran too long without yielding.
local function runaway()
  local co = coroutine.running()
  local t = co and by_co[co]
  if not t or t.status ~= "running" then return end
  error(("runaway: task ran more than %d Lua instructions without yielding"):format(
    t and t.runner.budget or -1), 2)
end

--- tasks.new(scheduler, {rate = 20, name = "tasks", phase = 0, budget = n, budget_s = s}) -> runner
-- budget: Lua VM instructions a coroutine may run per resume before it is
-- failed as a runaway loop (a count hook; false = no limit); budget_s: CPU
-- seconds per resume instead (default tasks.DEFAULT_BUDGET_S; false = none).
function tasks.new(sched, opts)
  check_sched(sched)
  opts = opts or {}
  if type(opts) ~= "table" then error("bad argument #2 to 'tasks.new' (table expected)", 2) end
  local rate = opts.rate or 20
  if type(rate) ~= "number" or not (rate > 0) or rate == math.huge then
    error("bad field 'rate' in argument #2 to 'tasks.new' (positive number of Hz expected)", 2)
  end
  local budget = opts.budget
  if budget == nil then budget = tasks.DEFAULT_BUDGET end
  if budget ~= false and (type(budget) ~= "number" or not (budget >= 1)) then
    error("bad field 'budget' in argument #2 to 'tasks.new' (instruction count or false expected)", 2)
  end
  local budget_s = opts.budget_s
  if budget_s == nil then budget_s = budget and false or tasks.DEFAULT_BUDGET_S end
  if budget_s ~= false and (type(budget_s) ~= "number" or not (budget_s > 0)) then
    error("bad field 'budget_s' in argument #2 to 'tasks.new' (seconds > 0 or false expected)", 2)
  end
  local r = setmetatable({
    scheduler = sched, rate = rate, period = 1 / rate, name = opts.name or "tasks",
    _tasks = {}, hooks = {}, ticks = 0, budget = budget and math.floor(budget) or false,
    budget_s = budget_s,
  }, Runner)
  r.handle = sched:every(r.period, function(now) r:_tick(now) end,
                         { name = r.name, phase = opts.phase or 0 })
  return r
end

function Runner:now() return self.scheduler:now() end

function Runner:_report(name, msg) self.scheduler:report_error(name, msg) end

--- runner:spawn(name, fn, ...) -> task {name, status, result, results, error}
-- fn(...) starts on the next tick (or later in this tick if spawned during one).
function Runner:spawn(name, fn, ...)
  if type(name) ~= "string" then
    error("bad argument #1 to 'spawn' (string name expected, got " .. type(name) .. ")", 2)
  end
  if type(fn) ~= "function" then
    error("bad argument #2 to 'spawn' (function expected, got " .. type(fn) .. ")", 2)
  end
  if self.closed then error("spawn on a closed runner", 2) end
  local co = coroutine.create(fn)
  local t = setmetatable({ name = name, co = co, runner = self, status = "ready",
                           args = pack(...), spawned = self:now() }, Task)
  by_co[co] = t
  self._tasks[#self._tasks + 1] = t
  return t
end

-- Ends a task (final status) and tells whoever watches it.
local function finish(self, t, status)
  t.status = status
  t.wait, t.op, t.pred, t.deadline, t.wake = nil, nil, nil, nil, nil
  if t.on_done then
    local ok, err = xpcall(t.on_done, traceback, t)
    if not ok then self:_report(t.name .. " (on_done)", err) end
  end
end

local function fail(self, t, err)
  local msg = debug.traceback(t.co, tostring(err))
  t.error = msg
  if t.op and t.op.cancel then pcall(t.op.cancel, t.op) end
  self:_report(t.name, msg)
  finish(self, t, "failed")
end

local watchdog = tycho.watchdog

local function after_resume(self, t, ok, ...)
  if t.status == "cancelled" then return end -- it cancelled itself while running
  if ok and t.armed and watchdog.tripped(t.co) then
    -- the C hook suspended it mid-loop: it never comes back
    t.armed = nil
    return fail(self, t, self.budget
      and ("runaway: task ran more than %d Lua instructions without yielding"):format(self.budget)
      or ("runaway: task ran more than %.3g s of CPU without yielding"):format(self.budget_s))
  end
  if not ok then return fail(self, t, (...)) end
  if coroutine.status(t.co) == "dead" then
    t.results = pack(...)
    t.result = t.results[1]
    return finish(self, t, "done")
  end
  if not t.wait then t.wait, t.status = "yield", "ready" end -- a bare coroutine.yield()
end

-- Lua 5.4: a resume with its CPU budget, in C (LuaJIT has no yielding hook)
local wd_resume = not rawget(_G, "jit") and watchdog.resume or nil

local function resume(self, t, ...)
  t.wait, t.op, t.pred, t.deadline, t.wake = nil, nil, nil, nil, nil
  t.status = "running"
  if not self.budget and self.budget_s and wd_resume then
    -- the default: a CPU-time budget per resume; the timer stays armed
    -- across resumes, so a normal step pays one clock read
    return after_resume(self, t, wd_resume(t.co, self.budget_s, ...))
  end
  -- setting the hook restarts its count, so the budget is per resume
  if self.budget then
    -- a C hook that yields (Lua 5.4: no pcall in the script can catch it),
    -- else an erroring Lua hook (LuaJIT)
    t.armed = watchdog.arm(t.co, self.budget)
    if not t.armed then debug.sethook(t.co, runaway, "", self.budget) end
  elseif self.budget_s then
    -- the default: a CPU-time budget whose timer installs the same hook only
    -- when a step overruns, so a normal step runs at full speed
    t.armed = watchdog.arm_time(t.co, self.budget_s)
    t.timed = t.armed
  end
  local function done(...)
    if t.timed then watchdog.disarm_time(t.co) t.timed = nil end
    if t.armed and not watchdog.tripped(t.co) then watchdog.disarm(t.co) end
    return after_resume(self, t, ...)
  end
  return done(coroutine.resume(t.co, ...))
end

local function after_poll(self, t, now, ok, done, ...)
  if not ok then return fail(self, t, "operation poll failed: " .. tostring(done)) end
  if done then return resume(self, t, ...) end
  if t.deadline and now + EPS >= t.deadline then
    local op = t.op
    if op.cancel then
      local cok, cerr = pcall(op.cancel, op)
      if not cok then self:_report(t.name .. " (operation cancel)", tostring(cerr)) end
    end
    return resume(self, t, nil, "timeout")
  end
end

local function poll(self, t, now)
  local w = t.wait
  if w == nil then -- first run
    local a = t.args
    t.args = nil
    return resume(self, t, unpack(a, 1, a.n))
  elseif w == "yield" then
    return resume(self, t)
  elseif w == "sleep" then
    if now + EPS >= t.wake then return resume(self, t) end
  elseif w == "until" then
    local ok, v = pcall(t.pred)
    if not ok then return fail(self, t, "wait_until predicate failed: " .. tostring(v)) end
    if v then return resume(self, t, true) end
    if t.deadline and now + EPS >= t.deadline then return resume(self, t, false, "timeout") end
  elseif w == "await" then
    return after_poll(self, t, now, pcall(t.op.poll, t.op))
  end
end

function Runner:_tick(now)
  self.ticks = self.ticks + 1
  self.tick_time = now
  local hooks = self.hooks
  for i = 1, #hooks do
    local h = hooks[i]
    if not h.removed then
      local ok, err = xpcall(h.fn, traceback, now)
      if not ok then self:_report(h.name, err) end
    end
  end
  local list, i, ended = self._tasks, 1, false
  while i <= #list do -- tasks spawned meanwhile are appended and run this tick
    local t = list[i]
    if not FINAL[t.status] then poll(self, t, now) end
    if FINAL[t.status] then ended = true end
    i = i + 1
  end
  if ended then -- drop the finished ones (in order)
    local j = 0
    for k = 1, #list do
      local t = list[k]
      list[k] = nil
      if not FINAL[t.status] then
        j = j + 1
        list[j] = t
      end
    end
  end
  if self._hooks_dirty then
    local keep = {}
    for _, h in ipairs(hooks) do if not h.removed then keep[#keep + 1] = h end end
    self.hooks, self._hooks_dirty = keep, nil
  end
end

--- runner:on_tick(fn [, name]) -> hook with :remove(). fn(now) runs at the
-- start of every tick, before the coroutines (state machines decide here).
function Runner:on_tick(fn, name)
  if type(fn) ~= "function" then error("bad argument #1 to 'on_tick' (function expected)", 2) end
  local runner = self
  local h = { fn = fn, name = name or (self.name .. " hook") }
  function h.remove()
    if not h.removed then h.removed, runner._hooks_dirty = true, true end
  end
  self.hooks[#self.hooks + 1] = h
  return h
end

--- runner:cancel(task) -> true if it was live. Cancels the operation it is
-- awaiting (op:cancel()), then drops the coroutine (closing it under Lua 5.4,
-- so to-be-closed variables run). A task cancelling itself stops at its
-- next yield.
function Runner:cancel(t)
  if type(t) ~= "table" or getmetatable(t) ~= Task then
    error("bad argument #1 to 'cancel' (task expected)", 2)
  end
  if FINAL[t.status] then return false end
  local op = t.op
  if op and op.cancel then
    local ok, err = pcall(op.cancel, op)
    if not ok then self:_report(t.name .. " (operation cancel)", tostring(err)) end
  end
  local running = coroutine.status(t.co) ~= "suspended"
  finish(self, t, "cancelled")
  if not running and coroutine.close then
    local ok, err = coroutine.close(t.co)
    if not ok then self:_report(t.name .. " (close)", debug.traceback(tostring(err))) end
  end
  return true
end

--- runner:list() -> array of {name, status} for live tasks, in spawn order.
function Runner:list()
  local out = {}
  for _, t in ipairs(self._tasks) do
    if not FINAL[t.status] then out[#out + 1] = { name = t.name, status = t.status, task = t } end
  end
  return out
end

--- runner:close(): cancels every task, drops the hooks and the scheduler task.
function Runner:close()
  for _, t in ipairs(self._tasks) do self:cancel(t) end
  self._tasks, self.hooks, self.closed = {}, {}, true
  self.handle:cancel()
end

-- Functions used from inside a task coroutine --------------------------------

local function self_task(fname)
  local co = coroutine.running()
  local t = co and by_co[co]
  if not t then
    error(fname .. " must be called from inside a task coroutine (runner:spawn)", 3)
  end
  return t
end

local function check_seconds(v, fname, argn, optional)
  if optional and v == nil then return end
  if type(v) ~= "number" or v ~= v or v < 0 then
    error(("bad argument #%d to '%s' (seconds >= 0 expected, got %s)"):format(
      argn, fname, tostring(v)), 3)
  end
end

--- The running task record, or nil outside task coroutines.
function tasks.current()
  local co = coroutine.running()
  return co and by_co[co] or nil
end

--- Clock time from inside a task.
function tasks.now() return self_task("tasks.now").runner:now() end

function tasks.sleep(seconds)
  check_seconds(seconds, "sleep", 1)
  local t = self_task("tasks.sleep")
  t.wait, t.wake, t.status = "sleep", t.runner:now() + seconds, "sleeping"
  coroutine.yield()
end

local co_running, co_yield = coroutine.running, coroutine.yield

function tasks.yield()
  local t = by_co[co_running()] or self_task("tasks.yield")
  t.wait, t.status = "yield", "ready"
  co_yield()
end

--- tasks.wait_until(pred, timeout) -> true | false, "timeout". pred() is
-- checked now and then once per tick (outside the coroutine).
function tasks.wait_until(pred, timeout)
  if type(pred) ~= "function" then
    error("bad argument #1 to 'wait_until' (function expected, got " .. type(pred) .. ")", 2)
  end
  check_seconds(timeout, "wait_until", 2, true)
  local t = self_task("tasks.wait_until")
  if pred() then return true end
  t.wait, t.pred, t.status = "until", pred, "waiting"
  t.deadline = timeout and t.runner:now() + timeout or nil
  return coroutine.yield()
end

--- tasks.await(op, timeout) -> the results op:poll() gave with done = true,
-- or nil, "timeout" after calling op:cancel().
function tasks.await(op, timeout)
  if type(op) ~= "table" or type(op.poll) ~= "function" then
    error("bad argument #1 to 'await' (operation with a poll method expected)", 2)
  end
  check_seconds(timeout, "await", 2, true)
  local t = self_task("tasks.await")
  local function first(done, ...)
    if done then return true, ... end
    return false
  end
  local r = pack(first(op:poll()))
  if r[1] then return unpack(r, 2, r.n) end
  t.wait, t.op, t.status = "await", op, "awaiting"
  t.deadline = timeout and t.runner:now() + timeout or nil
  return coroutine.yield()
end

--- tasks.operation{start = fn, poll = fn, cancel = fn, name = "..."} -> op.
-- start() runs once, now; poll() -> done, results...; cancel() on timeout or
-- task cancellation.
function tasks.operation(spec)
  if type(spec) ~= "table" or type(spec.poll) ~= "function" then
    error("bad argument #1 to 'operation' (table with a poll function expected)", 2)
  end
  for _, k in ipairs { "start", "cancel" } do
    if spec[k] ~= nil and type(spec[k]) ~= "function" then
      error(("bad field '%s' in argument #1 to 'operation' (function expected)"):format(k), 2)
    end
  end
  local op = { name = spec.name or "operation" }
  local p, c = spec.poll, spec.cancel
  function op.poll() return p(op) end
  if c then op.cancel = function() return c(op) end end
  if spec.start then spec.start(op) end
  return op
end

return tasks
