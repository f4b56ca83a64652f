--- Thermal coverage: which wall faces have the cameras looked at, from
-- close enough to see a heat source on them?
--
-- LiDAR exploration ends when the map has no frontier, but the LiDAR reaches
-- 3.5 m and the cameras only count out to detection_max_distance, and only
-- ahead. So a source at the end of a dead end can be mapped yet never seen.
-- Every thermal frame marks the wall cells hit by the LiDAR beams inside
-- that camera's field of view (within the detection distance) as checked;
-- afterwards the sweep visits viewpoints facing the nearest unchecked wall
-- faces until none is left (or the views run out).
local tycho = require "tycho"

local TS = {}
TS.__index = TS

--- TS.new{resolution=, max_range=} -> sweep
-- `checked` is a C cell set (tycho.cell_set): a camera frame marks a few
-- hundred cells, ten times a second per camera, too many for a Lua loop.
function TS.new(o)
  return setmetatable({ res = o.resolution, max_range = o.max_range, tried = {},
                        checked = tycho.cell_set { resolution = o.resolution } }, TS)
end

-- World cells keyed by one integer (independent of the map's origin, which
-- moves when the map grows).
local function key(self, x, y)
  return math.floor(x / self.res + 0.5) * 1048576 + math.floor(y / self.res + 0.5)
end

--- Marks what camera (axis `cam_yaw`, field `fov`, robot frame) saw from
-- `pose` in `scan` (taken at that pose): the cells round every beam's end
-- within the camera's field and max_range (tycho.cell_set's observe).
function TS:observe(pose, scan, cam_yaw, fov)
  return self.checked:observe(pose, scan, cam_yaw, fov, self.max_range)
end

--- Wall faces of `map` (lethal cells with a free 4-neighbour, found in C)
-- -> list of {x, y, nx, ny, checked} (world centre, unit normal into the
-- free side). A face is checked when the free cell in front of it is: the
-- two faces of a wall one cell thick share their wall cell, not that.
function TS:faces(map)
  local faces = map:wall_faces()
  local checked, r = self.checked, self.res
  for _, f in ipairs(faces) do f.checked = checked:has(f.x + f.nx * r, f.y + f.ny * r) end
  return faces
end

--- Fraction of wall faces checked.
function TS:coverage(map)
  local faces, c = self:faces(map), 0
  for _, f in ipairs(faces) do if f.checked then c = c + 1 end end
  return #faces > 0 and c / #faces or 1, #faces
end

--- Next viewpoint {x, y, yaw, face} facing the unchecked wall face nearest
-- to (rx, ry), at `standoff` metres along its normal (or as far as the
-- costmap is free), or nil when every reachable face is checked or tried
-- (or, with `within`, none is that close to (rx, ry)).
function TS:next_view(map, costmap, rx, ry, standoff, within)
  local open = {}
  for _, f in ipairs(self:faces(map)) do
    if not f.checked and not self.tried[key(self, f.x, f.y)] then
      local d = (f.x - rx) ^ 2 + (f.y - ry) ^ 2
      if not within or d <= within * within then
        f.d2 = d
        open[#open + 1] = f
      end
    end
  end
  if #open == 0 then return nil end
  -- nearest by path, not by air (in a maze the face behind the next wall
  -- can be the whole maze away): the 48 nearest by air, then one Dijkstra
  -- field (C) from the robot to points just off each of them
  table.sort(open, function(a, b) return a.d2 < b.d2 end)
  local pts = {}
  for i = 1, math.min(48, #open) do
    local f = open[i]
    pts[i] = { x = f.x + f.nx * 0.3, y = f.y + f.ny * 0.3 }
  end
  local d = costmap:path_distances(rx, ry, pts)
  local best, bd = open[1], math.huge
  for i = 1, #pts do
    if d[i] < bd then best, bd = open[i], d[i] end
  end
  -- walk out along the normal while the costmap stays comfortably free
  local vx, vy
  for s = self.res, standoff + 1e-9, self.res do
    local x, y = best.x + best.nx * s, best.y + best.ny * s
    local c = costmap:get(costmap:world_to_cell(x, y))
    if c >= tycho.grid.INSCRIBED and s > 0.3 then break end
    if c < 200 then vx, vy = x, y end
  end
  if not vx then
    self:give_up(best)
    return self:next_view(map, costmap, rx, ry, standoff, within)
  end
  return { x = vx, y = vy, yaw = math.atan(best.y - vy, best.x - vx), face = best }
end

--- Marks a face (and its neighbours) as tried, so it is not chosen again.
function TS:give_up(face)
  local r = self.res
  for dx = -2, 2 do
    for dy = -2, 2 do self.tried[key(self, face.x + dx * r, face.y + dy * r)] = true end
  end
end

return TS
