-- The reference mission end to end, through the real main job: the tycho
-- executable runs behaviors/heat_seek.lua on each bundled world and the
-- spec reads what it wrote (summary.json, picture, map).
local tycho = require "tycho"
local exe = require "helpers.exe"

-- Runs the mission; returns exit code, summary table (or nil), combined output.
local function mission(world, extra)
  local out = exe.tmpdir()
  local args = { "run", "behaviors/heat_seek.lua", "--world", world, "--out", out, "--quiet" }
  for _, a in ipairs(extra or {}) do args[#args + 1] = a end
  local code, text = exe.run(args)
  return code, exe.read_json(out .. "/summary.json"), text, out
end

local exists = exe.exists

local function cleanup(dir)
  for _, n in ipairs { "summary.json", "map.png", "map.yaml", "map.pgm" } do os.remove(dir .. "/" .. n) end
  os.remove(dir)
end

describe("heat_seek mission #e2e #slow", function()
  for _, w in ipairs {
    { file = "maps/maze_small.lua", ramp = true },
    { file = "maps/maze_large.lua", ramp = true },
    { file = "maps/narrow_corridor.lua", ramp = false },
  } do
    it("engages every heat source with no collision on " .. w.file, function()
      local code, s, text, dir = mission(w.file)
      assert.are.equal(0, code, text)
      assert.is_table(s, "no summary.json")
      assert.is_true(s.completed, text)
      assert.are.equal(0, s.collisions)
      assert.is_true(#s.engaged >= 3)
      for i, e in ipairs(s.engaged) do assert.is_true(e, "heat source " .. i .. " not engaged") end
      assert.is_true(s.coverage > 0.95, "coverage " .. tostring(s.coverage))
      assert.is_true(#s.targets >= #s.engaged)
      for _, l in ipairs(s.launches) do
        assert.is_number(l.t); assert.is_number(l.x); assert.is_number(l.yaw)
        assert.is_true(l.balls >= 1)
      end
      -- the state sequence: initialise, explore, ..., done
      assert.are.equal("Initialising", s.states[1].state)
      assert.are.equal("Exploring", s.states[2].state)
      assert.are.equal("Done", s.states[#s.states].state)
      for i = 2, #s.states do assert.is_true(s.states[i].t >= s.states[i - 1].t) end
      -- the IMU interrupt fires on the ramp, and never on flat ground
      assert.are.equal(w.ramp, s.ramp.detected)
      if w.ramp then
        assert.is_true(s.ramp.events >= 1)
        assert.is_true(s.ramp.climbed)
      else
        assert.are.equal(0, s.ramp.events)
      end
      assert.is_true(s.sim_time_s > 0 and s.wall_time_s > 0)
      assert.is_true(exists(dir .. "/map.png") and exists(dir .. "/map.yaml") and exists(dir .. "/map.pgm"))
      -- the saved map loads back as a map_server map
      local m = tycho.map.load(dir .. "/map.yaml")
      assert.is_true(m.width > 0 and m.height > 0)
      cleanup(dir)
    end)
  end

  it("does not fire at a ghost target it cannot see again when facing it", function()
    -- clusters that do not show again when faced (smeared along a wall from
    -- far views, or a hot pixel column spanning a near wall and a far one)
    -- each get a second standoff, then are given up, never fired at. Which
    -- seed makes one depends on every detail of the run, so three seeds
    -- (each makes at least one today) and at least one ghost among them.
    local ghosts = 0
    for _, seed in ipairs { "1", "5", "7" } do
      local code, s, text, dir = mission("maps/maze_small.lua", { "--seed", seed })
      assert.are.equal(0, code, text)
      for i, t in ipairs(s.targets) do
        if t.unconfirmed then
          ghosts = ghosts + 1
          assert.is_false(t.engaged)
          for _, l in ipairs(s.launches) do assert.are_not.equal(i, l.target) end
        end
      end
      for _, l in ipairs(s.launches) do
        if type(l.target) == "number" then
          assert.is_truthy(l.engaged_source, "seed " .. seed .. ": a ball fired at target " .. l.target .. " hit nothing")
        end
      end
      for i, e in ipairs(s.engaged) do assert.is_true(e, "seed " .. seed .. ": heat source " .. i .. " not engaged") end
      cleanup(dir)
    end
    assert.is_true(ghosts >= 1, "a ghost is declined")
  end)

  it("is deterministic for a seed (summary equal but for the wall time)", function()
    local _, _, _, d1 = mission("maps/maze_small.lua", { "--seed", "7" })
    local _, _, _, d2 = mission("maps/maze_small.lua", { "--seed", "7" })
    local function body(d)
      local f = assert(io.open(d .. "/summary.json"))
      local t = f:read("*a"):gsub('"wall_time_s":[-0-9.eE+]+', "")
      f:close()
      return t
    end
    assert.are.equal(body(d1), body(d2))
    cleanup(d1); cleanup(d2)
  end)

  it("fails in a reported way when the threshold is above every source", function()
    local code, s, text, dir = mission("maps/maze_small.lua",
      { "--set", "temperature_threshold=75", "--set", "thermal_sweep=false" })
    assert.are.equal(1, code)
    assert.is_false(s.completed)
    assert.matches("no heat source detected %(temperature_threshold 75", s.failure)
    assert.matches("mission FAILED", text)
    assert.are.equal(0, #s.launches)
    cleanup(dir)
  end)

  it("refuses an out-of-range parameter, naming it and its range", function()
    local code, s, text = mission("maps/maze_small.lua", { "--set", "temperature_threshold=100" })
    assert.are.equal(2, code)
    assert.is_nil(s)
    assert.matches("temperature_threshold", text)
    assert.matches("80", text)
  end)

  -- A generated maze in a scratch folder (knobs: more gen_world.lua
  -- arguments): its world file and a remover.
  local function generated(seed, knobs)
    local wdir = exe.tmpdir()
    local args = { "run", "behaviors/gen_world.lua", "--seed", tostring(seed), "--out", wdir }
    for _, k in ipairs(knobs or {}) do args[#args + 1] = k end
    local code, text = exe.run(args)
    assert.are.equal(0, code, text)
    return wdir .. "/world.lua", function()
      for _, n in ipairs { "world.lua", "map.pgm", "map.yaml" } do os.remove(wdir .. "/" .. n) end
      os.remove(wdir)
    end
  end

  -- The mission on `world` with its info log (not --quiet): every source
  -- engaged, no collision, most of the maze mapped (more than min_coverage,
  -- default 0.9), and the log line `says`.
  local function solves(world, says, min_coverage)
    local out = exe.tmpdir()
    local code, text = exe.run { "run", "behaviors/heat_seek.lua", "--world", world, "--out", out }
    local s = exe.read_json(out .. "/summary.json")
    assert.are.equal(0, code, text)
    assert.matches(says, text)
    assert.are.equal(0, s.collisions)
    assert.is_true(s.coverage > (min_coverage or 0.9), "coverage " .. tostring(s.coverage))
    for i, e in ipairs(s.engaged) do assert.is_true(e, "heat source " .. i .. " not engaged") end
    cleanup(out)
  end

  -- generated maze seed 150001 with 0.45 m corridors and 5 cm walls
  -- (narrower than the campaign's 0.5-1.5 m): its mapped doorways are
  -- narrower than the robot plus 4 cm of padding on each side, and some open
  -- only once the thermal sweep's views have rescanned them
  local narrow = { "--cell", "0.45", "--wall", "0.05" }

  it("squeezes through doorways the padded no-go band closes (0.45 m corridors, 5 cm walls)", function()
    -- with the padding fixed (and no second look after the sweep) the robot
    -- maps half of it and engages nothing
    local world, remove = generated(150001, narrow)
    local _, fixed, ftext, fdir = mission(world, { "--set", "squeeze_doorways=false", "--set", "max_reexplore=0" })
    assert.is_table(fixed, ftext)
    assert.is_true(fixed.coverage < 0.55, "coverage " .. tostring(fixed.coverage))
    for i, e in ipairs(fixed.engaged) do assert.is_false(e, "heat source " .. i .. " engaged") end
    cleanup(fdir)
    solves(world, "no frontier reachable with 4.0 cm of footprint padding; squeezing to", 0.75)
    remove()
  end)

  it("explores again when a frontier is reachable after the thermal sweep", function()
    -- the same maze, squeezing but exploring once: exploration ends with
    -- part of it closed (63 %, two sources of four); the sweep's views open
    -- it again
    local world, remove = generated(150001, narrow)
    local _, once, otext, odir = mission(world, { "--set", "max_reexplore=0" })
    assert.is_table(once, otext)
    assert.is_true(once.coverage < 0.7, "coverage " .. tostring(once.coverage))
    local engaged = 0
    for _, e in ipairs(once.engaged) do if e then engaged = engaged + 1 end end
    assert.is_true(engaged < #once.engaged, "every source engaged without exploring again")
    cleanup(odir)
    solves(world, "sweep: a frontier is reachable again; exploring on", 0.75)
    remove()
  end)

  it("refuses a missing world with a clear message", function()
    local code, _, text = mission("maps/no_such_world.lua")
    assert.are_not.equal(0, code)
    assert.matches("no_such_world", text)
  end)
end)

describe("IMU pitch on the simulated ramp", function()
  local function drive(sim, x, y, yaw, seconds)
    sim:teleport(x, y, yaw)
    local det = tycho.pitch_detector { window = 0.5, multiple = 3, abs_threshold = 0.12 }
    local fired = false
    sim:set_cmd(0.15, 0)
    for _ = 1, math.floor(seconds / 0.05) do
      sim:step(0.05)
      if det:push(sim.time, (sim:imu())) then fired = true end
    end
    sim:set_cmd(0, 0)
    return fired
  end

  it("fires when driving up the ramp and not on flat ground", function()
    local sim = tycho.sim.load("maps/maze_small.lua")
    assert.is_false(drive(sim, 1.4, 2.3, 0, 5.0))            -- up to the ramp foot at x = 2.4
    assert.is_true(drive(sim, 2.0, 2.3, 0, 4.0))             -- over the ramp
    assert.is_false(drive(sim, 0.4, 0.4, 0, 8.0))            -- bottom corridor, flat
  end)

  it("knows where it is when the wheels lie: scan matching against a TurtleBot3's odometry errors", function()
    -- maze_small with the turtlebot3 error preset (seed 1: the odometry
    -- drifts over a metre and tens of degrees in the mission)
    local src = io.open("maps/maze_small.lua"):read("*a")
    local pwd = io.popen("pwd")
    local cwd = pwd:read("*l")
    pwd:close()
    local text = src:gsub('map = "maze_small.yaml",', ('map = %q, robot = { errors = "turtlebot3" },'):format(cwd .. "/maps/maze_small.yaml"))
    local world = os.tmpname() .. ".lua"
    local f = assert(io.open(world, "w"))
    f:write(text)
    f:close()
    local code, s, out, dir = mission(world, { "--set", "localization=scan_matching" })
    assert.are.equal(0, code, out)
    assert.are.equal("turtlebot3", s.odometry.errors)
    assert.is_true(s.odometry.max_drift_m > 0.3, "odometry drift " .. s.odometry.max_drift_m)
    assert.are.equal("scan_matching", s.localization.method)
    -- each match refined against the hits' means (finer than a cell: the map
    -- frame no longer takes on half a cell's offset from the first matches;
    -- measured 0.7 cm, before the refinement 3.7 cm as it is, 1.1 cm aligned)
    assert.is_true(s.localization.ate_rmse_m < 0.025, "trajectory error " .. s.localization.ate_rmse_m)
    assert.is_true(s.localization.ate_aligned_rmse_m <= s.localization.ate_rmse_m + 1e-9)
    assert.is_true(s.localization.ate_aligned_rmse_m < 0.02, "aligned " .. s.localization.ate_aligned_rmse_m)
    assert.is_true(s.localization.scans_matched > 0.9 * s.localization.scans)
    assert.is_true(s.localization.scans_refined > 0.8 * s.localization.scans)
    -- the preset's wheels: the odometry's scale learnt from the matches
    assert.is_true(math.abs(s.localization.odometry_scale - 1) < 0.05, "scale " .. s.localization.odometry_scale)
    assert.are.equal(0, s.collisions)
    for i, e in ipairs(s.engaged) do assert.is_true(e, "heat source " .. i .. " not engaged") end
    cleanup(dir)
    -- the wheels alone: the mission's idea of its pose is off by the drift
    local _, s_odo, _, dir_odo = mission(world, { "--set", "localization=odometry" })
    assert.are.equal("odometry", s_odo.localization.method)
    assert.is_true(s_odo.localization.ate_rmse_m > 0.2, "trajectory error " .. s_odo.localization.ate_rmse_m)
    cleanup(dir_odo)
    os.remove(world)
  end)

  it("closes loops with SLAM: within the issue's targets, and better with loop closure than without", function()
    -- maze_small (its corridors make loops) with the turtlebot3 error preset, seed 1
    local src = io.open("maps/maze_small.lua"):read("*a")
    local pwd = io.popen("pwd")
    local cwd = pwd:read("*l")
    pwd:close()
    local text = src:gsub('map = "maze_small.yaml",', ('map = %q, robot = { errors = "turtlebot3" },'):format(cwd .. "/maps/maze_small.yaml"))
    local world = os.tmpname() .. ".lua"
    local f = assert(io.open(world, "w"))
    f:write(text)
    f:close()
    -- localization = auto (the default): a world whose odometry has errors gets SLAM
    local code, s, out, dir = mission(world)
    assert.are.equal(0, code, out)
    local with = s.localization
    assert.are.equal("slam", with.method)
    assert.is_true(with.scans_refined > 0.8 * with.scans, "refined " .. tostring(with.scans_refined))
    assert.is_true(with.loop_closures > 0, "no loop closed")
    assert.is_true(with.ate_rmse_m <= 0.03, "trajectory error " .. with.ate_rmse_m)
    assert.is_true(with.ate_max_m <= 0.10, "largest trajectory error " .. with.ate_max_m)
    assert.is_true(s.odometry.max_drift_m > 0.3, "odometry drift " .. s.odometry.max_drift_m)
    assert.are.equal(0, s.collisions)
    for i, e in ipairs(s.engaged) do assert.is_true(e, "heat source " .. i .. " not engaged") end
    assert.matches("SLAM closed %d+ loops", out)
    assert.is_true(with.ate_aligned_rmse_m <= with.ate_rmse_m + 1e-9)
    -- a SLAM summary is a valid summary too (its method and fields were once missing from the schema)
    local schema = require "json_schema"
    local v = schema.load(exe.SRC .. "/schemas/heat_seek_summary.schema.json")
    assert.are.same({}, v:errors(schema.read(dir .. "/summary.json")))
    cleanup(dir)
    code, s, out, dir = mission(world, { "--set", "localization=slam", "--set", "slam_loop_closure=false" })
    assert.are.equal(0, code, out)
    assert.are.equal(0, s.localization.loop_closures)
    -- (the fusion's heat window changed the mission's path here, and four
    -- closures from the robot turning on the spot, 10 cm off, made it 2.7 cm
    -- against 1.5 without, until loop_max_shift set such closures aside)
    assert.is_true(with.ate_rmse_m < s.localization.ate_rmse_m,
      ("with closures %.3f m, without %.3f m"):format(with.ate_rmse_m, s.localization.ate_rmse_m))
    cleanup(dir)
    os.remove(world)
  end)
end)
