/* Lua bindings: rough ground (core terrain.h, lidar3d.h, roughness.h,
 * mecanum.h).
 *
 *   local hf = tycho.terrain.heightfield{width =, height =, resolution = 0.1, origin = {x =, y =}}
 *   hf:set(cx, cy, z)  hf:at(x, y)  hf:box(x0, y0, x1, y1, top)
 *   hf:roughness{class = "C" | gd_n0 =, w = 2, bands = 64, blur = 0, seed = 1}
 *   hf:stairs(x0, y0, y1, n, step_len, step_h)  hf:prisms(x0, y0, x1, y1, period, height)
 *   hf:bump(cx, y0, y1, r, base_h)  hf:bell(cx, cy, r, height)  hf:gravel(x0, y0, x1, y1, count,
 * size, height, seed) hf:sweep(robot, {lines = 16, range_max = 30, mount = {x, y, z, roll, pitch,
 * yaw}, self = {xmin, ..}})
 *       -> {x1, y1, z1, x2, ...} world points, and the beam count
 *   local map = tycho.terrain.map{width =, height =, resolution =, origin =}
 *   map:add(points | heightfield)  map:traversability{step_coef =, slope_coef =, barrier =, margin
 * =} map:traversable(cx, cy)  map:plane_fit(cx, cy [, radius]) -> slope, roughness | nil
 *   map:plan(sx, sy, gx, gy [, {slope_weight = 1, unknown_cost = -1, clearance_weight = 0,
 * roughness_weight = 0}]) -> {{cx, cy}, ...}, cost | nil, "no path" map:to_grid() -> occupancy grid
 * (free, lethal, inscribed barrier, unknown) map:blocked(cx, cy)  map:known(cx, cy)
 * map:first_blocked(path [, from]) -> index | nil hf:sweep(robot, opts, map) sweeps straight into a
 * map and returns the points added (opts.refresh: the sweep replaces what the map had in every cell
 * it hits) hf:copy()  hf:restore(src, x0, y0, x1, y1) (src's heights back over a rectangle)
 *   tycho.terrain.mecanum_inverse(vx, vy, wz [, {r =, l1 =, l2 =}]) -> w1, w2, w3, w4
 *   tycho.terrain.mecanum_forward(w1, w2, w3, w4 [, geometry]) -> vx, vy, wz */
#include "largs.h"
#include "tycho/lidar3d.h"
#include "tycho/mecanum.h"
#include "tycho/roughness.h"
#include "tycho/terrain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HF_MT "tycho.heightfield"
#define TMAP_MT "tycho.terrain_map"

typedef struct {
    tycho_heightfield *f;
} lhf;
typedef struct {
    tycho_terrain *t;
} lmap;

static tycho_heightfield *check_hf(lua_State *L)
{
    return TYCHO_L_CHECKBOX(L, 1, lhf, f, HF_MT, "height field has been freed")->f;
}

static tycho_terrain *check_map(lua_State *L)
{
    return TYCHO_L_CHECKBOX(L, 1, lmap, t, TMAP_MT, "terrain map has been freed")->t;
}

static const tycho_opt_field grid_fields[] = {TYCHO_OPT_INT_POS("width"),
                                              TYCHO_OPT_INT_POS("height"),
                                              TYCHO_OPT_NUM_POS("resolution"),
                                              TYCHO_OPT_TAB("origin"),
                                              {0}};
static const tycho_opt_spec heightfield_spec = {"terrain.heightfield", grid_fields};
static const tycho_opt_spec map_spec = {"terrain.map", grid_fields};
static const tycho_opt_field roughness_fields[] = {
    TYCHO_OPT_STR("class"), TYCHO_OPT_NUM("gd_n0"), TYCHO_OPT_NUM("w"),
    TYCHO_OPT_INT("bands"), TYCHO_OPT_NUM("blur"),  TYCHO_OPT_INT("seed"),
    TYCHO_OPT_NUM("n_min"), TYCHO_OPT_NUM("n_max"), {0}};
