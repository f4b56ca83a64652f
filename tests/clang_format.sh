#!/bin/sh
# Every C file of the project is formatted as .clang-format says (DESIGN.md
# "C style"): clang-format --dry-run --Werror over core, bindings, drivers,
# repl and tests. Fix with: clang-format -i FILE (or `git clang-format`).
# Only clang-format 14 (Debian 12's) is the reference: another version
# formats some constructs differently, so the check is skipped (77) there.
set -eu
src=${1:-.}
command -v clang-format >/dev/null 2>&1 || { echo "clang-format not installed: skipped"; exit 77; }
major=$(clang-format --version | sed -n 's/.*clang-format version \([0-9]*\).*/\1/p')
[ "$major" = 14 ] || { echo "clang-format $major is not the reference 14: skipped"; exit 77; }
cd "$src"
files=$(find core bindings drivers repl tests -name '*.c' -o -name '*.h' | sort)
n=$(echo "$files" | wc -l)
if ! out=$(echo "$files" | xargs clang-format --dry-run --Werror 2>&1); then
  echo "$out" | grep 'error:' | sed 's/: error:.*//' | sort -u | head -20
  echo "these files are not formatted as .clang-format says; run: clang-format -i FILE"
  exit 1
fi
echo "$n C files formatted as .clang-format says"
