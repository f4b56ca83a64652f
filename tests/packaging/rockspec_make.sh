#!/usr/bin/env bash
# ctest rockspec_make: `luarocks make` of the rockspec, on a copy of the
# source tree, into a rocks tree of its own; then, on that tree's paths only,
# the stock interpreter loads the module and the runtime's Lua files under
# both their names, and builds and plans on a grid through them. Exit 77
# (skipped) when luarocks is not installed (scripts/deps.sh installs it).
#   rockspec_make.sh SRC LUA
set -euo pipefail
src=$1 lua=$2
fail() { echo "rockspec_make: FAIL: $*" >&2; exit 1; }
command -v luarocks > /dev/null || { echo "rockspec_make: SKIPPED: no luarocks (scripts/deps.sh installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
tar -C "$src" --exclude-vcs --exclude='./build*' --exclude=./out -cf - . | tar -C "$tmp/src" -xf -
rocks=(luarocks --lua-version 5.4 --tree "$tmp/tree")
start=$(date +%s)
(cd "$tmp/src" && CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "${rocks[@]}" make > "$tmp/make.log" 2>&1) \
  || { cat "$tmp/make.log"; fail "luarocks make"; }
echo "luarocks make: $(( $(date +%s) - start )) s"
"${rocks[@]}" list --porcelain | grep -q '^tycho	0.1.0-1' || fail "tycho is not in the rocks tree"
eval "$("${rocks[@]}" path)"
cd "$tmp"
ROCKS_TREE=$tmp/tree "$lua" -e '
  local tycho = require "tycho"
  local fsm, short = require "tycho.fsm", require "fsm"
  assert(fsm == short, "tycho.fsm and fsm are two instances")
  local params = require "tycho.params"
  assert(type(params) == "table")
  local g = tycho.grid.new { width = 20, height = 10, resolution = 0.1, fill = 0 }
  for y = 0, 8 do g:set(10, y, 254) end
  local path = assert(g:plan(1, 1, 18, 1))
  local cx, cy = path:cell(#path // 2)
  assert(cy == 9 and path.length > 24, "the path goes round the wall")
  local so = package.searchpath("tycho", package.cpath)
  assert(so:find(os.getenv("ROCKS_TREE"), 1, true) == 1, "tycho.so from " .. so)
  print(("%s: tycho %s from %s, path round the wall %.1f cells long"):format(_VERSION, tycho.version, so, path.length))'
echo "rockspec_make: passed"
