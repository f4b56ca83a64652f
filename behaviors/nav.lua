--- Navigation for a differential-drive robot: plan on the costmap (C,
-- cost-aware A*), follow with the C regulated pure pursuit, re-plan when the
-- path ahead becomes blocked, recover when stuck, time out. Every motion is
-- an operation that a behaviour coroutine awaits (tasks.await), so
-- `nav:go_to(x, y)` yields until arrived / failed / timed out and never
-- blocks the process. `nav:control(dt)` runs on every control tick.
local tycho = require "tycho"
local INSCRIBED, LETHAL = tycho.grid.INSCRIBED, tycho.grid.LETHAL -- Nav2 costs
local tasks = require "tasks"

local Nav = {}
Nav.__index = Nav

local function wrap(a) return (a + math.pi) % (2 * math.pi) - math.pi end

-- Where the time goes (summary.json's nav): driving (moving at over a
-- quarter of top speed), turning (on the spot or crawling) or still.
function Nav:_account(dt)
  local x, y, yaw = self.robot.pose()
  local lx, ly, lyaw, st = self.last_x, self.last_y, self.last_yaw, self.stats
  self.last_x, self.last_y, self.last_yaw = x, y, yaw -- no table per tick
  if not lx or dt <= 0 then return end
  local d = math.sqrt((x - lx) ^ 2 + (y - ly) ^ 2)
  st.distance_m = st.distance_m + d
  if d > 0.25 * self.params.max_speed * dt then
    st.driving_s = st.driving_s + dt
  elseif math.abs(wrap(yaw - lyaw)) > 0.05 * dt then
    st.turning_s = st.turning_s + dt
  else
    st.still_s = st.still_s + dt
  end
end

--- Nav.new{robot=, mapping=, params=, log=, clock=function() -> t}
function Nav.new(o)
  local self = setmetatable(o, Nav)
  -- short lookahead: maze corridors are under a metre wide
  self.follower = tycho.follower { max_v = o.params.max_speed, desired_v = o.params.max_speed,
                                   min_lookahead = 0.25, max_lookahead = 0.6,
                                   lookahead_time = o.params.lookahead_time,
                                   min_radius = o.params.curve_radius,
                                   approach_dist = o.params.approach_distance }
  self.stats = { goals = 0, arrived = 0, failed = 0, replans = 0, recoveries = 0, plans = 0,
                 corner_guards = 0, distance_m = 0, driving_s = 0, turning_s = 0, still_s = 0 }
  return self
end

-- Free cell near a world point on the costmap (the robot or a goal may sit
-- in the inscribed band after new obstacles appear).
function Nav:free_near(x, y, grid)
  local cm = grid or self.mapping.costmap
  local cx, cy, inside = cm:world_to_cell(x, y)
  if inside and cm:get(cx, cy) < INSCRIBED then return x, y end
  -- nearest by path first (stays on the same side of a wall) ...
  if inside then
    local nx, ny = cm:nearest(cx, cy, { min_cost = 0, max_cost = 252 })
    if nx and (nx - cx) ^ 2 + (ny - cy) ^ 2 <= (0.6 / cm.resolution) ^ 2 then
      return cm:cell_to_world(nx, ny)
    end
  end
  -- ... else by straight-line distance, within 0.6 m (a goal inside a wall)
  local r = math.ceil(0.6 / cm.resolution)
  local best, bx, by
  for dy = -r, r do
    for dx = -r, r do
      local d2 = dx * dx + dy * dy
      if d2 <= r * r and (not best or d2 < best) then
        local c = cm:get(cx + dx, cy + dy)
        if c < INSCRIBED then best, bx, by = d2, cx + dx, cy + dy end
      end
    end
  end
  if not best then return nil end
  return cm:cell_to_world(bx, by)
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
  -- over a passable keep-out (the ramp is the only way): the same trip
  -- planned without it runs down the corridor's middle, not along its walls
  if self.mapping.in_soft_keepout then
    for _, pt in ipairs(pts) do
      if self.mapping:in_soft_keepout(pt.x, pt.y) then
        local open = self.mapping:open()
        local ox, oy = self:free_near(sx, sy, open)
        local tx, ty = self:free_near(gx, gy, open) -- the keep-out may have made an unknown goal known
        local p2 = ox and tx and open:plan_world(ox, oy, tx, ty, { algorithm = "costaware",
                                                                     weight = self.params.plan_weight })
        if p2 then
          pts = p2:world(open)
          pts[1] = { x = rx, y = ry }
        end
        break
      end
    end
  end
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

