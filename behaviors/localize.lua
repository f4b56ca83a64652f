--- Localisation by scan-to-map matching: the wheel odometry, corrected at
-- every LiDAR scan by matching the scan against the map built so far (C:
-- tycho.scan_matcher, core/scan_match.c), so that systematic odometry
-- errors (a wheel a percent larger, a wheel base off, slip) no longer bend
-- the map. No loop closure: the map is one grid, the pose graph of a full
-- SLAM is not built. Each match (on cells) is refined against the mean of
-- the hits in each wall cell (tycho.pointmap, point-to-line: P.match_refine),
-- and the odometry's steps are scaled by the scale the matches show it has
-- (P.match_calibrate): along a corridor nothing else fixes the pose.
--
-- With P.localization == "slam" the correction comes from tycho.slam
-- (core/slam.c: submaps, a pose graph and loop closure) instead: each scan
-- is a node, and a loop closed moves the current pose with the graph.
--
-- Localize.wrap(robot, mapping, P, log) returns a robot whose pose(),
-- pose_at(t), scan() and thermal(i) give corrected poses; everything else
-- is the robot's. The correction is a transform C with corrected = C * odom,
-- updated at each scan from the match (kept when the match is poor or the
-- scan does not pin the pose down: a featureless corridor).
local tycho = require "tycho"

local M = {}

local function compose(c, x, y, yaw)
  local cs, sn = math.cos(c.yaw), math.sin(c.yaw)
  return c.x + cs * x - sn * y, c.y + sn * x + cs * y, c.yaw + yaw
end

-- The transform C with C * odom = est.
local function between(est, ox, oy, oyaw)
  local yaw = est.yaw - oyaw
  local cs, sn = math.cos(yaw), math.sin(yaw)
  return { x = est.x - (cs * ox - sn * oy), y = est.y - (sn * ox + cs * oy), yaw = yaw }
end

-- The odometry's scale, learnt from the matches (P.match_calibrate): over
-- the last CAL_SCANS scans, the distance the matched poses moved against the
-- distance the odometry says, on stretches driven straight ahead. A wheel a
-- few percent large makes every odometry step that much long; matching pins
-- the pose across a corridor but not along it (nothing there to match), so
-- along corridors the estimate drifts at the odometry's rate unless the
-- steps are scaled.
local CAL_SCANS, CAL_MIN_M, CAL_GAIN = 25, 0.4, 0.05

local function new_calibration()
  return { scale = 1, updates = 0, hist = {} }
end

