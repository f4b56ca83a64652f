--- The terrain mission: drive from start to goal across ground the robot
-- has never seen, with a 3D LiDAR building a 2.5D terrain map as it goes.
--
-- Plan with what is known (unknown cells are crossable at a higher cost,
-- known untraversable cells and their barrier are walls); drive; after
-- every sweep recompute traversability and check the rest of the path:
-- re-plan from the current pose when (and only when) a newly seen
-- obstacle blocks it. Scripted obstacles appear from the world file while
-- the robot drives. Records every plan and the driven trajectory.
--
--   local mission = require "terrain.mission"
--   local result = mission.run(world, {kind =, log =, on_tick =})
local tycho = require "tycho"
local worldmod = require "terrain.world"
local follow = require "terrain.follow"

local M = {}

local DT = 0.05 -- control period (20 Hz)

local function cell_of(w, x, y) return math.floor(x / w.resolution), math.floor(y / w.resolution) end
local function centre(w, cx, cy) return (cx + 0.5) * w.resolution, (cy + 0.5) * w.resolution end

--- The nearest cell that is not blocked, within r cells of (cx, cy).
local function nearest_open(map, cx, cy, r)
  if not map:blocked(cx, cy) then return cx, cy end
  for d = 1, r do
    local best, bx, by = math.huge, nil, nil
    for dy = -d, d do
      for dx = -d, d do
        if math.max(math.abs(dx), math.abs(dy)) == d and not map:blocked(cx + dx, cy + dy) then
          local dd = dx * dx + dy * dy
          if dd < best then best, bx, by = dd, cx + dx, cy + dy end
        end
      end
    end
    if bx then return bx, by end
  end
end

--- Robot parameters: the world's robot table over the kind's defaults.
local function robot_of(w, kind)
  local r = {}
  for k, v in pairs(w.robot) do if k ~= "kind" and k ~= "speed" then r[k] = v end end
  r.kind = kind
  return tycho.terrain.robot(r)
end

