-- Command-line conventions, walked through every mission and tool with the
-- real executable: --opt=value as well as --opt value, exit codes (0 success,
-- 1 the run failed, 2 bad usage or a bad input file, with one line and no
-- traceback unless TYCHO_LOG=debug), results on stdout and log lines on
-- stderr, `tycho attach -e` failing when the evaluation fails.
local tycho = require "tycho"
local cli = require "cli_run"

local run = cli.run

local function lines(s)
  local out = {}
  for l in s:gmatch("[^\n]+") do out[#out + 1] = l end
  return out
end

-- every mission and tool, with a cheap valid argument list (or none)
local TOOLS = {
  { name = "heat_seek", argv = { "run", "behaviors/heat_seek.lua" }, valued = "seed", bad_value = "x" },
  { name = "terrain_nav", argv = { "run", "behaviors/terrain_nav.lua" }, valued = "kind", bad_value = "tank" },
  { name = "fleet", argv = { "run", "behaviors/fleet.lua" }, valued = "delays", bad_value = "2" },
  { name = "traj_compare", argv = { "run", "behaviors/traj_compare.lua" }, valued = "spacing", bad_value = "-1" },
  { name = "plan_demo", argv = { "run", "behaviors/plan_demo.lua" }, valued = "from", bad_value = "1" },
  { name = "campaign", argv = { "run", "behaviors/campaign.lua" }, valued = "jobs", bad_value = "0" },
  { name = "gen_world", argv = { "run", "behaviors/gen_world.lua" }, valued = "seed", bad_value = "-3" },
  { name = "tycho repl", argv = { "repl" }, valued = "seed", bad_value = "1.5" },
  { name = "tycho attach", argv = { "attach" }, valued = "timeout", bad_value = "0" },
}

local function with(argv, ...)
  local out = {}
  for _, a in ipairs(argv) do out[#out + 1] = a end
  for _, a in ipairs { ... } do out[#out + 1] = a end
  return out
end

describe("every mission and tool", function()
  for _, t in ipairs(TOOLS) do
    it(t.name .. ": --help on stdout, exit 0", function()
      local code, out, err = run(with(t.argv, "--help"))
      assert.are.equal(0, code, err)
      assert.matches("^usage: ", out)
      assert.matches("--opt VALUE or --opt=VALUE", out, 1, true)
      assert.matches("--" .. t.valued .. " ", out, 1, true)
      assert.are.equal("", err)
    end)

    it(t.name .. ": an unknown option is exit 2 with one line on stderr", function()
      local code, out, err = run(with(t.argv, "--no-such-option=1"))
      assert.are.equal(2, code)
      assert.are.equal("", out)
      assert.are.equal(1, #lines(err), err)
      assert.matches("unknown option '--no-such-option'", err, 1, true)
    end)

    it(t.name .. ": a bad --" .. t.valued .. "=value is exit 2 naming the option, in both forms", function()
      for _, argv in ipairs { with(t.argv, "--" .. t.valued .. "=" .. t.bad_value),
                              with(t.argv, "--" .. t.valued, t.bad_value) } do
        local code, out, err = run(argv)
        assert.are.equal(2, code, err)
        assert.are.equal("", out)
        assert.are.equal(1, #lines(err), err)
        assert.matches("--" .. t.valued, err, 1, true)
      end
    end)
  end
end)

describe("bad input files", function()
  local missing = os.tmpname() .. "-missing.lua"

  it("a missing world is exit 2 with one line, no traceback", function()
    for _, argv in ipairs {
      { "run", "behaviors/heat_seek.lua", "--world=" .. missing, "--out=" .. cli.tmpdir(), "--no-socket" },
      { "run", "behaviors/terrain_nav.lua", "--world=" .. missing, "--out=" .. cli.tmpdir(), "--no-socket" },
      { "run", "behaviors/fleet.lua", "--fleet=" .. missing, "--out=" .. cli.tmpdir() },
      { "run", "behaviors/plan_demo.lua", "--map=" .. missing:gsub("lua$", "yaml"), "--out=" .. cli.tmpdir() },
      { "run", "behaviors/traj_compare.lua", missing, missing },
    } do
      local code, out, err = run(argv)
      assert.are.equal(2, code, argv[2] .. ": " .. err)
      assert.are.equal(1, #lines(err), err)
      assert.matches(missing:match("[^/]*$"):gsub("lua$", ""), err, 1, true)
      assert.not_matches("traceback", err)
      assert.not_matches("INFO", out)
    end
  end)

  it("TYCHO_LOG=debug adds the traceback", function()
    local code, _, err = run({ "run", "behaviors/heat_seek.lua", "--world=" .. missing, "--no-socket",
                               "--out=" .. cli.tmpdir() }, { TYCHO_LOG = "debug" })
    assert.are.equal(2, code)
    assert.matches("stack traceback", err, 1, true)
  end)

  it("a malformed world names file:line", function()
    local bad = os.tmpname() .. ".lua"
    local f = io.open(bad, "w")
    f:write("return {\n  map = 'x.yaml',\n  start = { x = 1,, },\n}\n")
    f:close()
    local code, _, err = run { "run", "behaviors/heat_seek.lua", "--world", bad, "--out", cli.tmpdir(), "--no-socket" }
    os.remove(bad)
    assert.are.equal(2, code)
    assert.are.equal(1, #lines(err), err)
    assert.matches(bad:match("[^/]*$") .. ":3:", err, 1, true)
  end)

  it("--params-file --strict refuses a file with any bad line, naming each", function()
    local yaml = os.tmpname() .. ".yaml"
    local f = io.open(yaml, "w")
    f:write("heat_seek:\n  ros__parameters:\n    max_speed: 0.2\n    cluster_k: 2.5\n    no_such: 1\n")
    f:close()
    local code, out, err = run { "run", "behaviors/heat_seek.lua", "--params-file=" .. yaml, "--strict", "--params" }
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.matches(":4: cluster_k", err)
    assert.matches(":5: no_such", err)
    -- without --strict the good lines apply and the bad ones are warnings
    code, out, err = run { "run", "behaviors/heat_seek.lua", "--params-file=" .. yaml, "--params" }
    os.remove(yaml)
    assert.are.equal(0, code)
    assert.matches("\nmax_speed%s+0.2 ", out)
    assert.matches("kept the default", err)
  end)
end)

describe("--params as text, JSON and a ROS 2 parameter file", function()
  it("--params --yaml loads back with --strict, and --set wins over the file", function()
    local code, yaml_text = run { "run", "behaviors/terrain_nav.lua", "--params", "--yaml", "--set=margin=0.7" }
    assert.are.equal(0, code)
    assert.matches("^# tycho parameters", yaml_text)
    assert.matches("\nterrain_nav:\n  ros__parameters:\n", yaml_text, 1, true)
    local path = os.tmpname() .. ".yaml"
    local f = io.open(path, "w")
    f:write(yaml_text)
    f:close()
    local json_text
    code, json_text = run { "run", "behaviors/terrain_nav.lua", "--params-file", path, "--strict", "--params", "--json" }
    assert.are.equal(0, code)
    local doc = require("json").decode(json_text)
    local by_name = {}
    for _, p in ipairs(doc.parameters) do by_name[p.name] = p end
    assert.are.equal(0.7, by_name.margin.value)
    assert.are.equal(0.4, by_name.margin.default)
    code, json_text = run { "run", "behaviors/terrain_nav.lua", "--params-file", path, "--set", "margin=0.9", "--params", "--json" }
    os.remove(path)
    assert.are.equal(0, code)
    for _, p in ipairs(require("json").decode(json_text).parameters) do
      if p.name == "margin" then assert.are.equal(0.9, p.value) end
    end
  end)

  it("--json without --params is a usage error", function()
    local code, _, err = run { "run", "behaviors/heat_seek.lua", "--json" }
    assert.are.equal(2, code)
    assert.matches("--json and --yaml go with --params", err, 1, true)
  end)
end)

describe("runs: results on stdout, log lines on stderr, exit 0 or 1", function()
  it("heat_seek completes: exit 0, summary lines on stdout, INFO lines on stderr", function()
    local out_dir = cli.tmpdir()
    local code, out, err = run { "run", "behaviors/heat_seek.lua", "--world=maps/maze_small.lua", "--seed=1",
                                 "--out=" .. out_dir, "--no-socket" }
    assert.are.equal(0, code, err)
    for _, l in ipairs(lines(out)) do assert.matches("^summary: ", l) end
    assert.matches("summary: mission completed", out, 1, true)
    assert.matches("INFO  state:", err, 1, true)
    assert.not_matches("INFO", out)
    os.execute("rm -rf " .. cli.shq(out_dir))
  end)

  it("heat_seek that runs out of time: exit 1, the failure in the summary", function()
    local out_dir = cli.tmpdir()
    local code, out = run { "run", "behaviors/heat_seek.lua", "--world=maps/maze_small.lua", "--set=mission_timeout=10",
                            "--quiet", "--out=" .. out_dir, "--no-socket" }
    assert.are.equal(1, code)
    assert.matches("mission FAILED: mission timeout", out, 1, true)
    os.execute("rm -rf " .. cli.shq(out_dir))
  end)

  it("terrain_nav, fleet, plan_demo, traj_compare, gen_world: exit 0, nothing but results on stdout", function()
    local tn = cli.tmpdir()
    local code, out, err = run { "run", "behaviors/terrain_nav.lua", "--world=maps/terrain_flat.lua", "--out=" .. tn, "--no-socket" }
    assert.are.equal(0, code, err)
    for _, l in ipairs(lines(out)) do assert.matches("^summary: ", l) end
    assert.matches("INFO", err, 1, true)
    code, out, err = run { "run", "behaviors/traj_compare.lua", tn .. "/trajectory.csv", tn .. "/plans.csv", "--plan=1", "--json" }
    assert.are.equal(0, code, err)
    assert.matches('^{"hausdorff":', out)
    assert.are.equal("", err)
    local fl = cli.tmpdir()
    code, out, err = run { "run", "behaviors/fleet.lua", "--fleet=maps/fleet_loop.lua", "--out=" .. fl }
    assert.are.equal(0, code, err)
    for _, l in ipairs(lines(out)) do assert.matches("^summary: ", l) end
    assert.matches("INFO", err, 1, true)
    local pd = cli.tmpdir()
    code, out, err = run { "run", "behaviors/plan_demo.lua", "--from=0.5,0.5", "--to=4.5,3.5", "--out=" .. pd }
    assert.are.equal(0, code, err)
    assert.matches("\npicture ", out)
    local gw = cli.tmpdir()
    code, out, err = run { "run", "behaviors/gen_world.lua", "--seed=3", "--out=" .. gw }
    assert.are.equal(0, code, err)
    assert.matches("^gen_world: .*world.lua", out)
    for _, d in ipairs { tn, fl, pd, gw } do os.execute("rm -rf " .. cli.shq(d)) end
  end)
end)

describe("tycho attach -e", function()
  local dir = cli.tmpdir()
  local sock = dir .. "/t.sock"
  local mission

  setup(function()
    os.execute("mkdir -p " .. cli.shq(dir))
    -- terrain_nav paced at wall-clock speed, listening on a socket, with a parameter group
    mission = io.popen(("exec %s run behaviors/terrain_nav.lua --world=maps/terrain_flat.lua --realtime --speed=0.5 --socket=%s --out=%s/out > %s/out.txt 2>&1")
      :format(cli.shq(cli.EXE), cli.shq(sock), cli.shq(dir), cli.shq(dir)), "w")
    for _ = 1, 100 do
      local c = tycho.net.connect_unix(sock)
      if c then c:close() return end
      tycho.net.wait({}, 0.05)
    end
    error("the mission did not open its socket")
  end)
  teardown(function()
    if mission then mission:close() end
    os.execute("rm -rf " .. cli.shq(dir))
  end)

  it("exits 0 when every evaluation succeeds, its output on stdout", function()
    local code, out = run { "attach", sock, "-e", "1 + 1", "--eval=P.margin" }
    assert.are.equal(0, code)
    assert.matches("^2\n0.4\n$", out)
  end)

  it("exits 1 when an evaluation errs", function()
    local code, out = run { "attach", sock, "-e", "1 + 1", "-e", "error('boom')" }
    assert.are.equal(1, code)
    assert.matches("boom", out, 1, true)
  end)

  it("exits 1 when a command is refused or unknown", function()
    local code, out = run { "attach", sock, "-e", ":set margin=99" }
    assert.are.equal(1, code)
    assert.matches("refused", out, 1, true)
    code = run { "attach", sock, "-e", ":no_such_command" }
    assert.are.equal(1, code)
    code = run { "attach", sock, "-e", ":set margin=0.5" }
    assert.are.equal(0, code)
    code = run { "attach", sock, "-e", ":stop" }
    assert.are.equal(0, code)
  end)
end)
