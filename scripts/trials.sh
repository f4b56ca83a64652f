#!/usr/bin/env bash
# Runs the reliability trials and soaks that are too long for a routine test
# run, with the counts the README quotes, and writes their figures into
# bench/results.json and the README's trials table (between its
# trials-table markers) from the RESULT lines they print, as
# scripts/bench.sh does for the benchmarks (each figure against the last run).
#
#   scripts/trials.sh [--only REGEX] [--soak-minutes N] [--build DIR] [--no-readme] [--list]
#
# --only RE          only the trials whose name matches RE (others keep theirs)
# --soak-minutes N   the attach soak's length (default 60)
# --build DIR        the build folder (default build; configured and built here)
# --no-readme        leave README.md alone (results.json is still written)
# --list             the trials and what each runs, then exit
#
# All of them take about 100 minutes with the 60-minute soak; the trials run
# one after another (several measure latency, so run nothing heavy beside
# them). arm64 installs its cross-compiler and :arm64 packages if missing.
# Logs of the runs: DIR/trial-logs/.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; }
build=build only="" readme=1 soak_minutes=60 list=0
args="$*"
while [ $# -gt 0 ]; do
  case $1 in
    --only | --only=*)
      if [[ $1 == *=* ]]; then only=${1#*=}; else
        [ $# -ge 2 ] || { echo "trials.sh: --only needs a regex" >&2; exit 2; }; only=$2; shift; fi ;;
    --soak-minutes | --soak-minutes=*)
      if [[ $1 == *=* ]]; then soak_minutes=${1#*=}; else
        [ $# -ge 2 ] || { echo "trials.sh: --soak-minutes needs a number" >&2; exit 2; }; soak_minutes=$2; shift; fi
      [[ $soak_minutes =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
        { echo "trials.sh: --soak-minutes: '$soak_minutes' is not a number of minutes" >&2; exit 2; } ;;
    --build | --build=*)
      if [[ $1 == *=* ]]; then build=${1#*=}; else
        [ $# -ge 2 ] || { echo "trials.sh: --build needs a folder" >&2; exit 2; }; build=$2; shift; fi ;;
    --no-readme) readme=0 ;;
    --list) list=1 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "trials.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

# name | what it runs (a spec is run by busted as ctest runs it)
TRIALS=(
  "flood|TYCHO_FLOOD=5000 spec attach_flood"
  "signals|TYCHO_SIGNAL_TRIALS=200 TYCHO_KILL_TRIALS=200 spec signals"
  "params_kill|TYCHO_KILL_TRIALS=200 spec params_roundtrip"
  "budgets|spec budgets"
  "console_slices|spec console_slices"
  "patterns|tycho run tests/bench/pattern_bench.lua"
  "options|tycho run tests/bench/options_bench.lua"
  "viz|node tests/bench/viz_bench.js"
  "arm64|bash scripts/arm64.sh"
  "soak|tycho run tests/bench/attach_soak.lua $soak_minutes"
)
if [ $list = 1 ]; then
  for t in "${TRIALS[@]}"; do printf '%-15s %s\n' "${t%%|*}" "${t#*|}"; done
  exit 0
fi

if [ ! -f "$build/CMakeCache.txt" ]; then
  bash scripts/build.sh "$build" -DTYCHO_WERROR=ON
else
  cmake --build "$build" -j "$(nproc)" > "$build/trials-build.log" 2>&1 ||
    { cat "$build/trials-build.log"; exit 1; }
fi
src=$PWD
bdir=$(cd "$build" && pwd)

# one trial's command, with the environment ctest gives the specs
run_trial() {
  local cmd=$1 envs=()
  while [[ $cmd == TYCHO_*=* ]]; do envs+=("${cmd%% *}"); cmd=${cmd#* }; done
  local common=(
    "LUA_CPATH=$bdir/?.so;;" "LUA_CPATH_5_4=$bdir/?.so;;"
    "LUA_PATH=$src/behaviors/?.lua;$src/bindings/?.lua;$src/tests/spec/?.lua;;"
    "LUA_PATH_5_4=$src/behaviors/?.lua;$src/bindings/?.lua;$src/tests/spec/?.lua;;"
    "TYCHO_EXE=$bdir/tycho" "TYCHO_BUILD_DIR=$bdir" "TYCHO_SOURCE_DIR=$src" "TYCHO_TEST_DATA=$src/tests/data"
    "TYCHO_DRIVER_PATH=$bdir/drivers:$bdir/test_plugins" "${envs[@]}")
  case $cmd in
    "spec "*)
      env "${common[@]}" lua5.4 /usr/bin/busted --ignore-lua --cpath="$bdir/?.so" --output=plainTerminal \
        "tests/spec/${cmd#spec }_spec.lua" ;;
    "tycho run "*) # shellcheck disable=SC2086 # the script and its arguments
      env "${common[@]}" "$bdir/tycho" run ${cmd#tycho run } ;;
    "node "*) env "${common[@]}" tests/node/run.sh "${cmd#node }" ;;
    # (not the Lua paths of this build: the arm64 build's tests would load its module)
    "bash "*) env "${envs[@]}" TYCHO_X86_EXE="$bdir/tycho" bash "${cmd#bash }" ;;
    *) echo "trials.sh: unknown kind of trial: $cmd" >&2; return 2 ;;
  esac
}

read -r load1 load5 load15 _ < /proc/loadavg
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
logs="$build/trial-logs"
rm -rf "$logs"
mkdir -p "$logs"
: > "$logs/index"
echo "trials.sh: load at start $load1 $load5 $load15 on $(nproc) cores"
for t in "${TRIALS[@]}"; do
  name=${t%%|*} cmd=${t#*|}
  if [ -n "$only" ] && ! [[ $name =~ $only ]]; then continue; fi
  echo "=== $name: $cmd  ($(date +%H:%M:%S))"
  t0=$(date +%s.%N)
  set +e
  run_trial "$cmd" > "$logs/trial_$name.log" 2>&1
  rc=$?
  set -e
  t1=$(date +%s.%N)
  grep '^RESULT ' "$logs/trial_$name.log" | cut -d' ' -f2-4 | sed 's/^/  /' || true
  [ $rc = 0 ] || { echo "  FAILED (exit $rc); the end of its log:"; tail -15 "$logs/trial_$name.log" | sed 's/^/  | /'; }
  echo "trial_$name $rc $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }")" >> "$logs/index"
done

report_args=(--kind trials --logs "$logs" --results bench/results.json --started "$started"
  --load "$load1 $load5 $load15" --cores "$(nproc)" --command "scripts/trials.sh${args:+ $args}"
  --commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo +dirty)")
[ $readme = 1 ] && report_args+=(--readme README.md)
mkdir -p bench
LUA_PATH="behaviors/?.lua;scripts/?.lua;;" lua5.4 scripts/bench_report.lua "${report_args[@]}"