-- Records a scan's odometry and estimated poses; `good` when the match
-- fixed the whole pose (not degenerate, not poor).
local function calibrate(cal, odom, est, good)
  local h = cal.hist
  h[#h + 1] = { odom = odom, est = est, good = good }
  if #h > CAL_SCANS + 1 then table.remove(h, 1) end
  if not good or #h < CAL_SCANS + 1 or not h[1].good then return end
  local a, b = h[1], h[#h]
  local lo = math.sqrt((b.odom.x - a.odom.x) ^ 2 + (b.odom.y - a.odom.y) ^ 2)
  if lo < CAL_MIN_M then return end
  -- straight ahead: the path the odometry drove is its displacement, within 1 %
  local path = 0
  for i = 2, #h do
    path = path + math.sqrt((h[i].odom.x - h[i - 1].odom.x) ^ 2 + (h[i].odom.y - h[i - 1].odom.y) ^ 2)
  end
  if path > 1.01 * lo then return end
  local le = math.sqrt((b.est.x - a.est.x) ^ 2 + (b.est.y - a.est.y) ^ 2)
  local ratio = le / lo
  if ratio < 0.8 or ratio > 1.2 then return end
  cal.scale = cal.scale + CAL_GAIN * (ratio - cal.scale)
  cal.updates = cal.updates + 1
end


-- The pose reached from `from_est` by the odometry's step from `from_odom`
-- to (x, y, yaw), its length scaled by `scale`.
local function scaled_step(from_odom, from_est, scale, x, y, yaw)
  local o, e = from_odom, from_est
  local c, s = math.cos(o.yaw), math.sin(o.yaw)
  local dx, dy = x - o.x, y - o.y
  local bx, by = (c * dx + s * dy) * scale, (-s * dx + c * dy) * scale
  c, s = math.cos(e.yaw), math.sin(e.yaw)
  return e.x + c * bx - s * by, e.y + s * bx + c * by, e.yaw + (yaw - o.yaw)
end

-- The SLAM localiser: every scan goes to tycho.slam, every pose is corrected
-- by its latest node. W.final_map() finishes the loop search and renders the
-- map from the optimised poses.
local function wrap_slam(robot, P, log)
  -- the pose graph is optimised on a thread of its own, its result taken 5
  -- scans (a second at 5 Hz) later: the control tick never waits for it
  local slam = tycho.slam.new { window_xy = P.match_window, window_yaw = math.rad(P.match_window_deg),
                                submap_scans = P.slam_submap_scans, loop_closure = P.slam_loop_closure,
                                optimize_lag = 5, refine = P.slam_refine }
  local stats = { method = "slam", scans = 0, matched = 0, kept = 0, degenerate = 0, poor = 0, loop_closures = 0 }
  local W = setmetatable({ localization = stats, slam = slam }, { __index = robot })
  -- P.match_calibrate: the SLAM is given the odometry with its steps scaled
  -- by the scale the matches show it has (the raw and scaled odometry poses
  -- of the last scan anchor the scaling of the poses after it)
  local cal = P.match_calibrate and new_calibration() or nil
  local last_raw, last_scaled
  local function odom(x, y, yaw)
    if not (cal and last_raw) then return x, y, yaw end
    return scaled_step(last_raw, last_scaled, cal.scale, x, y, yaw)
  end
  function W.pose()
    return slam:correct(odom(robot.pose()))
  end
  function W.pose_at(t)
    return slam:correct(odom(robot.pose_at(t)))
  end
  function W.thermal(i)
    local frame, t, p = robot.thermal(i)
    if frame and p then
      local x, y, yaw = slam:correct(odom(p.x, p.y, p.yaw))
      p = { x = x, y = y, yaw = yaw }
    end
    return frame, t, p
  end
  function W.scan()
    local scan, t, p = robot.scan()
    if not scan then return scan, t, p end
    local sx, sy, syaw = odom(p.x, p.y, p.yaw)
    local r = slam:add_scan(scan, { x = sx, y = sy, yaw = syaw })
    stats.scans = stats.scans + 1
    if r.matched then stats.matched = stats.matched + 1
    elseif r.degenerate then stats.degenerate = stats.degenerate + 1
    elseif r.still then stats.kept = stats.kept + 1 -- standing still: the odometry's step
    else stats.poor = stats.poor + 1 end
    stats.loop_closures = stats.loop_closures + r.loop_closures
    if cal then
      calibrate(cal, { x = p.x, y = p.y }, { x = r.x, y = r.y }, r.matched and not r.degenerate)
      stats.odometry_scale = cal.scale
      last_raw, last_scaled = { x = p.x, y = p.y, yaw = p.yaw }, { x = sx, y = sy, yaw = syaw }
    end
    return scan, t, { x = r.x, y = r.y, yaw = r.yaw }
  end
  function W.final_map()
    slam:finish()
    local st = slam:stats()
    stats.loop_closures, stats.optimizations, stats.max_optimization_ms = st.loop_closures, st.optimizations,
      st.max_optimization_ms
    stats.refined = P.slam_refine and st.scans_refined or nil
    stats.loops_loose = st.loops_loose
    stats.loops_shifted = st.loops_shifted
    return slam:map()
  end
  if log then log:info("localization: SLAM (submaps of %d scans, loop closure %s)", P.slam_submap_scans,
    P.slam_loop_closure and "on" or "off") end
  return W
end

-- the simulator's error settings that make its odometry inexact
local ERROR_FIELDS = { "wheel_radius_error_left", "wheel_radius_error_right", "wheel_base_error", "encoder_ticks_per_m",
                       "slip_ramp", "slip_contact", "gyro_bias", "gyro_scale", "noise_v", "noise_w" }

--- The method P.localization names; "auto" resolved: SLAM on a robot and
-- in a simulated world whose odometry has errors, the wheels alone where
-- the simulator's odometry is exact, and on a replay what the recorded run
-- used (robot.replay.localization).
function M.method(P, robot)
  local m = P.localization
  if m ~= "auto" then return m end
  if robot.replay then return robot.replay.localization or "odometry" end
  if not robot.sim then return "slam" end
  local e = robot.sim:errors()
  if e.preset ~= "none" then return "slam" end
  for _, k in ipairs(ERROR_FIELDS) do
    if e[k] ~= 0 then return "slam" end
  end
  return "odometry"
end

--- Localize.wrap(robot, mapping, P, log[, method]) -> robot (see above), stats table in
-- robot.localization {method, scans, matched, degenerate, poor[, loop_closures]}
function M.wrap(robot, mapping, P, log, method)
  if (method or M.method(P, robot)) == "slam" then return wrap_slam(robot, P, log) end
  local corr = { x = 0, y = 0, yaw = 0 }
  local matcher = tycho.scan_matcher { window_xy = P.match_window, window_yaw = math.rad(P.match_window_deg) }
  -- where in its cells each wall is (the mean of the hits there): the match,
  -- on cells, is refined against it (P.match_refine)
  local points = P.match_refine and tycho.pointmap { resolution = mapping.map.resolution } or nil
  local rms_usual -- the refinement's usual residual (moving average)
  local stats = { method = "scan_matching", scans = 0, matched = 0, kept = 0, degenerate = 0, poor = 0,
                  refined = P.match_refine and 0 or nil }
  local W = setmetatable({ localization = stats }, { __index = robot })
  local cal = P.match_calibrate and new_calibration() or nil
  -- the odometry and estimated poses of the last scan: later poses are that
  -- estimate plus the odometry's step since, scaled
  local anchor
  local last_odom -- the odometry pose of the last scan

  -- the estimate for an odometry pose
  local function estimate(x, y, yaw)
    if not (cal and anchor) then return compose(corr, x, y, yaw) end
    return scaled_step(anchor.odom, anchor.est, cal.scale, x, y, yaw)
  end

  function W.pose()
    return estimate(robot.pose())
  end
  function W.pose_at(t)
    return estimate(robot.pose_at(t))
  end
  function W.thermal(i)
    local frame, t, p = robot.thermal(i)
    if frame and p then
      local x, y, yaw = estimate(p.x, p.y, p.yaw)
      p = { x = x, y = y, yaw = yaw }
    end
    return frame, t, p
  end
  function W.scan()
    local scan, t, p = robot.scan()
    if not scan then return scan, t, p end
    stats.scans = stats.scans + 1
    local gx, gy, gyaw = estimate(p.x, p.y, p.yaw)
    local est = { x = gx, y = gy, yaw = gyaw }
    local whole = false -- the match fixed the whole pose
    -- standing still (the odometry has not moved since the last scan): its
    -- step is exact, and a match against a young map only adds the scans'
    -- noise, which the map then keeps (a turn of 0.7 degrees seen at the
    -- start of a run, from a map of one scan)
    local last = last_odom
    last_odom = { x = p.x, y = p.y, yaw = p.yaw }
    local still = last and math.abs(p.x - last.x) < 1e-3 and math.abs(p.y - last.y) < 1e-3
      and math.abs(p.yaw - last.yaw) < 1e-3
    if still then
      stats.kept = stats.kept + 1
    -- the first scans make the map the later ones are matched against
    elseif mapping.scans >= P.match_after_scans then
      matcher:set_map(mapping.map)
      local r = matcher:match(scan, est)
      if not r.ok then
        stats.poor = stats.poor + 1
      elseif r.score - r.guess_score < P.match_min_gain then
        -- no better than where the odometry puts it: keep that (a jump for
        -- a hair of score is as likely noise, and a heading error made
        -- here swings every later pose about it)
        stats.kept = stats.kept + 1
      elseif r.degenerate then
        stats.degenerate = stats.degenerate + 1
        est.yaw = r.yaw -- the heading is still pinned by the walls alongside
      else
        stats.matched = stats.matched + 1
        est = { x = r.x, y = r.y, yaw = r.yaw }
        whole = true
      end
      if points and r.ok then
        local f = points:refine(scan, est)
        -- a fit much looser than the usual one paired beams with the wrong
        -- walls (a doorway, a wall end): the match on cells stands
        local usual = rms_usual or f.rms
        if f.ok and f.rms <= 1.5 * usual then
          rms_usual = usual + 0.05 * (f.rms - usual)
          stats.refined = stats.refined + 1
          est = { x = f.x, y = f.y, yaw = f.yaw }
        end
      end
      corr = between(est, p.x, p.y, p.yaw)
    end
    if points then points:add_scan(scan, est) end
    if cal then
      calibrate(cal, { x = p.x, y = p.y }, { x = est.x, y = est.y }, whole)
      stats.odometry_scale = cal.scale
      anchor = { odom = { x = p.x, y = p.y, yaw = p.yaw }, est = est }
    end
    return scan, t, est
  end
  if log then log:info("localization: scan matching against the map (window %.2f m, %.0f deg)",
    P.match_window, P.match_window_deg) end
  return W
end

return M
