-- behaviors/mission.lua, the runner heat_seek, terrain_nav and fleet are
-- built on: a mission of a few lines gets the command line (its own options,
-- the parameter options from its params schema, the session's), --help,
-- usage errors as exit 2, the scheduler run to `done` or the time limit, and
-- its exit code from `finish`; a definition with a typo is refused at once.
local exe = require "helpers.exe"

-- a counting mission: a task ticks at 10 Hz until `count` ticks (a
-- parameter), finish prints what it saw and fails when told to
local COUNTER = [[
local params = require "params"
local Mission = require "mission"
local P = params.declare("counter", {
  { name = "count", type = "integer", default = 5, min = 1, max = 1000, doc = "ticks before done" },
})
local ticks = 0
return Mission.run {
  name = "counter", usage_line = "[options]", params = P,
  options = { { name = "fail", type = "boolean", doc = "finish with 1" },
              { name = "label", type = "string", metavar = "S", doc = "a label" } },
  check = function(o) if o.label == "bad" then return "--label bad is refused" end end,
  start = function(m)
    m.sched:every(0.1, function() ticks = ticks + 1 end, "tick")
  end,
  done = function() return ticks >= P.count end,
  time_limit = function() return 100 end,
  finish = function(m, reason)
    print(("counted %d by t = %.1f (%s)"):format(ticks, m:now(), tostring(reason)))
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
                         "--record FILE.mcap", "--viz" } do
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
    } do
      local args = { "run", script }
      for _, a in ipairs(case[1]) do args[#args + 1] = a end
      local code, out = exe.run(args)
      assert.are.equal(2, code, out)
      assert.matches(case[2], out, 1, true)
      assert.is_nil(out:find("traceback"), out)
    end
  end)

  it("refuses a definition with an unknown field or without its hooks, when it is loaded", function()
    local Mission = require "mission"
    assert.has_error(function() Mission.run { name = "x", options = {}, start = print, finish = print, strat = print } end,
      "mission.run: unknown field 'strat'")
    assert.has_error(function() Mission.run { name = "x", options = {}, finish = print } end,
      "mission.run: 'start' must be a function")
  end)
end)
