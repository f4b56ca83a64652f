--- The main job until the heat-seeking mission lands: load a map, inflate it
-- for the robot, plan a cost-aware path, shorten it, and draw it.
--   tycho run behaviors/plan_demo.lua [--map M.yaml] [--from x,y] [--to x,y] [--out DIR]
local tycho = require "tycho"

local cli = require "cli"

local spec = cli.spec { prog = "plan_demo", summary = "load a map, inflate it, plan a cost-aware path, shorten it, draw it",
  options = {
    { name = "map", type = "string", default = "maps/maze_small.yaml", metavar = "PATH", doc = "map_server YAML" },
    { name = "from", type = "pair", default = { 0.5, 0.5 }, metavar = "X,Y", doc = "start in metres" },
    { name = "to", type = "pair", default = { 4.5, 3.5 }, metavar = "X,Y", doc = "goal in metres" },
    { name = "radius", type = "number", default = 0.105, min = 0.001, metavar = "R",
      doc = "robot inscribed radius in metres (TurtleBot3 Burger)" },
    { name = "out", type = "string", default = "out/plan_demo", metavar = "DIR", doc = "output folder" },
  } }
local opts, usage_err = spec:parse(arg)
if not opts then return cli.usage_error(spec, usage_err) end
if opts.help then io.write(spec:usage()) return 0 end
local sx, sy = opts.from[1], opts.from[2]
local gx, gy = opts.to[1], opts.to[2]
local radius = opts.radius

local t0 = os.clock()
local map, meta = cli.load("plan_demo", tycho.map.load, opts.map) -- a bad map file: exit 2
if not map then return meta end
print(("map      %s: %s"):format(opts.map, tostring(map)))
local costmap = map:inflate { inscribed_radius = radius, inflation_radius = 0.5,
                              cost_scaling_factor = 3.0 }
local path, why = costmap:plan_world(sx, sy, gx, gy, { algorithm = "costaware", weight = 3.0 })
if not path then
  io.stderr:write(("plan_demo: no path from (%.2f, %.2f) to (%.2f, %.2f): %s\n"):format(
    sx, sy, gx, gy, why))
  return 1
end
local raw_cells = #path
path:shorten(costmap)
local pts = path:world(costmap)
local length = 0
for k = 2, #pts do
  length = length + math.sqrt((pts[k].x - pts[k - 1].x) ^ 2 + (pts[k].y - pts[k - 1].y) ^ 2)
end
print(("plan     (%.2f, %.2f) -> (%.2f, %.2f): %d cells, %d waypoints after shortening, %.2f m")
  :format(sx, sy, gx, gy, raw_cells, #pts, length))

-- no shell: a folder name with a quote in it must stay a folder name
local okdir, direrr = tycho.sys.mkdir(opts.out)
if not okdir then io.stderr:write("plan_demo: --out: ", tostring(direrr), "\n") return 1 end
local pic = tycho.picture(costmap, { scale = 4 })
pic:path(pts, { color = "#d01010", width = 2 })
pic:point(sx, sy, { color = "#10a010", radius = 5, shape = "dot" })
pic:point(gx, gy, { color = "#1030d0", radius = 5, shape = "cross" })
local png = opts.out .. "/plan.png"
local oksave, saveerr = pic:save(png)
if not oksave then io.stderr:write("plan_demo: ", tostring(saveerr), "\n") return 1 end
print(("picture  %s"):format(png))
print(("done in %.1f ms"):format((os.clock() - t0) * 1000))
return 0
