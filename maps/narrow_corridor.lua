-- A hall with a partition and a pillar, and a narrow (0.5 m) L-shaped
-- corridor leaving it southwards, then running west to a dead end. The
-- third heat source sits at that dead end: no camera sees it from the hall,
-- only from inside the corridor past its bend. No ramp (the IMU must stay
-- quiet on flat ground).
return {
  name = "narrow_corridor",
  map = "narrow_corridor.yaml",
  start = { x = 0.6, y = 2.0, yaw = 0 },
  heat_sources = {
    { x = 2.5, y = 3.8, temp = 50 },   -- hall, on the north wall
    { x = 5.8, y = 2.8, temp = 45 },   -- hall, on the east wall
    { x = 1.1, y = 0.35, temp = 50 },  -- dead end of the narrow corridor
  },
  ramps = {},
  ambient = 22,
  seed = 1,
}
