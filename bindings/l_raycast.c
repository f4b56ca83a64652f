/* Lua bindings: ray casting, scans (C-owned ranges), scan insertion and the
 * accelerated ray map.
 *
 *   grid:raycast(x, y, angle, max_range [, {threshold=, unknown_blocked=}]) -> range | math.huge
 *   grid:scan(pose, params) -> scan
 *   grid:insert_scan(pose, scan [, {clear_on_max_range=, grow=}]) -> cells updated
 *   grid:raycaster([{threshold=, unknown_blocked=}]) -> raymap
 *   raymap:cast(x, y, angle, max_range), raymap:scan(pose, params), raymap:update(grid)
 *   tycho.scan.new(params, ranges) -> scan
 *   #scan, scan:range(i), scan:angle(i), scan:ranges(), scan:set_range(i, r),
 *   scan.count / angle_min / angle_max / angle_increment / range_min / range_max
 *
 * pose = {x=, y=, yaw=} (x, y required). Scan params: count (default 360),
 * angle_min (default -pi), then the beam spacing: angle_increment if given
 * (ROS LaserScan), else from angle_max as (angle_max - angle_min) / (count - 1)
 * (both ends are beams), else a full turn, 2 pi / count; range_min (default
 * 0), range_max (required); grid:scan also reads threshold and
 * unknown_blocked from the same table. Beam i (1-based in Lua) points at
 * pose.yaw + angle_min + (i - 1) * angle_increment. */
#include "ltycho.h"
#include "tycho/raycast.h"
#include "tycho/scan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SCAN_MT "tycho.scan"
#define RAYMAP_MT "tycho.raymap"
#define INSERTER_MT "tycho.scan_inserter"

typedef struct {
    tycho_scan s;
} lscan;

typedef struct {
    tycho_raymap *m;
} lraymap;

typedef struct {
    tycho_inserter *ws;
} linserter;

static double check_field_number(lua_State *L, int idx, int argn, const char *key)
{
    lua_getfield(L, idx, key);
    if (lua_type(L, -1) != LUA_TNUMBER)
        luaL_error(L, "bad field '%s' in argument #%d (number expected, got %s)", key, argn,
                   luaL_typename(L, -1));
    double v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return v;
}

static tycho_pose2 check_pose(lua_State *L, int idx)
{
    return tycho_l_checkpose(L, idx, idx, "pose", false);
}

static void opt_ray(lua_State *L, int idx, int argn, tycho_ray_opts *o)
{
    tycho_ray_opts_defaults(o);
    if (lua_isnoneornil(L, idx)) return;
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_Integer thr = tycho_l_optfield_integer(L, idx, argn, "threshold", o->threshold);
    if (thr < 0 || thr > 255)
        luaL_error(L, "bad field 'threshold' in argument #%d (cost 0..255 expected)", argn);
    o->threshold = (uint8_t)thr;
    o->unknown_blocked = tycho_l_optfield_boolean(L, idx, argn, "unknown_blocked", 0);
}

/* Scan geometry from a params table; count_default < 0 means "required". */
static void check_scan_params(lua_State *L, int idx, int count_default, int *count, double *amin,
                              double *ainc, double *rmin, double *rmax)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_Integer c = tycho_l_optfield_integer(L, idx, idx, "count", count_default);
    if (c < 1 || c > TYCHO_SCAN_MAX_BEAMS)
        luaL_error(L, "bad field 'count' in argument #%d (1..%d expected)", idx,
                   TYCHO_SCAN_MAX_BEAMS);
    *count = (int)c;
    *amin = tycho_l_optfield_number(L, idx, idx, "angle_min", -M_PI);
    lua_getfield(L, idx, "angle_increment");
    int has_inc = !lua_isnil(L, -1);
    lua_getfield(L, idx, "angle_max");
    int has_max = !lua_isnil(L, -1);
    lua_pop(L, 2);
    if (has_inc) *ainc = tycho_l_optfield_number(L, idx, idx, "angle_increment", 0);
    else if (has_max) {
        double amax = tycho_l_optfield_number(L, idx, idx, "angle_max", 0);
        *ainc = c > 1 ? (amax - *amin) / (double)(c - 1) : 0.0;
    } else *ainc = 2 * M_PI / (double)c;
    *rmin = tycho_l_optfield_number(L, idx, idx, "range_min", 0);
    *rmax = check_field_number(L, idx, idx, "range_max");
    if (!isfinite(*amin))
        luaL_error(L, "bad field 'angle_min' in argument #%d (finite expected)", idx);
    if (!isfinite(*ainc))
        luaL_error(L, "bad field 'angle_increment' in argument #%d (finite expected)", idx);
    if (!(isfinite(*rmin) && *rmin >= 0))
        luaL_error(L, "bad field 'range_min' in argument #%d (finite number >= 0 expected)", idx);
    if (!(isfinite(*rmax) && *rmax > *rmin))
        luaL_error(L, "bad field 'range_max' in argument #%d (finite number > range_min expected)",
                   idx);
}

