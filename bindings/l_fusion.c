/* Lua bindings: heat-seeking helpers — thermal + LiDAR fusion, k-means and
 * the pitch anomaly detector (the follower and diff drive: l_motion.c).
 *
 *   tycho.fusion.locate(pose, scan, frame [, camera]) -> x, y, info | nil, reason, info
 *   tycho.kmeans(points, k | {k_max=, radius=} [, {seed=, max_iter=, n_init=}])
 *       -> centroids {{x=, y=, count=, radius=}...}, assignments {1-based...}, info
 *   tycho.pitch_detector([params]) -> detector (:push(t, pitch), :reset(), :state())
 *
 * Option tables are checked for unknown keys, so a typo ("max_vel") is an
 * error rather than a silently ignored setting. */
#include "largs.h"

#include "tycho/fusion.h"
#include "tycho/kmeans.h"
#include "tycho/pitch.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PITCH_MT "tycho.pitch_detector"
#define KMEANS_MT "tycho.kmeans_workspace"

/* --- fusion ---------------------------------------------------------------- */

/* scan: a table {angle_min=, angle_increment=, ranges={...}} (or the ranges in
 * its array part), or any object answering scan.angle_min,
 * scan.angle_increment and scan:ranges() (the scan userdata). Missing
 * angles default to a full turn from 0: 2*pi/#ranges apart. */
static tycho_scan_ref check_scan(lua_State *L, int idx)
{
    const int argn = idx;
    if (!lua_istable(L, idx) && !lua_isuserdata(L, idx))
        luaL_argerror(L, argn,
                      lua_pushfstring(L, "scan table expected, got %s", luaL_typename(L, idx)));
    tycho_scan_ref s = {0};
    lua_getfield(L, idx, "ranges");
    if (lua_isfunction(L, -1)) { /* a method: scan:ranges() */
        lua_pushvalue(L, idx);
        lua_call(L, 1, 1);
    }
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushvalue(L, idx);
    }
    int rt = lua_gettop(L);
    if (!lua_istable(L, rt)) luaL_argerror(L, argn, "scan: ranges array expected");
    int n = (int)lua_rawlen(L, rt);
    if (n < 1) luaL_argerror(L, argn, "scan has no ranges");
    for (int k = 0; k < 2; k++) {
        const char *key = k ? "angle_increment" : "angle_min";
        lua_getfield(L, idx, key);
        double def = k ? 2 * M_PI / n : 0.0;
        if (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TNUMBER)
            luaL_error(L, "bad field '%s' in argument #%d (number expected, got %s)", key, argn,
                       luaL_typename(L, -1));
        double v = lua_isnil(L, -1) ? def : lua_tonumber(L, -1);
        lua_pop(L, 1);
        if (k) s.angle_increment = v;
        else s.angle_min = v;
    }
    float *r = tycho_newuserdata(L, sizeof(float) * (size_t)n);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, rt, i + 1);
        if (lua_type(L, -1) != LUA_TNUMBER)
            luaL_argerror(L, argn, lua_pushfstring(L, "scan: range %d is not a number", i + 1));
        r[i] = (float)lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    s.count = n;
    s.ranges = r;
    return s; /* the ranges table and buffer stay on the stack */
}

