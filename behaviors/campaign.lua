--- Runs the heat-seeking mission on many worlds, in parallel processes, and
-- totals what happened:
--
--   tycho run behaviors/campaign.lua --generate N --seed0 S [--out DIR] [--jobs J] [--noise] [--errors turtlebot3]
--   tycho run behaviors/campaign.lua --worlds DIR [--out DIR] [--jobs J]
--
-- --generate writes N worlds (seeds S .. S+N-1, behaviors/worldgen.lua) to
-- DIR/worlds/; --worlds takes every *.lua world file in a folder and every
-- world.lua one level below it. Each mission runs as its own
-- `tycho run behaviors/heat_seek.lua --world W --out DIR/runs/NAME --quiet`
-- (a wall-clock limit per run catches a hang). Prints one line per world as
-- it finishes and the totals; writes DIR/campaign.json and DIR/sheet.png (a
-- contact sheet: every final map, sources engaged green, missed red).
-- Exit 0 when every world ran to the end (completed or not), 1 when a run
-- crashed or hung, 2 on bad arguments.
local tycho = require "tycho"
local cli = require "cli"
local worldgen = require "worldgen"
local json = require "json" -- decode (the worlds' summaries) and json.object
local logmod = require "log"
local Report = require "heat_seek_report"

local spec = cli.spec { prog = "campaign",
  usage_line = "(--generate N --seed0 S | --worlds DIR) [--out DIR] [options]",
  summary = "Runs the heat-seeking mission on many worlds in parallel and totals the results.",
  options = {
    { name = "generate", type = "integer", min = 1, max = 100000, metavar = "N", doc = "generate N worlds" },
    { name = "seed0", type = "integer", min = 0, max = 2 ^ 31 - 2, default = 1, metavar = "S",
      doc = "first seed of the generated worlds" },
    { name = "worlds", type = "string", metavar = "DIR", doc = "run the world files in DIR instead" },
    { name = "out", type = "string", metavar = "DIR",
      doc = "output folder (default out/campaign-FIRST-LAST for --generate, out/campaign-NAME for --worlds)" },
    { name = "jobs", type = "integer", min = 1, max = 256, metavar = "J",
      doc = "missions run at once (default: the number of cores)" },
    { name = "noise", type = "boolean",
      doc = "generated worlds get odometry noise 0.05 and camera noise 0.2 C (twice the default)" },
    { name = "errors", type = "string", metavar = "PRESET",
      doc = "generated worlds get the robot's systematic odometry errors (turtlebot3)" },
    { name = "set", type = "string", repeatable = true, metavar = "NAME=VALUE", doc = "mission parameter for every run" },
    { name = "wall-limit", type = "number", min = 10, max = 36000, default = 600,
      doc = "wall-clock seconds a single run may take before it is killed" },
    { name = "mission", type = "string", metavar = "FILE",
      doc = "mission script (default: heat_seek.lua beside this script)" },
    { name = "sheet", type = "boolean", default = true, doc = "write the contact sheet (--sheet=false: no)" },
  } }

local function shq(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local function mkdir(p) return os.execute("mkdir -p " .. shq(p)) end

local function read_file(p)
  local f = io.open(p, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function nproc()
  local p = io.popen("nproc 2>/dev/null")
  local n = p and tonumber(p:read("l") or "")
  if p then p:close() end
  return n or 1
end

local function self_exe()
  local p = io.popen("readlink /proc/" .. tycho.sys.pid() .. "/exe")
  local exe = p and p:read("l")
  if p then p:close() end
  return exe
end

-- The world list -------------------------------------------------------------
local function generate(opt)
  local worlds = {}
  local dir = opt.out .. "/worlds"
  for k = 0, opt.generate - 1 do
    local seed = opt.seed0 + k
    local knobs = {}
    if opt.noise then knobs.odom_noise, knobs.thermal_noise = 0.05, 0.2 end
    if opt.errors then
      if opt.errors ~= "turtlebot3" and opt.errors ~= "none" then
        io.stderr:write("campaign: --errors must be turtlebot3 or none (got ", opt.errors, ")\n")
        os.exit(2)
      end
      knobs.errors = opt.errors
    end
    local ok, w = pcall(worldgen.generate, seed, knobs)
    if not ok then return nil, ("seed %d: %s"):format(seed, tostring(w)) end
    local name = ("gen_%d"):format(seed)
    mkdir(dir .. "/" .. name)
    local path, err = worldgen.write(w, dir .. "/" .. name, name)
    if not path then return nil, err end
    worlds[#worlds + 1] = { name = name, path = path, seed = seed, knobs = w.knobs,
                            kinds = (function()
                              local t = {}
                              for i, s in ipairs(w.heat_sources) do t[i] = s.kind end
                              return t
                            end)(), ramp_kind = w.ramp and w.ramp.kind or "none" }
    if k % 50 == 49 then io.stderr:write(("campaign: generated %d/%d worlds\n"):format(k + 1, opt.generate)) end
  end
  return worlds
end

local function list_worlds(dir)
  local names, err = tycho.sys.list_dir(dir)
  if not names then return nil, err end
  local worlds = {}
  for _, n in ipairs(names) do
    if n:match("%.lua$") then
      worlds[#worlds + 1] = { name = n:gsub("%.lua$", ""), path = dir .. "/" .. n }
    elseif n:match("/$") and read_file(dir .. "/" .. n .. "world.lua") then
      worlds[#worlds + 1] = { name = n:sub(1, -2), path = dir .. "/" .. n .. "world.lua" }
    end
  end
  if #worlds == 0 then return nil, dir .. ": no world files (*.lua, or */world.lua)" end
  return worlds
end

-- Results ----------------------------------------------------------------------
local function result_of(w, run_dir, status)
  local r = { name = w.name, world = w.path, exit = status, seed = w.seed, ramp_kind = w.ramp_kind }
  local text = read_file(run_dir .. "/summary.json")
  local ok, s = pcall(json.decode, text or "")
  if not text or not ok or type(s) ~= "table" then
    r.crashed = true
    r.error = text and ("summary.json: " .. tostring(s)) or "no summary.json"
    local err = read_file(run_dir .. "/stderr.txt") or ""
    r.stderr_tail = err:sub(-400)
    return r
  end
  r.completed, r.failure = s.completed, s.failure
  r.collisions = s.collisions or 0
  r.coverage = s.coverage or 0
  r.sim_time_s, r.wall_time_s = s.sim_time_s, s.wall_time_s
  r.ramp = s.ramp
  r.total, r.engaged, r.missed = 0, 0, {}
  for i, src in ipairs(s.sources or {}) do
    r.total = r.total + 1
    if src.engaged then r.engaged = r.engaged + 1
    else r.missed[#r.missed + 1] = { index = i, because = src.missed_because, kind = w.kinds and w.kinds[i],
                                     temp = src.temp } end
  end
  r.sources = s.sources
  r.world_has_ramp = (w.ramp_kind and w.ramp_kind ~= "none") or nil
  r.timeout = s.failure ~= nil and tostring(s.failure):match("^mission timeout") ~= nil
  r.solved = r.engaged == r.total and r.collisions == 0 and not r.timeout
  return r
end

local function median(t)
  if #t == 0 then return 0 end
  local c = {}
  for i, v in ipairs(t) do c[i] = v end
  table.sort(c)
  local m = #c
  if m % 2 == 1 then return c[(m + 1) / 2] end
  return (c[m / 2] + c[m / 2 + 1]) / 2
end

local function totals_of(results, worlds_have_ramp)
  local T = { worlds = #results, sources = 0, engaged = 0, solved = 0, collisions = 0, crashed = 0,
              timeouts = 0, ramp_worlds = 0, ramp_climbed = 0, missed_because = {}, missed_by_kind = json.object() }
  for _, c in ipairs(Report.CATEGORIES) do T.missed_because[c] = 0 end
  local times = {}
  for _, r in ipairs(results) do
    if r.crashed then T.crashed = T.crashed + 1
    else
      T.sources, T.engaged = T.sources + r.total, T.engaged + r.engaged
      if r.solved then T.solved = T.solved + 1 end
      T.collisions = T.collisions + r.collisions
      if r.timeout then T.timeouts = T.timeouts + 1 end
      times[#times + 1] = r.sim_time_s
      if r.world_has_ramp or (worlds_have_ramp and r.ramp and r.ramp.detected) then
        T.ramp_worlds = T.ramp_worlds + 1
        if r.ramp and r.ramp.climbed then T.ramp_climbed = T.ramp_climbed + 1 end
      end
      for _, m in ipairs(r.missed) do
        local because = m.because or "unknown"
        T.missed_because[because] = (T.missed_because[because] or 0) + 1
        if m.kind then T.missed_by_kind[m.kind] = (T.missed_by_kind[m.kind] or 0) + 1 end
      end
    end
  end
  T.engaged_pct = T.sources > 0 and 100 * T.engaged / T.sources or 0
  T.solved_pct = T.worlds > 0 and 100 * T.solved / T.worlds or 0
  T.ramp_climbed_pct = T.ramp_worlds > 0 and 100 * T.ramp_climbed / T.ramp_worlds or 0
  T.median_sim_time_s = median(times)
  T.max_sim_time_s = 0
  for _, t in ipairs(times) do if t > T.max_sim_time_s then T.max_sim_time_s = t end end
  return T
end

local function line_of(r)
  if r.crashed then
    return ("%-12s CRASHED (exit %s): %s"):format(r.name, tostring(r.exit), r.error)
  end
  local missed = {}
  for _, m in ipairs(r.missed) do
    missed[#missed + 1] = ("%d:%s%s"):format(m.index, m.because or "?", m.kind and ("(" .. m.kind .. ")") or "")
  end
  return ("%-12s %d/%d engaged  coll %d  cover %3.0f%%  ramp %-9s %5.0f s  exit %d  %s"):format(
    r.name, r.engaged, r.total, r.collisions, r.coverage * 100,
    r.ramp and (r.ramp.climbed and "climbed" or (r.ramp.detected and "detected" or "-")) or "-",
    r.sim_time_s or 0, r.exit or -1, #missed > 0 and ("missed " .. table.concat(missed, " ")) or "")
end

-- Contact sheet ------------------------------------------------------------------
local function contact_sheet(results, out_dir, path)
  local tiles = {}
  local tw, th = 1, 1
  for _, r in ipairs(results) do
    local m = tycho.map.load(out_dir .. "/runs/" .. r.name .. "/map.yaml") -- nil: a run without a map
    if m then
      tiles[#tiles + 1] = { r = r, map = m }
      tw, th = math.max(tw, m.width), math.max(th, m.height)
    end
  end
  if #tiles == 0 then return nil, "no maps to draw" end
  local cols = math.ceil(math.sqrt(#tiles * th / tw))
  local rows = math.ceil(#tiles / cols)
  local res = tiles[1].map.resolution
  local gap = 4
  local W, H = cols * (tw + gap) + gap, rows * (th + gap) + gap
  local sheet = tycho.grid.new { width = W, height = H, resolution = res, origin = { x = 0, y = 0 } }
  sheet:fill(tycho.grid.UNKNOWN)
  local marks = {}
  for k, t in ipairs(tiles) do
    local col, row = (k - 1) % cols, math.floor((k - 1) / cols)
    local cx, cy = gap + col * (tw + gap), gap + (rows - 1 - row) * (th + gap)
    sheet:paste(t.map, cx, cy)
    local o = t.map.origin
    local function at(x, y) return cx * res + (x - o.x), cy * res + (y - o.y) end
    for _, s in ipairs(t.r.sources or {}) do
      local x, y = at(s.x, s.y)
      marks[#marks + 1] = { x = x, y = y, ok = s.engaged }
    end
  end
  local scale = math.max(1, math.min(4, math.floor(2400 / math.max(W, H))))
  local pic = tycho.picture(sheet, { scale = scale })
  for _, m in ipairs(marks) do
    if m.ok then pic:point(m.x, m.y, { color = "green", radius = 3 * scale, shape = "circle", width = 2 })
    else pic:point(m.x, m.y, { color = "red", radius = 4 * scale, shape = "cross", width = 2 }) end
  end
  return pic:save(path)
end

-- Main -----------------------------------------------------------------------------
return cli.run(spec, arg, function(opt)
  if (opt.generate ~= nil) == (opt.worlds ~= nil) then
    return cli.usage_error(spec, "give --generate N or --worlds DIR (one of them)")
  end
  if not opt.mission then
    -- beside this script, so the campaign runs from any folder
    local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
    opt.mission = here .. "/heat_seek.lua"
  end
  if not opt.out then
    if opt.generate then
      opt.out = ("out/campaign-%d-%d"):format(opt.seed0, opt.seed0 + opt.generate - 1)
    else
      opt.out = "out/campaign-" .. (opt.worlds:gsub("/+$", ""):match("([^/]+)$") or "worlds")
    end
  end
  if opt.out == "/" then return cli.usage_error(spec, "--out must not be /") end
  if not mkdir(opt.out .. "/runs") then
    io.stderr:write("campaign: cannot create ", opt.out, "/runs\n")
    return 2
  end
  local exe = self_exe()
  if not exe then io.stderr:write("campaign: cannot find the tycho executable\n") return 1 end
  local worlds, err
  if opt.generate then worlds, err = generate(opt) else worlds, err = list_worlds(opt.worlds) end
  if not worlds then io.stderr:write("campaign: ", err, "\n") return 2 end
  local jobs = opt.jobs or nproc()
  local sets = {}
  for _, s in ipairs(opt.set or {}) do sets[#sets + 1] = "--set " .. shq(s) end
  local by_name = {}
  local list = {}
  for _, w in ipairs(worlds) do
    by_name[w.name] = w
    local dir = opt.out .. "/runs/" .. w.name
    mkdir(dir)
    os.remove(dir .. "/summary.json")
    list[#list + 1] = shq(w.name) .. " " .. shq(w.path) .. " " .. shq(dir)
  end
  local jobfile = opt.out .. "/jobs.txt"
  assert(tycho.write_atomic(jobfile, table.concat(list, "\n") .. "\n"))
  local cmd = ("xargs -P %d -n 3 sh -c %s < %s"):format(jobs, shq(
    ("timeout -s KILL %d %s run %s --world \"$1\" --out \"$2\" --quiet %s > \"$2/stdout.txt\" 2> \"$2/stderr.txt\"; echo \"$0 $?\""):format(
      math.floor(opt["wall-limit"]), shq(exe), shq(opt.mission), table.concat(sets, " "))), shq(jobfile))
  io.stderr:write(("campaign: %d worlds, %d at a time, results in %s\n"):format(#worlds, jobs, opt.out))
  local t0 = tycho.clock.monotonic()
  local results = {}
  local p = assert(io.popen(cmd))
  for line in p:lines() do
    local name, status = line:match("^(%S+) (%d+)$")
    local w = name and by_name[name]
    if w then
      local r = result_of(w, opt.out .. "/runs/" .. name, tonumber(status))
      results[#results + 1] = r
      print(("[%3d/%d] %s"):format(#results, #worlds, line_of(r)))
      io.stdout:flush()
    end
  end
  p:close()
  local wall = tycho.clock.monotonic() - t0
  -- world order, whatever order they finished in
  local order = {}
  for i, w in ipairs(worlds) do order[w.name] = i end
  table.sort(results, function(a, b) return order[a.name] < order[b.name] end)
  local T = totals_of(results, not opt.generate)
  T.wall_time_s = wall
  T.jobs = jobs
  print(("campaign: %d worlds, %d/%d heat sources engaged (%.1f%%), %d/%d worlds solved (%.1f%%), %d collisions"):format(
    T.worlds, T.engaged, T.sources, T.engaged_pct, T.solved, T.worlds, T.solved_pct, T.collisions))
  print(("campaign: ramp climbed in %d/%d worlds with a ramp (%.1f%%), median %.0f s simulated (max %.0f), %d timeouts, %d crashed, %.0f s wall on %d jobs"):format(
    T.ramp_climbed, T.ramp_worlds, T.ramp_climbed_pct, T.median_sim_time_s, T.max_sim_time_s, T.timeouts,
    T.crashed, wall, jobs))
  local cats = {}
  for _, c in ipairs(Report.CATEGORIES) do
    if T.missed_because[c] > 0 then cats[#cats + 1] = ("%s %d"):format(c, T.missed_because[c]) end
  end
  print("campaign: missed because: " .. (#cats > 0 and table.concat(cats, ", ") or "nothing missed"))
  local kinds = {}
  for k, n in pairs(T.missed_by_kind) do kinds[#kinds + 1] = ("%s %d"):format(k, n) end
  table.sort(kinds)
  if #kinds > 0 then print("campaign: missed by source kind: " .. table.concat(kinds, ", ")) end
  local ok, werr = tycho.write_atomic(opt.out .. "/campaign.json",
    logmod.json({ schema_version = 1, -- schemas/campaign.schema.json
                  totals = T, worlds = results, seed0 = opt.generate and opt.seed0 or nil,
                  generate = opt.generate, noise = opt.noise or false, params = opt.set or {} }) .. "\n")
  if not ok then io.stderr:write("campaign: ", werr, "\n") return 1 end
  if opt.sheet then
    local sok, serr = pcall(contact_sheet, results, opt.out, opt.out .. "/sheet.png")
    if not sok then io.stderr:write("campaign: contact sheet: ", tostring(serr), "\n") end
  end
  print(("campaign: wrote %s/campaign.json%s"):format(opt.out, opt.sheet and " and sheet.png" or ""))
  return T.crashed == 0 and 0 or 1
end)