static lscan *push_scan(lua_State *L, int count, double amin, double ainc, double rmin, double rmax)
{
    lscan *b = tycho_newuserdata(L, sizeof *b);
    memset(b, 0, sizeof *b);
    luaL_getmetatable(L, SCAN_MT);
    lua_setmetatable(L, -2);
    tycho_err err = {0};
    if (tycho_scan_init(&b->s, count, amin, ainc, rmin, rmax, &err) != TYCHO_OK)
        tycho_l_error(L, &err);
    return b;
}

tycho_scan *tycho_l_pushscan(lua_State *L, int count, double angle_min, double angle_increment,
                             double range_min, double range_max)
{
    return &push_scan(L, count, angle_min, angle_increment, range_min, range_max)->s;
}

static lscan *check_scan(lua_State *L, int idx)
{
    return TYCHO_L_CHECKBOX(L, idx, lscan, s.ranges, SCAN_MT, "scan has been freed");
}

const tycho_scan *tycho_l_checkscan(lua_State *L, int idx) { return &check_scan(L, idx)->s; }

static int check_beam(lua_State *L, const lscan *b, int idx)
{
    lua_Integer i = luaL_checkinteger(L, idx);
    luaL_argcheck(L, i >= 1 && i <= b->s.count, idx, "beam index out of range");
    return (int)i - 1;
}

/* --- option specs ------------------------------------------------------- */

#define RAY_FIELDS TYCHO_OPT_INT_IN("threshold", 0, 255), TYCHO_OPT_BOOL("unknown_blocked")
#define SCAN_FIELDS                                                                                \
    TYCHO_OPT_INT_IN("count", 1, TYCHO_SCAN_MAX_BEAMS), TYCHO_OPT_NUM("angle_min"),                \
        TYCHO_OPT_NUM("angle_increment"), TYCHO_OPT_NUM("angle_max"),                              \
        TYCHO_OPT_NUM_NONNEG("range_min"), TYCHO_OPT_NUM_POS("range_max")
static const tycho_opt_field ray_fields[] = {RAY_FIELDS, {0}};
static const tycho_opt_field scan_fields[] = {SCAN_FIELDS, {0}};
static const tycho_opt_field cast_scan_fields[] = {SCAN_FIELDS, RAY_FIELDS, {0}};
static const tycho_opt_field insert_fields[] = {
    TYCHO_OPT_BOOL("clear_on_max_range"), TYCHO_OPT_BOOL("grow"), {0}};
static const tycho_opt_spec raycast_spec = {"grid:raycast", ray_fields};
static const tycho_opt_spec raycaster_spec = {"grid:raycaster", ray_fields};
static const tycho_opt_spec grid_scan_spec = {"grid:scan", cast_scan_fields};
static const tycho_opt_spec rm_scan_spec = {"raycaster:scan", scan_fields};
static const tycho_opt_spec scan_new_spec = {"scan.new", scan_fields};
static const tycho_opt_spec insert_spec = {"grid:insert_scan", insert_fields};

/* --- grid methods ---------------------------------------------------------- */

static int l_raycast(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    double x = luaL_checknumber(L, 2), y = luaL_checknumber(L, 3);
    double a = luaL_checknumber(L, 4), maxr = luaL_checknumber(L, 5);
    luaL_argcheck(L, isfinite(x), 2, "x must be finite");
    luaL_argcheck(L, isfinite(y), 3, "y must be finite");
    luaL_argcheck(L, isfinite(a), 4, "angle must be finite");
    luaL_argcheck(L, maxr >= 0, 5, "max_range must be >= 0");
    tycho_l_checkopts(L, 6, 6, &raycast_spec);
    tycho_ray_opts o;
    opt_ray(L, 6, 6, &o);
    lua_pushnumber(L, tycho_raycast(g, x, y, a, maxr, &o));
    return 1;
}

