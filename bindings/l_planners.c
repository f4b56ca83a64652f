/* Lua bindings: grid planners.
 *   grid:plan(sx, sy, gx, gy [, opts])           cells -> path | nil, reason
 *   grid:plan_world(x0, y0, x1, y1 [, opts])     metres -> path | nil, reason
 *   grid:nearest(cx, cy, {min_cost=, max_cost=}) -> cx, cy, distance | nil
 * opts: {algorithm = "astar"|"astar4"|"jps"|"costaware", weight =,
 *        blocked_cost =, allow_unknown =, shorten =}
 * A path is C-owned: #path, path:cell(i) -> cx, cy, path.cost, path.length
 * (cells), path:world(grid) -> {{x=, y=}, ...}, path:shorten(grid [, opts]).
 * "No path" is a result (nil, reason), bad arguments are errors. */
#include "ltycho.h"
#include "tycho/planner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_MT "tycho.path"
#define PLANNER_MT "tycho.planner"

typedef struct {
    tycho_path path;
    tycho_plan_opts opts;
} lpath;

typedef struct {
    tycho_planner *p;
} lplanner;

static tycho_planner *workspace(lua_State *L)
{
    lplanner *b = lua_touserdata(L, lua_upvalueindex(1));
    return b->p;
}

static const tycho_opt_field plan_fields[] = {TYCHO_OPT_STR("algorithm"),
                                              TYCHO_OPT_NUM_NONNEG("weight"),
                                              TYCHO_OPT_INT_IN("blocked_cost", 1, 254),
                                              TYCHO_OPT_BOOL("allow_unknown"),
                                              TYCHO_OPT_BOOL("shorten"),
                                              {0}};
static const tycho_opt_spec plan_spec = {"grid:plan", plan_fields};
static const tycho_opt_spec plan_world_spec = {"grid:plan_world", plan_fields};
static const tycho_opt_field nearest_fields[] = {
    TYCHO_OPT_INT_IN("min_cost", 0, 255), TYCHO_OPT_INT_IN("max_cost", 0, 255), {0}};
static const tycho_opt_spec nearest_spec = {"grid:nearest", nearest_fields};
static const tycho_opt_field distances_fields[] = {
    TYCHO_OPT_BOOL("allow_unknown"), TYCHO_OPT_INT_IN("blocked_cost", 1, 255), {0}};
static const tycho_opt_spec distances_spec = {"grid:path_distances", distances_fields};

static void read_opts(lua_State *L, int idx, const tycho_opt_spec *spec, tycho_plan_opts *o)
{
    tycho_plan_opts_defaults(o);
    if (lua_isnoneornil(L, idx)) return;
    tycho_l_checkopts(L, idx, idx, spec);
    lua_getfield(L, idx, "algorithm");
    if (!lua_isnil(L, -1)) {
        const char *a = lua_tostring(L, -1);
        if (!a || !tycho_plan_algorithm_parse(a, &o->algorithm))
            luaL_error(L, "bad field 'algorithm' in options (astar, astar4, jps or costaware)");
    }
    lua_pop(L, 1);
    o->weight = tycho_l_optfield_number(L, idx, idx, "weight", o->weight);
    lua_Integer bc = tycho_l_optfield_integer(L, idx, idx, "blocked_cost", o->blocked_cost);
    if (bc < 1 || bc > 254) luaL_error(L, "bad field 'blocked_cost' in options (1..254)");
    o->blocked_cost = (int)bc;
    o->allow_unknown = tycho_l_optfield_boolean(L, idx, idx, "allow_unknown", o->allow_unknown);
    o->shorten = tycho_l_optfield_boolean(L, idx, idx, "shorten", o->shorten);
    if (!(o->weight >= 0)) luaL_error(L, "bad field 'weight' in options (must be >= 0)");
}

