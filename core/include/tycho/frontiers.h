/* Frontier detection for exploration, after explore_lite (m-explore): the
 * boundary between mapped free space and unknown space, found by searching
 * outward from the robot, so only frontiers the robot can reach are reported.
 *
 * Semantics (the README documents these):
 * - A cell is FREE when its cost is below `free_max` (default 253: free and
 *   inflated cells, not inscribed, lethal or unknown).
 * - A FRONTIER CELL is an unknown cell (255) with at least one free
 *   4-neighbour. Frontier cells are grouped into 8-connected frontiers.
 * - The search is a Dijkstra over free cells from the robot's cell
 *   (8-connected, steps of 1 and sqrt(2) cells, no corner cutting past
 *   non-free cells). If the robot's cell is not free, the search starts from
 *   the nearest free cell within `start_radius` metres (robots often stand on
 *   their own inflation). A frontier is reported only when one of its cells
 *   has a reachable free 4-neighbour.
 * - For each frontier: size (cells), centroid (world, mean of the cell
 *   centres; may lie off the frontier for curved ones), `goal`: the
 *   reachable free cell 4-adjacent to the frontier with the smallest path
 *   distance from the robot, `distance`: that path distance in metres
 *   (robot cell centre to goal cell centre), and `nearest`: the frontier
 *   cell next to `goal` (so the frontier cell nearest the robot by path).
 * - Frontiers smaller than `min_size` metres (size * resolution, as
 *   explore_lite's min_frontier_size) or `min_cells` cells are dropped.
 * - cost = potential_scale * distance - gain_scale * size * resolution
 *   (metres); results are sorted by cost ascending (ties: distance, then
 *   discovery order), so the first is the one to explore. */
#ifndef TYCHO_FRONTIERS_H
#define TYCHO_FRONTIERS_H

#include "tycho/grid.h"

typedef struct {
    int free_max;           /* cost < free_max is free, 1..255, default 253 */
    double min_size;        /* metres, >= 0, default 0.5 (explore_lite) */
    int min_cells;          /* >= 1, default 1 */
    double potential_scale; /* weight of distance, default 3.0 (explore_lite) */
    double gain_scale;      /* weight of size, default 1.0 (explore_lite) */
    double start_radius;    /* metres searched for a free start cell, default 0.5 */
} tycho_frontier_params;

typedef struct {
    int size;                      /* frontier cells */
    double centroid_x, centroid_y; /* world */
    tycho_cell goal;               /* nearest reachable free cell adjacent to the frontier */
    double goal_x, goal_y;         /* its centre, world */
    tycho_cell nearest;            /* frontier cell next to goal */
    double nearest_x, nearest_y;
    double distance; /* path metres from the robot to goal */
    double cost;
    size_t first_cell; /* its cells: tycho_frontier_search_cells() [first_cell, +size) */
} tycho_frontier;

void tycho_frontier_defaults(tycho_frontier_params *p);
/* Checks ranges and finiteness; the message names the bad field. */
tycho_status tycho_frontier_check(const tycho_frontier_params *p, tycho_err *err);

/* Reusable search workspace: buffers grow to the largest grid seen and are
 * kept, so repeated searches allocate nothing. */
typedef struct tycho_frontier_search tycho_frontier_search;
tycho_frontier_search *tycho_frontier_search_new(void);
void tycho_frontier_search_free(tycho_frontier_search *s);

/* Searches from the world point (rx, ry). Fails with TYCHO_ERANGE when the
 * robot is outside the grid or no free cell lies within start_radius, and
 * TYCHO_EINVAL on bad parameters (p may be NULL for the defaults). On
 * success the results stay valid until the next run or free. */
tycho_status tycho_frontier_search_run(tycho_frontier_search *s, const tycho_grid *g, double rx,
                                       double ry, const tycho_frontier_params *p, tycho_err *err);
/* Ranked frontiers of the last successful run (best first). */
size_t tycho_frontier_search_count(const tycho_frontier_search *s);
const tycho_frontier *tycho_frontier_search_get(const tycho_frontier_search *s, size_t i);
/* All frontier cells of the last run; a frontier's cells are
 * [f->first_cell, f->first_cell + f->size). */
const tycho_cell *tycho_frontier_search_cells(const tycho_frontier_search *s);
/* Path distance (metres) from the robot to a free cell in the last run, or
 * a negative value if the cell was not reached. */
double tycho_frontier_search_distance(const tycho_frontier_search *s, int cx, int cy);

#endif
