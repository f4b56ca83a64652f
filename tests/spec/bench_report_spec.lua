-- scripts/bench_report.lua, the half of scripts/bench.sh that turns the
-- benchmarks' RESULT lines into bench/results.json and the README table:
-- targets met or missed, regressions over 15 % against the last run, figures
-- of benchmarks not run this time kept, and bad input named by file:line.
local json = require "json_decode"

local function shq(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local function tmpdir()
  local d = os.tmpname()
  os.remove(d)
  assert(os.execute("mkdir -p " .. shq(d)))
  return d
end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

local function read(path)
  local f = assert(io.open(path))
  local s = f:read "*a"
  f:close()
  return s
end

--- logs: {bench = {rc = n, lines = {...}}}, in the order given by `order`
local function make_logs(dir, order, logs)
  local index = {}
  for _, b in ipairs(order) do
    write(dir .. "/" .. b .. ".log", table.concat(logs[b].lines, "\n") .. "\n")
    index[#index + 1] = ("%s %d 1.5"):format(b, logs[b].rc or 0)
  end
  write(dir .. "/index", table.concat(index, "\n") .. "\n")
end

local function report(dir, extra)
  local cmd = table.concat({
    "LUA_PATH='behaviors/?.lua;scripts/?.lua;;'", "lua5.4", "scripts/bench_report.lua",
    "--logs", shq(dir), "--results", shq(dir .. "/results.json"),
    "--started", "2026-01-02T03:04:05Z", "--load", shq("0.5 0.4 0.3"), "--cores", "2",
    "--command", shq("scripts/bench.sh"), "--commit", "abc123", extra or "",
  }, " ") .. " > " .. shq(dir .. "/out.txt") .. " 2>&1"
  local ok = os.execute(cmd)
  return ok == true or ok == 0, read(dir .. "/out.txt")
end

local README = "# x\n\n## Performance\n\nintro\n\n"
  .. "<!-- bench-table:begin (scripts/bench.sh writes this table) -->\nold table\n<!-- bench-table:end -->\n\nafter\n"

local function by_name(doc)
  local t = {}
  for _, f in ipairs(doc.figures) do t[f.name] = f end
  return t
end

describe("bench_report", function()
  it("writes every figure with its target and verdict, and the README table between the markers", function()
    local d = tmpdir()
    make_logs(d, { "bench_a", "bench_b" }, {
      bench_a = { lines = { "human text", "RESULT a.fast_ns 80 ns/ray <=100 `bench_a`: fast rays",
                            "RESULT a.slow_us 120 us/scan <=50 `bench_a`: slow scans" } },
      bench_b = { lines = { "RESULT b.speed_x 900 x_real_time >=20 `bench_b`: sim speed",
                            "RESULT b.info_ms 3.25 ms - `bench_b`: no target" } },
    })
    write(d .. "/README.md", README)
    local ok, out = report(d, "--readme " .. shq(d .. "/README.md"))
    assert.is_true(ok, out)
    local doc = json.decode(read(d .. "/results.json"))
    local f = by_name(doc)
    assert.are.equal(4, #doc.figures)
    assert.is_true(f["a.fast_ns"].pass)
    assert.is_false(f["a.slow_us"].pass)
    assert.is_true(f["b.speed_x"].pass)
    assert.is_nil(f["b.info_ms"].pass)
    assert.are.equal("0.5 0.4 0.3", doc.machine.load_at_start)
    assert.are.equal(2, doc.machine.cores)
    assert.matches("MISS%s+a.slow_us", out)
    local readme = read(d .. "/README.md")
    assert.matches("^# x\n\n## Performance\n\nintro\n\n<!%-%- bench%-table:begin", readme)
    assert.matches("<!%-%- bench%-table:end %-%->\n\nafter\n$", readme)
    assert.is_nil(readme:find("old table", 1, true))
    assert.matches("| `bench_a`: slow scans | 120 µs/scan | ≤ 50 µs/scan | **no: misses its target** |", readme, 1, true)
    assert.matches("| `bench_b`: sim speed | 900 × real time | ≥ 20 × real time | yes |", readme, 1, true)
    assert.matches("load at start 0.5 0.4 0.3 on 2 cores", readme, 1, true)
  end)

  it("flags a change for the worse over 15 % against the last run, either direction of better", function()
    local d = tmpdir()
    make_logs(d, { "bench_a", "bench_b" }, {
      bench_a = { lines = { "RESULT a.t1 100 ns <=200 one", "RESULT a.t2 100 ns <=200 two",
                            "RESULT a.errors 0 rays <=0 errors" } },
      bench_b = { lines = { "RESULT b.speed 1000 x_real_time >=20 speed" } },
    })
    assert.is_true((report(d)))
    -- a.t1 30 % slower, a.t2 10 % slower, errors from 0 to 2, speed 20 % lower
    make_logs(d, { "bench_a", "bench_b" }, {
      bench_a = { lines = { "RESULT a.t1 130 ns <=200 one", "RESULT a.t2 110 ns <=200 two",
                            "RESULT a.errors 2 rays <=0 errors" } },
      bench_b = { lines = { "RESULT b.speed 800 x_real_time >=20 speed" } },
    })
    local ok, out = report(d)
    assert.is_true(ok, out)
    local f = by_name(json.decode(read(d .. "/results.json")))
    assert.is_true(f["a.t1"].regression)
    assert.are.equal(100, f["a.t1"].previous)
    assert.is_nil(f["a.t2"].regression)
    assert.is_true(f["a.errors"].regression)
    assert.is_true(f["b.speed"].regression)
    assert.matches("REGRESSION%s+a.t1", out)
    assert.is_nil(out:find("REGRESSION  a.t2", 1, true))
  end)

  it("keeps the figures of a benchmark not run this time, with their own date", function()
    local d = tmpdir()
    make_logs(d, { "bench_a", "bench_long" }, {
      bench_a = { lines = { "RESULT a.t 1 ms <=2 a" } },
      bench_long = { lines = { "RESULT long.t 5 s <=10 long one" } },
    })
    assert.is_true((report(d)))
    make_logs(d, { "bench_a" }, { bench_a = { lines = { "RESULT a.t 1.1 ms <=2 a" } } })
    write(d .. "/README.md", README)
    local ok, out = report(d, "--readme " .. shq(d .. "/README.md"))
    assert.is_true(ok, out)
    local f = by_name(json.decode(read(d .. "/results.json")))
    assert.is_true(f["long.t"].carried)
    assert.are.equal(5, f["long.t"].value)
    assert.matches("| long one | 5 s | ≤ 10 s | yes | not run this time | 2026-01-02 |", read(d .. "/README.md"), 1, true)
  end)

  it("writes the trials' figures (scripts/trials.sh, --kind trials) into their own table, kept by a bench run", function()
    local d = tmpdir()
    local readme = README .. "\n<!-- trials-table:begin (scripts/trials.sh writes this table) -->\nNot run yet.\n"
      .. "<!-- trials-table:end -->\n\nend\n"
    write(d .. "/README.md", readme)
    make_logs(d, { "trial_flood", "trial_soak" }, {
      trial_flood = { lines = { "busted says", "RESULT flood.p99_ms 1.2 ms <=5 flood p99" } },
      trial_soak = { lines = { "RESULT soak.lost 0 answers <=0 answers lost" } },
    })
    local ok, out = report(d, "--kind trials --readme " .. shq(d .. "/README.md"))
    assert.is_true(ok, out)
    local text = read(d .. "/README.md")
    local trials = text:match "trials%-table:begin.-trials%-table:end"
    assert.matches("| trial | figure |", trials, 1, true)
    assert.matches("| flood p99 | 1.20 ms | ≤ 5 ms | yes |", trials, 1, true)
    assert.matches("Last written by `scripts/bench.sh`", trials, 1, true) -- (the command this spec passes)
    assert.is_nil(text:match("bench%-table:begin.-bench%-table:end"):find("flood p99", 1, true))
    -- a bench run rewrites its table and keeps the trials' rows and when they ran
    make_logs(d, { "bench_a" }, { bench_a = { lines = { "RESULT a.t 1 ms <=2 a" } } })
    ok, out = report(d, "--readme " .. shq(d .. "/README.md"))
    assert.is_true(ok, out)
    text = read(d .. "/README.md")
    trials = text:match "trials%-table:begin.-trials%-table:end"
    assert.matches("| flood p99 | 1.20 ms | ≤ 5 ms | yes | not run this time | 2026-01-02 |", trials, 1, true)
    assert.matches("| a | 1 ms |", text:match "bench%-table:begin.-bench%-table:end", 1, true)
    local doc = json.decode(read(d .. "/results.json"))
    assert.are.equal("2026-01-02T03:04:05Z", doc.trials_run.generated)
    -- a trial whose checks failed fails the report, even with figures printed
    make_logs(d, { "trial_flood" }, { trial_flood = { rc = 1, lines = { "RESULT flood.p99_ms 1.2 ms <=5 flood p99" } } })
    ok, out = report(d, "--kind trials --readme " .. shq(d .. "/README.md"))
    assert.is_false(ok)
    assert.matches("trial_flood failed (exit 1)", out, 1, true)
    ok, out = report(d, "--kind soak")
    assert.is_false(ok)
    assert.matches("--kind is bench or trials", out, 1, true)
  end)

  it("names the file and line of a malformed RESULT line, and fails", function()
    local d = tmpdir()
    make_logs(d, { "bench_a" }, { bench_a = { lines = { "fine", "RESULT a.t fast ns <=2 a" } } })
    local ok, out = report(d)
    assert.is_false(ok)
    assert.matches("bench_a.log:2: bad value 'fast'", out, 1, true)
    make_logs(d, { "bench_a" }, { bench_a = { lines = { "RESULT a.t 1 ns ~2 a" } } })
    ok, out = report(d)
    assert.is_false(ok)
    assert.matches("bench_a.log:1: bad target '~2'", out, 1, true)
  end)

  it("fails on a benchmark that printed no RESULT line, a README without markers, an unknown option", function()
    local d = tmpdir()
    make_logs(d, { "bench_a" }, { bench_a = { rc = 139, lines = { "Segmentation fault" } } })
    local ok, out = report(d)
    assert.is_false(ok)
    assert.matches("bench_a printed no RESULT line (exit 139)", out, 1, true)
    make_logs(d, { "bench_a" }, { bench_a = { lines = { "RESULT a.t 1 ms <=2 a" } } })
    write(d .. "/README.md", "# no markers\n")
    ok, out = report(d, "--readme " .. shq(d .. "/README.md"))
    assert.is_false(ok)
    assert.matches("markers", out, 1, true)
    assert.are.equal("# no markers\n", read(d .. "/README.md"))
    ok, out = report(d, "--colour red")
    assert.is_false(ok)
    assert.matches("unknown option '--colour'", out, 1, true)
  end)

  it("writes the figures quoted in the README's text from the results, and the check names what disagrees", function()
    local d = tmpdir()
    make_logs(d, { "bench_a" }, { bench_a = { lines = { "RESULT a.rmse_m 0.0891 m <=0.1 a", "RESULT a.pct 99.66 % >=99 b" } } })
    write(d .. "/README.md", README .. "RMSE <!--fig a.rmse_m cm-->1 cm<!--/fig--> and\n"
      .. "<!--fig a.pct-->old<!--/fig--> engaged\n")
    local ok, out = report(d, "--readme " .. shq(d .. "/README.md"))
    assert.is_true(ok, out)
    local text = read(d .. "/README.md")
    assert.matches("RMSE <!--fig a.rmse_m cm-->8.91 cm<!--/fig--> and", text, 1, true)
    assert.matches("<!--fig a.pct-->99.7 %<!--/fig--> engaged", text, 1, true)
    -- the check alone: agrees now; a hand edit is named with its line
    local function check(readme)
      local cmd = ("LUA_PATH='behaviors/?.lua;scripts/?.lua;;' lua5.4 scripts/readme_figures.lua --check --readme %s "
        .. "--results %s > %s 2>&1"):format(shq(readme), shq(d .. "/results.json"), shq(d .. "/check.txt"))
      local r = os.execute(cmd)
      return r == true or r == 0, read(d .. "/check.txt")
    end
    assert.is_true((check(d .. "/README.md")))
    write(d .. "/README.md", text:gsub("8.91 cm", "7 cm"))
    local good, msg = check(d .. "/README.md")
    assert.is_false(good)
    assert.matches("README.md:17: a.rmse_m reads '7 cm', the results say '8.91 cm'", msg, 1, true)
    -- an unknown figure, a unit it cannot be shown in, an unclosed marker: file:line each
    write(d .. "/README.md", "x\n<!--fig nope-->1<!--/fig-->\n<!--fig a.pct cm-->1<!--/fig-->\n<!--fig a.pct-->1\n")
    good, msg = check(d .. "/README.md")
    assert.is_false(good)
    assert.matches("README.md:2: no figure 'nope'", msg, 1, true)
    assert.matches("README.md:3: 'a.pct' is in %, not m", msg, 1, true)
    assert.matches("README.md:4: a figure marker must read", msg, 1, true)
  end)
end)
