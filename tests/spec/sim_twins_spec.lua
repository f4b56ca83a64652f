-- The simulator's twins of the devices (behaviors/sim_twins.lua): the
-- tycho.device interface over a tycho.sim, samples shaped like the real
-- drivers', and robot_hw running a robot config whose devices are twins.
local exe = require "helpers.exe"
local tycho = require "tycho"
local twins = require "sim_twins"
local robot_hw = require "robot_hw"

local SRC = exe.SRC
local WORLD = SRC .. "/maps/maze_small.lua"

-- the fields tycho.device gives for each kind (bindings/l_device.c)
local FIELDS = {
  range_scanner = { "t", "seq", "angle_min", "angle_increment", "range_min", "range_max", "ranges" },
  thermal_camera = { "t", "seq", "pixels", "thermistor" },
  imu = { "t", "seq", "ax", "ay", "az", "gx", "gy", "gz", "roll", "pitch" },
  diff_base = { "t", "seq", "x", "y", "yaw", "v", "w", "roll", "pitch", "gyro_z" },
}

describe("sim twins", function()
  it("read like the real drivers, in order, and take the same commands", function()
    local sim = tycho.sim.load(WORLD)
    local devs = {}
    for kind in pairs(FIELDS) do devs[kind] = assert(twins.open(sim, kind)) end
    local got = {}
    assert.is_true(devs.diff_base:write("velocity", 0.1, 0))
    for _ = 1, 40 do
      sim:step(0.05)
      for kind, d in pairs(devs) do
        local s = d:read()
        if s then
          got[kind] = (got[kind] or 0) + 1
          for _, f in ipairs(FIELDS[kind]) do assert.is_not_nil(s[f], kind .. " sample lacks " .. f) end
          assert.are.equal(got[kind], s.seq)
        end
      end
    end
    for kind in pairs(FIELDS) do assert.is_true((got[kind] or 0) > 0, kind .. ": no samples") end
    assert.is_true(select(1, sim:odom()) > 0.4 + 0.15) -- it drove forward from x = 0.4
    assert.is_nil(devs.diff_base:read())                -- nothing new without a step
    local ok, err = devs.range_scanner:write("velocity", 1, 0)
    assert.is_nil(ok)
    assert.matches("does not take 'velocity'", err)
    assert.matches("camera 5 does not exist", select(2, twins.open(sim, "thermal_camera", { camera = 5 })))
    assert.matches("no twin for device kind 'teleporter'", select(2, twins.open(sim, "teleporter")))
  end)

  it("let robot_hw run a robot config on the simulator", function()
    local cfg = os.tmpname() .. ".lua"
    local f = assert(io.open(cfg, "w"))
    f:write([[return {
      base = { driver = "sim" }, lidar = { driver = "sim" },
      cameras = { { driver = "sim", settings = { camera = 1 }, yaw = 0.5 }, { driver = "sim", settings = { camera = 2 }, yaw = -0.5 } },
      launcher = { driver = "sim" },
    }]])
    f:close()
    assert.error_matches(function() robot_hw.open(cfg) end, "driver 'sim' needs the simulator")
    local sim = tycho.sim.load(WORLD)
    local robot = robot_hw.open(cfg, { sim = sim })
    local scans, frames = 0, 0
    for _ = 1, 60 do
      robot.drive(0.15, 0)
      robot.step(0.05)
      if robot.scan() then scans = scans + 1 end
      if robot.thermal(1) then frames = frames + 1 end
    end
    local x = robot.pose()
    assert.is_true(x > 0.4 + 0.3, "odometry x " .. x) -- from the world's start (0.4, 0.4), 3 s at 0.15 m/s
    assert.is_true(scans >= 10 and frames >= 10)
    assert.near(3, robot.time(), 1e-9)
    local pitch = robot.imu()
    assert.is_number(pitch)
    assert.is_true(robot.launcher.spin(true))
    for _ = 1, 25 do robot.step(0.05) end -- spin up
    local shot, why = robot.launcher.feed()
    assert.is_truthy(shot, why)
    assert.are.equal(1, #sim:launches())
    robot.close()
    os.remove(cfg)
  end)
end)
