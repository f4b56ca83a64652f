local exe = require "helpers.exe"
local tycho = require "tycho"

local src = exe.SRC
local worlds = src .. "/tests/data/worlds/"
local basic = worlds .. "basic.lua"
local map = worlds .. "basic.yaml"

-- Writes a world file to a temporary path and returns the path.
local function world_file(text)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

-- A valid world as text, with `extra` pasted into its table.
local function world_text(extra)
  return ([[return {
  map = %q,
  start = {x = 0.5, y = 0.5, yaw = 0},
  heat_sources = {{x = 3.5, y = 0.5, temp = 45}, {x = 0.5, y = 2.5, temp = 60}},
  %s
}]]):format(map, extra or "")
end

-- Loads text as a world file; returns the error message (nil on success).
local function load_error(text)
  local path = world_file(text)
  local ok, err = pcall(tycho.sim.load, path)
  os.remove(path)
  if ok then return nil end
  return err, path
end

local function max_of(t)
  local m = -math.huge
  for i = 1, #t do m = math.max(m, t[i]) end
  return m
end

describe("tycho.sim world files", function()
  it("loads a good world, resolving the map beside the file", function()
    local sim = tycho.sim.load(basic)
    assert.are.equal(0, sim.time)
    local x, y, yaw = sim:pose()
    assert.are.same({ 0.5, 0.5, 0 }, { x, y, yaw })
    local w = sim:world()
    assert.are.equal(basic, w.path)
    assert.are.equal(map, w.map)
    assert.are.equal(2, #w.heat_sources)
    assert.are.equal(60, w.heat_sources[2].temp)
    assert.are.equal(0.1, w.heat_sources[1].radius)
    assert.are.equal(1, #w.ramps)
    assert.are.near(math.rad(12), w.ramps[1].pitch, 1e-12)
    assert.are.equal(7, w.seed)
    assert.are.equal(22, w.ambient)
    assert.are.equal(2, #w.cameras)
    assert.are.near(math.rad(-30), w.cameras[2].yaw, 1e-12)
    assert.are.near(math.rad(60), w.cameras[1].fov_h, 1e-12)
    assert.are.equal(360, w.lidar.beams)
    assert.are.equal(10, w.launcher.balls)
    assert.matches("tycho.sim .*basic.lua: t=0.00 s, pose %(0.500, 0.500, 0.000%), 0/2 sources",
                   tostring(sim))
    local g = sim:truth()
    assert.are.equal(80, g.width)
    assert.are.equal(60, g.height)
  end)

  it("applies overrides, merging sensor sections", function()
    local sim = tycho.sim.load(basic, { lidar = { noise = 0 }, seed = 9,
                                        launcher = { balls = 2 } })
    assert.are.equal(9, sim:world().seed)
    assert.are.equal(2, sim:launcher().balls)
    local scan = sim:last_scan()
    assert.are.equal(360, #scan)
    assert.are.equal("userdata", type(scan)) -- a tycho.scan
    assert.are.near(1.5, scan:range(1), 1e-5) -- the wall face at x = 2.0
    assert.are.near(0.4, scan:range(181), 1e-5) -- behind: x = 0.1
    assert.are.near(math.rad(1), scan.angle_increment, 1e-12)
    assert.are.equal(3.5, scan.range_max)
  end)

  it("names the file and the field in every error", function()
    local cases = {
      { world_text([[ramps = {{x0 = 1, y0 = 1, x1 = 2, y1 = 2}}]]), "ramps%[1%]%.pitch is required" },
      { world_text([[lidr = {noise = 0}]]), "unknown field 'lidr'" },
      { world_text([[lidar = {noise = -1}]]), "lidar%.noise must be >= 0" },
      { world_text([[lidar = {nosie = 0}]]), "unknown field 'lidar%.nosie'" },
      { world_text([[lidar = {beams = 1.5}]]), "lidar%.beams must be an integer" },
      { world_text([[seed = "x"]]), "seed must be an integer" },
      { world_text([[ambient = "warm"]]), "ambient must be a number %(got string%)" },
      { world_text([[launcher = 3]]), "launcher must be a table %(got number%)" },
      { world_text([[name = 3]]), "name must be a string" },
      { world_text([[cameras = {{yaw = 0}, {fov_h = 4}}]]), "cameras%[2%]%.fov_h must be in" },
      { world_text([[thermal = {yaw = 0}]]), "thermal%.yaw" },
      { world_text([[imu = {rate = 0}]]), "imu%.rate must be in" },
      { world_text([[heat_sources = {[1] = {x = 1, y = 1, temp = 30}, [3] = {}}]]), "heat_sources must be an array" },
      { (world_text():gsub("temp = 60", 'temp = "hot"')), "heat_sources%[2%]%.temp must be a number %(got string%)" },
      { (world_text():gsub("start = {x = 0.5, y = 0.5, yaw = 0},", "")), "start is required" },
      { (world_text():gsub("x = 0.5, y = 0.5, yaw", "x = 0.05, y = 0.5, yaw")), "start %(0.050, 0.500%)" },
      { (world_text():gsub("start = {x = 0.5,", "start = {x = 'a',")), "start%.x must be a number" },
      { (world_text():gsub(" map = %b\"\",", ' map = "nope.yaml",')), "map '.*nope.yaml'" },
      { (world_text():gsub(" map = %b\"\",", "")), "map must be a string" },
      { "return 42", "must return a table %(got number%)" },
      { "return {", "near '?<eof>" },
      { "os.exit(1)", "global 'os'" },
      { "local f = io.open('/etc/passwd')", "global 'io'" },
      { "return require('tycho')", "global 'require'" },
      { "while true do end", "ran too long" },
      { "error('custom failure')", "custom failure" },
    }
    for i, case in ipairs(cases) do
      local err, path = load_error(case[1])
      assert(err, "case " .. i .. " loaded without error")
      assert(err:find(path, 1, true), "case " .. i .. ": no file name in: " .. err)
      assert(err:find(case[2]), "case " .. i .. ": expected '" .. case[2] .. "' in: " .. err)
    end
    local ok, err = pcall(tycho.sim.load, worlds .. "missing.lua")
    assert.is_false(ok)
    assert.matches("missing.lua", err)
  end)

  it("gives world files math, string and table only", function()
    local path = world_file("WORLD_LEAK = 1\n" .. world_text([[
      ambient = math.floor(21.7) + #string.rep("x", 2) - table.unpack({1}),
      name = tostring(type(os)) .. tostring(type(print)),
    ]]))
    local sim = tycho.sim.load(path)
    os.remove(path)
    assert.are.equal(22, sim:world().ambient)
    assert.is_nil(rawget(_G, "WORLD_LEAK"))
  end)
end)

describe("tycho.sim.new", function()
  local function grid()
    local g = tycho.grid.new { width = 60, height = 40, resolution = 0.05, fill = 0 }
    for x = 0, 59 do g:set(x, 0, 254); g:set(x, 39, 254) end
    for y = 0, 39 do g:set(0, y, 254); g:set(59, y, 254) end
    return g
  end

  it("builds a sim from a grid and a config table", function()
    local sim = tycho.sim.new(grid(), { start = { x = 1, y = 1 }, lidar = { noise = 0 } })
    assert.are.near(1.95, sim:last_scan():range(1), 1e-5) -- wall cell 59 starts at 2.95
    assert.is_nil(sim:world().path)
  end)

  it("blames argument #2 for bad fields", function()
    local ok, err = pcall(tycho.sim.new, grid(), { heat_sources = { { x = 1, y = 1, temp = "hot" } } })
    assert.is_false(ok)
    assert.matches("bad argument #2 to 'new' %(heat_sources%[1%]%.temp must be a number", err)
    ok, err = pcall(tycho.sim.new, grid(), { map = "x.yaml" })
    assert.is_false(ok)
    assert.matches("map is for world files", err)
    ok, err = pcall(tycho.sim.new, {}, {})
    assert.is_false(ok)
    assert.matches("bad argument #1", err)
  end)
end)

describe("tycho.sim", function()
  it("drives, clamps commands and stops at walls counting one collision", function()
    local sim = tycho.sim.load(basic, { lidar = { noise = 0 } })
    local v, w = sim:set_cmd(1, -9)
    assert.are.same({ 0.22, -2.84 }, { v, w })
    sim:set_cmd(0.2, 0)
    assert.are.near(1.0, sim:step(1.0), 1e-12)
    local x = sim:pose()
    assert.are.near(0.7, x, 1e-9)
    local ox = sim:odom()
    assert.are.equal(x, ox)
    for _ = 1, 100 do
      sim:set_cmd(0.22, 0)
      sim:step(0.1)
    end
    x = sim:pose()
    assert.are.near(2.0 - 0.105, x, 1e-3)
    assert.are.equal(1, sim.collisions)
    assert.is_true(sim.in_contact)
    assert.are.same({ 0, 0 }, { sim:velocity() })
    assert.matches("1 collisions", tostring(sim))
    assert.has_error(function() sim:step(-1) end)
    assert.has_error(function() sim:step("x") end)
  end)

  it("delivers scans at 5 Hz and thermal frames at 10 Hz, consumed once", function()
    local sim = tycho.sim.load(basic)
    local scan, stamp = sim:scan()
    assert.is_truthy(scan)
    assert.are.equal(0, stamp)
    assert.is_nil(sim:scan())
    sim:step(0.1)
    assert.is_nil(sim:scan())
    local frame, t = sim:thermal(1)
    assert.are.near(0.1, t, 1e-9)
    assert.are.equal(64, #frame)
    assert.are.equal(1, frame.camera)
    assert.is_nil(sim:thermal(1))
    assert.is_table(sim:thermal(2))
    sim:step(0.1)
    scan, stamp = sim:scan()
    assert.are.near(0.2, stamp, 1e-9)
    local info_t, seq = sim:scan_info()
    assert.are.same({ stamp, 1 }, { info_t, seq })
    -- it feeds mapping and fusion as it is
    local g = tycho.grid.new { width = 100, height = 100, resolution = 0.05, fill = 255 }
    assert.is_true(g:insert_scan({ x = 0.5, y = 0.5, yaw = 0 }, scan) > 100)
    local cx, cy = g:world_to_cell(2.01, 0.5 + 1.5 * math.tan(math.rad(10)))
    assert.are.equal(254, g:get(cx, cy)) -- beam 11 (10 deg) ends on the dividing wall
    assert.has_error(function() sim:thermal(3) end, "bad argument #1 to 'thermal' (camera 1..2 expected)")
  end)

  it("sees a heat source with the camera pointing at it", function()
    local sim = tycho.sim.load(basic)
    -- source 2 at (0.5, 2.5), straight ahead of the right camera (-30 deg)
    sim:teleport(0.5, 1.3, math.pi / 2 + math.rad(30))
    sim:step(0.1)
    local right, left = sim:thermal(2), sim:thermal(1)
    assert.is_true(max_of(right) > 40)
    assert.is_true(max_of(left) < 23)
    -- hottest pixels in the middle columns (4 and 5, 1-based)
    local best = 1
    for i = 2, 64 do if right[i] > right[best] then best = i end end
    local col = (best - 1) % 8 + 1
    assert.is_true(col == 4 or col == 5)
  end)

  it("reports ramp pitch from the IMU", function()
    local sim = tycho.sim.load(basic, { imu = { noise = 0, rate_noise = 0 } })
    assert.are.same({ 0, 0, 0, 0 }, { sim:imu() })
    sim:teleport(3.0, 2.4, 0)
    sim:step(0.02)
    local pitch, roll, rate, stamp = sim:imu()
    assert.are.near(math.rad(12), pitch, 1e-12)
    assert.are.equal(0, roll)
    assert.are.equal(0, rate)
    assert.are.near(0.02, stamp, 1e-9)
  end)

  it("spins up the launcher and judges each ball", function()
    local sim = tycho.sim.load(basic, { launcher = { balls = 2 } })
    local l, why, code = sim:launcher_feed()
    assert.is_nil(l)
    assert.matches("not spinning", why)
    assert.are.equal("not spinning", code)
    sim:launcher_spin(true)
    sim:step(0.5)
    l, why = sim:launcher_feed()
    assert.is_nil(l)
    assert.matches("spinning up %(0.50 s left%)", why)
    assert.is_false(sim:launcher().ready)
    sim:step(0.5)
    assert.is_true(sim:launcher().ready)
    -- 1.2 m below source 2, facing it
    sim:teleport(0.5, 1.3, math.pi / 2)
    assert.are.equal(2, sim:judge().engaged)
    l = sim:launcher_feed()
    assert.are.equal(2, l.engaged)
    assert.are.near(1.2, l.distance, 1e-9)
    assert.matches("engaged heat source 2", l.reason)
    assert.are.same({ false, true }, sim:engaged())
    sim:step(0.5)
    -- source 1 is behind the dividing wall
    sim:teleport(1.85, 0.5, 0)
    l = sim:launcher_feed()
    assert.is_false(l.engaged)
    assert.matches("wall", l.reason)
    sim:step(1)
    l, why = sim:launcher_feed()
    assert.is_nil(l)
    assert.matches("no balls left", why)
    assert.are.equal(2, #sim:launches())
    assert.are.equal(2, sim:launches()[1].engaged)
    assert.matches("1/2 sources engaged, 0 balls left", tostring(sim))
  end)

  it("is deterministic for a seed", function()
    local function run(seed)
      local sim = tycho.sim.load(basic, { seed = seed })
      local out = {}
      for i = 1, 40 do
        sim:set_cmd(0.15, 0.5 * math.sin(i / 5))
        sim:step(0.05)
        local s = sim:scan()
        if s then for k = 1, #s, 7 do out[#out + 1] = s:range(k) end end
        local f = sim:thermal(1)
        if f then out[#out + 1] = f[20] end
        out[#out + 1] = select(3, sim:imu())
      end
      return out
    end
    assert.are.same(run(3), run(3))
    assert.are_not.same(run(3), run(4))
  end)

  it("returns an independent copy of the truth grid", function()
    local sim = tycho.sim.load(basic, { lidar = { noise = 0 } })
    local g = sim:truth()
    g:fill(0)
    assert.are.equal(254, sim:truth():get(0, 0))
    sim = nil -- luacheck: ignore 311 (dropped so the collector frees it)
    collectgarbage()
    assert.are.equal(0, g:get(0, 0))
  end)
end)

describe("tycho.sim odometry and IMU errors", function()
  -- drives (v, w) for `secs` in 0.05 s steps, commanding again each step
  -- (a contact zeroes the command, as a motor driver would)
  local function drive(sim, v, w, secs)
    for _ = 1, math.floor(secs / 0.05 + 0.5) do
      sim:set_cmd(v, w)
      sim:step(0.05)
    end
  end
  local function sim_with(extra, start)
    local text = world_text(extra)
    if start then text = text:gsub("start = {x = 0.5, y = 0.5, yaw = 0}", start) end
    local path = world_file(text)
    local sim = tycho.sim.load(path)
    os.remove(path)
    return sim
  end

  it("is exact by default, and the summary's terms say so", function()
    local sim = sim_with("")
    local e = sim:errors()
    assert.are.equal("none", e.preset)
    for _, k in ipairs { "wheel_radius_error_left", "wheel_radius_error_right", "wheel_base_error",
                         "encoder_ticks_per_m", "slip_ramp", "slip_contact", "gyro_bias", "gyro_scale" } do
      assert.are.equal(0, e[k], k)
    end
    drive(sim, 0.2, 0.3, 5)
    assert.are.same({ sim:pose() }, { sim:odom() })
  end)

  it("counts a wheel radius error as distance, and a left/right difference as a turn", function()
    local sim = sim_with("odom = {wheel_radius_error_left = 0.03, wheel_radius_error_right = 0.03},")
    drive(sim, 0.2, 0, 5)
    local x = sim:pose()
    local ox, _, oyaw = sim:odom()
    assert.is_near(1.5, x, 1e-6)          -- the robot rolled 1.0 m
    assert.is_near(1.53, ox, 1e-6)        -- its encoders counted 1.03 m
    assert.is_near(0, oyaw, 1e-9)
    sim = sim_with("odom = {wheel_radius_error_right = 0.02},")
    drive(sim, 0.2, 0, 5)
    local _, _, yaw = sim:pose()
    _, _, oyaw = sim:odom()
    assert.is_near(0, yaw, 1e-9)
    assert.is_near(0.02 * 1.0 / 0.16, oyaw, 2e-3) -- (dr - dl) / wheel base
  end)

  it("divides by a wrong wheel base, and quantises to encoder counts", function()
    local sim = sim_with("odom = {wheel_base_error = 0.05},")
    drive(sim, 0, 1, 2)
    local _, _, yaw = sim:pose()
    local _, _, oyaw = sim:odom()
    assert.is_near(2.0, yaw, 1e-6)
    assert.is_near(2.0 / 1.05, oyaw, 1e-6)
    -- 100 counts a metre: 1 m at 0.2 m/s is counted in whole centimetres
    sim = sim_with("odom = {encoder_ticks_per_m = 100},")
    drive(sim, 0.2, 0, 5)
    local ox = sim:odom()
    assert.is_true(math.abs(ox - 1.5) <= 0.0101)
    assert.is_near(0, (ox - 0.5) * 100 - math.floor((ox - 0.5) * 100 + 0.5), 1e-6)
  end)

  it("lets the wheels spin against a wall (odometry moves, the robot does not)", function()
    local spin = sim_with("odom = {slip_contact = 1},", "start = {x = 1.5, y = 0.5, yaw = 0}")
    local stop = sim_with("odom = {slip_contact = 0},", "start = {x = 1.5, y = 0.5, yaw = 0}")
    drive(spin, 0.2, 0, 5)
    drive(stop, 0.2, 0, 5)
    local x = spin:pose()
    assert.is_true(x < 1.9 and spin.collisions >= 1)
    -- the simulated driver cuts the command at a contact: the wheels spin
    -- until the next command, and the odometry counts it every time
    assert.is_true((spin:odom()) > x + 0.1, "odometry " .. (spin:odom()) .. " vs " .. x)
    assert.is_near((stop:pose()), (stop:odom()), 1e-9) -- wheels stopped with the robot
  end)

  it("loses a fraction of the motion on a ramp, not on the flat", function()
    local sim = sim_with("odom = {slip_ramp = 0.5}, ramps = {{x0 = 2.5, y0 = 2.0, x1 = 3.5, y1 = 2.8, pitch = 0.2}},",
                         "start = {x = 2.2, y = 2.4, yaw = 0}")
    drive(sim, 0.2, 0, 5) -- 1 m commanded, most of it on the ramp (x 2.5 .. 3.5)
    local x = sim:pose()
    local ox = sim:odom()
    assert.is_near(3.2, ox, 1e-6)
    assert.is_true(x < 2.9 and x > 2.6, "true x " .. x)
  end)

  it("puts the gyro's bias and scale into the IMU's yaw rate", function()
    local sim = sim_with("imu = {gyro_bias = 0.01, gyro_scale = 0.1, rate_noise = 0},")
    sim:step(0.1)
    assert.is_near(0.01, select(3, sim:imu()), 1e-12)
    sim:set_cmd(0, 1)
    sim:step(0.1)
    assert.is_near(1.1 + 0.01, select(3, sim:imu()), 1e-9)
  end)

  it("draws the turtlebot3 preset's errors from the seed; a field given by hand wins", function()
    local a = sim_with("robot = {errors = 'turtlebot3'}, seed = 11,"):errors()
    local b = sim_with("robot = {errors = 'turtlebot3'}, seed = 11,"):errors()
    local c = sim_with("robot = {errors = 'turtlebot3'}, seed = 12,"):errors()
    local d = sim_with("robot = {errors = 'turtlebot3'}, seed = 11, odom = {wheel_radius_error_left = 0.03},"):errors()
    assert.are.same(a, b)
    assert.are_not.equal(a.wheel_radius_error_left, c.wheel_radius_error_left)
    assert.are.equal(0.03, d.wheel_radius_error_left)
    assert.are.equal(a.wheel_radius_error_right, d.wheel_radius_error_right)
    assert.are.equal(a.gyro_bias, d.gyro_bias)
    assert.are.equal("turtlebot3", a.preset)
    assert.is_true(math.abs(a.wheel_radius_error_left) < 0.05 and math.abs(a.wheel_base_error) < 0.1)
    assert.is_true(a.encoder_ticks_per_m > 19000 and a.encoder_ticks_per_m < 20000)
    assert.are.equal(0.05, a.slip_ramp)
    assert.are.equal(1, a.slip_contact)
  end)

  it("refuses a bad preset or an error out of range, naming the file and field", function()
    local err = load_error(world_text("robot = {errors = 'tb3'},"))
    assert.matches('robot.errors must be "none" or "turtlebot3" %(got tb3%)', err)
    err = load_error(world_text("odom = {wheel_radius_error_left = 2},"))
    assert.matches("odom.wheel_radius_error_left must be in %[%-0.5, 0.5%] %(got 2%)", err)
    err = load_error(world_text("odom = {slip_ramp = -0.1},"))
    assert.matches("odom.slip_ramp must be in %[0, 1%]", err)
    err = load_error(world_text("odom = {wheel_bsae = 0.1},"))
    assert.matches("unknown field 'odom.wheel_bsae'", err)
  end)
end)
