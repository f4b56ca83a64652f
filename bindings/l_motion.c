/* Lua bindings: motion — the regulated pure pursuit follower, the path
 * check against a grid, and diff-drive kinematics.
 *
 *   tycho.follower([params]) -> follower (:set_path, :step, :blocked, :progress, ...)
 *   tycho.diffdrive.{step, to_wheels, from_wheels, limit, defaults}
 *   grid:path_blocked(points [, {lookahead=, threshold=, unknown=}])
 *
 * Option tables are checked for unknown keys, so a typo ("max_vel") is an
 * error rather than a silently ignored setting. */
#include "largs.h"

#include "tycho/diffdrive.h"
#include "tycho/follower.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FOLLOWER_MT "tycho.follower"

/* --- follower -------------------------------------------------------------- */

typedef struct {
    tycho_follower *f;
    tycho_follow_cmd last;
} follower_box;

static follower_box *check_follower(lua_State *L, int idx)
{
    return TYCHO_L_CHECKBOX(L, idx, follower_box, f, FOLLOWER_MT, "follower has been freed");
}

static const char *const follower_keys[] = {"desired_v",
                                            "max_v",
                                            "max_w",
                                            "lookahead_time",
                                            "min_lookahead",
                                            "max_lookahead",
                                            "min_radius",
                                            "min_v",
                                            "slow_clearance",
                                            "clearance_gain",
                                            "approach_dist",
                                            "approach_min_v",
                                            "rotate_to_heading",
                                            "rotate_threshold",
                                            "rotate_w",
                                            "max_accel",
                                            "max_w_accel",
                                            "xy_tolerance",
                                            "yaw_tolerance",
                                            "search_dist",
                                            NULL};

#define NUM_KEY(k) TYCHO_OPT_NUM(k)
static const tycho_opt_field follower_fields[] = {NUM_KEY("desired_v"),
                                                  NUM_KEY("max_v"),
                                                  NUM_KEY("max_w"),
                                                  NUM_KEY("lookahead_time"),
                                                  NUM_KEY("min_lookahead"),
                                                  NUM_KEY("max_lookahead"),
                                                  NUM_KEY("min_radius"),
                                                  NUM_KEY("min_v"),
                                                  NUM_KEY("slow_clearance"),
                                                  NUM_KEY("clearance_gain"),
                                                  NUM_KEY("approach_dist"),
                                                  NUM_KEY("approach_min_v"),
                                                  TYCHO_OPT_BOOL("rotate_to_heading"),
                                                  NUM_KEY("rotate_threshold"),
                                                  NUM_KEY("rotate_w"),
                                                  NUM_KEY("max_accel"),
                                                  NUM_KEY("max_w_accel"),
                                                  NUM_KEY("xy_tolerance"),
                                                  NUM_KEY("yaw_tolerance"),
                                                  NUM_KEY("search_dist"),
                                                  {0}};
static const tycho_opt_spec follower_spec = {"follower", follower_fields};
static const tycho_opt_spec set_params_spec = {"follower:set_params", follower_fields};
static const tycho_opt_field block_fields[] = {
    TYCHO_OPT_NUM("lookahead"), TYCHO_OPT_INT("threshold"), TYCHO_OPT_BOOL("unknown"), {0}};
static const tycho_opt_spec follower_blocked_spec = {"follower:blocked", block_fields};
static const tycho_opt_spec path_blocked_spec = {"grid:path_blocked", block_fields};
static const tycho_opt_field diffdrive_fields[] = {
    NUM_KEY("wheel_separation"), NUM_KEY("wheel_radius"), NUM_KEY("max_v"), NUM_KEY("max_w"), {0}};
static const tycho_opt_spec to_wheels_spec = {"diffdrive.to_wheels", diffdrive_fields};
static const tycho_opt_spec from_wheels_spec = {"diffdrive.from_wheels", diffdrive_fields};
static const tycho_opt_spec limit_spec = {"diffdrive.limit", diffdrive_fields};

