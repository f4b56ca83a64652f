/* Lua bindings: the grid userdata (construction, cells, frames, stats). */
#include "ltycho.h"
#include "tycho/coverage.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

tycho_grid *tycho_l_checkgrid(lua_State *L, int idx)
{
    return TYCHO_L_CHECKBOX(L, idx, tycho_lgrid, g, TYCHO_GRID_MT, "grid has been freed")->g;
}

void tycho_l_pushgrid(lua_State *L, tycho_grid *g)
{
    tycho_lgrid *box = tycho_newuserdata(L, sizeof *box);
    box->g = g;
    luaL_getmetatable(L, TYCHO_GRID_MT);
    lua_setmetatable(L, -2);
}

static uint8_t check_cost(lua_State *L, int idx)
{
    lua_Integer v = luaL_checkinteger(L, idx);
    luaL_argcheck(L, v >= 0 && v <= 255, idx, "cost must be an integer 0..255");
    return (uint8_t)v;
}

static const tycho_opt_field grid_new_fields[] = {
    TYCHO_OPT_INT_IN("width", 1, 1 << 20), TYCHO_OPT_INT_IN("height", 1, 1 << 20),
    TYCHO_OPT_NUM_POS("resolution"),       TYCHO_OPT_POSE_("origin"),
    TYCHO_OPT_INT_IN("fill", 0, 255),      {0}};
static const tycho_opt_spec grid_new_spec = {"grid.new", grid_new_fields};

/* tycho.grid.new{width=, height=, resolution=0.05, origin={x=,y=,yaw=}, fill=255} */
static int l_grid_new(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    tycho_l_checkopts(L, 1, 1, &grid_new_spec);
    lua_Integer w = tycho_l_optfield_integer(L, 1, 1, "width", -1);
    lua_Integer h = tycho_l_optfield_integer(L, 1, 1, "height", -1);
    if (w <= 0 || h <= 0)
        return luaL_error(L, "bad argument #1 to 'new' (positive integer fields 'width' and "
                             "'height' required)");
    double res = tycho_l_optfield_number(L, 1, 1, "resolution", 0.05);
    lua_Integer fill = tycho_l_optfield_integer(L, 1, 1, "fill", TYCHO_COST_UNKNOWN);
    tycho_pose2 o = {0, 0, 0};
    lua_getfield(L, 1, "origin");
    if (!lua_isnil(L, -1)) o = tycho_l_checkpose(L, -1, 1, "origin", false);
    lua_pop(L, 1);
    tycho_err err = {0};
    tycho_grid *g = tycho_grid_new((int)w, (int)h, res, o, (uint8_t)fill, &err);
    if (!g) return tycho_l_error(L, &err);
    tycho_l_pushgrid(L, g);
    return 1;
}

static int l_get(lua_State *L)
{
    /* Hot path (≤100 ns target): avoid luaL_checkudata's registry lookup when
     * the metatable matches the cached one in the upvalue. */
    tycho_lgrid *box = lua_touserdata(L, 1);
    if (!box || !lua_getmetatable(L, 1) || !lua_rawequal(L, -1, lua_upvalueindex(1)))
        tycho_l_checkgrid(L, 1);
    int cx = (int)luaL_checkinteger(L, 2), cy = (int)luaL_checkinteger(L, 3);
    lua_pushinteger(L, tycho_grid_get(box->g, cx, cy));
    return 1;
}

static int l_set(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_cell c = tycho_l_checkcell(L, 2);
    uint8_t v = check_cost(L, 4);
    lua_pushboolean(L, tycho_grid_set(g, c.x, c.y, v));
    return 1;
}

static int l_fill(lua_State *L)
{
    tycho_grid_fill(tycho_l_checkgrid(L, 1), check_cost(L, 2));
    lua_settop(L, 1);
    return 1;
}

static int l_world_to_cell(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    double x = luaL_checknumber(L, 2), y = luaL_checknumber(L, 3);
    int cx, cy;
    bool in = tycho_grid_world_to_cell(g, x, y, &cx, &cy);
    lua_pushinteger(L, cx);
    lua_pushinteger(L, cy);
    lua_pushboolean(L, in);
    return 3;
}

static int l_cell_to_world(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_cell c = tycho_l_checkcell(L, 2);
    double x, y;
    tycho_grid_cell_to_world(g, c.x, c.y, &x, &y);
    lua_pushnumber(L, x);
    lua_pushnumber(L, y);
    return 2;
}

