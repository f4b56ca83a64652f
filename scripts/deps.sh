#!/usr/bin/env bash
# Installs the Debian packages tycho needs, only those missing (idempotent).
set -euo pipefail
PKGS=(cmake make gcc clang pkg-config
      liblua5.4-dev lua5.4 lua-busted
      libluajit-5.1-dev luajit
      libpng-dev libyaml-dev libsuitesparse-dev libcairo2-dev fonts-dejavu-core
      libzstd-dev zlib1g-dev libwslay-dev nettle-dev
      libedit-dev libi2c-dev libgpiod-dev
      lua-check clang-format
      luarocks debootstrap)
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
# luarocks pulls lua5.1, whose higher priority moves /usr/bin/lua to it:
# what /usr/bin/lua was before is put back (lua5.4 on a machine that had none:
# readlink -f names a missing /usr/bin/lua itself, which is no alternative)
lua_before=/usr/bin/lua5.4
[ -e /usr/bin/lua ] && lua_before=$(readlink -f /usr/bin/lua)
$SUDO apt-get update -q
$SUDO apt-get install -y -q "${missing[@]}"
if [ "$(readlink -f /usr/bin/lua)" != "$lua_before" ]; then
  echo "deps: /usr/bin/lua back to $lua_before"
  $SUDO update-alternatives --set lua-interpreter "$lua_before"
fi
