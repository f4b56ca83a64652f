local tycho = require "tycho"
local tasks = require "tasks"
local fsm = require "fsm"

local function setup()
  local clock = tycho.clock.new { mode = "sim" }
  local errors = {}
  local s = tycho.scheduler.new { clock = clock,
                                  on_error = function(name, msg) errors[#errors + 1] = { name = name, msg = msg } end }
  return tasks.new(s, { rate = 10 }), s, errors
end

local function noop() end

local function states_of(m)
  local out = {}
  for i, h in ipairs(m.history) do out[i] = h.state end
  return out
end

describe("fsm.define", function()
  it("lists every problem with the state names", function()
    local ok, err = pcall(fsm.define, {
      name = "heat_seek", initial = "Explor",
      states = {
        Explore = { run = noop, transitions = { { name = "done", to = "Clusterr", guard = noop },
                                                { to = "Explore", guard = true } } },
        Cluster = { enter = noop },
        Fire = { run = noop, exitt = noop },
        Done = { terminal = true, run = noop },
      },
      interrupts = { { name = "ramp", guard = noop, state = "Backoff" } },
    })
    assert.is_false(ok)
    assert.matches("fsm 'heat_seek' is invalid:", err, 1, true)
    for _, want in ipairs {
      "state 'Explore': transition 'done' targets unknown state 'Clusterr'",
      "state 'Explore': transition #2 needs a guard function, got boolean",
      "state 'Cluster': no run handler",
      "state 'Fire': unknown field 'exitt'",
      "state 'Done': a terminal state has no run handler",
      "initial state 'Explor' is not defined",
      "interrupt 'ramp' targets unknown state 'Backoff'",
    } do
      assert.matches(want, err, 1, true)
    end
    local _, problems = fsm.check { initial = "A", states = { A = { run = noop } }, fallback = "Safe" }
    assert.are.same({ "fallback state 'Safe' is not defined" }, problems)
    assert.is_nil((fsm.check { initial = "A", states = {} }))
    assert.is_nil((fsm.check "nope"))
  end)

  it("adds a terminal safe_stop unless the machine defines its own fallback", function()
    local def = fsm.define { initial = "A", states = { A = { run = noop,
      transitions = { { to = "safe_stop", guard = noop } } } } }
    assert.is_true(def.states.safe_stop.terminal)
    assert.are.equal("safe_stop", def.fallback)
  end)
end)

describe("fsm machine", function()
  it("moves when run returns a state name and keeps a timed history", function()
    local r, s = setup()
    local log = {}
    local function rec(x) return function() log[#log + 1] = x end end
    local def = fsm.define {
      name = "seq", initial = "A",
      states = {
        A = { enter = rec("enter A"), exit = rec("exit A"),
              run = function(bb) tasks.sleep(0.5) bb.visited = "A" return "B" end },
        B = { enter = rec("enter B"), run = function() tasks.sleep(0.3) return "Done" end },
        Done = { terminal = true, enter = rec("enter Done") },
      },
    }
    local transitions = {}
    local bb = {}
    local m = fsm.new(def, bb, { runner = r, on_transition = function(from, to, t, why)
      transitions[#transitions + 1] = ("%s->%s@%.1f(%s)"):format(tostring(from), to, t, why) end })
    m:start()
    assert.are.equal("A", m.state)
    s:run { until_fn = function() return m.finished end, until_time = 10 }
    assert.are.equal("Done", m.state)
    assert.are.equal("A", bb.visited)
    assert.are.same({ "enter A", "exit A", "enter B", "enter Done" }, log)
    assert.are.same({ "nil->A@0.0(start)", "A->B@0.5(run)", "B->Done@0.8(run)" }, transitions)
    assert.are.same({ "A", "B", "Done" }, states_of(m))
    assert.near(0.5, m.history[1].t_exit, 1e-9)
    assert.near(0.5, m.history[2].t_enter, 1e-9)
    assert.is_nil(m.history[3].t_exit)
    assert.matches("fsm 'seq' in Done %(finished%)", tostring(m))
  end)

  it("checks guards every decision tick; the first true one wins and cancels run", function()
    local r, s = setup()
    local bb = { hot = false, exited = 0 }
    local op = { cancelled = 0, poll = function() return false end }
    function op:cancel() self.cancelled = self.cancelled + 1 end
    local m = fsm.new({
      initial = "Explore",
      states = {
        Explore = { run = function() tasks.await(op) return "Explore" end,
                    exit = function(b) b.exited = b.exited + 1 end,
                    transitions = { { name = "cold", to = "Idle", guard = function() return false end },
                                    { name = "hot", to = "Engage", guard = function(b) return b.hot end },
                                    { name = "also hot", to = "Idle", guard = function(b) return b.hot end } } },
        Engage = { run = function() tasks.sleep(100) end },
        Idle = { run = noop },
      },
    }, bb, { runner = r }):start()
    s:after(0.75, function() bb.hot = true end)
    s:run { until_time = 2 }
    assert.are.equal("Engage", m.state)
    assert.near(0.8, m.history[2].t_enter, 1e-9)
    assert.are.equal("hot", m.history[2].reason)
    assert.are.equal(1, op.cancelled) -- the awaited operation (say a nav goal) was cancelled
    assert.are.equal(1, bb.exited)
  end)

  it("preempts with an interrupt and resumes the interrupted state", function()
    local r, s, errors = setup()
    local bb = { pitch = 0, goals = 0, backoffs = 0 }
    local goal = { cancelled = 0 }
    function goal.poll() return false end
    function goal.cancel(self) self.cancelled = self.cancelled + 1 end
    local m = fsm.new({
      name = "mission", initial = "Explore",
      states = {
        Explore = { run = function(b) b.goals = b.goals + 1 tasks.await(goal) end },
        BackOff = { enter = function(b) b.backoffs = b.backoffs + 1 end,
                    run = function(b) tasks.sleep(0.5) b.pitch = 0 return fsm.RESUME end },
      },
      interrupts = { { name = "ramp", guard = function(b) return b.pitch > 0.2 end,
                       state = "BackOff", resume = true } },
    }, bb, { runner = r, fast_rate = 50 }):start()
    s:after(1.01, function() bb.pitch = 0.3 end)
    s:run { until_time = 3 }
    assert.are.same({ "Explore", "BackOff", "Explore" }, states_of(m))
    assert.near(1.02, m.history[2].t_enter, 1e-9) -- the next 50 Hz fast tick
    assert.are.equal("interrupt ramp", m.history[2].reason)
    assert.are.equal("resume after ramp", m.history[3].reason)
    assert.are.equal(1, goal.cancelled)
    assert.are.same({ 2, 1 }, { bb.goals, bb.backoffs })
    assert.are.equal(0, #errors)
    -- m:interrupt fires one by name; while handled it does not re-fire itself
    m:interrupt("ramp")
    assert.are.equal("BackOff", m.state)
    bb.pitch = 1
    s:run { until_time = 3.2 }
    assert.are.equal("BackOff", m.state)
    m:stop()
    assert.are.equal(0, #s - 1) -- only the runner's task is left
  end)

  it("goes to the fallback when a handler fails, and reports it", function()
    local r, s, errors = setup()
    local stopped = false
    local m = fsm.new({
      name = "fragile", initial = "A", fallback = "Safe",
      states = {
        A = { run = function() tasks.sleep(0.2) local x = nil return x.y end },
        Safe = { enter = function() stopped = true end, terminal = true },
      },
    }, {}, { runner = r }):start()
    s:run { until_time = 1 }
    assert.are.equal("Safe", m.state)
    assert.is_true(stopped)
    assert.are.equal("error in run", m.history[2].reason)
    assert.are.equal("fragile:A", errors[1].name)
    assert.matches("fsm_spec.lua:%d+: attempt to index", errors[1].msg)

    -- enter failing, and a run returning a state that does not exist
    local r2, s2, errors2 = setup()
    local m2 = fsm.new({
      initial = "A",
      states = { A = { run = function() return "Nowhere" end },
                 B = { enter = function() error("no B") end, run = noop } },
    }, {}, { runner = r2 }):start()
    s2:run { until_time = 0.5 }
    assert.are.equal("safe_stop", m2.state)
    assert.matches("unknown state 'Nowhere'", errors2[1].msg)
    m2:go("B")
    assert.are.equal("safe_stop", m2.state)
    assert.are.same({ "A", "safe_stop", "B", "safe_stop" }, states_of(m2))
    assert.matches("no B", errors2[2].msg)
  end)

  it("moves on m:go from outside and from inside the state's own coroutine", function()
    local r, s = setup()
    local after_go = false
    local m = fsm.new({
      initial = "A",
      states = {
        A = { run = function(_, mm) tasks.sleep(0.25) mm:go("B", "self") after_go = true end },
        B = { run = function() tasks.sleep(10) end },
        C = { run = noop },
      },
    }, {}, { runner = r }):start()
    s:run { until_time = 1 }
    assert.are.equal("B", m.state)
    assert.are.equal("self", m.history[2].reason)
    assert.is_false(after_go)
    m["goto"](m, "C")
    assert.are.equal("C", m.state)
    assert.error_matches(function() m:go("Z") end, "known state expected")

    -- the runner may come at start; an interrupt raised from inside run is deferred too
    local r2, s2 = setup()
    local m2 = fsm.new({
      initial = "Work",
      states = {
        Work = { run = function(_, mm) tasks.sleep(0.2) mm:interrupt("bump") error("not reached") end },
        Recover = { run = function() tasks.sleep(0.1) return fsm.RESUME end },
        Done = { terminal = true },
      },
      interrupts = { { name = "bump", guard = function(bb) return bb.bumped end, state = "Recover", resume = true } },
    }, { bumped = false })
    assert.error_matches(function() m2:start() end, "no runner")
    m2:start(r2)
    s2:run { until_time = 0.45 }
    assert.are.same({ "Work", "Recover", "Work" }, states_of(m2))
    m2:go("Done")
    m2.bb.bumped = true
    s2:run { until_time = 1 }
    assert.are.equal("Done", m2.state) -- no interrupts in a terminal state
  end)

  it("replaces its definition: keeps the state and blackboard, or falls back", function()
    local r, s = setup()
    local bb = { n = 0 }
    local function make(version, with_b)
      local states = {
        A = { run = function(b) tasks.sleep(0.3) return "B" end },
        B = { run = function(b) while true do b.n = b.n + 1 b.version = version tasks.yield() end end },
      }
      if not with_b then states.B = nil states.A.run = noop end
      return { name = "hot", initial = "A", states = states }
    end
    local m = fsm.new(make(1, true), bb, { runner = r }):start()
    s:run { until_time = 1 }
    assert.are.equal("B", m.state)
    assert.are.equal(1, bb.version)
    local ok, msg = m:replace(make(2, true))
    assert.is_true(ok)
    assert.are.equal("kept state 'B'", msg)
    s:run { until_time = 1.5 }
    assert.are.equal("B", m.state)
    assert.are.equal(2, bb.version)   -- the new code runs
    assert.is_true(bb.n > 10)         -- and the blackboard survived
    local bad, problems = m:replace { initial = "Q", states = { A = { run = noop } } }
    assert.is_nil(bad)
    assert.matches("initial state 'Q'", problems[1])
    assert.are.equal("B", m.state)   -- an invalid definition changes nothing
    ok, msg = m:replace(make(3, false))
    assert.is_true(ok)
    assert.are.equal("state 'B' is gone: moved to fallback 'safe_stop'", msg)
    assert.are.equal("safe_stop", m.state)
    assert.is_true(m.finished)
  end)
end)

describe("declared transitions (goes_to)", function()
  local function def(ret, goes_to)
    return {
      name = "declared", initial = "A",
      states = {
        A = { goes_to = goes_to, run = function() tasks.sleep(0.1) return ret end },
        Bee = { run = function() tasks.sleep(10) end },
        C = { run = noop },
        Done = { terminal = true },
      },
    }
  end

  it("refuses a misspelt or misplaced declaration when the machine is defined", function()
    local ok, err = pcall(fsm.define, def("Bee", { "Be", 3 }))
    assert.is_false(ok)
    assert.matches("state 'A': goes_to names unknown state 'Be' (states: A, Bee, C, Done)", err, 1, true)
    assert.matches("state 'A': goes_to[2] must be a state name, got number", err, 1, true)
    local _, problems = fsm.check { initial = "A", states = { A = { run = noop },
      Done = { terminal = true, goes_to = { "A" } } } }
    assert.are.same({ "state 'Done': a terminal state goes nowhere (no goes_to)" }, problems)
    _, problems = fsm.check { initial = "A", states = { A = { run = noop, goes_to = "A" } } }
    assert.are.same({ "state 'A': goes_to must be an array of state names" }, problems)
  end)

  it("moves to a declared state and falls back, reporting it, on an undeclared one", function()
    local r, s = setup()
    local m = fsm.new(def("Bee", { "Bee", "Done" }), {}, { runner = r }):start()
    s:run { until_time = 0.5 }
    assert.are.equal("Bee", m.state)

    local r2, s2, errors = setup()
    local m2 = fsm.new(def("C", { "Bee", "Done" }), {}, { runner = r2 }):start()
    s2:run { until_time = 0.5 }
    assert.are.same({ "A", "safe_stop" }, states_of(m2))
    assert.are.equal("declared:A:run", errors[1].name)
    assert.matches("run returned 'C', which state 'A' does not declare (goes_to: Bee, Done)", errors[1].msg, 1, true)
  end)

  it("exports every state and every declared, guarded, interrupt and fallback edge to Graphviz", function()
    local d = def("Bee", { "Bee", "Done" })
    d.states.C.transitions = { { to = "Done", guard = noop, name = "finished" } }
    d.states.C.goes_to = { "A" }
    d.interrupts = { { name = "bump", state = "C", resume = true, guard = noop } }
    local text = fsm.dot(d)
    assert.matches('^digraph "declared" {\n', text)
    assert.matches('"%(start%)" %-> "A";', text)
    for _, st in ipairs { "A", "Bee", "C", "safe_stop" } do assert.matches('\n  "' .. st .. '"', text, 1, true) end
    assert.matches('"Done" [peripheries=2];', text, 1, true)
    assert.matches('"A" -> "Bee";', text, 1, true)
    assert.matches('"A" -> "Done";', text, 1, true)
    assert.matches('"C" -> "A";', text, 1, true)
    assert.matches('"C" -> "Done" [style=dashed, label="finished"];', text, 1, true)
    assert.matches('"(any state)" -> "C" [color=red, label="interrupt bump"];', text, 1, true)
    assert.matches('"C" -> "(any state)" [style=dotted, label="resume"];', text, 1, true)
    assert.matches('"(any state)" -> "safe_stop" [style=dotted, color=gray, label="error"];', text, 1, true)
    assert.matches('}\n$', text)
    local _, n = text:gsub(" %-> ", "")
    assert.are.equal(8, n) -- start, 3 declared, 1 guarded, interrupt, resume, error
    assert.has_error(function() fsm.dot { initial = "Nope", states = { A = { run = noop } } } end)
  end)

  it("covers every state of the heat-seeking mission", function()
    -- the mission's machine, built with stand-ins for its context
    local build = dofile((os.getenv("TYCHO_SOURCE_DIR") or ".") .. "/behaviors/heat_seek_states.lua")
    local d = build { P = {}, bb = {}, log = {} }
    for name, st in pairs(d.states) do
      if not st.terminal and name ~= "ImuInterrupt" then
        assert.is_truthy(st.goes_to_list, "state " .. name .. " declares no goes_to")
      end
    end
    assert.matches('"Clustering" -> "Aborted";', fsm.dot(d), 1, true)
  end)
end)
