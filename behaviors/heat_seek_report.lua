--- Why a heat source was missed, from the simulator's ground truth after
-- (and, for the camera views, during) a run of the heat-seeking mission.
--
-- During the run, `Report:observe(t)` follows the robot's true pose: for
-- every source the closest approach and the best camera view (the nearest
-- true pose with the source inside a camera's horizontal field of view and
-- nothing solid on the line between them). At the end,
-- `Report:sources(...)` gives one entry per true source, in world order:
--   { x, y, temp, engaged, missed_because, closest_approach_m,
--     best_view = { distance_m, angle_deg } | false, detections_near,
--     target = index | false, launch = { x, y, yaw, distance_m,
--     bearing_error_deg, line_of_sight } | false }
-- and `missed_because` (for a missed source) is the first stage of the
-- pipeline that let it down:
--   not_explored          the free space in front of the source is unknown in the final map
--   never_seen            mapped, but no detection on its side of the wall
--   seen_not_targeted     detected, but no target made near it
--   targeted_not_fired    a target near it, but no launch at it
--   fired_out_of_range    the launch aimed at it was beyond the judge's range
--   fired_off_angle       ... was more than the judge's angle off
--   fired_wrong_side      ... was from behind the wall the source is on
--   fired_no_line_of_sight ... was blocked by some other wall
local tycho = require "tycho"

local Report = {}
--- The version of summary.json's layout (schemas/heat_seek_summary.schema.json):
-- raised when a field changes meaning or goes away, not when one is added.
Report.SCHEMA_VERSION = 1
Report.__index = Report

local NEAR = 0.5 -- m: a detection or target this close to a source is about it

local function wrap(a) return (a + math.pi) % (2 * math.pi) - math.pi end
local function dist(ax, ay, bx, by) return math.sqrt((ax - bx) ^ 2 + (ay - by) ^ 2) end

--- Report.new{sim=, cameras=} -> report (nil without a simulator)
function Report.new(o)
  if not o.sim then return nil end
  local self = setmetatable({ sim = o.sim, truth = o.sim:truth(), cameras = o.cameras,
                              world = o.sim:world(), per = {}, estimate = o.estimate,
                              ate_sq = 0, ate_n = 0, ate_max = 0,
                              -- sums for the best-fit alignment (estimate p, truth q)
                              fit = { px = 0, py = 0, qx = 0, qy = 0, pp = 0, qq = 0, dot = 0, cross = 0 } },
                        Report)
  local res = self.truth.resolution
  for i, s in ipairs(self.world.heat_sources) do
    -- the face the source sits on: the shortest of 16 rays from its centre
    -- points into the wall; the normal is the other way
    local best, ba = math.huge, 0
    for k = 0, 15 do
      local a = k * math.pi / 8
      local r = self.truth:raycast(s.x, s.y, a, 1.0)
      if r < best then best, ba = r, a end
    end
    local nx, ny = 0, 0
    if best < math.huge then nx, ny = -math.cos(ba), -math.sin(ba) end
    self.per[i] = { closest = math.huge, view_d = math.huge, view_a = 0, nx = nx, ny = ny,
                    radius = s.radius or 0.1, res = res }
  end
  return self
end

-- Whether nothing solid lies between (x, y) and source s (to its surface).
function Report:clear(x, y, s, radius)
  local d = dist(x, y, s.x, s.y)
  local reach = d - radius - 1.5 * self.truth.resolution
  if reach <= 0 then return true end
  return self.truth:raycast(x, y, math.atan(s.y - y, s.x - x), reach) >= reach
end

