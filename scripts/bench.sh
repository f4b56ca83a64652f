#!/usr/bin/env bash
# Runs every benchmark in tests/bench, then writes bench/results.json and the
# README's performance table (between its bench-table markers) from the
# RESULT lines they print (tests/bench/result.h), comparing each figure with
# the last recorded one (a change for the worse over 15 % is flagged).
#
#   scripts/bench.sh [--long] [--only REGEX] [--build DIR] [--no-readme]
#
# --long       also the long ones (bench_campaign, ~10 min; bench_planners
#              with its 3 passes per map instead of 1); without it the
#              campaign's last recorded figures are kept, with their own date
# --only RE    only the benchmarks whose name matches RE (others keep theirs)
# --build DIR  the build folder (default build; configured and built here)
# --no-readme  leave README.md alone (results.json is still written)
#
# The machine's load at the start is recorded: the figures of a loaded
# machine are pessimistic. Logs of the runs: DIR/bench-logs/.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; }
build=build long=0 only="" readme=1
args="$*"
while [ $# -gt 0 ]; do
  case $1 in
    --long) long=1 ;;
    --only) [ $# -ge 2 ] || { echo "bench.sh: --only needs a regex" >&2; exit 2; }; only=$2; shift ;;
    --build) [ $# -ge 2 ] || { echo "bench.sh: --build needs a folder" >&2; exit 2; }; build=$2; shift ;;
    --no-readme) readme=0 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "bench.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
LONG_BENCHES=" bench_campaign "

# the build the benches use: the default (RelWithDebInfo, -O2), -Werror as in CI
if [ ! -f "$build/CMakeCache.txt" ]; then
  bash scripts/build.sh "$build" -DTYCHO_WERROR=ON
else
  cmake --build "$build" -j "$(nproc)" > "$build/bench-build.log" 2>&1 ||
    { cat "$build/bench-build.log"; exit 1; }
fi

read -r load1 load5 load15 _ < /proc/loadavg
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
logs="$build/bench-logs"
rm -rf "$logs"
mkdir -p "$logs"
: > "$logs/index"
echo "bench.sh: load at start $load1 $load5 $load15 on $(nproc) cores"
for src in tests/bench/bench_*.c; do
  b=$(basename "$src" .c)
  if [ -n "$only" ] && ! [[ $b =~ $only ]]; then continue; fi
  if [ $long = 0 ] && [[ $LONG_BENCHES == *" $b "* ]]; then
    echo "=== $b: skipped (long; --long runs it)"
    continue
  fi
  echo "=== $b"
  t0=$(date +%s.%N)
  set +e
  reps=3
  [ $long = 1 ] || reps=1
  TYCHO_BENCH_REPS=$reps TYCHO_TEST_DATA="$PWD/tests/data" TYCHO_SOURCE_DIR="$PWD" \
    "$build/$b" > "$logs/$b.log" 2>&1
  rc=$?
  set -e
  t1=$(date +%s.%N)
  grep -v '^RESULT ' "$logs/$b.log" | sed 's/^/  /' || true
  echo "$b $rc $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }")" >> "$logs/index"
done

report_args=(--logs "$logs" --results bench/results.json --started "$started"
  --load "$load1 $load5 $load15" --cores "$(nproc)" --command "scripts/bench.sh${args:+ $args}"
  --commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo +dirty)")
[ $readme = 1 ] && report_args+=(--readme README.md)
mkdir -p bench
LUA_PATH="behaviors/?.lua;scripts/?.lua;;" lua5.4 scripts/bench_report.lua "${report_args[@]}"
