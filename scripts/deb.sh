#!/usr/bin/env bash
# The Debian package: a Release build for /usr in build-deb/ (DIR), then
# `cpack -G DEB`; prints the .deb's path and its control fields.
#   bash scripts/deb.sh [DIR]
#   sudo dpkg -i build-deb/tycho_0.1.0_amd64.deb   (sudo dpkg -r tycho)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-deb}
bash scripts/deps.sh
echo "=== deb: building ($dir, Release, prefix /usr)"
bash scripts/build.sh "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr > "$dir.build.log" 2>&1 \
  || { tail -40 "$dir.build.log"; exit 1; }
echo "=== deb: cpack -G DEB"
(cd "$dir" && cpack -G DEB > cpack.log 2>&1) || { cat "$dir/cpack.log"; exit 1; }
deb=$(ls "$dir"/tycho_*.deb)
dpkg-deb -f "$deb" Package Version Architecture Depends Recommends
echo "$deb ($(du -k "$deb" | cut -f1) KiB)"
