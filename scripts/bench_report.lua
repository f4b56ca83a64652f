--- bench/results.json and the README's performance table from the RESULT lines
-- of a scripts/bench.sh run (format: tests/bench/result.h).
--
-- Each figure is kept with the date it was measured; a benchmark that was not
-- run this time (a long one without --long, or outside --only) keeps its last
-- recorded figures. A figure is compared with the one recorded before: a
-- change for the worse over 15 % is a regression, flagged in the table and
-- listed at the end. Usage: see scripts/bench.sh (it passes every option).
-- its sibling scripts/readme_figures.lua and behaviors/json_decode.lua, from
-- wherever it is started (LUA_PATH_5_4 may be set and win over LUA_PATH)
local here = (arg and arg[0] or ""):match "^(.*)/[^/]*$" or "."
package.path = here .. "/?.lua;" .. here .. "/../behaviors/?.lua;" .. package.path
local json = require "json_decode"
local figures_mod = require "readme_figures"

local REGRESSION = 0.15
-- two tables: the benchmarks' (scripts/bench.sh) and the reliability
-- trials and soaks' (scripts/trials.sh; their runs are named trial_*)
local TABLES = {
  bench = { begin = "<!-- bench-table:begin (scripts/bench.sh writes this table) -->",
            finish = "<!-- bench-table:end -->", first_column = "benchmark" },
  trials = { begin = "<!-- trials-table:begin (scripts/trials.sh writes this table) -->",
             finish = "<!-- trials-table:end -->", first_column = "trial" },
}
local function kind_of(bench) return bench:match "^trial_" and "trials" or "bench" end

local function die(msg)
  io.stderr:write("bench_report: ", msg, "\n")
  os.exit(1)
end

local function parse_args(argv)
  local known = { logs = true, results = true, readme = true, started = true, load = true,
                  cores = true, command = true, commit = true, kind = true }
  local o = {}
  local i = 1
  while i <= #argv do
    local k = argv[i]:match("^%-%-([%w_]+)$")
    if not k or not known[k] then die(("argument %d: unknown option '%s'"):format(i, argv[i])) end
    if argv[i + 1] == nil then die(("argument %d: --%s needs a value"):format(i, k)) end
    o[k] = argv[i + 1]
    i = i + 2
  end
  for _, k in ipairs { "logs", "results", "started", "load", "cores", "command", "commit" } do
    if not o[k] then die("--" .. k .. " is required") end
  end
  o.kind = o.kind or "bench"
  if not TABLES[o.kind] then die("--kind is bench or trials, not '" .. o.kind .. "'") end
  return o
end

local util = require "script_util"
local read_file = util.read_file

local function write_atomic(path, text)
  local ok, err = util.write_atomic(path, text)
  if not ok then die(err) end
end

local function number(s)
  if s == "inf" then return math.huge end
  if s == "-inf" then return -math.huge end
  return tonumber(s)
end

--- One RESULT line -> figure, or nil and why.
local function parse_result(line)
  local name, value, unit, target, desc = line:match("^RESULT (%S+) (%S+) (%S+) (%S+) (.+)$")
  if not name then return nil, "not RESULT name value unit target description" end
  if not name:match("^[%w_.%-]+$") then return nil, "bad name '" .. name .. "'" end
  local v = number(value)
  if not v or v ~= v then return nil, "bad value '" .. value .. "'" end
  local fig = { name = name, value = v, unit = unit, description = desc }
  if target ~= "-" then
    local cmp, t = target:match("^([<>]=)(%S+)$")
    t = t and number(t)
    if not t then return nil, "bad target '" .. target .. "' (<=X, >=X or -)" end
    fig.cmp, fig.target = cmp, t
    fig.pass = (cmp == "<=" and v <= t) or (cmp == ">=" and v >= t)
  end
  return fig
end

