--- Terrain worlds: a Lua file describing a height field (ground roughness,
-- parametric obstacles), obstacles that appear during the run, the robot
-- and its 3D LiDAR, start and goal. See maps/terrain_rough.lua for every
-- field. load() checks every field and names the file and the field in
-- its errors; build() draws the ground; events() hands out the scripted
-- changes as they fall due.
local tycho = require "tycho"

local M = {}

local OBSTACLES = {
  box = { "x0", "y0", "x1", "y1", "top" },
  stairs = { "x0", "y0", "y1", "steps", "step_len", "step_h" },
  prisms = { "x0", "y0", "x1", "y1", "period", "height" },
  bump = { "x", "y0", "y1", "r", "base" },
  bell = { "x", "y", "r", "height" }, -- height > 0 a mound, < 0 a pit
  gravel = { "x0", "y0", "x1", "y1", "count", "size", "height", "seed" },
}

local function fail(path, where, msg) error(("%s: %s: %s"):format(path, where, msg), 0) end

local function num(path, where, t, k, default, lo, hi)
  local v = t[k]
  if v == nil then
    if default ~= nil then return default end
    fail(path, where, ("'%s' is required"):format(k))
  end
  if type(v) ~= "number" or v ~= v then fail(path, where, ("'%s' must be a number (got %s)"):format(k, type(v))) end
  if v == math.huge or v == -math.huge then fail(path, where, ("'%s' must be finite (got %s)"):format(k, tostring(v))) end
  -- no field of a world has a use for more than a thousand kilometres; larger
  -- values would overflow the conversions to cells further on
  lo, hi = lo or -1e6, hi or 1e6
  if v < lo or v > hi then
    fail(path, where, ("'%s' = %g is out of range [%g, %g]"):format(k, v, lo, hi))
  end
  return v
end

local function only(path, where, t, allowed)
  local ok = {}
  for _, k in ipairs(allowed) do ok[k] = true end
  for k in pairs(t) do
    if not ok[k] then fail(path, where, ("unknown field '%s'"):format(tostring(k))) end
  end
end

