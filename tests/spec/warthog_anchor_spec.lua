-- scripts/warthog_anchor.sh measures the JPS anchor bench_planners compares
-- against with a warthog built outside the repository. CI has no warthog, so
-- a stand-in prints warthog's output format with known timings, and the
-- script's arithmetic, its best-of-runs choice and its refusals are checked.
local exe = require "helpers.exe"

local function write(path, text, mode)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  if mode then os.execute("chmod " .. mode .. " " .. exe.quote(path)) end
end

describe("scripts/warthog_anchor.sh", function()
  local dir = exe.tmpdir()
  os.execute("mkdir -p " .. exe.quote(dir))
  teardown(function() exe.remove_tree(dir) end)
  local fake = dir .. "/warthog-jps"
  local calls = dir .. "/calls"
  -- per call: 3 queries of 1000, 2000, 3000 ns on the first run of a map and
  -- 600, 1200, 1800 on the later ones (best of runs: the later ones)
  write(fake, ([[#!/bin/sh
scen="" ; map="" ; alg=""
while [ $# -gt 0 ]; do
  case $1 in --scen) scen=$2; shift ;; --map) map=$2; shift ;; --alg) alg=$2; shift ;; esac
  shift
done
n=$(grep -c "$scen" %s 2>/dev/null || true)
echo "$scen" >> %s
f=1; [ "$n" -gt 0 ] && f=0.6
[ -n "$FAKE_SUBOPTIMAL" ] && { echo "optimality check failed!" >&2; exit 4; }
echo "mapfile=$map"
printf 'id\talg\texpanded\tgenerated\treopen\tsurplus\theapops\tnanos\tplen\tpcost\tscost\tmap\n'
for i in 1 2 3; do
  printf '%%d\t%%s\t1\t1\t0\t0\t1\t%%s\t1\t1\t1\t%%s\n' $((i - 1)) "$alg" "$(awk -v i=$i -v f=$f 'BEGIN { print i * 1000 * f }')" "$scen"
done
]]):format(exe.quote(calls), exe.quote(calls)), "755")

  it("prints the mean of the nanos column in us, best of the runs, for every scenario file", function()
    local code, out = exe.shell(("scripts/warthog_anchor.sh %s 3"):format(exe.quote(fake)))
    assert.are.equal(0, code, out)
    -- (600 + 1200 + 1800) / 3 ns = 1.2 us
    assert.matches("arena%.map%s+jps2%+%s+1%.200 us/query %(best of 3%)", out)
    assert.matches("room%-32%-32%-4%.map%s+jps2%+%s+1%.200 us/query", out)
    local n = 0
    for _ in out:gmatch("us/query") do n = n + 1 end
    local files = 0
    for name in io.popen("ls " .. exe.quote(exe.SRC .. "/tests/data/movingai")):lines() do
      if name:match("%.map%.scen$") then files = files + 1 end
    end
    assert.are.equal(files, n)
  end)

  it("stops on an answer warthog reports as not optimal", function()
    local code, out = exe.shell(("FAKE_SUBOPTIMAL=1 scripts/warthog_anchor.sh %s 1"):format(exe.quote(fake)))
    assert.are.equal(1, code, out)
    assert.matches("non%-optimal answer or an error", out)
  end)

  it("refuses a missing binary and no arguments with exit 2", function()
    local code, out = exe.shell("scripts/warthog_anchor.sh /nonexistent/warthog-jps")
    assert.are.equal(2, code, out)
    assert.matches("is not an executable", out)
    code, out = exe.shell("scripts/warthog_anchor.sh")
    assert.are.equal(2, code, out)
    assert.matches("usage:", out)
  end)
end)