static int plan_cells(lua_State *L, tycho_cell s, tycho_cell g, int opt_idx,
                      const tycho_opt_spec *spec)
{
    tycho_grid *grid = tycho_l_checkgrid(L, 1);
    lua_settop(L, opt_idx); /* the path userdata goes above the options */
    tycho_plan_opts opts;
    read_opts(L, opt_idx, spec, &opts);
    lpath *lp = tycho_newuserdata(L, sizeof *lp);
    tycho_path_init(&lp->path);
    lp->opts = opts;
    luaL_getmetatable(L, PATH_MT);
    lua_setmetatable(L, -2);
    tycho_err err = {0};
    tycho_status st = tycho_planner_plan(workspace(L), grid, s, g, &lp->opts, &lp->path, &err);
    if (st == TYCHO_OK) return 1;
    if (st == TYCHO_ENOPATH || st == TYCHO_ERANGE) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg[0] ? err.msg : "no path");
        return 2;
    }
    return tycho_l_error(L, &err);
}

static int l_plan(lua_State *L)
{
    tycho_l_checkgrid(L, 1);
    return plan_cells(L, tycho_l_checkcell(L, 2), tycho_l_checkcell(L, 4), 6, &plan_spec);
}

static int l_plan_world(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    double x0 = luaL_checknumber(L, 2), y0 = luaL_checknumber(L, 3);
    double x1 = luaL_checknumber(L, 4), y1 = luaL_checknumber(L, 5);
    int sx, sy, gx, gy;
    tycho_grid_world_to_cell(g, x0, y0, &sx, &sy);
    tycho_grid_world_to_cell(g, x1, y1, &gx, &gy);
    tycho_cell s = {sx, sy}, e = {gx, gy};
    return plan_cells(L, s, e, 6, &plan_world_spec);
}

static int l_nearest(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_cell c = tycho_l_checkcell(L, 2);
    luaL_checktype(L, 4, LUA_TTABLE);
    tycho_l_checkopts(L, 4, 4, &nearest_spec);
    tycho_cost_range r;
    r.min_cost = (int)tycho_l_optfield_integer(L, 4, 4, "min_cost", 0);
    r.max_cost = (int)tycho_l_optfield_integer(L, 4, 4, "max_cost", 255);
    tycho_cell found;
    double d;
    tycho_err err = {0};
    tycho_status st =
        tycho_nearest(workspace(L), g, c, tycho_pred_cost_range, &r, NULL, &found, &d, &err);
    if (st == TYCHO_ENOPATH) {
        return tycho_l_fail(L, &err);
    }
    if (st != TYCHO_OK) return tycho_l_error(L, &err);
    lua_pushinteger(L, found.x);
    lua_pushinteger(L, found.y);
    lua_pushnumber(L, d);
    return 3;
}

/* grid:path_distances(x, y, points [, {allow_unknown = false, blocked_cost = 253}])
 * -> {metres...}: for each {x=, y=} of `points` (world), the length of the
 * shortest 8-connected path through passable cells from the world point
 * (x, y); math.huge where unreachable or outside the grid. One Dijkstra
 * field for all the points: "which of these is nearest by path". */
