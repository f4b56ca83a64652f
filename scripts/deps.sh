#!/usr/bin/env bash
# Installs the Debian packages tycho needs, only those missing (idempotent).
set -euo pipefail
PKGS=(cmake make gcc clang pkg-config
      liblua5.4-dev lua5.4 lua-busted
      libluajit-5.1-dev luajit
      libpng-dev libyaml-dev
      libzstd-dev zlib1g-dev libwslay-dev nettle-dev
      libedit-dev libi2c-dev libgpiod-dev)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#PKGS[@]} packages present"
  exit 0
fi
echo "deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q "${missing[@]}"