--- The runs of this time: {bench = {rc, seconds, figures}} in index order.
local function read_runs(dir)
  local index = read_file(dir .. "/index") or die("no " .. dir .. "/index")
  local runs = {}
  local n = 0
  for line in index:gmatch "[^\n]+" do
    n = n + 1
    local bench, rc, secs = line:match "^(%S+) (%d+) (%S+)$"
    if not bench then die(("%s/index:%d: bad line"):format(dir, n)) end
    local log = read_file(dir .. "/" .. bench .. ".log") or ""
    local figures, ln = {}, 0
    for l in (log .. "\n"):gmatch "([^\n]*)\n" do
      ln = ln + 1
      if l:match "^RESULT " then
        local fig, why = parse_result(l)
        if not fig then die(("%s/%s.log:%d: %s"):format(dir, bench, ln, why)) end
        figures[#figures + 1] = fig
      end
    end
    runs[#runs + 1] = { bench = bench, rc = tonumber(rc), seconds = tonumber(secs), figures = figures }
  end
  return runs
end

-- a figure without a target: lower is better unless its unit says otherwise
local HIGHER_IS_BETTER = { x_real_time = true, x = true }
local function lower_is_better(fig)
  if fig.cmp then return fig.cmp ~= ">=" end
  return not HIGHER_IS_BETTER[fig.unit]
end

--- Relative change for the worse (> 0) or better (< 0) against prev; nil if none.
local function worse_by(fig, prev)
  if not prev or type(prev.value) ~= "number" or fig.value == math.huge then return nil end
  local p, v = prev.value, fig.value
  if p == 0 then
    if v == 0 then return 0 end
    return lower_is_better(fig) and math.huge or -math.huge
  end
  local change = (v - p) / math.abs(p)
  return lower_is_better(fig) and change or -change
end

-- JSON out: keys sorted, so results.json diffs stay readable
local function encode(v, indent)
  indent = indent or ""
  local t = type(v)
  if t == "nil" then return "null" end
  if t == "boolean" then return tostring(v) end
  if t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then return "null" end
    if math.type(v) == "integer" or (v == math.floor(v) and math.abs(v) < 1e15) then
      return ("%d"):format(v)
    end
    return ("%.6g"):format(v)
  end
  if t == "string" then
    return '"' .. v:gsub('[%c"\\]', function(c)
      local map = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t", ["\r"] = "\\r" }
      return map[c] or ("\\u%04x"):format(c:byte())
    end) .. '"'
  end
  local inner = indent .. "  "
  if #v > 0 or next(v) == nil then
    if next(v) == nil then return "[]" end
    local parts = {}
    for _, x in ipairs(v) do parts[#parts + 1] = inner .. encode(x, inner) end
    return "[\n" .. table.concat(parts, ",\n") .. "\n" .. indent .. "]"
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts + 1] = inner .. encode(k) .. ": " .. encode(v[k], inner) end
  return "{\n" .. table.concat(parts, ",\n") .. "\n" .. indent .. "}"
end

local show = figures_mod.show

local function md_cell(s) return (s:gsub("|", "\\|")) end

local function table_rows(figures, first_column)
  local rows = {
    "| " .. first_column .. " | figure | target | met | change since the last run | measured |",
    "|---|---|---|---|---|---|",
  }
  for _, f in ipairs(figures) do
    local target = f.cmp and ((f.cmp == "<=" and "≤ " or "≥ ") .. show(f.target, f.unit)) or "—"
    if f.unit == "bool" and f.cmp then target = "yes" end
    local met = f.cmp == nil and "—" or (f.pass and "yes" or "**no: misses its target**")
    local change = "—"
    if f.worse_by then
      local pct = f.worse_by * 100
      if f.worse_by == math.huge then change = "**regression** (was 0)"
      elseif f.worse_by == -math.huge then change = "better (was 0)"
      else
        change = ("%s %.0f %%"):format(pct > 0 and "worse" or "better", math.abs(pct))
        if math.abs(pct) < 0.5 then change = "same" end
        if f.regression then change = "**regression**: " .. change end
      end
    end
    if f.carried then change = "not run this time" end
    rows[#rows + 1] = ("| %s | %s | %s | %s | %s | %s |"):format(md_cell(f.description),
      md_cell(show(f.value, f.unit)), md_cell(target), met, change, f.measured:sub(1, 10))
  end
  return table.concat(rows, "\n")
end

--- text with the table of one kind between its markers; a README without the
-- trials markers is left as it is when there are no trial figures
local function put_table(text, path, kind, meta, figures)
  local t = TABLES[kind]
  local a = text:find(t.begin, 1, true)
  local b = text:find(t.finish, 1, true)
  if not a or not b or b < a then
    if kind == "trials" and #figures == 0 then return text end
    die(path .. ": the markers '" .. t.begin .. "' and '" .. t.finish .. "' are missing")
  end
  local body = t.begin .. "\n" .. meta .. "\n\n" .. table_rows(figures, t.first_column) .. "\n" .. t.finish
  return text:sub(1, a - 1) .. body .. text:sub(b + #t.finish)
end

local function update_readme(path, tables, figures)
  local text = read_file(path) or die("cannot read " .. path)
  for _, kind in ipairs { "bench", "trials" } do
    text = put_table(text, path, kind, tables[kind].meta, tables[kind].figures)
  end
  -- and the figures quoted in the text (scripts/readme_figures.lua)
  local problems, changed
  text, problems, changed = figures_mod.apply(text, figures_mod.by_name { figures = figures }, path)
  for _, p in ipairs(problems) do io.stderr:write("bench_report: ", p, "\n") end
  write_atomic(path, text)
  return changed
end

local function main(argv)
  local o = parse_args(argv)
  local runs = read_runs(o.logs)

  local prev = {}
  local prev_text = read_file(o.results)
  local prev_doc
  if prev_text then
    local ok, doc = pcall(json.decode, prev_text)
    if not ok then die(o.results .. ": " .. tostring(doc)) end
    prev_doc = doc
    for _, f in ipairs(doc.figures or {}) do prev[f.name] = f end
  end

  local figures, seen, ran, problems = {}, {}, {}, {}
  for _, r in ipairs(runs) do
    ran[r.bench] = true
    if #r.figures == 0 then
      problems[#problems + 1] = ("%s printed no RESULT line (exit %d)"):format(r.bench, r.rc)
    elseif r.rc ~= 0 and kind_of(r.bench) == "trials" then
      -- a benchmark's exit code says a target was missed; a trial's, that a check failed
      problems[#problems + 1] = ("%s failed (exit %d): see its log in %s"):format(r.bench, r.rc, o.logs)
    end
    for _, f in ipairs(r.figures) do
      if seen[f.name] then die(("%s: figure %s printed twice"):format(r.bench, f.name)) end
      seen[f.name] = true
      f.bench, f.exit_code, f.measured = r.bench, r.rc, o.started
      local p = prev[f.name]
      f.previous = p and p.value or nil
      f.previous_measured = p and p.measured or nil
      f.worse_by = worse_by(f, p)
      f.regression = f.worse_by ~= nil and f.worse_by > REGRESSION or nil
      figures[#figures + 1] = f
    end
  end
  -- benchmarks not run this time keep their last figures
  for _, f in ipairs(prev_doc and prev_doc.figures or {}) do
    if not ran[f.bench] and not seen[f.name] then
      f.carried = true
      f.worse_by, f.regression = nil, nil
      figures[#figures + 1] = f
    end
  end
  -- by benchmark, each keeping the order it printed its figures in
  for i, f in ipairs(figures) do f.order = i end
  table.sort(figures, function(x, y)
    if x.bench ~= y.bench then return x.bench < y.bench end
    return x.order < y.order
  end)
  for _, f in ipairs(figures) do f.order = nil end

  -- when and how each kind was last run: this run's, the other kind's kept
  local this_run = { generated = o.started, command = o.command, commit = o.commit,
                     machine = { load_at_start = o.load, cores = tonumber(o.cores) } }
  local last = { bench = prev_doc and prev_doc.generated and {
                   generated = prev_doc.generated, command = prev_doc.command, commit = prev_doc.commit,
                   machine = prev_doc.machine } or nil,
                 trials = prev_doc and prev_doc.trials_run or nil }
  last[o.kind] = this_run
  local doc = {
    schema = 1,
    trials_run = last.trials,
    regression_threshold = REGRESSION,
    figures = figures,
    runs = {},
  }
  for k, v in pairs(last.bench or {}) do doc[k] = v end
  for _, r in ipairs(runs) do
    doc.runs[#doc.runs + 1] = { bench = r.bench, exit_code = r.rc, seconds = r.seconds,
                                figures = #r.figures }
  end
  for _, f in ipairs(figures) do
    if f.cmp then f.pass = f.pass == true else f.pass = nil end
  end
  write_atomic(o.results, encode(doc) .. "\n")

  local misses, regressions = {}, {}
  local tables = { bench = { figures = {}, misses = 0, missed_now = 0, regressions = 0 },
                   trials = { figures = {}, misses = 0, missed_now = 0, regressions = 0 } }
  for _, f in ipairs(figures) do
    local t = tables[kind_of(f.bench)]
    t.figures[#t.figures + 1] = f
    if f.cmp and not f.pass then t.misses = t.misses + 1 end
    if f.cmp and not f.pass and not f.carried then
      misses[#misses + 1] = f
      t.missed_now = t.missed_now + 1
    end
    if f.regression then
      regressions[#regressions + 1] = f
      t.regressions = t.regressions + 1
    end
  end
  if o.readme then
    for kind, t in pairs(tables) do
      local run = last[kind]
      if not run then
        t.meta = "Not run yet."
      else
        t.meta = ("%s by `%s` on %s (commit %s), load at start %s on %d cores; %d figures, %d miss their "
          .. "target"):format(kind == "bench" and "Generated" or "Last written", run.command, run.generated,
            run.commit, run.machine.load_at_start, run.machine.cores, #t.figures, t.misses)
        -- what this run measured (a row's own date says when it was measured)
        if kind == o.kind then
          t.meta = t.meta .. (" (%d of them measured by this run), %d regressed by more than %d %% since the "
            .. "run before"):format(t.missed_now, t.regressions, REGRESSION * 100)
        end
        t.meta = t.meta .. ". Raw: `bench/results.json`."
      end
    end
    local changed = update_readme(o.readme, tables, figures)
    print(("bench_report: %d figures quoted in %s rewritten"):format(#changed, o.readme))
  end
  print(("bench_report: %d figures written to %s%s"):format(#figures, o.results,
    o.readme and (" and " .. o.readme) or ""))
  for _, f in ipairs(misses) do
    print(("  MISS  %s = %s (target %s %s)"):format(f.name, show(f.value, f.unit), f.cmp, show(f.target, f.unit)))
  end
  for _, f in ipairs(regressions) do
    print(("  REGRESSION  %s = %s, was %s (%s)"):format(f.name, show(f.value, f.unit),
      show(f.previous, f.unit), f.worse_by == math.huge and "was 0" or ("%+.0f %%"):format(f.worse_by * 100)))
  end
  for _, p in ipairs(problems) do print("  PROBLEM  " .. p) end
  if #problems > 0 then os.exit(1) end
end

main(arg)
