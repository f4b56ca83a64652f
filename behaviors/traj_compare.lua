--- Compare two trajectories: a planned path against the driven one, or a
-- run against a reference log. Reads CSV files with a header naming at
-- least the columns x and y (terrain_nav's trajectory.csv and plans.csv,
-- or any log with those columns).
--
--   tycho run behaviors/traj_compare.lua A.csv B.csv [--plan N] [--spacing M] [--json]
--
-- Prints the deviation of A from B (mean and max, A sampled every
-- `spacing` metres), the Hausdorff distance (both ways) and the lengths.
-- --plan N keeps only the rows of plan N in a file with a `plan` column.
-- Exits 0, or 2 on bad arguments or unreadable input (with file:line).
local tycho = require "tycho"
local logmod = require "log"

local cli = require "cli"

local spec = cli.spec { prog = "traj_compare", usage_line = "A.csv B.csv [options]", positional = true,
  summary = "the deviation of trajectory A from B, the Hausdorff distance and the lengths",
  options = {
    { name = "plan", type = "integer", metavar = "N", doc = "rows of plan N only, in a file with a 'plan' column (plans.csv)" },
    { name = "spacing", type = "number", default = 0.05, min = 1e-4, metavar = "M", doc = "sample A every M metres" },
    { name = "json", type = "boolean", doc = "print the figures as JSON" },
  } }
local opt, usage_err = spec:parse(arg)
if not opt then return cli.usage_error(spec, usage_err) end
if opt.help then io.write(spec:usage()) return 0 end
local files = opt._rest
if #files ~= 2 then return cli.usage_error(spec, ("two trajectory files expected (got %d)"):format(#files)) end
local function fail(msg)
  io.stderr:write("traj_compare: ", msg, "\n")
  return 2
end

--- read(path) -> {{x =, y =}, ...} or nil, "path:line: why"
local function read(path)
  local f, err = io.open(path)
  if not f then return nil, err end
  local cols, points, n = nil, {}, 0
  for line in f:lines() do
    n = n + 1
    line = line:gsub("\r$", "")
    if line ~= "" and not line:match("^#") then
      local fields = {}
      for v in (line .. ","):gmatch("([^,]*),") do fields[#fields + 1] = v:match("^%s*(.-)%s*$") end
      if not cols then
        cols = {}
        for k, name in ipairs(fields) do cols[name] = k end
        if not (cols.x and cols.y) then
          f:close()
          return nil, ("%s:%d: no 'x' and 'y' columns in the header"):format(path, n)
        end
      else
        local x, y = tonumber(fields[cols.x]), tonumber(fields[cols.y])
        if not (x and y) then
          f:close()
          return nil, ("%s:%d: x and y must be numbers"):format(path, n)
        end
        if not (opt.plan and cols.plan) or tonumber(fields[cols.plan]) == opt.plan then
          points[#points + 1] = { x = x, y = y }
        end
      end
    end
  end
  f:close()
  if #points == 0 then
    return nil, ("%s: no points%s"):format(path, (opt.plan and cols and cols.plan) and (" in plan " .. opt.plan) or "")
  end
  return points
end

local a, err = read(files[1])
if not a then return fail(err) end
local b
b, err = read(files[2])
if not b then return fail(err) end
local d = tycho.terrain.compare(a, b, { spacing = opt.spacing })
if opt.json then
  print(logmod.json(d))
else
  print(("%s against %s: mean %.3f m, max %.3f m (A to B, %d samples), hausdorff %.3f m"):format(
    files[1], files[2], d.mean, d.max, d.samples, d.hausdorff))
  print(("lengths: A %.2f m, B %.2f m, B - A %+.2f m"):format(d.length_a, d.length_b, d.length_diff))
end
return 0
