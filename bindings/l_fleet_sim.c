/* Lua binding of the fleet simulator (core/include/tycho/fleet_sim.h).
 * Robots and waypoints are 1-based here.
 *
 *   local fs = tycho.fleet.sim(n [, {radius =, v_max =, w_max =, accel =, tolerance =, dt =}])
 *   fs:set_pose(i, x, y, yaw)      fs:set_route(i, {{x =, y =}, ...})
 *   fs:allow(i, k)                 -- may drive up to waypoint k
 *   fs:stop_until(i, t)            -- an injected stop until simulated time t
 *   fs:step([n]) -> new contacts   -- n steps of dt (stops early on a contact)
 *   fs:reached(i) -> k (0: none)   fs:moving(i), fs:stopped(i), fs:pose(i) -> x, y, yaw
 *   fs:stats(i) -> {distance =, wait_time =, stop_time =, waits =}
 *   fs.time, fs.collisions, fs.estopped, fs.min_clearance, #fs */
#include "largs.h"
#include "tycho/fleet_sim.h"

#include <string.h>

#define FLEET_SIM_MT "tycho.fleet_sim"

typedef struct {
    tycho_fleet *f;
} lfs;

static tycho_fleet *check_fs(lua_State *L)
{
    return TYCHO_L_CHECKBOX(L, 1, lfs, f, FLEET_SIM_MT, "fleet simulator has been freed")->f;
}

static int check_bot(lua_State *L, tycho_fleet *f, int idx)
{
    lua_Integer i = luaL_checkinteger(L, idx);
    luaL_argcheck(L, i >= 1 && i <= tycho_fleet_count(f), idx, "robot index out of range");
    return (int)i - 1;
}

static const tycho_opt_field fleet_sim_fields[] = {TYCHO_OPT_NUM_POS("radius"),
                                                   TYCHO_OPT_NUM_POS("v_max"),
                                                   TYCHO_OPT_NUM_POS("w_max"),
                                                   TYCHO_OPT_NUM_POS("accel"),
                                                   TYCHO_OPT_NUM_POS("tolerance"),
                                                   TYCHO_OPT_NUM_POS("dt"),
                                                   {0}};
static const tycho_opt_spec fleet_sim_spec = {"fleet.sim", fleet_sim_fields};

static int l_new(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 1);
    opt_table(L, 2);
    tycho_l_checkopts(L, 2, 2, &fleet_sim_spec);
    tycho_fleet_params p;
    tycho_fleet_defaults(&p);
    p.radius = tycho_l_optfield_number(L, 2, 2, "radius", p.radius);
    p.v_max = tycho_l_optfield_number(L, 2, 2, "v_max", p.v_max);
    p.w_max = tycho_l_optfield_number(L, 2, 2, "w_max", p.w_max);
    p.accel = tycho_l_optfield_number(L, 2, 2, "accel", p.accel);
    p.tolerance = tycho_l_optfield_number(L, 2, 2, "tolerance", p.tolerance);
    p.dt = tycho_l_optfield_number(L, 2, 2, "dt", p.dt);
    lfs *b = tycho_newuserdata(L, sizeof *b);
    b->f = NULL;
    luaL_getmetatable(L, FLEET_SIM_MT);
    lua_setmetatable(L, -2);
    tycho_err err = {0};
    if (!(b->f = tycho_fleet_new((int)n, &p, &err)))
        return luaL_argerror(L, n < 1 || n > 1024 ? 1 : 2, err.msg);
    return 1;
}

static int l_set_pose(lua_State *L)
{
    tycho_fleet *f = check_fs(L);
    int i = check_bot(L, f, 2);
    tycho_err err = {0};
    if (tycho_fleet_set_pose(f, i, luaL_checknumber(L, 3), luaL_checknumber(L, 4),
                             luaL_optnumber(L, 5, 0), &err))
        return tycho_l_error(L, &err);
    return 0;
}