--- M.run(world, opts) -> result
-- opts: kind ("diff" | "mecanum", default the world's robot.kind or "diff"),
-- mode (mecanum follower "strafe" | "face"), log (a tycho log, optional),
-- params (a params group or table; default the world's params), on_tick(res,
-- bot) called every control step (returning "stop" ends the run), on_sweep(res,
-- map, cells, points) after every sweep (points(): the sweep's world points as
-- a flat x, y, z list, computed on demand: the mission itself puts them
-- straight into the map), timeout (s).
function M.run(w, opts)
  opts = opts or {}
  local log = opts.log
  local function say(level, fmt, ...) if log then log[level](log, fmt, ...) end end
  local kind = opts.kind or w.robot.kind or "diff"
  -- the tunables: a params group (terrain/params.lua, live from the console)
  -- or a plain table (the world's `params`); read afresh at every sweep
  local P = opts.params or w.params
  local function trav_now()
    return { step_coef = P.step_coef or 1.0, slope_coef = P.slope_coef or 0.35, barrier = P.barrier or 0.3,
             margin = P.margin or 0.4 }
  end
  local trav = trav_now()

  local hf = worldmod.build(w)
  -- the world without its moving obstacles: what a moving box leaves behind,
  -- and the ground truth the driven path is checked against
  local base = hf:copy()
  local movers = {}
  local due = worldmod.events(w)
  local bot = robot_of(w, kind)
  assert(bot:place(hf, w.start.x, w.start.y, w.start.yaw))
  local map = tycho.terrain.map { width = hf.width, height = hf.height, resolution = w.resolution }
  local lidar = { lines = w.lidar.lines, columns = w.lidar.columns, range_max = w.lidar.range_max, mount = w.lidar.mount,
                  refresh = true,
                  self = { xmin = -0.35, xmax = 0.35, ymin = -0.3, ymax = 0.3, zmin = -0.5, zmax = 0.8 } }
  local follower = follow.new(kind, { mode = opts.mode, speed = w.robot.speed })
  -- the last sweep again, as points (for the live view and recordings; no
  -- noise in the sweep, so this changes nothing the mission decides)
  local function sweep_points() return (hf:sweep(bot.pose, lidar)) end

  local res = { kind = kind, trav = trav, base = base, mover_contacts = 0, plans = {}, trajectory = {}, events = {}, replans = 0, reached = false,
                max_pitch = 0, max_roll = 0, sweeps = 0, sweep_time = 0, plan_time = 0 }
  -- complete at every tick, so that a run stopped by an error still has a
  -- result to report (terrain_nav runs this on the scheduler)
  res.heightfield, res.map, res.time, res.bumps = hf, map, 0, 0
  local path, cells -- current plan: world points and cells
  local gx, gy = cell_of(w, w.goal.x, w.goal.y)

  local function plan(t, reason)
    local sx, sy = cell_of(w, bot.x, bot.y)
    local ox, oy = nearest_open(map, sx, sy, 6)
    if not ox then return nil, "the robot is boxed in by untraversable cells" end
    local t0 = tycho.clock.monotonic()
    local c, cost = map:plan(ox, oy, gx, gy, { slope_weight = P.slope_weight or 2, unknown_cost = P.unknown_cost or 1.5,
                                                 clearance_weight = P.clearance_weight or 3,
                                                 roughness_weight = P.roughness_weight or 1 })
    res.plan_time = res.plan_time + (tycho.clock.monotonic() - t0)
    if not c then return nil, cost end
    local pts = { { x = bot.x, y = bot.y } }
    for i = 2, #c do
      local x, y = centre(w, c[i][1], c[i][2])
      pts[#pts + 1] = { x = x, y = y }
    end
    pts[#pts] = { x = w.goal.x, y = w.goal.y }
    path, cells = pts, c
    res.plans[#res.plans + 1] = { t = t, reason = reason, cost = cost, points = pts, from = #res.trajectory + 1 }
    follower:set_path(pts, w.start.yaw)
    say("info", "t=%.1f s plan %d (%s): %d cells, cost %.1f", t, #res.plans, reason, #c, cost)
    return true
  end

  local t, next_sweep, period = 0, 0, 1 / w.lidar.rate
  local timeout = opts.timeout or w.timeout
  local function record()
    local p = bot.pose
    res.trajectory[#res.trajectory + 1] = { t = t, x = p.x, y = p.y, z = p.z, roll = p.roll, pitch = p.pitch, yaw = p.yaw }
    res.max_pitch = math.max(res.max_pitch, math.abs(p.pitch))
    res.max_roll = math.max(res.max_roll, math.abs(p.roll))
  end
  record()
  while t < timeout do
    for _, e in ipairs(due(t, bot.x, bot.y)) do
      worldmod.draw(hf, e)
      if e.velocity then
        movers[#movers + 1] = { x0 = e.x0, y0 = e.y0, x1 = e.x1, y1 = e.y1, top = e.top, vx = e.velocity.x,
                                vy = e.velocity.y, stop = t + e.duration }
      else
        worldmod.draw(base, e)
      end
      res.events[#res.events + 1] = { t = t, type = e.type, note = e.note, moving = e.velocity ~= nil }
      say("info", "t=%.1f s an obstacle %s (%s%s)", t, e.velocity and "starts moving" or "appears", e.type,
        e.note and (": " .. e.note) or "")
    end
    for _, m in ipairs(movers) do
      if t < m.stop then
        hf:restore(base, m.x0, m.y0, m.x1, m.y1)
        m.x0, m.x1, m.y0, m.y1 = m.x0 + m.vx * DT, m.x1 + m.vx * DT, m.y0 + m.vy * DT, m.y1 + m.vy * DT
        hf:box(m.x0, m.y0, m.x1, m.y1, m.top)
      end
      -- the robot's footprint (its wheel base) overlapping a moving box: a collision
      local r = 0.3
      if bot.x + r > m.x0 and bot.x - r < m.x1 and bot.y + r > m.y0 and bot.y - r < m.y1 then
        res.mover_contacts = res.mover_contacts + 1
      end
    end
    if t >= next_sweep then
      next_sweep = next_sweep + period
      local t0 = tycho.clock.monotonic()
      hf:sweep(bot.pose, lidar, map) -- lidar.refresh: each sweep's look at a cell replaces the last
      trav = trav_now()
      res.trav = trav
      lidar.refresh = P.refresh ~= false
      map:traversability(trav)
      res.sweep_time = res.sweep_time + (tycho.clock.monotonic() - t0)
      res.sweeps = res.sweeps + 1
      if not path then
        local ok, why = plan(t, "start")
        if not ok then res.failure = "no plan from the start: " .. tostring(why) break end
      else
        -- only the part of the path still ahead matters
        local sx, sy = cell_of(w, bot.x, bot.y)
        local from = 1
        for i = 1, #cells do if cells[i][1] == sx and cells[i][2] == sy then from = i break end end
        local blocked = map:first_blocked(cells, from + 1)
        if blocked then
          res.replans = res.replans + 1
          local bx, by = centre(w, cells[blocked][1], cells[blocked][2])
          local ok, why = plan(t, ("blocked at (%.1f, %.1f)"):format(bx, by))
          if not ok then res.failure = ("re-plan failed at t=%.1f s: %s"):format(t, tostring(why)) break end
        end
      end
      if opts.on_sweep then opts.on_sweep(res, map, cells, sweep_points) end
    end
    local vx, vy, wz, status = follower:step(bot.pose, DT)
    if status == "arrived" then res.reached = true break end
    bot:step(hf, vx, vy, wz, DT)
    t = t + DT
    record()
    res.time, res.bumps = t, bot.bumps
    if opts.on_tick and opts.on_tick(res, bot) == "stop" then
      res.failure = res.failure or ("stopped at t=%.1f s"):format(t)
      break
    end
  end
  res.time = t
  res.bumps = bot.bumps
  res.heightfield, res.map = hf, map
  if not res.reached and not res.failure then res.failure = ("timed out after %.0f s"):format(timeout) end
  return res
end

--- Driven length of a trajectory.
function M.length(tr)
  local len = 0
  for i = 2, #tr do len = len + math.sqrt((tr[i].x - tr[i - 1].x) ^ 2 + (tr[i].y - tr[i - 1].y) ^ 2) end
  return len
end

--- Deviation of the driven trajectory from the plan in force at each moment:
-- each plan against the stretch driven while it was in force (mean weighted
-- by samples, max over all).
function M.deviation(res)
  local sum, n, worst = 0, 0, 0
  for i, p in ipairs(res.plans) do
    local last = (res.plans[i + 1] and res.plans[i + 1].from or #res.trajectory + 1) - 1
    local driven = {}
    for k = p.from, last do driven[#driven + 1] = res.trajectory[k] end
    if #driven >= 1 then
      local d = tycho.terrain.compare(driven, p.points)
      sum, n, worst = sum + d.mean * d.samples, n + d.samples, math.max(worst, d.max)
    end
  end
  return { mean = n > 0 and sum / n or 0, max = worst }
end

--- The ground under the driven path, as the robot mapped it: slope and
-- roughness from a plane fit over the 5 x 5 cells round each cell driven.
function M.ground_along(res, w)
  local seen, n, slope_max, rough_sum, rough_max = {}, 0, 0, 0, 0
  for _, p in ipairs(res.trajectory) do
    local cx, cy = cell_of(w, p.x, p.y)
    local k = cy * 100000 + cx
    if not seen[k] then
      seen[k] = true
      local slope, rough = res.map:plane_fit(cx, cy, 2)
      if slope then
        n = n + 1
        slope_max, rough_max = math.max(slope_max, slope), math.max(rough_max, rough)
        rough_sum = rough_sum + rough
      end
    end
  end
  return { cells = n, max_slope_deg = math.deg(slope_max), mean_roughness_m = n > 0 and rough_sum / n or 0,
           max_roughness_m = rough_max }
end

--- Cells of the driven trajectory that the ground truth (the whole height
-- field seen at once, same criteria, no barrier; without the moving
-- obstacles, which are checked against the robot as they move) calls
-- untraversable.
function M.untraversable_entered(res, w, trav)
  local truth = tycho.terrain.map { width = res.base.width, height = res.base.height, resolution = w.resolution }
  truth:add(res.base)
  truth:traversability { step_coef = trav.step_coef, slope_coef = trav.slope_coef, barrier = 0 }
  local bad, seen = {}, {}
  for _, p in ipairs(res.trajectory) do
    local cx, cy = cell_of(w, p.x, p.y)
    local k = cy * 100000 + cx
    if not seen[k] then
      seen[k] = true
      if not truth:traversable(cx, cy) then bad[#bad + 1] = { x = p.x, y = p.y, t = p.t } end
    end
  end
  return bad, truth
end

return M
