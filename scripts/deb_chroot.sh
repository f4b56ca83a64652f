#!/usr/bin/env bash
# The Debian package on a clean Debian 12: a minimal bookworm made by
# debootstrap (nothing of this machine in it), the .deb installed there with
# apt (which fetches its declared dependencies from the archive, so a
# missing Depends fails here), then the reference mission run from /usr,
# `require "tycho"` from the stock lua5.4, the package removed and checked
# gone. Root only (debootstrap, chroot, mounting /proc).
#
#   sudo bash scripts/deb_chroot.sh [--deb FILE] [--root DIR] [--mirror URL] [--keep]
#
# --deb FILE    the package (default: build it with scripts/deb.sh)
# --root DIR    where the chroot is made (default /tmp/tycho-deb-chroot); a
#               chroot already there is reused (its first making downloads
#               ~40 MB and takes a few minutes)
# --mirror URL  the Debian archive (default http://deb.debian.org/debian)
# --keep        leave the chroot (default: removed when all passed)
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }
deb="" root=/tmp/tycho-deb-chroot mirror=http://deb.debian.org/debian keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --deb) [ $# -ge 2 ] || { echo "deb_chroot.sh: --deb needs a file" >&2; exit 2; }; deb=$2; shift ;;
    --root) [ $# -ge 2 ] || { echo "deb_chroot.sh: --root needs a folder" >&2; exit 2; }; root=$2; shift ;;
    --mirror) [ $# -ge 2 ] || { echo "deb_chroot.sh: --mirror needs a URL" >&2; exit 2; }; mirror=$2; shift ;;
    --keep) keep=1 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "deb_chroot.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ "$(id -u)" = 0 ] || { echo "deb_chroot.sh: needs root (debootstrap, chroot)" >&2; exit 2; }
command -v debootstrap > /dev/null || {
  echo "=== deb_chroot: installing debootstrap"
  apt-get install -y debootstrap > /dev/null
}
if [ -z "$deb" ]; then
  bash scripts/deb.sh
  deb=$(ls build-deb/tycho_*.deb)
fi
[ -f "$deb" ] || { echo "deb_chroot.sh: no such package: $deb" >&2; exit 2; }

if [ ! -x "$root/usr/bin/apt-get" ]; then
  echo "=== deb_chroot: debootstrap bookworm (minbase) into $root from $mirror"
  rm -rf "$root"
  debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.debootstrap.log" 2>&1 ||
    { tail -20 "$root.debootstrap.log"; exit 1; }
fi
mount -t proc proc "$root/proc"
trap 'umount "$root/proc" 2> /dev/null || true' EXIT
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }

echo "=== deb_chroot: apt-get install $(basename "$deb") (and lua5.4, which it recommends)"
cp "$deb" "$root/tmp/tycho.deb"
in_root apt-get update -q > /dev/null
in_root apt-get install -y -q --no-install-recommends /tmp/tycho.deb lua5.4 > "$root.install.log" 2>&1 ||
  { tail -30 "$root.install.log"; exit 1; }
in_root dpkg -s tycho | sed -n 's/^\(Version\|Depends\): /  \1: /p'

echo "=== deb_chroot: the reference mission from /usr"
rm -rf "$root/tmp/out"
in_root tycho run /usr/share/lua/5.4/tycho/heat_seek.lua --world /usr/share/tycho/maps/maze_small.lua \
  --out /tmp/out --quiet > "$root.mission.log" 2>&1 || { tail -20 "$root.mission.log"; exit 1; }
grep '^summary:' "$root.mission.log" | sed 's/^/  /'
for f in summary.json map.png; do
  [ -s "$root/tmp/out/$f" ] || { echo "deb_chroot: FAIL: the mission wrote no $f" >&2; exit 1; }
done
engaged=$(sed -n 's/.*engaged \([0-9]*\/[0-9]*\) heat sources.*/\1/p' "$root.mission.log")
[ -n "$engaged" ] && [ "${engaged%/*}" = "${engaged#*/}" ] ||
  { echo "deb_chroot: FAIL: sources engaged '$engaged', not all" >&2; exit 1; }

echo "=== deb_chroot: require \"tycho\" from lua5.4"
in_root lua5.4 -e 'local t = require "tycho"; print("  tycho " .. t.version .. " from " .. package.searchpath("tycho", package.cpath))'

echo "=== deb_chroot: apt-get purge tycho"
in_root apt-get purge -y -q tycho > "$root.purge.log" 2>&1 || { cat "$root.purge.log"; exit 1; }
left=$(in_root sh -c 'ls -d /usr/share/tycho /usr/share/lua/5.4/tycho /usr/lib/x86_64-linux-gnu/tycho /usr/bin/tycho 2> /dev/null || true')
[ -z "$left" ] || { echo "deb_chroot: FAIL: left after purge: $left" >&2; exit 1; }
echo "  nothing of it left"
umount "$root/proc"
trap - EXIT
if [ $keep = 0 ]; then rm -rf "$root" "$root".*.log; fi
echo "deb_chroot: PASS ($deb on a clean Debian 12 chroot)"