static const tycho_opt_spec roughness_spec = {"heightfield:roughness", roughness_fields};
static const tycho_opt_field sweep_fields[] = {TYCHO_OPT_INT("lines"),
                                               TYCHO_OPT_INT("columns"),
                                               TYCHO_OPT_NUM("range_max"),
                                               TYCHO_OPT_TAB("mount"),
                                               TYCHO_OPT_TAB("self"),
                                               TYCHO_OPT_BOOL("refresh"),
                                               {0}};
static const tycho_opt_spec sweep_spec = {"heightfield:sweep", sweep_fields};
static const tycho_opt_field trav_fields[] = {TYCHO_OPT_NUM("step_coef"),
                                              TYCHO_OPT_NUM("slope_coef"),
                                              TYCHO_OPT_NUM("barrier"),
                                              TYCHO_OPT_NUM("margin"),
                                              {0}};
static const tycho_opt_spec trav_spec = {"terrain_map:traversability", trav_fields};
static const tycho_opt_field tplan_fields[] = {TYCHO_OPT_NUM("slope_weight"),
                                               TYCHO_OPT_NUM("unknown_cost"),
                                               TYCHO_OPT_NUM("clearance_weight"),
                                               TYCHO_OPT_NUM("roughness_weight"),
                                               {0}};
static const tycho_opt_spec tplan_spec = {"terrain_map:plan", tplan_fields};

/* {width =, height =, resolution =, origin = {x =, y =}} at argument 1 */
static void grid_args(lua_State *L, const tycho_opt_spec *spec, int *w, int *h, double *res,
                      double *ox, double *oy)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    tycho_l_checkopts(L, 1, 1, spec);
    *w = (int)tycho_l_optfield_integer(L, 1, 1, "width", 0);
    *h = (int)tycho_l_optfield_integer(L, 1, 1, "height", 0);
    *res = tycho_l_optfield_number(L, 1, 1, "resolution", 0.1);
    *ox = *oy = 0;
    lua_getfield(L, 1, "origin");
    if (lua_istable(L, -1)) {
        *ox = field_xy(L, lua_gettop(L), 1, "x", 1, "origin");
        *oy = field_xy(L, lua_gettop(L), 1, "y", 2, "origin");
    }
    lua_pop(L, 1);
}

static int l_heightfield(lua_State *L)
{
    int w, h;
    double res, ox, oy;
    grid_args(L, &heightfield_spec, &w, &h, &res, &ox, &oy);
    lhf *b = tycho_newuserdata(L, sizeof *b);
    b->f = NULL;
    luaL_getmetatable(L, HF_MT);
    lua_setmetatable(L, -2);
    tycho_err err = {0};
    if (!(b->f = tycho_heightfield_new(w, h, res, ox, oy, &err)))
        return luaL_argerror(L, 1, err.msg);
    return 1;
}

static int l_hf_copy(lua_State *L)
{
    tycho_heightfield *f = check_hf(L);
    lhf *b = tycho_newuserdata(L, sizeof *b);
    b->f = NULL;
    luaL_getmetatable(L, HF_MT);
    lua_setmetatable(L, -2);
    tycho_err err = {0};
    if (!(b->f = tycho_heightfield_copy(f, &err))) return luaL_error(L, "%s", err.msg);
    return 1;
}

/* hf:restore(src, x0, y0, x1, y1): src's heights back over the rectangle */
static int l_hf_restore(lua_State *L)
{
    tycho_heightfield *f = check_hf(L);
    lhf *src = luaL_checkudata(L, 2, HF_MT);
    if (!src->f) return luaL_argerror(L, 2, "height field has been freed");
    if (!tycho_heightfield_restore(f, src->f, luaL_checknumber(L, 3), luaL_checknumber(L, 4),
                                   luaL_checknumber(L, 5), luaL_checknumber(L, 6)))
        return luaL_argerror(L, 2, "a height field of the same size expected");
    return 0;
}

static int l_hf_set(lua_State *L)
{
    tycho_heightfield_set(check_hf(L), (int)luaL_checkinteger(L, 2), (int)luaL_checkinteger(L, 3),
                          (float)luaL_checknumber(L, 4));
    return 0;
}

static int l_hf_at(lua_State *L)
{
    float z = tycho_heightfield_at(check_hf(L), luaL_checknumber(L, 2), luaL_checknumber(L, 3));
    if (isinf(z)) return 0;
    lua_pushnumber(L, z);
    return 1;
}

