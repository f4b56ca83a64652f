-- Rough ground, 30 m x 20 m: random road roughness (ISO 8608 class D,
-- seeded), a mound and a pit across the straight line from start to goal,
-- a patch of gravel and low prisms to cross, a stair the robot cannot
-- climb, and a boulder dropped in its way while it drives.
--
-- Fields (all lengths in metres):
--   size = {width, height}, resolution (cell size, 0.1)
--   ground = {roughness = "A".."H" | gd_n0 =, w = 2, bands = 64, blur = sigma, seed}
--   obstacles = { {type = "box" | "stairs" | "prisms" | "bump" | "bell" | "gravel", ...} } (see behaviors/terrain/world.lua)
--   events = { obstacle + after = seconds | near = {x, y, r} }: put down while the robot drives
--   robot = {kind = "diff" | "mecanum", speed, half_length, half_width, wheel_radius, max_wheel, max_step, ...}
--   lidar = {lines = 16 | 32 | 64, columns, range_max, rate (Hz), mount = {x, y, z, roll, pitch, yaw}}
--   start = {x, y, yaw}, goal = {x, y}
--   params = {step_coef, slope_coef, barrier, margin, slope_weight, unknown_cost, clearance_weight, roughness_weight}
--   timeout = seconds
return {
  name = "terrain_rough",
  size = { width = 30, height = 20 },
  resolution = 0.1,
  ground = { roughness = "D", seed = 7, blur = 0.1 },
  obstacles = {
    { type = "bell", x = 10, y = 10, r = 2.5, height = 1.2 },   -- a mound, too steep to climb
    { type = "bell", x = 19, y = 9.5, r = 2.2, height = -1.0 }, -- a pit
    { type = "gravel", x0 = 13, y0 = 3, x1 = 16, y1 = 7, count = 120, size = 0.2, height = 0.04, seed = 3 },
    { type = "prisms", x0 = 22, y0 = 12, x1 = 25, y1 = 16, period = 0.6, height = 0.05 },
    { type = "stairs", x0 = 14, y0 = 13, y1 = 17, steps = 4, step_len = 0.4, step_h = 0.2 },
  },
  events = {
    { type = "bell", x = 24.5, y = 8, r = 1.2, height = 0.9, near = { x = 17, y = 10, r = 4 },
      note = "a boulder dropped on the way" },
  },
  robot = { kind = "diff", speed = 0.4 },
  lidar = { lines = 16, columns = 900, range_max = 15, rate = 5, mount = { z = 0.45 } },
  start = { x = 2, y = 10, yaw = 0 },
  goal = { x = 28, y = 10 },
  params = { step_coef = 1.0, slope_coef = 0.35, barrier = 0.35 },
  timeout = 400,
}
