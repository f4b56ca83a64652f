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
  local map, merr = tycho.map.load(map_path)
  if not map then error(path .. ": map: " .. tostring(merr), 0) end
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

--- The warehouse data set: map.yaml, stage.world, a goal file -> map,
-- robots, notes. Nothing is dropped quietly:
--   - a robot of stage.world with no goal is an error (file:line), so is a
--     goal for a robot stage.world does not have, unless it is part of the
--     goal set's tail beyond the world's robots (the data set's goal files
--     list robot_0..robot_99 for a 32-robot world): those are counted in
--     notes.unused_goals, logged and written to the summary;
--   - a stage.world cut off part-way (a block left open, a robot without
--     its pose) is refused by tycho.fleet.stage_poses with file:line. A
--     file cut exactly between two robot blocks is a valid smaller world:
--     notes.robots says how many robots were read.
-- `count` takes the first robots (by number).
function inputs.from_files(map_path, starts_path, goals_path, count)
  local map, merr = tycho.map.load(map_path)
  if not map then error("--map: " .. tostring(merr), 0) end
  local starts, err = tycho.fleet.stage_poses(starts_path)
  if not starts then error("--starts: " .. tostring(err), 0) end
  local goals
  goals, err = tycho.fleet.goals(goals_path)
  if not goals then error("--goals: " .. tostring(err), 0) end
  local start_of, goal_of, last_start = {}, {}, -1
  for _, s in ipairs(starts) do
    start_of[s.robot] = s
    last_start = math.max(last_start, s.robot)
  end
  for _, g in ipairs(goals) do goal_of[g.robot] = g end
  local function refuse(list, fmt)
    if #list == 0 then return end
    local more = #list > 1 and (" (and %d more: %s%s)"):format(#list - 1,
      table.concat(list, ", ", 2, math.min(#list, 6)), #list > 6 and ", ..." or "") or ""
    error(fmt:format(list[1]) .. more, 0)
  end
  local no_goal, unknown, unused = {}, {}, {}
  for _, s in ipairs(starts) do
    if not goal_of[s.robot] then no_goal[#no_goal + 1] = ("%s:%d: robot_%d"):format(starts_path, s.line, s.robot) end
  end
  refuse(no_goal, "--starts: %s has no goal in " .. goals_path .. " (fewer goals than robots, or a goal misnamed)")
  for _, g in ipairs(goals) do
    if not start_of[g.robot] then
      if g.robot < last_start then unknown[#unknown + 1] = ("%s:%d: robot_%d"):format(goals_path, g.line, g.robot)
      else unused[#unused + 1] = g.robot end
    end
  end
  refuse(unknown, "--goals: %s is not a robot of " .. starts_path .. " (a goal for an unknown robot)")
  if count and (count < 1 or count % 1 ~= 0) then error("--robots: a whole number >= 1 expected", 0) end
  if count and count > #starts then
    error(("--robots %d: %s has only %d robots"):format(count, starts_path, #starts), 0)
  end
  local robots = {}
  for _, s in ipairs(starts) do
    if count and #robots >= count then break end
    local g = goal_of[s.robot]
    robots[#robots + 1] = { name = "robot_" .. s.robot, x = s.x, y = s.y, yaw = s.yaw, gx = g.x, gy = g.y }
  end
  return map, robots, { robots = #starts, unused_goals = #unused,
                        unused_range = #unused > 0 and ("robot_%d..robot_%d"):format(unused[1], unused[#unused]) or nil }
end

return inputs
