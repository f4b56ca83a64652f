/* Lua bindings: flood fill, components (label userdata), sealing. */
#include "ltycho.h"
#include "tycho/regions.h"

#include <stdio.h>
#include <string.h>

#define WS_MT "tycho.regions_ws"
#define LABELS_MT "tycho.labels"

typedef struct {
    tycho_regions *r;
} lws;

typedef struct {
    tycho_labels *l;
} llabels;

static int ws_gc(lua_State *L)
{
    lws *w = luaL_checkudata(L, 1, WS_MT);
    tycho_regions_free(w->r);
    w->r = NULL;
    return 0;
}

static tycho_regions *upvalue_ws(lua_State *L)
{
    lws *w = lua_touserdata(L, lua_upvalueindex(1));
    if (!w->r && !(w->r = tycho_regions_new())) luaL_error(L, "out of memory for a flood fill");
    return w->r;
}

#define REGION_FIELDS                                                                              \
    TYCHO_OPT_INT_IN("min_cost", 0, 255), TYCHO_OPT_INT_IN("max_cost", 0, 255),                    \
        TYCHO_OPT_INT("connectivity")
static const tycho_opt_field region_fields[] = {REGION_FIELDS, {0}};
static const tycho_opt_field flood_fields[] = {
    REGION_FIELDS, TYCHO_OPT_INT_IN("value", 0, 255), TYCHO_OPT_BOOL("cells"), {0}};
static const tycho_opt_spec components_spec = {"grid:components", region_fields};
static const tycho_opt_spec seal_region_spec = {"grid:seal_region", region_fields};
static const tycho_opt_spec flood_spec = {"grid:flood_fill", flood_fields};
static const tycho_opt_field wall_faces_fields[] = {
    TYCHO_OPT_INT_IN("threshold", 0, 255), TYCHO_OPT_INT_IN("free_max", 0, 255), {0}};
static const tycho_opt_spec wall_faces_spec = {"grid:wall_faces", wall_faces_fields};

/* {min_cost=, max_cost=, connectivity=} at idx (argument argn), validated. */
static tycho_region_params check_params(lua_State *L, int idx, int argn, const tycho_opt_spec *spec)
{
    tycho_region_params p;
    tycho_region_defaults(&p);
    if (!lua_isnoneornil(L, idx)) luaL_checktype(L, idx, LUA_TTABLE);
    tycho_l_checkopts(L, idx, argn, spec);
    lua_Integer lo = tycho_l_optfield_integer(L, idx, argn, "min_cost", p.min_cost);
    lua_Integer hi = tycho_l_optfield_integer(L, idx, argn, "max_cost", p.max_cost);
    lua_Integer cn = tycho_l_optfield_integer(L, idx, argn, "connectivity", p.connectivity);
    if (lo < 0 || lo > 255)
        luaL_error(L, "bad field 'min_cost' in argument #%d (cost 0..255 expected)", argn);
    if (hi < 0 || hi > 255)
        luaL_error(L, "bad field 'max_cost' in argument #%d (cost 0..255 expected)", argn);
    if (cn != 4 && cn != 8)
        luaL_error(L, "bad field 'connectivity' in argument #%d (4 or 8 expected)", argn);
    p.min_cost = (int)lo;
    p.max_cost = (int)hi;
    p.connectivity = (int)cn;
    tycho_err err = {0};
    if (tycho_region_check(&p, &err)) luaL_argerror(L, argn, err.msg);
    return p;
}

/* grid:flood_fill(cx, cy, {min_cost=0, max_cost=252, connectivity=8,
 *   value=nil, cells=false}) -> count [, cells {{cx=, cy=}, ...}]
 * With `value`, every cell of the region is set to it. */
