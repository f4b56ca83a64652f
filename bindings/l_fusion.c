/* Lua bindings: heat-seeking helpers — thermal + LiDAR fusion, k-means,
 * the pitch anomaly detector, diff-drive kinematics and the path follower.
 *
 *   tycho.fusion.locate(pose, scan, frame [, camera]) -> x, y, info | nil, reason, info
 *   tycho.kmeans(points, k | {k_max=, radius=} [, {seed=, max_iter=, n_init=}])
 *       -> centroids {{x=, y=, count=, radius=}...}, assignments {1-based...}, info
 *   tycho.pitch_detector([params]) -> detector (:push(t, pitch), :reset(), :state())
 *   tycho.follower([params]) -> follower (:set_path, :step, :blocked, :progress, ...)
 *   tycho.diffdrive.{step, to_wheels, from_wheels, limit, defaults}
 *   grid:path_blocked(points [, {lookahead=, threshold=, unknown=}])
 *
 * Option tables are checked for unknown keys, so a typo ("max_vel") is an
 * error rather than a silently ignored setting. */
#include "ltycho.h"

#include "tycho/diffdrive.h"
#include "tycho/follower.h"
#include "tycho/fusion.h"
#include "tycho/kmeans.h"
#include "tycho/pitch.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PITCH_MT "tycho.pitch_detector"
#define FOLLOWER_MT "tycho.follower"
#define KMEANS_MT "tycho.kmeans_workspace"

/* --- argument helpers ------------------------------------------------------ */

/* lua_absindex is 5.2+; LuaJIT lacks it. */
static int abs_index(lua_State *L, int idx)
{
    return (idx > 0 || idx <= LUA_REGISTRYINDEX) ? idx : lua_gettop(L) + idx + 1;
}

/* Raises if the table at idx has a string key not in keys (NULL-terminated). */
static void check_keys(lua_State *L, int idx, int argn, const char *const *keys)
{
    if (!lua_istable(L, idx)) return;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) continue;
        const char *k = lua_tostring(L, -1);
        bool ok = false;
        for (int i = 0; keys[i]; i++) ok = ok || !strcmp(k, keys[i]);
        if (!ok) luaL_argerror(L, argn, lua_pushfstring(L, "unknown field '%s'", k));
    }
}

static void opt_table(lua_State *L, int idx)
{
    if (!lua_isnoneornil(L, idx)) luaL_checktype(L, idx, LUA_TTABLE);
}

/* A number from t[key] or, failing that, t[pos]; required. */
static double field_xy(lua_State *L, int t, int argn, const char *key, int pos, const char *what)
{
    lua_getfield(L, t, key);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_rawgeti(L, t, pos);
    }
    if (lua_type(L, -1) != LUA_TNUMBER)
        luaL_argerror(L, argn, lua_pushfstring(L, "%s: number '%s' (or [%d]) expected, got %s",
                                               what, key, pos, luaL_typename(L, -1)));
    double v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return v;
}

/* pose: {x=, y=, yaw=} or {x, y, yaw}. */
static tycho_pose2 check_pose(lua_State *L, int idx)
{
    idx = abs_index(L, idx);
    if (!lua_istable(L, idx))
        luaL_argerror(L, idx, lua_pushfstring(L, "pose {x=, y=, yaw=} expected, got %s",
                                              luaL_typename(L, idx)));
    tycho_pose2 p;
    p.x = field_xy(L, idx, idx, "x", 1, "pose");
    p.y = field_xy(L, idx, idx, "y", 2, "pose");
    p.yaw = field_xy(L, idx, idx, "yaw", 3, "pose");
    if (!(isfinite(p.x) && isfinite(p.y) && isfinite(p.yaw)))
        luaL_argerror(L, idx, "pose must be finite");
    return p;
}

/* points: array of {x, y} or {x=, y=} -> a scratch userdata left on the
 * stack holding x0,y0,x1,y1,... */
static double *check_points(lua_State *L, int idx, int *n)
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
            luaL_argerror(L, idx, lua_pushfstring(L, "%s: table {x, y} expected, got %s", what,
                                                  luaL_typename(L, t)));
        xy[2 * i] = field_xy(L, t, idx, "x", 1, what);
        xy[2 * i + 1] = field_xy(L, t, idx, "y", 2, what);
        if (!isfinite(xy[2 * i]) || !isfinite(xy[2 * i + 1]))
            luaL_argerror(L, idx, lua_pushfstring(L, "%s is not finite", what));
        lua_pop(L, 1);
    }
    *n = m;
    return xy;
}