/* frame: rows*cols numbers, flat (row-major) or as rows of numbers. */
static void check_frame(lua_State *L, int idx, const tycho_thermal_camera *cam, float *out)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    int want = cam->rows * cam->cols;
    lua_rawgeti(L, idx, 1);
    bool nested = lua_istable(L, -1);
    lua_pop(L, 1);
    if (!nested) {
        if ((int)lua_rawlen(L, idx) != want)
            luaL_argerror(L, idx,
                          lua_pushfstring(L, "frame: %d temperatures expected, got %d", want,
                                          (int)lua_rawlen(L, idx)));
        for (int i = 0; i < want; i++) {
            lua_rawgeti(L, idx, i + 1);
            if (lua_type(L, -1) != LUA_TNUMBER)
                luaL_argerror(L, idx, lua_pushfstring(L, "frame[%d] is not a number", i + 1));
            out[i] = (float)lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        return;
    }
    if ((int)lua_rawlen(L, idx) != cam->rows)
        luaL_argerror(L, idx, lua_pushfstring(L, "frame: %d rows expected", cam->rows));
    for (int r = 0; r < cam->rows; r++) {
        lua_rawgeti(L, idx, r + 1);
        if (!lua_istable(L, -1) || (int)lua_rawlen(L, -1) != cam->cols)
            luaL_argerror(
                L, idx, lua_pushfstring(L, "frame row %d: %d numbers expected", r + 1, cam->cols));
        for (int c = 0; c < cam->cols; c++) {
            lua_rawgeti(L, -1, c + 1);
            if (lua_type(L, -1) != LUA_TNUMBER)
                luaL_argerror(L, idx,
                              lua_pushfstring(L, "frame[%d][%d] is not a number", r + 1, c + 1));
            out[r * cam->cols + c] = (float)lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
}

static const tycho_opt_field camera_fields[] = {
    TYCHO_OPT_NUM("yaw"),       TYCHO_OPT_NUM_POS("fov"),   TYCHO_OPT_INT_POS("rows"),
    TYCHO_OPT_INT_POS("cols"),  TYCHO_OPT_BOOL("mirrored"), TYCHO_OPT_NUM("threshold"),
    TYCHO_OPT_NUM("bin_width"), TYCHO_OPT_NUM("min_range"), TYCHO_OPT_NUM("max_range"),
    TYCHO_OPT_BOOL("narrow"),   TYCHO_OPT_NUM("window"),    {0}};
static const tycho_opt_spec locate_spec = {"fusion.locate", camera_fields};
static const tycho_opt_field kmeans_auto_fields[] = {
    TYCHO_OPT_INT("k_max"), TYCHO_OPT_NUM("radius"), {0}};
static const tycho_opt_spec kmeans_auto_spec = {"kmeans", kmeans_auto_fields};
static const tycho_opt_field kmeans_fields[] = {
    TYCHO_OPT_INT("seed"), TYCHO_OPT_INT("max_iter"), TYCHO_OPT_INT("n_init"), {0}};
static const tycho_opt_spec kmeans_spec = {"kmeans", kmeans_fields};
static const tycho_opt_field pitch_fields[] = {
    TYCHO_OPT_NUM("window"),        TYCHO_OPT_NUM("multiple"),       TYCHO_OPT_NUM("floor"),
    TYCHO_OPT_NUM("abs_threshold"), TYCHO_OPT_NUM("spike_fraction"), TYCHO_OPT_NUM("baseline_tau"),
    TYCHO_OPT_INT("min_samples"),   TYCHO_OPT_INT("capacity"),       {0}};
static const tycho_opt_spec pitch_spec = {"pitch_detector", pitch_fields};

static int l_locate(lua_State *L)
{
    lua_settop(L, 4); /* scratch userdata go above the arguments */
    tycho_pose2 pose = check_pose(L, 1);
    opt_table(L, 4);
    tycho_l_checkopts(L, 4, 4, &locate_spec);
    tycho_thermal_camera cam;
    tycho_fusion_params p;
    tycho_thermal_camera_defaults(&cam);
    tycho_fusion_defaults(&p);
    cam.mount_yaw = tycho_l_optfield_number(L, 4, 4, "yaw", cam.mount_yaw);
    cam.hfov = tycho_l_optfield_number(L, 4, 4, "fov", cam.hfov);
    lua_Integer rows = tycho_l_optfield_integer(L, 4, 4, "rows", cam.rows);
    lua_Integer cols = tycho_l_optfield_integer(L, 4, 4, "cols", cam.cols);
    luaL_argcheck(L, rows >= 1 && cols >= 1 && rows * cols <= TYCHO_FUSION_MAX_PIXELS, 4,
                  "camera rows x cols out of range");
    cam.rows = (int)rows;
    cam.cols = (int)cols;
    cam.mirrored = tycho_l_optfield_boolean(L, 4, 4, "mirrored", cam.mirrored);
    p.threshold = tycho_l_optfield_number(L, 4, 4, "threshold", p.threshold);
    p.bin_width = tycho_l_optfield_number(L, 4, 4, "bin_width", p.bin_width);
    p.min_range = tycho_l_optfield_number(L, 4, 4, "min_range", p.min_range);
    p.max_range = tycho_l_optfield_number(L, 4, 4, "max_range", p.max_range);
    p.narrow = tycho_l_optfield_boolean(L, 4, 4, "narrow", p.narrow);
    p.window = tycho_l_optfield_number(L, 4, 4, "window", p.window);
    tycho_err err = {0};
    if (tycho_fusion_validate(&cam, &p, &err) != TYCHO_OK) return luaL_argerror(L, 4, err.msg);
    float *frame = tycho_newuserdata(L, sizeof(float) * (size_t)(cam.rows * cam.cols));
    check_frame(L, 3, &cam, frame);
    tycho_scan_ref scan = check_scan(L, 2);

    tycho_fusion_result r;
    if (tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, &err) != TYCHO_OK)
        return tycho_l_error(L, &err);
    if (r.outcome == TYCHO_FUSION_FOUND) {
        lua_pushnumber(L, r.x);
        lua_pushnumber(L, r.y);
    } else {
        lua_pushnil(L);
        lua_pushstring(L, tycho_fusion_outcome_name(r.outcome));
    }
    lua_createtable(L, 0, 10);
    set_num(L, "range", r.range);
    set_num(L, "bearing", r.bearing);
    set_int(L, "hot_pixels", r.hot_pixels);
    set_int(L, "col_lo", r.col_lo + 1); /* 1-based columns, 0 = none */
    set_int(L, "col_hi", r.col_hi + 1);
    set_num(L, "max_temp", r.max_temp);
    set_int(L, "beams_in_view", r.beams_in_view);
    set_int(L, "returns", r.returns);
    set_int(L, "bin_beams", r.bin_beams);
    if (r.hot_pixels > 0) set_num(L, "heat_bearing", r.heat_bearing);
    lua_pushboolean(L, r.windowed);
    lua_setfield(L, -2, "windowed");
    lua_pushstring(L, tycho_fusion_outcome_name(r.outcome));
    lua_setfield(L, -2, "outcome");
    return 3;
}

/* --- k-means --------------------------------------------------------------- */

typedef struct {
    tycho_kmeans *km;
} kmeans_box;

static int l_kmeans_gc(lua_State *L)
{
    kmeans_box *b = luaL_checkudata(L, 1, KMEANS_MT);
    tycho_kmeans_free(b->km);
    b->km = NULL;
    return 0;
}

static int l_kmeans(lua_State *L)
{
    lua_settop(L, 3); /* scratch userdata go above the arguments */
    int n;
    double *xy = check_points(L, 1, &n);
    luaL_argcheck(L, n > 0, 1, "no points");
    int k = 0, k_max = 0;
    double radius = 0;
    if (lua_istable(L, 2)) {
        tycho_l_checkopts(L, 2, 2, &kmeans_auto_spec);
        lua_Integer km = tycho_l_optfield_integer(L, 2, 2, "k_max", 10);
        luaL_argcheck(L, km >= 1 && km <= 1000000, 2, "k_max must be >= 1");
        k_max = (int)km;
        lua_getfield(L, 2, "radius");
        if (lua_type(L, -1) != LUA_TNUMBER)
            return luaL_error(L, "bad field 'radius' in argument #2 (number expected, got %s)",
                              luaL_typename(L, -1));
        radius = lua_tonumber(L, -1);
        lua_pop(L, 1);
        luaL_argcheck(L, radius >= 0 && isfinite(radius), 2, "radius must be >= 0");
    } else {
        lua_Integer kk = luaL_checkinteger(L, 2);
        luaL_argcheck(L, kk >= 1 && kk <= 1000000, 2, "k must be >= 1");
        k = (int)kk;
    }
    opt_table(L, 3);
    tycho_l_checkopts(L, 3, 3, &kmeans_spec);
    tycho_kmeans_params p;
    tycho_kmeans_defaults(&p);
    p.seed = (uint64_t)tycho_l_optfield_integer(L, 3, 3, "seed", (lua_Integer)p.seed);
    lua_Integer it = tycho_l_optfield_integer(L, 3, 3, "max_iter", p.max_iter);
    lua_Integer ni = tycho_l_optfield_integer(L, 3, 3, "n_init", p.n_init);
    luaL_argcheck(L, it >= 1 && it <= 100000, 3, "max_iter must be 1..100000");
    luaL_argcheck(L, ni >= 1 && ni <= 1000, 3, "n_init must be 1..1000");
    p.max_iter = (int)it;
    p.n_init = (int)ni;

    kmeans_box *box = tycho_newuserdata(L, sizeof *box);
    box->km = NULL;
    luaL_getmetatable(L, KMEANS_MT);
    lua_setmetatable(L, -2);
    tycho_err err = {0};
    if (!(box->km = tycho_kmeans_new(&err))) return tycho_l_error(L, &err);
    tycho_status st = k ? tycho_kmeans_fit(box->km, xy, n, k, &p, &err)
                        : tycho_kmeans_fit_auto(box->km, xy, n, k_max, radius, &p, &err);
    if (st != TYCHO_OK) return tycho_l_error(L, &err);

    int kk = tycho_kmeans_k(box->km);
    const double *c = tycho_kmeans_centroids(box->km);
    const int *cnt = tycho_kmeans_counts(box->km);
    const double *rad = tycho_kmeans_radii(box->km);
    lua_createtable(L, kk, 0);
    for (int i = 0; i < kk; i++) {
        lua_createtable(L, 0, 4);
        set_num(L, "x", c[2 * i]);
        set_num(L, "y", c[2 * i + 1]);
        set_int(L, "count", cnt[i]);
        set_num(L, "radius", rad[i]);
        lua_rawseti(L, -2, i + 1);
    }
    const int *as = tycho_kmeans_assignments(box->km);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushinteger(L, as[i] + 1);
        lua_rawseti(L, -2, i + 1);
    }
    lua_createtable(L, 0, 5);
    set_int(L, "k", kk);
    set_num(L, "inertia", tycho_kmeans_inertia(box->km));
    set_int(L, "iterations", tycho_kmeans_iterations(box->km));
    set_bool(L, "converged", tycho_kmeans_converged(box->km));
    set_bool(L, "satisfied", tycho_kmeans_satisfied(box->km));
    return 3;
}

