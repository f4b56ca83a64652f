-- Reliability (issue 14): budgets that cover C, and every Lua data file
-- through one sandboxed loader. Each case runs in a real `tycho run` under
-- `timeout`, so a hang is a failure, not a stuck suite: a backtracking
-- pattern (C, between no two Lua instructions) in a world file, a terrain
-- world, a fleet file, a robot config, a behaviour and a console
-- evaluation is stopped within its budget (default 1 s).
local tycho = require "tycho"

local exe = require "helpers.exe"
local SRC = exe.SRC
local TMP = os.tmpname()
os.remove(TMP)
os.execute("mkdir -p '" .. TMP .. "'")

-- the pathological pattern: (a*)^30 then b against 30 a's never ends
local BOMB = [[("a"):rep(30):find(("a*"):rep(30) .. "b")]]
-- LuaJIT keeps its own pattern functions and has neither time budgets nor a
-- memory limit (README): only the instruction budget of the loaders applies
local LUAJIT = tycho.lua == "LuaJIT"

local function write(name, text)
  local path = TMP .. "/" .. name
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

-- runs a script in the real executable with a hard timeout; output, seconds, exit code
local function run(script, limit)
  local path = write("script.lua", script)
  local t0 = tycho.clock.monotonic()
  local rc, out = exe.run({ "run", path }, { timeout = limit or 20 })
  return out, tycho.clock.monotonic() - t0, rc
end

-- loads `data_file` with `loader` (Lua code that raises on failure) and
-- prints LOADED or FAILED: message
local function load_case(loader, data_file)
  return run(([[
    package.path = "%s/behaviors/?.lua;" .. package.path
    local tycho = require "tycho"
    local t0 = os.clock()
    local ok, err = pcall(function() %s end)
    print(("took %%.2f s"):format(os.clock() - t0))
    print(ok and "LOADED" or ("FAILED: " .. tostring(err)))
  ]]):format(SRC, loader:gsub("PATH", ("%q"):format(data_file))))
end

-- CPU seconds the child reported (the budgets are CPU time; wall time on a
-- shared machine can be twice that)
-- the longest a budget let anything run, over every case (a trial figure)
local worst, stops = 0, 0
local function took(out)
  local s = tonumber(out:match("took ([%d%.]+) s"))
  if s then worst, stops = math.max(worst, s), stops + 1 end
  return s
end

local WORLD = [[
local x = %s
return { name = "tiny", map = "%s/maps/maze_small.yaml", start = {x = 0.5, y = 0.5, yaw = 0},
         heat_sources = {}, ramps = {} }
]]

