#!/usr/bin/env bash
# Writes the figures quoted in README.md's text (<!--fig NAME-->...<!--/fig-->)
# from bench/results.json, without running a benchmark; --check only compares and fails on a difference (the ctest
# `readme_figures`). scripts/bench.sh does the same after every run.
#
#   scripts/figures.sh [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
LUA_PATH="behaviors/?.lua;scripts/?.lua;;" exec lua5.4 scripts/readme_figures.lua "$@"
