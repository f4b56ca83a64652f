/* Grid path planners: A* (8- and 4-connected), jump point search, cost-aware
 * A* over an inflated costmap, Dijkstra distance fields, nearest-cell search
 * and line-of-sight path shortening.
 *
 * Motion model. Cells are 8-connected (4-connected for TYCHO_PLAN_ASTAR4): a
 * straight step costs 1, a diagonal step sqrt(2), in cells. A diagonal step
 * never cuts a corner: it needs both orthogonal neighbours it passes between
 * to be passable (the MovingAI "octile" rule).
 *
 * Passability. A cell is blocked when its cost >= blocked_cost (default 253:
 * inscribed and lethal cells are blocked for the robot centre); lethal (254)
 * is always blocked. Unknown (255) is blocked unless allow_unknown.
 *
 * Cost-aware planning. An edge into cell c costs (1 or sqrt2) *
 * (1 + weight * cost(c) / 252), the Nav2 Smac 2D formula: the cost of the
 * cell being entered is charged. An allowed unknown cell counts with its raw
 * value 255, so it is slightly dearer than any inflated cell.
 *
 * Workspace. A tycho_planner holds everything a query needs: a padded
 * snapshot of the grid's passability (and, for jump point search, bit rows
 * and bit columns), per-cell search records with generation stamps, and the
 * open list. It grows to the largest grid it has seen and then never
 * allocates again, so queries in a control loop do not touch malloc.
 * A workspace is not thread-safe; use one per thread.
 *
 * Two ways to plan:
 *   - tycho_planner_plan(): snapshot the grid and plan, one call. The
 *     snapshot is O(cells) (about 0.1-0.3 ns per cell), fine for a few plans
 *     per second on a changing map;
 *   - tycho_planner_prepare() once per map change, then any number of
 *     tycho_planner_find() on that snapshot: the fast path for many queries on
 *     one map (benchmarks, multi-goal evaluation). The snapshot does not see
 *     later edits of the grid until the next prepare.
 *
 * Results. A path lists cells from start to goal inclusive, with its cost
 * (the planner's objective) and its geometric length (cells). When there is
 * no path the call returns TYCHO_ENOPATH and err says why ("start (3,4) is
 * blocked (cost 254)", "goal (9,9) is outside the 10x10 grid", "no path: goal
 * unreachable after expanding 1234 cells"). Bad arguments give TYCHO_EINVAL. */
#ifndef TYCHO_PLANNER_H
#define TYCHO_PLANNER_H

#include "tycho/common.h"
#include "tycho/grid.h"

typedef enum {
    TYCHO_PLAN_ASTAR = 0, /* 8-connected A*, octile heuristic */
    TYCHO_PLAN_ASTAR4,    /* 4-connected A*, Manhattan heuristic */
    TYCHO_PLAN_JPS,       /* jump point search (8-connected, uniform cost) */
    TYCHO_PLAN_COSTAWARE  /* 8-connected A* with the cost-aware edge formula */
} tycho_plan_algorithm;

typedef struct {
    tycho_plan_algorithm algorithm; /* default TYCHO_PLAN_ASTAR */
    int blocked_cost;               /* 1..254: cost >= this blocks a cell, default 253 */
    bool allow_unknown;             /* unknown (255) passable, default false */
    double weight;                  /* cost-aware weight w >= 0, default 1.0 */
    bool shorten;                   /* line-of-sight shortening of the result, default false */
} tycho_plan_opts;

void tycho_plan_opts_defaults(tycho_plan_opts *o);
/* Parses "astar", "astar4", "jps", "costaware"; false if unknown. */
bool tycho_plan_algorithm_parse(const char *name, tycho_plan_algorithm *out);
const char *tycho_plan_algorithm_name(tycho_plan_algorithm a);

/* --- paths ------------------------------------------------------------------ */

/* A path owns its cell array; it is reused (grown, never shrunk) across
 * queries so steady-state planning does not allocate. */
typedef struct {
    tycho_cell *cells; /* start .. goal */
    size_t count;
    size_t capacity;
    double cost;   /* planner objective; equals length for uniform planners */
    double length; /* sum of Euclidean segment lengths, in cells */
} tycho_path;

void tycho_path_init(tycho_path *p);
void tycho_path_release(tycho_path *p); /* frees the storage; p is then empty */
tycho_status tycho_path_reserve(tycho_path *p, size_t n, tycho_err *err);
tycho_status tycho_path_copy(tycho_path *dst, const tycho_path *src, tycho_err *err);
/* Sum of Euclidean segment lengths between consecutive cells. */
double tycho_path_geometric_length(const tycho_path *p);

/* True when the straight segment between the centres of a and b crosses only
 * passable cells (per o->blocked_cost / o->allow_unknown) and never passes
 * between two cells that touch only at a corner unless both sides are
 * passable, i.e. it obeys the same no-corner-cutting rule as the planners. */
bool tycho_line_of_sight(const tycho_grid *g, tycho_cell a, tycho_cell b, const tycho_plan_opts *o);

