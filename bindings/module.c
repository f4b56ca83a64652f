/* luaopen_tycho: assembles the `tycho` module from the binding areas. Built
 * both into the tycho.so C module (for stock lua5.4 / busted) and into the
 * tycho executable. */
#include "home.h"
#include "ltycho.h"

#include <stdio.h>

int tycho_l_error(lua_State *L, const tycho_err *err)
{
    return luaL_error(L, "%s", err->msg[0] ? err->msg : tycho_status_name(err->code));
}

int tycho_l_fail(lua_State *L, const tycho_err *err)
{
    lua_pushnil(L);
    lua_pushstring(L, err->msg[0] ? err->msg : tycho_status_name(err->code));
    return 2;
}

static void check_field_type(lua_State *L, int argn, const char *key, int want)
{
    if (lua_type(L, -1) != want)
        luaL_error(L, "bad field '%s' in argument #%d (%s expected, got %s)", key, argn,
                   lua_typename(L, want), luaL_typename(L, -1));
}

double tycho_l_optfield_number(lua_State *L, int idx, int argn, const char *key, double def)
{
    if (lua_isnoneornil(L, idx)) return def;
    lua_getfield(L, idx, key);
    double v = def;
    if (!lua_isnil(L, -1)) {
        check_field_type(L, argn, key, LUA_TNUMBER);
        v = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

lua_Integer tycho_l_optfield_integer(lua_State *L, int idx, int argn, const char *key,
                                     lua_Integer def)
{
    if (lua_isnoneornil(L, idx)) return def;
    lua_getfield(L, idx, key);
    lua_Integer v = def;
    if (!lua_isnil(L, -1)) {
        if (!tycho_isinteger(L, -1))
            luaL_error(L, "bad field '%s' in argument #%d (integer expected, got %s)", key, argn,
                       luaL_typename(L, -1));
        v = lua_tointeger(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

int tycho_l_optfield_boolean(lua_State *L, int idx, int argn, const char *key, int def)
{
    if (lua_isnoneornil(L, idx)) return def;
    lua_getfield(L, idx, key);
    int v = def;
    if (!lua_isnil(L, -1)) {
        check_field_type(L, argn, key, LUA_TBOOLEAN);
        v = lua_toboolean(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

tycho_cell tycho_l_checkcell(lua_State *L, int idx)
{
    tycho_cell c;
    c.x = (int32_t)luaL_checkinteger(L, idx);
    c.y = (int32_t)luaL_checkinteger(L, idx + 1);
    return c;
}

#if TYCHO_LUAJIT
#include <math.h>
/* Lua 5.3+ math.atan(y [, x]); LuaJIT's takes one argument and would
 * silently ignore x, so behaviours written for 5.4 would steer wrong. */
static int l_atan(lua_State *L)
{
    double y = luaL_checknumber(L, 1);
    lua_pushnumber(L, atan2(y, luaL_optnumber(L, 2, 1.0)));
    return 1;
}

static void patch_math_atan(lua_State *L)
{
    lua_getglobal(L, "math");
    if (lua_istable(L, -1)) {
        lua_pushcfunction(L, l_atan);
        lua_setfield(L, -2, "atan");
    }
    lua_pop(L, 1);
}
#endif

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---@class tycho
---@field version string      tycho's version
---@field lua string          "Lua 5.4" or "LuaJIT"
local tycho = {}

---@alias tycho.xy {x: number, y: number}
---@alias tycho.pose {x: number, y: number, yaw: number}
*/
// clang-format on

int luaopen_tycho(lua_State *L)
{
#if TYCHO_LUAJIT
    patch_math_atan(L);
#endif
    lua_newtable(L); /* module */
    int module = lua_gettop(L);
    lua_pushliteral(L, TYCHO_VERSION);
    lua_setfield(L, module, "version");
    lua_pushstring(L, TYCHO_LUAJIT ? "LuaJIT" : LUA_VERSION);
    lua_setfield(L, module, "lua");

    tycho_l_grid_class(L);
    int mt = lua_gettop(L);
    lua_getfield(L, mt, "methods"); /* the grid's methods, shared by every area */
    int methods = lua_gettop(L);

    tycho_l_open_grid(L, module, methods);
    tycho_l_open_mapio(L, module, methods);
    tycho_l_open_planners(L, module, methods);
    tycho_l_open_raycast(L, module, methods);
    tycho_l_open_inflation(L, module, methods);
    tycho_l_open_frontiers(L, module, methods);
    tycho_l_open_regions(L, module, methods);
    tycho_l_open_render(L, module, methods);
    tycho_l_open_fusion(L, module, methods);
    tycho_l_open_motion(L, module, methods);
    tycho_l_open_sim(L, module, methods);
    tycho_l_open_odom_history(L, module, methods);
    tycho_l_open_clock(L, module, methods);
    tycho_l_open_runtime(L, module, methods);
    tycho_l_open_arc(L, module, methods);
    tycho_l_open_scan_match(L, module, methods);
    tycho_l_open_pointmap(L, module, methods);
    tycho_l_open_slam(L, module, methods);
    tycho_l_open_console(L, module, methods);
    tycho_l_open_watch(L, module, methods);
    tycho_l_open_watchdog(L, module, methods);
    tycho_l_open_swarm(L, module, methods);
    tycho_l_open_fleet(L, module, methods);
    tycho_l_open_fleet_sim(L, module, methods);
    tycho_l_open_net(L, module, methods);
    tycho_l_open_sys(L, module, methods);
    tycho_l_open_device(L, module, methods);
    tycho_l_open_terrain(L, module, methods);
    tycho_l_open_pattern(L, module, methods);
    tycho_l_open_sandbox(L, module, methods);
    tycho_l_open_yaml(L, module, methods);
    tycho_l_open_mcap(L, module, methods);
    tycho_l_open_carmen(L, module, methods);
    tycho_l_open_ros(L, module, methods);
    tycho_l_open_cell_set(L, module, methods);
    tycho_l_open_viz(L, module, methods);
    tycho_l_open_ws(L, module, methods);

    lua_pushcfunction(L, tycho_l_home);
    lua_setfield(L, module, "home");
    tycho_home_install_searchers(L);

    lua_settop(L, module);
    return 1;
}
