--- State machines for behaviours: data plus functions, validated on load.
--
--   local def = fsm.define {
--     name = "heat_seek", initial = "Explore", fallback = "safe_stop",
--     states = {
--       Explore = { enter = fn, run = fn, exit = fn, goes_to = { "Engage", "Done" },
--                   transitions = { { to = "Engage", guard = fn, name = "hot" } } },
--       Done = { terminal = true },
--     },
--     interrupts = { { name = "ramp", guard = fn, state = "BackOff", resume = true } },
--   }
--   local m = fsm.new(def, blackboard, { runner = runner, on_transition = fn })
--   m:start()
--
-- Handlers get (blackboard, machine). enter and exit are plain calls that
-- must not block (no tasks.sleep/await); `run` is a coroutine body run by the
-- tasks runner; returning a state name moves there, returning fsm.RESUME
-- (from an interrupt's state) re-enters the interrupted state, returning
-- nothing stays in the state until a guard or m:go() moves it. `goes_to`
-- declares the states `run` may return: each name is checked when the
-- machine is defined (a misspelt one fails the definition), and a run that
-- returns a state its state did not declare is an error (the fallback is
-- entered) instead of a silent jump; fsm.dot draws them. Guards are
-- checked on every runner tick (the decision tick), in order, first true
-- wins. Interrupt guards are checked on every fast tick (opts.fast_rate Hz;
-- default: the decision tick); a firing interrupt cancels the current
-- state's coroutine (its awaited operation is cancelled), runs its exit and
-- enters the interrupt's state. While an interrupt is handled only the
-- interrupts listed before it can preempt; none fire in a terminal state. "Resume" re-enters the
-- interrupted state (enter + a fresh run): progress lives in the blackboard.
--
-- Any error in a handler or guard is reported (file:line, traceback) through
-- the scheduler's error handler and the machine goes to the fallback state
-- (fail safe, keep running). The default fallback "safe_stop" is added as an
-- empty terminal state when the definition has none; missions should define
-- their own that stops the motors.
local tasks = require "tasks"
local tycho = require "tycho"

local traceback = tycho.scheduler.traceback

local fsm = {}

fsm.RESUME = setmetatable({}, { __tostring = function() return "fsm.RESUME" end })

local STATE_FIELDS = { enter = true, run = true, exit = true, transitions = true,
                       terminal = true, doc = true, goes_to = true }
local DEF_FIELDS = { name = true, initial = true, fallback = true, states = true,
                     interrupts = true, doc = true }

local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
  return ks
end

local function is_fn(v) return type(v) == "function" end

--- fsm.check(def) -> normalised definition | nil, problems (array of strings)
function fsm.check(def)
  local p = {}
  local function bad(fmt, ...) p[#p + 1] = fmt:format(...) end
  if type(def) ~= "table" then return nil, { "definition must be a table, got " .. type(def) } end
  for _, k in ipairs(sorted_keys(def)) do
    if not DEF_FIELDS[k] then bad("unknown field '%s'", tostring(k)) end
  end
  local name = def.name or "fsm"
  if type(name) ~= "string" then bad("name must be a string") name = "fsm" end
  local states = def.states
  if type(states) ~= "table" or next(states) == nil then
    bad("states must be a non-empty table of name = state")
    states = {}
  end
  local fallback = def.fallback or "safe_stop"
  local out = { name = name, fallback = fallback, states = {}, interrupts = {}, doc = def.doc }
  if type(fallback) ~= "string" then bad("fallback must be a state name") end
  for _, sn in ipairs(sorted_keys(states)) do
    local st = states[sn]
    local where = ("state '%s'"):format(tostring(sn))
    if type(sn) ~= "string" then
      bad("%s: state names must be strings", where)
    elseif type(st) ~= "table" then
      bad("%s: must be a table, got %s", where, type(st))
    else
      for _, k in ipairs(sorted_keys(st)) do
        if not STATE_FIELDS[k] then bad("%s: unknown field '%s'", where, tostring(k)) end
      end
      for _, h in ipairs { "enter", "run", "exit" } do
        if st[h] ~= nil and not is_fn(st[h]) then
          bad("%s: %s must be a function, got %s", where, h, type(st[h]))
        end
      end
      if st.terminal and st.run ~= nil then
        bad("%s: a terminal state has no run handler", where)
      elseif not st.terminal and st.run == nil then
        bad("%s: no run handler (add run = function(bb, m) ... end or terminal = true)", where)
      end
      local trs = st.transitions or {}
      if type(trs) ~= "table" then bad("%s: transitions must be an array", where) trs = {} end
      local ntr = {}
      for i, tr in ipairs(trs) do
        local tn = type(tr) == "table" and tr.name
        local twhere = tn and ("transition '%s'"):format(tostring(tn)) or ("transition #%d"):format(i)
        if type(tr) ~= "table" then
          bad("%s: %s must be a table", where, twhere)
        else
          if type(tr.to) ~= "string" then
            bad("%s: %s has no target state (to = \"Name\")", where, twhere)
          elseif states[tr.to] == nil and not (tr.to == fallback and fallback == "safe_stop") then
            bad("%s: %s targets unknown state '%s'", where, twhere, tr.to)
          end
          if not is_fn(tr.guard) then
            bad("%s: %s needs a guard function, got %s", where, twhere, type(tr.guard))
          end
          local tname = tn or ("to " .. tostring(tr.to))
          ntr[#ntr + 1] = { to = tr.to, guard = tr.guard, name = tname, label = ":" .. tname }
        end
      end
      local goes_to
      if st.goes_to ~= nil then
        if type(st.goes_to) ~= "table" then
          bad("%s: goes_to must be an array of state names", where)
        elseif st.terminal then
          bad("%s: a terminal state goes nowhere (no goes_to)", where)
        else
          goes_to = {}
          for i, to in ipairs(st.goes_to) do
            if type(to) ~= "string" then
              bad("%s: goes_to[%d] must be a state name, got %s", where, i, type(to))
            elseif states[to] == nil and not (to == fallback and fallback == "safe_stop") then
              bad("%s: goes_to names unknown state '%s' (states: %s)", where, to,
                table.concat(sorted_keys(states), ", "))
            else
              goes_to[to] = i
            end
          end
        end
      end
      out.states[sn] = { enter = st.enter, run = st.run, exit = st.exit, terminal = st.terminal,
                         transitions = ntr, doc = st.doc, goes_to = goes_to,
                         goes_to_list = goes_to and st.goes_to or nil }
    end
  end
  if type(def.initial) ~= "string" then
    bad("initial must be a state name")
  elseif states[def.initial] == nil then
    bad("initial state '%s' is not defined", def.initial)
  end
  out.initial = def.initial
  if type(fallback) == "string" and states[fallback] == nil then
    if def.fallback ~= nil then
      bad("fallback state '%s' is not defined", fallback)
    else
      out.states[fallback] = { terminal = true, transitions = {}, builtin = true,
                               doc = "built-in: stop everything and wait" }
    end
  end
  local irqs = def.interrupts or {}
  if type(irqs) ~= "table" then bad("interrupts must be an array") irqs = {} end
  for i, q in ipairs(irqs) do
    local qwhere = type(q) == "table" and type(q.name) == "string"
                   and ("interrupt '%s'"):format(q.name) or ("interrupt #%d"):format(i)
    if type(q) ~= "table" then
      bad("%s must be a table", qwhere)
    else
      if type(q.name) ~= "string" then bad("%s needs a name", qwhere) end
      if not is_fn(q.guard) then bad("%s needs a guard function, got %s", qwhere, type(q.guard)) end
      if type(q.state) ~= "string" then
        bad("%s needs a state to handle it (state = \"Name\")", qwhere)
      elseif out.states[q.state] == nil then
        bad("%s targets unknown state '%s'", qwhere, q.state)
      end
      out.interrupts[i] = { name = q.name, guard = q.guard, state = q.state,
                            resume = q.resume and true or false, level = i }
    end
  end
  if #p > 0 then return nil, p end
  out.validated = true
  return out
end

--- fsm.define(def) -> normalised definition; raises one error listing every problem.
function fsm.define(def)
  local out, problems = fsm.check(def)
  if not out then
    local name = type(def) == "table" and type(def.name) == "string" and def.name or "fsm"
    error(("fsm '%s' is invalid:\n  %s"):format(name, table.concat(problems, "\n  ")), 2)
  end
  return out
end

local function dot_id(name) return '"' .. tostring(name):gsub('[\\"]', "\\%0") .. '"' end

--- fsm.dot(def) -> Graphviz text of a definition (raw or defined): states
-- (terminal ones doubled), the initial arrow, what `run` returns (goes_to,
-- solid), guarded transitions (dashed, labelled with the guard's name),
-- interrupts and their resume, and the fallback any error leads to.
--   dot -Tsvg -o fsm.svg <(tycho run -e 'print(require("fsm").dot(def))')
function fsm.dot(def)
  if type(def) ~= "table" or not def.validated then def = fsm.define(def) end
  local out = { ("digraph %s {"):format(dot_id(def.name)), "  rankdir=LR;",
                '  node [shape=box, style=rounded, fontname="Helvetica"];',
                '  edge [fontname="Helvetica", fontsize=10];',
                '  "(start)" [shape=point];', ("  \"(start)\" -> %s;"):format(dot_id(def.initial)) }
  local function add(fmt, ...) out[#out + 1] = "  " .. fmt:format(...) end
  for _, sn in ipairs(sorted_keys(def.states)) do
    local st = def.states[sn]
    if st.terminal then add("%s [peripheries=2];", dot_id(sn)) else add("%s;", dot_id(sn)) end
  end
  for _, sn in ipairs(sorted_keys(def.states)) do
    local st = def.states[sn]
    for _, to in ipairs(st.goes_to_list or {}) do add("%s -> %s;", dot_id(sn), dot_id(to)) end
    for _, tr in ipairs(st.transitions or {}) do
      add("%s -> %s [style=dashed, label=%s];", dot_id(sn), dot_id(tr.to), dot_id(tr.name))
    end
  end
  if #def.interrupts > 0 or def.states[def.fallback] then
    add('"(any state)" [shape=plaintext];')
  end
  for _, q in ipairs(def.interrupts) do
    add('"(any state)" -> %s [color=red, label=%s];', dot_id(q.state), dot_id("interrupt " .. q.name))
    if q.resume then add('%s -> "(any state)" [style=dotted, label="resume"];', dot_id(q.state)) end
  end
  add('"(any state)" -> %s [style=dotted, color=gray, label="error"];', dot_id(def.fallback))
  out[#out + 1] = "}"
  return table.concat(out, "\n") .. "\n"
end

local Machine = {}
Machine.__index = Machine

--- fsm.new(def, blackboard, opts) -> machine (not started).
-- opts: runner (tasks runner; or give it to m:start), on_transition(from, to, t, reason),
-- fast_rate (Hz for interrupt checks), history_max (default 1000), name.
function fsm.new(def, bb, opts)
  if type(def) ~= "table" or not def.validated then def = fsm.define(def) end
  opts = opts or {}
  local runner = opts.runner
  if runner ~= nil and (type(runner) ~= "table" or type(runner.spawn) ~= "function") then
    error("bad field 'runner' in argument #3 to 'fsm.new' (tasks runner expected)", 2)
  end
  if opts.fast_rate ~= nil and (type(opts.fast_rate) ~= "number" or not (opts.fast_rate > 0)) then
    error("bad field 'fast_rate' in argument #3 to 'fsm.new' (positive number of Hz expected)", 2)
  end
  return setmetatable({
    def = def, bb = bb or {}, runner = runner, name = opts.name or def.name,
    on_transition = opts.on_transition, fast_rate = opts.fast_rate,
    history = {}, history_max = opts.history_max or 1000,
    irq_stack = {}, transitions = 0,
  }, Machine)
end

function Machine:now() return self.runner and self.runner:now() or 0 end

function Machine:_report(what, msg)
  self.runner.scheduler:report_error(("%s:%s"):format(self.name, what), msg)
end

-- Calls a handler protected; on error reports it (as what .. what2: the
-- label is only built then, guards run every tick) and returns false.
function Machine:_call2(what, what2, fn, ...)
  if not fn then return true end
  local ok, err = xpcall(fn, traceback, ...)
  if not ok then self:_report(what .. what2, err) end
  return ok, err
end

function Machine:_call(what, fn, ...) return self:_call2(what, "", fn, ...) end

function Machine:_spawn_run(st)
  local sn = self.state
  local bb, m = self.bb, self
  local t = self.runner:spawn(("%s:%s"):format(self.name, sn), function() return st.run(bb, m) end)
  t.on_done = function(task) m:_run_done(task) end
  self.task = t
end

function Machine:_cancel_task()
  local t = self.task
  self.task = nil
  if t then self.runner:cancel(t) end
end

-- Leaves the current state and enters `to`. Errors in exit/enter send the
-- machine to the fallback (once; an error while entering the fallback marks
-- the machine failed and leaves it without a running coroutine).
function Machine:_switch(to, reason)
  local def, from = self.def, self.state
  local st = def.states[to]
  if not st then
    self:_report(tostring(from), ("transition to unknown state '%s' (%s)"):format(tostring(to), reason))
    to, reason, st = def.fallback, "unknown state '" .. tostring(to) .. "'", def.states[def.fallback]
  end
  local now = self:now()
  self:_cancel_task()
  if from then
    local fst = def.states[from]
    if fst then self:_call(from .. ":exit", fst.exit, self.bb, self) end
    local h = self.history[#self.history]
    if h and h.t_exit == nil then h.t_exit = now end
  end
  self.previous, self.state, self.transitions = from, to, self.transitions + 1
  self.finished = st.terminal and true or false
  local h = self.history
  h[#h + 1] = { state = to, t_enter = now, reason = reason }
  if #h > self.history_max then table.remove(h, 1) end
  if self.on_transition then self:_call("on_transition", self.on_transition, from, to, now, reason) end
  if not self:_call(to .. ":enter", st.enter, self.bb, self) then
    return self:_fail_to_fallback(to, "error in enter")
  end
  if st.run and self.state == to and not self._pending then self:_spawn_run(st) end
end

function Machine:_fail_to_fallback(where, why)
  if where == self.def.fallback then
    self.failed = ("%s in fallback state '%s'"):format(why, where)
    self:_cancel_task()
    return
  end
  self.irq_stack = {}
  self:_request(self.def.fallback, why)
end

-- Entry for every transition; serialises transitions requested while one
-- is in progress (from enter, exit or on_transition).
function Machine:_request(to, reason)
  if self._switching then
    self._pending = { to, reason }
    return
  end
  self._switching = true
  local n = 0
  while to do
    n = n + 1
    if n > 100 then
      self:_report(tostring(self.state), "more than 100 chained transitions; stopping at " .. tostring(to))
      break
    end
    -- handlers are already protected; this catches the machinery itself
    -- (e.g. a closed runner) so the machine never stays "switching"
    local ok, err = xpcall(self._switch, traceback, self, to, reason)
    if not ok then
      self._pending = nil
      self:_report(tostring(self.state), "transition to " .. tostring(to) .. " failed: " .. tostring(err))
      break
    end
    local p = self._pending
    self._pending = nil
    to, reason = p and p[1], p and p[2]
  end
  self._switching = false
end

function Machine:_run_done(t)
  if t ~= self.task then return end -- a stale coroutine (already replaced)
  self.task = nil
  local sn = self.state
  if t.status == "failed" then return self:_fail_to_fallback(sn, "error in run") end
  if t.status ~= "done" then return end
  local nxt = t.result
  if nxt == nil then return end
  if nxt == fsm.RESUME then return self:_resume_interrupted() end
  if type(nxt) ~= "string" or not self.def.states[nxt] then
    self:_report(sn .. ":run", ("run returned unknown state '%s'"):format(tostring(nxt)))
    return self:_fail_to_fallback(sn, "run returned unknown state")
  end
  local declared = self.def.states[sn].goes_to
  if declared and not declared[nxt] then
    self:_report(sn .. ":run", ("run returned '%s', which state '%s' does not declare (goes_to: %s)")
      :format(nxt, sn, table.concat(self.def.states[sn].goes_to_list, ", ")))
    return self:_fail_to_fallback(sn, "run returned an undeclared state")
  end
  self.irq_stack = {}
  self:_request(nxt, "run")
end

function Machine:_resume_interrupted()
  local top = table.remove(self.irq_stack)
  if not top or not top.resume_state then
    self:_report(tostring(self.state), "fsm.RESUME returned with no interrupted state to resume")
    return self:_fail_to_fallback(self.state, "nothing to resume")
  end
  self:_request(top.resume_state, "resume after " .. top.name)
end

-- Interrupts that may fire now: all, or those listed before the one being handled.
function Machine:_check_interrupts()
  if not self.state or self.stopped or self._switching or self.finished then return end
  local top = self.irq_stack[#self.irq_stack]
  local limit = top and top.level or math.huge
  for _, q in ipairs(self.def.interrupts) do
    if q.level >= limit then break end
    local ok, fire = self:_call2("interrupt ", q.name, q.guard, self.bb, self)
    if not ok then return self:_fail_to_fallback(self.state, "error in interrupt guard") end
    if fire then return self:interrupt(q.name) end
  end
end

function Machine:_decide()
  if not self.state or self.stopped or self._switching then return end
  local d = self._deferred
  if d then
    self._deferred = nil
    return self:_request(d[1], d[2])
  end
  if not self.fast_task then self:_check_interrupts() end
  local sn = self.state
  local st = self.def.states[sn]
  if not st then return end
  local trs = st.transitions
  for i = 1, #trs do
    local tr = trs[i]
    local ok, go = self:_call2(sn, tr.label, tr.guard, self.bb, self)
    if self.state ~= sn then return end -- the guard moved the machine itself
    if not ok then return self:_fail_to_fallback(sn, "error in guard") end
    if go then
      self.irq_stack = {}
      return self:_request(tr.to, tr.name)
    end
  end
end

--- m:start([runner]) enters the initial state and hooks the machine to the runner.
function Machine:start(runner)
  if self.hook then error("machine already started", 2) end
  if runner ~= nil then
    if type(runner) ~= "table" or type(runner.spawn) ~= "function" then
      error("bad argument #1 to 'start' (tasks runner expected)", 2)
    end
    self.runner = runner
  end
  if not self.runner then error("machine has no runner: fsm.new(def, bb, {runner = r}) or m:start(r)", 2) end
  local m = self
  self.stopped = nil
  self.hook = self.runner:on_tick(function() m:_decide() end, self.name .. " (decide)")
  if self.fast_rate then
    self.fast_task = self.runner.scheduler:every(1 / self.fast_rate,
      function() m:_check_interrupts() end, { name = self.name .. " (interrupts)" })
  end
  self:_request(self.def.initial, "start")
  return self
end

--- m:go(name [, reason]) moves to a state now (`goto` is a Lua keyword;
-- m["goto"] is the same). From inside the state's own coroutine the move
-- happens at the next decision tick and the coroutine is not resumed again.
function Machine:go(to, reason)
  if type(to) ~= "string" or not self.def.states[to] then
    error(("bad argument #1 to 'go' (known state expected, got '%s')"):format(tostring(to)), 2)
  end
  self.irq_stack = {}
  self:_request_here(to, reason or "go")
end

-- From inside the current state's own coroutine a transition would cancel
-- the caller mid-flight: defer it to the next decision tick and park the
-- coroutine (the switch cancels it before it would run again).
function Machine:_request_here(to, reason)
  local cur = tasks.current()
  if cur and cur == self.task then
    self._deferred = { to, reason }
    tasks.yield()
    error("unreachable: state coroutine resumed after a transition request")
  end
  self:_request(to, reason)
end
Machine["goto"] = Machine.go

--- m:interrupt(name) fires a declared interrupt now (as if its guard were true).
function Machine:interrupt(name)
  local q
  for _, x in ipairs(self.def.interrupts) do if x.name == name then q = x end end
  if not q then error(("bad argument #1 to 'interrupt' (unknown interrupt '%s')"):format(tostring(name)), 2) end
  local st = self.state
  self.irq_stack[#self.irq_stack + 1] = { name = q.name, level = q.level,
                                          resume_state = q.resume and st or nil }
  self:_request_here(q.state, "interrupt " .. q.name)
end

--- m:stop() cancels the running coroutine, runs the state's exit and
-- releases the runner hook and the fast task. The state name stays.
function Machine:stop()
  self:_cancel_task()
  if self.state and not self.stopped then
    local st = self.def.states[self.state]
    if st then self:_call(self.state .. ":exit", st.exit, self.bb, self) end
    local h = self.history[#self.history]
    if h and h.t_exit == nil then h.t_exit = self:now() end
  end
  self.stopped = true
  if self.hook then self.hook.remove() self.hook = nil end
  if self.fast_task then self.fast_task:cancel() self.fast_task = nil end
end

--- m:replace(new_def) -> true, message | nil, problems (hot reload).
-- If the current state still exists its coroutine restarts with the new
-- code (no exit/enter: the state did not change) and the blackboard stays.
-- Otherwise the old exit runs and the machine enters the new fallback.
function Machine:replace(new_def)
  local def, problems = new_def, nil
  if type(new_def) ~= "table" or not new_def.validated then def, problems = fsm.check(new_def) end
  if not def then return nil, problems end
  local old = self.def
  local sn = self.state
  -- interrupted states that vanished cannot be resumed
  local keep = {}
  for _, e in ipairs(self.irq_stack) do
    local level
    for _, q in ipairs(def.interrupts) do if q.name == e.name then level = q.level end end
    if level and (e.resume_state == nil or def.states[e.resume_state]) then
      keep[#keep + 1] = { name = e.name, level = level, resume_state = e.resume_state }
    end
  end
  self.irq_stack = keep
  if not sn or self.stopped then
    self.def = def
    return true, "definition replaced (machine not running)"
  end
  local st = def.states[sn]
  if st then
    self:_cancel_task()
    self.def = def
    self.finished = st.terminal and true or false
    if st.run then self:_spawn_run(st) end
    return true, ("kept state '%s'"):format(sn)
  end
  self:_cancel_task()
  local ost = old.states[sn]
  if ost then self:_call(sn .. ":exit", ost.exit, self.bb, self) end
  local h = self.history[#self.history]
  if h and h.t_exit == nil then h.t_exit = self:now() end
  self.def = def
  self.state = nil -- exit already ran
  self.irq_stack = {}
  local msg = ("state '%s' is gone: moved to fallback '%s'"):format(sn, def.fallback)
  self:_request(def.fallback, "reload: " .. msg)
  self.previous = sn
  return true, msg
end

--- Seconds since the current state was entered.
function Machine:time_in_state()
  local h = self.history[#self.history]
  return h and self:now() - h.t_enter or 0
end

function Machine:__tostring()
  return ("fsm '%s' in %s%s"):format(self.name, tostring(self.state),
    self.failed and " (failed)" or self.finished and " (finished)" or "")
end

return fsm
