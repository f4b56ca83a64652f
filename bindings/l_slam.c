/* Lua bindings: SLAM with submaps and loop closure (core/slam.c).
 *
 *   tycho.slam.new([{resolution=, sigma=, submap_scans=, field_every=, window_xy=, window_yaw=,
 *                    loop_closure=, loop_window_xy=, loop_window_yaw=, loop_min_score=,
 *                    loop_radius=, loop_every=, loop_matches_per_scan=,
 *                    loop_min_separation=, optimize_every=, edge_sigma_xy=,
 *                    edge_sigma_yaw=, loop_sigma_xy=, loop_sigma_yaw=, huber=}]) -> slam
 *   slam:add_scan(scan, {x=, y=, yaw=}) -> {x, y, yaw, matched, degenerate, still, score,
 * loop_closures} slam:pose() -> x, y, yaw          the latest scan's corrected pose slam:correct(x,
 * y, yaw) -> x, y, yaw   an odometry pose taken since, corrected slam:map() -> grid every scan
 * re-rendered at its optimised pose slam:finish()                     the loop search for every
 * queued scan, then optimise slam:trajectory() -> {{x, y, yaw}, ...}   every scan's optimised pose
 *   slam:stats() -> {nodes, submaps, scans_matched, loop_closures, ...}
 *
 * Angles in radians. Unknown option keys are errors. */
#include "largs.h"
#include "tycho/slam.h"

#define SLAM_MT "tycho.slam"

typedef struct {
    tycho_slam *s;
} lslam;

static lslam *check_slam(lua_State *L, int idx)
{
    return TYCHO_L_CHECKBOX(L, idx, lslam, s, SLAM_MT, "slam has been freed");
}

static const tycho_opt_field slam_fields[] = {TYCHO_OPT_NUM("resolution"),
                                              TYCHO_OPT_NUM("sigma"),
                                              TYCHO_OPT_INT("submap_scans"),
                                              TYCHO_OPT_INT("field_every"),
                                              TYCHO_OPT_NUM("window_xy"),
                                              TYCHO_OPT_NUM("window_yaw"),
                                              TYCHO_OPT_NUM("wide_window_xy"),
                                              TYCHO_OPT_NUM("wide_window_yaw"),
                                              TYCHO_OPT_BOOL("loop_closure"),
                                              TYCHO_OPT_NUM("loop_window_xy"),
                                              TYCHO_OPT_NUM("loop_window_yaw"),
                                              TYCHO_OPT_NUM("loop_min_score"),
                                              TYCHO_OPT_NUM("loop_max_rms"),
                                              TYCHO_OPT_NUM("loop_max_shift"),
                                              TYCHO_OPT_NUM("loop_pin_beams"),
                                              TYCHO_OPT_NUM("loop_radius"),
                                              TYCHO_OPT_INT("loop_every"),
                                              TYCHO_OPT_INT("loop_candidates"),
                                              TYCHO_OPT_INT("loop_queue_max"),
                                              TYCHO_OPT_INT("loop_matches_per_scan"),
                                              TYCHO_OPT_INT("loop_min_separation"),
                                              TYCHO_OPT_INT("optimize_every"),
                                              TYCHO_OPT_NUM("edge_sigma_xy"),
                                              TYCHO_OPT_NUM("edge_sigma_yaw"),
                                              TYCHO_OPT_NUM("loop_sigma_xy"),
                                              TYCHO_OPT_NUM("loop_sigma_yaw"),
                                              TYCHO_OPT_NUM("huber"),
                                              TYCHO_OPT_NUM("prior_xy"),
                                              TYCHO_OPT_NUM("prior_yaw"),
                                              TYCHO_OPT_INT("refine_steps"),
                                              TYCHO_OPT_NUM("loop_reject"),
                                              TYCHO_OPT_INT("optimize_lag"),
                                              TYCHO_OPT_NUM("prior_per_m"),
                                              TYCHO_OPT_NUM("prior_per_rad"),
                                              TYCHO_OPT_INT("loop_closures_per_node"),
                                              TYCHO_OPT_BOOL("refine"),
                                              {0}};
static const tycho_opt_spec slam_spec = {"slam.new", slam_fields};

