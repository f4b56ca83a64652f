/* tycho.carmen.load(path): a CARMEN log (core/carmen.c) as Lua tables, for
 * SLAM on recorded data (behaviors/slam_log.lua). Each laser line also
 * carries `wheel`, the ODOM odometry interpolated at the scan's time: in a
 * GMapping-processed log the laser lines' own poses are corrected ones,
 * and the wheels are what a SLAM front end must start from. */
#include "ltycho.h"
#include "tycho/carmen.h"

static void push_odom(lua_State *L, const tycho_carmen_log *log)
{
    lua_createtable(L, (int)log->n_odom, 0);
    for (size_t i = 0; i < log->n_odom; i++) {
        const tycho_carmen_odom *o = &log->odom[i];
        tycho_l_pushpose(L, o->pose);
        lua_pushnumber(L, o->t);
        lua_setfield(L, -2, "t");
        lua_pushnumber(L, o->tv);
        lua_setfield(L, -2, "tv");
        lua_pushnumber(L, o->rv);
        lua_setfield(L, -2, "rv");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static void push_lasers(lua_State *L, const tycho_carmen_log *log)
{
    lua_createtable(L, (int)log->n_lasers, 0);
    for (size_t i = 0; i < log->n_lasers; i++) {
        const tycho_carmen_laser *l = &log->lasers[i];
        tycho_l_pushpose(L, l->pose);
        lua_pushnumber(L, l->t);
        lua_setfield(L, -2, "t");
        lua_pushboolean(L, l->rear);
        lua_setfield(L, -2, "rear");
        lua_createtable(L, l->count, 0);
        for (int k = 0; k < l->count; k++) {
            lua_pushnumber(L, log->ranges[l->first + (size_t)k]);
            lua_rawseti(L, -2, k + 1);
        }
        lua_setfield(L, -2, "ranges");
        tycho_l_pushpose(L, l->odom);
        lua_setfield(L, -2, "odom");
        if (log->n_odom) {
            tycho_l_pushpose(L, tycho_carmen_wheel_at(log, i));
            lua_setfield(L, -2, "wheel");
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* tycho.carmen.load(path) -> {odom = {{t, x, y, yaw, tv, rv}...},
 *   lasers = {{t, rear, ranges, x, y, yaw, odom = pose, wheel = pose}...},
 *   ignored =, lines =} | nil, "path:line: why" */
static int l_carmen_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    tycho_carmen_log log;
    tycho_err err;
    tycho_err_clear(&err);
    if (tycho_carmen_load(path, &log, &err) != TYCHO_OK) return tycho_l_fail(L, &err);
    lua_createtable(L, 0, 4);
    push_odom(L, &log);
    lua_setfield(L, -2, "odom");
    push_lasers(L, &log);
    lua_setfield(L, -2, "lasers");
    lua_pushinteger(L, (lua_Integer)log.n_ignored);
    lua_setfield(L, -2, "ignored");
    lua_pushinteger(L, (lua_Integer)log.n_lines);
    lua_setfield(L, -2, "lines");
    tycho_carmen_free(&log);
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---CARMEN robot logs (core/carmen.c): ODOM, FLASER and RLASER lines; other
---messages are counted in `ignored`. Each laser carries `wheel`, the ODOM
---odometry interpolated at its time (its own pose is, in a GMapping-processed
---log, the corrected one). A malformed or unreadable log returns nil and
---"path:line: why"; a bad argument raises.
tycho.carmen = {}
---@param path string
---@return {odom: table[], lasers: table[], ignored: integer, lines: integer}|nil log, string? err
function tycho.carmen.load(path) end
*/
// clang-format on

void tycho_l_open_carmen(lua_State *L, int module, int methods)
{
    (void)methods;
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, l_carmen_load);
    lua_setfield(L, -2, "load");
    lua_setfield(L, module, "carmen");
}
