--- The robot's device interface, backed by the built-in simulator. A
-- hardware robot config provides the same table (pose, pose_at, scan,
-- thermal, imu, drive, launcher; command, the last velocity command, is
-- optional: a recording keeps it as it passes when a robot has none), so
-- behaviours never know which one they drive.
--
-- Sensor samples come with their stamp and the odometry pose at that stamp
-- (interpolated from a short odometry history), as a ROS node would look the
-- pose up in TF: a scan taken 0.1 s ago while turning at 2.8 rad/s would
-- otherwise be drawn 16 degrees off.
local tycho = require "tycho"

local M = {}

-- The odometry history is C: the simulator keeps its own (sim:odom_at), a
-- replayed recording a tycho.odom_history, the same code, so a replay
-- computes the poses the recorded run did, bit for bit.

--- M.open(world_path, {seed=, overrides=}) -> robot
function M.open(world_path, opts)
  opts = opts or {}
  local overrides = opts.overrides or {}
  if opts.seed then overrides.seed = opts.seed end
  local ok, sim = pcall(tycho.sim.load, world_path, next(overrides) and overrides or nil)
  -- a bad world file: its own message (path[:line]: why), without this
  -- file's position in front (luaL_error adds the caller's)
  if not ok then error((tostring(sim):gsub("^[^\n]-robot_sim%.lua:%d+: ", "")), 0) end
  local world = sim:world()
  local robot = { kind = "sim", sim = sim, world = world, cameras = {} }
  for i, cam in ipairs(world.cameras or {}) do
    robot.cameras[i] = { yaw = cam.yaw, fov = cam.fov_h or cam.fov or math.rad(60) }
  end
  --- Odometry pose: what the robot itself believes.
  function robot.pose() return sim:odom() end
  --- Odometry pose at time t (within the last few seconds).
  function robot.pose_at(t) return sim:odom_at(t) end
  local function stamped(sample, stamp)
    if not sample then return nil end
    local x, y, yaw = sim:odom_at(stamp)
    return sample, stamp, { x = x, y = y, yaw = yaw }
  end
  --- New LiDAR scan since the last call -> scan, stamp, pose at stamp; or nil.
  function robot.scan() return stamped(sim:scan()) end
  --- New frame of camera i since the last call -> frame, stamp, pose; or nil.
  function robot.thermal(i) return stamped(sim:thermal(i)) end
  --- pitch, roll (rad), yaw rate.
  function robot.imu() return sim:imu() end
  function robot.drive(v, w) sim:set_cmd(v, w) end
  function robot.stop() sim:set_cmd(0, 0) end
  --- The last velocity command given (v, w as asked): what recordings keep.
  function robot.command() return sim:command() end
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