static int l_new(lua_State *L)
{
    opt_table(L, 1);
    tycho_l_checkopts(L, 1, 1, &slam_spec);
    tycho_slam_params p;
    tycho_slam_params_defaults(&p);
    p.resolution = tycho_l_optfield_number(L, 1, 1, "resolution", p.resolution);
    p.sigma = tycho_l_optfield_number(L, 1, 1, "sigma", p.sigma);
    p.submap_scans = (int)tycho_l_optfield_integer(L, 1, 1, "submap_scans", p.submap_scans);
    p.field_every = (int)tycho_l_optfield_integer(L, 1, 1, "field_every", p.field_every);
    p.local.window_xy = tycho_l_optfield_number(L, 1, 1, "window_xy", p.local.window_xy);
    p.local.window_yaw = tycho_l_optfield_number(L, 1, 1, "window_yaw", p.local.window_yaw);
    p.wide_window_xy = tycho_l_optfield_number(L, 1, 1, "wide_window_xy", p.wide_window_xy);
    p.wide_window_yaw = tycho_l_optfield_number(L, 1, 1, "wide_window_yaw", p.wide_window_yaw);
    p.loop_closure = tycho_l_optfield_boolean(L, 1, 1, "loop_closure", p.loop_closure);
    p.refine = tycho_l_optfield_boolean(L, 1, 1, "refine", p.refine);
    p.loop_window_xy = tycho_l_optfield_number(L, 1, 1, "loop_window_xy", p.loop_window_xy);
    p.loop_window_yaw = tycho_l_optfield_number(L, 1, 1, "loop_window_yaw", p.loop_window_yaw);
    p.loop_min_score = tycho_l_optfield_number(L, 1, 1, "loop_min_score", p.loop_min_score);
    p.loop_max_rms = tycho_l_optfield_number(L, 1, 1, "loop_max_rms", p.loop_max_rms);
    p.loop_max_shift = tycho_l_optfield_number(L, 1, 1, "loop_max_shift", p.loop_max_shift);
    p.loop_pin_beams = tycho_l_optfield_number(L, 1, 1, "loop_pin_beams", p.loop_pin_beams);
    p.loop_radius = tycho_l_optfield_number(L, 1, 1, "loop_radius", p.loop_radius);
    p.loop_every = (int)tycho_l_optfield_integer(L, 1, 1, "loop_every", p.loop_every);
    p.loop_candidates =
        (int)tycho_l_optfield_integer(L, 1, 1, "loop_candidates", p.loop_candidates);
    p.loop_queue_max = (int)tycho_l_optfield_integer(L, 1, 1, "loop_queue_max", p.loop_queue_max);
    p.loop_matches_per_scan =
        (int)tycho_l_optfield_integer(L, 1, 1, "loop_matches_per_scan", p.loop_matches_per_scan);
    p.loop_min_separation =
        (int)tycho_l_optfield_integer(L, 1, 1, "loop_min_separation", p.loop_min_separation);
    p.optimize_every = (int)tycho_l_optfield_integer(L, 1, 1, "optimize_every", p.optimize_every);
    p.edge_sigma_xy = tycho_l_optfield_number(L, 1, 1, "edge_sigma_xy", p.edge_sigma_xy);
    p.edge_sigma_yaw = tycho_l_optfield_number(L, 1, 1, "edge_sigma_yaw", p.edge_sigma_yaw);
    p.loop_sigma_xy = tycho_l_optfield_number(L, 1, 1, "loop_sigma_xy", p.loop_sigma_xy);
    p.loop_sigma_yaw = tycho_l_optfield_number(L, 1, 1, "loop_sigma_yaw", p.loop_sigma_yaw);
    p.huber = tycho_l_optfield_number(L, 1, 1, "huber", p.huber);
    p.local.prior_xy = tycho_l_optfield_number(L, 1, 1, "prior_xy", p.local.prior_xy);
    p.local.prior_yaw = tycho_l_optfield_number(L, 1, 1, "prior_yaw", p.local.prior_yaw);
    p.loop_closures_per_node =
        (int)tycho_l_optfield_integer(L, 1, 1, "loop_closures_per_node", p.loop_closures_per_node);
    p.prior_per_m = tycho_l_optfield_number(L, 1, 1, "prior_per_m", p.prior_per_m);
    p.prior_per_rad = tycho_l_optfield_number(L, 1, 1, "prior_per_rad", p.prior_per_rad);
    p.optimize_lag = (int)tycho_l_optfield_integer(L, 1, 1, "optimize_lag", p.optimize_lag);
    p.loop_reject = tycho_l_optfield_number(L, 1, 1, "loop_reject", p.loop_reject);
    p.local.refine_steps =
        (int)tycho_l_optfield_integer(L, 1, 1, "refine_steps", p.local.refine_steps);
    tycho_err err = {0};
    if (tycho_slam_params_validate(&p, &err) != TYCHO_OK) return luaL_argerror(L, 1, err.msg);
    lslam *b = tycho_newuserdata(L, sizeof *b);
    b->s = NULL;
    luaL_getmetatable(L, SLAM_MT);
    lua_setmetatable(L, -2);
    b->s = tycho_slam_new(&p, &err);
    if (!b->s) return tycho_l_error(L, &err);
    return 1;
}

