--- What a fleet shows on the channels (behaviors/channels.lua), for
-- `fleet --viz` and `fleet --record`: the map once, and five times a
-- simulated second a scene with every robot (a disc: blue moving, orange
-- waiting for its next vertex, red stopped, green home), the rest of its
-- route (a line from where it is through the vertices still ahead), its
-- goal (a cube) and its reservations: the route vertices the distributor
-- has granted it beyond the one it reached (flat squares in its colour; no
-- other robot may enter them until it has passed).
--
--   local feeder = FleetChannels.new(channels, { sim = sim, n = n, map = map, now = now,
--     route = function(i) return d.routes[i], sim:reached(i) end, home = function(i) return per[i].arrived end,
--     granted = function(i) return sups[i].granted end })   -- granted: optional
--   sched:every(0.05, function() feeder:tick() end, "channels")   -- (the mission runner does this)
local tycho = require "tycho"
local Channels = require "channels"
local RC = require "robot_channels"

local FC = {}
FC.__index = FC

local KNOWN = { sim = true, n = true, map = true, now = true, route = true, home = true, granted = true }

--- FleetChannels.new(channels, {sim =, n =, map =, now =, route = fn(i) -> points, reached, home = fn(i) -> bool
--   [, granted = fn(i) -> the last route vertex the robot may drive to]})
function FC.new(channels, o)
  if type(o) ~= "table" then error("bad argument #2 to 'FleetChannels.new' (table expected)", 2) end
  for k in pairs(o) do
    if not KNOWN[k] then error(("FleetChannels.new: unknown option '%s'"):format(tostring(k)), 2) end
  end
  for _, k in ipairs { "sim", "n", "now", "route", "home" } do
    if o[k] == nil then error(("FleetChannels.new: '%s' is required"):format(k), 2) end
  end
  return setmetatable({ ch = channels, o = o }, FC)
end

local MOVING, WAITING, STOPPED, HOME = RC.color(0.1, 0.35, 1), RC.color(1, 0.6, 0), RC.color(0.9, 0, 0),
  RC.color(0, 0.7, 0)

local function point(x, y) return { x = x, y = y, z = 0.05 } end

--- The scene: robots, the rest of their routes, their goals.
function FC:scene(t)
  local o, sim = self.o, self.o.sim
  local robots, lines, goals, held = {}, {}, {}, {}
  for i = 1, o.n do
    local x, y = sim:pose(i)
    local color = o.home(i) and HOME or sim:stopped(i) and STOPPED or sim:moving(i) and MOVING or WAITING
    robots[i] = { pose = Channels.pose(x, y, 0, 0.15), size = { x = 0.5, y = 0.5, z = 0.3 }, color = color }
    local route, reached = o.route(i)
    local pts = { point(x, y) }
    for k = math.max(1, (reached or 0) + 1), #route do pts[#pts + 1] = point(route[k].x, route[k].y) end
    lines[#lines + 1] = { type = 0, pose = Channels.pose(0, 0, 0), thickness = 0.05, scale_invariant = false,
                          points = pts, color = RC.color(color.r, color.g, color.b, 0.5), colors = {}, indices = {} }
    if o.granted then
      local upto = math.min(o.granted(i) or 0, #route)
      for k = math.max(1, (reached or 0) + 1), upto do
        held[#held + 1] = { pose = Channels.pose(route[k].x, route[k].y, 0, 0.01), size = { x = 0.4, y = 0.4, z = 0.02 },
                            color = RC.color(color.r, color.g, color.b, 0.35) }
      end
    end
    local g = route[#route]
    if g then
      goals[#goals + 1] = { pose = Channels.pose(g.x, g.y, 0, 0.05), size = { x = 0.3, y = 0.3, z = 0.1 },
                            color = RC.color(0, 0.5, 0, 0.5) }
    end
  end
  return { deletions = {}, entities = {
    RC.entity(t, "robots", { spheres = robots }),
    RC.entity(t, "routes", { lines = lines }),
    RC.entity(t, "goals", { cubes = goals }),
    RC.entity(t, "reservations", { cubes = held }),
  } }
end

--- 20 times a simulated second: what is due goes out.
function FC:tick()
  local ch, t = self.ch, self.o.now()
  if #ch.sinks == 0 then return end
  if self.o.map and not self.map_sent and ch:due("/map", t) then
    self.map_sent = true
    ch:publish("/map", t, tycho.viz.grid(self.o.map, t, "map"))
  end
  if ch:due("/fleet", t) then ch:publish("/fleet", t, self:scene(t)) end
end

return FC