static int l_hf_box(lua_State *L)
{
    tycho_heightfield_box(check_hf(L), luaL_checknumber(L, 2), luaL_checknumber(L, 3),
                          luaL_checknumber(L, 4), luaL_checknumber(L, 5),
                          (float)luaL_checknumber(L, 6));
    return 0;
}

static int l_hf_roughness(lua_State *L)
{
    tycho_heightfield *f = check_hf(L);
    opt_table(L, 2);
    tycho_l_checkopts(L, 2, 2, &roughness_spec);
    tycho_roughness_params p;
    tycho_roughness_defaults(&p);
    tycho_err err = {0};
    if (lua_istable(L, 2)) {
        lua_getfield(L, 2, "class");
        if (!lua_isnil(L, -1)) {
            const char *c = lua_tostring(L, -1);
            if (!c || strlen(c) != 1 || tycho_roughness_class(c[0], &p.gd_n0, &err) != TYCHO_OK)
                return luaL_argerror(L, 2, "bad field 'class' (ISO 8608 class 'A'..'H' expected)");
        }
        lua_pop(L, 1);
    }
    p.gd_n0 = tycho_l_optfield_number(L, 2, 2, "gd_n0", p.gd_n0);
    p.w = tycho_l_optfield_number(L, 2, 2, "w", p.w);
    p.bands = (int)tycho_l_optfield_integer(L, 2, 2, "bands", p.bands);
    p.blur_sigma = tycho_l_optfield_number(L, 2, 2, "blur", p.blur_sigma);
    p.seed = (uint64_t)tycho_l_optfield_integer(L, 2, 2, "seed", 1);
    p.n_min = tycho_l_optfield_number(L, 2, 2, "n_min", 0);
    p.n_max = tycho_l_optfield_number(L, 2, 2, "n_max", 0);
    if (tycho_roughness_apply(f, &p, &err) != TYCHO_OK) return luaL_argerror(L, 2, err.msg);
    return 0;
}

static int l_hf_stairs(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 5);
    luaL_argcheck(L, n >= 1 && n <= 1000, 5, "1 to 1000 steps");
    tycho_ground_stairs(check_hf(L), luaL_checknumber(L, 2), luaL_checknumber(L, 3),
                        luaL_checknumber(L, 4), (int)n, luaL_checknumber(L, 6),
                        luaL_checknumber(L, 7));
    return 0;
}

static int l_hf_prisms(lua_State *L)
{
    double period = luaL_checknumber(L, 6);
    luaL_argcheck(L, period > 0, 6, "period must be > 0");
    tycho_ground_prisms(check_hf(L), luaL_checknumber(L, 2), luaL_checknumber(L, 3),
                        luaL_checknumber(L, 4), luaL_checknumber(L, 5), period,
                        luaL_checknumber(L, 7));
    return 0;
}

static int l_hf_bump(lua_State *L)
{
    tycho_ground_bump(check_hf(L), luaL_checknumber(L, 2), luaL_checknumber(L, 3),
                      luaL_checknumber(L, 4), luaL_checknumber(L, 5), luaL_checknumber(L, 6));
    return 0;
}

static int l_hf_bell(lua_State *L)
{
    tycho_ground_bell(check_hf(L), luaL_checknumber(L, 2), luaL_checknumber(L, 3),
                      luaL_checknumber(L, 4), luaL_checknumber(L, 5));
    return 0;
}

static int l_hf_gravel(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 6);
    luaL_argcheck(L, n >= 0 && n <= 1000000, 6, "0 to 1e6 stones");
    tycho_ground_gravel(check_hf(L), luaL_checknumber(L, 2), luaL_checknumber(L, 3),
                        luaL_checknumber(L, 4), luaL_checknumber(L, 5), (int)n,
                        luaL_checknumber(L, 7), luaL_checknumber(L, 8),
                        (uint64_t)luaL_optinteger(L, 9, 1));
    return 0;
}