--- go_to(x, y [, yaw [, timeout [, opts]]]) -> op; await it: "arrived" | nil, reason
-- opts.through: a waypoint the caller will replace before the robot gets
-- there (a frontier): no slowing down on the approach.
function Nav:go_to(x, y, yaw, timeout, opts)
  self.stats.goals = self.stats.goals + 1
  local g = { kind = "go_to", x = x, y = y, yaw = yaw, replans = 0, recoveries = 0,
              timeout = timeout or self.params.goal_timeout, through = opts and opts.through }
  local op = operation(self, g)
  local pts, why = self:plan(x, y)
  if not pts then
    finish(self, false, "no path: " .. tostring(why))
  else
    if not timeout then
      -- long trips get time in proportion: 3x the path at top speed
      local len = 0
      for i = 2, #pts do len = len + math.sqrt((pts[i].x - pts[i - 1].x) ^ 2 + (pts[i].y - pts[i - 1].y) ^ 2) end
      g.timeout = math.max(g.timeout, 3 * len / self.params.max_speed)
    end
    self:_set_path(g, pts)
  end
  return op
end

-- New path for goal g. The progress mark (best remaining distance) is kept
-- across periodic re-plans, or a robot stuck against a wall would look as
-- if it progressed at every re-plan.
function Nav:_set_path(g, pts, keep_progress)
  g.path = pts
  g.next_replan = self.clock() + self.params.replan_period
  local approach = g.through and 0 or self.params.approach_distance
  if self.approach ~= approach then
    self.follower:set_params { approach_dist = approach }
    self.approach = approach
  end
  self.follower:set_path(pts, g.yaw)
  if not keep_progress then g.remaining = math.huge end
end

--- From a scan (robot frame): the distance to the nearest return in the
-- robot's lane straight ahead (points within `half` of its heading line),
-- and the clearance on each side beside the robot (points within `half`
-- of its axle): a passage's walls left and right -> front, left, right
-- (math.huge where nothing was seen).
function Nav.lane_ranges(scan, half)
  if type(scan) ~= "userdata" then
    error(("bad argument #1 to 'lane_ranges' (scan expected, got %s)"):format(type(scan)), 2)
  end
  if type(half) ~= "number" or not (half > 0) then
    error("bad argument #2 to 'lane_ranges' (half-width > 0 expected)", 2)
  end
  return scan:lane(half) -- in C: a per-beam loop, ten times a second
end

--- A lane keeper for Nav:straight: a function giving the heading offset
-- (rad, at most 0.3) that steers the robot towards the middle of the
-- passage it is in. `sides()` -> left, right clearances (Nav.lane_ranges);
-- no offset where they add up to more than `max_width` (no passage there).
-- `gain`: rad of offset per metre off the middle.
function Nav.lane_keeper(sides, max_width, gain)
  return function()
    local l, r = sides()
    if l + r > max_width then return 0 end
    return math.max(-0.3, math.min(0.3, gain * (l - r) / 2))
  end
end

--- Turn in place to a heading -> op
function Nav:face(yaw, tolerance)
  return operation(self, { kind = "face", yaw = yaw, tol = tolerance or math.rad(3), timeout = 20 })
end

--- Drive straight holding `yaw` at speed v (negative: backwards) until
-- stop(distance_travelled) is true -> op ("done"). `steer`, if given, is
-- called every tick for a heading offset (rad) added to `yaw`: a lane
-- keeper that centres the robot between a passage's walls.
function Nav:straight(v, yaw, stop, timeout, steer)
  local x, y = self.robot.pose()
  return operation(self, { kind = "straight", v = v, yaw = yaw, stop = stop, x0 = x, y0 = y,
                           timeout = timeout or 30, steer = steer })
end

function Nav:cancel()
  if self.goal then finish(self, false, "cancelled") end
end

function Nav:active() return self.goal ~= nil and not self.goal.done end

-- Re-plans from the current pose. `counted` re-plans (the path became
-- blocked, the robot got stuck) are limited by max_replans; the periodic
-- ones that pick up what the map learnt meanwhile are not.
local function replan(self, g, why, counted)
  if counted then
    g.replans = g.replans + 1
    self.stats.replans = self.stats.replans + 1
    if g.replans > self.params.max_replans then
      return finish(self, false, ("gave up after %d re-plans (%s)"):format(g.replans - 1, why))
    end
  end
  local pts, err = self:plan(g.x, g.y)
  if not pts then return finish(self, false, "re-plan failed: " .. tostring(err)) end
  self:_set_path(g, pts, not counted)
  if counted then g.last_progress_t = self.clock() end