/* Reads follower params from the table at idx over the values in p. */
static void read_follower_params(lua_State *L, int idx, const tycho_opt_spec *spec,
                                 tycho_follower_params *p)
{
    tycho_l_checkopts(L, idx, idx, spec);
    double *num[] = {&p->desired_v,
                     &p->max_v,
                     &p->max_w,
                     &p->lookahead_time,
                     &p->min_lookahead,
                     &p->max_lookahead,
                     &p->min_radius,
                     &p->min_v,
                     &p->slow_clearance,
                     &p->clearance_gain,
                     &p->approach_dist,
                     &p->approach_min_v,
                     NULL,
                     &p->rotate_threshold,
                     &p->rotate_w,
                     &p->max_accel,
                     &p->max_w_accel,
                     &p->xy_tolerance,
                     &p->yaw_tolerance,
                     &p->search_dist};
    for (int i = 0; follower_keys[i]; i++)
        if (num[i]) *num[i] = tycho_l_optfield_number(L, idx, idx, follower_keys[i], *num[i]);
    p->rotate_to_heading =
        tycho_l_optfield_boolean(L, idx, idx, "rotate_to_heading", p->rotate_to_heading);
}

static void push_follower_params(lua_State *L, const tycho_follower_params *p)
{
    lua_createtable(L, 0, 20);
    const double num[] = {p->desired_v,
                          p->max_v,
                          p->max_w,
                          p->lookahead_time,
                          p->min_lookahead,
                          p->max_lookahead,
                          p->min_radius,
                          p->min_v,
                          p->slow_clearance,
                          p->clearance_gain,
                          p->approach_dist,
                          p->approach_min_v,
                          0,
                          p->rotate_threshold,
                          p->rotate_w,
                          p->max_accel,
                          p->max_w_accel,
                          p->xy_tolerance,
                          p->yaw_tolerance,
                          p->search_dist};
    for (int i = 0; follower_keys[i]; i++)
        if (strcmp(follower_keys[i], "rotate_to_heading")) set_num(L, follower_keys[i], num[i]);
    set_bool(L, "rotate_to_heading", p->rotate_to_heading);
}

static int l_follower_new(lua_State *L)
{
    opt_table(L, 1);
    tycho_follower_params p;
    tycho_follower_defaults(&p);
    read_follower_params(L, 1, &follower_spec, &p);
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
    read_follower_params(L, 2, &set_params_spec, &p);
    tycho_err err = {0};
    if (tycho_follower_set_params(b->f, &p, &err) != TYCHO_OK) return luaL_argerror(L, 2, err.msg);
    lua_settop(L, 1);
    return 1;
}

