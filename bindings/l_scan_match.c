/* Lua bindings: scan-to-map matching (core/scan_match.c).
 *
 *   tycho.scan_matcher([{window_xy=, window_yaw=, step_yaw=, beam_stride=,
 *                        refine_steps=, min_score=, degenerate_ratio=, prior_xy=,
 *                        prior_yaw=, plateau_centre=, plateau_tol=}]) -> matcher
 *   matcher:set_map(grid [, {occupied = 200, sigma = 0.05}])
 *   matcher:match(scan, {x=, y=, yaw=}) -> {x, y, yaw, score, guess_score, beams,
 *                                          ok, degenerate, info_min, info_max}
 *
 * Unknown option keys are errors (a typo must not pass silently). */
#include "largs.h"
#include "tycho/scan_match.h"

#define MATCHER_MT "tycho.scan_matcher"

typedef struct {
    tycho_matcher *m;
    tycho_match_params p;
} lmatcher;

static lmatcher *check_matcher(lua_State *L, int idx)
{
    return TYCHO_L_CHECKBOX(L, idx, lmatcher, m, MATCHER_MT, "matcher has been freed");
}

static const tycho_opt_field matcher_fields[] = {
    TYCHO_OPT_NUM("window_xy"),        TYCHO_OPT_NUM("window_yaw"),   TYCHO_OPT_NUM("step_yaw"),
    TYCHO_OPT_INT("beam_stride"),      TYCHO_OPT_INT("refine_steps"), TYCHO_OPT_NUM("min_score"),
    TYCHO_OPT_NUM("degenerate_ratio"), TYCHO_OPT_NUM("prior_xy"),     TYCHO_OPT_NUM("prior_yaw"),
    TYCHO_OPT_BOOL("plateau_centre"),  TYCHO_OPT_NUM("plateau_tol"),  {0}};
static const tycho_opt_spec matcher_spec = {"scan_matcher", matcher_fields};

static int l_new(lua_State *L)
{
    opt_table(L, 1);
    tycho_l_checkopts(L, 1, 1, &matcher_spec);
    lmatcher *b = tycho_newuserdata(L, sizeof *b);
    b->m = NULL;
    luaL_getmetatable(L, MATCHER_MT);
    lua_setmetatable(L, -2);
    tycho_match_params *p = &b->p;
    tycho_match_params_defaults(p);
    p->window_xy = tycho_l_optfield_number(L, 1, 1, "window_xy", p->window_xy);
    p->window_yaw = tycho_l_optfield_number(L, 1, 1, "window_yaw", p->window_yaw);
    p->step_yaw = tycho_l_optfield_number(L, 1, 1, "step_yaw", p->step_yaw);
    p->beam_stride = (int)tycho_l_optfield_integer(L, 1, 1, "beam_stride", p->beam_stride);
    p->refine_steps = (int)tycho_l_optfield_integer(L, 1, 1, "refine_steps", p->refine_steps);
    p->min_score = tycho_l_optfield_number(L, 1, 1, "min_score", p->min_score);
    p->degenerate_ratio = tycho_l_optfield_number(L, 1, 1, "degenerate_ratio", p->degenerate_ratio);
    p->prior_xy = tycho_l_optfield_number(L, 1, 1, "prior_xy", p->prior_xy);
    p->prior_yaw = tycho_l_optfield_number(L, 1, 1, "prior_yaw", p->prior_yaw);
    p->plateau_centre = tycho_l_optfield_boolean(L, 1, 1, "plateau_centre", p->plateau_centre);
    p->plateau_tol = tycho_l_optfield_number(L, 1, 1, "plateau_tol", p->plateau_tol);
    luaL_argcheck(L, p->plateau_tol >= 0 && p->plateau_tol <= 1, 1,
                  "plateau_tol must be in [0, 1]");
    luaL_argcheck(L, p->prior_xy >= 0 && p->prior_xy <= 100, 1, "prior_xy must be in [0, 100]");
    luaL_argcheck(L, p->prior_yaw >= 0 && p->prior_yaw <= 100, 1, "prior_yaw must be in [0, 100]");
    luaL_argcheck(L, p->window_xy >= 0 && p->window_xy <= 5, 1, "window_xy must be in [0, 5] m");
    luaL_argcheck(L, p->window_yaw >= 0 && p->window_yaw <= M_PI, 1,
                  "window_yaw must be in [0, pi] rad");
    luaL_argcheck(L, p->step_yaw >= 1e-4 && p->step_yaw <= 0.5, 1,
                  "step_yaw must be in [1e-4, 0.5] rad");
    luaL_argcheck(L, p->beam_stride >= 1 && p->beam_stride <= 100, 1,
                  "beam_stride must be in 1..100");
    luaL_argcheck(L, p->refine_steps >= 0 && p->refine_steps <= 100, 1,
                  "refine_steps must be in 0..100");
    luaL_argcheck(L, p->min_score >= 0 && p->min_score <= 1, 1, "min_score must be in [0, 1]");
    luaL_argcheck(L, p->degenerate_ratio >= 0 && p->degenerate_ratio <= 1, 1,
                  "degenerate_ratio must be in [0, 1]");
    b->m = tycho_matcher_new();
    if (!b->m) return luaL_error(L, "out of memory for a scan matcher");
    return 1;
}