static int l_copy(lua_State *L)
{
    tycho_err err = {0};
    tycho_grid *c = tycho_grid_copy(tycho_l_checkgrid(L, 1), &err);
    if (!c) return tycho_l_error(L, &err);
    tycho_l_pushgrid(L, c);
    return 1;
}

static int l_crop(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_cell c = tycho_l_checkcell(L, 2);
    int w = (int)luaL_checkinteger(L, 4), h = (int)luaL_checkinteger(L, 5);
    luaL_argcheck(L, w > 0, 4, "width must be > 0");
    luaL_argcheck(L, h > 0, 5, "height must be > 0");
    tycho_err err = {0};
    tycho_grid *out = tycho_grid_crop(g, c.x, c.y, w, h, &err);
    if (!out) return tycho_l_error(L, &err);
    tycho_l_pushgrid(L, out);
    return 1;
}

/* grid:paste(src, cx, cy) -> cells copied (src's cell 0,0 at cx, cy; clipped) */
static int l_paste(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    const tycho_grid *src = tycho_l_checkgrid(L, 2);
    lua_Integer cx = luaL_checkinteger(L, 3), cy = luaL_checkinteger(L, 4);
    luaL_argcheck(L, cx > -(1 << 28) && cx < (1 << 28), 3, "cell x out of range");
    luaL_argcheck(L, cy > -(1 << 28) && cy < (1 << 28), 4, "cell y out of range");
    lua_pushinteger(L, (lua_Integer)tycho_grid_paste(g, src, (int)cx, (int)cy));
    return 1;
}

/* grid:known_box() -> cx0, cy0, cx1, cy1 (inclusive) round every cell that
 * is not unknown, or nil when none is */
static int l_known_box(lua_State *L)
{
    int box[4];
    if (!tycho_grid_known_box(tycho_l_checkgrid(L, 1), box)) {
        lua_pushnil(L);
        return 1;
    }
    for (int k = 0; k < 4; k++) lua_pushinteger(L, box[k]);
    return 4;
}

static int l_stats(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_grid_stats s;
    tycho_grid_stats_compute(g, &s);
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, (lua_Integer)s.free);
    lua_setfield(L, -2, "free");
    lua_pushinteger(L, (lua_Integer)s.inflated);
    lua_setfield(L, -2, "inflated");
    lua_pushinteger(L, (lua_Integer)s.inscribed);
    lua_setfield(L, -2, "inscribed");
    lua_pushinteger(L, (lua_Integer)s.lethal);
    lua_setfield(L, -2, "lethal");
    lua_pushinteger(L, (lua_Integer)s.unknown);
    lua_setfield(L, -2, "unknown");
    size_t n = (size_t)tycho_grid_width(g) * tycho_grid_height(g);
    lua_pushnumber(L, n ? (double)(n - s.unknown) / (double)n : 0.0);
    lua_setfield(L, -2, "known_fraction");
    return 1;
}

static int l_grow_to(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    double x = luaL_checknumber(L, 2), y = luaL_checknumber(L, 3);
    int margin = (int)luaL_optinteger(L, 4, 0);
    tycho_err err = {0};
    if (tycho_grid_grow_to(g, x, y, margin, &err) != TYCHO_OK) return tycho_l_error(L, &err);
    lua_settop(L, 1);
    return 1;
}

static int l_observe(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_cell c = tycho_l_checkcell(L, 2);
    luaL_checktype(L, 4, LUA_TBOOLEAN);
    luaL_argcheck(L, tycho_grid_in_bounds(g, c.x, c.y), 2, "cell outside the grid");
    tycho_grid_observe(g, c.x, c.y, lua_toboolean(L, 4));
    lua_pushinteger(L, tycho_grid_get(g, c.x, c.y));
    return 1;
}

static int l_logodds(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_cell c = tycho_l_checkcell(L, 2);
    luaL_argcheck(L, tycho_grid_in_bounds(g, c.x, c.y), 2, "cell outside the grid");
    float *lo = tycho_grid_logodds(g);
    if (!lo) return luaL_error(L, "out of memory for the log-odds layer");
    lua_pushnumber(L, lo[(size_t)c.y * tycho_grid_width(g) + c.x]);
    return 1;
}

static double check_prob(lua_State *L, int idx, const char *key, double def)
{
    double p = tycho_l_optfield_number(L, idx, 2, key, def);
    if (!(p > 0 && p < 1))
        luaL_error(L, "bad field '%s' in argument #2 (probability in (0, 1) expected, got %f)", key,
                   p);
    return p;
}

