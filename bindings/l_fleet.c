/* Lua binding of fleet route planning (core/include/tycho/mapf.h, fleet_io.h).
 *
 *   local fp = tycho.fleet.planner(costmap [, {cell = 1.0, horizon =, max_orders = 64, time_limit =
 * 10, graph = "grid" | "sparse", connectivity = 4 | 8, spacing = cell}]) tycho.fleet.graph(costmap,
 * {same graph options}) -> {nodes = {{x =, y =}}, edges = {{a =, b =, length =, width =}}}
 *   fp:graph() -> the same, for the planner's graph
 *   fp:plan(starts, goals) -> true | nil, "robot N: reason"   -- lists of {x =, y =}
 *   fp:route(i) -> {{x =, y =, vertex =, enter =, leave =}, ...}   (i 1-based, steps)
 *   fp:preconditions(i, k) -> {{robot =, segment =}, ...}   (1-based)
 *   fp:at(i, step) -> x, y          fp:arrival(i) -> step     fp.orders_tried
 *   tycho.fleet.stage_poses(path) / tycho.fleet.goals(path)
 *       -> {{robot = 0, x =, y =, yaw =, line =}, ...} | nil, "file:line: message"
 *       (line: where the robot is named) */
#include "ltycho.h"
#include "tycho/fleet_io.h"
#include "tycho/mapf.h"

#include <stdlib.h>
#include <string.h>

#define FLEET_MT "tycho.fleet_planner"

typedef struct {
    tycho_mapf *m;
    int n; /* robots of the last successful plan */
} lfleet;

static lfleet *check_fleet(lua_State *L)
{
    return TYCHO_L_CHECKBOX(L, 1, lfleet, m, FLEET_MT, "planner has been freed");
}

static int check_robot(lua_State *L, lfleet *f, int idx)
{
    lua_Integer i = luaL_checkinteger(L, idx);
    if (f->n == 0) luaL_error(L, "no plan yet (call plan first)");
    luaL_argcheck(L, i >= 1 && i <= f->n, idx, "robot index out of range");
    return (int)i - 1;
}

#define GRAPH_FIELDS TYCHO_OPT_STR("graph"), TYCHO_OPT_NUM_POS("spacing")
static const tycho_opt_field planner_fields[] = {TYCHO_OPT_NUM_POS("cell"),
                                                 TYCHO_OPT_INT_POS("horizon"),
                                                 TYCHO_OPT_INT_POS("max_orders"),
                                                 TYCHO_OPT_NUM_POS("time_limit"),
                                                 TYCHO_OPT_INT("connectivity"),
                                                 GRAPH_FIELDS,
                                                 {0}};
static const tycho_opt_field graph_fields[] = {
    TYCHO_OPT_NUM_POS("cell"), TYCHO_OPT_INT("connectivity"), GRAPH_FIELDS, {0}};
static const tycho_opt_spec planner_spec = {"fleet.planner", planner_fields};
static const tycho_opt_spec graph_spec = {"fleet.graph", graph_fields};

/* The route graph an options table asks for: {graph = "grid" | "sparse",
 * cell = 1.0, connectivity = 4 | 8, spacing = 1.0}. Errors name the field. */
static tycho_graph *build_graph(lua_State *L, const tycho_grid *g, int idx, double cell,
                                int connectivity)
{
    const char *kind = "grid";
    if (lua_istable(L, idx)) {
        lua_getfield(L, idx, "graph");
        if (!lua_isnil(L, -1)) {
            kind = lua_tostring(L, -1);
            if (lua_type(L, -1) != LUA_TSTRING || (strcmp(kind, "grid") && strcmp(kind, "sparse")))
                luaL_argerror(L, idx, "bad field 'graph' ('grid' or 'sparse' expected)");
        }
        lua_pop(L, 1);
    }
    double spacing = tycho_l_optfield_number(L, idx, idx, "spacing", cell);
    tycho_err err = {0};
    tycho_graph *graph = !strcmp(kind, "sparse") ? tycho_graph_sparse(g, spacing, &err)
                                                 : tycho_graph_grid(g, cell, connectivity, &err);
    if (!graph) luaL_argerror(L, idx, err.msg);
    return graph;
}