--- Follows the true pose (call at the camera rate).
function Report:observe()
  local x, y, yaw = self.sim:pose()
  local ox, oy = self.sim:odom()
  local drift = dist(x, y, ox, oy)
  if drift > (self.max_drift or 0) then self.max_drift = drift end
  if self.estimate then -- the pose the mission believes, against the truth
    local ex, ey = self.estimate()
    local e = dist(x, y, ex, ey)
    self.ate_sq, self.ate_n = self.ate_sq + e * e, self.ate_n + 1
    if e > self.ate_max then self.ate_max = e end
    local f = self.fit
    f.px, f.py, f.qx, f.qy = f.px + ex, f.py + ey, f.qx + x, f.qy + y
    f.pp, f.qq = f.pp + ex * ex + ey * ey, f.qq + x * x + y * y
    f.dot, f.cross = f.dot + ex * x + ey * y, f.cross + ex * y - ey * x
  end
  for i, s in ipairs(self.world.heat_sources) do
    local p = self.per[i]
    local d = dist(x, y, s.x, s.y)
    if d < p.closest then p.closest = d end
    if d < p.view_d then
      local b = math.atan(s.y - y, s.x - x)
      for _, cam in ipairs(self.cameras) do
        local off = math.abs(wrap(b - yaw - cam.yaw))
        if off <= cam.fov / 2 and self:clear(x, y, s, p.radius) then
          p.view_d, p.view_a = d, off
          break
        end
      end
    end
  end
end

--- The odometry against the ground truth: {errors = preset, drift_m (at
-- the end), max_drift_m, heading_drift_deg, and the error terms}.
function Report:odometry()
  local x, y, yaw = self.sim:pose()
  local ox, oy, oyaw = self.sim:odom()
  local e = self.sim:errors()
  local drift = dist(x, y, ox, oy)
  return { errors = e.preset, drift_m = drift, max_drift_m = math.max(self.max_drift or 0, drift),
           heading_drift_deg = math.deg(wrap(oyaw - yaw)),
           wheel_radius_error_left = e.wheel_radius_error_left, wheel_radius_error_right = e.wheel_radius_error_right,
           wheel_base_error = e.wheel_base_error, gyro_bias_deg_s = math.deg(e.gyro_bias),
           gyro_scale = e.gyro_scale, slip_ramp = e.slip_ramp, slip_contact = e.slip_contact,
           encoder_ticks_per_m = e.encoder_ticks_per_m }
end