/* --- pitch detector -------------------------------------------------------- */

typedef struct {
    tycho_pitch *d;
} pitch_box;

static tycho_pitch *check_pitch(lua_State *L, int idx)
{
    return TYCHO_L_CHECKBOX(L, idx, pitch_box, d, PITCH_MT, "pitch detector has been freed")->d;
}

static int l_pitch_new(lua_State *L)
{
    opt_table(L, 1);
    tycho_l_checkopts(L, 1, 1, &pitch_spec);
    tycho_pitch_params p;
    tycho_pitch_defaults(&p);
    p.window = tycho_l_optfield_number(L, 1, 1, "window", p.window);
    p.multiple = tycho_l_optfield_number(L, 1, 1, "multiple", p.multiple);
    p.floor = tycho_l_optfield_number(L, 1, 1, "floor", p.floor);
    p.abs_threshold = tycho_l_optfield_number(L, 1, 1, "abs_threshold", p.abs_threshold);
    p.spike_fraction = tycho_l_optfield_number(L, 1, 1, "spike_fraction", p.spike_fraction);
    p.baseline_tau = tycho_l_optfield_number(L, 1, 1, "baseline_tau", p.baseline_tau);
    lua_Integer ms = tycho_l_optfield_integer(L, 1, 1, "min_samples", p.min_samples);
    lua_Integer cap = tycho_l_optfield_integer(L, 1, 1, "capacity", p.capacity);
    luaL_argcheck(L, ms >= 1 && ms <= (1 << 20), 1, "min_samples must be >= 1");
    luaL_argcheck(L, cap >= 1 && cap <= (1 << 20), 1, "capacity must be 1..2^20");
    p.min_samples = (int)ms;
    p.capacity = (int)cap;
    tycho_err err = {0};
    if (tycho_pitch_validate(&p, &err) != TYCHO_OK) return luaL_argerror(L, 1, err.msg);
    pitch_box *b = tycho_newuserdata(L, sizeof *b);
    b->d = NULL;
    luaL_getmetatable(L, PITCH_MT);
    lua_setmetatable(L, -2);
    if (!(b->d = tycho_pitch_new(&p, &err))) return tycho_l_error(L, &err);
    return 1;
}