static tycho_pose3 pose3(lua_State *L, int idx, int argn)
{
    tycho_pose3 p = {0, 0, 0, 0, 0, 0};
    if (lua_isnoneornil(L, idx)) return p;
    luaL_checktype(L, idx, LUA_TTABLE);
    p.x = tycho_l_optfield_number(L, idx, argn, "x", 0);
    p.y = tycho_l_optfield_number(L, idx, argn, "y", 0);
    p.z = tycho_l_optfield_number(L, idx, argn, "z", 0);
    p.roll = tycho_l_optfield_number(L, idx, argn, "roll", 0);
    p.pitch = tycho_l_optfield_number(L, idx, argn, "pitch", 0);
    p.yaw = tycho_l_optfield_number(L, idx, argn, "yaw", 0);
    return p;
}

static int l_hf_sweep(lua_State *L)
{
    tycho_heightfield *f = check_hf(L);
    tycho_pose3 robot = pose3(L, 2, 2);
    opt_table(L, 3);
    tycho_terrain *into = NULL;
    if (!lua_isnoneornil(L, 4)) {
        lmap *b = luaL_checkudata(L, 4, TMAP_MT);
        if (!(into = b->t)) luaL_argerror(L, 4, "terrain map has been freed");
    }
    tycho_l_checkopts(L, 3, 3, &sweep_spec);
    tycho_lidar3d_model m;
    tycho_err err = {0};
    if (tycho_lidar3d_preset(&m, (int)tycho_l_optfield_integer(L, 3, 3, "lines", 16), &err) !=
        TYCHO_OK)
        return luaL_argerror(L, 3, err.msg);
    m.columns = (int)tycho_l_optfield_integer(L, 3, 3, "columns", m.columns);
    m.range_max = tycho_l_optfield_number(L, 3, 3, "range_max", m.range_max);
    luaL_argcheck(L, m.columns >= 1 && m.columns <= 36000 && m.range_max > m.range_min, 3,
                  "columns 1..36000, range_max > 0.3");
    tycho_pose3 mount = {0, 0, 0, 0, 0, 0};
    tycho_box3 self, *selfp = NULL;
    if (lua_istable(L, 3)) {
        lua_getfield(L, 3, "mount");
        if (lua_istable(L, -1)) mount = pose3(L, lua_gettop(L), 3);
        lua_pop(L, 1);
        lua_getfield(L, 3, "self");
        if (lua_istable(L, -1)) {
            int t = lua_gettop(L);
            self = (tycho_box3){tycho_l_optfield_number(L, t, 3, "xmin", 0),
                                tycho_l_optfield_number(L, t, 3, "xmax", 0),
                                tycho_l_optfield_number(L, t, 3, "ymin", 0),
                                tycho_l_optfield_number(L, t, 3, "ymax", 0),
                                tycho_l_optfield_number(L, t, 3, "zmin", 0),
                                tycho_l_optfield_number(L, t, 3, "zmax", 0)};
            selfp = &self;
        }
        lua_pop(L, 1);
    }
    size_t beams = (size_t)m.lines * (size_t)m.columns;
    float *r = malloc(beams * sizeof *r);
    double *pts = malloc(beams * 3 * sizeof *pts);
    if (!r || !pts) {
        free(r);
        free(pts);
        return luaL_error(L, "out of memory");
    }
    int n = tycho_lidar3d_sweep(&m, f, robot, mount, selfp, r, pts, (int)beams);
    if (into) {
        /* straight into the map: no Lua table of tens of thousands of numbers */
        bool refresh = tycho_l_optfield_boolean(L, 3, 3, "refresh", false);
        lua_pushinteger(
            L, (lua_Integer)tycho_terrain_add_batch(into, pts, (size_t)(n > 0 ? n : 0), refresh));
    } else {
        lua_createtable(L, n * 3, 0);
        for (int i = 0; i < 3 * n; i++) {
            lua_pushnumber(L, pts[i]);
            lua_rawseti(L, -2, i + 1);
        }
    }
    free(r);
    free(pts);
    lua_pushinteger(L, (lua_Integer)beams);
    return 2;
}

