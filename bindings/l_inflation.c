/* Lua bindings: Nav2 inflation and distance fields.
 *
 *   grid:inflate{inscribed_radius=, inflation_radius=, cost_scaling_factor=,
 *                inflate_unknown=, inflate_around_unknown=} -> new grid
 *   grid:inflate_into(dst, opts) -> dst   (dst may be grid itself: in place)
 *   grid:distance_transform([{threshold=, unknown_blocked=, max_distance=}]) -> field
 *   field:get(cx, cy) -> metres (math.huge: no obstacle within max_distance,
 *                        or outside the field), #field, field.width/height/resolution
 *
 * Distances are between cell centres, to the nearest obstacle cell: cost >=
 * threshold (default 254) for known cells, unknown (255) only with
 * unknown_blocked. */
#include "ltycho.h"
#include "tycho/edt.h"
#include "tycho/inflation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELD_MT "tycho.distance_field"
#define INFLATION_WS_MT "tycho.inflation_workspace"

typedef struct {
    tycho_inflation *ws;
    tycho_edt *edt;
} lworkspace;

typedef struct {
    int width, height;
    double resolution;
    float *d; /* metres, INFINITY when beyond */
} lfield;

static lworkspace *workspace(lua_State *L)
{
    lworkspace *w = lua_touserdata(L, lua_upvalueindex(1));
    if (!w->ws || !w->edt) luaL_error(L, "out of memory for the inflation workspace");
    return w;
}

static const tycho_opt_field inflation_fields[] = {
    TYCHO_OPT_NUM_NONNEG("inscribed_radius"), TYCHO_OPT_NUM_NONNEG("inflation_radius"),
    TYCHO_OPT_NUM("cost_scaling_factor"),     TYCHO_OPT_BOOL("inflate_unknown"),
    TYCHO_OPT_BOOL("inflate_around_unknown"), {0}};
static const tycho_opt_spec inflation_spec = {"grid:inflate", inflation_fields};
static const tycho_opt_spec inflate_into_spec = {"grid:inflate_into", inflation_fields};

static void check_params(lua_State *L, int idx, const tycho_opt_spec *spec,
                         tycho_inflation_params *p)
{
    tycho_inflation_defaults(p);
    if (lua_isnoneornil(L, idx)) return;
    luaL_checktype(L, idx, LUA_TTABLE);
    tycho_l_checkopts(L, idx, idx, spec);
    p->inscribed_radius =
        tycho_l_optfield_number(L, idx, idx, "inscribed_radius", p->inscribed_radius);
    p->inflation_radius =
        tycho_l_optfield_number(L, idx, idx, "inflation_radius", p->inflation_radius);
    p->cost_scaling_factor =
        tycho_l_optfield_number(L, idx, idx, "cost_scaling_factor", p->cost_scaling_factor);
    p->inflate_unknown =
        tycho_l_optfield_boolean(L, idx, idx, "inflate_unknown", p->inflate_unknown);
    p->inflate_around_unknown =
        tycho_l_optfield_boolean(L, idx, idx, "inflate_around_unknown", p->inflate_around_unknown);
    /* name the field in Lua terms; the core message says what is wrong */
    static const char *const keys[] = {"inscribed_radius", "inflation_radius",
                                       "cost_scaling_factor"};
    const double vals[] = {p->inscribed_radius, p->inflation_radius, p->cost_scaling_factor};
    for (int k = 0; k < 3; k++)
        if (!isfinite(vals[k]) || vals[k] < 0)
            luaL_error(L, "bad field '%s' in argument #%d (finite number >= 0 expected)", keys[k],
                       idx);
}

static void run_inflate(lua_State *L, const tycho_grid *src, tycho_grid *dst,
                        const tycho_inflation_params *p, int argn)
{
    tycho_err err = {0};
    if (tycho_inflate(workspace(L)->ws, src, dst, p, &err) != TYCHO_OK) {
        if (err.code == TYCHO_ERANGE)
            luaL_error(L, "bad field 'inflation_radius' in argument #%d (%s)", argn, err.msg);
        tycho_l_error(L, &err);
    }
}