static void set_num(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static void set_int(lua_State *L, const char *k, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

static void set_bool(lua_State *L, const char *k, int v)
{
    lua_pushboolean(L, v);
    lua_setfield(L, -2, k);
}

/* --- fusion ---------------------------------------------------------------- */

/* scan: a table {angle_min=, angle_increment=, ranges={...}} (or the ranges in
 * its array part), or any object answering scan.angle_min,
 * scan.angle_increment and scan:ranges() (the scan userdata). Missing
 * angles default to a full turn from 0: 2*pi/#ranges apart. */
static tycho_scan_ref check_scan(lua_State *L, int idx)
{
    const int argn = idx;
    if (!lua_istable(L, idx) && !lua_isuserdata(L, idx))
        luaL_argerror(L, argn, lua_pushfstring(L, "scan table expected, got %s",
                                               luaL_typename(L, idx)));
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
            luaL_argerror(L, idx, lua_pushfstring(L, "frame: %d temperatures expected, got %d",
                                                  want, (int)lua_rawlen(L, idx)));
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
            luaL_argerror(L, idx, lua_pushfstring(L, "frame row %d: %d numbers expected", r + 1,
                                                  cam->cols));
        for (int c = 0; c < cam->cols; c++) {
            lua_rawgeti(L, -1, c + 1);
            if (lua_type(L, -1) != LUA_TNUMBER)
                luaL_argerror(L, idx, lua_pushfstring(L, "frame[%d][%d] is not a number", r + 1,
                                                      c + 1));
            out[r * cam->cols + c] = (float)lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
}

static const char *const camera_keys[] = {"yaw", "fov", "rows", "cols", "mirrored", "threshold",
                                          "bin_width", "min_range", "max_range", "narrow", NULL};

static int l_locate(lua_State *L)
{
    lua_settop(L, 4); /* scratch userdata go above the arguments */
    tycho_pose2 pose = check_pose(L, 1);
    opt_table(L, 4);
    check_keys(L, 4, 4, camera_keys);
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
    static const char *const auto_keys[] = {"k_max", "radius", NULL};
    static const char *const opt_keys[] = {"seed", "max_iter", "n_init", NULL};
    lua_settop(L, 3); /* scratch userdata go above the arguments */
    int n;
    double *xy = check_points(L, 1, &n);
    luaL_argcheck(L, n > 0, 1, "no points");
    int k = 0, k_max = 0;
    double radius = 0;
    if (lua_istable(L, 2)) {
        check_keys(L, 2, 2, auto_keys);
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
    check_keys(L, 3, 3, opt_keys);
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
    pitch_box *b = luaL_checkudata(L, idx, PITCH_MT);
    if (!b->d) luaL_argerror(L, idx, "pitch detector has been freed");
    return b->d;
}

static int l_pitch_new(lua_State *L)
{
    static const char *const keys[] = {"window", "multiple", "floor", "abs_threshold",
                                       "spike_fraction", "baseline_tau", "min_samples",
                                       "capacity", NULL};
    opt_table(L, 1);
    check_keys(L, 1, 1, keys);
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

/* --- follower -------------------------------------------------------------- */

typedef struct {
    tycho_follower *f;
    tycho_follow_cmd last;
} follower_box;

static follower_box *check_follower(lua_State *L, int idx)
{
    follower_box *b = luaL_checkudata(L, idx, FOLLOWER_MT);
    if (!b->f) luaL_argerror(L, idx, "follower has been freed");
    return b;
}

static const char *const follower_keys[] = {
    "desired_v", "max_v", "max_w", "lookahead_time", "min_lookahead", "max_lookahead",
    "min_radius", "min_v", "slow_clearance", "clearance_gain", "approach_dist",
    "approach_min_v", "rotate_to_heading", "rotate_threshold", "rotate_w", "max_accel",
    "max_w_accel", "xy_tolerance", "yaw_tolerance", "search_dist", NULL};

/* Reads follower params from the table at idx over the values in p. */
static void read_follower_params(lua_State *L, int idx, tycho_follower_params *p)
{
    check_keys(L, idx, idx, follower_keys);
    double *num[] = {&p->desired_v,      &p->max_v,          &p->max_w,
                     &p->lookahead_time, &p->min_lookahead,  &p->max_lookahead,
                     &p->min_radius,     &p->min_v,          &p->slow_clearance,
                     &p->clearance_gain, &p->approach_dist,  &p->approach_min_v,
                     NULL,               &p->rotate_threshold, &p->rotate_w,
                     &p->max_accel,      &p->max_w_accel,    &p->xy_tolerance,
                     &p->yaw_tolerance,  &p->search_dist};
    for (int i = 0; follower_keys[i]; i++)
        if (num[i]) *num[i] = tycho_l_optfield_number(L, idx, idx, follower_keys[i], *num[i]);
    p->rotate_to_heading =
        tycho_l_optfield_boolean(L, idx, idx, "rotate_to_heading", p->rotate_to_heading);
}

static void push_follower_params(lua_State *L, const tycho_follower_params *p)
{
    lua_createtable(L, 0, 20);
    const double num[] = {p->desired_v,      p->max_v,         p->max_w,
                          p->lookahead_time, p->min_lookahead, p->max_lookahead,
                          p->min_radius,     p->min_v,         p->slow_clearance,
                          p->clearance_gain, p->approach_dist, p->approach_min_v,
                          0,                 p->rotate_threshold, p->rotate_w,
                          p->max_accel,      p->max_w_accel,   p->xy_tolerance,
                          p->yaw_tolerance,  p->search_dist};
    for (int i = 0; follower_keys[i]; i++)
        if (strcmp(follower_keys[i], "rotate_to_heading")) set_num(L, follower_keys[i], num[i]);
    set_bool(L, "rotate_to_heading", p->rotate_to_heading);
}

static int l_follower_new(lua_State *L)
{
    opt_table(L, 1);
    tycho_follower_params p;
    tycho_follower_defaults(&p);
    read_follower_params(L, 1, &p);
    tycho_err err = {0};
    if (tycho_follower_validate(&p, &err) != TYCHO_OK) return luaL_argerror(L, 1, err.msg);
    follower_box *b = tycho_newuserdata(L, sizeof *b);
    memset(b, 0, sizeof *b);
    luaL_getmetatable(L, FOLLOWER_MT);
    lua_setmetatable(L, -2);
    if (!(b->f = tycho_follower_new(&p, &err))) return tycho_l_error(L, &err);
    return 1;
}

/* f:set_path(points [, goal_yaw]) -> f */
static int l_follower_set_path(lua_State *L)
{
    lua_settop(L, 3); /* scratch userdata go above the arguments */
    follower_box *b = check_follower(L, 1);
    double goal_yaw = luaL_optnumber(L, 3, NAN);
    luaL_argcheck(L, isnan(goal_yaw) || isfinite(goal_yaw), 3, "goal yaw must be finite");
    int n;
    double *xy = check_points(L, 2, &n);
    tycho_err err = {0};
    if (tycho_follower_set_path(b->f, xy, n, goal_yaw, &err) != TYCHO_OK)
        return tycho_l_error(L, &err);
    memset(&b->last, 0, sizeof b->last);
    b->last.status = tycho_follower_status(b->f);
    lua_settop(L, 1);
    return 1;
}

/* f:step(pose, dt [, clearance]) -> v, w, status, nearest (1-based), remaining */
static int l_follower_step(lua_State *L)
{
    follower_box *b = check_follower(L, 1);
    tycho_pose2 pose = check_pose(L, 2);
    double dt = luaL_checknumber(L, 3);
    luaL_argcheck(L, isfinite(dt) && dt > 0, 3, "dt must be > 0");
    double clearance = luaL_optnumber(L, 4, INFINITY);
    luaL_argcheck(L, !isnan(clearance), 4, "clearance is NaN");
    tycho_err err = {0};
    if (tycho_follower_step(b->f, pose, dt, clearance, &b->last, &err) != TYCHO_OK)
        return tycho_l_error(L, &err);
    lua_pushnumber(L, b->last.v);
    lua_pushnumber(L, b->last.w);
    lua_pushstring(L, tycho_follow_status_name(b->last.status));
    lua_pushinteger(L, b->last.nearest + 1);
    lua_pushnumber(L, b->last.remaining);
    return 5;
}

static int l_follower_progress(lua_State *L)
{
    follower_box *b = check_follower(L, 1);
    const tycho_follow_cmd *c = &b->last;
    lua_createtable(L, 0, 10);
    lua_pushstring(L, tycho_follow_status_name(tycho_follower_status(b->f)));
    lua_setfield(L, -2, "status");
    set_num(L, "v", c->v);
    set_num(L, "w", c->w);
    set_int(L, "nearest", c->nearest + 1);
    set_num(L, "remaining", c->remaining);
    set_num(L, "lookahead", c->lookahead);
    set_num(L, "carrot_x", c->carrot_x);
    set_num(L, "carrot_y", c->carrot_y);
    set_num(L, "curvature", c->curvature);
    return 1;
}

static int l_follower_reset(lua_State *L)
{
    follower_box *b = check_follower(L, 1);
    tycho_follower_reset(b->f);
    memset(&b->last, 0, sizeof b->last);
    b->last.status = tycho_follower_status(b->f);
    lua_settop(L, 1);
    return 1;
}

static int l_follower_path(lua_State *L)
{
    int n;
    const double *xy = tycho_follower_path(check_follower(L, 1)->f, &n);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_createtable(L, 0, 2);
        set_num(L, "x", xy[2 * i]);
        set_num(L, "y", xy[2 * i + 1]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int l_follower_params(lua_State *L)
{
    tycho_follower_params p;
    tycho_follower_get_params(check_follower(L, 1)->f, &p);
    push_follower_params(L, &p);
    return 1;
}

/* f:set_params(table): changes the given fields, keeps the others. */
static int l_follower_set_params(lua_State *L)
{
    follower_box *b = check_follower(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    tycho_follower_params p;
    tycho_follower_get_params(b->f, &p);
    read_follower_params(L, 2, &p);
    tycho_err err = {0};
    if (tycho_follower_set_params(b->f, &p, &err) != TYCHO_OK) return luaL_argerror(L, 2, err.msg);
    lua_settop(L, 1);
    return 1;
}

static void read_block_opts(lua_State *L, int idx, double *lookahead, int *threshold,
                            int *unknown)
{
    static const char *const keys[] = {"lookahead", "threshold", "unknown", NULL};
    opt_table(L, idx);
    check_keys(L, idx, idx, keys);
    *lookahead = tycho_l_optfield_number(L, idx, idx, "lookahead", *lookahead);
    lua_Integer th = tycho_l_optfield_integer(L, idx, idx, "threshold", TYCHO_COST_LETHAL);
    luaL_argcheck(L, th >= 1 && th <= 255, idx, "threshold must be a cost 1..255");
    *threshold = (int)th;
    *unknown = tycho_l_optfield_boolean(L, idx, idx, "unknown", 0);
    luaL_argcheck(L, *lookahead >= 0, idx, "lookahead must be >= 0");
}

static int push_block(lua_State *L, const tycho_path_block *b)
{
    lua_pushboolean(L, b->blocked);
    if (!b->blocked) return 1;
    lua_pushnumber(L, b->distance);
    lua_pushnumber(L, b->x);
    lua_pushnumber(L, b->y);
    lua_pushinteger(L, b->cx);
    lua_pushinteger(L, b->cy);
    return 6;
}

/* f:blocked(grid [, {lookahead=max_lookahead*2, threshold=254, unknown=false}])
 * -> blocked [, distance, x, y, cx, cy] */
static int l_follower_blocked(lua_State *L)
{
    follower_box *b = check_follower(L, 1);
    tycho_grid *g = tycho_l_checkgrid(L, 2);
    tycho_follower_params p;
    tycho_follower_get_params(b->f, &p);
    double lookahead = 2 * p.max_lookahead;
    int threshold, unknown;
    read_block_opts(L, 3, &lookahead, &threshold, &unknown);
    tycho_path_block blk;
    tycho_err err = {0};
    if (tycho_follower_check_blocked(b->f, g, lookahead, threshold, unknown, &blk, &err) !=
        TYCHO_OK)
        return tycho_l_error(L, &err);
    return push_block(L, &blk);
}

/* grid:path_blocked(points [, {lookahead=inf, threshold=254, unknown=false}]) */
static int l_grid_path_blocked(lua_State *L)
{
    lua_settop(L, 3); /* scratch userdata go above the arguments */
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    double lookahead = INFINITY;
    int threshold, unknown;
    read_block_opts(L, 3, &lookahead, &threshold, &unknown);
    int n;
    double *xy = check_points(L, 2, &n);
    luaL_argcheck(L, n > 0, 2, "empty path");
    tycho_path_block blk;
    tycho_err err = {0};
    if (tycho_path_check_blocked(g, xy, n, lookahead, threshold, unknown, &blk, &err) != TYCHO_OK)
        return tycho_l_error(L, &err);
    return push_block(L, &blk);
}

static int l_follower_gc(lua_State *L)
{
    follower_box *b = luaL_checkudata(L, 1, FOLLOWER_MT);
    tycho_follower_free(b->f);
    b->f = NULL;
    return 0;
}

static int l_follower_len(lua_State *L)
{
    int n;
    tycho_follower_path(check_follower(L, 1)->f, &n);
    lua_pushinteger(L, n);
    return 1;
}

static int l_follower_tostring(lua_State *L)
{
    follower_box *b = luaL_checkudata(L, 1, FOLLOWER_MT);
    if (!b->f) {
        lua_pushliteral(L, "tycho.follower (freed)");
        return 1;
    }
    int n;
    tycho_follower_path(b->f, &n);
    char buf[160];
    snprintf(buf, sizeof buf, "tycho.follower: %s, %d points, %.2f m to go",
             tycho_follow_status_name(tycho_follower_status(b->f)), n, b->last.remaining);
    lua_pushstring(L, buf);
    return 1;
}

static int l_follower_index(lua_State *L)
{
    follower_box *b = check_follower(L, 1);
    const char *k = lua_tostring(L, 2);
    if (k && !strcmp(k, "status"))
        lua_pushstring(L, tycho_follow_status_name(tycho_follower_status(b->f)));
    else {
        lua_pushvalue(L, 2);
        lua_rawget(L, lua_upvalueindex(1));
    }
    return 1;
}

/* --- diff drive ------------------------------------------------------------ */

static void opt_diffdrive(lua_State *L, int idx, tycho_diffdrive_params *p)
{
    static const char *const keys[] = {"wheel_separation", "wheel_radius", "max_v", "max_w",
                                       NULL};
    tycho_diffdrive_defaults(p);
    opt_table(L, idx);
    check_keys(L, idx, idx, keys);
    p->wheel_separation = tycho_l_optfield_number(L, idx, idx, "wheel_separation",
                                                  p->wheel_separation);
    p->wheel_radius = tycho_l_optfield_number(L, idx, idx, "wheel_radius", p->wheel_radius);
    p->max_v = tycho_l_optfield_number(L, idx, idx, "max_v", p->max_v);
    p->max_w = tycho_l_optfield_number(L, idx, idx, "max_w", p->max_w);
    tycho_err err = {0};
    if (tycho_diffdrive_validate(p, &err) != TYCHO_OK) luaL_argerror(L, idx, err.msg);
}

/* tycho.diffdrive.step(pose, v, w, dt) -> x, y, yaw (exact arc) */
static int l_dd_step(lua_State *L)
{
    tycho_pose2 p = check_pose(L, 1);
    double v = luaL_checknumber(L, 2), w = luaL_checknumber(L, 3), dt = luaL_checknumber(L, 4);
    tycho_pose2 q = tycho_unicycle_step(p, v, w, dt);
    lua_pushnumber(L, q.x);
    lua_pushnumber(L, q.y);
    lua_pushnumber(L, q.yaw);
    return 3;
}

static int l_dd_to_wheels(lua_State *L)
{
    double v = luaL_checknumber(L, 1), w = luaL_checknumber(L, 2), wl, wr;
    tycho_diffdrive_params p;
    opt_diffdrive(L, 3, &p);
    tycho_diffdrive_to_wheels(&p, v, w, &wl, &wr);
    lua_pushnumber(L, wl);
    lua_pushnumber(L, wr);
    return 2;
}

static int l_dd_from_wheels(lua_State *L)
{
    double wl = luaL_checknumber(L, 1), wr = luaL_checknumber(L, 2), v, w;
    tycho_diffdrive_params p;
    opt_diffdrive(L, 3, &p);
    tycho_diffdrive_from_wheels(&p, wl, wr, &v, &w);
    lua_pushnumber(L, v);
    lua_pushnumber(L, w);
    return 2;
}

/* tycho.diffdrive.limit(v, w [, params [, keep_curvature=true]]) -> v, w */
static int l_dd_limit(lua_State *L)
{
    double v = luaL_checknumber(L, 1), w = luaL_checknumber(L, 2);
    tycho_diffdrive_params p;
    opt_diffdrive(L, 3, &p);
    int keep = lua_isnoneornil(L, 4) ? 1 : lua_toboolean(L, 4);
    tycho_diffdrive_limit(&p, &v, &w, keep);
    lua_pushnumber(L, v);
    lua_pushnumber(L, w);
    return 2;
}

static int l_dd_defaults(lua_State *L)
{
    tycho_diffdrive_params p;
    tycho_diffdrive_defaults(&p);
    lua_createtable(L, 0, 4);
    set_num(L, "wheel_separation", p.wheel_separation);
    set_num(L, "wheel_radius", p.wheel_radius);
    set_num(L, "max_v", p.max_v);
    set_num(L, "max_w", p.max_w);
    return 1;
}

/* --- registration ---------------------------------------------------------- */

/* A metatable for userdata with methods, __index (closure over the method
 * table, or the table itself), __gc, __tostring and optional __len. */
static void new_class(lua_State *L, const char *name, const luaL_Reg *methods,
                      lua_CFunction index, lua_CFunction gc, lua_CFunction tostring,
                      lua_CFunction len)
{
    luaL_newmetatable(L, name);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    if (index) lua_pushcclosure(L, index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
    if (tostring) {
        lua_pushcfunction(L, tostring);
        lua_setfield(L, -2, "__tostring");
    }
    if (len) {
        lua_pushcfunction(L, len);
        lua_setfield(L, -2, "__len");
    }
    lua_pop(L, 1);
}

void tycho_l_open_fusion(lua_State *L, int module, int methods)
{
    static const luaL_Reg pitch_methods[] = {
        {"push", l_pitch_push}, {"reset", l_pitch_reset}, {"state", l_pitch_state}, {NULL, NULL}};
    static const luaL_Reg follower_methods[] = {
        {"set_path", l_follower_set_path}, {"step", l_follower_step},
        {"progress", l_follower_progress}, {"reset", l_follower_reset},
        {"path", l_follower_path},         {"params", l_follower_params},
        {"set_params", l_follower_set_params}, {"blocked", l_follower_blocked},
        {NULL, NULL}};
    static const luaL_Reg none[] = {{NULL, NULL}};
    new_class(L, PITCH_MT, pitch_methods, l_pitch_index, l_pitch_gc, l_pitch_tostring, NULL);
    new_class(L, FOLLOWER_MT, follower_methods, l_follower_index, l_follower_gc,
              l_follower_tostring, l_follower_len);
    new_class(L, KMEANS_MT, none, NULL, l_kmeans_gc, NULL, NULL);

    lua_newtable(L);
    lua_pushcfunction(L, l_locate);
    lua_setfield(L, -2, "locate");
    lua_setfield(L, module, "fusion");

    lua_pushcfunction(L, l_kmeans);
    lua_setfield(L, module, "kmeans");
    lua_pushcfunction(L, l_pitch_new);
    lua_setfield(L, module, "pitch_detector");
    lua_pushcfunction(L, l_follower_new);
    lua_setfield(L, module, "follower");

    static const luaL_Reg dd[] = {{"step", l_dd_step},
                                  {"to_wheels", l_dd_to_wheels},
                                  {"from_wheels", l_dd_from_wheels},
                                  {"limit", l_dd_limit},
                                  {"defaults", l_dd_defaults},
                                  {NULL, NULL}};
    lua_newtable(L);
    luaL_setfuncs(L, dd, 0);
    lua_setfield(L, module, "diffdrive");

    lua_pushcfunction(L, l_grid_path_blocked);
    lua_setfield(L, methods, "path_blocked");
}
