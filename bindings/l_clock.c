/* Lua bindings: tycho.clock, simulated or wall time for the scheduler.
 *
 *   local c = tycho.clock.new{mode = "sim" | "wall"}
 *   c:now(), c:advance(dt) (sim only), c.mode
 *   tycho.clock.monotonic() -> seconds (a monotonic wall clock, for measuring) */
#include "largs.h"
#include "tycho/sched.h"

#include <math.h>
#include <string.h>

typedef struct {
    tycho_clock *c;
} lclock;

tycho_clock *tycho_l_checkclock(lua_State *L, int idx)
{
    return TYCHO_L_CHECKBOX(L, idx, lclock, c, TYCHO_CLOCK_MT, "clock has been freed")->c;
}

tycho_clock *const *tycho_l_checkclockbox(lua_State *L, int idx)
{
    return &TYCHO_L_CHECKBOX(L, idx, lclock, c, TYCHO_CLOCK_MT, "clock has been freed")->c;
}

static const tycho_opt_field clock_new_fields[] = {TYCHO_OPT_STR("mode"), {0}};
static const tycho_opt_spec clock_new_spec = {"clock.new", clock_new_fields};

/* tycho.clock.new{mode = "sim" | "wall"} */
static int l_clock_new(lua_State *L)
{
    tycho_clock_mode mode = TYCHO_CLOCK_SIM;
    if (!lua_isnoneornil(L, 1)) {
        luaL_checktype(L, 1, LUA_TTABLE);
        tycho_l_checkopts(L, 1, 1, &clock_new_spec);
        lua_getfield(L, 1, "mode");
        if (!lua_isnil(L, -1)) {
            const char *m = lua_tostring(L, -1);
            if (lua_type(L, -1) != LUA_TSTRING || (strcmp(m, "sim") && strcmp(m, "wall")))
                return luaL_error(L, "bad field 'mode' in argument #1 ('sim' or 'wall' expected)");
            if (!strcmp(m, "wall")) mode = TYCHO_CLOCK_WALL;
        }
        lua_pop(L, 1);
    }
    lclock *b = tycho_newuserdata(L, sizeof *b);
    b->c = NULL;
    luaL_getmetatable(L, TYCHO_CLOCK_MT);
    lua_setmetatable(L, -2);
    tycho_err err = {0};
    if (!(b->c = tycho_clock_new(mode, &err))) return tycho_l_error(L, &err);
    return 1;
}

void tycho_l_pushclock(lua_State *L)
{
    lua_pushcfunction(L, l_clock_new);
    lua_call(L, 0, 1);
}

static int l_clock_now(lua_State *L)
{
    lua_pushnumber(L, tycho_clock_now(tycho_l_checkclock(L, 1)));
    return 1;
}

static int l_clock_advance(lua_State *L)
{
    tycho_clock *c = tycho_l_checkclock(L, 1);
    double dt = luaL_checknumber(L, 2);
    luaL_argcheck(L, tycho_clock_get_mode(c) == TYCHO_CLOCK_SIM, 1,
                  "a wall clock cannot be advanced");
    luaL_argcheck(L, dt >= 0 && isfinite(dt), 2, "dt must be finite and >= 0");
    tycho_clock_advance(c, dt, NULL);
    lua_pushnumber(L, tycho_clock_now(c));
    return 1;
}

static const char *mode_name(const tycho_clock *c)
{
    return tycho_clock_get_mode(c) == TYCHO_CLOCK_SIM ? "sim" : "wall";
}

static int l_clock_index(lua_State *L)
{
    tycho_clock *c = tycho_l_checkclock(L, 1);
    const char *k = luaL_checkstring(L, 2);
    if (!strcmp(k, "mode")) {
        lua_pushstring(L, mode_name(c));
        return 1;
    }
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    return 1;
}

static int l_clock_tostring(lua_State *L)
{
    lclock *b = luaL_checkudata(L, 1, TYCHO_CLOCK_MT);
    if (!b->c) lua_pushliteral(L, "tycho.clock (freed)");
    else lua_pushfstring(L, "tycho.clock %s t=%f s", mode_name(b->c), tycho_clock_now(b->c));
    return 1;
}

static int l_clock_gc(lua_State *L)
{
    lclock *b = luaL_checkudata(L, 1, TYCHO_CLOCK_MT);
    tycho_clock_free(b->c);
    b->c = NULL;
    return 0;
}

static int l_monotonic(lua_State *L)
{
    lua_pushnumber(L, tycho_monotonic_seconds());
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
-- runtime: clock, scheduler, tasks -------------------------------------------------------

---@class tycho.clock
local clock = {}
tycho.clock = {}
---@param o? {mode?: "sim"|"wall"}
---@return tycho.clock
function tycho.clock.new(o) end
---@return number seconds   a monotonic wall clock
function tycho.clock.monotonic() end
---@return number
function clock:now() end
---Advances a simulated clock.
function clock:advance(dt) end
*/
// clang-format on

void tycho_l_open_clock(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg clock_methods[] = {
        {"now", l_clock_now}, {"advance", l_clock_advance}, {NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){TYCHO_CLOCK_MT, clock_methods, l_clock_index, l_clock_gc,
                                         l_clock_tostring, NULL});
    lua_pop(L, 1);
    static const luaL_Reg clock_fns[] = {
        {"new", l_clock_new}, {"monotonic", l_monotonic}, {NULL, NULL}};
    lua_newtable(L);
    luaL_setfuncs(L, clock_fns, 0);
    lua_setfield(L, module, "clock");
    tycho_l_register_opts(L, &clock_new_spec);
}