static const tycho_opt_field logodds_fields[] = {TYCHO_OPT_NUM("p_hit"),
                                                 TYCHO_OPT_NUM("p_miss"),
                                                 TYCHO_OPT_NUM("p_min"),
                                                 TYCHO_OPT_NUM("p_max"),
                                                 TYCHO_OPT_NUM("occ_thresh"),
                                                 TYCHO_OPT_NUM("free_thresh"),
                                                 {0}};
static const tycho_opt_spec logodds_spec = {"grid:set_logodds_params", logodds_fields};

static int l_set_logodds_params(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    tycho_l_checkopts(L, 2, 2, &logodds_spec);
    tycho_logodds_params p;
    tycho_grid_get_logodds_params(g, &p);
    p.p_hit = check_prob(L, 2, "p_hit", p.p_hit);
    p.p_miss = check_prob(L, 2, "p_miss", p.p_miss);
    p.p_min = check_prob(L, 2, "p_min", p.p_min);
    p.p_max = check_prob(L, 2, "p_max", p.p_max);
    p.occ_thresh = check_prob(L, 2, "occ_thresh", p.occ_thresh);
    p.free_thresh = check_prob(L, 2, "free_thresh", p.free_thresh);
    if (!(p.p_min < p.free_thresh && p.free_thresh < p.occ_thresh && p.occ_thresh < p.p_max))
        return luaL_error(L, "bad argument #2 (need p_min < free_thresh < occ_thresh < p_max)");
    if (!(p.p_hit > 0.5 && p.p_miss < 0.5))
        return luaL_error(L, "bad argument #2 (need p_hit > 0.5 and p_miss < 0.5)");
    tycho_grid_set_logodds_params(g, &p);
    lua_settop(L, 1);
    return 1;
}

/* Address of the cost layer, for LuaJIT FFI access (see bindings/tycho_ffi.lua).
 * Valid until the grid grows or is collected. */
static int l_cells_ptr(lua_State *L)
{
    lua_pushlightuserdata(L, tycho_grid_cells(tycho_l_checkgrid(L, 1)));
    return 1;
}

/* truth:coverage(map, x, y) -> fraction, reachable, mapped */
static int l_coverage(lua_State *L)
{
    tycho_grid *truth = tycho_l_checkgrid(L, 1), *map = tycho_l_checkgrid(L, 2);
    double x = luaL_checknumber(L, 3), y = luaL_checknumber(L, 4);
    size_t reach = 0, mapped = 0;
    tycho_err err = {0};
    if (tycho_grid_coverage(truth, map, x, y, &reach, &mapped, &err) != TYCHO_OK)
        return tycho_l_error(L, &err);
    lua_pushnumber(L, reach ? (double)mapped / (double)reach : 0.0);
    lua_pushinteger(L, (lua_Integer)reach);
    lua_pushinteger(L, (lua_Integer)mapped);
    return 3;
}

static int l_gc(lua_State *L)
{
    tycho_lgrid *box = luaL_checkudata(L, 1, TYCHO_GRID_MT);
    tycho_grid_free(box->g);
    box->g = NULL;
    return 0;
}

static int l_tostring(lua_State *L)
{
    tycho_lgrid *box = luaL_checkudata(L, 1, TYCHO_GRID_MT);
    if (!box->g) {
        lua_pushliteral(L, "tycho.grid (freed)");
        return 1;
    }
    tycho_grid *g = box->g;
    tycho_pose2 o = tycho_grid_origin(g);
    char buf[160];
    snprintf(buf, sizeof buf, "tycho.grid %dx%d @ %.3f m, origin (%.3f, %.3f, %.3f)",
             tycho_grid_width(g), tycho_grid_height(g), tycho_grid_resolution(g), o.x, o.y, o.yaw);
    lua_pushstring(L, buf);
    return 1;
}

static int l_len(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    lua_pushinteger(L, (lua_Integer)tycho_grid_width(g) * tycho_grid_height(g));
    return 1;
}

