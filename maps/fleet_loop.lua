-- A fleet in our own format (behaviors/fleet.lua --fleet): two 1 m aisles
-- joined at both ends and by two cross passages, and six robots that must
-- trade places across them. Coordinates in metres on maps/fleet_loop.yaml
-- (aisles at y = 1 and y = 3, cross passages at x = 1, 3, 7, 9).
return {
  map = "fleet_loop.yaml",
  robots = {
    { name = "a", start = { x = 2, y = 3, yaw = 0 }, goal = { x = 8, y = 1 } },
    { name = "b", start = { x = 8, y = 1, yaw = math.pi }, goal = { x = 2, y = 3 } },
    { name = "c", start = { x = 2, y = 1, yaw = 0 }, goal = { x = 8, y = 3 } },
    { name = "d", start = { x = 8, y = 3, yaw = math.pi }, goal = { x = 2, y = 1 } },
    { name = "e", start = { x = 5, y = 3, yaw = 0 }, goal = { x = 5, y = 1 } },
    { name = "f", start = { x = 5, y = 1, yaw = 0 }, goal = { x = 5, y = 3 } },
  },
}