-- The trajectory error after the rotation and translation that fit the
-- estimate to the truth best (least squares, Horn's closed form in 2D), from
-- running sums: min over R, t of sum |R p + t - q|^2 = |p'|^2 + |q'|^2 -
-- 2 sqrt(C^2 + S^2), with p', q' about their means and C, S the summed dot
-- and cross products. It leaves out a map frame that is off as a whole (a
-- scan matcher's first matches fix it for the rest of the run, the map and
-- the poses agreeing with each other).
function Report:aligned_ate()
  local f, n = self.fit, self.ate_n
  if n == 0 then return 0 end
  local mpx, mpy, mqx, mqy = f.px / n, f.py / n, f.qx / n, f.qy / n
  local pp = f.pp - n * (mpx * mpx + mpy * mpy)
  local qq = f.qq - n * (mqx * mqx + mqy * mqy)
  local c = f.dot - n * (mpx * mqx + mpy * mqy)
  local sn = f.cross - n * (mpx * mqy - mpy * mqx)
  return math.sqrt(math.max(0, pp + qq - 2 * math.sqrt(c * c + sn * sn)) / n)
end

--- How well the mission knew where it was: absolute trajectory error of the
-- pose it used against the truth (sampled at the camera rate), as it is and
-- after the best-fitting alignment, with the localiser's counters (nil
-- stats: odometry alone).
function Report:localization(stats)
  local x, y = self.sim:pose()
  local ox, oy = self.sim:odom()
  return { method = stats and stats.method or "odometry",
           ate_rmse_m = self.ate_n > 0 and math.sqrt(self.ate_sq / self.ate_n) or 0,
           ate_max_m = self.ate_max, ate_aligned_rmse_m = self:aligned_ate(), odom_drift_m = dist(x, y, ox, oy),
           scans = stats and stats.scans or 0, scans_matched = stats and stats.matched or 0,
           scans_kept_odometry = stats and stats.kept or 0,
           scans_degenerate = stats and stats.degenerate or 0, scans_poor = stats and stats.poor or 0,
           loop_closures = stats and stats.loop_closures or 0,
           -- SLAM: closures set aside, the scan fitting the submap loosely (slam loop_max_rms)
           loops_loose = stats and stats.loops_loose or nil,
           -- SLAM: closures set aside, the refinement moving the search's match (slam loop_max_shift)
           loops_shifted = stats and stats.loops_shifted or nil,
           -- scan matching with match_refine: matches refined against the hits' means
           scans_refined = stats and stats.refined or nil,
           -- scan matching with match_calibrate: the odometry's scale it learnt
           odometry_scale = stats and stats.odometry_scale or nil,
           -- SLAM: the pose graph optimisations and the longest (it runs inside a scan's tick)
           optimizations = stats and stats.optimizations or nil,
           max_optimization_ms = stats and stats.max_optimization_ms or nil }
end

-- Whether (x, y) is on the free side of source i's wall face.
function Report:same_side(i, x, y)
  local s, p = self.world.heat_sources[i], self.per[i]
  return (x - s.x) * p.nx + (y - s.y) * p.ny > -0.02
end

--- One entry per true source. `bb` is the mission's blackboard
-- (detections with the robot position rx, ry; targets; launches with the
-- target index), `map` the final occupancy map, `judge` the launcher
-- judge's limits {range=, angle=}.
function Report:sources(bb, map, judge)
  local engaged = self.sim:engaged()
  local launches = self.sim:launches()
  local out = {}
  for i, s in ipairs(self.world.heat_sources) do
    local p = self.per[i]
    local e = { x = s.x, y = s.y, temp = s.temp, engaged = engaged[i] == true,
                closest_approach_m = p.closest < math.huge and p.closest or false,
                best_view = p.view_d < math.huge and { distance_m = p.view_d, angle_deg = math.deg(p.view_a) } or false }
    -- detections about this source: near it, taken from its side of the wall
    local near = 0
    for _, d in ipairs(bb.detections) do
      if dist(d.x, d.y, s.x, s.y) < NEAR and self:same_side(i, d.rx, d.ry) then near = near + 1 end
    end
    e.detections_near = near
    -- the target about it: nearest within NEAR, seen from its side of the
    -- wall when the target knows the side it was seen from
    local ti, td = false, NEAR
    for k, t in ipairs(bb.targets) do
      local d = dist(t.x, t.y, s.x, s.y)
      local facing = not t.ux or (t.ux == 0 and t.uy == 0) or (t.ux * p.nx + t.uy * p.ny) > 0
      if d < td and facing then ti, td = k, d end
    end
    e.target = ti
    -- the launch aimed at it: at its target, or the nearest launch pose
    -- facing it within twice the judge's angle
    local best
    for k, l in ipairs(launches) do
      local ml = bb.launches[k]
      local d = dist(l.x, l.y, s.x, s.y)
      local err = wrap(math.atan(s.y - l.y, s.x - l.x) - l.yaw)
      local at_ramp = ml and ml.target == "ramp"
      local aimed = (ti and ml and ml.target == ti)
        or (not at_ramp and math.abs(err) <= 2 * judge.angle and d <= 2 * judge.range
            and self:same_side(i, l.x, l.y))
      if aimed and (not best or d < best.distance_m) then
        best = { x = l.x, y = l.y, yaw = l.yaw, distance_m = d, bearing_error_deg = math.deg(err),
                 line_of_sight = self:clear(l.x, l.y, s, p.radius), wrong_side = not self:same_side(i, l.x, l.y) }
      end
    end
    e.launch = best or false
    if not e.engaged then
      local cx, cy, inside = map:world_to_cell(s.x + p.nx * 0.15, s.y + p.ny * 0.15)
      local mapped = inside and map:get(cx, cy) ~= tycho.grid.UNKNOWN
      if best then
        if best.wrong_side then e.missed_because = "fired_wrong_side"
        elseif not best.line_of_sight then e.missed_because = "fired_no_line_of_sight"
        elseif best.distance_m > judge.range then e.missed_because = "fired_out_of_range"
        else e.missed_because = "fired_off_angle" end
      elseif ti then e.missed_because = "targeted_not_fired"
      elseif near > 0 then e.missed_because = "seen_not_targeted"
      elseif not mapped then e.missed_because = "not_explored"
      else e.missed_because = "never_seen" end
    end
    out[i] = e
  end
  return out
end

Report.CATEGORIES = { "not_explored", "never_seen", "seen_not_targeted", "targeted_not_fired",
                      "fired_out_of_range", "fired_off_angle", "fired_no_line_of_sight", "fired_wrong_side" }

return Report
