/* Lua bindings: mean hits per cell and point-to-line refinement
 * (core/pointmap.c).
 *
 *   tycho.pointmap([{resolution = 0.05}]) -> pm
 *   pm:add_scan(scan, {x=, y=, yaw=})
 *   pm:refine(scan, guess [, {iterations=, max_dist=, huber=, max_shift=, max_turn=,
 *                             min_pairs=, min_hits=, max_planarity=}])
 *       -> {x, y, yaw, ok, pairs, rms, info_min, info_max}
 *   pm:mean_at(x, y) -> mx, my | nil
 *   pm:cells() -> cells holding a hit */
#include "largs.h"
#include "tycho/pointmap.h"

#define POINTMAP_MT "tycho.pointmap"

typedef struct {
    tycho_pointmap *pm;
} lpointmap;

static lpointmap *check_pm(lua_State *L, int idx)
{
    return TYCHO_L_CHECKBOX(L, idx, lpointmap, pm, POINTMAP_MT, "pointmap has been freed");
}

static const tycho_opt_field new_fields[] = {TYCHO_OPT_NUM_POS("resolution"), {0}};
static const tycho_opt_spec new_spec = {"pointmap", new_fields};

static int l_new(lua_State *L)
{
    opt_table(L, 1);
    tycho_l_checkopts(L, 1, 1, &new_spec);
    double res = tycho_l_optfield_number(L, 1, 1, "resolution", 0.05);
    luaL_argcheck(L, res >= 1e-3 && res <= 10, 1, "resolution must be in [0.001, 10] m");
    lpointmap *b = tycho_newuserdata(L, sizeof *b);
    b->pm = NULL;
    luaL_getmetatable(L, POINTMAP_MT);
    lua_setmetatable(L, -2);
    b->pm = tycho_pointmap_new(res);
    if (!b->pm) return luaL_error(L, "out of memory for a point map");
    return 1;
}

static int l_add_scan(lua_State *L)
{
    lpointmap *b = check_pm(L, 1);
    const tycho_scan *s = tycho_l_checkscan(L, 2);
    tycho_pose2 pose = check_pose(L, 3);
    tycho_err err = {0};
    if (tycho_pointmap_add_scan(b->pm, s, pose, &err) != TYCHO_OK) {
        if (err.code == TYCHO_EINVAL || err.code == TYCHO_ERANGE)
            return luaL_argerror(L, 3, err.msg);
        return tycho_l_error(L, &err);
    }
    return 0;
}

static const tycho_opt_field refine_fields[] = {TYCHO_OPT_INT_IN("iterations", 1, 100),
                                                TYCHO_OPT_NUM_POS("max_dist"),
                                                TYCHO_OPT_NUM_POS("huber"),
                                                TYCHO_OPT_NUM_NONNEG("max_shift"),
                                                TYCHO_OPT_NUM_NONNEG("max_turn"),
                                                TYCHO_OPT_INT_NONNEG("min_pairs"),
                                                TYCHO_OPT_INT_IN("min_hits", 1, 1000),
                                                TYCHO_OPT_NUM_IN("max_planarity", 0, 1),
                                                {0}};
static const tycho_opt_spec refine_spec = {"pointmap:refine", refine_fields};

static int l_refine(lua_State *L)
{
    lpointmap *b = check_pm(L, 1);
    const tycho_scan *s = tycho_l_checkscan(L, 2);
    tycho_pose2 guess = check_pose(L, 3);
    opt_table(L, 4);
    tycho_l_checkopts(L, 4, 4, &refine_spec);
    tycho_refine_params p;
    tycho_refine_params_defaults(&p);
    p.iterations = (int)tycho_l_optfield_integer(L, 4, 4, "iterations", p.iterations);
    p.max_dist = tycho_l_optfield_number(L, 4, 4, "max_dist", p.max_dist);
    p.huber = tycho_l_optfield_number(L, 4, 4, "huber", p.huber);
    p.max_shift = tycho_l_optfield_number(L, 4, 4, "max_shift", p.max_shift);
    p.max_turn = tycho_l_optfield_number(L, 4, 4, "max_turn", p.max_turn);
    p.min_pairs = (int)tycho_l_optfield_integer(L, 4, 4, "min_pairs", p.min_pairs);
    p.min_hits = (int)tycho_l_optfield_integer(L, 4, 4, "min_hits", p.min_hits);
    p.max_planarity = tycho_l_optfield_number(L, 4, 4, "max_planarity", p.max_planarity);
    tycho_refine_result r;
    tycho_err err = {0};
    if (tycho_pointmap_refine(b->pm, s, guess, &p, &r, &err) != TYCHO_OK)
        return luaL_argerror(L, 4, err.msg);
    lua_createtable(L, 0, 8);
    set_num(L, "x", r.pose.x);
    set_num(L, "y", r.pose.y);
    set_num(L, "yaw", r.pose.yaw);
    set_bool(L, "ok", r.ok);
    set_int(L, "pairs", r.pairs);
    set_num(L, "rms", r.rms);
    set_num(L, "info_min", r.info_min);
    set_num(L, "info_max", r.info_max);
    return 1;
}