/* __index: methods first (upvalue 1), then read-only fields. */
static int l_index(lua_State *L)
{
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    if (!lua_isnil(L, -1)) return 1;
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    const char *k = lua_tostring(L, 2);
    if (!k) return 0;
    if (!strcmp(k, "width")) lua_pushinteger(L, tycho_grid_width(g));
    else if (!strcmp(k, "height")) lua_pushinteger(L, tycho_grid_height(g));
    else if (!strcmp(k, "resolution")) lua_pushnumber(L, tycho_grid_resolution(g));
    else if (!strcmp(k, "origin")) {
        tycho_pose2 o = tycho_grid_origin(g);
        lua_createtable(L, 0, 3);
        lua_pushnumber(L, o.x);
        lua_setfield(L, -2, "x");
        lua_pushnumber(L, o.y);
        lua_setfield(L, -2, "y");
        lua_pushnumber(L, o.yaw);
        lua_setfield(L, -2, "yaw");
    } else return 0;
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
-- grid ------------------------------------------------------------------------

---An occupancy grid / costmap (Nav2 values: 0 free .. 253 inscribed, 254 lethal, 255 unknown).
---@class tycho.grid
---@field width integer
---@field height integer
---@field resolution number   metres per cell
---@field origin tycho.pose   pose of cell (0, 0)'s corner
local grid = {}

tycho.grid = {}
---@param o {width: integer, height: integer, resolution?: number, origin?: tycho.pose, fill?: integer}
---@return tycho.grid
function tycho.grid.new(o) end

---@return integer cost
function grid:get(cx, cy) end
---@param cost integer 0..255
function grid:set(cx, cy, cost) end
---@param cost integer
function grid:fill(cost) end
---@return tycho.grid
function grid:copy() end
---@return tycho.grid
function grid:crop(cx, cy, w, h) end
---Copies src's cells with its cell (0, 0) at (cx, cy), clipped to this grid.
---@param src tycho.grid
---@param cx integer
---@param cy integer
---@return integer cells_copied
function grid:paste(src, cx, cy) end
---Grows the grid (keeping cells) so the world rectangle fits.
function grid:grow_to(xmin, ymin, xmax, ymax) end
---@return integer cx, integer cy, boolean inside   whether the cell is on the grid
function grid:world_to_cell(x, y) end
---@return number x, number y   the cell's centre
function grid:cell_to_world(cx, cy) end
---@return {free: integer, lethal: integer, inflated: integer, inscribed: integer, unknown: integer}
function grid:stats() end
---The smallest box round every cell that is not unknown (inclusive), or nil when every cell is.
---@return integer|nil cx0, integer cy0, integer cx1, integer cy1
function grid:known_box() end
---Address of the cost layer for LuaJIT FFI (bindings/tycho_ffi.lua).
---@return lightuserdata
function grid:cells_ptr() end
---@return number fraction, integer reachable, integer mapped
function grid:coverage(map, x, y) end
---@param o {p_hit?: number, p_miss?: number, p_min?: number, p_max?: number, occ_thresh?: number, free_thresh?: number}
function grid:set_logodds_params(o) end
---@return number
function grid:logodds(cx, cy) end
---Log-odds update of one cell (hit or miss).
function grid:observe(cx, cy, hit) end
*/
// clang-format on

static const luaL_Reg grid_methods[] = {
    {"set", l_set},
    {"fill", l_fill},
    {"world_to_cell", l_world_to_cell},
    {"cell_to_world", l_cell_to_world},
    {"copy", l_copy},
    {"crop", l_crop},
    {"paste", l_paste},
    {"stats", l_stats},
    {"known_box", l_known_box},
    {"grow_to", l_grow_to},
    {"observe", l_observe},
    {"logodds", l_logodds},
    {"set_logodds_params", l_set_logodds_params},
    {"cells_ptr", l_cells_ptr},
    {"coverage", l_coverage},
    {NULL, NULL},
};

void tycho_l_grid_class(lua_State *L)
{
    static const luaL_Reg meta[] = {{"__len", l_len}, {NULL, NULL}};
    tycho_l_newclass(
        L, &(tycho_l_class){TYCHO_GRID_MT, grid_methods, l_index, l_gc, l_tostring, meta});
}

void tycho_l_open_grid(lua_State *L, int module, int methods)
{
    int mt = methods - 1; /* module.c pushes the metatable just below the methods */
    lua_pushvalue(L, mt);
    lua_pushcclosure(L, l_get, 1);
    lua_setfield(L, methods, "get");

    lua_newtable(L);
    lua_pushcfunction(L, l_grid_new);
    lua_setfield(L, -2, "new");
    lua_pushinteger(L, TYCHO_COST_FREE);
    lua_setfield(L, -2, "FREE");
    lua_pushinteger(L, TYCHO_COST_INSCRIBED);
    lua_setfield(L, -2, "INSCRIBED");
    lua_pushinteger(L, TYCHO_COST_LETHAL);
    lua_setfield(L, -2, "LETHAL");
    lua_pushinteger(L, TYCHO_COST_UNKNOWN);
    lua_setfield(L, -2, "UNKNOWN");
    lua_setfield(L, module, "grid");
    tycho_l_register_opts(L, &grid_new_spec);
    tycho_l_register_opts(L, &logodds_spec);
}
