#!/usr/bin/env bash
# The contact sheet of SLAM maps in the README (docs/slam_logs.png): every
# CARMEN log in tests/data/carmen through behaviors/slam_log.lua with its
# defaults, each map.png shrunk to a tile and labelled with the log, its
# set (tuning / held out) and its best-fit ATE. Needs a built tycho
# (build/) and ImageMagick's montage (Debian: imagemagick; not a tycho
# dependency, only for this picture).
#   scripts/slam_contact_sheet.sh [OUT.png] [--drift SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/slam_logs.png}
drift=()
[ "${2:-}" = --drift ] && drift=(--odometry-drift "${3:?--drift needs a seed}")
command -v montage > /dev/null || { echo "slam_contact_sheet: needs ImageMagick's montage (apt-get install imagemagick)" >&2; exit 2; }
[ -x build/tycho ] || { echo "slam_contact_sheet: build tycho first (scripts/build.sh build)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tuning=" intel aces edmonton acapulco csail fr101 "
tiles=()
for f in tests/data/carmen/*.gfs.log*; do
  name=$(basename "$f"); name=${name%%.*}
  echo "slam_contact_sheet: $name" >&2
  build/tycho run behaviors/slam_log.lua --carmen "$f" --out "$tmp/$name" --quiet "${drift[@]}" > /dev/null
  ate=$(grep -o '"ate_m":[0-9.e-]*' "$tmp/$name/summary.json" | head -1 | cut -d: -f2)
  set_name="held out"; [[ $tuning == *" $name "* ]] && set_name=tuning
  label=$(printf '%s (%s): ATE %.2f m' "$name" "$set_name" "$ate")
  convert "$tmp/$name/map.png" -resize 480x480 "$tmp/$name.png"
  tiles+=(-label "$label" "$tmp/$name.png")
done
montage "${tiles[@]}" -tile 4x -geometry 480x480+6+6 -pointsize 16 "$out"
echo "slam_contact_sheet: wrote $out" >&2
