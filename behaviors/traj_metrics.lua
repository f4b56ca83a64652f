--- Trajectory accuracy, the way SLAM is judged: absolute trajectory error
-- after the rigid alignment that fits best (Umeyama 1991 without scale;
-- in 2D Horn's closed form), and relative pose error over pairs of poses
-- `delta` apart (Kümmerle et al. 2009, "On measuring the accuracy of SLAM
-- algorithms": the error of each measured motion, blind to where an early
-- error put the rest). Poses are {x =, y =, yaw =}; `est` and `ref` are
-- arrays of the same length.
local M = {}

local function wrap(a) return math.atan(math.sin(a), math.cos(a)) end

--- between(a, c) -> b with a (+) b = c
function M.between(a, c)
  local dx, dy = c.x - a.x, c.y - a.y
  local ca, sa = math.cos(a.yaw), math.sin(a.yaw)
  return { x = ca * dx + sa * dy, y = -sa * dx + ca * dy, yaw = wrap(c.yaw - a.yaw) }
end

--- compose(a, b) -> a (+) b
function M.compose(a, b)
  local ca, sa = math.cos(a.yaw), math.sin(a.yaw)
  return { x = a.x + ca * b.x - sa * b.y, y = a.y + sa * b.x + ca * b.y, yaw = wrap(a.yaw + b.yaw) }
end

--- align(est, ref) -> f(p) -> x, y: the rotation and translation taking est
-- onto ref with the least squared error over every pose.
function M.align(est, ref)
  local n, ax, ay, bx, by = #est, 0, 0, 0, 0
  for i = 1, n do
    ax, ay, bx, by = ax + est[i].x / n, ay + est[i].y / n, bx + ref[i].x / n, by + ref[i].y / n
  end
  local sc, ss = 0, 0
  for i = 1, n do
    local px, py, qx, qy = est[i].x - ax, est[i].y - ay, ref[i].x - bx, ref[i].y - by
    sc, ss = sc + px * qx + py * qy, ss + px * qy - py * qx
  end
  local th = math.atan(ss, sc)
  local c, s = math.cos(th), math.sin(th)
  return function(p)
    local dx, dy = p.x - ax, p.y - ay
    return bx + c * dx - s * dy, by + s * dx + c * dy
  end
end

--- ate(est, ref) -> rmse_m, max_m (best-fit rigid alignment)
function M.ate(est, ref)
  local to_ref, sum, worst = M.align(est, ref), 0, 0
  for i = 1, #est do
    local x, y = to_ref(est[i])
    local d2 = (x - ref[i].x) ^ 2 + (y - ref[i].y) ^ 2
    sum, worst = sum + d2, math.max(worst, math.sqrt(d2))
  end
  return math.sqrt(sum / #est), worst
end

--- rpe(est, ref, delta) -> {trans_m = mean, rot_deg = mean, trans_max_m =, rot_max_deg =, pairs =}
function M.rpe(est, ref, delta)
  local st, sr, mt, mr, n = 0, 0, 0, 0, 0
  for i = 1, #est - delta do
    local e = M.between(M.between(ref[i], ref[i + delta]), M.between(est[i], est[i + delta]))
    local t, r = math.sqrt(e.x * e.x + e.y * e.y), math.abs(math.deg(e.yaw))
    st, sr, mt, mr, n = st + t, sr + r, math.max(mt, t), math.max(mr, r), n + 1
  end
  if n == 0 then return { trans_m = 0, rot_deg = 0, trans_max_m = 0, rot_max_deg = 0, pairs = 0 } end
  return { trans_m = st / n, rot_deg = sr / n, trans_max_m = mt, rot_max_deg = mr, pairs = n }
end

--- A portable seeded generator (Park and Miller's minimal standard: exact in
-- doubles, so Lua 5.4 and LuaJIT draw the same numbers).
function M.rng(seed)
  local x = (math.floor(seed) % 2147483646) + 1
  return function()
    x = (x * 16807) % 2147483647
    return x / 2147483647
  end
end

--- drift_model(seed) -> {trans_scale =, turn_scale =, yaw_per_m =}: the
-- systematic errors of real wheels: a wheel scale off by 2-4 %, turns off
-- by 2-5 %, 0.5-1.5 deg of yaw drift per metre, each sign drawn too.
function M.drift_model(seed)
  local r = M.rng(seed)
  local function signed(lo, hi)
    local v = lo + (hi - lo) * r()
    return r() < 0.5 and -v or v
  end
  return { trans_scale = 1 + signed(0.02, 0.04), turn_scale = 1 + signed(0.02, 0.05),
           yaw_per_m = math.rad(signed(0.5, 1.5)) }
end

--- drift(poses, model) -> poses with each step's translation scaled, its
-- turn scaled, and yaw drift added in proportion to the distance.
function M.drift(poses, model)
  local out = { { x = poses[1].x, y = poses[1].y, yaw = poses[1].yaw } }
  for i = 2, #poses do
    local d = M.between(poses[i - 1], poses[i])
    local dist = math.sqrt(d.x * d.x + d.y * d.y)
    out[i] = M.compose(out[i - 1], { x = d.x * model.trans_scale, y = d.y * model.trans_scale,
      yaw = d.yaw * model.turn_scale + model.yaw_per_m * dist })
  end
  return out
end

return M
