-- The console's evaluation, pretty printing, completion and commands
-- (behaviors/repl.lua), without a terminal.
local tycho = require "tycho"
local Repl = require "repl"
local params = require "params"

local function session(host)
  local out = {}
  local r = Repl.new { host = host, print = function(s) out[#out + 1] = s end }
  return r, out
end

describe("repl", function()
  it("prints an expression without return, and runs statements", function()
    local r, out = session()
    r:feed("1 + 1")
    r:feed("x = 41")
    r:feed("x + 1")
    r:feed("'a', nil, 3")
    assert.are.same({ "2", "42", '"a"\tnil\t3' }, out)
  end)

  it("continues an incomplete chunk on the next line", function()
    local r, out = session()
    r:feed("function f(n)")
    assert.are.equal(">> ", r:prompt())
    r:feed("  return n * 2")
    r:feed("end")
    assert.are.equal("tycho> ", r:prompt())
    r:feed("f(21)")
    assert.are.same({ "42" }, out)
  end)

  it("reports errors with file:line and carries on", function()
    local r, out = session()
    r:feed("error('boom')")
    assert.matches("^error: .*boom", out[1])
    assert.is_nil(out[1]:find("repl.lua", 1, true)) -- the console's own frames are cut
    r:feed("x = = 1")
    assert.matches("^error: console:1:", out[2])
    r:feed("2 * 3")
    assert.are.equal("6", out[3])
  end)

  it("pretty-prints nested tables with limits, cycles and __tostring", function()
    local t = { a = 1, list = { 1, 2, 3 }, deep = { b = { c = { d = { e = 1 } } } } }
    t.self = t
    local s = Repl.pretty(t)
    assert.matches("a = 1", s)
    assert.matches("list = { 1, 2, 3 }", s, 1, true)
    assert.matches("self = <cycle>", s, 1, true)
    assert.matches("{...}", s, 1, true) -- depth limit
    local big = {}
    for i = 1, 100 do big["k" .. i] = i end
    assert.matches("%.%.%. %(60 more%)", Repl.pretty(big))
    local g = tycho.grid.new { width = 3, height = 2, resolution = 0.5 }
    assert.matches("^tycho.grid 3x2", Repl.pretty(g))
    assert.are.equal('{ ["a b"] = true }', Repl.pretty({ ["a b"] = true }))
  end)

  it("completes globals, fields, and methods through metatables", function()
    local r = Repl.new { env = setmetatable({ tycho = tycho, g = tycho.grid.new { width = 2, height = 2 } },
                                            { __index = _G }) }
    local function has(list, x) for _, v in ipairs(list) do if v == x then return true end end return false end
    assert.is_true(has(r:complete("tycho.sim.lo"), "tycho.sim.load"))
    assert.is_true(has(r:complete("g:infl"), "g:inflate"))
    assert.is_true(has(r:complete("g:pl"), "g:plan"))
    assert.is_true(has(r:complete("pri"), "print"))
    assert.is_true(has(r:complete("string.fo"), "string.format"))
    assert.are.same({}, r:complete("nosuchthing.x"))
    -- ":" only offers functions
    r.env.t = { n = 1, f = function() end }
    assert.are.same({ "t:f" }, r:complete("t:"))
  end)

  it("stops a runaway loop typed at the console and goes on", function()
    if rawget(_G, "jit") then return end -- LuaJIT: no yielding hook (documented)
    local r, out = Repl.new { print = function(s) end }, {}
    r.print = function(s) out[#out + 1] = s end
    r.budget_s = 0.2
    local t0 = os.clock()
    r:feed("while true do pcall(function() end) end")
    assert.is_true(os.clock() - t0 < 2)
    assert.matches("^error: stopped after 0.2 s of CPU", out[1])
    r:feed("1 + 1")
    assert.are.equal("2", out[2])
  end)

  it("completes file names inside string literals, Lua names outside", function()
    local r = session()
    local src = require("helpers.exe").SRC
    -- as the console calls it: the word, the line, the word's 1-based start
    local function complete(line, word) return r:complete(word, line, #line - #word + 1) end
    local word = src .. "/behaviors/heat_se"
    assert.are.same({ src .. "/behaviors/heat_seek.lua", src .. "/behaviors/heat_seek_params.lua",
                      src .. "/behaviors/heat_seek_report.lua", src .. "/behaviors/heat_seek_states.lua" },
                    complete('dofile("' .. word, word))
    assert.are.same({ src .. "/behaviors/" }, complete("x = '" .. src .. "/behavio", src .. "/behavio"))
    -- a closed string before the word: back to Lua names
    assert.are.same({ "print" }, complete('x("a", prin', "prin"))
    -- an escaped quote does not close the string
    assert.are.same({ src .. "/maps/" }, complete('f("\\"' .. src .. "/map", src .. "/map"))
  end)

  it("lists, sets (checked) and refuses parameters from the console", function()
    local P = params.declare("repl_spec", {
      { name = "temperature_threshold", type = "number", default = 30, min = 0, max = 80, unit = "°C",
        doc = "hot pixel threshold" } })
    local r, out = session { params = P }
    r:feed(":params")
    assert.matches("temperature_threshold%s+= 30", out[1])
    r:feed(":set temperature_threshold=42.5")
    assert.are.equal(42.5, P.temperature_threshold)
    r:feed(":set temperature_threshold=100")
    assert.matches("refused: .*temperature_threshold", out[#out])
    assert.are.equal(42.5, P.temperature_threshold)
    r:feed(":nonsense")
    assert.matches("unknown command", out[#out])
    r:feed(":reload")
    assert.matches("not available", out[#out])
    params.release("repl_spec")
  end)

  it("shows the state machine and stops the robot through the host", function()
    local stopped = false
    local r, out = session {
      machine = { state = "Exploring" },
      history = function() return { { state = "Initialising", t = 0 }, { state = "Exploring", t = 0.8 } } end,
      safe_stop = function() stopped = true end,
    }
    r:feed(":state")
    assert.matches("state: Exploring", out[1])
    assert.matches("Initialising", out[1])
    r:feed(":stop")
    assert.is_true(stopped)
  end)
end)
