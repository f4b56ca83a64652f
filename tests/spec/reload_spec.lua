-- Hot reload: a behaviour file edited while its state machine runs on the
-- scheduler (behaviors/reload.lua + fsm Machine:replace + tycho.watch).
local tycho = require "tycho"
local tasks = require "tasks"
local fsm = require "fsm"
local Reloader = require "reload"

local TEMPLATE = [[
local tasks = require "tasks"
local fsm = require "fsm"
return function(ctx)
  return fsm.define {
    name = "counter", initial = "Counting", fallback = "safe_stop",
    states = {
      Counting = { run = function(bb)
        while true do
          bb.count = (bb.count or 0) + 1
          bb.version = VERSION
          tasks.sleep(0.1)
        end
      end },
      Other = { terminal = true },
      safe_stop = { terminal = true, enter = function(bb) bb.stopped = true end },
    },
  }
end
]]

local function write(path, text)
  -- as editors do: a new file renamed over the old one
  local f = assert(io.open(path .. ".tmp", "w"))
  f:write(text)
  f:close()
  assert(os.rename(path .. ".tmp", path))
end

describe("hot reload", function()
  local path, sched, machine, bb, r, errors
  before_each(function()
    path = os.tmpname() .. "_states.lua"
    write(path, (TEMPLATE:gsub("VERSION", "1")))
    local clock = tycho.clock.new { mode = "sim" }
    sched = tycho.scheduler.new { clock = clock }
    errors = {}
    local log = { info = function() end, error = function(_, fmt, ...) errors[#errors + 1] = fmt:format(...) end }
    r = Reloader.new { path = path, ctx = {}, log = log }
    local def = assert(r:build())
    bb = {}
    machine = fsm.new(def, bb, { runner = tasks.new(sched, { rate = 20 }) })
    r:attach(machine)
    r:watch()
    machine:start()
    sched:run { until_time = 1.0 }
  end)
  after_each(function()
    r:close()
    os.remove(path)
  end)

  it("runs the new code at once, keeping the state and the blackboard", function()
    assert.are.equal(1, bb.version)
    local before = bb.count
    assert.is_true(before >= 9)
    write(path, (TEMPLATE:gsub("VERSION", "2")))
    local ok, msg = r:check()
    assert.is_true(ok)
    assert.matches("kept state 'Counting'", msg)
    sched:run { until_time = 2.0 }
    assert.are.equal(2, bb.version)
    assert.are.equal("Counting", machine.state)
    assert.is_true(bb.count >= before + 9) -- the blackboard carried on
  end)

  it("refuses a broken edit and keeps the old behaviour running", function()
    write(path, "return function(ctx) return fsm.define { -- oops\n")
    local ok, err = r:check()
    assert.is_nil(ok)
    assert.matches("_states.lua:%d+:", err)
    assert.are.equal(1, #errors)
    sched:run { until_time = 2.0 }
    assert.are.equal(1, bb.version)
    assert.are.equal("Counting", machine.state)
    assert.is_true(bb.count >= 19)
  end)

  it("refuses a definition that fails validation, or errors while building", function()
    write(path, (TEMPLATE:gsub("VERSION", "3"):gsub("Other = { terminal = true }",
      "Other = { transitions = { { to = 'Nowhere', guard = function() return false end } } }")))
    local ok, err = r:check()
    assert.is_nil(ok)
    assert.matches("unknown state 'Nowhere'", err)
    write(path, "return function(ctx) error('no robot here') end\n")
    ok, err = r:check()
    assert.is_nil(ok)
    assert.matches("_states.lua:1: no robot here", err)
    write(path, "return 42\n")
    ok, err = r:check()
    assert.is_nil(ok)
    assert.matches("must return function", err)
    sched:run { until_time = 2.0 }
    assert.are.equal(1, bb.version)
  end)

  it("moves to the fallback when the current state is gone, and says so", function()
    write(path, (TEMPLATE:gsub("VERSION", "4"):gsub("initial = \"Counting\"", "initial = \"Other\"")
      :gsub("Counting = {", "Renamed = {")))
    local ok, msg = r:check()
    assert.is_true(ok)
    assert.matches("state 'Counting' is gone: moved to fallback 'safe_stop'", msg)
    sched:run { until_time = 1.5 }
    assert.are.equal("safe_stop", machine.state)
    assert.is_true(bb.stopped)
  end)

  it("does not reload when nothing was saved", function()
    assert.is_nil(r:check())
  end)

  it("keeps memory flat over 1000 reloads", function()
    local v2 = TEMPLATE:gsub("VERSION", "2")
    write(path, v2)
    -- warm up (LuaJIT grows once, by its traces and interned strings)
    for _ = 1, 1000 do assert.is_true(r:reload()) sched:run { max_steps = 2 } end
    collectgarbage("collect")
    collectgarbage("collect")
    local before = collectgarbage("count")
    for _ = 1, 1000 do
      assert.is_true(r:reload())
      sched:run { max_steps = 2 }
    end
    collectgarbage("collect")
    collectgarbage("collect")
    local after = collectgarbage("count")
    assert.is_true(after - before < 64, ("grew %.1f KB over 1000 reloads"):format(after - before))
    assert.are.equal("Counting", machine.state)
    assert.are.equal(2, bb.version)
  end)
end)