static void push_pose(lua_State *L, tycho_pose2 p)
{
    lua_pushnumber(L, p.x);
    lua_pushnumber(L, p.y);
    lua_pushnumber(L, p.yaw);
}

static int l_add_scan(lua_State *L)
{
    lslam *b = check_slam(L, 1);
    /* a tycho.scan: its tycho_scan is the userdata's first member */
    const tycho_scan *scan = luaL_checkudata(L, 2, "tycho.scan");
    if (!scan->ranges) return luaL_argerror(L, 2, "scan has been freed");
    tycho_pose2 odom = check_pose(L, 3);
    tycho_slam_step st;
    tycho_err err = {0};
    if (tycho_slam_add_scan(b->s, scan, odom, &st, &err) != TYCHO_OK) {
        if (err.code == TYCHO_EINVAL) return luaL_argerror(L, 3, err.msg);
        return tycho_l_error(L, &err);
    }
    lua_createtable(L, 0, 7);
    set_num(L, "x", st.pose.x);
    set_num(L, "y", st.pose.y);
    set_num(L, "yaw", st.pose.yaw);
    set_bool(L, "matched", st.matched);
    set_bool(L, "degenerate", st.degenerate);
    set_bool(L, "still", st.still);
    set_num(L, "score", st.score);
    set_int(L, "loop_closures", st.loop_closures);
    if (!isnan(st.sigma_xy)) set_num(L, "sigma_xy", st.sigma_xy);
    if (!isnan(st.sigma_yaw)) set_num(L, "sigma_yaw", st.sigma_yaw);
    return 1;
}

static int l_pose(lua_State *L)
{
    push_pose(L, tycho_slam_pose(check_slam(L, 1)->s));
    return 3;
}

static int l_correct(lua_State *L)
{
    lslam *b = check_slam(L, 1);
    tycho_pose2 o = {luaL_checknumber(L, 2), luaL_checknumber(L, 3), luaL_checknumber(L, 4)};
    luaL_argcheck(L, isfinite(o.x) && isfinite(o.y) && isfinite(o.yaw), 2, "pose must be finite");
    push_pose(L, tycho_slam_correct(b->s, o));
    return 3;
}

static const tycho_opt_field map_fields[] = {TYCHO_OPT_NUM("resolution"), {0}};
static const tycho_opt_spec map_spec = {"slam:map", map_fields};

/* slam:map([{resolution = m}]) */
static int l_map(lua_State *L)
{
    lslam *b = check_slam(L, 1);
    opt_table(L, 2);
    tycho_l_checkopts(L, 2, 2, &map_spec);
    double res = tycho_l_optfield_number(L, 2, 2, "resolution", NAN); /* NAN: not given */
    tycho_err err = {0};
    tycho_grid *g =
        isnan(res) ? tycho_slam_render(b->s, &err) : tycho_slam_render_at(b->s, res, &err);
    if (!g && err.code == TYCHO_EINVAL) return luaL_argerror(L, 2, err.msg);
    if (!g) return tycho_l_error(L, &err);
    tycho_l_pushgrid(L, g);
    return 1;
}

/* slam:search_loops(n) -> closures found */
static int l_search_loops(lua_State *L)
{
    lslam *b = check_slam(L, 1);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_argcheck(L, n >= 0 && n <= 100000, 2, "matches must be in 0..100000");
    int closed = 0;
    tycho_err err = {0};
    if (tycho_slam_search_loops(b->s, (int)n, &closed, &err) != TYCHO_OK)
        return tycho_l_error(L, &err);
    lua_pushinteger(L, closed);
    return 1;
}

static int l_finish(lua_State *L)
{
    lslam *b = check_slam(L, 1);
    tycho_err err = {0};
    if (tycho_slam_finish(b->s, &err) != TYCHO_OK) return tycho_l_error(L, &err);
    return 0;
}