static int l_planner(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_l_checkopts(L, 2, 2, &planner_spec);
    lua_settop(L, 2); /* the options stay at 2 (nil if none) under what we push */
    tycho_mapf_params p;
    tycho_mapf_defaults(&p);
    p.cell = tycho_l_optfield_number(L, 2, 2, "cell", p.cell);
    p.horizon = (int)tycho_l_optfield_integer(L, 2, 2, "horizon", p.horizon);
    p.max_orders = (int)tycho_l_optfield_integer(L, 2, 2, "max_orders", p.max_orders);
    p.time_limit_s = tycho_l_optfield_number(L, 2, 2, "time_limit", p.time_limit_s);
    p.connectivity = (int)tycho_l_optfield_integer(L, 2, 2, "connectivity", p.connectivity);
    luaL_argcheck(L, p.cell >= tycho_grid_resolution(g), 2,
                  "cell must be >= the costmap resolution");
    lfleet *f = tycho_newuserdata(L, sizeof *f);
    f->m = NULL;
    f->n = 0;
    luaL_getmetatable(L, FLEET_MT);
    lua_setmetatable(L, -2);
    tycho_graph *graph = build_graph(L, g, 2, p.cell, p.connectivity);
    tycho_err err = {0};
    f->m = tycho_mapf_new_graph(graph, &p, &err);
    if (!f->m) return luaL_argerror(L, 2, err.msg);
    return 1;
}

/* {nodes = {{x =, y =}, ...}, edges = {{a =, b =, length =, width =}, ...}} (1-based, each edge
 * once) */
static void push_graph(lua_State *L, const tycho_graph *g)
{
    lua_createtable(L, 0, 2);
    lua_createtable(L, g->V, 0);
    for (int v = 0; v < g->V; v++) {
        lua_createtable(L, 0, 2);
        lua_pushnumber(L, g->x[v]);
        lua_setfield(L, -2, "x");
        lua_pushnumber(L, g->y[v]);
        lua_setfield(L, -2, "y");
        lua_rawseti(L, -2, v + 1);
    }
    lua_setfield(L, -2, "nodes");
    lua_createtable(L, g->E / 2, 0);
    int n = 0;
    for (int v = 0; v < g->V; v++)
        for (int k = g->off[v]; k < g->off[v + 1]; k++) {
            if (g->adj[k] < v) continue;
            lua_createtable(L, 0, 4);
            lua_pushinteger(L, v + 1);
            lua_setfield(L, -2, "a");
            lua_pushinteger(L, g->adj[k] + 1);
            lua_setfield(L, -2, "b");
            lua_pushnumber(L, g->length[k]);
            lua_setfield(L, -2, "length");
            lua_pushnumber(L, g->width[k]);
            lua_setfield(L, -2, "width");
            lua_rawseti(L, -2, ++n);
        }
    lua_setfield(L, -2, "edges");
}

/* tycho.fleet.graph(costmap, {graph = "grid" | "sparse", cell =, connectivity =, spacing =}) */
static int l_graph(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_l_checkopts(L, 2, 2, &graph_spec);
    lua_settop(L, 2);
    double cell = tycho_l_optfield_number(L, 2, 2, "cell", 1.0);
    int conn = (int)tycho_l_optfield_integer(L, 2, 2, "connectivity", 4);
    tycho_graph *graph = build_graph(L, g, 2, cell, conn);
    push_graph(L, graph);
    tycho_graph_free(graph);
    return 1;
}

/* fp:graph() -> the planner's graph as tables */
static int l_planner_graph(lua_State *L)
{
    push_graph(L, tycho_mapf_graph(check_fleet(L)->m));
    return 1;
}

static void read_points(lua_State *L, int idx, double *xy, int n, const char *what)
{
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, idx, i + 1);
        if (!lua_istable(L, -1)) luaL_error(L, "bad %s #%d ({x =, y =} expected)", what, i + 1);
        lua_getfield(L, -1, "x");
        lua_getfield(L, -2, "y");
        if (!lua_isnumber(L, -2) || !lua_isnumber(L, -1))
            luaL_error(L, "bad %s #%d ({x =, y =} expected)", what, i + 1);
        xy[2 * i] = lua_tonumber(L, -2);
        xy[2 * i + 1] = lua_tonumber(L, -1);
        lua_pop(L, 3);
    }
}

