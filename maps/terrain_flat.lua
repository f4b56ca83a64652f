-- A flat floor, 20 m x 12 m, where obstacles are put down while the robot
-- drives: a wall across its straight line as it sets off, then a second
-- one further on while it goes round the first; and a cart that crosses
-- the whole floor ahead of it and leaves. The robot only learns of each
-- from its 3D LiDAR: it re-plans round the walls, and forgets the cart's
-- trail once it sees the floor there again (each sweep's look at a cell
-- replaces the last).
return {
  name = "terrain_flat",
  size = { width = 20, height = 12 },
  resolution = 0.1,
  obstacles = {
    { type = "box", x0 = 6, y0 = 0, x1 = 6.4, y1 = 3, top = 0.4 },    -- a low wall off to the side
  },
  events = {
    { type = "box", x0 = 8, y0 = 3.5, x1 = 8.4, y1 = 8.5, top = 0.6, near = { x = 3.5, y = 6, r = 0.6 },
      note = "a wall across the straight line" },
    { type = "box", x0 = 13.5, y0 = 2.5, x1 = 13.9, y1 = 12, top = 0.6, after = 15,
      note = "a wall closing the north side further on" },
    { type = "box", x0 = 16.2, y0 = 11.3, x1 = 16.8, y1 = 11.9, top = 0.5, after = 4,
      velocity = { x = 0, y = -0.3 }, duration = 36, note = "a cart crossing the floor" },
  },
  robot = { kind = "diff", speed = 0.4 },
  lidar = { lines = 16, columns = 900, range_max = 15, rate = 5, mount = { z = 0.45 } },
  start = { x = 1.5, y = 6, yaw = 0 },
  goal = { x = 18.5, y = 6 },
  params = { step_coef = 1.0, slope_coef = 0.35, barrier = 0.35 },
  timeout = 300,
}