static int l_path_distances(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    double x = luaL_checknumber(L, 2), y = luaL_checknumber(L, 3);
    luaL_argcheck(L, isfinite(x) && isfinite(y), 2, "x and y must be finite");
    luaL_checktype(L, 4, LUA_TTABLE);
    tycho_l_checkopts(L, 5, 5, &distances_spec);
    tycho_dijkstra_opts o;
    tycho_dijkstra_opts_defaults(&o);
    o.allow_unknown = tycho_l_optfield_boolean(L, 5, 5, "allow_unknown", 0);
    o.blocked_cost = (int)tycho_l_optfield_integer(L, 5, 5, "blocked_cost", o.blocked_cost);
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    double res = tycho_grid_resolution(g);
    lua_Integer n = (lua_Integer)lua_rawlen(L, 4);
    lua_createtable(L, (int)n, 0);
    int out = lua_gettop(L);
    tycho_cell start;
    if (!tycho_grid_world_to_cell(g, x, y, &start.x, &start.y)) {
        for (lua_Integer i = 1; i <= n; i++) {
            lua_pushnumber(L, HUGE_VAL);
            lua_rawseti(L, out, i);
        }
        return 1;
    }
    float *field = malloc((size_t)w * (size_t)h * sizeof *field);
    if (!field) return luaL_error(L, "out of memory for a %dx%d distance field", w, h);
    tycho_err err = {0};
    /* the start may sit in the inflated band (a robot squeezed by a wall):
     * passability of the start itself is not asked */
    uint8_t keep = tycho_grid_get(g, start.x, start.y);
    tycho_grid_set(g, start.x, start.y, 0);
    tycho_status st = tycho_distance_field(workspace(L), g, &start, 1, &o, field, &err);
    tycho_grid_set(g, start.x, start.y, keep);
    if (st != TYCHO_OK) {
        free(field);
        return tycho_l_error(L, &err);
    }
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 4, i);
        double d = HUGE_VAL;
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "x");
            lua_getfield(L, -2, "y");
            int okx, oky;
            double px = lua_tonumberx(L, -2, &okx), py = lua_tonumberx(L, -1, &oky);
            lua_pop(L, 2);
            int cx, cy;
            if (!okx || !oky) {
                free(field);
                return luaL_error(
                    L, "bad argument #4 to 'path_distances' (points[%d] needs numbers x and y)",
                    (int)i);
            }
            if (isfinite(px) && isfinite(py) && tycho_grid_world_to_cell(g, px, py, &cx, &cy)) {
                float f = field[(size_t)cy * w + cx];
                if (isfinite(f)) d = f * res;
            }
        } else {
            free(field);
            return luaL_error(L, "bad argument #4 to 'path_distances' (points[%d] is not a table)",
                              (int)i);
        }
        lua_pop(L, 1);
        lua_pushnumber(L, d);
        lua_rawseti(L, out, i);
    }
    free(field);
    return 1;
}

static lpath *checkpath(lua_State *L, int idx) { return luaL_checkudata(L, idx, PATH_MT); }

static int path_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)checkpath(L, 1)->path.count);
    return 1;
}

