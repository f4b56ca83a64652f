#!/usr/bin/env bash
# The rock: `luarocks make` of tycho-0.1.0-1.rockspec (the tycho module and
# the runtime's Lua files as tycho.* modules) into TREE (default: the
# user's tree, ~/.luarocks), for Lua 5.4. Then:
#   eval "$(luarocks --lua-version 5.4 path)"; lua5.4 -e 'print(require "tycho".version)'
#   bash scripts/rock.sh [TREE]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
tree=(--local)
[ $# -ge 1 ] && tree=(--tree "$1")
CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) luarocks --lua-version 5.4 "${tree[@]}" make tycho-0.1.0-1.rockspec
