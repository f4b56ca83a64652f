#!/bin/sh
# tycho.so must export luaopen_tycho and nothing else (bindings/tycho_module.map);
# libtycho.so, the second argument, only the C API.
set -eu
extra=$(nm -D --defined-only "$1" | awk '{print $3}' | grep -v '^luaopen_tycho$' || true)
if [ -n "$extra" ]; then
  echo "tycho.so exports more than luaopen_tycho:"
  echo "$extra" | head -20
  exit 1
fi
nm -D --defined-only "$1" | grep -q ' luaopen_tycho$' || { echo "tycho.so lacks luaopen_tycho"; exit 1; }
echo "tycho.so exports luaopen_tycho only"
# libtycho.so (when given): the public API only, tycho_* and TYCHO_* (core/libtycho.map)
if [ $# -ge 2 ]; then
  extra=$(nm -D --defined-only "$2" | awk '{print $3}' | grep -v '^tycho_' | grep -v '^TYCHO_' || true)
  if [ -n "$extra" ]; then
    echo "libtycho.so exports names outside the C API:"
    echo "$extra" | head -20
    exit 1
  fi
  echo "libtycho.so exports $(nm -D --defined-only "$2" | wc -l) names, all tycho_* or TYCHO_*"
fi
