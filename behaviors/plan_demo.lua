--- The main job until the heat-seeking mission lands: load a map, inflate it
-- for the robot, plan a cost-aware path, shorten it, and draw it.
--   tycho run behaviors/plan_demo.lua [--map M.yaml] [--from x,y] [--to x,y] [--out DIR]
local tycho = require "tycho"

local USAGE = [[
usage: tycho run behaviors/plan_demo.lua [options]
  --map PATH     map_server YAML (default maps/maze_small.yaml)
  --from X,Y     start in metres (default 0.5,0.5)
  --to X,Y       goal in metres (default 4.5,3.5)
  --radius R     robot inscribed radius in metres (default 0.105, TurtleBot3 Burger)
  --out DIR      output folder (default out/plan_demo)
]]

local opts = { map = "maps/maze_small.yaml", from = "0.5,0.5", to = "4.5,3.5",
               radius = "0.105", out = "out/plan_demo" }
local i = 1
while i <= #arg do
  local a = arg[i]
  if a == "-h" or a == "--help" then io.write(USAGE) return 0 end
  local key = a:match("^%-%-(%w+)$")
  if not key or opts[key] == nil or arg[i + 1] == nil then
    io.stderr:write("plan_demo: bad argument '", a, "'\n", USAGE)
    return 2
  end
  opts[key] = arg[i + 1]
  i = i + 2
end

local function point(s, name)
  local x, y = s:match("^%s*([-%d.e]+)%s*,%s*([-%d.e]+)%s*$")
  x, y = tonumber(x), tonumber(y)
  if not (x and y) then error(("--%s expects X,Y in metres, got '%s'"):format(name, s), 0) end
  return x, y
end
local sx, sy = point(opts.from, "from")
local gx, gy = point(opts.to, "to")
local radius = tonumber(opts.radius)
if not radius or radius <= 0 then error("--radius expects a positive number of metres", 0) end

local t0 = os.clock()
local map = tycho.map.load(opts.map)
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
