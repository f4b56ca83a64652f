/* Lua binding of the potential-field avoidance (core/include/tycho/swarm.h).
 *
 *   local s = tycho.swarm.new{dist_critical = 3, dist_attract = 6, dist_repulse = 12,
 *       repulse_shape = "lin", attract_shape = "lin", max_speed = 1,
 *       mode = "velocity" | "position", horizon = 1 (s, position mode),
 *       off_in = {"Docking", ...}, goal_tolerance =, stall_ratio =, stall_time =,
 *       stall_progress =, escape_time =}
 *   s:command(t, {x=, y=}, goal, {{x=, y=}, ...} [, state])
 *     -> vx, vy, info             (velocity mode)
 *     -> x, y, info               (position mode: where to be in `horizon` s)
 *     -> nil, "off"               (state is one of off_in: avoidance is off)
 *   info = {closest =, speed_factor =, escaping =, arrived =}
 *   tycho.swarm.shape(name, u) -> s(u)
 * Each controller keeps its robot's stall state: one per robot. */
#include "ltycho.h"
#include "tycho/swarm.h"

#include <math.h>
#include <string.h>

#define SWARM_MT "tycho.swarm"
#define MAX_NEIGHBOURS 1024
#define MAX_OFF 16

typedef struct {
    tycho_swarm_params p;
    tycho_swarm_state st;
    int position_mode;
    double horizon;
    int n_off;
    char off[MAX_OFF][32];
} lswarm;

static tycho_shape opt_shape(lua_State *L, const char *key, tycho_shape def)
{
    lua_getfield(L, 1, key);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return def;
    }
    const char *name = lua_tostring(L, -1);
    int s = name ? tycho_shape_from_name(name) : -1;
    if (s < 0)
        luaL_error(L, "bad field '%s' in argument #1 (lin, li2, sin, log, exp or const expected)",
                   key);
    lua_pop(L, 1);
    return (tycho_shape)s;
}

static const tycho_opt_field swarm_new_fields[] = {
    TYCHO_OPT_NUM("dist_critical"), TYCHO_OPT_NUM("dist_attract"),   TYCHO_OPT_NUM("dist_repulse"),
    TYCHO_OPT_NUM("max_speed"),     TYCHO_OPT_NUM("goal_tolerance"), TYCHO_OPT_NUM("stall_ratio"),
    TYCHO_OPT_NUM("stall_time"),    TYCHO_OPT_NUM("stall_progress"), TYCHO_OPT_NUM("escape_time"),
    TYCHO_OPT_STR("repulse_shape"), TYCHO_OPT_STR("attract_shape"),  TYCHO_OPT_STR("mode"),
    TYCHO_OPT_NUM_POS("horizon"),   TYCHO_OPT_TAB("off_in"),         {0}};
static const tycho_opt_spec swarm_new_spec = {"swarm.new", swarm_new_fields};

