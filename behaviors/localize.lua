--- Localisation by scan-to-map matching: the wheel odometry, corrected at
-- every LiDAR scan by matching the scan against the map built so far (C:
-- tycho.scan_matcher, core/scan_match.c), so that systematic odometry
-- errors (a wheel a percent larger, a wheel base off, slip) no longer bend
-- the map. No loop closure: the map is one grid, the pose graph of a full
-- SLAM is not built.
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

-- The SLAM localiser: every scan goes to tycho.slam, every pose is corrected
-- by its latest node. W.final_map() finishes the loop search and renders the
-- map from the optimised poses.
local function wrap_slam(robot, P, log)
  -- the pose graph is optimised on a thread of its own, its result taken 5
  -- scans (a second at 5 Hz) later: the control tick never waits for it
  local slam = tycho.slam.new { window_xy = P.match_window, window_yaw = math.rad(P.match_window_deg),
                                submap_scans = P.slam_submap_scans, loop_closure = P.slam_loop_closure,
                                optimize_lag = 5 }
  local stats = { method = "slam", scans = 0, matched = 0, kept = 0, degenerate = 0, poor = 0, loop_closures = 0 }
  local W = setmetatable({ localization = stats, slam = slam }, { __index = robot })
  function W.pose()
    return slam:correct(robot.pose())
  end
  function W.pose_at(t)
    return slam:correct(robot.pose_at(t))
  end
  function W.thermal(i)
    local frame, t, p = robot.thermal(i)
    if frame and p then
      local x, y, yaw = slam:correct(p.x, p.y, p.yaw)
      p = { x = x, y = y, yaw = yaw }
    end
    return frame, t, p
  end
  function W.scan()
    local scan, t, p = robot.scan()
    if not scan then return scan, t, p end
    local r = slam:add_scan(scan, p)
    stats.scans = stats.scans + 1
    if r.matched then stats.matched = stats.matched + 1
    elseif r.degenerate then stats.degenerate = stats.degenerate + 1
    else stats.poor = stats.poor + 1 end
    stats.loop_closures = stats.loop_closures + r.loop_closures
    return scan, t, { x = r.x, y = r.y, yaw = r.yaw }
  end
  function W.final_map()
    slam:finish()
    local st = slam:stats()
    stats.loop_closures, stats.optimizations, stats.max_optimization_ms = st.loop_closures, st.optimizations,
      st.max_optimization_ms
    return slam:map()
  end
  if log then log:info("localization: SLAM (submaps of %d scans, loop closure %s)", P.slam_submap_scans,
    P.slam_loop_closure and "on" or "off") end
  return W
end

--- Localize.wrap(robot, mapping, P, log) -> robot (see above), stats table in
-- robot.localization {method, scans, matched, degenerate, poor[, loop_closures]}
function M.wrap(robot, mapping, P, log)
  if P.localization == "slam" then return wrap_slam(robot, P, log) end
  local corr = { x = 0, y = 0, yaw = 0 }
  local matcher = tycho.scan_matcher { window_xy = P.match_window, window_yaw = math.rad(P.match_window_deg) }
  local stats = { method = "scan_matching", scans = 0, matched = 0, kept = 0, degenerate = 0, poor = 0 }
  local W = setmetatable({ localization = stats }, { __index = robot })

  function W.pose()
    return compose(corr, robot.pose())
  end
  function W.pose_at(t)
    return compose(corr, robot.pose_at(t))
  end
  function W.thermal(i)
    local frame, t, p = robot.thermal(i)
    if frame and p then
      local x, y, yaw = compose(corr, p.x, p.y, p.yaw)
      p = { x = x, y = y, yaw = yaw }
    end
    return frame, t, p
  end
  function W.scan()
    local scan, t, p = robot.scan()
    if not scan then return scan, t, p end
    stats.scans = stats.scans + 1
    local gx, gy, gyaw = compose(corr, p.x, p.y, p.yaw)
    local est = { x = gx, y = gy, yaw = gyaw }
    -- the first scans make the map the later ones are matched against
    if mapping.scans >= P.match_after_scans then
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
      end
      corr = between(est, p.x, p.y, p.yaw)
    end
    return scan, t, est
  end
  if log then log:info("localization: scan matching against the map (window %.2f m, %.0f deg)",
    P.match_window, P.match_window_deg) end
  return W
end

return M
