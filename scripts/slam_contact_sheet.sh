#!/usr/bin/env bash
# The contact sheet of SLAM maps in the README (docs/slam_logs.png): every
# CARMEN log in tests/data/carmen through behaviors/slam_log.lua with its
# defaults, each map.png shrunk to a tile and labelled with the log, its
# set (tuning / held out) and its best-fit ATE. Needs a built tycho
# (build/) and ImageMagick's montage (Debian: imagemagick; not a tycho
# dependency, only for this picture).
#   scripts/slam_contact_sheet.sh [OUT.png] [--drift SEED | --from DIR]
# --from DIR: draw the maps slam_log already wrote to DIR/<log>/ (map.png,
# summary.json) instead of running it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/slam_logs.png}
drift=() from=""
[ "${2:-}" = --drift ] && drift=(--odometry-drift "${3:?--drift needs a seed}")
[ "${2:-}" = --from ] && from=${3:?--from needs a folder}
command -v montage > /dev/null || { echo "slam_contact_sheet: needs ImageMagick's montage (apt-get install imagemagick)" >&2; exit 2; }
[ -x build/tycho ] || { echo "slam_contact_sheet: build tycho first (scripts/build.sh build)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tuning=" intel aces edmonton acapulco csail fr101 "
tiles=()
for f in tests/data/carmen/*.gfs.log*; do
  name=$(basename "$f"); name=${name%%.*}
  echo "slam_contact_sheet: $name" >&2
  run=$tmp/$name
  if [ -n "$from" ]; then run=$from/$name
  else build/tycho run behaviors/slam_log.lua --carmen "$f" --out "$run" --quiet "${drift[@]}" > /dev/null; fi
  ate=$(grep -o '"ate_m":[0-9.e-]*' "$run/summary.json" | head -1 | cut -d: -f2)
  set_name="held out"; [[ $tuning == *" $name "* ]] && set_name=tuning
  label=$(printf '%s (%s): ATE %.2f m' "$name" "$set_name" "$ate")
  convert "$run/map.png" -resize 480x480 "$tmp/$name.png"
  tiles+=(-label "$label" "$tmp/$name.png")
done
montage "${tiles[@]}" -tile 4x -geometry 480x480+6+6 -font DejaVu-Sans -pointsize 18 "$out"
echo "slam_contact_sheet: wrote $out" >&2
