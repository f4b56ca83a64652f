#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the reference
# mission (behaviors/heat_seek.lua) in the built-in simulator on the small
# maze. Arguments go to the mission and override the defaults, e.g.
#   bash scripts/main.sh --world maps/maze_large.lua --seed 3
#   bash scripts/main.sh --help
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
echo "=== building (build/)"
bash scripts/build.sh build > build.log 2>&1 || { tail -40 build.log; exit 1; }
world=maps/maze_small.lua
# the default world unless the arguments name a world or a robot (--opt value or --opt=value)
for a in "$@"; do case "$a" in --world|--world=*|--robot|--robot=*) world="" ;; esac; done
echo "=== running behaviors/heat_seek.lua ${world:+--world $world} $*"
exec ./build/tycho run behaviors/heat_seek.lua ${world:+--world "$world"} "$@"
