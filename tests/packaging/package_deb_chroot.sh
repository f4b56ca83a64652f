#!/usr/bin/env bash
# ctest package_deb_chroot: the .deb made by cpack from this build, installed
# with apt on a clean Debian 12 made by debootstrap (scripts/deb_chroot.sh:
# the declared dependencies fetched from the archive, the mission run from
# /usr, require "tycho", purge). 77 (skipped): not root, no debootstrap, or
# the Debian archive not reachable from here.
#   package_deb_chroot.sh BUILD SOURCE
set -uo pipefail
build=$1 src=$2
[ "$(id -u)" = 0 ] || { echo "package_deb_chroot: SKIPPED: needs root (debootstrap, chroot)"; exit 77; }
command -v debootstrap > /dev/null || { echo "package_deb_chroot: SKIPPED: no debootstrap (scripts/deps.sh installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg") > "$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log"; echo "package_deb_chroot: FAIL: cpack -G DEB" >&2; exit 1; }
deb=$(ls "$tmp"/pkg/tycho_*.deb)
bash "$src/scripts/deb_chroot.sh" --deb "$deb" --root "$tmp/root" --keep > "$tmp/out.log" 2>&1
code=$?
cat "$tmp/out.log"
if [ $code -ne 0 ] && grep -qE "Failed getting release file|Couldn't download|Temporary failure resolving|Could not resolve" \
     "$tmp/root.debootstrap.log" 2> /dev/null; then
  echo "package_deb_chroot: SKIPPED: the Debian archive is not reachable from here"
  exit 77
fi
exit $code