static int l_hf_index(lua_State *L)
{
    tycho_heightfield *f = check_hf(L);
    const char *k = luaL_checkstring(L, 2);
    if (!strcmp(k, "width")) lua_pushinteger(L, f->w);
    else if (!strcmp(k, "height")) lua_pushinteger(L, f->h);
    else if (!strcmp(k, "resolution")) lua_pushnumber(L, f->res);
    else if (!strcmp(k, "zmax")) lua_pushnumber(L, f->zmax);
    else {
        lua_pushvalue(L, 2);
        lua_rawget(L, lua_upvalueindex(1));
    }
    return 1;
}

static int l_hf_gc(lua_State *L)
{
    lhf *b = luaL_checkudata(L, 1, HF_MT);
    tycho_heightfield_free(b->f);
    b->f = NULL;
    return 0;
}

static int l_hf_tostring(lua_State *L)
{
    tycho_heightfield *f = check_hf(L);
    lua_pushfstring(L, "tycho.heightfield %dx%d at %f m, highest %f m", f->w, f->h, f->res,
                    (double)f->zmax);
    return 1;
}

/* --- terrain map --- */

static int l_map(lua_State *L)
{
    int w, h;
    double res, ox, oy;
    grid_args(L, &map_spec, &w, &h, &res, &ox, &oy);
    lmap *b = tycho_newuserdata(L, sizeof *b);
    b->t = NULL;
    luaL_getmetatable(L, TMAP_MT);
    lua_setmetatable(L, -2);
    tycho_err err = {0};
    if (!(b->t = tycho_terrain_new(w, h, res, ox, oy, &err))) return luaL_argerror(L, 1, err.msg);
    return 1;
}

static int l_map_add(lua_State *L)
{
    tycho_terrain *t = check_map(L);
    tycho_heightfield *f = tycho_l_testheightfield(L, 2);
    if (f) {
        /* the whole field, one point per cell centre: ground truth */
        size_t used = 0;
        for (int cy = 0; cy < f->h; cy++)
            for (int cx = 0; cx < f->w; cx++) {
                double p[3] = {f->ox + (cx + 0.5) * f->res, f->oy + (cy + 0.5) * f->res,
                               f->z[(size_t)cy * f->w + cx]};
                used += tycho_terrain_add_points(t, p, 1);
            }
        lua_pushinteger(L, (lua_Integer)used);
        return 1;
    }
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t n = lua_rawlen(L, 2);
    luaL_argcheck(L, n % 3 == 0, 2, "a flat list of x, y, z triples expected");
    double *xyz = malloc((n ? n : 1) * sizeof *xyz);
    if (!xyz) return luaL_error(L, "out of memory");
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 2, (int)i + 1);
        xyz[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    size_t used = tycho_terrain_add_points(t, xyz, n / 3);
    free(xyz);
    lua_pushinteger(L, (lua_Integer)used);
    return 1;
}

static int l_map_trav(lua_State *L)
{
    tycho_terrain *t = check_map(L);
    opt_table(L, 2);
    tycho_l_checkopts(L, 2, 2, &trav_spec);
    tycho_trav_params p;
    tycho_trav_defaults(&p);
    p.step_coef = tycho_l_optfield_number(L, 2, 2, "step_coef", p.step_coef);
    p.slope_coef = tycho_l_optfield_number(L, 2, 2, "slope_coef", p.slope_coef);
    p.barrier = tycho_l_optfield_number(L, 2, 2, "barrier", p.barrier);
    p.margin = tycho_l_optfield_number(L, 2, 2, "margin", p.margin);
    tycho_err err = {0};
    if (tycho_terrain_traversability(t, &p, &err) != TYCHO_OK) return luaL_argerror(L, 2, err.msg);
    return 0;
}

static int l_map_traversable(lua_State *L)
{
    lua_pushboolean(L, tycho_terrain_traversable(check_map(L), (int)luaL_checkinteger(L, 2),
                                                 (int)luaL_checkinteger(L, 3)));
    return 1;
}

static int l_map_blocked(lua_State *L)
{
    lua_pushboolean(L, tycho_terrain_blocked(check_map(L), (int)luaL_checkinteger(L, 2),
                                             (int)luaL_checkinteger(L, 3)));
    return 1;
}

/* map:first_blocked(path [, from]) -> index of the first blocked cell at or
 * after `from` (default 1), or nil. path = {{cx, cy}, ...} */