/* d:push(t, pitch) -> anomaly, short_avg, long_avg */
static int l_pitch_push(lua_State *L)
{
    tycho_pitch *d = check_pitch(L, 1);
    double t = luaL_checknumber(L, 2), pitch = luaL_checknumber(L, 3);
    luaL_argcheck(L, isfinite(t), 2, "time must be finite");
    luaL_argcheck(L, isfinite(pitch), 3, "pitch must be finite");
    tycho_pitch_state st;
    tycho_err err = {0};
    if (tycho_pitch_push(d, t, pitch, &st, &err) != TYCHO_OK) return luaL_argerror(L, 2, err.msg);
    lua_pushboolean(L, st.anomaly);
    lua_pushnumber(L, st.short_avg);
    lua_pushnumber(L, st.long_avg);
    return 3;
}

static int l_pitch_reset(lua_State *L)
{
    tycho_pitch_reset(check_pitch(L, 1));
    lua_settop(L, 1);
    return 1;
}

static void push_pitch_state(lua_State *L, const tycho_pitch_state *st)
{
    lua_createtable(L, 0, 6);
    set_bool(L, "anomaly", st->anomaly);
    set_bool(L, "relative", st->relative);
    set_bool(L, "absolute", st->absolute);
    set_num(L, "short_avg", st->short_avg);
    set_num(L, "long_avg", st->long_avg);
    set_int(L, "samples", st->samples);
}