static int l_flood_fill(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_cell seed = tycho_l_checkcell(L, 2);
    tycho_region_params p = check_params(L, 4, 4, &flood_spec);
    lua_Integer value = tycho_l_optfield_integer(L, 4, 4, "value", -1);
    if (!lua_isnoneornil(L, 4)) {
        lua_getfield(L, 4, "value");
        int has = !lua_isnil(L, -1);
        lua_pop(L, 1);
        if (has && (value < 0 || value > 255))
            return luaL_error(L, "bad field 'value' in argument #4 (cost 0..255 expected)");
    }
    int want_cells = tycho_l_optfield_boolean(L, 4, 4, "cells", 0);
    tycho_regions *ws = upvalue_ws(L);
    tycho_err err = {0};
    size_t count = 0;
    if (tycho_flood_fill(ws, g, seed.x, seed.y, &p, &count, &err)) return tycho_l_error(L, &err);
    if (value >= 0) tycho_regions_set(ws, g, (uint8_t)value);
    lua_pushinteger(L, (lua_Integer)count);
    if (!want_cells) return 1;
    size_t n;
    const tycho_cell *c = tycho_regions_cells(ws, &n);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 2);
        lua_pushinteger(L, c[i].x);
        lua_setfield(L, -2, "cx");
        lua_pushinteger(L, c[i].y);
        lua_setfield(L, -2, "cy");
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 2;
}

/* grid:seal_region(cx, cy, {min_cost=, max_cost=, connectivity=}) -> cells sealed */
static int l_seal_region(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_cell seed = tycho_l_checkcell(L, 2);
    tycho_region_params p = check_params(L, 4, 4, &seal_region_spec);
    tycho_err err = {0};
    size_t sealed = 0;
    if (tycho_seal_region(upvalue_ws(L), g, seed.x, seed.y, &p, &sealed, &err))
        return tycho_l_error(L, &err);
    lua_pushinteger(L, (lua_Integer)sealed);
    return 1;
}

static const tycho_opt_field seal_line_fields[] = {
    TYCHO_OPT_BOOL("world"), TYCHO_OPT_INT_POS("thickness"), TYCHO_OPT_INT_IN("cost", 0, 255), {0}};
static const tycho_opt_spec seal_line_spec = {"grid:seal_line", seal_line_fields};

/* grid:seal_line(x0, y0, x1, y1, {world = false, thickness = 1, cost = 254}) -> cells sealed.
 * Cells (integers) by default; world = true takes metres. A cost under 254
 * (world coordinates only) raises cells to it instead (a soft keep-out). */
static int l_seal_line(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    if (!lua_isnoneornil(L, 6)) luaL_checktype(L, 6, LUA_TTABLE);
    tycho_l_checkopts(L, 6, 6, &seal_line_spec);
    int world = tycho_l_optfield_boolean(L, 6, 6, "world", 0);
    lua_Integer t = tycho_l_optfield_integer(L, 6, 6, "thickness", 1);
    if (t < 1 || t > 256)
        return luaL_error(L, "bad field 'thickness' in argument #6 (cells 1..256 expected)");
    lua_Integer cost = tycho_l_optfield_integer(L, 6, 6, "cost", TYCHO_COST_LETHAL);
    if (cost < 1 || cost > TYCHO_COST_LETHAL)
        return luaL_error(L, "bad field 'cost' in argument #6 (1..254 expected)");
    if (cost != TYCHO_COST_LETHAL && !world)
        return luaL_error(L, "bad field 'cost' in argument #6 (a cost needs world = true)");
    tycho_err err = {0};
    size_t sealed = 0;
    tycho_status st;
    if (world) {
        double v[4];
        for (int i = 0; i < 4; i++) v[i] = luaL_checknumber(L, 2 + i);
        st =
            tycho_stamp_line_world(g, v[0], v[1], v[2], v[3], (int)t, (uint8_t)cost, &sealed, &err);
    } else {
        tycho_cell a = tycho_l_checkcell(L, 2), b = tycho_l_checkcell(L, 4);
        st = tycho_seal_line(g, a, b, (int)t, &sealed, &err);
    }
    if (st) return luaL_argerror(L, 2, err.msg);
    lua_pushinteger(L, (lua_Integer)sealed);
    return 1;
}

