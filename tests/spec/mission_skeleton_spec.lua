-- behaviors/mission.lua, the runner heat_seek, terrain_nav and fleet are
-- built on: a mission of a few lines gets the command line (its own options,
-- the parameter options from its params schema, the session's), --help,
-- usage errors as exit 2, the scheduler run to `done` or the time limit, and
-- its exit code from `finish`; a definition with a typo is refused at once.
local exe = require "helpers.exe"
local client = require "helpers.attach_client"
local sleep = client.sleep

-- a counting mission: a task ticks at 10 Hz until `count` ticks (a
-- parameter), finish prints what it saw and fails when told to
local COUNTER = [[
local params = require "params"
local Mission = require "mission"
local P = params.declare("counter", {
  { name = "count", type = "integer", default = 5, min = 1, max = 1000, doc = "ticks before done" },
})
local ticks, stopped, halts = 0, false, 0
return Mission.run {
  name = "counter", usage_line = "[options]", params = P,
  options = { { name = "fail", type = "boolean", doc = "finish with 1" },
              { name = "label", type = "string", metavar = "S", doc = "a label" },
              { name = "realtime", type = "boolean", doc = "at wall-clock pace" } },
  check = function(o) if o.label == "bad" then return "--label bad is refused" end end,
  start = function(m)
    m.sched:every(0.1, function() ticks = ticks + 1 end, "tick")
    m.env = setmetatable({ ticks = function() return ticks end, halts = function() return halts end },
                         { __index = _G })
    m.host = { safe_stop = function() stopped = true end }
    m.halt = function() halts = halts + 1 end -- as a hardware robot's wheels are stopped
  end,
  done = function() return ticks >= P.count or stopped end,
  time_limit = function() return 100 end,
  finish = function(m, reason)
    print(("counted %d by t = %.1f (%s)"):format(ticks, m:now(), tostring(reason)))
    print(("wall %.3f s"):format(require("tycho").clock.monotonic() - m.wall0)) -- pauses left out
    return m.opt.fail and 1 or 0
  end,
}
]]

describe("the mission skeleton", function()
  local dir, script
  setup(function()
    dir = exe.tmpdir()
    assert(os.execute("mkdir -p " .. exe.quote(dir)))
    script = dir .. "/counter.lua"
    exe.write(script, COUNTER)
  end)
  teardown(function() exe.remove_tree(dir) end)

  it("runs a mission's tasks to done and takes its exit code from finish", function()
    local code, out = exe.run { "run", script }
    assert.are.equal(0, code, out)
    assert.matches("counted 5 by t = 0.4 (until_fn)", out, 1, true)
    code, out = exe.run { "run", script, "--set", "count=12", "--fail" }
    assert.are.equal(1, code, out)
    assert.matches("counted 12 by t = 1.1", out, 1, true)
  end)

  it("gives every mission the same command line: own, parameter and session options", function()
    local code, out = exe.run { "run", script, "--help" }
    assert.are.equal(0, code, out)
    for _, o in ipairs { "--fail", "--label S", "--set NAME=VALUE", "--params", "--params-file F", "--socket PATH",
                         "--record FILE.mcap", "--viz", "--paused" } do
      assert.matches(o, out, 1, true)
    end
    code, out = exe.run { "run", script, "--params" }
    assert.are.equal(0, code, out)
    assert.matches("count", out, 1, true)
  end)

  it("refuses bad usage with one line and exit 2", function()
    for _, case in ipairs {
      { { "--bogus" }, "unknown option '--bogus'" },
      { { "--set", "count=0" }, "count" },
      { { "--label=bad" }, "--label bad is refused" },
      { { "--paused", "--no-socket" }, "--paused with --no-socket: nothing could resume the mission" },
    } do
      local args = { "run", script }
      for _, a in ipairs(case[1]) do args[#args + 1] = a end
      local code, out = exe.run(args)
      assert.are.equal(2, code, out)
      assert.matches(case[2], out, 1, true)
      assert.is_nil(out:find("traceback"), out)
    end
  end)

  -- The counting mission started with these options and a socket named
  -- NAME.sock; returns the process (wait() -> exit code, output), a one-shot
  -- console (code -> what it printed) and the socket's path.
  local function start_attached(options, name)
    local sock = dir .. "/" .. name .. ".sock"
    local args = { "run", script, "--socket=" .. sock }
    for _, o in ipairs(options) do args[#args + 1] = o end
    local p = exe.start(args)
    client.connect_unix(sock, 200):close() -- up within 10 s, or an error
    local function ev(code)
      local status, out = exe.run { "attach", sock, "-e", code }
      assert.are.equal(0, status, out)
      return out
    end
    return p, ev, sock
  end

  it("pauses, steps and resumes a running mission from `tycho attach`", function()
    local p, ev, sock = start_attached({ "--set", "count=1000", "--realtime" }, "run")
    local closed = false
    finally(function() -- a failed assertion leaves no paused mission behind
      if not closed then exe.run { "attach", sock, "-e", ":stop" } p:wait() end
    end)
    assert.are.equal(0, tonumber(ev("halts()")))
    assert.matches("paused", ev(":pause"), 1, true)
    assert.are.equal(1, tonumber(ev("halts()"))) -- the mission's halt: a robot's wheels stop
    local a = tonumber(ev("ticks()"))
    sleep(0.4)
    local b = tonumber(ev("ticks()"))
    assert.are.equal(a, b) -- nothing runs while paused
    ev(":step 3")
    assert.are.equal(b + 3, tonumber(ev("ticks()"))) -- three runs of the one task
    assert.are.equal(2, tonumber(ev("halts()"))) -- and what they commanded is stopped again
    ev(":resume")
    sleep(0.5)
    assert.is_true(tonumber(ev("ticks()")) > b + 3)
    ev(":stop")
    local _, text = p:wait()
    closed = true
    assert.matches("stepped 3 task%(s%)", text)
    assert.matches("counted %d+ by t = ", text)
  end)

  it("starts paused with --paused: nothing runs, even unpaced, until a console resumes it", function()
    -- unpaced, the five ticks take no time at all: only the pause holds them
    local p, ev, sock = start_attached({ "--paused" }, "paused")
    local closed = false
    finally(function() -- a failed assertion leaves no paused mission behind
      if not closed then exe.run { "attach", sock, "-e", ":stop" } p:wait() end
    end)
    assert.are.equal(0, tonumber(ev("ticks()")))
    sleep(1)
    assert.are.equal(0, tonumber(ev("ticks()"))) -- still nothing
    -- two tasks run: the counter's, and (unpaced) the runner's serving of
    -- the attach clients, which may come first
    ev(":step 2")
    local stepped = tonumber(ev("ticks()"))
    assert.is_true(stepped == 1 or stepped == 2, tostring(stepped))
    assert.matches("running", ev(":resume"), 1, true)
    local rc, text = p:wait()
    closed = true
    assert.are.equal(0, rc, text)
    assert.matches("paused before the first step: resume with `tycho attach " .. sock .. " -e :resume`", text, 1, true)
    assert.matches("counted 5 by t = 0.4 (until_fn)", text, 1, true)
    -- the wall time a summary gives is the time it ran: the second and more
    -- it spent paused are left out
    local wall = tonumber(text:match("wall ([%d.]+) s"))
    assert.is_true(wall < 0.9, text)
  end)

  it("refuses --paused for a mission with its own loop and no :pause", function()
    local own = dir .. "/own_loop.lua"
    exe.write(own, [[
return require("mission").run { name = "own", options = {}, start = function() end,
  run = function() return "done" end, finish = function() print("finished") return 0 end }
]])
    local code, out = exe.run { "run", own, "--paused" }
    assert.are.equal(2, code, out)
    assert.matches("--paused: this mission cannot be paused (its console has no :pause)", out, 1, true)
    assert.is_nil(out:find("finished"), out)
    code, out = exe.run { "run", own }
    assert.are.equal(0, code, out)
  end)

  it("refuses a definition with an unknown field or without its hooks, when it is loaded", function()
    local Mission = require "mission"
    assert.has_error(function() Mission.run { name = "x", options = {}, start = print, finish = print, strat = print } end,
      "mission.run: unknown field 'strat'")
    assert.has_error(function() Mission.run { name = "x", options = {}, finish = print } end,
      "mission.run: 'start' must be a function")
  end)
end)