static int l_scan(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_pose2 p = check_pose(L, 2);
    tycho_l_checkopts(L, 3, 3, &grid_scan_spec);
    int count;
    double amin, ainc, rmin, rmax;
    check_scan_params(L, 3, 360, &count, &amin, &ainc, &rmin, &rmax);
    tycho_ray_opts o;
    opt_ray(L, 3, 3, &o);
    lscan *b = push_scan(L, count, amin, ainc, rmin, rmax);
    tycho_scan_cast(g, p, &b->s, &o);
    return 1;
}

static int l_insert_scan(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_pose2 p = check_pose(L, 2);
    lscan *b = check_scan(L, 3);
    tycho_insert_opts o;
    tycho_insert_opts_defaults(&o);
    tycho_l_checkopts(L, 4, 4, &insert_spec);
    if (!lua_isnoneornil(L, 4)) {
        luaL_checktype(L, 4, LUA_TTABLE);
        o.clear_on_max_range =
            tycho_l_optfield_boolean(L, 4, 4, "clear_on_max_range", o.clear_on_max_range);
        o.grow = tycho_l_optfield_boolean(L, 4, 4, "grow", o.grow);
    }
    linserter *ins = lua_touserdata(L, lua_upvalueindex(1));
    tycho_err err = {0};
    size_t updated = 0;
    if (tycho_scan_insert(ins->ws, g, p, &b->s, &o, &updated, &err) != TYCHO_OK)
        return tycho_l_error(L, &err);
    lua_pushinteger(L, (lua_Integer)updated);
    return 1;
}

static int l_raycaster(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_l_checkopts(L, 2, 2, &raycaster_spec);
    tycho_ray_opts o;
    opt_ray(L, 2, 2, &o);
    lraymap *b = tycho_newuserdata(L, sizeof *b);
    b->m = NULL;
    luaL_getmetatable(L, RAYMAP_MT);
    lua_setmetatable(L, -2);
    tycho_err err = {0};
    b->m = tycho_raymap_new(g, &o, &err);
    if (!b->m) return tycho_l_error(L, &err);
    return 1;
}

/* --- scans ----------------------------------------------------------------- */

/* tycho.scan.new(params, ranges): count defaults to #ranges */
static int l_scan_new(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    tycho_l_checkopts(L, 1, 1, &scan_new_spec);
    luaL_checktype(L, 2, LUA_TTABLE);
    int n = (int)lua_rawlen(L, 2);
    luaL_argcheck(L, n >= 1, 2, "ranges must not be empty");
    int count;
    double amin, ainc, rmin, rmax;
    check_scan_params(L, 1, n, &count, &amin, &ainc, &rmin, &rmax);
    if (count != n)
        return luaL_error(L, "bad argument #2 to 'new' (%d ranges for count = %d)", n, count);
    lscan *b = push_scan(L, count, amin, ainc, rmin, rmax);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 2, i + 1);
        if (lua_type(L, -1) != LUA_TNUMBER)
            return luaL_error(L, "bad argument #2 to 'new' (ranges[%d] is %s, number expected)",
                              i + 1, luaL_typename(L, -1));
        b->s.ranges[i] = (float)lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    return 1;
}

static int l_scan_range(lua_State *L)
{
    lscan *b = check_scan(L, 1);
    lua_pushnumber(L, b->s.ranges[check_beam(L, b, 2)]);
    return 1;
}

static int l_scan_set_range(lua_State *L)
{
    lscan *b = check_scan(L, 1);
    int i = check_beam(L, b, 2);
    b->s.ranges[i] = (float)luaL_checknumber(L, 3);
    lua_settop(L, 1);
    return 1;
}

static int l_scan_angle(lua_State *L)
{
    lscan *b = check_scan(L, 1);
    lua_pushnumber(L, tycho_scan_angle(&b->s, check_beam(L, b, 2)));
    return 1;
}

