--- Navigation for a differential-drive robot: plan on the costmap (C,
-- cost-aware A*), follow with the C regulated pure pursuit, re-plan when the
-- path ahead becomes blocked, recover when stuck, time out. Every motion is
-- an operation that a behaviour coroutine awaits (tasks.await), so
-- `nav:go_to(x, y)` yields until arrived / failed / timed out and never
-- blocks the process. `nav:control(dt)` runs on every control tick.
local tycho = require "tycho"
local tasks = require "tasks"

local Nav = {}
Nav.__index = Nav

local function wrap(a) return (a + math.pi) % (2 * math.pi) - math.pi end

--- Nav.new{robot=, mapping=, params=, log=, clock=function() -> t}
function Nav.new(o)
  local self = setmetatable(o, Nav)
  self.follower = tycho.follower { max_v = o.params.max_speed, desired_v = o.params.max_speed }
  self.stats = { goals = 0, arrived = 0, failed = 0, replans = 0, recoveries = 0, plans = 0 }
  return self
end

-- Free cell near a world point on the costmap (the robot or a goal may sit
-- in the inscribed band after new obstacles appear).
function Nav:free_near(x, y)
  local cm = self.mapping.costmap
  local cx, cy, inside = cm:world_to_cell(x, y)
  if inside and cm:get(cx, cy) < 253 then return x, y end
  local nx, ny = cm:nearest(cx, cy, { min_cost = 0, max_cost = 252 })
  if not nx then return nil end
  return cm:cell_to_world(nx, ny)
end

--- Plans from the robot to (x, y); returns the world points or nil, why.
function Nav:plan(x, y)
  local cm = self.mapping.costmap
  local rx, ry = self.robot.pose()
  local sx, sy = self:free_near(rx, ry)
  if not sx then return nil, "robot has no free cell near it" end
  local gx, gy = self:free_near(x, y)
  if not gx then return nil, ("goal (%.2f, %.2f) has no free cell near it"):format(x, y) end
  self.stats.plans = self.stats.plans + 1
  local path, why = cm:plan_world(sx, sy, gx, gy, { algorithm = "costaware",
                                                      weight = self.params.plan_weight })
  if not path then return nil, why end
  local pts = path:world(cm)
  pts[1] = { x = rx, y = ry }
  return pts
end

local function finish(self, ok, why)
  local g = self.goal
  if not g or g.done then return end
  g.done, g.ok, g.why = true, ok, why
  self.robot.stop()
  self.follower:reset()
  if g.kind == "go_to" then
    if ok then self.stats.arrived = self.stats.arrived + 1 else self.stats.failed = self.stats.failed + 1 end
  end
end

local function operation(self, g)
  g.t0 = self.clock()
  g.last_progress_t = g.t0
  self.goal = g
  return tasks.operation {
    name = g.kind,
    poll = function()
      if self.goal ~= g then return true, nil, "superseded" end
      if not g.done then return false end
      if g.ok then return true, g.why or "arrived" end
      return true, nil, g.why
    end,
    cancel = function()
      if self.goal == g then finish(self, false, "cancelled") end
    end,
  }
end

--- go_to(x, y [, yaw]) -> op; await it: "arrived" | nil, reason
function Nav:go_to(x, y, yaw, timeout)
  self.stats.goals = self.stats.goals + 1
  local g = { kind = "go_to", x = x, y = y, yaw = yaw, replans = 0,
              timeout = timeout or self.params.goal_timeout }
  local op = operation(self, g)
  local pts, why = self:plan(x, y)
  if not pts then
    finish(self, false, "no path: " .. tostring(why))
  else
    g.path = pts
    self.follower:set_path(pts, yaw)
    g.remaining = math.huge
  end
  return op
end

--- Turn in place to a heading -> op
function Nav:face(yaw, tolerance)
  return operation(self, { kind = "face", yaw = yaw, tol = tolerance or math.rad(3), timeout = 20 })
end

--- Drive straight holding `yaw` at speed v (negative: backwards) until
-- stop(distance_travelled) is true -> op ("done")
function Nav:straight(v, yaw, stop, timeout)
  local x, y = self.robot.pose()
  return operation(self, { kind = "straight", v = v, yaw = yaw, stop = stop, x0 = x, y0 = y,
                           timeout = timeout or 30 })
end

function Nav:cancel()
  if self.goal then finish(self, false, "cancelled") end
end

function Nav:active() return self.goal ~= nil and not self.goal.done end

local function replan(self, g, why)
  g.replans = g.replans + 1
  self.stats.replans = self.stats.replans + 1
  if g.replans > self.params.max_replans then
    return finish(self, false, ("gave up after %d re-plans (%s)"):format(g.replans - 1, why))
  end
  local pts, err = self:plan(g.x, g.y)
  if not pts then return finish(self, false, "re-plan failed: " .. tostring(err)) end
  g.path = pts
  self.follower:set_path(pts, g.yaw)
  g.remaining = math.huge
  g.last_progress_t = self.clock()
end

--- Called after each costmap refresh: re-plan only if the path ahead is blocked.
function Nav:check_path()
  local g = self.goal
  if not g or g.done or g.kind ~= "go_to" or g.recover_until then return end
  if self.follower:blocked(self.mapping.costmap, { lookahead = 1.0, threshold = 253 }) then
    self.log:debug("nav: path blocked ahead, re-planning")
    replan(self, g, "path blocked")
  end
end

--- One control tick.
function Nav:control(dt)
  local g = self.goal
  if not g or g.done then return end
  local now = self.clock()
  if now - g.t0 > g.timeout then return finish(self, false, ("timeout after %.0f s"):format(g.timeout)) end
  local x, y, yaw = self.robot.pose()
  if g.kind == "face" then
    local err = wrap(g.yaw - yaw)
    if math.abs(err) < g.tol then return finish(self, true, "aligned") end
    local w = math.max(-1.5, math.min(1.5, 2.5 * err))
    if math.abs(w) < 0.15 then w = err > 0 and 0.15 or -0.15 end
    self.robot.drive(0, w)
  elseif g.kind == "straight" then
    local d = math.sqrt((x - g.x0) ^ 2 + (y - g.y0) ^ 2)
    if g.stop(d) then return finish(self, true, "done") end
    self.robot.drive(g.v, math.max(-1, math.min(1, 3 * wrap(g.yaw - yaw))))
  elseif g.recover_until then
    -- recovery: back up briefly, then re-plan
    if now < g.recover_until then
      self.robot.drive(-0.06, 0)
    else
      g.recover_until = nil
      replan(self, g, "stuck")
    end
  else
    local v, w, status, _, remaining = self.follower:step({ x = x, y = y, yaw = yaw }, dt)
    if status == "arrived" then return finish(self, true, "arrived") end
    self.robot.drive(v, w)
    if remaining and remaining < g.remaining - 0.05 then
      g.remaining = remaining
      g.last_progress_t = now
    elseif status ~= "rotating" and now - g.last_progress_t > self.params.stuck_time then
      self.stats.recoveries = self.stats.recoveries + 1
      self.log:info("nav: no progress for %.0f s, backing up and re-planning", self.params.stuck_time)
      g.recover_until = now + 1.5
      g.last_progress_t = now
    end
  end
end

return Nav
