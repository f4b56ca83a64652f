--- Targets from thermal detections: k-means (C) into clusters, clusters on
-- the same face of a wall merged, clusters that straddle a wall split.
--
-- A detection is a point on a wall face plus where the robot stood when it
-- saw it (rx, ry). Two sources on the two faces of one thin wall are 5-30
-- cm apart, closer than any sensible merge distance, so position alone
-- cannot tell them apart; the side they were seen from can. Within each
-- cluster the detections are split in two by viewing direction (the unit
-- vector from the point back to the robot), and the split is kept when the
-- map has a wall between the two groups (each group's mean point moved
-- 15 cm towards its own viewers): one source seen from two sides of a room
-- has no wall between its groups, a source pair on a thin wall does.
local tycho = require "tycho"

local M = {}

local function dist(ax, ay, bx, by) return math.sqrt((ax - bx) ^ 2 + (ay - by) ^ 2) end

-- Mean point and mean viewing direction of a list of detections.
local function summarise(dets)
  local x, y, ux, uy = 0, 0, 0, 0
  for _, d in ipairs(dets) do
    x, y = x + d.x, y + d.y
    local vx, vy = d.rx - d.x, d.ry - d.y
    local n = math.sqrt(vx * vx + vy * vy)
    if n > 1e-6 then ux, uy = ux + vx / n, uy + vy / n end
  end
  local n = #dets
  local un = math.sqrt(ux * ux + uy * uy)
  return { x = x / n, y = y / n, count = n, dets = dets,
           side = un > 1e-6 and math.atan(uy, ux) or nil, ux = un > 1e-6 and ux / un or 0,
           uy = un > 1e-6 and uy / un or 0 }
end

-- Whether a wall in `map` lies between the faces groups a and b were seen on.
local function wall_between(map, a, b)
  local ax, ay = a.x + 0.15 * a.ux, a.y + 0.15 * a.uy
  local bx, by = b.x + 0.15 * b.ux, b.y + 0.15 * b.uy
  local d = dist(ax, ay, bx, by)
  if d < 1e-6 then return false end
  return map:raycast(ax, ay, math.atan(by - ay, bx - ax), d) < d
end

