-- summary.json as an interface: every mission's output, from real runs,
-- validates against its schema in schemas/, and the validator does catch
-- a summary that drifts from it.
local json = require "json"
local schema = require "json_schema"
local cli = require "cli_run"

local SRC = os.getenv("TYCHO_SOURCE_DIR") or "."

local function validate(schema_file, path)
  local v = schema.load(SRC .. "/schemas/" .. schema_file)
  local doc = schema.read(path)
  return v:errors(doc), doc, v
end

local function run_ok(argv)
  local code, out, err = cli.run(argv)
  assert.are.equal(0, code, err)
  return out, err
end

describe("summary schemas", function()
  local dirs = {}
  setup(function()
    for _, k in ipairs { "hs", "tn", "fl", "camp" } do dirs[k] = cli.tmpdir() end
  end)
  teardown(function()
    for _, d in pairs(dirs) do os.execute("rm -rf " .. cli.shq(d)) end
  end)

  it("heat_seek's summary.json validates, with its schema_version", function()
    run_ok { "run", "behaviors/heat_seek.lua", "--world=maps/maze_small.lua", "--out=" .. dirs.hs, "--no-socket" }
    local errs, doc = validate("heat_seek_summary.schema.json", dirs.hs .. "/summary.json")
    assert.are.same({}, errs)
    assert.are.equal(1, doc.schema_version)
    assert.are.equal(3, #doc.sources)
  end)

  it("terrain_nav's summary.json validates", function()
    run_ok { "run", "behaviors/terrain_nav.lua", "--world=maps/terrain_rough.lua", "--out=" .. dirs.tn, "--no-socket" }
    local errs, doc = validate("terrain_nav_summary.schema.json", dirs.tn .. "/summary.json")
    assert.are.same({}, errs)
    assert.are.equal(1, doc.schema_version)
  end)

  it("fleet's summary.json validates", function()
    run_ok { "run", "behaviors/fleet.lua", "--fleet=maps/fleet_loop.lua", "--out=" .. dirs.fl }
    local errs, doc = validate("fleet_summary.schema.json", dirs.fl .. "/summary.json")
    assert.are.same({}, errs)
    assert.are.equal(1, doc.schema_version)
  end)

  it("campaign.json validates (its worlds' sources against heat_seek's definition)", function()
    run_ok { "run", "behaviors/campaign.lua", "--generate=2", "--seed0=12", "--jobs=2", "--sheet=false", "--out=" .. dirs.camp }
    local errs, doc = validate("campaign.schema.json", dirs.camp .. "/campaign.json")
    assert.are.same({}, errs)
    assert.are.equal(2, #doc.worlds)
    -- an empty count table stays an object (it was written as [] before)
    local text = io.open(dirs.camp .. "/campaign.json"):read("*a")
    assert.matches('"missed_by_kind":{', text, 1, true)
  end)

  it("catches a summary that drifts from its schema", function()
    local path = dirs.fl .. "/summary.json"
    local v = schema.load(SRC .. "/schemas/fleet_summary.schema.json")
    local function errors_after(edit)
      local doc = schema.read(path)
      edit(doc)
      return table.concat(v:errors(doc), "\n")
    end
    assert.matches("required field 'totals' missing", errors_after(function(d) d.totals = nil end), 1, true)
    assert.matches("$/schema_version: must be 1", errors_after(function(d) d.schema_version = 2 end), 1, true)
    assert.matches("unknown field 'extra'", errors_after(function(d) d.extra = 1 end), 1, true)
    assert.matches("$/robots/0/waits: integer expected, got number",
      errors_after(function(d) d.robots[1].waits = 1.5 end), 1, true)
    assert.matches("$/delays: 2 > maximum 1", errors_after(function(d) d.delays = 2 end), 1, true)
    assert.matches("$/robots: array expected, got object",
      errors_after(function(d) d.robots = json.object() end), 1, true)
    assert.matches("$/robots/0/time_s: .* matches none of anyOf",
      errors_after(function(d) d.robots[1].time_s = true end))
    -- a $ref into another schema file is followed
    local c = schema.load(SRC .. "/schemas/campaign.schema.json")
    local doc = schema.read(dirs.camp .. "/campaign.json")
    doc.worlds[1].sources[1].missed_because = "bad luck"
    assert.matches("missed_because: \"bad luck\" is not one of", table.concat(c:errors(doc), "\n"), 1, true)
  end)
end)
