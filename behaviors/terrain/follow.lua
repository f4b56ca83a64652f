--- Path followers for the terrain robot: the regulated pure pursuit
-- (tycho.follower, C) for a differential drive, and a holonomic follower
-- for a mecanum base that uses the sideways motion.
--
-- Holonomic follower, per step: the carrot is the first path point at
-- least `lookahead` metres from the robot, searching forward from the last
-- progress index (so a path that doubles back is followed in order); the
-- robot drives straight at it in its own frame, vx and vy together, at
-- `speed` (slowed within `approach` metres of the goal); the yaw either
-- holds the heading it started with ("strafe": every turn of the path is
-- taken sideways) or turns to face along the path ("face").
local tycho = require "tycho"

local M = {}

local function wrap(a) return (a + math.pi) % (2 * math.pi) - math.pi end

local function holonomic(o)
  local f = { path = nil, i = 1, mode = o.mode or "strafe", speed = o.speed or 0.4, lookahead = o.lookahead or 0.6,
              approach = o.approach or 0.8, tolerance = o.tolerance or 0.15, k_yaw = o.k_yaw or 1.5,
              max_w = o.max_w or 1.5 }
  function f:set_path(points, heading)
    self.path, self.i, self.heading = points, 1, heading
  end
  function f:step(pose)
    local p = self.path
    if not p or #p == 0 then return 0, 0, 0, "idle" end
    local goal = p[#p]
    local dgoal = math.sqrt((goal.x - pose.x) ^ 2 + (goal.y - pose.y) ^ 2)
    if dgoal <= self.tolerance then return 0, 0, 0, "arrived" end
    -- progress: the nearest point within the next few metres of path
    local best, bi = math.huge, self.i
    for j = self.i, math.min(#p, self.i + 40) do
      local d = (p[j].x - pose.x) ^ 2 + (p[j].y - pose.y) ^ 2
      if d < best then best, bi = d, j end
    end
    self.i = bi
    local carrot = goal
    for j = bi, #p do
      if (p[j].x - pose.x) ^ 2 + (p[j].y - pose.y) ^ 2 >= self.lookahead ^ 2 then carrot = p[j] break end
    end
    local ex, ey = carrot.x - pose.x, carrot.y - pose.y
    local c, s = math.cos(pose.yaw), math.sin(pose.yaw)
    local bx, by = c * ex + s * ey, -s * ex + c * ey
    local n = math.sqrt(bx * bx + by * by)
    local v = self.speed * math.min(1, math.max(0.25, dgoal / self.approach))
    local want = self.heading or pose.yaw
    if self.mode == "face" then want = math.atan(ey, ex) end
    local wz = math.max(-self.max_w, math.min(self.max_w, self.k_yaw * wrap(want - pose.yaw)))
    if n < 1e-9 then return 0, 0, wz, "following" end
    return v * bx / n, v * by / n, wz, "following"
  end
  return f
end

local function pure_pursuit(o)
  local rpp = tycho.follower {
    desired_v = o.speed or 0.4, max_v = o.max_v or 0.5, max_w = o.max_w or 1.5, min_lookahead = 0.4,
    max_lookahead = 1.0, xy_tolerance = o.tolerance or 0.15, max_accel = 0, max_w_accel = 0, rotate_w = 1.2,
  }
  local f = {}
  function f:set_path(points) rpp:set_path(points) end
  function f:step(pose, dt)
    local v, w, status = rpp:step(pose, dt)
    return v, 0, w, status
  end
  return f
end

--- M.new(kind, opts) -> follower with :set_path(points [, heading]) and :step(pose, dt) -> vx, vy, wz, status
function M.new(kind, opts)
  opts = opts or {}
  if kind == "mecanum" then return holonomic(opts) end
  return pure_pursuit(opts)
end

return M
