#!/usr/bin/env bash
# The whole test suite: installs what is missing, then builds and runs ctest
# (C unit tests + busted specs) in three flavours: Lua 5.4, Lua 5.4 under
# ASan+UBSan, and LuaJIT. `scripts/test.sh quick` runs only the first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)
run() {
  local dir=$1; shift
  echo "=== build $dir ($*)"
  bash scripts/build.sh "$dir" "$@"
  echo "=== test $dir"
  (cd "$dir" && ctest --output-on-failure -j "$jobs")
}
run build
if [ "${1:-}" != quick ]; then
  run build-asan -DTYCHO_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
  run build-luajit -DTYCHO_LUAJIT=ON
fi
echo "=== all test flavours passed"
