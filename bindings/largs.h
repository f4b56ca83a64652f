/* Argument helpers shared by the binding files that take option tables,
 * poses and point lists (l_fusion.c, l_motion.c). Header-only (static
 * inline) so each binding stays one translation unit. */
#ifndef TYCHO_LARGS_H
#define TYCHO_LARGS_H

#include "ltycho.h"

#include <math.h>
#include <string.h>

/* --- argument helpers ------------------------------------------------------ */

/* lua_absindex is 5.2+; LuaJIT lacks it. */
static inline int abs_index(lua_State *L, int idx)
{
    return (idx > 0 || idx <= LUA_REGISTRYINDEX) ? idx : lua_gettop(L) + idx + 1;
}

static inline void opt_table(lua_State *L, int idx)
{
    if (!lua_isnoneornil(L, idx)) luaL_checktype(L, idx, LUA_TTABLE);
}

/* A number from t[key] or, failing that, t[pos]; required. */
static inline double field_xy(lua_State *L, int t, int argn, const char *key, int pos,
                              const char *what)
{
    lua_getfield(L, t, key);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_rawgeti(L, t, pos);
    }
    if (lua_type(L, -1) != LUA_TNUMBER)
        luaL_argerror(L, argn,
                      lua_pushfstring(L, "%s: number '%s' (or [%d]) expected, got %s", what, key,
                                      pos, luaL_typename(L, -1)));
    double v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return v;
}

/* pose: {x=, y=, yaw=} or {x, y, yaw}, by the one pose parser. */
static inline tycho_pose2 check_pose(lua_State *L, int idx)
{
    idx = abs_index(L, idx);
    return tycho_l_checkpose(L, idx, idx, "pose", true);
}

/* points: array of {x, y} or {x=, y=} -> a scratch userdata left on the
 * stack holding x0,y0,x1,y1,... */
static inline double *check_points(lua_State *L, int idx, int *n)
{
    idx = abs_index(L, idx);
    luaL_checktype(L, idx, LUA_TTABLE);
    int m = (int)lua_rawlen(L, idx);
    double *xy = tycho_newuserdata(L, sizeof(double) * 2 * (size_t)(m > 0 ? m : 1));
    char what[32];
    for (int i = 0; i < m; i++) {
        lua_rawgeti(L, idx, i + 1);
        int t = lua_gettop(L);
        snprintf(what, sizeof what, "point %d", i + 1);
        if (!lua_istable(L, t))
            luaL_argerror(
                L, idx,
                lua_pushfstring(L, "%s: table {x, y} expected, got %s", what, luaL_typename(L, t)));
        xy[2 * i] = field_xy(L, t, idx, "x", 1, what);
        xy[2 * i + 1] = field_xy(L, t, idx, "y", 2, what);
        if (!isfinite(xy[2 * i]) || !isfinite(xy[2 * i + 1]))
            luaL_argerror(L, idx, lua_pushfstring(L, "%s is not finite", what));
        lua_pop(L, 1);
    }
    *n = m;
    return xy;
}

static inline void set_num(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static inline void set_int(lua_State *L, const char *k, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

static inline void set_bool(lua_State *L, const char *k, int v)
{
    lua_pushboolean(L, v);
    lua_setfield(L, -2, k);
}

#endif