-- Splits a cluster's detections by viewing direction when a wall divides
-- them; returns one or two groups.
local function split_by_side(dets, map, min_group)
  if #dets < 2 then return { summarise(dets) } end
  -- the two most opposed viewing directions seed a 2-means on directions:
  -- the one least aligned with the first detection's, then the one least
  -- aligned with that (the mean direction is no seed: seen from both faces
  -- of a wall it is about zero and points anywhere)
  local all = summarise(dets)
  local ga, gb
  local function unit(d)
    local vx, vy = d.rx - d.x, d.ry - d.y
    local n = math.sqrt(vx * vx + vy * vy)
    if n > 1e-6 then return vx / n, vy / n end
  end
  local function least_aligned(ux, uy)
    local worst, wx, wy = math.huge, nil, nil
    for _, d in ipairs(dets) do
      local vx, vy = unit(d)
      if vx then
        local c = vx * ux + vy * uy
        if c < worst then worst, wx, wy = c, vx, vy end
      end
    end
    return worst, wx, wy
  end
  local fx, fy
  for _, d in ipairs(dets) do
    fx, fy = unit(d)
    if fx then break end
  end
  if not fx then return { all } end
  local _, wx, wy = least_aligned(fx, fy)
  local worst, bx0, by0 = least_aligned(wx, wy)
  if worst > 0.2 then return { all } end -- everything seen from one side
  local sbx, sby = bx0, by0
  for _ = 1, 4 do
    ga, gb = {}, {}
    local ax, ay = wx, wy
    local bx, by = sbx, sby
    for _, d in ipairs(dets) do
      local vx, vy = d.rx - d.x, d.ry - d.y
      if vx * ax + vy * ay > vx * bx + vy * by then ga[#ga + 1] = d else gb[#gb + 1] = d end
    end
    if #ga == 0 or #gb == 0 then return { all } end
    local A, B = summarise(ga), summarise(gb)
    wx, wy, sbx, sby = A.ux, A.uy, B.ux, B.uy
    if _ == 4 or (A.ux * B.ux + A.uy * B.uy) < -0.2 then
      if #ga >= min_group and #gb >= min_group and wall_between(map, A, B) then return { A, B } end
      return { all }
    end
  end
  return { all }
end

--- M.build(detections, P, map) -> clusters {x, y, count, side, dets},
-- biggest first. P: cluster_k, cluster_k_max, cluster_radius,
-- target_merge_distance, confirm_min_detections.
function M.build(detections, P, map)
  if #detections == 0 then return {} end
  local kspec = P.cluster_k > 0 and P.cluster_k or { k_max = P.cluster_k_max, radius = P.cluster_radius }
  local cents = tycho.kmeans(detections, kspec, { seed = 1 })
  -- detections to their nearest centroid
  local groups = {}
  for i = 1, #cents do groups[i] = {} end
  for _, d in ipairs(detections) do
    local best, bi = math.huge, nil
    for i, c in ipairs(cents) do
      local dd = (c.x - d.x) ^ 2 + (c.y - d.y) ^ 2
      if dd < best then best, bi = dd, i end
    end
    local g = groups[bi]
    g[#g + 1] = d
  end
  -- split each by side of a wall, then merge what is close and on the
  -- same side (a source on a wall smears its detections along the wall)
  local parts = {}
  for _, g in ipairs(groups) do
    if #g > 0 then
      for _, p in ipairs(split_by_side(g, map, P.confirm_min_detections)) do parts[#parts + 1] = p end
    end
  end
  table.sort(parts, function(a, b) return a.count > b.count end)
  local merged = {}
  for _, p in ipairs(parts) do
    local into
    for _, m in ipairs(merged) do
      if dist(m.x, m.y, p.x, p.y) < P.target_merge_distance and not wall_between(map, m, p) then
        into = m
        break
      end
    end
    if into then
      for _, d in ipairs(p.dets) do into.dets[#into.dets + 1] = d end
      local s = summarise(into.dets)
      into.x, into.y, into.count, into.side, into.ux, into.uy = s.x, s.y, s.count, s.side, s.ux, s.uy
    else
      merged[#merged + 1] = p
    end
  end
  table.sort(merged, function(a, b) return a.count > b.count end)
  return merged
end

--- Detections about a target: near it and seen from its side (when known).
function M.count_near(detections, t, radius, since)
  local n = 0
  for i = #detections, 1, -1 do
    local d = detections[i]
    if since and d.t < since then break end
    if dist(d.x, d.y, t.x, t.y) < radius then
      if not t.ux or t.ux == 0 and t.uy == 0 then n = n + 1
      else
        local vx, vy = d.rx - d.x, d.ry - d.y
        if vx * t.ux + vy * t.uy > 0 then n = n + 1 end
      end
    end
  end
  return n
end

--- The fused point lies behind the wall face the camera saw: fusion takes
-- the mean range and mean bearing of the beams in the hot columns, and on
-- a face seen at an angle that point is a few centimetres to 0.15 m inside
-- the wall. On a thin wall with a source on each face the two sides'
-- points then meet in the middle. The first map cell on the line from the
-- LiDAR (`from`) to the point is the face actually seen: on_face returns
-- that, when it is at most `snap` metres nearer than the point (else the
-- point as it was: the face is not in the map yet, or something stands in
-- front of it).
function M.on_face(map, from, x, y, snap)
  local d = dist(from.x, from.y, x, y)
  if d < 1e-3 or snap <= 0 then return x, y end
  local a = math.atan(y - from.y, x - from.x)
  local hit = map:raycast(from.x, from.y, a, d + 0.05)
  if hit < math.huge and hit > d - snap then
    return from.x + hit * math.cos(a), from.y + hit * math.sin(a)
  end
  return x, y
end

--- Whether clusters (or targets) a and b are the same source: within
-- `merge` metres and no wall between the faces they were seen on. The same
-- spot (within M.SAME_SPOT) seen from the same side is the same source
-- whatever that test says: a cluster centred on a thin wall puts both
-- test points in the wall's cells, where the ray between them is blocked
-- at once (gen_90050: one cluster engaged seven times, until the launcher
-- was empty). A pair of sources on the two faces of a thin wall is still
-- two: they are seen from opposite sides.
M.SAME_SPOT = 0.15
function M.same_source(map, a, b, merge)
  local d = dist(a.x, a.y, b.x, b.y)
  if d >= merge then return false end
  if d < M.SAME_SPOT and (a.ux or 0) * (b.ux or 0) + (a.uy or 0) * (b.uy or 0) > 0 then return true end
  return not wall_between(map, a, b)
end

--- The wall's normal near (x, y): the axis across the principal direction
-- of the occupied cells within 0.2 m (a wall face, thin or thick, is a
-- line of cells). nil when there are too few, or they form no line.
function M.wall_normal(map, x, y)
  local cx, cy, inside = map:world_to_cell(x, y)
  if not inside then return nil end
  local r = math.max(1, math.floor(0.2 / map.resolution + 0.5))
  local n, sx, sy, pts = 0, 0, 0, {}
  for dy = -r, r do
    for dx = -r, r do
      if dx * dx + dy * dy <= r * r then
        local c = map:get(cx + dx, cy + dy)
        if c ~= nil and c >= tycho.grid.INSCRIBED and c ~= tycho.grid.UNKNOWN then
          n, sx, sy = n + 1, sx + dx, sy + dy
          pts[#pts + 1] = dx
          pts[#pts + 1] = dy
        end
      end
    end
  end
  if n < 3 then return nil end
  local mx, my = sx / n, sy / n
  local sxx, syy, sxy = 0, 0, 0
  for i = 1, #pts, 2 do
    local ex, ey = pts[i] - mx, pts[i + 1] - my
    sxx, syy, sxy = sxx + ex * ex, syy + ey * ey, sxy + ex * ey
  end
  -- a line: one eigenvalue well above the other
  local tr, det = sxx + syy, sxx * syy - sxy * sxy
  local disc = math.sqrt(math.max(0, tr * tr / 4 - det))
  local l1, l2 = tr / 2 + disc, tr / 2 - disc
  if l1 < 2 * math.max(l2, 1e-9) then return nil end
  local th = 0.5 * math.atan(2 * sxy, sxx - syy)
  return -math.sin(th), math.cos(th)
end

--- Marks the detections that were of the source just fired at from
-- (fx, fy): near the target (or the point aimed at), seen from the same
-- side of the wall there as the launch pose (the sign across the wall's
-- normal, `wall_normal`), and from where the robot could see the launch
-- pose. Robot poses are in free space, so this holds where a test on the
-- fused points cannot: the two faces of a thin wall seen at a grazing
-- angle, their detections smeared along it. Returns how many.
function M.consume(map, detections, points, radius, fx, fy)
  local p = points[#points]
  local nx, ny = M.wall_normal(map, p.x, p.y)
  local fire_side = nx and (fx - p.x) * nx + (fy - p.y) * ny
  local n = 0
  for _, d in ipairs(detections) do
    if not d.consumed then
      local near = false
      for _, q in ipairs(points) do
        if dist(d.x, d.y, q.x, q.y) < radius then near = true break end
      end
      if near and fire_side then
        near = ((d.rx - p.x) * nx + (d.ry - p.y) * ny) * fire_side > 0
      end
      if near then
        local r = dist(d.rx, d.ry, fx, fy)
        if r < 1e-6 or map:raycast(fx, fy, math.atan(d.ry - fy, d.rx - fx), r) >= r then
          d.consumed = true
          n = n + 1
        end
      end
    end
  end
  return n
end

--- The detections not yet consumed by a launch.
function M.unconsumed(detections)
  local out = {}
  for _, d in ipairs(detections) do
    if not d.consumed then out[#out + 1] = d end
  end
  return out
end

M.wall_between = wall_between
M.summarise = summarise

return M
