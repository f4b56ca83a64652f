/* Lua bindings: a robot on rough ground (core terrain_sim.h) and the
 * trajectory comparison (core trajectory.h), in the tycho.terrain table.
 *
 *   local bot = tycho.terrain.robot{kind = "mecanum" | "diff", half_length =, half_width =,
 *                                   wheel_radius =, max_wheel =, max_accel =, max_w_accel =,
 * max_step =} bot:place(hf, x, y, yaw) -> true | nil, why bot:step(hf, vx, vy, wz, dt) -> moved
 * (false: a wheel met a step it cannot climb) bot.pose -> {x, y, z, roll, pitch, yaw}; bot.x ..
 * bot.yaw, bot.vx, bot.vy, bot.wz, bot.wheels -> {w1, w2, w3, w4}, bot.bumps, bot.kind
 *   tycho.terrain.compare(a, b [, {spacing = 0.05}]) -> {mean, max, hausdorff, length_a, length_b,
 *                                                        length_diff, samples}
 *       a, b: arrays of {x, y} or {x =, y =} */
#include "largs.h"
#include "tycho/terrain_sim.h"
#include "tycho/trajectory.h"

static const tycho_opt_field robot_fields[] = {TYCHO_OPT_STR("kind"),
                                               TYCHO_OPT_NUM_POS("half_length"),
                                               TYCHO_OPT_NUM_POS("half_width"),
                                               TYCHO_OPT_NUM_POS("wheel_radius"),
                                               TYCHO_OPT_NUM_POS("max_wheel"),
                                               TYCHO_OPT_NUM_POS("max_accel"),
                                               TYCHO_OPT_NUM_POS("max_w_accel"),
                                               TYCHO_OPT_NUM_NONNEG("max_step"),
                                               {0}};
static const tycho_opt_spec robot_spec = {"terrain.robot", robot_fields};
static const tycho_opt_field compare_fields[] = {TYCHO_OPT_NUM_POS("spacing"), {0}};
static const tycho_opt_spec compare_spec = {"terrain.compare", compare_fields};

#include <string.h>

#define ROBOT_MT "tycho.terrain_robot"

typedef struct {
    tycho_terrain_robot robot;
    tycho_terrain_robot_state s;
    bool placed;
} lrobot;

static lrobot *check_robot(lua_State *L) { return luaL_checkudata(L, 1, ROBOT_MT); }

static tycho_heightfield *check_field(lua_State *L, int idx)
{
    tycho_heightfield *f = tycho_l_testheightfield(L, idx);
    if (!f) luaL_argerror(L, idx, "tycho.heightfield expected");
    return f;
}

static int l_robot(lua_State *L)
{
    lua_settop(
        L, 1); /* the userdata pushed below must not land at index 1 when no options are given */
    opt_table(L, 1);
    tycho_l_checkopts(L, 1, 1, &robot_spec);
    const char *kind = "diff";
    if (lua_istable(L, 1)) {
        lua_getfield(L, 1, "kind");
        if (!lua_isnil(L, -1)) kind = luaL_checkstring(L, -1);
    }
    if (strcmp(kind, "diff") && strcmp(kind, "mecanum"))
        return luaL_argerror(
            L, 1, lua_pushfstring(L, "kind must be 'diff' or 'mecanum' (got '%s')", kind));
    lrobot *b = tycho_newuserdata(L, sizeof *b);
    memset(b, 0, sizeof *b);
    tycho_terrain_robot *r = &b->robot;
    tycho_terrain_robot_defaults(r, kind[0] == 'm' ? TYCHO_BASE_MECANUM : TYCHO_BASE_DIFF);
    r->half_length = tycho_l_optfield_number(L, 1, 1, "half_length", r->half_length);
    r->half_width = tycho_l_optfield_number(L, 1, 1, "half_width", r->half_width);
    r->wheel_radius = tycho_l_optfield_number(L, 1, 1, "wheel_radius", r->wheel_radius);
    r->max_wheel = tycho_l_optfield_number(L, 1, 1, "max_wheel", r->max_wheel);
    r->max_accel = tycho_l_optfield_number(L, 1, 1, "max_accel", r->max_accel);
    r->max_w_accel = tycho_l_optfield_number(L, 1, 1, "max_w_accel", r->max_w_accel);
    r->max_step = tycho_l_optfield_number(L, 1, 1, "max_step", r->max_step);
    tycho_err err = {0};
    if (tycho_terrain_robot_validate(r, &err) != TYCHO_OK) return luaL_argerror(L, 1, err.msg);
    luaL_getmetatable(L, ROBOT_MT);
    lua_setmetatable(L, -2);
    return 1;
}

