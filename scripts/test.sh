#!/usr/bin/env bash
# The whole test suite: installs what is missing, then builds and runs ctest
# (C unit tests + busted specs) in three flavours: Lua 5.4, Lua 5.4 under
# ASan+UBSan, and LuaJIT; then a fourth, clang at -O3 (Release), which runs
# the C unit tests only (ctest -R '^c_'). Every flavour builds with -Werror
# (TYCHO_WERROR=ON). `scripts/test.sh quick` runs only the first. Both start
# with luacheck over the Lua of the tree (.luacheckrc), which must be clean.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)
echo "=== luacheck"
luacheck -qq behaviors bindings tests repl
# run DIR TESTS [cmake options...]: TESTS is a ctest -R regex, "" for all;
# the compiler is $CC's (cmake's default when unset)
run() {
  local dir=$1 tests=$2; shift 2
  echo "=== build $dir (${CC:+CC=$CC }$*)"
  bash scripts/build.sh "$dir" -DTYCHO_WERROR=ON "$@"
  echo "=== test $dir${tests:+ (ctest -R '$tests')}"
  (cd "$dir" && ctest --output-on-failure -j "$jobs" ${tests:+-R "$tests"})
}
run build ""
if [ "${1:-}" != quick ]; then
  run build-asan "" -DTYCHO_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
  run build-luajit "" -DTYCHO_LUAJIT=ON
  CC=clang run build-clang-release '^c_' -DCMAKE_BUILD_TYPE=Release
fi
echo "=== all test flavours passed"