/* --- labels userdata ------------------------------------------------------- */

static tycho_labels *check_labels(lua_State *L, int idx)
{
    return TYCHO_L_CHECKBOX(L, idx, llabels, l, LABELS_MT, "labels have been freed")->l;
}

/* grid:components{min_cost=, max_cost=, connectivity=} -> count, labels */
static int l_components(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_region_params p = check_params(L, 2, 2, &components_spec);
    llabels *b = tycho_newuserdata(L, sizeof *b);
    b->l = NULL;
    luaL_getmetatable(L, LABELS_MT);
    lua_setmetatable(L, -2);
    if (!(b->l = tycho_labels_new())) return luaL_error(L, "out of memory for labels");
    tycho_err err = {0};
    size_t count = 0;
    if (tycho_components(b->l, g, &p, &count, &err)) return tycho_l_error(L, &err);
    lua_pushinteger(L, (lua_Integer)count);
    lua_insert(L, -2);
    return 2;
}

/* labels:get(cx, cy) -> label (0: not in any component or outside) */
static int lab_get(lua_State *L)
{
    tycho_labels *l = check_labels(L, 1);
    tycho_cell c = tycho_l_checkcell(L, 2);
    lua_pushinteger(L, tycho_labels_get(l, c.x, c.y));
    return 1;
}

/* labels:size(k) -> cells in component k (0 for a label that does not exist) */
static int lab_size(lua_State *L)
{
    tycho_labels *l = check_labels(L, 1);
    lua_Integer k = luaL_checkinteger(L, 2);
    lua_pushinteger(L, k >= 1 && k <= (lua_Integer)tycho_labels_count(l)
                           ? (lua_Integer)tycho_labels_size(l, (int32_t)k)
                           : 0);
    return 1;
}

static int lab_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)tycho_labels_count(check_labels(L, 1)));
    return 1;
}

static int lab_index(lua_State *L)
{
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    if (!lua_isnil(L, -1)) return 1;
    tycho_labels *l = check_labels(L, 1);
    const char *k = lua_tostring(L, 2);
    int w, h;
    tycho_labels_data(l, &w, &h);
    if (!k) return 0;
    if (!strcmp(k, "count")) lua_pushinteger(L, (lua_Integer)tycho_labels_count(l));
    else if (!strcmp(k, "width")) lua_pushinteger(L, w);
    else if (!strcmp(k, "height")) lua_pushinteger(L, h);
    else return 0;
    return 1;
}

static int lab_tostring(lua_State *L)
{
    llabels *b = luaL_checkudata(L, 1, LABELS_MT);
    if (!b->l) {
        lua_pushliteral(L, "tycho.labels (freed)");
        return 1;
    }
    int w, h;
    tycho_labels_data(b->l, &w, &h);
    char buf[96];
    snprintf(buf, sizeof buf, "tycho.labels %dx%d, %zu components", w, h, tycho_labels_count(b->l));
    lua_pushstring(L, buf);
    return 1;
}

static int lab_gc(lua_State *L)
{
    llabels *b = luaL_checkudata(L, 1, LABELS_MT);
    tycho_labels_free(b->l);
    b->l = NULL;
    return 0;
}

typedef struct {
    lua_State *L;
    const tycho_grid *g;
    lua_Integer n;
} face_out;

static void push_face(void *ud, int cx, int cy, int nx, int ny)
{
    face_out *o = ud;
    lua_State *L = o->L;
    double x, y;
    tycho_grid_cell_to_world(o->g, cx, cy, &x, &y);
    lua_createtable(L, 0, 6);
    lua_pushnumber(L, x);
    lua_setfield(L, -2, "x");
    lua_pushnumber(L, y);
    lua_setfield(L, -2, "y");
    lua_pushinteger(L, nx);
    lua_setfield(L, -2, "nx");
    lua_pushinteger(L, ny);
    lua_setfield(L, -2, "ny");
    lua_pushinteger(L, cx);
    lua_setfield(L, -2, "cx");
    lua_pushinteger(L, cy);
    lua_setfield(L, -2, "cy");
    lua_rawseti(L, -2, (int)++o->n);
}

