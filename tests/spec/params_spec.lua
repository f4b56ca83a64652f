local params = require "params"

local n = 0
local function fresh_group()
  n = n + 1
  return "test" .. n
end

local function declare(group)
  return params.declare(group or fresh_group(), {
    temperature_threshold = { type = "number", default = 40, min = 0, max = 80, unit = "°C",
                              doc = "a pixel above this is hot" },
    balls = { type = "integer", default = 10, min = 0, unit = "balls", doc = "launcher magazine" },
    speed = { type = "number", default = 0.2, max = 0.22, unit = "m/s", doc = "cruise speed" },
    armed = { type = "boolean", default = false, doc = "launcher may fire" },
    label = { type = "string", default = "r1", doc = "robot name in logs" },
    mode = { type = "enum", values = { "explore", "patrol" }, default = "explore", doc = "first job" },
  })
end

describe("params", function()
  it("describes a group a line per parameter, with value, unit, range and doc", function()
    local p = params.declare("describe_test", {
      { name = "speed", type = "number", default = 0.2, min = 0, max = 1, unit = "m/s", doc = "cruise speed" },
      { name = "loud", type = "boolean", default = false, doc = "beep" },
    })
    local text = p:describe()
    assert.matches("^speed%s+0%.2%s+m/s %[0%.%.1%]  cruise speed\nloud%s+false%s+beep$", text)
    params.release("describe_test")
  end)

  it("reads declared values and lists them with their declarations", function()
    local p = declare()
    assert.are.equal(40, p.temperature_threshold)
    assert.are.equal(false, p.armed)
    assert.are.equal("explore", p.mode)
    assert.error_matches(function() return p.temprature end, "unknown parameter 'temprature'")
    local l = p:list()
    assert.are.same({ "armed", "balls", "label", "mode", "speed", "temperature_threshold" },
      (function() local t = {} for i, e in ipairs(l) do t[i] = e.name end return t end)())
    local tt = l[6]
    assert.are.same({ 40, 40, "°C", "0..80 °C", "a pixel above this is hot", "number" },
      { tt.value, tt.default, tt.unit, tt.range, tt.doc, tt.type })
    assert.are.equal(">= 0 balls", l[2].range)
    assert.are.equal("'explore', 'patrol'", l[4].range)
    -- array form keeps declaration order
    local q = params.declare(fresh_group(), {
      { name = "z", type = "integer", default = 1, doc = "z" },
      { name = "a", type = "integer", default = 2, doc = "a" },
    })
    assert.are.equal("z", q:list()[1].name)
    assert.matches("params 'test%d+' %(2 parameters%)", tostring(q))
  end)

  it("validates type, range and enum, naming the parameter and its range", function()
    local p = declare()
    assert.are.same({ nil, "temperature_threshold: 95 is out of range 0..80 °C" },
      { p:set("temperature_threshold", 95) })
    assert.are.same({ nil, "temperature_threshold: -1.5 is out of range 0..80 °C" },
      { p:set("temperature_threshold", -1.5) })
    assert.are.same({ nil, "speed: 0.3 is above the maximum 0.22 m/s" }, { p:set("speed", 0.3) })
    assert.are.same({ nil, "balls: -1 is below the minimum 0 balls" }, { p:set("balls", -1) })
    assert.are.same({ nil, "balls: 2.5 is not an integer" }, { p:set("balls", 2.5) })
    assert.are.same({ nil, "temperature_threshold: expected a number, got string '50'" },
      { p:set("temperature_threshold", "50") })
    assert.are.same({ nil, "temperature_threshold: NaN is not a number" },
      { p:set("temperature_threshold", 0 / 0) })
    assert.are.same({ nil, "armed: expected a boolean, got number 1" }, { p:set("armed", 1) })
    assert.are.same({ nil, "mode: 'fast' is not one of 'explore', 'patrol'" }, { p:set("mode", "fast") })
    assert.are.same({ nil, "unknown parameter 'nope' in group '" .. p:group() .. "'" }, { p:set("nope", 1) })
    assert.are.equal(40, p.temperature_threshold) -- refused values change nothing
    assert.is_true(p:set("temperature_threshold", 55.5))
    assert.are.equal(55.5, p.temperature_threshold)
    assert.is_true(p:set("balls", 3.0))
    assert.are.equal(3, p.balls)
    if math.type then assert.are.equal("integer", math.type(p.balls)) end
    -- assignment raises the same message
    assert.error_matches(function() p.temperature_threshold = 95 end,
      "temperature_threshold: 95 is out of range 0..80 °C", 1, true)
    p.armed = true
    assert.is_true(p.armed)
  end)

  it("parses CLI strings by type", function()
    local p = declare()
    assert.is_true(p:set_string("temperature_threshold", " 42.5 "))
    assert.are.equal(42.5, p.temperature_threshold)
    assert.is_true(p:set_string("balls", "7"))
    assert.are.equal(7, p.balls)
    for text, want in pairs { yes = true, off = false, ["TRUE"] = true, ["0"] = false } do
      assert.is_true(p:set_string("armed", text))
      assert.are.equal(want, p.armed)
    end
    assert.is_true(p:set_string("mode", "patrol"))
    assert.is_true(p:set_string("label", " spaced "))
    assert.are.equal(" spaced ", p.label)
    assert.are.same({ nil, "temperature_threshold: 'hot' is not a number" },
      { p:set_string("temperature_threshold", "hot") })
    assert.are.same({ nil, "temperature_threshold: 81 is out of range 0..80 °C" },
      { p:set_string("temperature_threshold", "81") })
    assert.are.same({ nil, "balls: 1.5 is not an integer" }, { p:set_string("balls", "1.5") })
    assert.matches("armed: 'maybe' is not a boolean", select(2, p:set_string("armed", "maybe")))
    assert.matches("mode: 'fast' is not one of", select(2, p:set_string("mode", "fast")))
  end)

  it("applies --set arguments across groups and reports each bad one", function()
    for name in pairs(params.groups) do params.release(name) end -- bare names must be unique
    local g1, g2 = fresh_group(), fresh_group()
    local a = declare(g1)
    local b = params.declare(g2, { speed = { type = "number", default = 1, doc = "other speed" },
                                   gain = { type = "number", default = 1, doc = "gain" } })
    local ok, problems, rest = params.apply_args {
      "run", "--set", "temperature_threshold=50", "--set=" .. g2 .. ".speed=3", "--set", "gain=2",
      "--set", "speed=0.1", "--set", "balls=x", "--set", "nosuch=1", "--set", "garbage",
      "--map", "m.yaml",
    }
    assert.is_false(ok)
    assert.are.same({ "run", "--map", "m.yaml" }, rest)
    assert.are.equal(50, a.temperature_threshold)
    assert.are.equal(3, b.speed)
    assert.are.equal(2, b.gain)
    assert.are.equal(0.2, a.speed) -- ambiguous: not applied
    local text = table.concat(problems, "\n")
    assert.matches("ambiguous parameter 'speed'", text)
    assert.matches("balls: 'x' is not a number", text)
    assert.matches("unknown parameter 'nosuch'", text)
    assert.matches("--set expects NAME=VALUE, got 'garbage'", text)
    assert.are.equal(4, #problems)
    -- restricted to one group, bare names are unambiguous
    assert.is_true((params.apply_args({ "--set", "speed=0.15" }, a)))
    assert.are.equal(0.15, a.speed)
  end)

  it("calls on_change callbacks after real changes, isolating their errors", function()
    local p = declare()
    local seen = {}
    local off = p:on_change("temperature_threshold", function(v, old, name) seen[#seen + 1] = { name, old, v } end)
    local any = {}
    p:on_change("*", function(v, _, name) any[#any + 1] = name .. "=" .. tostring(v) end)
    p:set("temperature_threshold", 50)
    p:set("temperature_threshold", 50) -- no change, no call
    p:set("temperature_threshold", 99) -- refused, no call
    p.armed = true
    assert.are.same({ { "temperature_threshold", 40, 50 } }, seen)
    assert.are.same({ "temperature_threshold=50", "armed=true" }, any)
    assert.is_true(off())
    p:set("temperature_threshold", 60)
    assert.are.equal(1, #seen)
    local reported = {}
    local saved = params.report
    params.report = function(msg) reported[#reported + 1] = msg end
    p:on_change("balls", function() error("callback bug") end)
    assert.is_true(p:set("balls", 4)) -- the value is set regardless
    params.report = saved
    assert.are.equal(4, p.balls)
    assert.matches("balls on_change callback failed: .*params_spec.lua:%d+: callback bug", reported[1])
    assert.error_matches(function() p:on_change("nope", print) end, "unknown parameter 'nope'")
  end)

  it("round-trips tables and applies partial ones without aborting", function()
    local p = declare()
    local t = p:to_table()
    assert.are.same({ temperature_threshold = 40, balls = 10, speed = 0.2, armed = false,
                      label = "r1", mode = "explore" }, t)
    local ok, problems = p:apply_table { temperature_threshold = 120, balls = 5, mode = "dance",
                                         armed = true, ghost = 1 }
    assert.is_false(ok)
    assert.are.same({ "unknown parameter 'ghost' in group '" .. p:group() .. "'",
                      "mode: 'dance' is not one of 'explore', 'patrol'",
                      "temperature_threshold: 120 is out of range 0..80 °C" }, problems)
    assert.are.same({ 5, true, 40 }, { p.balls, p.armed, p.temperature_threshold })
    assert.is_true((p:apply_table(t)))
    assert.are.same(t, p:to_table())
    p.balls = 1
    p:reset("balls")
    assert.are.equal(10, p.balls)
  end)

  it("rejects bad declarations, listing every problem", function()
    local ok, err = pcall(params.declare, "broken", {
      a = { type = "number", default = 95, min = 0, max = 80, unit = "°C", doc = "x" },
      b = { type = "float", default = 1, doc = "x" },
      c = { type = "enum", default = "x", doc = "x" },
      d = { type = "number", default = 1, min = 5, max = 2, doc = "x" },
      e = { type = "integer", default = 1 },
      f = { type = "string", default = "s", doc = "x", min = 1 },
      g = { type = "boolean", doc = "x" },
      set = { type = "boolean", default = true, doc = "x" },
      h = { type = "number", default = 1, doc = "x", uint = "m" },
    })
    assert.is_false(ok)
    for _, want in ipairs {
      "params 'broken' declaration is invalid:",
      "a: default 95 is out of range 0..80 °C",
      "b: type must be number, integer, boolean, string or enum, got 'float'",
      "c: an enum needs values",
      "d: min 5 is greater than max 2",
      "e: needs a doc string",
      "f: min only applies to number and integer parameters",
      "g: needs a default",
      "set: name is reserved",
      "h: unknown field 'uint'",
    } do
      assert.matches(want, err, 1, true)
    end
    assert.is_nil(params.get("broken"))
  end)

  it("re-declaring a group (hot reload) keeps valid values in the same object", function()
    local g = fresh_group()
    local p = declare(g)
    p.temperature_threshold = 70
    p.balls = 2
    local calls = 0
    p:on_change("balls", function() calls = calls + 1 end)
    local p2, notes = params.declare(g, {
      temperature_threshold = { type = "number", default = 40, min = 0, max = 60, unit = "°C", doc = "tighter" },
      balls = { type = "integer", default = 10, min = 0, doc = "same" },
      fresh = { type = "boolean", default = true, doc = "new" },
    })
    assert.are.equal(p, p2)
    assert.are.equal(40, p.temperature_threshold) -- 70 is out of the new range
    assert.are.equal(2, p.balls)
    assert.is_true(p.fresh)
    assert.are.same({ "temperature_threshold: 70 no longer valid, reset to 40" }, notes)
    assert.error_matches(function() return p.mode end, "unknown parameter 'mode'")
    p.balls = 3
    assert.are.equal(1, calls) -- callbacks of surviving parameters survive
    params.release(g)
    assert.is_nil(params.get(g))
  end)
end)

describe("parameter files", function()
  local P
  before_each(function()
    P = params.declare("file_spec", {
      { name = "threshold", type = "number", default = 30, min = 0, max = 80, unit = "°C", doc = "hot pixel" },
      { name = "balls", type = "integer", default = 1, min = 1, max = 10, doc = "per target" },
      { name = "climb", type = "boolean", default = true, doc = "climb the ramp" },
    })
  end)
  after_each(function() params.release("file_spec") end)

  it("saves atomically and loads back", function()
    local path = os.tmpname()
    P.threshold, P.balls, P.climb = 42.5, 3, false
    assert.is_true(P:save(path))
    local f = io.open(path); local text = f:read("*a"); f:close()
    assert.matches("threshold = 42.5", text, 1, true)
    assert.matches("# hot pixel [0..80 °C]", text, 1, true)
    P:reset()
    assert.are.equal(30, P.threshold)
    local ok, problems = P:load(path)
    assert.is_true(ok, table.concat(problems, "\n"))
    assert.are.same({ 42.5, 3, false }, { P.threshold, P.balls, P.climb })
    -- no temporary file is left beside it
    local dir, base = path:match("^(.*)/([^/]+)$")
    local p = io.popen("ls -a '" .. dir .. "'"); local listing = p:read("*a"); p:close()
    for name in listing:gmatch("[^\n]+") do
      assert.is_falsy(name ~= base and name:find(base, 1, true), "left behind: " .. name)
    end
    os.remove(path)
  end)

  it("reports bad lines with file:line and keeps the rest", function()
    local path = os.tmpname()
    local f = io.open(path, "w")
    f:write("# comment\n", "threshold = 99\n", "balls = 4\n", "garbage line\n", "nosuch = 1\n", "climb = maybe\n")
    f:close()
    local ok, problems = P:load(path)
    assert.is_false(ok)
    assert.are.equal(4, #problems)
    assert.matches(":2: .*threshold", problems[1])
    assert.matches(":4: expected 'name = value'", problems[2])
    assert.matches(":5: .*nosuch", problems[3])
    assert.matches(":6: .*climb", problems[4])
    assert.are.same({ 30, 4, true }, { P.threshold, P.balls, P.climb }) -- bad lines keep their values
    os.remove(path)
  end)

  it("refuses to write where it cannot, leaving the old file", function()
    local ok, err = P:save("/nonexistent-dir/params.txt")
    assert.is_nil(ok)
    assert.matches("nonexistent", err)
    local missing_ok, problems = P:load("/nonexistent-dir/params.txt")
    assert.is_false(missing_ok)
    assert.are.equal(1, #problems)
  end)
end)
