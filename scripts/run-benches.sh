#!/usr/bin/env bash
# Runs every benchmark binary given after the build dir, in order.
set -euo pipefail
build=$1; shift
for b in "$@"; do
  echo "=== $b"
  "$build/$b"
done
