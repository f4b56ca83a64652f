#!/usr/bin/env bash
# ctest busted_toplevel: plain `busted` at the top of the repository, with no
# LUA_PATH, LUA_CPATH or TYCHO_* in the environment, finds its settings in
# .busted: it runs under Lua 5.4 against build/tycho.so. Runs two quick specs
# (the whole set is ctest's spec_* tests) and checks busted's own count.
#   busted_toplevel.sh SRC
set -euo pipefail
cd "$1"
out=$(env -u LUA_PATH -u LUA_CPATH -u LUA_PATH_5_4 -u LUA_CPATH_5_4 -u TYCHO_SOURCE_DIR -u TYCHO_EXE \
      -u TYCHO_DRIVER_PATH busted -o TAP tests/spec/fsm_spec.lua tests/spec/grid_spec.lua 2>&1) \
  || { echo "$out"; echo "busted_toplevel: FAIL: busted at the top failed"; exit 1; }
echo "$out" | tail -3
ok=$(echo "$out" | grep -c '^ok ' || true)
[ "$ok" -ge 10 ] || { echo "$out"; echo "busted_toplevel: FAIL: only $ok tests passed"; exit 1; }
# the config chose the interpreter: busted under Lua 5.4, not /usr/bin/lua's
helper=$(mktemp --suffix=.lua)
trap 'rm -f "$helper"' EXIT
echo 'print("# " .. _VERSION)' > "$helper"
ver=$(env -u LUA_PATH -u LUA_CPATH busted -o TAP --helper="$helper" tests/spec/fsm_spec.lua 2>&1 |
      sed -n 's/^# \(Lua .*\)/\1/p' | head -1)
[ "$ver" = "Lua 5.4" ] || { echo "busted_toplevel: FAIL: busted ran on '$ver', Lua 5.4 expected"; exit 1; }
echo "busted_toplevel: passed ($ok tests, $ver)"
