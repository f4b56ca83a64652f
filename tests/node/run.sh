#!/usr/bin/env bash
# Runs a node test against tycho with real npm clients. The clients
# (tests/node/package.json) are installed once into $TYCHO_BUILD_DIR/node;
# without node, or when npm cannot reach its registry (offline), the test is
# skipped with exit code 77 and says why.
#   tests/node/run.sh SCRIPT.js [args...]
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${TYCHO_BUILD_DIR:?TYCHO_BUILD_DIR must name the build folder}"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "SKIP: node and npm are needed for this test (not installed)"
  exit 77
fi
dest="$build/node"
if [ ! -f "$dest/.installed" ] || [ "$here/package.json" -nt "$dest/.installed" ]; then
  mkdir -p "$dest"
  cp "$here/package.json" "$dest/package.json"
  # one install at a time when ctest runs several node tests in parallel
  exec 9>"$dest/.lock"
  flock 9
  if [ ! -f "$dest/.installed" ] || [ "$here/package.json" -nt "$dest/.installed" ]; then
    if ! (cd "$dest" && timeout 300 npm install --no-audit --no-fund --loglevel=error >"$dest/npm.log" 2>&1); then
      echo "SKIP: npm install of the test clients failed (offline?); see $dest/npm.log:"
      tail -5 "$dest/npm.log"
      exit 77
    fi
    touch "$dest/.installed"
  fi
  flock -u 9
fi
export NODE_PATH="$dest/node_modules"
exec node "$@"