static const tycho_opt_field map_fields[] = {
    TYCHO_OPT_INT_IN("occupied", 1, 255), TYCHO_OPT_NUM_POS("sigma"), {0}};
static const tycho_opt_spec set_map_spec = {"scan_matcher:set_map", map_fields};

static int l_set_map(lua_State *L)
{
    lmatcher *b = check_matcher(L, 1);
    tycho_grid *g = tycho_l_checkgrid(L, 2);
    opt_table(L, 3);
    tycho_l_checkopts(L, 3, 3, &set_map_spec);
    int occupied = (int)tycho_l_optfield_integer(L, 3, 3, "occupied", 200);
    double sigma = tycho_l_optfield_number(L, 3, 3, "sigma", 0.05);
    tycho_err err = {0};
    if (tycho_matcher_set_map(b->m, g, occupied, sigma, &err) != TYCHO_OK) {
        if (err.code == TYCHO_EINVAL) return luaL_argerror(L, 3, err.msg);
        return tycho_l_error(L, &err);
    }
    return 0;
}

static int l_match(lua_State *L)
{
    lmatcher *b = check_matcher(L, 1);
    /* a tycho.scan: its tycho_scan is the userdata's first member */
    const tycho_scan *s = luaL_checkudata(L, 2, "tycho.scan");
    if (!s->ranges) return luaL_argerror(L, 2, "scan has been freed");
    tycho_pose2 guess = check_pose(L, 3);
    tycho_match_result r;
    tycho_err err = {0};
    if (tycho_matcher_match(b->m, s, guess, &b->p, &r, &err) != TYCHO_OK)
        return tycho_l_error(L, &err);
    lua_createtable(L, 0, 10);
    set_num(L, "x", r.pose.x);
    set_num(L, "y", r.pose.y);
    set_num(L, "yaw", r.pose.yaw);
    set_num(L, "score", r.score);
    set_num(L, "guess_score", r.guess_score);
    set_int(L, "beams", r.beams);
    set_bool(L, "ok", r.ok);
    set_bool(L, "degenerate", r.degenerate);
    set_num(L, "info_min", r.info_min);
    set_num(L, "info_max", r.info_max);
    return 1;
}

static int l_gc(lua_State *L)
{
    lmatcher *b = luaL_checkudata(L, 1, MATCHER_MT);
    tycho_matcher_free(b->m);
    b->m = NULL;
    return 0;
}

static int l_tostring(lua_State *L)
{
    lmatcher *b = luaL_checkudata(L, 1, MATCHER_MT);
    lua_pushfstring(L, "tycho.scan_matcher (window %f m, %f deg)%s", b->p.window_xy,
                    b->p.window_yaw * 180.0 / M_PI, b->m ? "" : " (freed)");
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---@class tycho.scan_matcher
local scan_matcher = {}
---Scan-to-map matcher (core/scan_match.c): correlative search + the
---likelihood field of the map's occupied cells. Options: window_xy (m),
---window_yaw, step_yaw (rad), beam_stride, refine_steps, min_score,
---degenerate_ratio, prior_xy, prior_yaw, plateau_centre (bool: of the poses
---within plateau_tol of the best score take their centroid, not the one nearest
---the guess), plateau_tol; unknown keys are errors.
---@param opts? {window_xy?: number, window_yaw?: number, step_yaw?: number, beam_stride?: integer, refine_steps?: integer, min_score?: number, degenerate_ratio?: number, prior_xy?: number, prior_yaw?: number, plateau_centre?: boolean, plateau_tol?: number}
---@return tycho.scan_matcher
function tycho.scan_matcher(opts) end
---The map to match against: cells with cost >= occupied (default 200) are walls;
---sigma (m, default 0.05) is the likelihood field's width.
---@param grid tycho.grid
---@param opts? {occupied?: integer, sigma?: number}
function scan_matcher:set_map(grid, opts) end
---@param scan tycho.scan
---@param guess table {x=, y=, yaw=} the LiDAR's pose from odometry
---@return table result {x, y, yaw, score, guess_score, beams, ok, degenerate, info_min, info_max}
function scan_matcher:match(scan, guess) end
*/
// clang-format on

void tycho_l_open_scan_match(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg fns[] = {{"set_map", l_set_map}, {"match", l_match}, {NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){MATCHER_MT, fns, NULL, l_gc, l_tostring, NULL});
    lua_pop(L, 1); /* __index: the methods */
    lua_pushcfunction(L, l_new);
    lua_setfield(L, module, "scan_matcher");
    tycho_l_register_opts(L, &matcher_spec);
    tycho_l_register_opts(L, &set_map_spec);
}
