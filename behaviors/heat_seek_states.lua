--- The heat-seeking mission's state machine (see heat_seek.lua), in a file
-- of its own so that it can be edited and hot-reloaded while the robot
-- runs: heat_seek.lua loads this file, calls the returned function with the
-- mission's context and gets the fsm definition. A reload (file saved, or
-- :reload in the console) builds and validates the new definition first and
-- only then swaps it in (fsm Machine:replace): the machine keeps its state
-- and the blackboard `bb`; a broken edit changes nothing.
local tycho = require "tycho"
local tasks = require "tasks"
local fsm = require "fsm"
local Targets = require "targets"

return function(ctx)
  local robot, nav, mapping, sweep, pitch = ctx.robot, ctx.nav, ctx.mapping, ctx.sweep, ctx.pitch
  local bb, P, log, now = ctx.bb, ctx.P, ctx.log, ctx.now

  local function dist(ax, ay, bx, by) return math.sqrt((ax - bx) ^ 2 + (ay - by) ^ 2) end
  local function pose_table() local x, y, yaw = robot.pose() return { x = x, y = y, yaw = yaw } end

  local function await(op, timeout) return tasks.await(op, timeout) end

  local function pick_frontier()
    local here = pose_table()
    local fr, why = mapping.costmap:frontiers { robot = here, min_size = P.frontier_min_size }
    if not fr then
      log:debug("explore: frontier search failed: %s", tostring(why))
      return nil
    end
    log:debug("explore: %d frontiers, %d blacklisted goals", #fr, #bb.blacklist)
    for _, f in ipairs(fr) do
      local banned = false
      for _, b in ipairs(bb.blacklist) do
        if dist(b.x, b.y, f.goal.x, f.goal.y) < 0.3 then banned = true break end
      end
      if not banned then return f end
    end
  end

  local function fire(n, target)
    robot.launcher.spin(true)
    tasks.sleep(P.spin_up_time)
    local fired, engaged = 0, nil
    for b = 1, n do
      local shot, why = robot.launcher.feed()
      if shot then
        fired = fired + 1
        engaged = engaged or (shot.engaged or nil)
      else
        log:warn("launcher: ball %d not fired: %s", b, tostring(why))
      end
      if b < n then tasks.sleep(P.feed_interval) end
    end
    tasks.sleep(P.spin_down_time)
    robot.launcher.spin(false)
    local x, y, yaw = robot.pose()
    local l = { t = now(), x = x, y = y, yaw = yaw, balls = fired, engaged_source = engaged or false,
                target = target }
    bb.launches[#bb.launches + 1] = l
    log:info("launch: %d ball(s) from (%.2f, %.2f, %.0f deg)%s", fired, x, y, math.deg(yaw),
      engaged and (" engaged heat source " .. engaged) or " (no source engaged)")
    return l
  end

  -- standoff poses around a target: free, in line of sight, nearest first
  -- The side a target was seen from: the mean direction from the target to
  -- the robot over the detections near it. A source on a wall is engaged
  -- from the side of the wall where it was seen, never through the wall.
  local function seen_from(t)
    if t.side then return t.side end
    local sx, sy = 0, 0
    for _, d in ipairs(bb.detections) do
      if dist(d.x, d.y, t.x, t.y) < P.target_merge_distance then
        local dx, dy = d.rx - t.x, d.ry - t.y
        local n = math.sqrt(dx * dx + dy * dy)
        if n > 1e-6 then sx, sy = sx + dx / n, sy + dy / n end
      end
    end
    if sx == 0 and sy == 0 then return nil end
    return math.atan(sy, sx)
  end

  local function count_near(t, since)
    return Targets.count_near(bb.detections, t, P.target_merge_distance, since)
  end

  -- Standoff poses around a target: on the side it was seen from, not in the
  -- inscribed band, with a clear line of sight; the nearest and cheapest first.
  local function standoffs(t)
    local here = pose_table()
    local side = seen_from(t)
    -- look at a face square on: the wall's normal on the side it was seen
    -- from (the mean viewing direction leans towards where the robot
    -- happened to drive past, often along the wall, and at a grazing angle
    -- the camera does not see the source)
    local nx, ny = Targets.wall_normal(mapping.map, t.x, t.y)
    if nx and side then
      if nx * math.cos(side) + ny * math.sin(side) < 0 then nx, ny = -nx, -ny end
      side = math.atan(ny, nx)
    end
    local cands = {}
    local d = P.standoff_distance
    for k = 0, 23 do
      local a = k * math.pi / 12
      local off = side and math.abs((a - side + math.pi) % (2 * math.pi) - math.pi) or 0
      local cx, cy = t.x + d * math.cos(a), t.y + d * math.sin(a)
      local cost = mapping:cost_at(cx, cy)
      local face = math.atan(t.y - cy, t.x - cx)
      local r = mapping.map:raycast(cx, cy, face, d)
      if off <= math.rad(75) and cost < tycho.grid.INSCRIBED and (r == math.huge or r >= d - 0.2) then
        cands[#cands + 1] = { x = cx, y = cy, yaw = face,
                              score = dist(here.x, here.y, cx, cy) + cost / 100 + off }
      end
    end
    table.sort(cands, function(a, b) return a.score < b.score end)
    return cands
  end

  -- The free place nearest the robot by path (a cell centre) at least
  -- ramp_search_gap from the driven trail and from the places tried
  -- already, or nil. In a copy of the costmap the trail and those places
  -- are stamped with the highest cost the robot may still cross
  -- (INSCRIBED - 1: the search walks through them, walls stay walls), and
  -- the nearest cell below it is the place.
  local search_ramp -- below
  local function untravelled(tried)
    local g = mapping.costmap:copy()
    local mark = tycho.grid.INSCRIBED - 1
    local seal = { world = true, cost = mark,
                   thickness = math.min(256, math.max(1, math.floor(2 * P.ramp_search_gap / g.resolution))) }
    local trail = bb.trail
    for k = 1, #trail do
      local a, b = trail[k], trail[k + 1] or trail[k]
      g:seal_line(a.x, a.y, b.x, b.y, seal)
    end
    for _, p in ipairs(tried) do g:seal_line(p.x, p.y, p.x, p.y, seal) end
    local here = pose_table()
    local cx, cy = g:world_to_cell(here.x, here.y)
    local fx, fy = g:nearest(cx, cy, { max_cost = mark - 1 })
    if not fx then return nil end
    local x, y = g:cell_to_world(fx, fy)
    return { x = x, y = y }
  end

  -- No ramp met on the way: a ramp is found by driving onto it (the IMU),
  -- and the LiDAR maps a dead-end corridor from its mouth, so a ramp inside
  -- one can be missed (seen on generated mazes: 2 in 200 runs). Drive to
  -- where the wheels have not been, nearest first by path, until the IMU meets the
  -- ramp (its interrupt backs off and starts this state again, bb.ramp set)
  -- or ramp_search_time is spent.
  search_ramp = function()
    if P.ramp_search_time <= 0 then return end
    local deadline, tried = now() + P.ramp_search_time, {}
    while not bb.ramp and now() < deadline do
      local goal = untravelled(tried)
      if not goal then
        log:info("ramp: none met; the wheels have been within %.2f m of every free place", P.ramp_search_gap)
        return
      end
      tried[#tried + 1] = goal
      log:info("ramp: none met yet; looking where the wheels have not been: (%.2f, %.2f)", goal.x, goal.y)
      await(nav:go_to(goal.x, goal.y), math.max(1, deadline - now()))
    end
    if not bb.ramp then log:info("ramp: none met in %.0f s of looking", P.ramp_search_time) end
  end

  -- Faces target t from where the robot is, waits for its heat to show
  -- again, aims at the fresh detections and fires; "fired" or "unseen".
  local function engage(t, label)
    local x, y = robot.pose()
    local aim = t
    await(nav:face(math.atan(t.y - y, t.x - x), math.rad(P.align_tolerance)))
    -- look before firing: a cluster can be a ghost (a hot pixel column
    -- spanning a near wall and a far one puts the fused point on the far
    -- one), so the target must show up again, from here, within a moment
    if P.confirm_time > 0 then
      local since = now()
      -- any side: from the standoff only this face is in view anyway
      local seen = tasks.wait_until(function()
        return Targets.count_near(bb.detections, { x = t.x, y = t.y }, P.target_merge_distance, since) > 0
      end, P.confirm_time)
      if not seen then return "unseen" end
      -- aim at what the cameras see from here, not at the cluster's mean
      -- (smeared along the wall from far views): the fresh detections'
      -- mean, moved off the wall face towards the robot by a source's
      -- radius, then turn to it
      tasks.sleep(P.aim_dwell)
      local function fresh_mean(from)
        local ax, ay, n = 0, 0, 0
        for i = #bb.detections, 1, -1 do
          local d = bb.detections[i]
          if d.t < from then break end
          if dist(d.x, d.y, t.x, t.y) < P.target_merge_distance then ax, ay, n = ax + d.x, ay + d.y, n + 1 end
        end
        if n > 0 then return ax / n, ay / n end
      end
      local ax, ay = fresh_mean(since)
      if ax then
        local rx, ry, ryaw = robot.pose()
        local r = dist(rx, ry, ax, ay)
        -- too close (the standoff was placed off a cluster that was not
        -- where the source is): a few centimetres of error in the aim
        -- point are many degrees; back away along the line of sight,
        -- never into a wall, and aim again from there
        if r < P.min_fire_distance then
          await(nav:straight(-0.1, ryaw, function(s) return s >= P.standoff_distance - r end, 10))
          local again = now()
          rx, ry = robot.pose()
          await(nav:face(math.atan(ay - ry, ax - rx), math.rad(P.align_tolerance)))
          tasks.sleep(P.aim_dwell)
          local bx, by = fresh_mean(again)
          if bx then ax, ay = bx, by end
          rx, ry = robot.pose()
          r = dist(rx, ry, ax, ay)
        end
        aim = { x = ax, y = ay }
        if r > 0.2 then ax, ay = ax + 0.1 * (rx - ax) / r, ay + 0.1 * (ry - ay) / r end
        await(nav:face(math.atan(ay - ry, ax - rx), math.rad(P.align_tolerance)))
      end
    end
    fire(P.balls_per_target, label)
    t.engaged = true
    -- what was seen of this source from this side is used up: it makes no
    -- second target (smeared along the wall it can reach past the merge
    -- distance of the target's mean)
    local fx, fy = robot.pose()
    Targets.consume(mapping.map, bb.detections, { t, aim }, P.target_merge_distance, fx, fy)
    return "fired"
  end

  -- Whether cluster c is a target already engaged (near it, same side of
  -- any wall).
  local function engaged_already(c)
    for _, t in ipairs(bb.targets) do
      if (t.engaged or t.early_tried) and Targets.same_source(mapping.map, t, c, P.target_merge_distance) then
        return true
      end
    end
    return false
  end

  -- Sources seen well on the way are engaged while the robot is near them,
  -- rather than driven back to after the sweep; not while the no-go band is
  -- squeezed (the squeeze is for exploring through doorways the padded band
  -- closes, and a detour to a standoff at a few millimetres of padding
  -- grazed a wall: generated maze 150001 at 0.45 m corridors).
  local function engage_nearby()
    if P.engage_on_the_way <= 0 or #bb.detections < P.min_cluster_detections then return end
    if mapping:padding() < P.footprint_padding then return end
    local x, y = robot.pose()
    for _, c in ipairs(Targets.build(Targets.unconsumed(bb.detections), P, mapping.map)) do
      if c.count >= P.min_cluster_detections and dist(x, y, c.x, c.y) <= P.engage_on_the_way
         and not engaged_already(c) then
        local t = { x = c.x, y = c.y, detections = c.count, side = c.side, ux = c.ux, uy = c.uy,
                    early_tried = true }
        bb.targets[#bb.targets + 1] = t
        local idx = #bb.targets
        log:info("target %d at (%.2f, %.2f) from %d detections: engaging on the way", idx, t.x, t.y, c.count)
        for i, v in ipairs(standoffs(t)) do
          if i > 2 then break end
          if await(nav:go_to(v.x, v.y, v.yaw)) then
            if engage(t, idx) == "fired" then break end
            t.tried = { { x = v.x, y = v.y } }
          end
        end
        if not t.engaged then log:info("target %d: not engaged on the way, left for later", idx) end
        return
      end
    end
  end

  local states = {
    Initialising = {
      goes_to = { "Exploring" },
      run = function()
        -- a few scans: one miss alone does not make a cell free (log-odds)
        tasks.wait_until(function() return mapping.scans >= 4 end, 10)
        if mapping.scans < 1 then error("no LiDAR scan within 10 s") end
        return "Exploring"
      end,
      transitions = {},
    },
    Exploring = {
      goes_to = { "ThermalSweep" },
      run = function()
        while true do
          -- wall faces close by that no camera has looked at from near
          -- enough: look now, on the way, rather than come back for them
          if P.thermal_sweep and P.sweep_while_exploring > 0 then
            local x, y = robot.pose()
            local v = sweep:next_view(mapping.map, mapping.costmap, x, y, P.sweep_standoff, P.sweep_while_exploring)
            if v then
              local ok = await(nav:go_to(v.x, v.y, v.yaw))
              if ok then tasks.sleep(P.sweep_dwell) end
              sweep:give_up(v.face)
            end
          end
          engage_nearby()
          local f = pick_frontier()
          -- doorways that the padded no-go band closes (a maze of 0.5 m
          -- corridors): narrow the padding step by step while that opens a
          -- frontier, and keep it narrowed for the rest of the mission
          local padding = mapping:padding()
          while not f and P.squeeze_doorways do
            local before, after = mapping:squeeze(P.squeeze_min_padding)
            if not before then break end
            f = pick_frontier()
            if f then
              log:warn("explore: no frontier reachable with %.1f cm of footprint padding; squeezing to %.1f cm",
                padding * 100, after * 100)
            elseif after <= P.squeeze_min_padding then
              mapping:unsqueeze(padding) -- nothing opened: as it was
              break
            end
          end
          if not f then
            log:info("explore: no reachable frontier left")
            -- the padding comes back for the rest: a squeezed band is for
            -- getting through to explore, not for manoeuvring beside walls
            if mapping:padding() < P.footprint_padding then
              mapping:unsqueeze(P.footprint_padding)
              log:info("explore: footprint padding back to %.1f cm", P.footprint_padding * 100)
            end
            return "ThermalSweep"
          end
          log:debug("explore: frontier goal (%.2f, %.2f), %.2f m away", f.goal.x, f.goal.y, f.distance)
          local op = nav:go_to(f.goal.x, f.goal.y, nil, nil, { through = true })
          -- drive until there, or until that frontier's edge is mapped (then
          -- pick the next one without stopping)
          local map, fx, fy = mapping.map, f.nearest.x, f.nearest.y
          local function mapped()
            local cx, cy, inside = map:world_to_cell(fx, fy)
            return inside and map:get(cx, cy) ~= tycho.grid.UNKNOWN
          end
          tasks.wait_until(function() return not nav:active() or mapped() end, P.goal_timeout)
          if nav:active() then
            op:cancel()
          else
            local ok, why = await(op)
            -- arrived, and the frontier's edge still unknown after a second
            -- of scans from there, three times over: nothing the LiDAR can
            -- map from where the robot can stand (else it would pick that
            -- frontier for ever)
            if ok and not tasks.wait_until(mapped, 1.0) then
              local n = 0
              for _, a in ipairs(bb.unmapped_arrivals) do
                if dist(a.x, a.y, f.goal.x, f.goal.y) < 0.3 then n = n + 1 end
              end
              bb.unmapped_arrivals[#bb.unmapped_arrivals + 1] = { x = f.goal.x, y = f.goal.y }
              if n >= 2 then ok, why = false, "arrived three times, still unmapped" end
            end
            if not ok then
              log:info("explore: frontier at (%.2f, %.2f) failed (%s); blacklisted", f.goal.x, f.goal.y, tostring(why))
              bb.blacklist[#bb.blacklist + 1] = { x = f.goal.x, y = f.goal.y }
            end
          end
        end
      end,
    },
    ThermalSweep = {
      goes_to = { "Clustering", "Exploring" },
      run = function()
        local cov, faces = sweep:coverage(mapping.map)
        log:info("sweep: cameras have checked %.0f%% of %d wall faces", cov * 100, faces)
        if not P.thermal_sweep then return "Clustering" end
        local views = 0
        while views < P.sweep_max_views and now() < P.sweep_time_limit do
          local x, y = robot.pose()
          local v = sweep:next_view(mapping.map, mapping.costmap, x, y, P.sweep_standoff)
          if not v then break end
          views = views + 1
          log:debug("sweep: view %d at (%.2f, %.2f) facing (%.2f, %.2f)", views, v.x, v.y, v.face.x, v.face.y)
          local ok, why = await(nav:go_to(v.x, v.y, v.yaw))
          if ok then tasks.sleep(P.sweep_dwell)
          else log:debug("sweep: view (%.2f, %.2f) failed: %s", v.x, v.y, tostring(why)) end
          sweep:give_up(v.face)
          engage_nearby()
        end
        cov, faces = sweep:coverage(mapping.map)
        log:info("sweep: %d views; cameras have checked %.0f%% of %d wall faces", views, cov * 100, faces)
        bb.thermal_coverage = cov
        -- the views looked again at what exploration left: a doorway a
        -- phantom wall cell had closed may be open now
        if (bb.reexplored or 0) < P.max_reexplore and pick_frontier() then
          bb.reexplored = (bb.reexplored or 0) + 1
          log:info("sweep: a frontier is reachable again; exploring on (%d of at most %d)", bb.reexplored,
            P.max_reexplore)
          return "Exploring"
        end
        return "Clustering"
      end,
    },
    Clustering = {
      goes_to = { "GoalNavigation", "Aborted" },
      run = function()
        if #bb.detections == 0 then
          bb.failure = ("no heat source detected (temperature_threshold %.1f °C)"):format(P.temperature_threshold)
          return "Aborted"
        end
        -- k-means in C, split at walls, merged on the same face (targets.lua)
        local merged = Targets.build(Targets.unconsumed(bb.detections), P, mapping.map)
        -- targets tried on the way keep their places (launches name them
        -- by index); those not engaged are retired, the clusters below
        -- replace them
        local early = {}
        for _, t in ipairs(bb.targets) do
          early[#early + 1] = t
          if not t.engaged then t.retired = true end
        end
        local function is_early(c)
          for _, t in ipairs(early) do
            if not t.retired and Targets.same_source(mapping.map, t, c, P.target_merge_distance) then
              return true
            end
          end
          return false
        end
        bb.targets = {}
        for _, c in ipairs(merged) do
          if is_early(c) then
            log:debug("cluster at (%.2f, %.2f): engaged on the way", c.x, c.y)
          elseif c.count >= P.min_cluster_detections then
            bb.targets[#bb.targets + 1] = { x = c.x, y = c.y, detections = c.count, side = c.side,
                                            ux = c.ux, uy = c.uy }
            log:info("target %d at (%.2f, %.2f) from %d detections, seen from %.0f deg", #bb.targets, c.x, c.y,
              c.count, math.deg(c.side or 0))
          elseif c.count >= P.confirm_min_detections then
            -- little evidence: a source glimpsed once, or noise. Take a
            -- second look from a standoff and keep it if the heat is there.
            local t = { x = c.x, y = c.y, side = c.side, ux = c.ux, uy = c.uy }
            local before = count_near(t)
            local looked = false
            for i, v in ipairs(standoffs(t)) do
              if i > 2 then break end
              if await(nav:go_to(v.x, v.y, v.yaw)) then
                tasks.sleep(P.confirm_dwell)
                looked = true
                break
              end
            end
            local seen = count_near(t) - before
            if looked and seen >= P.confirm_min_detections then
              bb.targets[#bb.targets + 1] = { x = c.x, y = c.y, detections = c.count + seen, side = c.side,
                                              ux = c.ux, uy = c.uy }
              log:info("target %d at (%.2f, %.2f) confirmed by a second look (%d + %d detections)",
                #bb.targets, c.x, c.y, c.count, seen)
            else
              log:info("cluster at (%.2f, %.2f) dropped: %d detections, %d more on a second look",
                c.x, c.y, c.count, seen)
            end
          else
            log:info("cluster at (%.2f, %.2f) dropped: %d detections < confirm_min_detections %d",
              c.x, c.y, c.count, P.confirm_min_detections)
          end
        end
        local n_engaged = 0
        for _, t in ipairs(early) do if t.engaged then n_engaged = n_engaged + 1 end end
        if #bb.targets == 0 and n_engaged == 0 then
          bb.failure = "detections were all noise (no cluster reached min_cluster_detections)"
          return "Aborted"
        end
        -- visit them in a nearest-next tour from here, not by evidence
        do
          local x, y = robot.pose()
          local left, tour = {}, {}
          for i, t in ipairs(bb.targets) do left[i] = t end
          while #left > 0 do
            local bi, bd = 1, math.huge
            for i, t in ipairs(left) do
              local d = dist(x, y, t.x, t.y)
              if d < bd then bi, bd = i, d end
            end
            local t = table.remove(left, bi)
            tour[#tour + 1] = t
            x, y = t.x, t.y
          end
          local all = {}
          for _, t in ipairs(early) do all[#all + 1] = t end
          for _, t in ipairs(tour) do all[#all + 1] = t end
          bb.targets = all
        end
        bb.ti = #early + 1
        return "GoalNavigation"
      end,
    },
    GoalNavigation = {
      goes_to = { "Launching", "AttemptingRamp" },
      run = function()
        while bb.ti <= #bb.targets do
          local t = bb.targets[bb.ti]
          for _, c in ipairs(standoffs(t)) do
            -- not again from where the heat did not show
            local fresh = true
            for _, f in ipairs(t.tried or {}) do
              if dist(f.x, f.y, c.x, c.y) < 0.3 then fresh = false end
            end
            local ok, why = true, nil
            if fresh then ok, why = await(nav:go_to(c.x, c.y, c.yaw)) end
            if fresh and ok then return "Launching" end
            if not fresh then why = "tried before" end
            log:info("goal: standoff (%.2f, %.2f) for target %d failed: %s", c.x, c.y, bb.ti, tostring(why))
          end
          log:warn("goal: target %d unreachable, skipping", bb.ti)
          t.failed = true
          bb.ti = bb.ti + 1
        end
        return "AttemptingRamp"
      end,
    },
    Launching = {
      goes_to = { "GoalNavigation" },
      run = function()
        local t = bb.targets[bb.ti]
        local result = engage(t, bb.ti)
        if result == "unseen" then
          local fx, fy = robot.pose()
          t.tried = t.tried or {}
          t.tried[#t.tried + 1] = { x = fx, y = fy }
          if #t.tried < P.confirm_views then
            -- a second look from another standoff before giving it up
            log:info("target %d at (%.2f, %.2f): no heat seen from (%.2f, %.2f), trying another standoff",
              bb.ti, t.x, t.y, fx, fy)
            return "GoalNavigation"
          end
          log:warn("target %d at (%.2f, %.2f): no heat seen when facing it for %.1f s from %d standoffs, not firing",
            bb.ti, t.x, t.y, P.confirm_time, #t.tried)
          t.unconfirmed = true
        end
        bb.ti = bb.ti + 1
        return "GoalNavigation"
      end,
    },
    ImuInterrupt = {
      enter = function()
        nav:cancel()
        robot.stop()
        bb.ramp_events = bb.ramp_events + 1
        local x, y, yaw = robot.pose()
        -- where the robot was a moment before the slope: the safe pose
        local safe = bb.pose_history[1]
        for i = #bb.pose_history, 1, -1 do
          local h = bb.pose_history[i]
          if now() - h.t >= P.safe_pose_age then safe = h break end
        end
        local h = P.ramp_block_size
        -- the way the robot was going (it may have been turning on the spot
        -- when the alarm came): the last half second's displacement
        for i = #bb.pose_history, 1, -1 do
          local hp = bb.pose_history[i]
          if now() - hp.t >= 0.5 then
            if dist(x, y, hp.x, hp.y) > 0.05 then yaw = math.atan(y - hp.y, x - hp.x) end
            break
          end
        end
        -- the sealed square grows by the robot's band: its centre goes far
        -- enough ahead that the robot itself stays outside it
        local band = mapping:band()
        local ahead = h + band + 0.05
        local rx, ry = x + ahead * math.cos(yaw), y + ahead * math.sin(yaw)
        -- known from now on: passable at a price (the planner goes round
        -- when it can, over it when it is the only way into part of the
        -- maze), and no alarm when the robot drives onto it again
        mapping:add_keepout(rx, ry, h, "ramp", P.ramp_cost)
        mapping:refresh()
        if not bb.ramp then
          -- The way up, from the IMU: on a slope rising towards theta, a
          -- robot heading psi feels pitch = a cos(theta - psi) and roll =
          -- a sin(theta - psi), so theta = psi + atan2(roll, pitch) (a robot
          -- that met the ramp from its side feels roll, not pitch). The
          -- ramp's middle is about half a ramp ahead of where it was met.
          local _, _, heading = robot.pose()
          local up = heading + math.atan(bb.alarm_roll or 0, bb.alarm_pitch)
          local cx, cy = x + h * math.cos(yaw), y + h * math.sin(yaw)
          local d = h + P.ramp_approach_distance
          local approach = { x = cx - d * math.cos(up), y = cy - d * math.sin(up), yaw = up }
          -- from the top, going down, when the foot cannot be reached
          local back = { x = cx + d * math.cos(up), y = cy + d * math.sin(up), yaw = up + math.pi }
          bb.ramp = { x = cx, y = cy, yaw = up, approach = approach, back = back }
          log:info("imu: the ramp rises towards %.0f deg (pitch %.1f, roll %.1f deg)", math.deg(up),
            math.deg(bb.alarm_pitch), math.deg(bb.alarm_roll or 0))
        end
        log:warn("imu: ramp ahead at (%.2f, %.2f): marked blocked, backing off to (%.2f, %.2f)",
          rx, ry, safe.x, safe.y)
        bb.backoff = safe
        -- the sealed square (grown by the robot's band) must end up ahead
        -- of the robot, or every plan would start inside it: back off at
        -- least far enough to clear it, however slowly the robot came
        bb.backoff_min = 0.15
      end,
      run = function()
        local x, y, yaw = robot.pose()
        local d = math.max(dist(x, y, bb.backoff.x, bb.backoff.y), bb.backoff_min or 0)
        await(nav:straight(-0.1, yaw, function(s) return s >= d end, 20))
        tasks.sleep(0.5)
        pitch:reset()
        bb.pitch_alarm = false
        return fsm.RESUME
      end,
    },
    AttemptingRamp = {
      goes_to = { "Done" },
      run = function()
        if P.attempt_ramp and not bb.ramp then search_ramp() end
        if not P.attempt_ramp or not bb.ramp then return "Done" end
        local r = bb.ramp
        local approach, climb_yaw = r.approach, r.yaw
        local ok, why = await(nav:go_to(approach.x, approach.y, climb_yaw))
        if not ok and r.back then
          log:info("ramp: approach (%.2f, %.2f) not reached (%s); from where the ramp was met instead",
            approach.x, approach.y, tostring(why))
          approach, climb_yaw = r.back, r.back.yaw
          ok, why = await(nav:go_to(approach.x, approach.y, climb_yaw))
        end
        if not ok then
          log:warn("ramp: cannot reach the ramp approach: %s", tostring(why))
          return "Done"
        end
        mapping:remove_keepouts("ramp")
        mapping:refresh()
        bb.climbing = true
        local pitch_before = bb.max_pitch
        bb.max_pitch = 0
        local collisions = robot.sim and robot.sim.collisions or 0
        -- onto the ramp along a planned path (it keeps to the middle of the
        -- passage), to just past its far edge ...
        local h = P.ramp_block_size
        local over = { x = r.x + (h + 0.1) * math.cos(climb_yaw), y = r.y + (h + 0.1) * math.sin(climb_yaw) }
        log:info("ramp: climbing from (%.2f, %.2f) over (%.2f, %.2f)", approach.x, approach.y, over.x, over.y)
        ok, why = await(nav:go_to(over.x, over.y, climb_yaw))
        local keep_lane
        if not ok then
          -- A ramp fills a passage, and a map drawn from a real robot's
          -- scans narrows it by a cell or two: the planner's padded band
          -- may find no way through a gap the robot fits. Then do what a
          -- driver would: back to the foot, face up the ramp, and drive up
          -- it straight, kept mid-passage by the walls on either side.
          log:warn("ramp: no planned way over the ramp (%s); up it straight from the foot, keeping to the middle",
            tostring(why))
          local at_foot, why_foot = await(nav:go_to(approach.x, approach.y, climb_yaw))
          if at_foot then at_foot, why_foot = await(nav:face(climb_yaw)) end
          if at_foot then
            ok, keep_lane = true, nav.lane_keeper(function() return bb.left_range, bb.right_range end,
                                                   P.lane_max_width, P.lane_gain)
          else
            log:warn("ramp: could not get back to the foot of the ramp: %s", tostring(why_foot))
          end
        end
        -- ... then on, holding the heading, until the wall at the top
        if ok then
          local _, _, yaw = robot.pose()
          local function wall_ahead() return bb.front_range end
          if keep_lane then
            -- in a passage barely wider than the robot, the padded lane
            -- ahead takes in the passage's own corners: the wall that
            -- stops the climb is the one in the bare robot's way
            yaw = climb_yaw
            wall_ahead = function() return (nav.lane_ranges(bb.scan, P.robot_radius)) end
          end
          await(nav:straight(P.ramp_speed, yaw, function(s)
            return s > P.ramp_max_climb or wall_ahead() < P.ramp_stop_distance
          end, 60, keep_lane))
        end
        robot.stop()
        local felt = bb.max_pitch
        bb.max_pitch = math.max(pitch_before, felt)
        bb.climbed = felt > P.pitch_threshold * 0.8 and (not robot.sim or robot.sim.collisions == collisions)
        log:info("ramp: stopped %.2f m from the wall, max pitch %.1f deg, climbed: %s",
          bb.front_range, math.deg(felt), tostring(bb.climbed))
        -- the final ball from the top; none from wherever a failed climb
        -- left the robot (it would fly at nothing in particular)
        if bb.climbed then fire(1, "ramp") end
        bb.climbing = false
        return "Done"
      end,
    },
    Done = { terminal = true, enter = function() robot.safe_stop() bb.completed = true end },
    Aborted = { terminal = true, enter = function() robot.safe_stop() end },
    safe_stop = { terminal = true, enter = function()
      robot.safe_stop()
      bb.failure = bb.failure or "behaviour error (see log); robot in safe stop"
    end },
  }

  return fsm.define {
    name = "heat_seek", initial = "Initialising", fallback = "safe_stop",
    states = states,
    interrupts = { { name = "ramp", state = "ImuInterrupt", resume = true,
                     guard = function(b) return b.pitch_alarm end } },
  }
end
