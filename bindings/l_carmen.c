/* tycho.carmen.load(path): a CARMEN log (core/carmen.c) as Lua tables, for
 * SLAM on recorded data (behaviors/slam_log.lua). Each laser line also
 * carries `wheel`, the ODOM odometry interpolated at the scan's time: in a
 * GMapping-processed log the laser lines' own poses are corrected ones,
 * and the wheels are what a SLAM front end must start from. */
#include "largs.h"
#include "tycho/carmen.h"
#include "tycho/scan.h"

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

/* How lasers carry their readings: a table of numbers (16 bytes a reading
 * in Lua), or a tycho.scan (4 bytes; fr079's 1.7 M readings were 28 MB of
 * tables) whose range_max is the laser's no-return value or range_cap,
 * the smaller. */
typedef struct {
    bool scans;
    double range_cap;
} laser_form;

static void push_readings(lua_State *L, const tycho_carmen_log *log, const tycho_carmen_laser *l,
                          const laser_form *form)
{
    const float *r = log->ranges + l->first;
    if (form->scans) {
        double range_max = fmin(l->max_range, form->range_cap);
        if (!isfinite(range_max)) range_max = 2 * TYCHO_CARMEN_MAX_RANGE; /* none: all returns */
        tycho_scan *scan =
            tycho_l_pushscan(L, l->count, l->angle_min, l->angle_increment, 0.01, range_max);
        for (int k = 0; k < l->count; k++) scan->ranges[k] = r[k];
        lua_setfield(L, -2, "scan");
        return;
    }
    lua_createtable(L, l->count, 0);
    for (int k = 0; k < l->count; k++) {
        lua_pushnumber(L, r[k]);
        lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, -2, "ranges");
}

static void push_lasers(lua_State *L, const tycho_carmen_log *log, const laser_form *form)
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
        set_int(L, "count", l->count);
        push_readings(L, log, l, form);
        tycho_l_pushpose(L, l->odom);
        lua_setfield(L, -2, "odom");
        tycho_l_pushpose(L, tycho_carmen_wheel_at(log, i));
        lua_setfield(L, -2, "wheel");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* tycho.carmen.load(path[, {scans = false, range_cap = inf}]) ->
 *   {odom = {{t, x, y, yaw, tv, rv}...},
 *   lasers = {{t, rear, kind, count, angle_min, angle_increment, max_range?, ranges | scan,
 *              x, y, yaw, odom = pose, wheel = pose}...},
 *   ignored =, lines =, front_offset =, rear_offset =, time_zero =,
 *   time_backward =, time_repeated =, times_usable =} | nil, "path:line: why" */
static const tycho_opt_field load_fields[] = {
    TYCHO_OPT_BOOL("scans"), TYCHO_OPT_NUM("range_cap"), {0}};
static const tycho_opt_spec load_spec = {"carmen.load", load_fields};

static int l_carmen_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    opt_table(L, 2);
    tycho_l_checkopts(L, 2, 2, &load_spec);
    laser_form form = {.scans = tycho_l_optfield_boolean(L, 2, 2, "scans", false),
                       .range_cap = tycho_l_optfield_number(L, 2, 2, "range_cap", INFINITY)};
    if (!(form.range_cap > 0.01)) return luaL_argerror(L, 2, "range_cap must be > 0.01 m");
    tycho_carmen_log log;
    tycho_err err;
    tycho_err_clear(&err);
    if (tycho_carmen_load(path, &log, &err) != TYCHO_OK) return tycho_l_fail(L, &err);
    lua_createtable(L, 0, 4);
    push_odom(L, &log);
    lua_setfield(L, -2, "odom");
    push_lasers(L, &log, &form);
    lua_setfield(L, -2, "lasers");
    set_int(L, "ignored", (lua_Integer)log.n_ignored);
    set_int(L, "lines", (lua_Integer)log.n_lines);
    tycho_l_pushpose(L, log.front_offset);
    lua_setfield(L, -2, "front_offset");
    tycho_l_pushpose(L, log.rear_offset);
    lua_setfield(L, -2, "rear_offset");
    set_int(L, "time_zero", (lua_Integer)log.n_time_zero);
    set_int(L, "time_backward", (lua_Integer)log.n_time_backward);
    set_int(L, "time_repeated", (lua_Integer)log.n_time_repeated);
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
---GMapping-processed log, the corrected one). opts.scans: each laser carries
---`scan`, a tycho.scan with its geometry and range_max its no-return value or
---opts.range_cap (m), the smaller, instead of `ranges` (a quarter of the memory
---of a table). A malformed or unreadable log returns nil and "path:line: why";
---a bad argument raises.
tycho.carmen = {}
---@param path string
---@param opts? {scans?: boolean, range_cap?: number}
---@return {odom: table[], lasers: table[], ignored: integer, lines: integer, front_offset: table, rear_offset: table, time_zero: integer, time_backward: integer, time_repeated: integer, times_usable: boolean}|nil log, string? err
function tycho.carmen.load(path, opts) end
*/
// clang-format on

void tycho_l_open_carmen(lua_State *L, int module, int methods)
{
    (void)methods;
    tycho_l_register_opts(L, &load_spec);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, l_carmen_load);
    lua_setfield(L, -2, "load");
    lua_setfield(L, module, "carmen");
}
