#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the demo mission.
# Extra arguments go to the mission script (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
echo "=== building (build/)"
bash scripts/build.sh build > build.log 2>&1 || { tail -40 build.log; exit 1; }
echo "=== running behaviors/plan_demo.lua"
exec ./build/tycho run behaviors/plan_demo.lua "$@"