static int path_cell(lua_State *L)
{
    lpath *p = checkpath(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    luaL_argcheck(L, i >= 1 && (size_t)i <= p->path.count, 2, "index out of range");
    lua_pushinteger(L, p->path.cells[i - 1].x);
    lua_pushinteger(L, p->path.cells[i - 1].y);
    return 2;
}

static int path_world(lua_State *L)
{
    lpath *p = checkpath(L, 1);
    tycho_grid *g = tycho_l_checkgrid(L, 2);
    lua_createtable(L, (int)p->path.count, 0);
    for (size_t i = 0; i < p->path.count; i++) {
        double x, y;
        tycho_grid_cell_to_world(g, p->path.cells[i].x, p->path.cells[i].y, &x, &y);
        lua_createtable(L, 0, 2);
        lua_pushnumber(L, x);
        lua_setfield(L, -2, "x");
        lua_pushnumber(L, y);
        lua_setfield(L, -2, "y");
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

static int path_shorten(lua_State *L)
{
    lpath *p = checkpath(L, 1);
    tycho_grid *g = tycho_l_checkgrid(L, 2);
    tycho_err err = {0};
    if (tycho_path_shorten(&p->path, g, &p->opts, &err) != TYCHO_OK) return tycho_l_error(L, &err);
    lua_settop(L, 1);
    return 1;
}

static int path_gc(lua_State *L)
{
    tycho_path_release(&checkpath(L, 1)->path);
    return 0;
}

static int path_tostring(lua_State *L)
{
    lpath *p = checkpath(L, 1);
    char buf[128];
    snprintf(buf, sizeof buf, "tycho.path %zu cells, cost %.3f, length %.3f cells", p->path.count,
             p->path.cost, p->path.length);
    lua_pushstring(L, buf);
    return 1;
}

static int path_index(lua_State *L)
{
    lpath *p = checkpath(L, 1);
    const char *k = lua_tostring(L, 2);
    if (k && !strcmp(k, "cost")) lua_pushnumber(L, p->path.cost);
    else if (k && !strcmp(k, "length")) lua_pushnumber(L, p->path.length);
    else {
        lua_getmetatable(L, 1);
        lua_getfield(L, -1, "methods");
        lua_pushvalue(L, 2);
        lua_rawget(L, -2);
    }
    return 1;
}

static int planner_gc(lua_State *L)
{
    lplanner *b = lua_touserdata(L, 1);
    tycho_planner_free(b->p);
    b->p = NULL;
    return 0;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---@class tycho.path
---@field cost number
---@field length number   cells
local path = {}
---@return integer cx, integer cy
function path:cell(i) end
---@return number x, number y
function path:world(i) end
---@return tycho.path
function path:shorten(g, opts) end

---@alias tycho.plan_opts {algorithm?: "astar"|"astar4"|"jps"|"costaware", weight?: number, blocked_cost?: integer, allow_unknown?: boolean, shorten?: boolean}
---@return tycho.path|nil path, string? reason
---@param opts? tycho.plan_opts
function grid:plan(sx, sy, gx, gy, opts) end
---@return tycho.path|nil path, string? reason
---@param opts? tycho.plan_opts
function grid:plan_world(x0, y0, x1, y1, opts) end
---@param o? {min_cost?: integer, max_cost?: integer}
---@return integer|nil cx, integer cy, number distance
function grid:nearest(cx, cy, o) end

---Path lengths (metres, 8-connected through cells below blocked_cost) from the world point
---(x, y) to each of `points`; math.huge where unreachable. One Dijkstra field for them all.
---@param points tycho.xy[]
---@param o? {allow_unknown?: boolean, blocked_cost?: integer}
---@return number[] metres
function grid:path_distances(x, y, points, o) end
*/
// clang-format on

void tycho_l_open_planners(lua_State *L, int module, int methods)
{
    (void)module;
    static const luaL_Reg path_methods[] = {
        {"cell", path_cell}, {"world", path_world}, {"shorten", path_shorten}, {NULL, NULL}};
    static const luaL_Reg path_meta[] = {{"__len", path_len}, {NULL, NULL}};
    tycho_l_newclass(
        L, &(tycho_l_class){PATH_MT, path_methods, path_index, path_gc, path_tostring, path_meta});
    lua_pop(L, 1);

    /* one planner workspace per Lua state, shared by the grid methods */
    lplanner *b = tycho_newuserdata(L, sizeof *b);
    b->p = tycho_planner_new();
    if (!b->p) luaL_error(L, "out of memory for the planner workspace");
    tycho_l_newclass(L, &(tycho_l_class){PLANNER_MT, NULL, NULL, planner_gc, NULL, NULL});
    lua_setmetatable(L, -2);
    int ws = lua_gettop(L);
    static const luaL_Reg grid_fns[] = {{"plan", l_plan},
                                        {"plan_world", l_plan_world},
                                        {"nearest", l_nearest},
                                        {"path_distances", l_path_distances},
                                        {NULL, NULL}};
    for (const luaL_Reg *r = grid_fns; r->name; r++) {
        lua_pushvalue(L, ws);
        lua_pushcclosure(L, r->func, 1);
        lua_setfield(L, methods, r->name);
    }
    lua_pop(L, 1);
    tycho_l_register_opts(L, &plan_spec);
    tycho_l_register_opts(L, &plan_world_spec);
    tycho_l_register_opts(L, &nearest_spec);
    tycho_l_register_opts(L, &distances_spec);
}