static int l_new(lua_State *L)
{
    if (lua_isnoneornil(L, 1)) lua_newtable(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    tycho_l_checkopts(L, 1, 1, &swarm_new_spec);
    lswarm *s = tycho_newuserdata(L, sizeof *s);
    memset(s, 0, sizeof *s);
    tycho_swarm_defaults(&s->p);
    tycho_swarm_params *p = &s->p;
    p->dist_critical = tycho_l_optfield_number(L, 1, 1, "dist_critical", p->dist_critical);
    p->dist_attract = tycho_l_optfield_number(L, 1, 1, "dist_attract", p->dist_attract);
    p->dist_repulse = tycho_l_optfield_number(L, 1, 1, "dist_repulse", p->dist_repulse);
    p->max_speed = tycho_l_optfield_number(L, 1, 1, "max_speed", p->max_speed);
    p->goal_tolerance = tycho_l_optfield_number(L, 1, 1, "goal_tolerance", p->goal_tolerance);
    p->stall_ratio = tycho_l_optfield_number(L, 1, 1, "stall_ratio", p->stall_ratio);
    p->stall_time = tycho_l_optfield_number(L, 1, 1, "stall_time", p->stall_time);
    p->stall_progress = tycho_l_optfield_number(L, 1, 1, "stall_progress", p->stall_progress);
    p->escape_time = tycho_l_optfield_number(L, 1, 1, "escape_time", p->escape_time);
    p->repulse_shape = opt_shape(L, "repulse_shape", p->repulse_shape);
    p->attract_shape = opt_shape(L, "attract_shape", p->attract_shape);
    tycho_err err = {0};
    if (tycho_swarm_validate(p, &err) != TYCHO_OK) return luaL_argerror(L, 1, err.msg);
    lua_getfield(L, 1, "mode");
    const char *mode = lua_isnil(L, -1) ? "velocity" : lua_tostring(L, -1);
    if (!mode || (strcmp(mode, "velocity") && strcmp(mode, "position")))
        return luaL_error(L, "bad field 'mode' in argument #1 ('velocity' or 'position' expected)");
    s->position_mode = !strcmp(mode, "position");
    lua_pop(L, 1);
    s->horizon = tycho_l_optfield_number(L, 1, 1, "horizon", 1.0);
    luaL_argcheck(L, s->horizon > 0, 1, "bad field 'horizon' (must be > 0)");
    lua_getfield(L, 1, "off_in");
    if (!lua_isnil(L, -1)) {
        luaL_argcheck(L, lua_istable(L, -1), 1,
                      "bad field 'off_in' (list of state names expected)");
        int n = (int)lua_rawlen(L, -1);
        luaL_argcheck(L, n <= MAX_OFF, 1, "bad field 'off_in' (at most 16 states)");
        for (int i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            size_t len;
            const char *name = lua_tolstring(L, -1, &len);
            /* stored whole or refused: a name cut to fit would never equal the
             * state it names, and avoidance would silently stay on */
            if (!name || len >= sizeof s->off[0] || strlen(name) != len)
                return luaL_argerror(
                    L, 1, "bad field 'off_in' (state names of at most 31 characters expected)");
            memcpy(s->off[s->n_off++], name, len + 1);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    luaL_getmetatable(L, SWARM_MT);
    lua_setmetatable(L, -2);
    return 1;
}

static tycho_vec2 check_point(lua_State *L, int idx)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_getfield(L, idx, "x");
    lua_getfield(L, idx, "y");
    if (!lua_isnumber(L, -2) || !lua_isnumber(L, -1))
        luaL_argerror(L, idx, "point {x =, y =} expected");
    tycho_vec2 v = {lua_tonumber(L, -2), lua_tonumber(L, -1)};
    lua_pop(L, 2);
    return v;
}

static int l_command(lua_State *L)
{
    lswarm *s = luaL_checkudata(L, 1, SWARM_MT);
    double t = luaL_checknumber(L, 2);
    tycho_vec2 self = check_point(L, 3), goal = check_point(L, 4);
    luaL_checktype(L, 5, LUA_TTABLE);
    const char *state = luaL_optstring(L, 6, NULL);
    for (int i = 0; state && i < s->n_off; i++) {
        if (!strcmp(state, s->off[i])) {
            lua_pushnil(L);
            lua_pushliteral(L, "off");
            return 2;
        }
    }
    int n = (int)lua_rawlen(L, 5);
    luaL_argcheck(L, n <= MAX_NEIGHBOURS, 5, "at most 1024 neighbours");
    tycho_vec2 nb[MAX_NEIGHBOURS];
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 5, i + 1);
        nb[i] = check_point(L, lua_gettop(L));
        lua_pop(L, 1);
    }
    tycho_swarm_cmd c;
    tycho_swarm_command(&s->p, &s->st, t, self, goal, nb, n, &c);
    if (s->position_mode) {
        lua_pushnumber(L, self.x + c.velocity.x * s->horizon);
        lua_pushnumber(L, self.y + c.velocity.y * s->horizon);
    } else {
        lua_pushnumber(L, c.velocity.x);
        lua_pushnumber(L, c.velocity.y);
    }
    lua_createtable(L, 0, 4);
    lua_pushnumber(L, c.closest);
    lua_setfield(L, -2, "closest");
    lua_pushnumber(L, c.speed_factor);
    lua_setfield(L, -2, "speed_factor");
    lua_pushboolean(L, c.escaping);
    lua_setfield(L, -2, "escaping");
    lua_pushboolean(L, c.arrived);
    lua_setfield(L, -2, "arrived");
    return 3;
}

static int l_shape(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    int s = tycho_shape_from_name(name);
    luaL_argcheck(L, s >= 0, 1, "lin, li2, sin, log, exp or const expected");
    lua_pushnumber(L, tycho_shape_eval((tycho_shape)s, luaL_checknumber(L, 2)));
    return 1;
}

static int l_tostring(lua_State *L)
{
    lswarm *s = luaL_checkudata(L, 1, SWARM_MT);
    char buf[160];
    snprintf(buf, sizeof buf, "tycho.swarm (%g / %g / %g m, %s/%s, %s mode)", s->p.dist_critical,
             s->p.dist_attract, s->p.dist_repulse, tycho_shape_name(s->p.repulse_shape),
             tycho_shape_name(s->p.attract_shape), s->position_mode ? "position" : "velocity");
    lua_pushstring(L, buf);
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---@class tycho.swarm
local swarm = {}
tycho.swarm = {}
---@param o? {dist_critical?: number, dist_attract?: number, dist_repulse?: number, repulse_shape?: string, attract_shape?: string, max_speed?: number, goal_tolerance?: number, stall_ratio?: number, stall_time?: number, stall_progress?: number, escape_time?: number, mode?: "velocity"|"position", horizon?: number, off_in?: string[]}
---@return tycho.swarm
function tycho.swarm.new(o) end
---@return number
function tycho.swarm.shape(name, u) end
---@return number|nil vx_or_x, number|string vy_or_y, table? info
function swarm:command(t, pos, goal, neighbours, state) end
*/
// clang-format on

void tycho_l_open_swarm(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg swarm_methods[] = {{"command", l_command}, {NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){SWARM_MT, swarm_methods, NULL, NULL, l_tostring, NULL});
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushcfunction(L, l_new);
    lua_setfield(L, -2, "new");
    lua_pushcfunction(L, l_shape);
    lua_setfield(L, -2, "shape");
    lua_setfield(L, module, "swarm");
    tycho_l_register_opts(L, &swarm_new_spec);
}