static int l_plan(lua_State *L)
{
    lfleet *f = check_fleet(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checktype(L, 3, LUA_TTABLE);
    int n = (int)lua_rawlen(L, 2);
    luaL_argcheck(L, n >= 1 && n <= 4096, 2, "1 to 4096 starts expected");
    luaL_argcheck(L, (int)lua_rawlen(L, 3) == n, 3, "as many goals as starts expected");
    double *xy = tycho_newuserdata(L, (size_t)n * 4 * sizeof(double)); /* freed by the GC */
    read_points(L, 2, xy, n, "start");
    read_points(L, 3, xy + 2 * n, n, "goal");
    tycho_err err = {0};
    f->n = 0;
    if (tycho_mapf_plan(f->m, n, xy, xy + 2 * n, &err) != TYCHO_OK) {
        /* robots are 1-based in Lua: renumber every "robot N" */
        char msg[sizeof err.msg + 32];
        size_t o = 0;
        for (const char *q = err.msg; *q && o < sizeof msg - 12;) {
            if (!strncmp(q, "robot ", 6) && q[6] >= '0' && q[6] <= '9') {
                char *end;
                long r = strtol(q + 6, &end, 10);
                o += (size_t)snprintf(msg + o, sizeof msg - o, "robot %ld", r + 1);
                q = end;
            } else {
                msg[o++] = *q++;
            }
        }
        msg[o] = 0;
        lua_pushnil(L);
        lua_pushstring(L, msg);
        return 2;
    }
    f->n = n;
    lua_pushboolean(L, 1);
    return 1;
}

static int l_route(lua_State *L)
{
    lfleet *f = check_fleet(L);
    int r = check_robot(L, f, 2);
    int n = tycho_mapf_segments(f->m, r, NULL, 0);
    tycho_mapf_segment *s = tycho_newuserdata(L, (size_t)(n ? n : 1) * sizeof *s);
    tycho_mapf_segments(f->m, r, s, n);
    lua_createtable(L, n, 0);
    for (int k = 0; k < n; k++) {
        lua_createtable(L, 0, 5);
        lua_pushnumber(L, s[k].x);
        lua_setfield(L, -2, "x");
        lua_pushnumber(L, s[k].y);
        lua_setfield(L, -2, "y");
        lua_pushinteger(L, s[k].vertex);
        lua_setfield(L, -2, "vertex");
        lua_pushinteger(L, s[k].enter);
        lua_setfield(L, -2, "enter");
        lua_pushinteger(L, s[k].leave);
        lua_setfield(L, -2, "leave");
        lua_rawseti(L, -2, k + 1);
    }
    return 1;
}

static int l_preconditions(lua_State *L)
{
    lfleet *f = check_fleet(L);
    int r = check_robot(L, f, 2);
    int k = (int)luaL_checkinteger(L, 3) - 1;
    int n = tycho_mapf_preconditions(f->m, r, k, NULL, 0);
    tycho_mapf_precondition *p = tycho_newuserdata(L, (size_t)(n ? n : 1) * sizeof *p);
    tycho_mapf_preconditions(f->m, r, k, p, n);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_createtable(L, 0, 2);
        lua_pushinteger(L, p[i].robot + 1);
        lua_setfield(L, -2, "robot");
        lua_pushinteger(L, p[i].segment + 1);
        lua_setfield(L, -2, "segment");
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int l_at(lua_State *L)
{
    lfleet *f = check_fleet(L);
    int r = check_robot(L, f, 2);
    lua_Integer t = luaL_checkinteger(L, 3);
    luaL_argcheck(L, t >= 0, 3, "step must be >= 0");
    double x, y;
    tycho_mapf_vertex_xy(f->m, tycho_mapf_vertex_at_step(f->m, r, (int)t), &x, &y);
    lua_pushnumber(L, x);
    lua_pushnumber(L, y);
    return 2;
}

static int l_arrival(lua_State *L)
{
    lfleet *f = check_fleet(L);
    lua_pushinteger(L, tycho_mapf_arrival(f->m, check_robot(L, f, 2)));
    return 1;
}

static int l_index(lua_State *L)
{
    lfleet *f = check_fleet(L);
    const char *k = luaL_checkstring(L, 2);
    if (!strcmp(k, "orders_tried")) {
        lua_pushinteger(L, f->n ? tycho_mapf_orders_tried(f->m) : 0);
        return 1;
    }
    if (!strcmp(k, "vertices")) {
        lua_pushinteger(L, tycho_mapf_vertex_count(f->m));
        return 1;
    }
    lua_getmetatable(L, 1);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
    return 1;
}

static int l_gc(lua_State *L)
{
    lfleet *f = luaL_checkudata(L, 1, FLEET_MT);
    tycho_mapf_free(f->m);
    f->m = NULL;
    return 0;
}

static int l_tostring(lua_State *L)
{
    lfleet *f = luaL_checkudata(L, 1, FLEET_MT);
    if (!f->m) {
        lua_pushliteral(L, "tycho.fleet planner (freed)");
        return 1;
    }
    lua_pushfstring(L, "tycho.fleet planner (%d vertices, %d robots planned)",
                    tycho_mapf_vertex_count(f->m), f->n);
    return 1;
}

static int load_poses(lua_State *L, int goals)
{
    const char *path = luaL_checkstring(L, 1);
    char *text;
    size_t len;
    tycho_err err = {0};
    tycho_fleet_pose *p = NULL;
    int n = 0;
    tycho_status st = tycho_read_text_file(path, &text, &len, &err);
    if (st == TYCHO_OK) {
        st = goals ? tycho_goal_file(text, len, path, &p, &n, &err)
                   : tycho_stage_poses(text, len, path, &p, &n, &err);
        free(text);
    }
    if (st != TYCHO_OK) {
        return tycho_l_fail(L, &err);
    }
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_createtable(L, 0, 4);
        lua_pushinteger(L, p[i].robot);
        lua_setfield(L, -2, "robot");
        lua_pushnumber(L, p[i].x);
        lua_setfield(L, -2, "x");
        lua_pushnumber(L, p[i].y);
        lua_setfield(L, -2, "y");
        lua_pushnumber(L, p[i].yaw);
        lua_setfield(L, -2, "yaw");
        lua_pushinteger(L, p[i].line);
        lua_setfield(L, -2, "line");
        lua_rawseti(L, -2, i + 1);
    }
    free(p);
    return 1;
}

static int l_stage(lua_State *L) { return load_poses(L, 0); }
static int l_goals(lua_State *L) { return load_poses(L, 1); }

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
-- many robots --------------------------------------------------------------------------------

---@class tycho.fleet_planner
---@field orders_tried integer
---@field vertices integer
local fleet_planner = {}
tycho.fleet = {}
---@alias tycho.graph_opts {graph?: "grid"|"sparse", cell?: number, connectivity?: 4|8, spacing?: number}
---@alias tycho.route_graph {nodes: tycho.xy[], edges: {a: integer, b: integer, length: number, width: number}[]}
---@param o? {cell?: number, horizon?: integer, max_orders?: integer, time_limit?: number, graph?: "grid"|"sparse", connectivity?: 4|8, spacing?: number}
---@return tycho.fleet_planner
function tycho.fleet.planner(costmap, o) end
---A route graph of the map: grid (4/8-connected) or sparse (the free space's skeleton).
---@param o? tycho.graph_opts
---@return tycho.route_graph
function tycho.fleet.graph(costmap, o) end
---The planner's graph.
---@return tycho.route_graph
function fleet_planner:graph() end
---@return {robot: integer, x: number, y: number, yaw: number}[]|nil poses, string? err
function tycho.fleet.stage_poses(path) end
---@return {robot: integer, x: number, y: number, yaw: number}[]|nil goals, string? err
function tycho.fleet.goals(path) end
---@param starts tycho.xy[]
---@param goals tycho.xy[]
---@return true|nil ok, string? err
function fleet_planner:plan(starts, goals) end
---@return {x: number, y: number, vertex: integer, enter: integer, leave: integer}[]
function fleet_planner:route(i) end
---@return {robot: integer, segment: integer}[]
function fleet_planner:preconditions(i, k) end
---@return number x, number y
function fleet_planner:at(i, step) end
---@return integer step
function fleet_planner:arrival(i) end
*/
// clang-format on

void tycho_l_open_fleet(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg meth[] = {
        {"plan", l_plan}, {"route", l_route},     {"preconditions", l_preconditions},
        {"at", l_at},     {"arrival", l_arrival}, {"graph", l_planner_graph},
        {NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){FLEET_MT, meth, l_index, l_gc, l_tostring, NULL});
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushcfunction(L, l_planner);
    lua_setfield(L, -2, "planner");
    lua_pushcfunction(L, l_graph);
    lua_setfield(L, -2, "graph");
    lua_pushcfunction(L, l_stage);
    lua_setfield(L, -2, "stage_poses");
    lua_pushcfunction(L, l_goals);
    lua_setfield(L, -2, "goals");
    lua_setfield(L, module, "fleet");
    tycho_l_register_opts(L, &planner_spec);
    tycho_l_register_opts(L, &graph_spec);
}
