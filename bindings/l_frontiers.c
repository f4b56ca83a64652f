/* Lua bindings: grid:frontiers{...}. The search workspace lives in an
 * upvalue, so repeated calls reuse its buffers. */
#include "ltycho.h"
#include "tycho/frontiers.h"

#define WS_MT "tycho.frontier_search"

typedef struct {
    tycho_frontier_search *s;
} lws;

static int ws_gc(lua_State *L)
{
    lws *w = luaL_checkudata(L, 1, WS_MT);
    tycho_frontier_search_free(w->s);
    w->s = NULL;
    return 0;
}

static void push_point(lua_State *L, double x, double y)
{
    lua_createtable(L, 0, 2);
    lua_pushnumber(L, x);
    lua_setfield(L, -2, "x");
    lua_pushnumber(L, y);
    lua_setfield(L, -2, "y");
}

static void push_cell(lua_State *L, tycho_cell c)
{
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, c.x);
    lua_setfield(L, -2, "cx");
    lua_pushinteger(L, c.y);
    lua_setfield(L, -2, "cy");
}

static const tycho_opt_field frontiers_fields[] = {TYCHO_OPT_TAB("robot"),
                                                   TYCHO_OPT_INT_IN("free_max", 1, 255),
                                                   TYCHO_OPT_INT_POS("min_cells"),
                                                   TYCHO_OPT_NUM_NONNEG("min_size"),
                                                   TYCHO_OPT_NUM("potential_scale"),
                                                   TYCHO_OPT_NUM("gain_scale"),
                                                   TYCHO_OPT_NUM_NONNEG("start_radius"),
                                                   TYCHO_OPT_BOOL("cells"),
                                                   {0}};
static const tycho_opt_spec frontiers_spec = {"grid:frontiers", frontiers_fields};

/* grid:frontiers{robot = {x=, y=}, min_size = 0.5, min_cells = 1,
 *   potential_scale = 3, gain_scale = 1, free_max = 253, start_radius = 0.5,
 *   cells = false}
 * -> array of {size, centroid, nearest, goal, goal_cell, nearest_cell,
 *    distance, cost [, cells]}, best first; or nil, message when the robot is
 *    off the grid or not near free space. */
static int l_frontiers(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    tycho_l_checkopts(L, 2, 2, &frontiers_spec);
    lws *w = lua_touserdata(L, lua_upvalueindex(1));

    lua_getfield(L, 2, "robot");
    if (!lua_istable(L, -1))
        return luaL_error(L, "bad field 'robot' in argument #2 (table {x=, y=} expected, got %s)",
                          luaL_typename(L, -1));
    int rt = lua_gettop(L);
    lua_getfield(L, rt, "x");
    lua_getfield(L, rt, "y");
    if (lua_type(L, -2) != LUA_TNUMBER || lua_type(L, -1) != LUA_TNUMBER)
        return luaL_error(L, "bad field 'robot' in argument #2 (numbers x and y expected)");
    double rx = lua_tonumber(L, -2), ry = lua_tonumber(L, -1);
    lua_settop(L, 2);

    tycho_frontier_params p;
    tycho_frontier_defaults(&p);
    lua_Integer fm = tycho_l_optfield_integer(L, 2, 2, "free_max", p.free_max);
    lua_Integer mc = tycho_l_optfield_integer(L, 2, 2, "min_cells", p.min_cells);
    if (fm < 1 || fm > 255)
        return luaL_error(L, "bad field 'free_max' in argument #2 (cost 1..255 expected)");
    if (mc < 1 || mc > INT32_MAX)
        return luaL_error(L, "bad field 'min_cells' in argument #2 (integer >= 1 expected)");
    p.free_max = (int)fm;
    p.min_cells = (int)mc;
    p.min_size = tycho_l_optfield_number(L, 2, 2, "min_size", p.min_size);
    p.potential_scale = tycho_l_optfield_number(L, 2, 2, "potential_scale", p.potential_scale);
    p.gain_scale = tycho_l_optfield_number(L, 2, 2, "gain_scale", p.gain_scale);
    p.start_radius = tycho_l_optfield_number(L, 2, 2, "start_radius", p.start_radius);
    int want_cells = tycho_l_optfield_boolean(L, 2, 2, "cells", 0);

    tycho_err err = {0};
    if (tycho_frontier_check(&p, &err)) return luaL_argerror(L, 2, err.msg);
    if (!w->s && !(w->s = tycho_frontier_search_new()))
        return luaL_error(L, "out of memory for the frontier search");
    tycho_status st = tycho_frontier_search_run(w->s, g, rx, ry, &p, &err);
    if (st == TYCHO_EINVAL) return luaL_argerror(L, 2, err.msg);
    if (st == TYCHO_ENOMEM) return tycho_l_error(L, &err);
    if (st) {
        return tycho_l_fail(L, &err);
    }

    size_t n = tycho_frontier_search_count(w->s);
    const tycho_cell *cells = tycho_frontier_search_cells(w->s);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        const tycho_frontier *f = tycho_frontier_search_get(w->s, i);
        lua_createtable(L, 0, want_cells ? 9 : 8);
        lua_pushinteger(L, f->size);
        lua_setfield(L, -2, "size");
        push_point(L, f->centroid_x, f->centroid_y);
        lua_setfield(L, -2, "centroid");
        push_point(L, f->nearest_x, f->nearest_y);
        lua_setfield(L, -2, "nearest");
        push_point(L, f->goal_x, f->goal_y);
        lua_setfield(L, -2, "goal");
        push_cell(L, f->nearest);
        lua_setfield(L, -2, "nearest_cell");
        push_cell(L, f->goal);
        lua_setfield(L, -2, "goal_cell");
        lua_pushnumber(L, f->distance);
        lua_setfield(L, -2, "distance");
        lua_pushnumber(L, f->cost);
        lua_setfield(L, -2, "cost");
        if (want_cells) {
            lua_createtable(L, f->size, 0);
            for (int k = 0; k < f->size; k++) {
                push_cell(L, cells[f->first_cell + (size_t)k]);
                lua_rawseti(L, -2, k + 1);
            }
            lua_setfield(L, -2, "cells");
        }
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
-- frontiers, regions, walls, arcs
---@param o {robot: tycho.xy, min_size?: number, min_cells?: integer, potential_scale?: number, gain_scale?: number, free_max?: integer, start_radius?: number, cells?: boolean}
---@return {x: number, y: number, size: number, distance: number, cost: number}[]|nil frontiers, string? reason
function grid:frontiers(o) end
*/
// clang-format on

void tycho_l_open_frontiers(lua_State *L, int module, int methods)
{
    (void)module;
    lws *w = tycho_newuserdata(L, sizeof *w);
    w->s = NULL; /* allocated on first use */
    tycho_l_newclass(L, &(tycho_l_class){WS_MT, NULL, NULL, ws_gc, NULL, NULL});
    lua_setmetatable(L, -2);
    lua_pushcclosure(L, l_frontiers, 1);
    lua_setfield(L, methods, "frontiers");
    tycho_l_register_opts(L, &frontiers_spec);
}
