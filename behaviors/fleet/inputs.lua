--- Fleet mission inputs: the warehouse data set's files (a map_server map,
-- Stage's `stage.world` start poses, tuw goal files) or our own Lua file:
--
--   return {
--     map = "maze_small.yaml",              -- relative to this file
--     robots = {
--       { name = "a", start = { x = 0.5, y = 0.5, yaw = 0 }, goal = { x = 4.5, y = 0.5 } },
--       ...
--     },
--   }
--
-- Either way: map (grid), robots {{name =, x =, y =, yaw =, gx =, gy =}}.
local tycho = require "tycho"

local inputs = {}

local function dir_of(path) return path:match("^(.*)/[^/]*$") or "." end

local function num(v, where)
  if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
    error(("%s: number expected, got %s"):format(where, type(v) == "number" and tostring(v) or type(v)), 0)
  end
  return v
end

--- Our own format: a Lua chunk returning a table, run in tycho's data
-- sandbox (tycho.load_data: copies of the safe libraries, budgets).
function inputs.from_lua(path)
  local t, err = tycho.load_data(path)
  if err then error(err, 0) end
  if type(t) ~= "table" then error(path .. ": must return a table", 0) end
  if type(t.map) ~= "string" then error(path .. ": map: file name expected", 0) end
  if type(t.robots) ~= "table" or #t.robots == 0 then error(path .. ": robots: a non-empty list expected", 0) end
  local map_path = t.map:sub(1, 1) == "/" and t.map or (dir_of(path) .. "/" .. t.map)
  local okm, map = pcall(tycho.map.load, map_path)
  if not okm then error(path .. ": map: " .. tostring(map), 0) end
  local robots = {}
  for i, r in ipairs(t.robots) do
    local where = ("%s: robots[%d]"):format(path, i)
    if type(r) ~= "table" or type(r.start) ~= "table" or type(r.goal) ~= "table" then
      error(where .. ": {name =, start = {x =, y =, yaw =}, goal = {x =, y =}} expected", 0)
    end
    robots[i] = { name = tostring(r.name or ("robot_" .. (i - 1))),
                  x = num(r.start.x, where .. ".start.x"), y = num(r.start.y, where .. ".start.y"),
                  yaw = r.start.yaw and num(r.start.yaw, where .. ".start.yaw") or 0,
                  gx = num(r.goal.x, where .. ".goal.x"), gy = num(r.goal.y, where .. ".goal.y") }
  end
  return map, robots
end

--- The warehouse data set: map.yaml, stage.world, a goal file.
function inputs.from_files(map_path, starts_path, goals_path, count)
  local okm, map = pcall(tycho.map.load, map_path)
  if not okm then error("--map: " .. tostring(map), 0) end
  local starts, err = tycho.fleet.stage_poses(starts_path)
  if not starts then error("--starts: " .. tostring(err), 0) end
  local goals
  goals, err = tycho.fleet.goals(goals_path)
  if not goals then error("--goals: " .. tostring(err), 0) end
  local by_robot = {}
  for _, g in ipairs(goals) do by_robot[g.robot] = g end
  local robots = {}
  for _, s in ipairs(starts) do
    local g = by_robot[s.robot]
    if g and (not count or #robots < count) then
      robots[#robots + 1] = { name = "robot_" .. s.robot, x = s.x, y = s.y, yaw = s.yaw, gx = g.x, gy = g.y }
    end
  end
  if #robots == 0 then error("no robot has both a start pose and a goal", 0) end
  if count and #robots < count then
    error(("--robots %d: only %d robots have both a start and a goal"):format(count, #robots), 0)
  end
  return map, robots
end

return inputs
