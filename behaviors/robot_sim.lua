--- The robot's device interface, backed by the built-in simulator. A
-- hardware robot config provides the same table (pose, scan, thermal, imu,
-- drive, launcher), so behaviours never know which one they drive.
local tycho = require "tycho"

local M = {}

--- M.open(world_path, {seed=, overrides=}) -> robot
function M.open(world_path, opts)
  opts = opts or {}
  local overrides = opts.overrides or {}
  if opts.seed then overrides.seed = opts.seed end
  local sim = tycho.sim.load(world_path, next(overrides) and overrides or nil)
  local world = sim:world()
  local robot = { kind = "sim", sim = sim, world = world, cameras = {} }
  for i, cam in ipairs(world.cameras or {}) do
    robot.cameras[i] = { yaw = cam.yaw, fov = cam.fov_h or cam.fov or math.rad(60) }
  end

  --- Odometry pose: what the robot itself believes.
  function robot.pose() return sim:odom() end
  --- New LiDAR scan since the last call, or nil.
  function robot.scan() return sim:scan() end
  --- New frame of camera i since the last call, or nil.
  function robot.thermal(i) return sim:thermal(i) end
  --- pitch, roll (rad), yaw rate.
  function robot.imu() return sim:imu() end
  function robot.drive(v, w) sim:set_cmd(v, w) end
  function robot.stop() sim:set_cmd(0, 0) end
  robot.launcher = {
    spin = function(on) sim:launcher_spin(on) end,
    feed = function() return sim:launcher_feed() end,
    state = function() return sim:launcher() end,
  }
  --- Advance the world (simulator only; real hardware runs by itself).
  function robot.step(dt) sim:step(dt) end
  function robot.time() return sim.time end
  --- Safe state: wheels stopped, flywheels off.
  function robot.safe_stop()
    sim:set_cmd(0, 0)
    sim:launcher_spin(false)
  end
  return robot
end

return M
