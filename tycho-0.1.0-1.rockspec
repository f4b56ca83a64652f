-- `luarocks make` (scripts/rock.sh): builds the tycho Lua module with cmake
-- and installs it with the runtime's Lua files as tycho.* modules
-- (require "tycho", require "tycho.fsm"). Needs Debian's liblua5.4-dev,
-- libpng-dev, libyaml-dev, libcairo2-dev, libedit-dev, libgpiod-dev, libi2c-dev and cmake
-- (scripts/deps.sh).
rockspec_format = "3.0"
package = "tycho"
version = "0.1.0-1"
source = {
  url = "git+file://.", -- `luarocks make` builds the checkout it is run in
}
description = {
  summary = "Robot runtime: C core (maps, ray casting, planners, fusion, simulator) for Lua behaviours",
  detailed = [[
The tycho module for stock Lua 5.4: grids and costmaps, ray casting,
planners, frontiers, fusion, the simulator, the scheduler, and the runtime's
Lua side (tasks, fsm, params, log, missions) as tycho.* modules.]],
}
dependencies = {
  "lua >= 5.4, < 5.5",
}
build = {
  type = "command",
  build_command = [[cmake -S . -B build.luarocks -DCMAKE_BUILD_TYPE=Release "-DTYCHO_INSTALL_CMODDIR=$(LIBDIR)" "-DTYCHO_INSTALL_LUADIR=$(LUADIR)/tycho" > build.luarocks.log 2>&1 || { cat build.luarocks.log; exit 1; }
cmake --build build.luarocks --target tycho_module]],
  install_command = [[cmake --install build.luarocks --component lua]],
}
