#!/usr/bin/env bash
# ctest install_relocated: `cmake --install` into a temporary prefix, move the
# installed tree elsewhere, then, with the source and build trees out of
# reach (hidden under empty mounts in a mount namespace of its own when run as
# root; otherwise the check that no installed file names them stands in) and
# from another working directory: run the reference mission, `require
# "tycho"` from the stock interpreter, and build and run a C program against
# the installed library with find_package(tycho) and with pkg-config.
#   install_relocated.sh BUILD SRC LUA LIBDIR CMODDIR LUADIR DATADIR PLUGINDIR
# $TYCHO_TEST_LUA_PRELOAD: libraries the stock interpreter needs preloaded
# (sanitizer runtimes); $TYCHO_TEST_CONSUMER_FLAGS: compile/link flags the
# C program needs against this build (the sanitizers); $TYCHO_TEST_SANITIZED:
# set for a sanitizer build.
set -euo pipefail
build=$1 src=$2 lua=$3 libdir=$4 cmoddir=$5 luadir=$6 datadir=$7 plugindir=$8
fail() { echo "install_relocated: FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/first" > "$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
mv "$tmp/first" "$tmp/moved"
P=$tmp/moved
echo "installed $(find "$P" -type f | wc -l) files, moved to $P"

# nothing installed may name the trees it was built from (a sanitizer
# build's diagnostics carry its source file names, which gcc 12 does not
# remap; such a build is never shipped, and the hidden trees below still
# prove it does not use them)
if [ -n "${TYCHO_TEST_SANITIZED:-}" ]; then
  echo "note: sanitizer build: not checking the installed files for source paths"
elif grep -rlF -e "$src" -e "$build" "$P"; then
  fail "the files above name $src or $build"
else
  echo "no installed file names the source or build tree"
fi
for f in bin/tycho "$libdir/libtycho.so.0" "$libdir/libtycho.a" include/tycho/grid.h include/tycho/driver.h \
         "$libdir/pkgconfig/tycho.pc" "$libdir/cmake/tycho/tychoConfig.cmake" "$cmoddir/tycho.so" \
         "$luadir/heat_seek.lua" "$luadir/terrain/world.lua" "$plugindir/tycho_drv_mpu6050.so" \
         "$datadir/maps/maze_small.lua" share/man/man1/tycho.1; do
  [ -e "$P/$f" ] || fail "$f not installed"
done
soname=$(readelf -d "$P/$libdir/libtycho.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libtycho.so.0 ] || fail "libtycho.so's SONAME is '$soname', libtycho.so.0 expected"
echo "SONAME $soname"

mkdir "$tmp/cwd" "$tmp/consumer"
cp "$src/tests/packaging/consumer/"* "$tmp/consumer/"
cat > "$tmp/home_check.lua" <<EOF
local tycho = require "tycho"
local h = tycho.home()
assert(h.layout == "installed", "layout " .. tostring(h.layout) .. ": " .. tostring(h.problem))
assert(h.lua == "$P/$luadir", "lua files from " .. tostring(h.lua))
assert(tycho.device.path() == "$P/$plugindir", "plugins from " .. tycho.device.path())
assert(require("tycho.fsm") == require("fsm"), "tycho.fsm and fsm are two instances")
assert(require("tycho.terrain.world") == require("terrain.world"))
-- the plugin is found and loaded: it reads its settings, then fails on the missing bus
local dev, err = tycho.device.open("imu", "mpu6050", { bus = "/nonexistent/i2c-9" })
assert(not dev and err:match("^mpu6050: /nonexistent/i2c%-9"), err)
print("home: " .. h.layout .. " " .. h.lua)
EOF

cat > "$tmp/relocated.sh" <<EOF
set -eu
cd "$tmp/cwd"
ls "$src" > /dev/null 2>&1 && [ -n "\$(ls -A "$src")" ] && echo "(the source tree is still visible)"
"$P/bin/tycho" run "$P/$luadir/heat_seek.lua" --world "$P/$datadir/maps/maze_small.lua" --quiet --out out > mission.log 2>&1 \
  || { cat mission.log; echo "the mission failed"; exit 1; }
grep '^summary: mission' mission.log
grep -q '"completed":true' out/summary.json || { echo "summary.json: not completed"; exit 1; }
"$P/bin/tycho" run "$tmp/home_check.lua"
LD_PRELOAD="${TYCHO_TEST_LUA_PRELOAD:-}" ASAN_OPTIONS=detect_leaks=0 LUA_CPATH="$P/$cmoddir/?.so;;" \
  "$lua" -e 'local t = require "tycho"; assert(t.home().layout == "installed"); assert(require("tycho.params")); print("$lua: require \"tycho\" " .. t.version)'
flags="${TYCHO_TEST_CONSUMER_FLAGS:-}"
cmake -S "$tmp/consumer" -B "$tmp/consumer-build" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_FLAGS="\$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="\$flags" > "$tmp/consumer.log" 2>&1 \
  && cmake --build "$tmp/consumer-build" >> "$tmp/consumer.log" 2>&1 || { cat "$tmp/consumer.log"; exit 1; }
for kind in shared static; do
  printf 'find_package(tycho), %s: ' \$kind
  "$tmp/consumer-build/consumer_\$kind" "$P/$datadir/maps/maze_small.yaml" 0.4 0.4 4.6 3.6
done
cc \$flags "$tmp/consumer/main.c" -o "$tmp/pc_consumer" \$(PKG_CONFIG_PATH="$P/$libdir/pkgconfig" pkg-config --cflags --libs tycho)
printf 'pkg-config: '
LD_LIBRARY_PATH="$P/$libdir" "$tmp/pc_consumer" "$P/$datadir/maps/maze_small.yaml" 0.4 0.4 4.6 3.6
EOF

# the sanitized flavour's leak suppressions, where the relocated run can
# read them (the source tree is hidden from it)
if [ -n "${TYCHO_TEST_SANITIZED:-}" ] && [ -f "$src/tests/lsan.supp" ]; then
  cp "$src/tests/lsan.supp" "$tmp/lsan.supp"
  export LSAN_OPTIONS="suppressions=$tmp/lsan.supp"
fi
clean_env=(env -u TYCHO_HOME -u TYCHO_SOURCE_DIR -u TYCHO_BUILD_DIR -u TYCHO_DRIVER_PATH -u LUA_PATH -u LUA_CPATH
           -u LUA_PATH_5_4 -u LUA_CPATH_5_4 -u TYCHO_EXE)
if [ "$(id -u)" -eq 0 ] && unshare -m true 2> /dev/null; then
  hide="mount -t tmpfs tycho-hidden '$src'"
  case "$build/" in "$src"/*) ;; *) hide="$hide && mount -t tmpfs tycho-hidden '$build'" ;; esac
  echo "running from $tmp/cwd with $src${build:+ and $build} hidden (own mount namespace)"
  "${clean_env[@]}" unshare -m sh -c "$hide && sh '$tmp/relocated.sh'" || fail "the relocated run"
else
  echo "note: not root (or no mount namespaces): the trees stay readable; the check that no installed file names them stands in"
  "${clean_env[@]}" sh "$tmp/relocated.sh" || fail "the relocated run"
fi
echo "install_relocated: passed"