static int l_pitch_state(lua_State *L)
{
    tycho_pitch_state st;
    tycho_pitch_get_state(check_pitch(L, 1), &st);
    push_pitch_state(L, &st);
    return 1;
}

static int l_pitch_gc(lua_State *L)
{
    pitch_box *b = luaL_checkudata(L, 1, PITCH_MT);
    tycho_pitch_free(b->d);
    b->d = NULL;
    return 0;
}

static int l_pitch_tostring(lua_State *L)
{
    pitch_box *b = luaL_checkudata(L, 1, PITCH_MT);
    if (!b->d) {
        lua_pushliteral(L, "tycho.pitch_detector (freed)");
        return 1;
    }
    tycho_pitch_state st;
    tycho_pitch_get_state(b->d, &st);
    char buf[160];
    snprintf(buf, sizeof buf, "tycho.pitch_detector: %s, short %.4f rad, long %.4f rad, %d samples",
             st.anomaly ? "ANOMALY" : "ok", st.short_avg, st.long_avg, st.samples);
    lua_pushstring(L, buf);
    return 1;
}

/* Fields: anomaly, short_avg, long_avg, samples; then methods. */
static int l_pitch_index(lua_State *L)
{
    tycho_pitch *d = check_pitch(L, 1);
    const char *k = lua_tostring(L, 2);
    tycho_pitch_state st;
    tycho_pitch_get_state(d, &st);
    if (k && !strcmp(k, "anomaly")) lua_pushboolean(L, st.anomaly);
    else if (k && !strcmp(k, "short_avg")) lua_pushnumber(L, st.short_avg);
    else if (k && !strcmp(k, "long_avg")) lua_pushnumber(L, st.long_avg);
    else if (k && !strcmp(k, "samples")) lua_pushinteger(L, st.samples);
    else {
        lua_pushvalue(L, 2);
        lua_rawget(L, lua_upvalueindex(1));
    }
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
-- heat seeking: fusion, clustering, pitch -------------------------------------------

tycho.fusion = {}
---Fuses a thermal frame with the LiDAR scan into a world position.
---@param camera? {yaw?: number, fov?: number, rows?: integer, cols?: integer, mirrored?: boolean, threshold?: number, bin_width?: number, min_range?: number, max_range?: number, narrow?: boolean, window?: number}
---@return number|nil x, number|string y_or_reason, table info
function tycho.fusion.locate(pose, scan, frame, camera) end
---@param k integer|{k_max?: integer, radius?: number}
---@param o? {seed?: integer, max_iter?: integer, n_init?: integer}
---@return {x: number, y: number, count: integer, radius: number}[] centroids, integer[] assignments, table info
function tycho.kmeans(points, k, o) end

---@class tycho.pitch_detector
local pitch_detector = {}
---@param params? {window?: number, multiple?: number, floor?: number, abs_threshold?: number, spike_fraction?: number, baseline_tau?: number, min_samples?: integer, capacity?: integer}
---@return tycho.pitch_detector
function tycho.pitch_detector(params) end
---@return boolean anomaly, number short_avg, number long_avg
function pitch_detector:push(t, pitch) end
function pitch_detector:reset() end
---@return table
function pitch_detector:state() end
*/
// clang-format on

void tycho_l_open_fusion(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg pitch_methods[] = {
        {"push", l_pitch_push}, {"reset", l_pitch_reset}, {"state", l_pitch_state}, {NULL, NULL}};
    static const luaL_Reg none[] = {{NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){PITCH_MT, pitch_methods, l_pitch_index, l_pitch_gc,
                                         l_pitch_tostring, NULL});
    lua_pop(L, 1);
    tycho_l_newclass(L, &(tycho_l_class){KMEANS_MT, none, NULL, l_kmeans_gc, NULL, NULL});
    lua_pop(L, 1);

    lua_newtable(L);
    lua_pushcfunction(L, l_locate);
    lua_setfield(L, -2, "locate");
    lua_setfield(L, module, "fusion");

    lua_pushcfunction(L, l_kmeans);
    lua_setfield(L, module, "kmeans");
    lua_pushcfunction(L, l_pitch_new);
    lua_setfield(L, module, "pitch_detector");
    tycho_l_register_opts(L, &locate_spec);
    tycho_l_register_opts(L, &kmeans_spec);
    tycho_l_register_opts(L, &pitch_spec);
}