static void read_block_opts(lua_State *L, int idx, const tycho_opt_spec *spec, double *lookahead,
                            int *threshold, int *unknown)
{
    tycho_l_checkopts(L, idx, idx, spec);
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
    read_block_opts(L, 3, &follower_blocked_spec, &lookahead, &threshold, &unknown);
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
    read_block_opts(L, 3, &path_blocked_spec, &lookahead, &threshold, &unknown);
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

static void opt_diffdrive(lua_State *L, int idx, const tycho_opt_spec *spec,
                          tycho_diffdrive_params *p)
{
    tycho_diffdrive_defaults(p);
    tycho_l_checkopts(L, idx, idx, spec);
    p->wheel_separation =
        tycho_l_optfield_number(L, idx, idx, "wheel_separation", p->wheel_separation);
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
    opt_diffdrive(L, 3, &to_wheels_spec, &p);
    tycho_diffdrive_to_wheels(&p, v, w, &wl, &wr);
    lua_pushnumber(L, wl);
    lua_pushnumber(L, wr);
    return 2;
}

static int l_dd_from_wheels(lua_State *L)
{
    double wl = luaL_checknumber(L, 1), wr = luaL_checknumber(L, 2), v, w;
    tycho_diffdrive_params p;
    opt_diffdrive(L, 3, &from_wheels_spec, &p);
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
    opt_diffdrive(L, 3, &limit_spec, &p);
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

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---@param points tycho.xy[]
---@param o? {lookahead?: number, threshold?: integer, unknown?: boolean}
---@return boolean blocked, integer? index
function grid:path_blocked(points, o) end

-- motion ------------------------------------------------------------------------------

---Regulated pure pursuit path follower.
---@class tycho.follower
local follower = {}
---@alias tycho.follower_params {desired_v?: number, max_v?: number, max_w?: number, lookahead_time?: number, min_lookahead?: number, max_lookahead?: number, min_radius?: number, min_v?: number, slow_clearance?: number, clearance_gain?: number, approach_dist?: number, approach_min_v?: number, rotate_to_heading?: boolean, rotate_threshold?: number, rotate_w?: number, max_accel?: number, max_w_accel?: number, xy_tolerance?: number, yaw_tolerance?: number, search_dist?: number}
---@param params? tycho.follower_params
---@return tycho.follower
function tycho.follower(params) end
---@return tycho.follower
function follower:set_path(points, goal_yaw) end
---@return number v, number w, string status, integer nearest, number remaining
function follower:step(pose, dt, clearance) end
---@param o? {lookahead?: number, threshold?: integer, unknown?: boolean}
---@return boolean blocked, integer? index
function follower:blocked(g, o) end
---@return table
function follower:params() end
---@param t tycho.follower_params
function follower:set_params(t) end
---@return tycho.xy[]
function follower:path() end
---@return integer nearest, number remaining
function follower:progress() end
function follower:reset() end

tycho.diffdrive = {}
---@return table params
function tycho.diffdrive.defaults() end
---@return tycho.pose
function tycho.diffdrive.step(pose, v, w, dt) end
---@param params? {wheel_separation?: number, wheel_radius?: number, max_v?: number, max_w?: number}
---@return number left, number right   wheel speeds
function tycho.diffdrive.to_wheels(v, w, params) end
---@param params? {wheel_separation?: number, wheel_radius?: number, max_v?: number, max_w?: number}
---@return number v, number w
function tycho.diffdrive.from_wheels(left, right, params) end
---@param params? {wheel_separation?: number, wheel_radius?: number, max_v?: number, max_w?: number}
---@return number v, number w
function tycho.diffdrive.limit(v, w, params) end
*/
// clang-format on

void tycho_l_open_motion(lua_State *L, int module, int methods)
{
    static const luaL_Reg follower_methods[] = {{"set_path", l_follower_set_path},
                                                {"step", l_follower_step},
                                                {"progress", l_follower_progress},
                                                {"reset", l_follower_reset},
                                                {"path", l_follower_path},
                                                {"params", l_follower_params},
                                                {"set_params", l_follower_set_params},
                                                {"blocked", l_follower_blocked},
                                                {NULL, NULL}};
    tycho_l_newclass(L,
                     &(tycho_l_class){FOLLOWER_MT, follower_methods, l_follower_index,
                                      l_follower_gc, l_follower_tostring,
                                      (const luaL_Reg[]){{"__len", l_follower_len}, {NULL, NULL}}});
    lua_pop(L, 1);
    lua_pushcfunction(L, l_follower_new);
    lua_setfield(L, module, "follower");

    static const luaL_Reg dd[] = {
        {"step", l_dd_step},   {"to_wheels", l_dd_to_wheels}, {"from_wheels", l_dd_from_wheels},
        {"limit", l_dd_limit}, {"defaults", l_dd_defaults},   {NULL, NULL}};
    lua_newtable(L);
    luaL_setfuncs(L, dd, 0);
    lua_setfield(L, module, "diffdrive");

    lua_pushcfunction(L, l_grid_path_blocked);
    lua_setfield(L, methods, "path_blocked");
    tycho_l_register_opts(L, &follower_spec);
    tycho_l_register_opts(L, &set_params_spec);
    tycho_l_register_opts(L, &follower_blocked_spec);
    tycho_l_register_opts(L, &path_blocked_spec);
    tycho_l_register_opts(L, &to_wheels_spec);
    tycho_l_register_opts(L, &from_wheels_spec);
    tycho_l_register_opts(L, &limit_spec);
}