end

--- Called after each costmap refresh: re-plan at once if a wall now lies
-- on the path ahead (the periodic re-plan handles everything else).
function Nav:check_path()
  local g = self.goal
  if not g or g.done or g.kind ~= "go_to" or g.recover_until then return end
  if self.follower:blocked(self.mapping.costmap, { lookahead = 1.5, threshold = LETHAL }) then
    self.log:debug("nav: wall on the path ahead, re-planning")
    replan(self, g, "path blocked", true)
  end
end

-- Whether driving (v, w) for the collision horizon would bring the robot's
-- centre into the inscribed band (the padded footprint touches a wall); a
-- robot already in the band may move but not onto a wall cell (C:
-- costmap:arc_hit, see core/include/tycho/arc_check.h).
function Nav:arc_collides(x, y, yaw, v, w, limit)
  local cm, horizon = self.mapping.costmap, self.params.collision_horizon
  if cm:arc_hit(x, y, yaw, v, w, horizon, limit and { limit = limit } or nil) ~= false then return true end
  -- a robot already in the band was only kept off wall cells: its bare
  -- disc must clear the walls too (driving along a wall 5 cm off it is a
  -- collision however the costmap rounds it)
  if self.mapping.tight and self.mapping:cost_at(x, y) >= INSCRIBED then return not self:disc_clear(x, y, yaw, v, w) end
  return false
end

--- Whether the robot's bare disc (radius + 1 cm, no padding: mapping:tight())
-- stays clear of every wall the map knows along the arc (v, w) for
-- collision_horizon. True when the mapping has no tight variant.
function Nav:disc_clear(x, y, yaw, v, w)
  if not self.mapping.tight then return true end
  return self.mapping:tight():arc_hit(x, y, yaw, v, w, self.params.collision_horizon) == false
end

-- A turn rate at which backing up at speed v (< 0) is clear, straight
-- first; nil if none. A robot already inside the padded band is judged by
-- its bare disc (every arc from inside the band touches the band).
function Nav:_backing_arc(x, y, yaw, v)
  local in_band = self.mapping.tight and self.mapping:cost_at(x, y) >= INSCRIBED
  for _, w in ipairs { 0, 0.6, -0.6, 1.2, -1.2 } do
    local clear
    if in_band then clear = self:disc_clear(x, y, yaw, v, w) else clear = not self:arc_collides(x, y, yaw, v, w) end
    if clear then return w end
  end
  return nil
end

