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
    scans = 0,
  }, M)
  self:refresh()
  return self
end

function M:insert_scan(pose, scan)
  self.map:insert_scan(pose, scan)
  self.scans = self.scans + 1
end

--- A square of half-size h around (x, y) that is blocked from now on.
function M:add_keepout(x, y, h, name)
  self.keepouts[#self.keepouts + 1] = { x = x, y = y, h = h, name = name }
end

function M:remove_keepouts(name)
  for i = #self.keepouts, 1, -1 do
    if self.keepouts[i].name == name then table.remove(self.keepouts, i) end
  end
end

--- Rebuilds the costmap: map + keep-outs, inflated for the robot.
function M:refresh()
  local m = self.map
  if #self.keepouts > 0 then
    m = m:copy()
    local res = m.resolution
    for _, k in ipairs(self.keepouts) do
      m:seal_line(k.x, k.y, k.x, k.y, { world = true, thickness = math.max(1, math.floor(2 * k.h / res)) })
    end
  end
  self.costmap = m:inflate { inscribed_radius = self.p.robot_radius + self.p.footprint_padding,
                             inflation_radius = self.p.inflation_radius,
                             cost_scaling_factor = self.p.cost_scaling_factor }
  return self.costmap
end

function M:cost_at(x, y)
  local cx, cy = self.costmap:world_to_cell(x, y)
  return self.costmap:get(cx, cy)
end

return M
