-- The small reference maze: 5 m x 4 m, three heat sources on walls, and a
-- ramp in the narrow passage of the middle corridor (ascending eastwards,
-- towards the east wall), on the way between the west and east halves. The
-- top and bottom corridors are the ways round once it is blocked.
return {
  name = "maze_small",
  map = "maze_small.yaml",
  start = { x = 0.4, y = 0.4, yaw = 0 },
  heat_sources = {
    { x = 0.9, y = 3.8, temp = 50 }, -- top-left room, on the north wall
    { x = 4.8, y = 1.6, temp = 45 }, -- east corridor, on the east wall
    { x = 1.3, y = 2.2, temp = 60 }, -- west room, on the divider
  },
  ramps = {
    { x0 = 2.4, y0 = 2.1, x1 = 2.9, y1 = 2.5, pitch = 0.2, dir = 0 },
  },
  ambient = 22,
  seed = 1,
}
