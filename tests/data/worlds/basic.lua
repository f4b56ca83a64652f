-- A 4 x 3 m room (basic.txt, 0.1 m per character) split at x = 2.0 m by a
-- wall from the floor up to y = 1.5 m; two heat sources and one ramp.
return {
  name = "basic",
  map = "basic.yaml",
  start = {x = 0.5, y = 0.5, yaw = 0},
  heat_sources = {
    {x = 2.9, y = 0.5, temp = 45},          -- behind the wall from the start
    {x = 0.5, y = 2.5, temp = 60},
  },
  ramps = {
    {x0 = 2.5, y0 = 2.0, x1 = 3.5, y1 = 2.8, pitch = math.rad(12)},
  },
  ambient = 22,
  seed = 7,
}
