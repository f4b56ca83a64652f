#!/usr/bin/env bash
# arm64 for the robot: cross-builds tycho for aarch64 (Debian's
# crossbuild-essential-arm64 and the :arm64 -dev packages, multiarch), runs
# the C unit tests and the reference mission under qemu-aarch64-static, and
# prints the mission's speed under emulation.
#   bash scripts/arm64.sh [BUILD_DIR]      (default build-arm64)
# Installs what is missing (adds the arm64 architecture to dpkg once).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-arm64}
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
# the :arm64 twins of scripts/deps.sh's -dev packages (keep the two lists in
# step). libwslay-dev is the exception: Debian does not let its amd64 and
# arm64 copies be installed together (installing one removes the other, and
# with it the x86-64 build), so the arm64 build takes the library itself
# from libwslay1:arm64 and the (architecture-free) header from the amd64
# libwslay-dev
PKGS=(crossbuild-essential-arm64 qemu-user-static libwslay-dev
      liblua5.4-dev:arm64 libpng-dev:arm64 libyaml-dev:arm64 libcairo2-dev:arm64
      libsuitesparse-dev:arm64 libzstd-dev:arm64 zlib1g-dev:arm64 libwslay1:arm64 nettle-dev:arm64
      libedit-dev:arm64 libi2c-dev:arm64 libgpiod-dev:arm64)
update=0
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "=== arm64: dpkg --add-architecture arm64"
  $SUDO dpkg --add-architecture arm64
  update=1
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "=== arm64: installing ${missing[*]}"
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q "${missing[@]}"
elif [ $update -eq 1 ]; then
  $SUDO apt-get update -q
fi

echo "=== arm64: cross-building ($dir, Release, aarch64-linux-gnu-gcc)"
start=$(date +%s)
wslay=$(ls /usr/lib/aarch64-linux-gnu/libwslay.so.* 2>/dev/null | head -1)
[ -n "$wslay" ] || { echo "arm64: no /usr/lib/aarch64-linux-gnu/libwslay.so.* (libwslay1:arm64)" >&2; exit 1; }
cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DCMAKE_BUILD_TYPE=Release \
      -DTYCHO_WERROR=ON -DWSLAY_LIBRARY="$wslay" -DWSLAY_INCLUDE_DIR=/usr/include \
      > "$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 1; }
cmake --build "$dir" -j "$(nproc)" > "$dir.build.log" 2>&1 || { tail -40 "$dir.build.log"; exit 1; }
echo "built in $(( $(date +%s) - start )) s: $dir/tycho is $(readelf -h "$dir/tycho" | sed -n 's/ *Machine: *//p')"

# ctest runs each test program under qemu-aarch64-static (the toolchain
# file's emulator). A test that starts another arm64 program itself
# (test_repl_pty runs `tycho repl` on a pseudo-terminal) needs the kernel to
# hand arm64 programs to qemu (binfmt_misc); without it, it cannot run here.
skip=()
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  echo "note: no binfmt_misc entry for qemu-aarch64 here: c_test_repl_pty (which execs tycho) is left out"
  skip=(-E '^c_test_repl_pty$')
fi
echo "=== arm64: C unit tests under qemu-aarch64-static (ctest -R '^c_')"
(cd "$dir" && ctest -R '^c_' "${skip[@]}" --output-on-failure -j "$(nproc)") | tee "$dir.ctest.log"
sed -n 's/^100% tests passed, 0 tests failed out of \([0-9]*\)$/RESULT arm64.c_tests \1 tests - the C unit tests of the arm64 build, all passed under qemu-aarch64-static/p' \
  "$dir.ctest.log"

echo "=== arm64: the reference mission under qemu-aarch64-static"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
t0=$(date +%s.%N)
qemu-aarch64-static "$dir/tycho" run behaviors/heat_seek.lua --world maps/maze_small.lua --quiet \
  --out "$out/maze_small" | tee "$out/log"
t1=$(date +%s.%N)
sim=$(sed -n 's/.*mission completed in \([0-9.]*\) s sim.*/\1/p' "$out/log")
[ -n "$sim" ] || { echo "arm64: the mission did not complete"; exit 1; }
awk -v s="$sim" -v a="$t0" -v b="$t1" \
  'BEGIN { w = b - a; printf "arm64 mission under qemu: %s s simulated in %.1f s wall = %.1fx real time\n", s, w, s / w }'
# the machine-readable lines (tests/bench/result.h) scripts/trials.sh collects
what="the reference mission (small maze), arm64 build run by qemu-aarch64-static on this x86-64 machine"
awk -v s="$sim" -v a="$t0" -v b="$t1" -v what="$what" \
  'BEGIN { printf "RESULT arm64.mission_x_real_time %.4g x_real_time - %s, %.1f s wall\n", s / (b - a), what, b - a }'
# and the same decisions as the x86-64 build, wall time aside
x86=${TYCHO_X86_EXE:-build/tycho}
if [ -x "$x86" ]; then
  "$x86" run behaviors/heat_seek.lua --world maps/maze_small.lua --quiet --out "$out/x86" > /dev/null
  strip_wall() { sed -E 's/"wall_time_s":[^,}]*,?//' "$1"; }
  same=0
  if [ "$(strip_wall "$out/maze_small/summary.json")" = "$(strip_wall "$out/x86/summary.json")" ]; then
    same=1
    echo "arm64: summary.json is the same as the x86-64 build's ($x86), wall time aside"
  else
    echo "arm64: summary.json differs from the x86-64 build's ($x86):"
    diff <(strip_wall "$out/maze_small/summary.json" | tr ',' '\n') <(strip_wall "$out/x86/summary.json" | tr ',' '\n') | head -20
  fi
  echo "RESULT arm64.same_summary $same bool >=1 … its summary.json the same as the x86-64 build's, wall time aside"
fi
