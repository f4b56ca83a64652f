/* tycho.carmen.load(path): a CARMEN log (core/carmen.c) as Lua tables, for
 * SLAM on recorded data (behaviors/slam_log.lua). Each laser line also
 * carries `wheel`, the ODOM odometry interpolated at the scan's time: in a
 * GMapping-processed log the laser lines' own poses are corrected ones,
 * and the wheels are what a SLAM front end must start from. */
#include "largs.h"
#include "tycho/carmen.h"

#include <math.h>

static void push_odom(lua_State *L, const tycho_carmen_log *log)
{
    lua_createtable(L, (int)log->n_odom, 0);
    for (size_t i = 0; i < log->n_odom; i++) {
        const tycho_carmen_odom *o = &log->odom[i];
        tycho_l_pushpose(L, o->pose);
        set_num(L, "t", o->t);
        set_num(L, "tv", o->tv);
        set_num(L, "rv", o->rv);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static void push_lasers(lua_State *L, const tycho_carmen_log *log)
{
    lua_createtable(L, (int)log->n_lasers, 0);
    for (size_t i = 0; i < log->n_lasers; i++) {
        const tycho_carmen_laser *l = &log->lasers[i];
        tycho_l_pushpose(L, l->pose);
        set_num(L, "t", l->t);
        set_bool(L, "rear", l->rear);
        static const char *kinds[] = {"FLASER", "RLASER", "ROBOTLASER1"};
        lua_pushstring(L, kinds[l->kind]);
        lua_setfield(L, -2, "kind");
        set_int(L, "odom_before", (lua_Integer)l->odom_before);
        set_num(L, "angle_min", l->angle_min);
        set_num(L, "angle_increment", l->angle_increment);
        if (isfinite(l->max_range)) set_num(L, "max_range", l->max_range);
        lua_createtable(L, l->count, 0);
        for (int k = 0; k < l->count; k++) {
            lua_pushnumber(L, log->ranges[l->first + (size_t)k]);
            lua_rawseti(L, -2, k + 1);
        }
        lua_setfield(L, -2, "ranges");
        tycho_l_pushpose(L, l->odom);
        lua_setfield(L, -2, "odom");
        tycho_l_pushpose(L, tycho_carmen_wheel_at(log, i));
        lua_setfield(L, -2, "wheel");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* tycho.carmen.load(path) -> {odom = {{t, x, y, yaw, tv, rv}...},
 *   lasers = {{t, rear, kind, angle_min, angle_increment, max_range?, ranges,
 *              x, y, yaw, odom = pose, wheel = pose}...},
 *   ignored =, lines =, front_offset =, rear_offset =, time_zero =,
 *   time_backward =, times_usable =} | nil, "path:line: why" */
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
    set_int(L, "ignored", (lua_Integer)log.n_ignored);
    set_int(L, "lines", (lua_Integer)log.n_lines);
    tycho_l_pushpose(L, log.front_offset);
    lua_setfield(L, -2, "front_offset");
    tycho_l_pushpose(L, log.rear_offset);
    lua_setfield(L, -2, "rear_offset");
    set_int(L, "time_zero", (lua_Integer)log.n_time_zero);
    set_int(L, "time_backward", (lua_Integer)log.n_time_backward);
    set_bool(L, "times_usable", log.times_usable);
    tycho_carmen_free(&log);
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---CARMEN robot logs (core/carmen.c; gzip-compressed too): ODOM, FLASER,
---RLASER, ROBOTLASER1 and the lasers' offsets from PARAM lines; other
---messages are counted in `ignored`. Each laser carries its geometry
---(`angle_min`, `angle_increment`, `max_range` when the log shows one: a
---reading at or above it is no return), `odom_before` (ODOM lines before it
---in the file) and `wheel`, the ODOM odometry
---interpolated at its time (file order when `times_usable` is false; its own
---odometry pose when the log has no ODOM line; its own pose is, in a
---GMapping-processed log, the corrected one). A malformed or unreadable log
---returns nil and "path:line: why"; a bad argument raises.
tycho.carmen = {}
---@param path string
---@return {odom: table[], lasers: table[], ignored: integer, lines: integer, front_offset: table, rear_offset: table, time_zero: integer, time_backward: integer, times_usable: boolean}|nil log, string? err
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