/* grid:wall_faces([{threshold = 254, free_max = 0}]) -> {{x=, y=, nx=, ny=, cx=, cy=}, ...} */
static int l_wall_faces(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_l_checkopts(L, 2, 2, &wall_faces_spec);
    lua_Integer thr = tycho_l_optfield_integer(L, 2, 2, "threshold", 254);

    lua_Integer fmax = tycho_l_optfield_integer(L, 2, 2, "free_max", 0);
    luaL_argcheck(L, thr >= 1 && thr <= 254, 2, "bad field 'threshold' (1..254)");
    luaL_argcheck(L, fmax >= 0 && fmax < thr, 2, "bad field 'free_max' (0..threshold-1)");
    lua_newtable(L);
    face_out o = {L, g, 0};
    tycho_wall_faces(g, (int)thr, (int)fmax, push_face, &o);
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---@param o? {min_cost?: integer, max_cost?: integer, connectivity?: 4|8, value?: integer, cells?: boolean}
---@return integer count, {cx: integer, cy: integer}[]? cells
function grid:flood_fill(cx, cy, o) end
---@param o? {min_cost?: integer, max_cost?: integer, connectivity?: 4|8}
---@return integer count, tycho.labels labels
function grid:components(o) end
---@param o? {min_cost?: integer, max_cost?: integer, connectivity?: 4|8}
---@return integer cells_sealed
function grid:seal_region(cx, cy, o) end
---@param o? {world?: boolean, thickness?: integer, cost?: integer}
---@return integer cells_sealed
function grid:seal_line(x0, y0, x1, y1, o) end
---@param o? {threshold?: integer, free_max?: integer}
---@return {x: number, y: number, nx: number, ny: number, cx: integer, cy: integer}[]
function grid:wall_faces(o) end

---@class tycho.labels
local labels = {}
---@return integer label
function labels:get(cx, cy) end
---@return integer cells
function labels:size(k) end
*/
// clang-format on

void tycho_l_open_regions(lua_State *L, int module, int methods)
{
    (void)module;
    lua_pushcfunction(L, l_wall_faces);
    lua_setfield(L, methods, "wall_faces");
    static const luaL_Reg lab_methods[] = {{"get", lab_get}, {"size", lab_size}, {NULL, NULL}};
    static const luaL_Reg lab_meta[] = {{"__len", lab_len}, {NULL, NULL}};
    tycho_l_newclass(
        L, &(tycho_l_class){LABELS_MT, lab_methods, lab_index, lab_gc, lab_tostring, lab_meta});
    lua_pop(L, 1);

    lws *w = tycho_newuserdata(L, sizeof *w);
    w->r = NULL; /* allocated on first use */
    tycho_l_newclass(L, &(tycho_l_class){WS_MT, NULL, NULL, ws_gc, NULL, NULL});
    lua_setmetatable(L, -2);
    int ws = lua_gettop(L);
    lua_pushvalue(L, ws);
    lua_pushcclosure(L, l_flood_fill, 1);
    lua_setfield(L, methods, "flood_fill");
    lua_pushvalue(L, ws);
    lua_pushcclosure(L, l_seal_region, 1);
    lua_setfield(L, methods, "seal_region");
    lua_pop(L, 1);

    lua_pushcfunction(L, l_seal_line);
    lua_setfield(L, methods, "seal_line");
    lua_pushcfunction(L, l_components);
    lua_setfield(L, methods, "components");
    tycho_l_register_opts(L, &components_spec);
    tycho_l_register_opts(L, &seal_region_spec);
    tycho_l_register_opts(L, &flood_spec);
    tycho_l_register_opts(L, &wall_faces_spec);
    tycho_l_register_opts(L, &seal_line_spec);
}
