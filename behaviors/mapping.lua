--- The robot's world model: an occupancy map built from LiDAR scans, the
-- inflated costmap the planner and follower use, and keep-out zones (a
-- detected ramp) that stay blocked whatever the LiDAR later says.
local tycho = require "tycho"

local M = {}
M.__index = M

--- M.new(params, start_pose) -> mapping
function M.new(p, x, y)
  local size = 160 -- cells (8 m at 0.05 m); the map grows as scans reach out
  local self = setmetatable({
    p = p,
    map = tycho.grid.new { width = size, height = size, resolution = 0.05,
                           origin = { x = x - size * 0.025, y = y - size * 0.025 } },
    keepouts = {},
    variants = {},
    refreshes = 0,
    scans = 0,
  }, M)
  self:refresh()
  return self
end

--- The no-go band's half-width: the robot's radius plus the footprint
-- padding in force (the parameter, or less once the mission squeezed it).
function M:band()
  return self.p.robot_radius + self:padding()
end

function M:padding()
  local pad = self.p.footprint_padding
  if self.squeezed and self.squeezed < pad then pad = self.squeezed end
  return pad
end

--- Narrows the footprint padding to the next step down (half of it, and
-- at last `floor`) for a maze whose doorways the padded band closes;
-- returns the padding before and after, or nil when it is at the floor
-- already. The robot's own radius is never given up, and the floor keeps a
-- little more: a wall mapped half a cell off its true place must not let
-- the disc graze it (with no padding at all the simulator saw contacts).
function M:squeeze(floor)
  local before = self:padding()
  if before <= floor then return nil end
  local after = before / 2
  if after < 2 * floor then after = floor end
  self.squeezed = after
  self:refresh()
  return before, after
end

--- Puts the padding back to `pad` (what squeeze returned as `before`).
function M:unsqueeze(pad)
  self.squeezed = pad < self.p.footprint_padding and pad or nil
  self:refresh()
end

function M:insert_scan(pose, scan)
  self.map:insert_scan(pose, scan)
  self.scans = self.scans + 1
end

--- A square of half-size h around (x, y) that is blocked from now on, or
-- with `cost` (< 253) passable at that price (a known ramp: the planner goes
-- round when it can and over it when it is the only way).
function M:add_keepout(x, y, h, name, cost)
  self.keepouts[#self.keepouts + 1] = { x = x, y = y, h = h, name = name, cost = cost }
end

--- The keep-out named `name` nearest to (x, y) and its distance.
function M:nearest_keepout(x, y, name)
  local best, bd = nil, math.huge
  for _, k in ipairs(self.keepouts) do
    local d = math.sqrt((k.x - x) ^ 2 + (k.y - y) ^ 2)
    if (not name or k.name == name) and d < bd then best, bd = k, d end
  end
  return best, bd
end

function M:remove_keepouts(name)
  for i = #self.keepouts, 1, -1 do
    if self.keepouts[i].name == name then table.remove(self.keepouts, i) end
  end
end

--- Rebuilds the costmap: map inflated for the robot, keep-outs sealed.
-- The costmap grid is reused between refreshes (rebuilt only when the map
-- grew): a fresh grid five times a second is C memory the Lua collector
-- does not see, and the process would grow until it ran.
function M:refresh()
  local m, cm = self.map, self.costmap
  local o = m.origin
  if not cm or cm.width ~= m.width or cm.height ~= m.height or cm.origin.x ~= o.x or cm.origin.y ~= o.y then
    cm = m:copy()
  end
  local band = self:band()
  m:inflate_into(cm, { inscribed_radius = band,
                       inflation_radius = self.p.inflation_radius,
                       cost_scaling_factor = self.p.cost_scaling_factor })
  -- keep-outs go in after inflation, grown by the robot's band, so the
  -- robot's centre stays out of the square plus its own radius
  for _, k in ipairs(self.keepouts) do
    cm:seal_line(k.x, k.y, k.x, k.y, { world = true, cost = k.cost,
      thickness = math.max(1, math.floor(2 * (k.h + band) / m.resolution)) })
  end
  self.costmap = cm
  self.refreshes = self.refreshes + 1
  return cm
end

-- A grid of the map's shape kept in self.variants[name], re-inflated with
-- `opts` at most once per costmap refresh, on demand.
function M:_variant(name, opts)
  local m, v = self.map, self.variants[name]
  if v and v.stamp == self.refreshes then return v.grid end
  local g = v and v.grid
  if not g or g.width ~= m.width or g.height ~= m.height or g.origin.x ~= m.origin.x or g.origin.y ~= m.origin.y then
    g = m:copy()
  end
  m:inflate_into(g, opts)
  self.variants[name] = { grid = g, stamp = self.refreshes }
  return g
end

--- The map inflated by the robot's bare radius (plus 1 cm), without the
-- footprint padding: the centre anywhere below 253 here means the disc
-- clears every wall the map knows. For squeezing past a corner through the
-- padding.
function M:tight()
  local r = self.p.robot_radius + 0.01
  return self:_variant("tight", { inscribed_radius = r, inflation_radius = r,
                                  cost_scaling_factor = self.p.cost_scaling_factor })
end

--- The costmap without its keep-outs: for a path that has to cross a
-- passable keep-out (a ramp that is the only way). Inside a keep-out the
-- costmap is flat at the keep-out's price, so a path planned there hugs
-- the walls and cuts the corners; here it keeps the inflation's gradient
-- and runs down the middle.
function M:open()
  return self:_variant("open", { inscribed_radius = self:band(),
                                 inflation_radius = self.p.inflation_radius,
                                 cost_scaling_factor = self.p.cost_scaling_factor })
end

--- Whether the world point (x, y) lies in a passable keep-out's square
-- (grown by the robot's band, as it is stamped).
function M:in_soft_keepout(x, y)
  local band = self:band()
  for _, k in ipairs(self.keepouts) do
    if k.cost and k.cost < tycho.grid.INSCRIBED and math.abs(x - k.x) <= k.h + band and math.abs(y - k.y) <= k.h + band then
      return true
    end
  end
  return false
end

function M:cost_at(x, y)
  local cx, cy = self.costmap:world_to_cell(x, y)
  return self.costmap:get(cx, cy)
end

return M
