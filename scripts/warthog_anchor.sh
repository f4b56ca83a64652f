#!/usr/bin/env bash
# Measures the JPS anchor bench_planners compares against: warthog's
# preprocessed jps2+ on the repository's own MovingAI scenario files.
# warthog is never part of tycho; build it by hand outside the repository:
#   git clone --recursive https://github.com/ShortestPathLab/warthog-jps
#   cd warthog-jps && cmake -DCMAKE_BUILD_TYPE=Release -B build && cmake --build build
# then: scripts/warthog_anchor.sh path/to/build/warthog-jps [runs]
# Prints, per map, the mean of warthog's per-query "nanos" column in us
# (best of RUNS runs) and whether every answer was optimal (--checkopt).
# Paste the figures into MAPS[] in tests/bench/bench_planners.c with the date.
set -euo pipefail
usage() { echo "usage: $0 WARTHOG_JPS_BINARY [RUNS=5] [ALG=jps2+]" >&2; exit 2; }
[ $# -ge 1 ] || usage
case "$1" in -h|--help) usage ;; esac
bin=$1 runs=${2:-5} alg=${3:-jps2+}
[ -x "$bin" ] || { echo "$0: $bin is not an executable" >&2; exit 2; }
data=$(cd "$(dirname "$0")/../tests/data/movingai" && pwd)
cd "$data"
for scen in *.map.scen; do
  map=${scen%.scen}
  best=""
  for _ in $(seq "$runs"); do
    rc=0
    out=$("$bin" --alg "$alg" --scen "$scen" --map "$map" --checkopt 2>&1) || rc=$?
    if [ "$rc" -ne 0 ] || grep -qi "optimality check failed\|suboptimal\|error" <<< "$out"; then
      echo "$map: warthog reported a non-optimal answer or an error (exit $rc)" >&2
      grep -i "optimality\|suboptimal\|error" <<< "$out" | head -3 >&2
      exit 1
    fi
    mean=$(awk -F'\t' '$1 == "id" { for (i = 1; i <= NF; i++) if ($i == "nanos") c = i; next }
                      c && $1 ~ /^[0-9]+$/ { s += $c; n++ }
                      END { if (n) printf "%.3f", s / n / 1000 }' <<< "$out")
    [ -n "$mean" ] || { echo "$map: no per-query lines in warthog's output" >&2; exit 1; }
    if [ -z "$best" ] || awk -v a="$mean" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$mean; fi
  done
  printf '%-24s %s %10s us/query (best of %d)\n' "$map" "$alg" "$best" "$runs"
done