describe("budgets that cover C #reliability #slow", function()
  teardown(function()
    if stops > 0 then
      require "helpers.result"("budgets.worst_stop_s", worst, "s", "<=", 1.5, ("(a*)^30 b or an endless loop "
        .. "in a world file, a terrain world, a fleet file, a robot config, a behaviour task, a console (%d cases): "
        .. "the longest any ran, in CPU seconds, before its 1 s budget stopped it"):format(stops))
    end
  end)
  it("stop a backtracking pattern in a simulator world file", function()
    if LUAJIT then return end
    local world = write("bomb_world.lua", WORLD:format(BOMB, SRC))
    local out, secs = load_case("tycho.sim.load(PATH)", world)
    assert.matches("FAILED: .*bomb_world%.lua: ran too long", out)
    assert.is_true(took(out) < 1.5, out)
    assert.is_true(secs < 10)
  end)

  it("stop endless loops and patterns in terrain worlds, fleet files and robot configs", function()
    local loaders = {
      terrain = 'require("terrain.world").load(PATH)',
      fleet = 'require("fleet.inputs").from_lua(PATH)',
      robot = 'require("robot_hw").open(PATH)',
    }
    for kind, loader in pairs(loaders) do
      local bodies = { "while true do end", "while true do local ok = pcall end" }
      if not LUAJIT then bodies[#bodies + 1] = "local x = " .. BOMB end
      for _, body in ipairs(bodies) do
        local file = write(kind .. "_bad.lua", body .. "\nreturn {}\n")
        local out = load_case(loader, file)
        assert.matches("FAILED: .*" .. kind .. "_bad%.lua: ran too long", out, kind .. ": " .. body)
        assert.is_true(took(out) < 1.5, out)
      end
    end
  end)

  it("stop a memory bomb, and keep the host's libraries out of reach", function()
    local file, out
    if not LUAJIT then
      file = write("mem.lua", "local s, t = ('x'):rep(1e6), {} for i = 1, 1e9 do t[i] = s .. i end return t\n")
      out = load_case("require('terrain.world').load(PATH)", file)
      assert.matches("FAILED: .*mem%.lua: ran out of memory", out)
    end
    -- a terrain world that breaks math breaks only its own copy
    file = write("breaker.lua", "math.sqrt = nil string.rep = nil return {}\n")
    out = load_case("pcall(require('terrain.world').load, PATH) assert(math.sqrt(4) == 2 and string.rep('a', 2) == 'aa')",
      file)
    assert.matches("LOADED", out)
  end)

  it("give clear errors: error objects, bytecode, missing files", function()
    local cases = {
      { "error({})", "errobj%.lua: error object is a table value" },
      { "error('plain', 0)", "errobj%.lua: plain" },
      { "local x = nil + 1", "errobj%.lua:1: attempt to perform arithmetic" },
      { "return {", "errobj%.lua:%d: .*near '?<eof>" },
    }
    for _, c in ipairs(cases) do
      local file = write("errobj.lua", c[1] .. "\n")
      local value, err = tycho.load_data(file)
      assert.is_nil(value)
      assert.matches(c[2], err)
    end
    local bytecode = write("bc.lua", string.dump(function() return {} end))
    local _, err = tycho.load_data(bytecode)
    assert.matches("bc%.lua: a precompiled %(binary%) chunk", err)
    _, err = tycho.load_data(TMP .. "/nope.lua")
    assert.matches("nope%.lua", err)
    assert.are.same({ a = 1 }, tycho.load_data(write("good.lua", "return {a = math.floor(1.5)}")))
  end)

  it("stop a backtracking pattern in a behaviour task, and the scheduler goes on", function()
    if LUAJIT then return end
    local out, secs = run(([[
      package.path = "%s/behaviors/?.lua;" .. package.path
      local tycho = require "tycho"
      local tasks = require "tasks"
      local sched = tycho.scheduler.new {}
      local failed
      sched:on_error(function(name, msg) failed = msg end)
      local r = tasks.new(sched, { rate = 20 })
      local ticks = 0
      sched:every(0.05, function() ticks = ticks + 1 end, "control")
      r:spawn("bomb", function() local ok = pcall(function() return %s end) end)
      local t0 = os.clock()
      sched:run { until_time = 2 }
      print(("took %%.2f s, ticks %%d"):format(os.clock() - t0, ticks))
      print("FAILED: " .. tostring(failed))
    ]]):format(SRC, BOMB))
    assert.matches("FAILED: runaway: task ran more than 1 s of CPU", out)
    assert.matches("ticks 4%d", out)
    assert.is_true(took(out) < 2, out)
    assert.is_true(secs < 10)
  end)

  it("stop a backtracking pattern typed at the console", function()
    if LUAJIT then return end
    local out = run(([[
      package.path = "%s/behaviors/?.lua;" .. package.path
      local tycho = require "tycho"
      local Repl = require "repl"
      local lines = {}
      local r = Repl.new { print = function(s) lines[#lines + 1] = s end }
      local t0 = os.clock()
      r:feed(%q)
      print(("took %%.2f s"):format(os.clock() - t0))
      r:feed("1 + 1")
      print(table.concat(lines, "\n"))
    ]]):format(SRC, BOMB))
    assert.matches("error: stopped after 1 s of CPU", out)
    assert.matches("\n2", out)
    assert.is_true(took(out) < 1.6, out)
  end)
end)