-- Heading from the robot to the path point about `ahead` metres past the
-- point nearest to the robot.
local function path_bearing(g, nearest, x, y, ahead)
  local pts = g.path
  local i = math.max(1, math.min(nearest or 1, #pts))
  local d = 0
  while i < #pts and d < ahead do
    d = d + math.sqrt((pts[i + 1].x - pts[i].x) ^ 2 + (pts[i + 1].y - pts[i].y) ^ 2)
    i = i + 1
  end
  return math.atan(pts[i].y - y, pts[i].x - x)
end

-- The heading nearest to `bearing` (within 100 degrees of it) along which
-- a short straight move is clear, or nil.
function Nav:_escape_heading(x, y, bearing)
  local best, bd
  for k = 0, 23 do
    local dir = k * math.pi / 12
    local off = math.abs(wrap(dir - bearing))
    if off <= math.rad(100) and (not bd or off < bd) and not self:arc_collides(x, y, dir, 0.05, 0) then
      best, bd = dir, off
    end
  end
  return best
end

--- One control tick.
function Nav:control(dt)
  self:_account(dt)
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
    local want = g.yaw + (g.steer and g.steer() or 0)
    local w = math.max(-1, math.min(1, 3 * wrap(want - yaw)))
    -- backing up is blind (the LiDAR's view behind is what the map holds):
    -- stop before the bare disc would touch a wall
    if g.v < 0 and not self:disc_clear(x, y, yaw, g.v, w) then return finish(self, true, "wall behind") end
    self.robot.drive(g.v, w)
  elseif g.recover_until then
    -- recovery: back up (straight, or on an arc when straight back is
    -- blocked), then re-plan
    local bw = now < g.recover_until and self:_backing_arc(x, y, yaw, -0.08)
    if bw then
      self.robot.drive(-0.08, bw)
    else
      g.recover_until = nil
      replan(self, g, "stuck", true)
    end
  else
    if now >= g.next_replan then replan(self, g, "periodic", false) end
    if g.done then return end
    local v, w, status, nearest, remaining = self.follower:step({ x = x, y = y, yaw = yaw }, dt)
    if status == "arrived" then return finish(self, true, "arrived") end
    -- (a turn the guard began is finished even when the follower, rotating
    -- towards its carrot, would turn the other way)
    if (v > 0 and self:arc_collides(x, y, yaw, v, w)) or g.escape then
      -- the pursuit arc would clip a wall (a corner cut): pick the safe
      -- (v, w) that heads best towards the path just ahead; turn on the
      -- spot if none; back up and re-plan if already facing the path
      self.stats.corner_guards = self.stats.corner_guards + 1
      local bearing = path_bearing(g, nearest, x, y, 0.3)
      local best, bv, bw
      for _, cv in ipairs { v, 0.1, 0.05 } do
        for k = -6, 6 do
          local cw = k * 0.25
          if not self:arc_collides(x, y, yaw, cv, cw) then
            local score = math.abs(wrap(yaw + cw * 0.5 - bearing)) + 0.5 * (v - cv)
            if not best or score < best then best, bv, bw = score, cv, cw end
          end
        end
      end
      local err = wrap(bearing - yaw)
      local turn = math.max(-1.2, math.min(1.2, 3 * err))
      local esc = g.escape
      if esc and (best or now > esc.until_t) then g.escape, esc = nil, nil end
      if best then
        v, w = bv, bw
      elseif esc then
        -- boxed in against a wall: turn on the spot to the clear heading,
        -- then edge along it until an arc towards the path is clear
        local e = wrap(esc.dir - yaw)
        if math.abs(e) > 0.1 then
          v, w = 0, math.max(-1.2, math.min(1.2, 3 * e))
        elseif not self:arc_collides(x, y, yaw, 0.05, 0) then
          v, w = 0.05, 0
        else
          g.escape = nil
          v, w = 0, 0
        end
      elseif math.abs(err) > 0.2 then
        v, w = 0, turn
        g.escape = { dir = bearing, until_t = now + 2 }
      elseif self.mapping.tight and self:disc_clear(x, y, yaw, 0.04, turn) then
        -- squeezing through the padding: the padded band is a margin, but
        -- the bare disc must still clear the wall (a corner cut here hit it)
        v, w = 0.04, turn
      elseif not g.escaped and self:_escape_heading(x, y, bearing) then
        -- no arc forward, none squeezing: a heading that leads out of the
        -- band (the nearest to the path's that is clear), once per goal
        -- leg before backing up
        g.escape = { dir = self:_escape_heading(x, y, bearing), until_t = now + 3 }
        g.escaped = true
        v, w = 0, 0
      else
        g.escaped = nil
        self.stats.recoveries = self.stats.recoveries + 1
        g.recoveries = g.recoveries + 1
        if g.recoveries > self.params.max_recoveries then
          return finish(self, false, ("blocked: path too close to a wall after %d recoveries"):format(g.recoveries - 1))
        end
        self.log:debug("nav: path ahead too close to a wall, backing up and re-planning")
        g.recover_until = now + 1.0
        -- the next try at this corner goes slowly: the faster the
        -- pursuit, the more it cuts the corner that stopped it
        g.careful_until = g.recover_until + self.params.careful_time
        self.robot.drive(0, 0)
        return
      end
    end
    -- careful after a recovery, and all the while the band is squeezed
    -- (the map's walls are half a cell off either way; the margin is gone)
    local careful = (g.careful_until and now < g.careful_until)
      or (self.mapping.padding and self.mapping:padding() < self.params.footprint_padding)
    if careful and v > self.params.careful_speed then
      v, w = self.params.careful_speed, w * self.params.careful_speed / v -- same arc, slower
    end
    self.robot.drive(v, w)
    if remaining and remaining < g.remaining - 0.05 then
      g.remaining = remaining
      g.last_progress_t = now
    elseif status ~= "rotating" and now - g.last_progress_t > self.params.stuck_time then
      self.stats.recoveries = self.stats.recoveries + 1
      g.recoveries = g.recoveries + 1
      if g.recoveries > self.params.max_recoveries then
        return finish(self, false, ("stuck: no progress after %d recoveries"):format(g.recoveries - 1))
      end
      self.log:info("nav: no progress for %.0f s, backing up and re-planning", self.params.stuck_time)
      g.recover_until = now + 1.5
      g.last_progress_t = now
    end
  end
end

return Nav