static int l_set_route(lua_State *L)
{
    tycho_fleet *f = check_fs(L);
    int i = check_bot(L, f, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    int n = (int)lua_rawlen(L, 3);
    luaL_argcheck(L, n >= 1 && n <= 100000, 3, "1 to 100000 waypoints expected");
    double *xy =
        lua_newuserdata(L, sizeof(double) * 2 * (size_t)n); /* freed by the GC, even on error */
    for (int k = 0; k < n; k++) {
        lua_rawgeti(L, 3, k + 1);
        if (!lua_istable(L, -1))
            luaL_argerror(L, 3,
                          lua_pushfstring(L, "waypoint %d: table {x =, y =} expected", k + 1));
        xy[2 * k] = field_xy(L, lua_gettop(L), 3, "x", 1, "waypoint");
        xy[2 * k + 1] = field_xy(L, lua_gettop(L), 3, "y", 2, "waypoint");
        lua_pop(L, 1);
    }
    tycho_err err = {0};
    if (tycho_fleet_set_route(f, i, xy, n, &err)) return tycho_l_error(L, &err);
    return 0;
}

static int l_allow(lua_State *L)
{
    tycho_fleet *f = check_fs(L);
    tycho_fleet_allow(f, check_bot(L, f, 2), (int)luaL_checkinteger(L, 3) - 1);
    return 0;
}

static int l_stop_until(lua_State *L)
{
    tycho_fleet *f = check_fs(L);
    tycho_fleet_stop_until(f, check_bot(L, f, 2), luaL_checknumber(L, 3));
    return 0;
}

static int l_step(lua_State *L)
{
    tycho_fleet *f = check_fs(L);
    lua_Integer n = luaL_optinteger(L, 2, 1);
    luaL_argcheck(L, n >= 1 && n <= 1000000, 2, "steps must be in [1, 1e6]");
    int contacts = 0;
    for (lua_Integer k = 0; k < n && !contacts; k++) contacts = tycho_fleet_step(f);
    lua_pushinteger(L, contacts);
    return 1;
}

static int l_reached(lua_State *L)
{
    tycho_fleet *f = check_fs(L);
    lua_pushinteger(L, tycho_fleet_reached(f, check_bot(L, f, 2)) + 1);
    return 1;
}

static int l_moving(lua_State *L)
{
    tycho_fleet *f = check_fs(L);
    lua_pushboolean(L, tycho_fleet_moving(f, check_bot(L, f, 2)));
    return 1;
}

static int l_stopped(lua_State *L)
{
    tycho_fleet *f = check_fs(L);
    lua_pushboolean(L, tycho_fleet_stopped(f, check_bot(L, f, 2)));
    return 1;
}

static int l_pose(lua_State *L)
{
    tycho_fleet *f = check_fs(L);
    double x, y, yaw;
    tycho_fleet_pose(f, check_bot(L, f, 2), &x, &y, &yaw);
    lua_pushnumber(L, x);
    lua_pushnumber(L, y);
    lua_pushnumber(L, yaw);
    return 3;
}

static int l_stats(lua_State *L)
{
    tycho_fleet *f = check_fs(L);
    tycho_fleet_stats s = tycho_fleet_robot_stats(f, check_bot(L, f, 2));
    lua_createtable(L, 0, 4);
    set_num(L, "distance", s.distance);
    set_num(L, "wait_time", s.wait_time);
    set_num(L, "stop_time", s.stop_time);
    set_int(L, "waits", s.waits);
    return 1;
}

static int l_index(lua_State *L)
{
    tycho_fleet *f = check_fs(L);
    const char *k = luaL_checkstring(L, 2);
    if (!strcmp(k, "time")) lua_pushnumber(L, tycho_fleet_time(f));
    else if (!strcmp(k, "collisions")) lua_pushinteger(L, tycho_fleet_collisions(f));
    else if (!strcmp(k, "estopped")) lua_pushboolean(L, tycho_fleet_estopped(f));
    else if (!strcmp(k, "min_clearance")) lua_pushnumber(L, tycho_fleet_min_clearance(f));
    else {
        lua_pushvalue(L, 2);
        lua_rawget(L, lua_upvalueindex(1));
    }
    return 1;
}

static int l_len(lua_State *L)
{
    lua_pushinteger(L, tycho_fleet_count(check_fs(L)));
    return 1;
}

static int l_gc(lua_State *L)
{
    lfs *b = luaL_checkudata(L, 1, FLEET_SIM_MT);
    tycho_fleet_free(b->f);
    b->f = NULL;
    return 0;
}

static int l_tostring(lua_State *L)
{
    lfs *b = luaL_checkudata(L, 1, FLEET_SIM_MT);
    if (!b->f) lua_pushliteral(L, "tycho.fleet_sim (freed)");
    else
        lua_pushfstring(L, "tycho.fleet_sim %d robots, t=%f s, %d collisions%s",
                        tycho_fleet_count(b->f), tycho_fleet_time(b->f),
                        tycho_fleet_collisions(b->f),
                        tycho_fleet_estopped(b->f) ? ", EMERGENCY STOP" : "");
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---The fleet simulator: N diff-drive discs driving their routes waypoint by waypoint.
---@class tycho.fleet_sim
---@field time number
---@field collisions integer
---@field estopped boolean
---@field min_clearance number
local fleet_sim = {}
---@param o? {radius?: number, v_max?: number, w_max?: number, accel?: number, tolerance?: number, dt?: number}
---@return tycho.fleet_sim
function tycho.fleet.sim(n, o) end
function fleet_sim:set_pose(i, x, y, yaw) end
---@param points tycho.xy[]
function fleet_sim:set_route(i, points) end
---May drive up to waypoint k.
function fleet_sim:allow(i, k) end
---An injected stop until simulated time t.
function fleet_sim:stop_until(i, t) end
---@return integer new_contacts
function fleet_sim:step(n) end
---@return integer k   last waypoint reached (0: none)
function fleet_sim:reached(i) end
---@return boolean
function fleet_sim:moving(i) end
---@return boolean
function fleet_sim:stopped(i) end
---@return number x, number y, number yaw
function fleet_sim:pose(i) end
---@return {distance: number, wait_time: number, stop_time: number, waits: integer}
function fleet_sim:stats(i) end
*/
// clang-format on

void tycho_l_open_fleet_sim(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg meth[] = {{"set_pose", l_set_pose},
                                    {"set_route", l_set_route},
                                    {"allow", l_allow},
                                    {"stop_until", l_stop_until},
                                    {"step", l_step},
                                    {"reached", l_reached},
                                    {"moving", l_moving},
                                    {"stopped", l_stopped},
                                    {"pose", l_pose},
                                    {"stats", l_stats},
                                    {NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){FLEET_SIM_MT, meth, l_index, l_gc, l_tostring,
                                         (const luaL_Reg[]){{"__len", l_len}, {NULL, NULL}}});
    lua_pop(L, 1);
    lua_getfield(L, module, "fleet"); /* tycho.fleet, made by l_fleet.c */
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, module, "fleet");
    }
    lua_pushcfunction(L, l_new);
    lua_setfield(L, -2, "sim");
    lua_pop(L, 1);
    tycho_l_register_opts(L, &fleet_sim_spec);
}