/* Line-of-sight shortening: keeps only the waypoints needed so that each
 * straight segment between kept waypoints has line of sight (greedy, from
 * the start: the farthest visible cell of the path becomes the next
 * waypoint). The start and goal are always kept. For a cost-aware plan
 * (o->algorithm == TYCHO_PLAN_COSTAWARE) a segment is also refused if it
 * crosses a cell dearer than every cell of the stretch of path it replaces,
 * so shortening never drags the path through higher cost.
 * Afterwards length is the polyline length and cost is recomputed: equal to
 * the length for uniform planners; for cost-aware plans, the sum over
 * segments of segment length * (1 + w * (highest cost crossed) / 252), a
 * conservative estimate. */
tycho_status tycho_path_shorten(tycho_path *p, const tycho_grid *g, const tycho_plan_opts *o,
                                tycho_err *err);

/* --- the planner workspace ---------------------------------------------------- */

typedef struct tycho_planner tycho_planner;

tycho_planner *tycho_planner_new(void);
void tycho_planner_free(tycho_planner *p);

/* Snapshots g's passability under o into the workspace (o may be NULL for
 * defaults). Grows the workspace if needed (the only allocation). */
tycho_status tycho_planner_prepare(tycho_planner *p, const tycho_grid *g, const tycho_plan_opts *o,
                                   tycho_err *err);
/* Plans on the prepared snapshot with the algorithm given at prepare time.
 * out receives the path (start..goal). */
tycho_status tycho_planner_find(tycho_planner *p, tycho_cell start, tycho_cell goal,
                                tycho_path *out, tycho_err *err);
/* Same, choosing another algorithm on the same snapshot (the passability
 * options of the snapshot apply; the cost-aware algorithm needs weight). */
tycho_status tycho_planner_find_with(tycho_planner *p, tycho_plan_algorithm algo, double weight,
                                     tycho_cell start, tycho_cell goal, tycho_path *out,
                                     tycho_err *err);
/* The cost of the path tycho_planner_find_with would return (its path.cost),
 * without writing the path out: the same search, none of the cell-by-cell
 * output. For ranking goals by distance, and for timing the search alone. */
tycho_status tycho_planner_distance(tycho_planner *p, tycho_plan_algorithm algo, double weight,
                                    tycho_cell start, tycho_cell goal, double *cost,
                                    tycho_err *err);
/* prepare + find (+ shorten if o->shorten). */
tycho_status tycho_planner_plan(tycho_planner *p, const tycho_grid *g, tycho_cell start,
                                tycho_cell goal, const tycho_plan_opts *o, tycho_path *out,
                                tycho_err *err);
/* Cells expanded (closed) by the last search; for tests and tuning. */
size_t tycho_planner_expanded(const tycho_planner *p);

/* --- Dijkstra ------------------------------------------------------------------- */

typedef struct {
    int blocked_cost;    /* as in tycho_plan_opts, default 253 */
    bool allow_unknown;  /* default false */
    bool costaware;      /* use the cost-aware edge formula, default false */
    double weight;       /* cost-aware weight, default 1.0 */
    double max_distance; /* stop beyond this distance, default INFINITY */
} tycho_dijkstra_opts;

void tycho_dijkstra_opts_defaults(tycho_dijkstra_opts *o);

/* Distance field: out (width*height floats, row-major like the grid) gets
 * the least cost from any source to each cell, INFINITY where unreachable
 * (or beyond max_distance). Sources must be inside the grid and passable;
 * duplicates are fine. n may be 0 (everything INFINITY). */
tycho_status tycho_distance_field(tycho_planner *p, const tycho_grid *g, const tycho_cell *sources,
                                  size_t n, const tycho_dijkstra_opts *o, float *out,
                                  tycho_err *err);

/* Predicate for tycho_nearest: 1 = this is the cell, 0 = keep searching,
 * -1 = abort the search (tycho_nearest then returns TYCHO_EINVAL). */
typedef int (*tycho_cell_pred)(void *ud, int cx, int cy, uint8_t cost);

/* Nearest cell satisfying pred, by path distance from start (Dijkstra, the
 * same motion model as the planners). Cells are tested in order of
 * increasing distance, start first. The search walks through passable cells
 * only, but may end on any cell it can step into, passable or not (so "the
 * nearest lethal cell" and "the nearest unknown cell" work). The start need
 * not be passable (so a robot inside an inflated area can find the nearest
 * free cell), it must be inside the grid. Returns TYCHO_ENOPATH when no
 * reachable cell (within max_distance) matches. */
tycho_status tycho_nearest(tycho_planner *p, const tycho_grid *g, tycho_cell start,
                           tycho_cell_pred pred, void *ud, const tycho_dijkstra_opts *o,
                           tycho_cell *found, double *distance, tycho_err *err);

/* Built-in predicates. */
typedef struct {
    int min_cost, max_cost; /* inclusive */
} tycho_cost_range;
int tycho_pred_cost_range(void *ud /* tycho_cost_range* */, int cx, int cy, uint8_t cost);
int tycho_pred_unknown(void *ud /* unused */, int cx, int cy, uint8_t cost);

#endif
