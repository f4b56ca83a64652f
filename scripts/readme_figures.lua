--- The README's figures from bench/results.json, so the prose cannot drift
-- from what the benchmarks last measured.
--
-- A figure in the README's text is written between two markers naming a
-- RESULT of a benchmark (tests/bench/result.h):
--
--   engaged <!--fig campaign.engaged_pct-->99.7 %<!--/fig--> of the sources
--   RMSE <!--fig slam_log.intel.rmse_m cm-->8.91 cm<!--/fig-->
--
-- and this module writes the text between them from the figure's value (the
-- optional word after the name shows it in another unit: cm or mm for a
-- figure in m). A marker naming a figure results.json does not have is an
-- error with README.md:line, as is an unclosed marker. scripts/bench.sh
-- rewrites them after every run; scripts/figures.sh rewrites or checks them
-- alone, and the ctest `readme_figures` fails when the README disagrees with
-- results.json.
--
--   lua5.4 scripts/readme_figures.lua [--check] [--readme README.md] [--results bench/results.json]
local M = {}

local UNIT_SHOWN = { us = "µs", ["us/scan"] = "µs/scan", ["us/frame"] = "µs/frame",
                     ["us/query"] = "µs/query", ["us/revolution"] = "µs/revolution",
                     x_real_time = "× real time", x = "×", deg = "°", bool = "" }

--- A value as people read it: three significant figures or so, and its unit.
function M.show(v, unit)
  if v == nil then return "—" end
  if v == math.huge then return "none (failed)" end
  local a = math.abs(v)
  local s
  if a == math.floor(a) and a < 1e6 then s = ("%d"):format(v)
  elseif a >= 100 then s = ("%.0f"):format(v)
  elseif a >= 10 then s = ("%.1f"):format(v)
  elseif a >= 1 then s = ("%.2f"):format(v)
  else s = ("%.3g"):format(v) end
  local u = UNIT_SHOWN[unit] or unit
  if unit == "bool" then return v >= 1 and "yes" or "no" end
  if u == "%" then return s .. " %" end
  if u == "°" then return s .. u end
  return u == "" and s or (s .. " " .. u)
end

-- another unit a marker may ask for: from which unit, times what
local CONVERT = { cm = { from = "m", scale = 100 }, mm = { from = "m", scale = 1000 } }

local OPEN = "<!--fig "
local CLOSE = "<!--/fig-->"

local function line_at(text, pos)
  local n = 1
  for _ in text:sub(1, pos - 1):gmatch "\n" do n = n + 1 end
  return n
end

--- The text a marker stands for, or nil and why.
local function shown(fig, as)
  if as == "" then return M.show(fig.value, fig.unit) end
  local c = CONVERT[as]
  if not c then
    local names = {}
    for k in pairs(CONVERT) do names[#names + 1] = k end
    table.sort(names)
    return nil, ("unknown unit '%s' (accepted: %s)"):format(as, table.concat(names, ", "))
  end
  if fig.unit ~= c.from then
    return nil, ("'%s' is in %s, not %s: it cannot be shown in %s"):format(fig.name, fig.unit, c.from, as)
  end
  return M.show(fig.value * c.scale, as)
end

--- text with every marker's content written from figures ({name = figure});
-- also the list of problems ("FILE:LINE: what") and of markers whose text
-- changed ({line, name, was, now}).
function M.apply(text, figures, file)
  file = file or "README.md"
  local out, problems, changed = {}, {}, {}
  local pos = 1
  while true do
    local a = text:find(OPEN, pos, true)
    if not a then break end
    local line = line_at(text, a)
    local head_end = text:find("-->", a, true)
    local spec = head_end and text:sub(a + #OPEN, head_end - 1)
    local name, as = (spec or ""):match "^([%w_.%-]+)%s*(%S*)%s*$"
    local b = head_end and text:find(CLOSE, head_end, true)
    local next_open = head_end and text:find(OPEN, head_end, true)
    if not name or not b or (next_open and next_open < b) then
      problems[#problems + 1] = ("%s:%d: a figure marker must read <!--fig NAME [UNIT]-->TEXT<!--/fig-->")
        :format(file, line)
      out[#out + 1] = text:sub(pos, (head_end or a + #OPEN - 1))
      pos = (head_end or a + #OPEN - 1) + 1
    else
      local old = text:sub(head_end + 3, b - 1)
      local fig = figures[name]
      local now, why
      if not fig then why = ("no figure '%s' in the results (a RESULT line's name)"):format(name)
      else now, why = shown(fig, as) end
      if not now then
        problems[#problems + 1] = ("%s:%d: %s"):format(file, line, why)
        now = old
      elseif now ~= old then
        changed[#changed + 1] = { line = line, name = name, was = old, now = now }
      end
      out[#out + 1] = text:sub(pos, head_end + 2) .. now .. CLOSE
      pos = b + #CLOSE
    end
  end
  out[#out + 1] = text:sub(pos)
  return table.concat(out), problems, changed
end

--- {name = figure} from a results.json document.
function M.by_name(doc)
  local t = {}
  for _, f in ipairs(doc.figures or {}) do t[f.name] = f end
  return t
end

local function main(argv)
  local util = require "script_util"
  local read_file = util.read_file
  local o = util.parse_args(argv, { prog = "readme_figures", flags = { check = true },
    values = { readme = true, results = true },
    usage = { "usage: lua5.4 scripts/readme_figures.lua [--check] [--readme README.md] [--results bench/results.json]",
              "  writes (or with --check, only compares) the README's <!--fig NAME-->...<!--/fig--> figures" } },
    { readme = "README.md", results = "bench/results.json" })
  local text = read_file(o.readme)
  if not text then io.stderr:write("readme_figures: cannot read ", o.readme, "\n") os.exit(2) end
  local rtext = read_file(o.results)
  if not rtext then io.stderr:write("readme_figures: cannot read ", o.results, "\n") os.exit(2) end
  local ok, doc = pcall(require("json_decode").decode, rtext)
  if not ok then io.stderr:write("readme_figures: ", o.results, ": ", tostring(doc), "\n") os.exit(2) end
  local new, problems, changed = M.apply(text, M.by_name(doc), o.readme)
  local markers, at = 0, 1
  while true do
    at = text:find(OPEN, at, true)
    if not at then break end
    markers, at = markers + 1, at + 1
  end
  for _, p in ipairs(problems) do io.stderr:write(p, "\n") end
  if o.check then
    for _, c in ipairs(changed) do
      io.stderr:write(("%s:%d: %s reads '%s', the results say '%s' (scripts/figures.sh rewrites it)\n")
        :format(o.readme, c.line, c.name, c.was, c.now))
    end
    if #problems > 0 or #changed > 0 then os.exit(1) end
    print(("readme_figures: %d figures in %s agree with %s"):format(markers, o.readme, o.results))
    return
  end
  if #problems > 0 then os.exit(1) end
  if new ~= text then assert(util.write_atomic(o.readme, new)) end
  for _, c in ipairs(changed) do
    print(("  %s:%d %s: %s -> %s"):format(o.readme, c.line, c.name, c.was, c.now))
  end
  print(("readme_figures: %d figures in %s, %d rewritten from %s"):format(markers, o.readme, #changed, o.results))
end

-- run as a script (not when required by bench_report.lua or a spec)
if arg and arg[0] and arg[0]:match "readme_figures%.lua$" then
  local here = arg[0]:match "^(.*)/[^/]*$" or "."
  package.path = here .. "/?.lua;" .. here .. "/../behaviors/?.lua;" .. package.path
  main(arg)
end

return M
