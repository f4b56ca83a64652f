#!/bin/sh
# tycho.so must export luaopen_tycho and nothing else (bindings/tycho_module.map).
set -eu
extra=$(nm -D --defined-only "$1" | awk '{print $3}' | grep -v '^luaopen_tycho$' || true)
if [ -n "$extra" ]; then
  echo "tycho.so exports more than luaopen_tycho:"
  echo "$extra" | head -20
  exit 1
fi
nm -D --defined-only "$1" | grep -q ' luaopen_tycho$' || { echo "tycho.so lacks luaopen_tycho"; exit 1; }
echo "tycho.so exports luaopen_tycho only"