static int l_inflate(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_inflation_params p;
    check_params(L, 2, &inflation_spec, &p);
    tycho_err err = {0};
    tycho_grid *out = tycho_grid_new(tycho_grid_width(g), tycho_grid_height(g),
                                     tycho_grid_resolution(g), tycho_grid_origin(g), 0, &err);
    if (!out) return tycho_l_error(L, &err);
    tycho_l_pushgrid(L, out); /* owned by Lua from here, so an error below cannot leak it */
    run_inflate(L, g, out, &p, 2);
    return 1;
}

static int l_inflate_into(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    tycho_grid *dst = tycho_l_checkgrid(L, 2);
    luaL_argcheck(L,
                  tycho_grid_width(dst) == tycho_grid_width(g) &&
                      tycho_grid_height(dst) == tycho_grid_height(g),
                  2, "destination grid must have the source's size");
    luaL_argcheck(L, tycho_grid_resolution(dst) == tycho_grid_resolution(g), 2,
                  "destination grid must have the source's resolution");
    tycho_inflation_params p;
    check_params(L, 3, &inflate_into_spec, &p);
    run_inflate(L, g, dst, &p, 3);
    lua_settop(L, 2);
    return 1;
}

static const tycho_opt_field dt_fields[] = {TYCHO_OPT_INT_IN("threshold", 0, 255),
                                            TYCHO_OPT_BOOL("unknown_blocked"),
                                            TYCHO_OPT_NUM_POS("max_distance"),
                                            {0}};
static const tycho_opt_spec dt_spec = {"grid:distance_transform", dt_fields};

static int l_distance_transform(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    lua_Integer thr = TYCHO_COST_LETHAL;
    int ub = 0;
    double maxd = INFINITY;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        tycho_l_checkopts(L, 2, 2, &dt_spec);
        thr = tycho_l_optfield_integer(L, 2, 2, "threshold", thr);
        if (thr < 0 || thr > 254)
            return luaL_error(L, "bad field 'threshold' in argument #2 (cost 0..254 expected)");
        ub = tycho_l_optfield_boolean(L, 2, 2, "unknown_blocked", 0);
        maxd = tycho_l_optfield_number(L, 2, 2, "max_distance", maxd);
        if (!(maxd >= 0))
            return luaL_error(L, "bad field 'max_distance' in argument #2 (number >= 0 expected)");
    }
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    double res = tycho_grid_resolution(g);
    double md_cells = floor(maxd / res);
    int md =
        md_cells >= TYCHO_EDT_MAX_DIST ? TYCHO_EDT_MAX_DIST : (md_cells < 1 ? 1 : (int)md_cells);
    uint8_t sites[256];
    tycho_edt_sites_range(sites, (int)thr, 254);
    sites[TYCHO_COST_UNKNOWN] = (uint8_t)ub;

    lfield *f = tycho_newuserdata(L, sizeof *f);
    memset(f, 0, sizeof *f);
    luaL_getmetatable(L, FIELD_MT);
    lua_setmetatable(L, -2);
    f->d = malloc((size_t)w * h * sizeof *f->d);
    if (!f->d) return luaL_error(L, "out of memory for a %dx%d distance field", w, h);
    f->width = w;
    f->height = h;
    f->resolution = res;
    tycho_edt *e = workspace(L)->edt;
    tycho_err err = {0};
    if (tycho_edt_prepare(e, tycho_grid_cells_const(g), w, h, sites, md, &err) != TYCHO_OK)
        return tycho_l_error(L, &err);
    for (int y = 0; y < h; y++) {
        const int32_t *row = tycho_edt_row(e, y);
        float *o = f->d + (size_t)y * w;
        for (int x = 0; x < w; x++) {
            double d = row && row[x] != TYCHO_EDT_FAR ? sqrt((double)row[x]) * res : INFINITY;
            o[x] = d <= maxd ? (float)d : INFINITY;
        }
    }
    return 1;
}

static lfield *check_field(lua_State *L, int idx)
{
    return TYCHO_L_CHECKBOX(L, idx, lfield, d, FIELD_MT, "distance field has been freed");
}