local function check_obstacle(path, where, o)
  if type(o) ~= "table" then fail(path, where, "a table expected") end
  local fields = OBSTACLES[o.type]
  if not fields then
    local kinds = {}
    for k in pairs(OBSTACLES) do kinds[#kinds + 1] = k end
    table.sort(kinds)
    fail(path, where, ("'type' must be one of %s (got %s)"):format(table.concat(kinds, ", "), tostring(o.type)))
  end
  where = ("%s (%s)"):format(where, o.type)
  local allowed = { "type", "after", "near", "note", "velocity", "duration" }
  for _, k in ipairs(fields) do
    allowed[#allowed + 1] = k
    num(path, where, o, k, (k == "seed") and 1 or nil)
  end
  only(path, where, o, allowed)
  return o
end

local function check_pose(path, where, p, need_yaw)
  if type(p) ~= "table" then fail(path, where, "a table {x =, y =" .. (need_yaw and ", yaw =}" or "}") .. " expected") end
  only(path, where, p, { "x", "y", "yaw" })
  return { x = num(path, where, p, "x"), y = num(path, where, p, "y"), yaw = num(path, where, p, "yaw", 0) }
end

--- load(path) -> world table (checked, with defaults filled in); raises "path: field: why"
-- The file runs in tycho's data sandbox (tycho.load_data: private copies of
-- math, string, table; instruction, CPU-time and memory budgets).
function M.load(path)
  if type(path) ~= "string" then error("bad argument #1 to 'load' (path expected)", 2) end
  local w, err = tycho.load_data(path)
  if err then error(err, 0) end -- names the file (and the line, when Lua knows it)
  return M.check(w, path)
end

--- check(table, name) -> the same table, checked, defaults filled in
function M.check(w, path)
  if type(w) ~= "table" then fail(path, "top level", "the file must return a table") end
  only(path, "top level", w, { "name", "size", "resolution", "ground", "obstacles", "events", "robot", "lidar",
                               "start", "goal", "params", "timeout" })
  w.name = w.name or path:match("([^/]+)%.lua$") or "terrain"
  if type(w.size) ~= "table" then fail(path, "size", "{width = m, height = m} expected") end
  only(path, "size", w.size, { "width", "height" })
  num(path, "size", w.size, "width", nil, 1, 500)
  num(path, "size", w.size, "height", nil, 1, 500)
  w.resolution = num(path, "top level", w, "resolution", 0.1, 0.02, 1)
  w.ground = w.ground or {}
  only(path, "ground", w.ground, { "roughness", "gd_n0", "w", "bands", "blur", "seed" })
  if w.ground.roughness ~= nil and (type(w.ground.roughness) ~= "string" or not w.ground.roughness:match("^[A-H]$")) then
    fail(path, "ground", "'roughness' must be an ISO 8608 class 'A'..'H'")
  end
  w.obstacles = w.obstacles or {}
  for i, o in ipairs(w.obstacles) do check_obstacle(path, ("obstacles[%d]"):format(i), o) end
  w.events = w.events or {}
  for i, e in ipairs(w.events) do
    local where = ("events[%d]"):format(i)
    check_obstacle(path, where, e)
    if e.after == nil and e.near == nil then fail(path, where, "needs 'after' (seconds) or 'near' ({x =, y =, r =})") end
    if e.after ~= nil then num(path, where, e, "after", nil, 0) end
    if e.velocity ~= nil then
      if e.type ~= "box" then fail(path, where, "only a box can move ('velocity')") end
      if type(e.velocity) ~= "table" then fail(path, where, "'velocity' must be {x =, y =} (m/s)") end
      only(path, where .. ".velocity", e.velocity, { "x", "y" })
      e.velocity = { x = num(path, where .. ".velocity", e.velocity, "x", 0),
                     y = num(path, where .. ".velocity", e.velocity, "y", 0) }
      num(path, where, e, "duration", nil, 0)
    end
    if e.near ~= nil then
      if type(e.near) ~= "table" then fail(path, where, "'near' must be {x =, y =, r =}") end
      only(path, where .. ".near", e.near, { "x", "y", "r" })
      num(path, where .. ".near", e.near, "x")
      num(path, where .. ".near", e.near, "y")
      num(path, where .. ".near", e.near, "r", nil, 0)
    end
  end
  w.robot = w.robot or {}
  if type(w.robot) ~= "table" then fail(path, "robot", "a table expected") end
  w.start = check_pose(path, "start", w.start, true)
  w.goal = check_pose(path, "goal", w.goal)
  w.lidar = w.lidar or {}
  only(path, "lidar", w.lidar, { "lines", "columns", "range_max", "rate", "mount" })
  w.lidar.lines = num(path, "lidar", w.lidar, "lines", 16)
  w.lidar.columns = num(path, "lidar", w.lidar, "columns", 900, 1, 36000)
  w.lidar.range_max = num(path, "lidar", w.lidar, "range_max", 15, 1, 200)
  w.lidar.rate = num(path, "lidar", w.lidar, "rate", 5, 0.5, 50)
  w.lidar.mount = w.lidar.mount or { z = 0.45 }
  w.params = w.params or {}
  w.timeout = num(path, "top level", w, "timeout", 600, 1)
  for _, p in ipairs { w.start, w.goal } do
    if p.x < 0 or p.y < 0 or p.x >= w.size.width or p.y >= w.size.height then
      fail(path, p == w.start and "start" or "goal", ("(%g, %g) is outside the %g x %g m field"):format(
        p.x, p.y, w.size.width, w.size.height))
    end
  end
  return w
end

--- Draws one obstacle (or a scripted one) into the height field.
function M.draw(hf, o)
  if o.type == "box" then hf:box(o.x0, o.y0, o.x1, o.y1, o.top)
  elseif o.type == "stairs" then hf:stairs(o.x0, o.y0, o.y1, o.steps, o.step_len, o.step_h)
  elseif o.type == "prisms" then hf:prisms(o.x0, o.y0, o.x1, o.y1, o.period, o.height)
  elseif o.type == "bump" then hf:bump(o.x, o.y0, o.y1, o.r, o.base)
  elseif o.type == "bell" then hf:bell(o.x, o.y, o.r, o.height)
  elseif o.type == "gravel" then hf:gravel(o.x0, o.y0, o.x1, o.y1, o.count, o.size, o.height, o.seed)
  end
end

--- build(world) -> height field with the ground and the fixed obstacles
function M.build(w)
  local res = w.resolution
  local hf = tycho.terrain.heightfield {
    width = math.ceil(w.size.width / res - 1e-9), height = math.ceil(w.size.height / res - 1e-9), resolution = res,
  }
  local g = w.ground
  if g.roughness or g.gd_n0 then
    hf:roughness { class = g.roughness, gd_n0 = g.gd_n0, w = g.w, bands = g.bands, blur = g.blur, seed = g.seed }
  end
  for _, o in ipairs(w.obstacles) do M.draw(hf, o) end
  return hf
end

--- events(world) -> due(t, x, y): the scripted obstacles that fall due now (each once)
function M.events(w)
  local pending = {}
  for i, e in ipairs(w.events) do pending[i] = e end
  return function(t, x, y)
    local due = {}
    for i = #pending, 1, -1 do
      local e = pending[i]
      local by_time = e.after and t >= e.after
      local by_place = e.near and math.sqrt((x - e.near.x) ^ 2 + (y - e.near.y) ^ 2) <= e.near.r
      if by_time or by_place then
        due[#due + 1] = e
        table.remove(pending, i)
      end
    end
    return due
  end
end

return M
