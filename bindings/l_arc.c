/* Lua binding of the arc collision check (core/include/tycho/arc_check.h):
 *   costmap:arc_hit(x, y, yaw, v, w, horizon [, {dt = 0.05, limit = auto}])
 *     -> seconds until the first blocked step, or false if the arc is clear */
#include "ltycho.h"
#include "tycho/arc_check.h"

#include <math.h>

static const tycho_opt_field arc_fields[] = {
    TYCHO_OPT_NUM_POS("dt"), TYCHO_OPT_INT_IN("limit", 0, 255), {0}};
static const tycho_opt_spec arc_spec = {"grid:arc_hit", arc_fields};

static int l_arc_hit(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_pose2 p = {luaL_checknumber(L, 2), luaL_checknumber(L, 3), luaL_checknumber(L, 4)};
    double v = luaL_checknumber(L, 5), w = luaL_checknumber(L, 6);
    double horizon = luaL_checknumber(L, 7);
    luaL_argcheck(L, isfinite(p.x) && isfinite(p.y) && isfinite(p.yaw), 2, "pose must be finite");
    luaL_argcheck(L, isfinite(v) && isfinite(w), 5, "twist must be finite");
    luaL_argcheck(L, horizon > 0 && horizon <= 60, 7, "horizon must be in (0, 60] s");
    tycho_l_checkopts(L, 8, 8, &arc_spec);
    double dt = tycho_l_optfield_number(L, 8, 8, "dt", 0.05);
    luaL_argcheck(L, dt > 0 && dt <= horizon, 8, "bad field 'dt' (must be in (0, horizon])");
    lua_Integer limit = tycho_l_optfield_integer(L, 8, 8, "limit", 0);
    luaL_argcheck(L, limit >= 0 && limit <= 255, 8, "bad field 'limit' (0..255, 0 = automatic)");
    double t = tycho_arc_first_hit(g, p, v, w, horizon, dt, (int)limit);
    if (isinf(t)) lua_pushboolean(L, 0);
    else lua_pushnumber(L, t);
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---@param o? {dt?: number, limit?: integer}
---@return number|false seconds_to_first_blocked_step
function grid:arc_hit(x, y, yaw, v, w, horizon, o) end
*/
// clang-format on

void tycho_l_open_arc(lua_State *L, int module, int methods)
{
    (void)module;
    lua_pushcfunction(L, l_arc_hit);
    lua_setfield(L, methods, "arc_hit");
    tycho_l_register_opts(L, &arc_spec);
}
