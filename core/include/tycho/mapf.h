/* Multi-robot route planning: prioritized planning with a space-time A*
 * on a grid graph, routes as segments with preconditions.
 *
 * Graph: a grid graph (4- or 8-connected) or a sparse skeleton graph, see
 * tycho/graph.h. On an 8-connected grid two robots may not take the two
 * diagonals of one square in the same step (they would meet in the middle).
 *
 * Space-time A*: time is in steps (one edge or one wait per step). A robot
 * may not be in a vertex at a step where an already-planned robot is, may
 * not swap along an edge with one, and may not enter a vertex from the step
 * another robot has stopped there for good (its goal). It may only stop at
 * its own goal from a step after which nobody planned passes there. The
 * heuristic is the exact static distance (breadth-first from the goal), so
 * routes are shortest given the robots planned before.
 *
 * Prioritized planning: robots are planned one by one in priority order.
 * When one finds no route, it is moved to the front of the order and all
 * are planned again, never repeating an order already tried, until all
 * have routes or `max_orders` orders were tried or `time_limit_s` passed.
 *
 * Routes: per robot the vertex at every step 0..arrival. Segments merge
 * waits: segment k is the k-th distinct vertex, with its enter and leave
 * steps. Preconditions: before robot B enters the vertex of its segment k,
 * every robot A planned to be there at an earlier step must have completed
 * (left) the segment of its own route in which it was there. */
#ifndef TYCHO_MAPF_H
#define TYCHO_MAPF_H

#include "tycho/common.h"
#include "tycho/graph.h"
#include "tycho/grid.h"

typedef struct tycho_mapf tycho_mapf;

typedef struct {
    double cell;         /* graph cell size, m (default 1.0) */
    int horizon;         /* longest route, steps (default 4 * (graph width + height)) */
    int max_orders;      /* priority orders tried (default 64) */
    double time_limit_s; /* default 10 */
    int connectivity;    /* grid graphs from a costmap: 4 (default) or 8 */
} tycho_mapf_params;

typedef struct {
    int enter, leave; /* steps */
    int vertex;
    double x, y; /* vertex centre, world */
} tycho_mapf_segment;

typedef struct {
    int robot, segment; /* that robot must have completed (left) that segment */
} tycho_mapf_precondition;

void tycho_mapf_defaults(tycho_mapf_params *p);

/* Builds a grid graph (tycho/graph.h) from a costmap (Nav2 costs, inflated
 * for the robot) at p->cell, p->connectivity. */
tycho_mapf *tycho_mapf_new(const tycho_grid *costmap, const tycho_mapf_params *p, tycho_err *err);
/* Plans on a graph of any kind (grid or sparse); takes ownership of it,
 * even on failure. One edge or one wait is one step. */
tycho_mapf *tycho_mapf_new_graph(tycho_graph *graph, const tycho_mapf_params *p, tycho_err *err);
const tycho_graph *tycho_mapf_graph(const tycho_mapf *m);
void tycho_mapf_free(tycho_mapf *m);
int tycho_mapf_vertex_count(const tycho_mapf *m);
int tycho_mapf_graph_size(const tycho_mapf *m, int *w, int *h);
/* The graph vertex nearest to a world point, if within one cell; else -1. */
int tycho_mapf_vertex_at(const tycho_mapf *m, double x, double y);
void tycho_mapf_vertex_xy(const tycho_mapf *m, int v, double *x, double *y);
bool tycho_mapf_adjacent(const tycho_mapf *m, int a, int b);

/* Plans n robots from starts to goals (world metres). On failure the
 * message names the robot (0-based index) and the reason: start or goal
 * not on the graph, two robots sharing a start or a goal, a goal not
 * reachable at all, or no order found within the limits. */
tycho_status tycho_mapf_plan(tycho_mapf *m, int n, const double *start_xy, const double *goal_xy,
                             tycho_err *err);
/* After a successful plan: */
int tycho_mapf_orders_tried(const tycho_mapf *m);
const int *tycho_mapf_order(const tycho_mapf *m);       /* robots, highest priority first */
int tycho_mapf_arrival(const tycho_mapf *m, int robot); /* step */
int tycho_mapf_vertex_at_step(const tycho_mapf *m, int robot, int step); /* stays at goal after */
int tycho_mapf_segments(const tycho_mapf *m, int robot, tycho_mapf_segment *out, int cap);
/* Preconditions of robot's segment k; returns their count (writes <= cap). */
int tycho_mapf_preconditions(const tycho_mapf *m, int robot, int segment,
                             tycho_mapf_precondition *out, int cap);

#endif