static int l_map_first_blocked(lua_State *L)
{
    tycho_terrain *t = check_map(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = (lua_Integer)lua_rawlen(L, 2), from = luaL_optinteger(L, 3, 1);
    luaL_argcheck(L, from >= 1, 3, "index >= 1 expected");
    for (lua_Integer i = from; i <= n; i++) {
        lua_rawgeti(L, 2, i);
        if (!lua_istable(L, -1))
            return luaL_error(L, "bad argument #2 (path entry %d is not a {cx, cy} table)", (int)i);
        lua_rawgeti(L, -1, 1);
        lua_rawgeti(L, -2, 2);
        int cx = (int)lua_tointeger(L, -2), cy = (int)lua_tointeger(L, -1);
        lua_pop(L, 3);
        if (tycho_terrain_blocked(t, cx, cy)) {
            lua_pushinteger(L, i);
            return 1;
        }
    }
    return 0;
}

static int l_map_to_grid(lua_State *L)
{
    tycho_err err = {0};
    tycho_grid *g = tycho_terrain_to_grid(check_map(L), &err);
    if (!g) return luaL_error(L, "%s", err.msg);
    tycho_l_pushgrid(L, g);
    return 1;
}

static int l_map_known(lua_State *L)
{
    double lo, hi;
    int count = 0;
    bool in = tycho_terrain_cell(check_map(L), (int)luaL_checkinteger(L, 2),
                                 (int)luaL_checkinteger(L, 3), &lo, &hi, &count);
    lua_pushboolean(L, in && count > 0);
    return 1;
}

static int l_map_plane_fit(lua_State *L)
{
    double slope, rough;
    lua_Integer r = luaL_optinteger(L, 4, 1);
    luaL_argcheck(L, r >= 1 && r <= 16, 4, "radius 1..16 cells");
    if (!tycho_terrain_plane_fit(check_map(L), (int)luaL_checkinteger(L, 2),
                                 (int)luaL_checkinteger(L, 3), (int)r, &slope, &rough))
        return 0;
    lua_pushnumber(L, slope);
    lua_pushnumber(L, rough);
    return 2;
}

static int l_map_plan(lua_State *L)
{
    tycho_terrain *t = check_map(L);
    int sx = (int)luaL_checkinteger(L, 2), sy = (int)luaL_checkinteger(L, 3);
    int gx = (int)luaL_checkinteger(L, 4), gy = (int)luaL_checkinteger(L, 5);
    opt_table(L, 6);
    tycho_l_checkopts(L, 6, 6, &tplan_spec);
    tycho_terrain_plan_opts o;
    tycho_terrain_plan_defaults(&o);
    o.slope_weight = tycho_l_optfield_number(L, 6, 6, "slope_weight", o.slope_weight);
    o.unknown_cost = tycho_l_optfield_number(L, 6, 6, "unknown_cost", o.unknown_cost);
    o.clearance_weight = tycho_l_optfield_number(L, 6, 6, "clearance_weight", o.clearance_weight);
    o.roughness_weight = tycho_l_optfield_number(L, 6, 6, "roughness_weight", o.roughness_weight);
    luaL_argcheck(L,
                  o.slope_weight >= 0 && o.clearance_weight >= 0 && o.roughness_weight >= 0 &&
                      !isnan(o.unknown_cost),
                  6, "slope_weight, clearance_weight and roughness_weight >= 0 expected");
    tycho_path path;
    tycho_path_init(&path);
    tycho_err err = {0};
    tycho_status st =
        tycho_terrain_plan(t, (tycho_cell){sx, sy}, (tycho_cell){gx, gy}, &o, &path, &err);
    if (st == TYCHO_ENOMEM) {
        tycho_path_release(&path);
        return luaL_error(L, "%s", err.msg);
    }
    if (st != TYCHO_OK) {
        tycho_path_release(&path);
        lua_pushnil(L);
        lua_pushstring(L, o.unknown_cost >= 1 ? "no path over traversable or unknown cells"
                                              : "no path over traversable cells");
        return 2;
    }
    double cost = path.cost;
    lua_createtable(L, (int)path.count, 0);
    for (size_t i = 0; i < path.count; i++) {
        lua_createtable(L, 2, 0);
        lua_pushinteger(L, path.cells[i].x);
        lua_rawseti(L, -2, 1);
        lua_pushinteger(L, path.cells[i].y);
        lua_rawseti(L, -2, 2);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    tycho_path_release(&path);
    lua_pushnumber(L, cost);
    return 2;
}

static int l_map_gc(lua_State *L)
{
    lmap *b = luaL_checkudata(L, 1, TMAP_MT);
    tycho_terrain_free(b->t);
    b->t = NULL;
    return 0;
}

static int l_map_tostring(lua_State *L)
{
    tycho_terrain *t = check_map(L);
    lua_pushfstring(L, "tycho.terrain_map %dx%d", tycho_terrain_width(t), tycho_terrain_height(t));
    return 1;
}

/* --- mecanum --- */

static tycho_mecanum geometry(lua_State *L, int idx)
{
    tycho_mecanum m;
    tycho_mecanum_defaults(&m);
    m.r = tycho_l_optfield_number(L, idx, idx, "r", m.r);
    m.l1 = tycho_l_optfield_number(L, idx, idx, "l1", m.l1);
    m.l2 = tycho_l_optfield_number(L, idx, idx, "l2", m.l2);
    if (!(m.r > 0 && m.l1 > 0 && m.l2 > 0)) luaL_argerror(L, idx, "r, l1, l2 must be > 0");
    return m;
}

static int l_mecanum_inverse(lua_State *L)
{
    tycho_mecanum m = geometry(L, 4);
    double w[4];
    tycho_mecanum_inverse(&m, luaL_checknumber(L, 1), luaL_checknumber(L, 2),
                          luaL_checknumber(L, 3), w);
    for (int i = 0; i < 4; i++) lua_pushnumber(L, w[i]);
    return 4;
}

static int l_mecanum_forward(lua_State *L)
{
    tycho_mecanum m = geometry(L, 5);
    double w[4] = {luaL_checknumber(L, 1), luaL_checknumber(L, 2), luaL_checknumber(L, 3),
                   luaL_checknumber(L, 4)};
    double vx, vy, wz;
    tycho_mecanum_forward(&m, w, &vx, &vy, &wz);
    lua_pushnumber(L, vx);
    lua_pushnumber(L, vy);
    lua_pushnumber(L, wz);
    return 3;
}

tycho_heightfield *tycho_l_testheightfield(lua_State *L, int idx)
{
    lhf *b = luaL_testudata(L, idx, HF_MT);
    return b ? b->f : NULL;
}

tycho_terrain *tycho_l_testterrainmap(lua_State *L, int idx)
{
    lmap *b = luaL_testudata(L, idx, TMAP_MT);
    return b ? b->t : NULL;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
-- rough ground ---------------------------------------------------------------------------------

---@class tycho.heightfield
---@field width integer
---@field height integer
---@field resolution number
---@field zmax number
local heightfield = {}
---@class tycho.terrain_map
local terrain_map = {}
tycho.terrain = {}
---@param o {width: integer, height: integer, resolution?: number, origin?: tycho.xy}
---@return tycho.heightfield
function tycho.terrain.heightfield(o) end
---A 2.5D terrain map (min/max height per cell) with traversability.
---@param o {width: integer, height: integer, resolution?: number, origin?: tycho.xy}
---@return tycho.terrain_map
function tycho.terrain.map(o) end
---@return number w1, number w2, number w3, number w4
function tycho.terrain.mecanum_inverse(vx, vy, wz, geometry) end
---@return number vx, number vy, number wz
function tycho.terrain.mecanum_forward(w1, w2, w3, w4, geometry) end
function heightfield:set(cx, cy, z) end
---@return number|nil z
function heightfield:at(x, y) end
function heightfield:box(x0, y0, x1, y1, top) end
---@param o? {class?: string, gd_n0?: number, w?: number, bands?: integer, blur?: number, seed?: integer, n_min?: number, n_max?: number}
function heightfield:roughness(o) end
function heightfield:stairs(x0, y0, y1, n, step_len, step_h) end
function heightfield:prisms(x0, y0, x1, y1, period, height) end
function heightfield:bump(cx, y0, y1, r, base_h) end
function heightfield:bell(cx, cy, r, height) end
function heightfield:gravel(x0, y0, x1, y1, count, size, height, seed) end
---@return tycho.heightfield
function heightfield:copy() end
---Puts back src's heights over the cells whose centre is in the rectangle.
function heightfield:restore(src, x0, y0, x1, y1) end
---A 3D LiDAR sweep: world points as a flat list x, y, z, ..., and the beam count;
---with a terrain map as `into`, the points go straight into it and their count is returned instead.
---@param robot {x?: number, y?: number, z?: number, roll?: number, pitch?: number, yaw?: number}
---@param o? {lines?: 16|32|64, columns?: integer, range_max?: number, mount?: table, self?: table, refresh?: boolean}
---@param into? tycho.terrain_map
---@return number[]|integer points, integer beams
function heightfield:sweep(robot, o, into) end
---@param points number[]|tycho.heightfield  flat x, y, z triples, or a whole height field (one point per cell)
---@return integer added
function terrain_map:add(points) end
---Known untraversable, within the barrier of such a cell, or off the map.
---@return boolean
function terrain_map:blocked(cx, cy) end
---@return boolean
function terrain_map:known(cx, cy) end
---The terrain as an occupancy grid: traversable free, untraversable lethal, barrier inscribed, unseen unknown.
---@return tycho.grid
function terrain_map:to_grid() end
---Index of the first blocked cell of a path ({{cx, cy}, ...}) at or after `from`.
---@return integer|nil
function terrain_map:first_blocked(path, from) end
---@param o? {step_coef?: number, slope_coef?: number, barrier?: number, margin?: number}
function terrain_map:traversability(o) end
---@return boolean
function terrain_map:traversable(cx, cy) end
---@return number|nil slope, number roughness
function terrain_map:plane_fit(cx, cy, radius) end
---@param o? {slope_weight?: number, unknown_cost?: number, clearance_weight?: number, roughness_weight?: number}
---@return {[1]: integer, [2]: integer}[]|nil path, number|string cost_or_reason
function terrain_map:plan(sx, sy, gx, gy, o) end
*/
// clang-format on

void tycho_l_open_terrain(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg hf[] = {{"set", l_hf_set},
                                  {"at", l_hf_at},
                                  {"box", l_hf_box},
                                  {"roughness", l_hf_roughness},
                                  {"stairs", l_hf_stairs},
                                  {"prisms", l_hf_prisms},
                                  {"bump", l_hf_bump},
                                  {"bell", l_hf_bell},
                                  {"gravel", l_hf_gravel},
                                  {"sweep", l_hf_sweep},
                                  {"copy", l_hf_copy},
                                  {"restore", l_hf_restore},
                                  {NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){HF_MT, hf, l_hf_index, l_hf_gc, l_hf_tostring, NULL});
    lua_pop(L, 1);
    static const luaL_Reg mp[] = {{"add", l_map_add},
                                  {"traversability", l_map_trav},
                                  {"traversable", l_map_traversable},
                                  {"plane_fit", l_map_plane_fit},
                                  {"plan", l_map_plan},
                                  {"blocked", l_map_blocked},
                                  {"first_blocked", l_map_first_blocked},
                                  {"known", l_map_known},
                                  {"to_grid", l_map_to_grid},
                                  {NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){TMAP_MT, mp, NULL, l_map_gc, l_map_tostring, NULL});
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {{"heightfield", l_heightfield},
                                   {"map", l_map},
                                   {"mecanum_inverse", l_mecanum_inverse},
                                   {"mecanum_forward", l_mecanum_forward},
                                   {NULL, NULL}};
    lua_newtable(L);
    luaL_setfuncs(L, fns, 0);
    tycho_l_terrain_robot_funcs(L, lua_gettop(L));
    lua_setfield(L, module, "terrain");
    tycho_l_register_opts(L, &heightfield_spec);
    tycho_l_register_opts(L, &map_spec);
    tycho_l_register_opts(L, &roughness_spec);
    tycho_l_register_opts(L, &sweep_spec);
    tycho_l_register_opts(L, &trav_spec);
    tycho_l_register_opts(L, &tplan_spec);
}