static int l_robot_place(lua_State *L)
{
    lrobot *b = check_robot(L);
    tycho_heightfield *f = check_field(L, 2);
    double x = luaL_checknumber(L, 3), y = luaL_checknumber(L, 4), yaw = luaL_optnumber(L, 5, 0);
    b->placed = tycho_terrain_robot_place(&b->robot, f, x, y, yaw, &b->s);
    if (!b->placed) {
        lua_pushnil(L);
        lua_pushfstring(L, "(%f, %f) puts a wheel off the height field", x, y);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int l_robot_step(lua_State *L)
{
    lrobot *b = check_robot(L);
    tycho_heightfield *f = check_field(L, 2);
    double vx = luaL_checknumber(L, 3), vy = luaL_checknumber(L, 4), wz = luaL_checknumber(L, 5);
    double dt = luaL_checknumber(L, 6);
    luaL_argcheck(L, dt > 0 && dt <= 1, 6, "dt in (0, 1] s expected");
    if (!b->placed)
        return luaL_error(L, "terrain robot: place it on a height field first (robot:place)");
    lua_pushboolean(L, tycho_terrain_robot_step(&b->robot, f, &b->s, vx, vy, wz, dt));
    return 1;
}

static void push_pose(lua_State *L, const tycho_pose3 *p)
{
    lua_createtable(L, 0, 6);
    set_num(L, "x", p->x);
    set_num(L, "y", p->y);
    set_num(L, "z", p->z);
    set_num(L, "roll", p->roll);
    set_num(L, "pitch", p->pitch);
    set_num(L, "yaw", p->yaw);
}

static int l_robot_index(lua_State *L)
{
    lrobot *b = check_robot(L);
    const char *k = luaL_checkstring(L, 2);
    const tycho_pose3 *p = &b->s.pose;
    static const char *const NUM[] = {"x",   "y",  "z",  "roll", "pitch",
                                      "yaw", "vx", "vy", "wz",   NULL};
    const double val[] = {p->x, p->y, p->z, p->roll, p->pitch, p->yaw, b->s.vx, b->s.vy, b->s.wz};
    for (int i = 0; NUM[i]; i++)
        if (!strcmp(k, NUM[i])) {
            lua_pushnumber(L, val[i]);
            return 1;
        }
    if (!strcmp(k, "pose")) push_pose(L, p);
    else if (!strcmp(k, "bumps")) lua_pushinteger(L, b->s.bumps);
    else if (!strcmp(k, "kind"))
        lua_pushstring(L, b->robot.kind == TYCHO_BASE_MECANUM ? "mecanum" : "diff");
    else if (!strcmp(k, "wheels")) {
        lua_createtable(L, 4, 0);
        for (int i = 0; i < 4; i++) {
            lua_pushnumber(L, b->s.wheel[i]);
            lua_rawseti(L, -2, i + 1);
        }
    } else {
        lua_pushvalue(L, 2);
        lua_rawget(L, lua_upvalueindex(1));
    }
    return 1;
}

static int l_robot_gc(lua_State *L)
{
    (void)L;
    return 0;
}

static int l_robot_tostring(lua_State *L)
{
    lrobot *b = check_robot(L);
    lua_pushfstring(L, "tycho.terrain_robot(%s, x=%f y=%f yaw=%f)",
                    b->robot.kind == TYCHO_BASE_MECANUM ? "mecanum" : "diff", b->s.pose.x,
                    b->s.pose.y, b->s.pose.yaw);
    return 1;
}

/* An array of {x, y} / {x =, y =} at idx -> x0, y0, x1, ... in a userdata
 * pushed on the stack (so an error half way leaks nothing). */
static double *polyline(lua_State *L, int idx, size_t *n)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    *n = lua_rawlen(L, idx);
    if (*n < 1) luaL_argerror(L, idx, "a trajectory of at least one point expected");
    double *xy = tycho_newuserdata(L, 2 * *n * sizeof *xy);
    for (size_t i = 0; i < *n; i++) {
        lua_rawgeti(L, idx, (lua_Integer)i + 1);
        int t = lua_gettop(L);
        bool ok = lua_istable(L, t);
        if (ok) {
            lua_getfield(L, t, "x");
            lua_getfield(L, t, "y");
            if (lua_isnil(L, -2)) {
                lua_pop(L, 2);
                lua_rawgeti(L, t, 1);
                lua_rawgeti(L, t, 2);
            }
            ok = lua_type(L, -2) == LUA_TNUMBER && lua_type(L, -1) == LUA_TNUMBER;
            xy[2 * i] = lua_tonumber(L, -2);
            xy[2 * i + 1] = lua_tonumber(L, -1);
        }
        lua_settop(L, t - 1);
        if (!ok)
            luaL_argerror(L, idx,
                          lua_pushfstring(L, "point %d is not {x, y} or {x =, y =}", (int)i + 1));
    }
    return xy;
}

static int l_compare(lua_State *L)
{
    opt_table(L, 3);
    tycho_l_checkopts(L, 3, 3, &compare_spec);
    double spacing = tycho_l_optfield_number(L, 3, 3, "spacing", 0.05);
    size_t na, nb;
    double *a = polyline(L, 1, &na), *b = polyline(L, 2, &nb);
    tycho_traj_diff d;
    tycho_err err = {0};
    tycho_status st = tycho_traj_compare(a, na, b, nb, spacing, &d, &err);
    if (st != TYCHO_OK) return luaL_error(L, "%s", err.msg);
    lua_createtable(L, 0, 7);
    set_num(L, "mean", d.mean);
    set_num(L, "max", d.max);
    set_num(L, "hausdorff", d.hausdorff);
    set_num(L, "length_a", d.length_a);
    set_num(L, "length_b", d.length_b);
    set_num(L, "length_diff", d.length_diff);
    set_int(L, "samples", (lua_Integer)d.samples);
    return 1;
}

void tycho_l_terrain_robot_funcs(lua_State *L, int table)
{
    static const luaL_Reg m[] = {{"place", l_robot_place}, {"step", l_robot_step}, {NULL, NULL}};
    tycho_l_newclass(
        L, &(tycho_l_class){ROBOT_MT, m, l_robot_index, l_robot_gc, l_robot_tostring, NULL});
    lua_pop(L, 1);
    lua_pushcfunction(L, l_robot);
    lua_setfield(L, table, "robot");
    lua_pushcfunction(L, l_compare);
    lua_setfield(L, table, "compare");
    tycho_l_register_opts(L, &robot_spec);
    tycho_l_register_opts(L, &compare_spec);
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---A robot (differential drive or mecanum) whose wheels rest on a height field.
---@param o? {kind?: "diff"|"mecanum", half_length?: number, half_width?: number, wheel_radius?: number, max_wheel?: number, max_accel?: number, max_w_accel?: number, max_step?: number}
---@return tycho.terrain_robot
function tycho.terrain.robot(o) end
---Deviation of trajectory a from b (mean, max, hausdorff, lengths), arrays of {x, y} or {x =, y =}.
---@param o? {spacing?: number}
---@return {mean: number, max: number, hausdorff: number, length_a: number, length_b: number, length_diff: number, samples: integer}
function tycho.terrain.compare(a, b, o) end
---@class tycho.terrain_robot
---@field x number
---@field y number
---@field z number
---@field roll number
---@field pitch number
---@field yaw number
---@field vx number
---@field vy number
---@field wz number
---@field pose {x: number, y: number, z: number, roll: number, pitch: number, yaw: number}
---@field wheels number[]
---@field bumps integer
---@field kind string
local terrain_robot = {}
---@return true|nil ok, string? why
function terrain_robot:place(hf, x, y, yaw) end
---@return boolean moved  false: a wheel met a step it cannot climb
function terrain_robot:step(hf, vx, vy, wz, dt) end
*/
// clang-format on