static int l_scan_ranges(lua_State *L)
{
    lscan *b = check_scan(L, 1);
    lua_createtable(L, b->s.count, 0);
    for (int i = 0; i < b->s.count; i++) {
        lua_pushnumber(L, b->s.ranges[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int l_scan_len(lua_State *L)
{
    lua_pushinteger(L, check_scan(L, 1)->s.count);
    return 1;
}

static int l_scan_gc(lua_State *L)
{
    lscan *b = luaL_checkudata(L, 1, SCAN_MT);
    tycho_scan_free(&b->s);
    return 0;
}

static int l_scan_tostring(lua_State *L)
{
    lscan *b = luaL_checkudata(L, 1, SCAN_MT);
    if (!b->s.ranges) {
        lua_pushliteral(L, "tycho.scan (freed)");
        return 1;
    }
    int hits = 0;
    for (int i = 0; i < b->s.count; i++) hits += isfinite(b->s.ranges[i]) != 0;
    char buf[200];
    snprintf(buf, sizeof buf,
             "tycho.scan %d beams from %.4f rad by %.5f rad, range %.3f..%.3f m, %d returns",
             b->s.count, b->s.angle_min, b->s.angle_increment, b->s.range_min, b->s.range_max,
             hits);
    lua_pushstring(L, buf);
    return 1;
}

static int l_scan_index(lua_State *L)
{
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    if (!lua_isnil(L, -1)) return 1;
    lscan *b = check_scan(L, 1);
    const char *k = lua_tostring(L, 2);
    if (!k) return 0;
    const tycho_scan *s = &b->s;
    if (!strcmp(k, "count")) lua_pushinteger(L, s->count);
    else if (!strcmp(k, "angle_min")) lua_pushnumber(L, s->angle_min);
    else if (!strcmp(k, "angle_max")) lua_pushnumber(L, tycho_scan_angle(s, s->count - 1));
    else if (!strcmp(k, "angle_increment")) lua_pushnumber(L, s->angle_increment);
    else if (!strcmp(k, "range_min")) lua_pushnumber(L, s->range_min);
    else if (!strcmp(k, "range_max")) lua_pushnumber(L, s->range_max);
    else return 0;
    return 1;
}

/* --- ray map --------------------------------------------------------------- */

static tycho_raymap *check_raymap(lua_State *L, int idx)
{
    return TYCHO_L_CHECKBOX(L, idx, lraymap, m, RAYMAP_MT, "ray map has been freed")->m;
}

static int l_rm_cast(lua_State *L)
{
    tycho_raymap *m = check_raymap(L, 1);
    double x = luaL_checknumber(L, 2), y = luaL_checknumber(L, 3);
    double a = luaL_checknumber(L, 4), maxr = luaL_checknumber(L, 5);
    luaL_argcheck(L, isfinite(x), 2, "x must be finite");
    luaL_argcheck(L, isfinite(y), 3, "y must be finite");
    luaL_argcheck(L, isfinite(a), 4, "angle must be finite");
    luaL_argcheck(L, maxr >= 0, 5, "max_range must be >= 0");
    lua_pushnumber(L, tycho_raymap_cast(m, x, y, a, maxr));
    return 1;
}

static int l_rm_scan(lua_State *L)
{
    tycho_raymap *m = check_raymap(L, 1);
    tycho_pose2 p = check_pose(L, 2);
    tycho_l_checkopts(L, 3, 3, &rm_scan_spec);
    int count;
    double amin, ainc, rmin, rmax;
    check_scan_params(L, 3, 360, &count, &amin, &ainc, &rmin, &rmax);
    lscan *b = push_scan(L, count, amin, ainc, rmin, rmax);
    tycho_raymap_scan(m, p, &b->s);
    return 1;
}

static int l_rm_update(lua_State *L)
{
    tycho_raymap *m = check_raymap(L, 1);
    tycho_err err = {0};
    if (tycho_raymap_update(m, tycho_l_checkgrid(L, 2), &err) != TYCHO_OK)
        return tycho_l_error(L, &err);
    lua_settop(L, 1);
    return 1;
}

static int l_rm_gc(lua_State *L)
{
    lraymap *b = luaL_checkudata(L, 1, RAYMAP_MT);
    tycho_raymap_free(b->m);
    b->m = NULL;
    return 0;
}

static int l_rm_tostring(lua_State *L)
{
    lraymap *b = luaL_checkudata(L, 1, RAYMAP_MT);
    if (!b->m) {
        lua_pushliteral(L, "tycho.raymap (freed)");
        return 1;
    }
    tycho_ray_opts o;
    tycho_raymap_opts(b->m, &o);
    lua_pushfstring(L, "tycho.raymap (threshold %d, unknown %s)", (int)o.threshold,
                    o.unknown_blocked ? "blocked" : "free");
    return 1;
}

static int l_ins_gc(lua_State *L)
{
    linserter *b = luaL_checkudata(L, 1, INSERTER_MT);
    tycho_inserter_free(b->ws);
    b->ws = NULL;
    return 0;
}

/* scan:lane(half) -> front, left, right (tycho_scan_lane; math.huge where none) */
static int l_scan_lane(lua_State *L)
{
    lscan *b = check_scan(L, 1);
    double half = luaL_checknumber(L, 2);
    luaL_argcheck(L, half > 0 && isfinite(half), 2, "half-width > 0 expected");
    double f, l, r;
    tycho_scan_lane(&b->s, half, &f, &l, &r);
    lua_pushnumber(L, f);
    lua_pushnumber(L, l);
    lua_pushnumber(L, r);
    return 3;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
-- ray casting and scans
---@param o? {threshold?: integer, unknown_blocked?: boolean}
---@return number range   math.huge when nothing is hit
function grid:raycast(x, y, angle, max_range, o) end
---@param params {count?: integer, angle_min?: number, angle_increment?: number, angle_max?: number, range_min?: number, range_max: number, threshold?: integer, unknown_blocked?: boolean}
---@return tycho.scan
function grid:scan(pose, params) end
---@param o? {clear_on_max_range?: boolean, grow?: boolean}
---@return integer cells_updated
function grid:insert_scan(pose, scan, o) end
---@param o? {threshold?: integer, unknown_blocked?: boolean}
---@return tycho.raymap
function grid:raycaster(o) end

---@class tycho.raymap
local raymap = {}
---@return number range
function raymap:cast(x, y, angle, max_range) end
---@alias tycho.scan_params {count?: integer, angle_min?: number, angle_increment?: number, angle_max?: number, range_min?: number, range_max: number}
---@param params tycho.scan_params
---@return tycho.scan
function raymap:scan(pose, params) end
function raymap:update(g) end

---A LiDAR scan; ranges are C-owned. #scan is the beam count.
---@class tycho.scan
---@field count integer
---@field angle_min number
---@field angle_max number
---@field angle_increment number
---@field range_min number
---@field range_max number
local scan = {}
tycho.scan = {}
---@param params tycho.scan_params
---@param ranges number[]
---@return tycho.scan
function tycho.scan.new(params, ranges) end
---@return number
function scan:range(i) end
---Nearest return ahead within `half` of the heading line, and beside the
---robot on its left and right (within `half` of its axle); math.huge where none.
---@param half number
---@return number front, number left, number right
function scan:lane(half) end
---@return number
function scan:angle(i) end
---@return number[]
function scan:ranges() end
function scan:set_range(i, r) end
*/
// clang-format on

static const luaL_Reg scan_methods[] = {
    {"range", l_scan_range}, {"lane", l_scan_lane},     {"set_range", l_scan_set_range},
    {"angle", l_scan_angle}, {"ranges", l_scan_ranges}, {NULL, NULL},
};

static const luaL_Reg raymap_methods[] = {
    {"cast", l_rm_cast},
    {"scan", l_rm_scan},
    {"update", l_rm_update},
    {NULL, NULL},
};

void tycho_l_open_raycast(lua_State *L, int module, int methods)
{
    int top = lua_gettop(L);
    /* scan metatable: methods first, then fields */
    static const luaL_Reg scan_meta[] = {{"__len", l_scan_len}, {NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){SCAN_MT, scan_methods, l_scan_index, l_scan_gc,
                                         l_scan_tostring, scan_meta});
    lua_pop(L, 1);

    tycho_l_newclass(
        L, &(tycho_l_class){RAYMAP_MT, raymap_methods, NULL, l_rm_gc, l_rm_tostring, NULL});
    lua_pop(L, 1);

    lua_pushcfunction(L, l_raycast);
    lua_setfield(L, methods, "raycast");
    lua_pushcfunction(L, l_scan);
    lua_setfield(L, methods, "scan");
    lua_pushcfunction(L, l_raycaster);
    lua_setfield(L, methods, "raycaster");

    /* one insertion workspace per Lua state, shared by every grid (its
     * stamps are valid for any grid, see scan.c) */
    linserter *ins = tycho_newuserdata(L, sizeof *ins);
    ins->ws = tycho_inserter_new();
    tycho_l_newclass(L, &(tycho_l_class){INSERTER_MT, NULL, NULL, l_ins_gc, NULL, NULL});
    lua_setmetatable(L, -2);
    if (!ins->ws) luaL_error(L, "out of memory for the scan insertion workspace");
    lua_pushcclosure(L, l_insert_scan, 1);
    lua_setfield(L, methods, "insert_scan");

    lua_newtable(L);
    lua_pushcfunction(L, l_scan_new);
    lua_setfield(L, -2, "new");
    lua_setfield(L, module, "scan");
    lua_settop(L, top);
    tycho_l_register_opts(L, &raycast_spec);
    tycho_l_register_opts(L, &raycaster_spec);
    tycho_l_register_opts(L, &grid_scan_spec);
    tycho_l_register_opts(L, &rm_scan_spec);
    tycho_l_register_opts(L, &scan_new_spec);
    tycho_l_register_opts(L, &insert_spec);
}