static int l_field_get(lua_State *L)
{
    lfield *f = check_field(L, 1);
    tycho_cell c = tycho_l_checkcell(L, 2);
    if (!tycho_grid_in_bounds_wh(f->width, f->height, c.x, c.y)) lua_pushnumber(L, HUGE_VAL);
    else lua_pushnumber(L, f->d[(size_t)c.y * f->width + c.x]);
    return 1;
}

static int l_field_len(lua_State *L)
{
    lfield *f = check_field(L, 1);
    lua_pushinteger(L, (lua_Integer)f->width * f->height);
    return 1;
}

static int l_field_gc(lua_State *L)
{
    lfield *f = luaL_checkudata(L, 1, FIELD_MT);
    free(f->d);
    f->d = NULL;
    return 0;
}

static int l_field_tostring(lua_State *L)
{
    lfield *f = luaL_checkudata(L, 1, FIELD_MT);
    char buf[96];
    snprintf(buf, sizeof buf, "tycho.distance_field %dx%d @ %.3f m", f->width, f->height,
             f->resolution);
    lua_pushstring(L, buf);
    return 1;
}

static int l_field_index(lua_State *L)
{
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    if (!lua_isnil(L, -1)) return 1;
    lfield *f = check_field(L, 1);
    const char *k = lua_tostring(L, 2);
    if (!k) return 0;
    if (!strcmp(k, "width")) lua_pushinteger(L, f->width);
    else if (!strcmp(k, "height")) lua_pushinteger(L, f->height);
    else if (!strcmp(k, "resolution")) lua_pushnumber(L, f->resolution);
    else return 0;
    return 1;
}

static int l_ws_gc(lua_State *L)
{
    lworkspace *w = luaL_checkudata(L, 1, INFLATION_WS_MT);
    tycho_inflation_free(w->ws);
    tycho_edt_free(w->edt);
    w->ws = NULL;
    w->edt = NULL;
    return 0;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
-- inflation and distance fields
---@alias tycho.inflation_opts {inscribed_radius: number, inflation_radius: number, cost_scaling_factor?: number, inflate_unknown?: boolean, inflate_around_unknown?: boolean}
---@param o tycho.inflation_opts
---@return tycho.grid
function grid:inflate(o) end
---@param o tycho.inflation_opts
---@return tycho.grid dst
function grid:inflate_into(dst, o) end
---@param o? {threshold?: integer, unknown_blocked?: boolean, max_distance?: number}
---@return tycho.distance_field
function grid:distance_transform(o) end

---@class tycho.distance_field
local distance_field = {}
---@return number metres   math.huge when no obstacle is within max_distance
function distance_field:get(cx, cy) end
*/
// clang-format on

void tycho_l_open_inflation(lua_State *L, int module, int methods)
{
    (void)module;
    int top = lua_gettop(L);
    static const luaL_Reg field_methods[] = {{"get", l_field_get}, {NULL, NULL}};
    static const luaL_Reg field_meta[] = {{"__len", l_field_len}, {NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){FIELD_MT, field_methods, l_field_index, l_field_gc,
                                         l_field_tostring, field_meta});
    lua_pop(L, 1);

    /* one workspace per Lua state: after the first inflation of a given
     * size, later ones allocate nothing but their result */
    lworkspace *w = tycho_newuserdata(L, sizeof *w);
    w->ws = tycho_inflation_new();
    w->edt = tycho_edt_new();
    tycho_l_newclass(L, &(tycho_l_class){INFLATION_WS_MT, NULL, NULL, l_ws_gc, NULL, NULL});
    lua_setmetatable(L, -2);
    int ws = lua_gettop(L);
    static const luaL_Reg fns[] = {
        {"inflate", l_inflate},
        {"inflate_into", l_inflate_into},
        {"distance_transform", l_distance_transform},
        {NULL, NULL},
    };
    for (const luaL_Reg *r = fns; r->name; r++) {
        lua_pushvalue(L, ws);
        lua_pushcclosure(L, r->func, 1);
        lua_setfield(L, methods, r->name);
    }
    lua_settop(L, top);
    tycho_l_register_opts(L, &inflation_spec);
    tycho_l_register_opts(L, &inflate_into_spec);
    tycho_l_register_opts(L, &dt_spec);
}
