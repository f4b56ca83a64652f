--- The terrain mission's tunables: a world file's `params` table sets them
-- for that world, `--set name=value` on the command line overrides it, and
-- the console (`--repl`, or `tycho attach`) tunes them live (`:set
-- clearance_weight=5`): traversability is recomputed from them at every
-- sweep and the planner reads them at every plan.
local params = require "params"

return params.declare("terrain_nav", {
  { name = "step_coef", type = "number", default = 1.0, min = 0, max = 10,
    doc = "a cell holding a step over resolution x this is untraversable" },
  { name = "slope_coef", type = "number", default = 0.35, min = 0, max = 5,
    doc = "steepest climbable gradient between neighbouring cells (0.35 is about 19 degrees)" },
  { name = "barrier", type = "number", default = 0.3, min = 0, max = 2, unit = "m",
    doc = "the robot's half-size: cells this close to an untraversable one are blocked" },
  { name = "margin", type = "number", default = 0.4, min = 0, max = 3, unit = "m",
    doc = "beyond the barrier, cells get a clearance penalty over this distance" },
  { name = "clearance_weight", type = "number", default = 3, min = 0, max = 100,
    doc = "planner: step cost times 1 + this x the clearance penalty" },
  { name = "slope_weight", type = "number", default = 2, min = 0, max = 100,
    doc = "planner: cost of the gradient" },
  { name = "roughness_weight", type = "number", default = 1, min = 0, max = 100,
    doc = "planner: cost of the height range inside a cell, per metre of cell" },
  { name = "unknown_cost", type = "number", default = 1.5, min = 1, max = 100,
    doc = "planner: never-seen cells cost this many times a known flat one" },
  { name = "refresh", type = "boolean", default = true,
    doc = "each sweep's look at a cell replaces what the map had there (forgets obstacles that moved on)" },
})