static int l_mean_at(lua_State *L)
{
    lpointmap *b = check_pm(L, 1);
    double x = luaL_checknumber(L, 2), y = luaL_checknumber(L, 3), mx, my;
    if (!tycho_pointmap_mean_at(b->pm, x, y, &mx, &my)) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushnumber(L, mx);
    lua_pushnumber(L, my);
    return 2;
}

static int l_cells(lua_State *L)
{
    lpointmap *b = check_pm(L, 1);
    lua_pushinteger(L, (lua_Integer)tycho_pointmap_cells(b->pm));
    return 1;
}

static int l_gc(lua_State *L)
{
    lpointmap *b = luaL_checkudata(L, 1, POINTMAP_MT);
    tycho_pointmap_free(b->pm);
    b->pm = NULL;
    return 0;
}

static int l_tostring(lua_State *L)
{
    lpointmap *b = luaL_checkudata(L, 1, POINTMAP_MT);
    if (!b->pm) lua_pushstring(L, "tycho.pointmap (freed)");
    else
        lua_pushfstring(L, "tycho.pointmap (%d cells with hits)", (int)tycho_pointmap_cells(b->pm));
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---@class tycho.pointmap
local pointmap = {}
---The mean of the LiDAR hits in each cell of a world-aligned grid (core/pointmap.c):
---where the walls are, finer than a cell. Option: resolution (m, default 0.05).
---@param opts? {resolution?: number}
---@return tycho.pointmap
function tycho.pointmap(opts) end
---Adds the hits of a scan taken from the LiDAR pose `pose` (world frame).
---@param scan tycho.scan
---@param pose table {x=, y=, yaw=}
function pointmap:add_scan(scan, pose) end
---Point-to-line refinement of the scan's pose against the means (Gauss-Newton,
---Huber-weighted): each end point is pulled onto the wall line through the nearest
---mean. `ok` is false (and x, y, yaw the guess) with fewer than min_pairs pairs or a
---move beyond max_shift / max_turn. info_min/info_max: the translation information's
---eigenvalues (about how many beams pin each direction); a direction no wall fixes
---keeps the guess.
---@param scan tycho.scan
---@param guess table {x=, y=, yaw=}
---@param opts? {iterations?: integer, max_dist?: number, huber?: number, max_shift?: number, max_turn?: number, min_pairs?: integer, min_hits?: integer, max_planarity?: number}
---@return table result {x, y, yaw, ok, pairs, rms, info_min, info_max}
function pointmap:refine(scan, guess, opts) end
---The mean hit of the cell containing (x, y), or nil when it has none.
---@param x number
---@param y number
---@return number|nil mx
---@return number|nil my
function pointmap:mean_at(x, y) end
---Cells holding at least one hit.
---@return integer
function pointmap:cells() end
*/
// clang-format on

void tycho_l_open_pointmap(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg fns[] = {{"add_scan", l_add_scan},
                                   {"refine", l_refine},
                                   {"mean_at", l_mean_at},
                                   {"cells", l_cells},
                                   {NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){POINTMAP_MT, fns, NULL, l_gc, l_tostring, NULL});
    lua_pop(L, 1);
    lua_pushcfunction(L, l_new);
    lua_setfield(L, module, "pointmap");
    tycho_l_register_opts(L, &new_spec);
    tycho_l_register_opts(L, &refine_spec);
}
