-- The larger maze: 9 m x 7 m, six rooms with doorways, dead-end pockets
-- (an alcove in the north-west room, two pockets split by a stub wall, a
-- U-shaped pocket, a narrow dead-end corridor in the south-east room),
-- five heat sources, and a ramp in the doorway between the two west rooms
-- (ascending northwards). The robot starts in the south-west room facing
-- that doorway; once the ramp is blocked, the way north is the long way
-- round through the middle rooms.
return {
  name = "maze_large",
  map = "maze_large.yaml",
  start = { x = 1.5, y = 1.5, yaw = math.pi / 2 },
  heat_sources = {
    { x = 2.5, y = 6.8, temp = 50 },  -- north-west alcove, on the north wall
    { x = 5.9, y = 5.75, temp = 45 }, -- north-middle east pocket, on its east wall
    { x = 8.8, y = 5.95, temp = 55 }, -- north-east room, on the east wall
    { x = 5.1, y = 1.75, temp = 60 }, -- south-middle U pocket, on its east wall
    { x = 6.8, y = 1.55, temp = 48 }, -- end of the narrow south-east corridor
  },
  ramps = {
    { x0 = 0.5, y0 = 3.1, x1 = 1.3, y1 = 3.8, pitch = 0.2, dir = math.pi / 2 },
  },
  ambient = 22,
  seed = 1,
}
