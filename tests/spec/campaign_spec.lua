-- The mission on generated worlds (behaviors/campaign.lua through the real
-- executable): per-world results and totals, campaign.json, the contact
-- sheet, every summary explaining its misses; and the behaviour fixes on a
-- generated maze whose only doorway into one part holds the ramp, with a
-- source pair on the two faces of one wall and a source in a dead end.
local json = require "json_decode"
local worldgen = require "worldgen"
local exe = require "helpers.exe"

local function run(script, args)
  local q = { "run", script }
  for _, a in ipairs(args) do q[#q + 1] = a end
  return exe.run(q)
end

local function tmpdir()
  local d = os.tmpname()
  os.remove(d)
  return d
end

local function read_json(p)
  local f = assert(io.open(p))
  local s = json.decode(f:read("*a"))
  f:close()
  return s
end

describe("campaign.lua", function()
  it("runs generated worlds in parallel and totals them", function()
    local out = tmpdir()
    local code, text = run("behaviors/campaign.lua", { "--generate", "2", "--seed0=12", "--out", out, "--jobs=2" })
    assert.are.equal(0, code, text)
    assert.truthy(text:find("campaign: 2 worlds", 1, true), text)
    assert.truthy(text:find("missed because:", 1, true))
    local c = read_json(out .. "/campaign.json")
    assert.are.equal(2, c.totals.worlds)
    assert.are.equal(2, #c.worlds)
    assert.are.equal("gen_12", c.worlds[1].name)
    local n = 0
    for _, w in ipairs(c.worlds) do
      assert.is_false(w.crashed or false)
      n = n + w.total
      -- every source has a verdict
      for _, s in ipairs(w.sources) do
        assert.is_true(s.engaged or type(s.missed_because) == "string")
      end
    end
    assert.are.equal(n, c.totals.sources)
    local f = assert(io.open(out .. "/sheet.png", "rb"))
    assert.are.equal("\137PNG", f:read(4))
    f:close()
  end)

  it("refuses bad usage with exit 2", function()
    assert.are.equal(2, (run("behaviors/campaign.lua", { "--out", tmpdir() })))
    assert.are.equal(2, (run("behaviors/campaign.lua", { "--generate", "2", "--errors", "tb3", "--out", tmpdir() })))
    assert.are.equal(2, (run("behaviors/campaign.lua", { "--generate", "2", "--worlds", "x", "--out", tmpdir() })))
    assert.are.equal(2, (run("behaviors/campaign.lua", { "--worlds", "/nonexistent", "--out", tmpdir() })))
    assert.are.equal(2, (run("behaviors/campaign.lua", { "--generate=0", "--out", tmpdir() })))
  end)
end)

describe("the mission on a maze it was not written for #e2e", function()
  it("crosses the doorway ramp to explore beyond it, tells a wall's two faces apart, finds the dead end", function()
    local dir = tmpdir()
    local code = run("behaviors/gen_world.lua", { "--seed", "4", "--out", dir })
    assert.are.equal(0, code)
    local w = worldgen.generate(4)
    -- what this world holds (it is the point of the test)
    assert.are.equal("doorway", w.ramp.kind)
    local kinds = {}
    for _, s in ipairs(w.heat_sources) do kinds[s.kind] = (kinds[s.kind] or 0) + 1 end
    assert.are.equal(2, kinds.pair)
    assert.are.equal(1, kinds.dead_end)
    local out = tmpdir()
    local mcode, text = run("behaviors/heat_seek.lua", { "--world", dir .. "/world.lua", "--out", out, "--quiet" })
    assert.are.equal(0, mcode, text)
    local s = read_json(out .. "/summary.json")
    assert.is_true(s.completed)
    assert.are.equal(0, s.collisions)
    assert.is_true(s.coverage > 0.95, "the part beyond the ramp is mapped")
    for i, src in ipairs(s.sources) do
      assert.is_true(src.engaged, ("source %d (%s): %s"):format(i, w.heat_sources[i].kind, tostring(src.missed_because)))
    end
    assert.is_true(s.ramp.detected and s.ramp.climbed)
  end)
end)
