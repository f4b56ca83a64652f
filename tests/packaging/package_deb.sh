#!/usr/bin/env bash
# ctest package_deb: `cpack -G DEB` from this build, then (as root) `dpkg -i`;
# the package's declared Depends must name the Debian package of every
# shared library its programs and plugins link; the reference mission runs
# from /usr, `require "tycho"` works from the stock lua5.4 and pkg-config
# knows tycho; `dpkg -r` removes it all. Exit 77 (skipped) when not root or
# when a tycho package is installed already (it is not replaced).
#   package_deb.sh BUILD LUADIR DATADIR     (LUADIR, DATADIR relative to /usr)
set -euo pipefail
build=$1 luadir=$2 datadir=$3
fail() { echo "package_deb: FAIL: $*" >&2; exit 1; }
if [ "$(id -u)" -ne 0 ]; then
  echo "package_deb: SKIPPED: dpkg -i needs root (CI runs as root)"
  exit 77
fi
if dpkg-query -W -f='${Status}' tycho 2> /dev/null | grep -q "install ok installed"; then
  echo "package_deb: SKIPPED: a tycho package is installed already; not replacing it"
  exit 77
fi
tmp=$(mktemp -d)
installed=0
cleanup() {
  if [ $installed -eq 1 ]; then dpkg -r tycho > /dev/null 2>&1 || echo "package_deb: dpkg -r tycho failed" >&2; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

(cd "$tmp" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg") > "$tmp/cpack.log" 2>&1 \
  || { cat "$tmp/cpack.log"; fail "cpack -G DEB"; }
deb=$(ls "$tmp"/pkg/tycho_*.deb)
echo "built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"
dpkg-deb -f "$deb" Package Version Architecture Depends Recommends

dpkg -i "$deb" > "$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log"; fail "dpkg -i"; }
installed=1
[ -x /usr/bin/tycho ] || fail "/usr/bin/tycho not installed"

# the declared dependencies name the package of every library the installed
# ELF files link directly (what those link in turn, their packages declare)
declared=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/^ *//; s/[ (].*//')
needed=""
while read -r f; do
  [ -f "$f" ] && head -c 4 "$f" | grep -q ELF || continue
  for name in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    lib=$(ldd "$f" | awk -v n="$name" '$1 == n && $2 == "=>" { print $3 }')
    [ -n "$lib" ] || fail "$f needs $name, which is not found"
    pkg=""
    for p in "$lib" "$(readlink -f "$lib")" "${lib#/usr}" "/usr$lib"; do
      pkg=$(dpkg -S "$p" 2> /dev/null | head -1 | cut -d: -f1) && [ -n "$pkg" ] && break
    done
    [ -n "$pkg" ] || fail "$f links $lib, which no Debian package owns"
    [ "$pkg" = tycho ] && continue
    grep -qx "$pkg" <<< "$declared" || fail "$f links $lib from $pkg, not in Depends"
    needed="$needed $pkg"
  done
done < <(dpkg -L tycho)
echo "Depends covers every linked library: $(echo $needed | tr ' ' '\n' | sort -u | tr '\n' ' ')"

cd "$tmp"
run=(env -u TYCHO_HOME -u TYCHO_SOURCE_DIR -u TYCHO_DRIVER_PATH -u LUA_PATH -u LUA_CPATH -u LUA_PATH_5_4 -u LUA_CPATH_5_4)
"${run[@]}" /usr/bin/tycho run "/usr/$luadir/heat_seek.lua" --world "/usr/$datadir/maps/maze_small.lua" --quiet --out out \
  > mission.log 2>&1 || { cat mission.log; fail "the mission from /usr"; }
grep '^summary: mission' mission.log
grep -q '"completed":true' out/summary.json || fail "summary.json: not completed"
"${run[@]}" lua5.4 -e 'local t = require "tycho"
  assert(t.home().layout == "installed", t.home().problem)
  assert(require("tycho.params") == require("params"))
  print("lua5.4: require \"tycho\" " .. t.version .. " from " .. package.searchpath("tycho", package.cpath))'
echo "pkg-config: tycho $(pkg-config --modversion tycho)"
man -w tycho > /dev/null 2>&1 || [ -f /usr/share/man/man1/tycho.1 ] || fail "no man page"

dpkg -r tycho > "$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log"; fail "dpkg -r"; }
installed=0
[ ! -e /usr/bin/tycho ] && [ ! -e "/usr/$luadir" ] || fail "dpkg -r left files behind"
echo "package_deb: passed (installed, ran, removed)"