static int l_trajectory(lua_State *L)
{
    lslam *b = check_slam(L, 1);
    int n = tycho_slam_nodes(b->s);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        tycho_l_pushpose(L, tycho_slam_node_pose(b->s, i));
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* slam:loop_searched_at() -> {n1, n2, ...}: for every node, the node count
 * when its loop search ended (its lag: that less its index), or -1 not
 * queued, -2 dropped from a full queue, -3 still waiting. */
static int l_loop_searched_at(lua_State *L)
{
    lslam *b = check_slam(L, 1);
    int n = tycho_slam_nodes(b->s);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushinteger(L, tycho_slam_node_searched_at(b->s, i));
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int l_stats(lua_State *L)
{
    lslam *b = check_slam(L, 1);
    tycho_slam_stats st;
    tycho_slam_get_stats(b->s, &st);
    lua_createtable(L, 0, 13);
    set_int(L, "nodes", st.nodes);
    set_int(L, "submaps", st.submaps);
    set_int(L, "finished_submaps", st.finished_submaps);
    set_int(L, "scans_matched", st.scans_matched);
    set_int(L, "scans_degenerate", st.scans_degenerate);
    set_int(L, "scans_poor", st.scans_poor);
    set_int(L, "scans_still", st.scans_still);
    set_int(L, "scans_wide", st.scans_wide);
    set_int(L, "scans_refined", st.scans_refined);
    set_int(L, "loops_refined", st.loops_refined);
    set_int(L, "loops_loose", st.loops_loose);
    set_int(L, "loops_shifted", st.loops_shifted);
    set_int(L, "loop_candidates", st.loop_candidates);
    set_int(L, "loop_closures", st.loop_closures);
    set_int(L, "loop_rejected", st.loop_rejected);
    set_int(L, "loop_dropped", st.loop_dropped);
    set_int(L, "loop_searched", st.loop_searched);
    set_int(L, "max_lag_scans", st.max_lag_scans);
    set_int(L, "optimizations", st.optimizations);
    set_num(L, "last_optimization_ms", st.last_optimization_ms);
    set_num(L, "max_optimization_ms", st.max_optimization_ms);
    set_num(L, "max_wait_ms", st.max_wait_ms);
    set_int(L, "bytes", (lua_Integer)st.bytes);
    return 1;
}

static int l_gc(lua_State *L)
{
    lslam *b = luaL_checkudata(L, 1, SLAM_MT);
    tycho_slam_free(b->s);
    b->s = NULL;
    return 0;
}

static int l_tostring(lua_State *L)
{
    lslam *b = luaL_checkudata(L, 1, SLAM_MT);
    if (!b->s) {
        lua_pushstring(L, "tycho.slam (freed)");
        return 1;
    }
    tycho_slam_stats st;
    tycho_slam_get_stats(b->s, &st);
    lua_pushfstring(L, "tycho.slam (%d scans, %d submaps, %d loop closures)", st.nodes, st.submaps,
                    st.loop_closures);
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---SLAM (core/slam.c): submaps matched by the scan matcher, a pose graph
---optimised by sparse Cholesky (SuiteSparse), loop closure in slices.
tycho.slam = {}
---@class tycho.slam
local slam = {}
---Options (all optional; angles in rad): resolution, sigma (m), submap_scans,
---field_every (rebuild the front end's field every n scans), window_xy, window_yaw (front-end search),
---wide_window_xy, wide_window_yaw (a front-end match at its window's edge or poor is searched again
---this wide; 0: never), loop_closure (bool), loop_window_xy,
---loop_window_yaw, loop_min_score, loop_max_rms (refine on: m, a closure whose refined beams
---miss the submap's walls by more, root mean square, is set aside, default 0.02),
---loop_max_shift (refine on: m, a closure whose refinement moved the search's match by
---more is set aside, default 0.03),
---loop_pin_beams (refine on: a closure's direction pinned by fewer beams weighs
---proportionally less, default 20), loop_radius, loop_every, loop_candidates (the nearest
---submaps tried for one node; default 0: every one in reach), loop_queue_max (nodes waiting for the search, at
---most: the oldest is pushed out, default 64), loop_matches_per_scan,
---loop_min_separation, optimize_every, edge_sigma_xy, edge_sigma_yaw,
---loop_sigma_xy, loop_sigma_yaw, huber, prior_xy, prior_yaw (the front end's
---odometry prior: score lost per metre / radian off the guess), refine_steps
---(front-end sub-step passes, 0..4), prior_per_m, prior_per_rad (the prior is
---divided by 1 + prior_per_m * metres + prior_per_rad * radians moved since the
---last scan), loop_reject (a closure the optimised graph misses by more sigmas
---is set aside; 0: never), loop_closures_per_node, optimize_lag (> 0: optimise
---on a background thread, the result taken that many scans later; 0: inline),
---refine (default false; true: each front-end match refined against the mean hit of
---each cell of the submap, finer than a cell: tycho.pointmap); unknown keys are errors.
---@param opts? {resolution?: number, sigma?: number, submap_scans?: integer, field_every?: integer, window_xy?: number, window_yaw?: number, wide_window_xy?: number, wide_window_yaw?: number, loop_closure?: boolean, loop_window_xy?: number, loop_window_yaw?: number, loop_min_score?: number, loop_max_rms?: number, loop_max_shift?: number, loop_pin_beams?: number, loop_radius?: number, loop_every?: integer, loop_candidates?: integer, loop_queue_max?: integer, loop_matches_per_scan?: integer, loop_min_separation?: integer, optimize_every?: integer, edge_sigma_xy?: number, edge_sigma_yaw?: number, loop_sigma_xy?: number, loop_sigma_yaw?: number, huber?: number, prior_xy?: number, prior_yaw?: number, refine_steps?: integer, prior_per_m?: number, prior_per_rad?: number, loop_reject?: number, loop_closures_per_node?: integer, optimize_lag?: integer, refine?: boolean}
---@return tycho.slam
function tycho.slam.new(opts) end
---Adds a scan taken at the LiDAR's odometry pose; returns its corrected pose.
---@param scan tycho.scan
---@param odom table {x=, y=, yaw=}
---@return table step {x, y, yaw, matched, degenerate, still (the odometry had not moved: no match), score, loop_closures, sigma_xy?, sigma_yaw? (the match's standard deviations: m along the direction the scan pins least, rad; math.huge where it pins nothing; nil when not matched)}
function slam:add_scan(scan, odom) end
---The latest scan's corrected pose.
---@return number x, number y, number yaw
function slam:pose() end
---An odometry pose taken since the latest scan, corrected.
---@return number x, number y, number yaw
function slam:correct(x, y, yaw) end
---Every scan re-rendered at its optimised pose (a new grid), at the SLAM's
---resolution or a coarser one (opts.resolution, m: for a picture of a large
---building).
---@param opts? {resolution?: number}
---@return tycho.grid
function slam:map(opts) end
---Runs the loop search for every queued scan (and the last) and optimises.
function slam:finish() end
---Runs up to n loop-closure candidate matches from the queue (and the
---optimisation when closures are pending), as add_scan runs
---loop_matches_per_scan of them: for a caller that budgets the search by
---time (loop_matches_per_scan = 0 leaves it all to this).
---@param n integer
---@return integer closures found
function slam:search_loops(n) end
---Every scan's optimised pose.
---@return table[] poses {{x, y, yaw}, ...}
function slam:trajectory() end
---For every scan, the number of scans there were when its loop-closure search
---ended (its lag in scans: that less its index), or -1 not queued, -2 pushed
---out of a full queue (loop_queue_max), -3 still waiting.
---@return integer[]
function slam:loop_searched_at() end
---@return table stats {nodes, submaps, finished_submaps, scans_matched, scans_degenerate, scans_poor, scans_still, scans_wide, scans_refined, loops_refined, loops_loose, loops_shifted, loop_candidates, loop_closures, loop_rejected, loop_dropped, loop_searched, max_lag_scans, optimizations, last_optimization_ms, max_optimization_ms, max_wait_ms, bytes}
function slam:stats() end
---Frees the SLAM's memory now (the garbage collector would, later); any
---method called afterwards raises.
function slam:close() end
*/
// clang-format on

void tycho_l_open_slam(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg fns[] = {{"add_scan", l_add_scan},
                                   {"pose", l_pose},
                                   {"correct", l_correct},
                                   {"map", l_map},
                                   {"finish", l_finish},
                                   {"search_loops", l_search_loops},
                                   {"trajectory", l_trajectory},
                                   {"loop_searched_at", l_loop_searched_at},
                                   {"stats", l_stats},
                                   {"close", l_gc},
                                   {NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){SLAM_MT, fns, NULL, l_gc, l_tostring, NULL});
    lua_pop(L, 1); /* __index: the methods */
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, l_new);
    lua_setfield(L, -2, "new");
    lua_setfield(L, module, "slam");
    tycho_l_register_opts(L, &slam_spec);
    tycho_l_register_opts(L, &map_spec);
}
