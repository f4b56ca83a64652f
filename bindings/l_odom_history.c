/* Lua bindings: tycho.odom_history, the odometry history of
 * tycho/odom_history.h for robots that are not the simulator (a replayed
 * recording): the same code as the simulator's sim:odom_at, so a replay
 * places its samples at the poses the recorded run did, bit for bit.
 *
 *   local h = tycho.odom_history()
 *   h:push(t, x, y, yaw)          -- after each step (times not decreasing)
 *   h:at(t) -> x, y, yaw          -- interpolated; nil while empty */
#include "ltycho.h"
#include "tycho/odom_history.h"

#include <math.h>

#define ODOM_HISTORY_MT "tycho.odom_history"

static tycho_odom_history *check(lua_State *L) { return luaL_checkudata(L, 1, ODOM_HISTORY_MT); }

static int l_new(lua_State *L)
{
    tycho_odom_history *h = tycho_newuserdata(L, sizeof *h);
    tycho_odom_history_init(h);
    luaL_getmetatable(L, ODOM_HISTORY_MT);
    lua_setmetatable(L, -2);
    return 1;
}

static int l_push(lua_State *L)
{
    tycho_odom_history *h = check(L);
    double v[4];
    for (int i = 0; i < 4; i++) {
        v[i] = luaL_checknumber(L, 2 + i);
        luaL_argcheck(L, isfinite(v[i]), 2 + i, "finite number expected");
    }
    tycho_odom_history_push(h, v[0], (tycho_pose2){v[1], v[2], v[3]});
    return 0;
}

static int l_at(lua_State *L)
{
    tycho_odom_history *h = check(L);
    double t = luaL_checknumber(L, 2);
    tycho_pose2 p;
    if (!tycho_odom_history_at(h, t, &p)) {
        lua_pushnil(L);
        return 1;
    }
    return tycho_l_push_xyyaw(L, p);
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
-- odometry history ---------------------------------------------------------------------

---A short odometry history (64 samples): the pose at a sensor sample's stamp.
---@return tycho.odom_history
function tycho.odom_history() end
---@class tycho.odom_history
local odom_history = {}
---Adds the newest sample (times not decreasing).
---@param t number
---@param x number
---@param y number
---@param yaw number
function odom_history:push(t, x, y, yaw) end
---The pose at t: interpolated between the samples either side; nil while empty.
---@param t number
---@return number? x, number y, number yaw
function odom_history:at(t) end
*/
// clang-format on

void tycho_l_open_odom_history(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg fns[] = {{"push", l_push}, {"at", l_at}, {NULL, NULL}};
    static const tycho_l_class cls = {ODOM_HISTORY_MT, fns, NULL, NULL, NULL, NULL};
    tycho_l_newclass(L, &cls);
    lua_pop(L, 1);
    lua_pushcfunction(L, l_new);
    lua_setfield(L, module, "odom_history");
}
