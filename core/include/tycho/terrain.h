/* 2.5D terrain: a grid whose cells keep the lowest and highest height seen
 * (and how many points), built from 3D points; traversability for a robot
 * that can climb steps up to a height and slopes up to a gradient; an A*
 * that treats untraversable cells as walls and slope as cost.
 *
 * Frames as in grid.h: cell (cx, cy) covers [ox + cx*res, ox + (cx+1)*res)
 * x [oy + cy*res, ...) (no yaw), row 0 at the bottom.
 *
 * Traversability of a known cell (count > 0):
 *  - step: max - min <= res * step_coef (the largest obstacle inside one
 *    cell the robot can climb, scaled by the cell size);
 *  - slope: for each known 8-neighbour, |mid - mid_n| <= d * slope_coef,
 *    with mid = (min + max) / 2 and d the centre distance (res or res*sqrt2).
 * Unknown cells are not traversable, nor blocked: a planner may cross them
 * when told to (tycho_terrain_plan_opts' unknown_cost; planning with what is
 * known in an unknown world). The barrier then marks every cell, known or
 * not, within `barrier` metres of an untraversable known cell blocked too
 * (the robot's half-size), and cells up to `margin` beyond it get a
 * clearance penalty a planner may weigh (paths keep off obstacles rather
 * than graze the barrier). */
#ifndef TYCHO_TERRAIN_H
#define TYCHO_TERRAIN_H

#include "tycho/common.h"
#include "tycho/grid.h"
#include "tycho/planner.h"

typedef struct tycho_terrain tycho_terrain;

tycho_terrain *tycho_terrain_new(int w, int h, double res, double ox, double oy, tycho_err *err);
void tycho_terrain_free(tycho_terrain *t);
int tycho_terrain_width(const tycho_terrain *t);
int tycho_terrain_height(const tycho_terrain *t);
/* Adds points (x, y, z triples); points outside the grid are counted and skipped. */
size_t tycho_terrain_add_points(tycho_terrain *t, const double *xyz, size_t n);
/* The same, as one observation (a sweep). With refresh, every cell the batch
 * touches keeps only this batch's points: the latest look at a cell wins,
 * so an obstacle that moved away is forgotten once the ground where it
 * stood is seen again (cells the batch does not reach keep what they had). */
size_t tycho_terrain_add_batch(tycho_terrain *t, const double *xyz, size_t n, bool refresh);
/* min, max (NAN when unknown) and count of a cell. */
bool tycho_terrain_cell(const tycho_terrain *t, int cx, int cy, double *zmin, double *zmax,
                        int *count);
/* Slope and roughness around a cell, for reporting: a least-squares plane
 * z = a x + b y + c through the mid heights of the observed cells within
 * `radius` cells (radius 1: the 3 x 3 window); slope = atan(|(a, b)|) in
 * radians, roughness = the RMS of the residuals in metres. False when fewer
 * than three cells, or only collinear ones, have been seen there. */
bool tycho_terrain_plane_fit(const tycho_terrain *t, int cx, int cy, int radius, double *slope,
                             double *roughness);

typedef struct {
    double step_coef;  /* default 1.0: a 0.1 m cell may hold a 0.1 m step */
    double slope_coef; /* default 0.3 (about 17 degrees) */
    double barrier;    /* m, default 0 */
    double margin;     /* m beyond the barrier with a clearance penalty (1 at the barrier, 0 at its
                          end), default 0 */
} tycho_trav_params;
void tycho_trav_defaults(tycho_trav_params *p);
/* Computes traversability (call after adding points). */
tycho_status tycho_terrain_traversability(tycho_terrain *t, const tycho_trav_params *p,
                                          tycho_err *err);
/* Known and traversable. */
bool tycho_terrain_traversable(const tycho_terrain *t, int cx, int cy);
/* Known untraversable, within the barrier of such a cell, or off the grid
 * (unknown cells are neither traversable nor blocked). */
bool tycho_terrain_blocked(const tycho_terrain *t, int cx, int cy);
/* The terrain as an occupancy grid (same size, resolution, origin) for the
 * 2D tools (planners, inflation, frontiers, pictures) and for 2D LiDAR scans
 * to be inserted into: known traversable free, known untraversable lethal,
 * the barrier inscribed, never seen unknown. */
tycho_grid *tycho_terrain_to_grid(const tycho_terrain *t, tycho_err *err);
/* Index of the first blocked cell of a path (cells x0, y0, x1, ...), -1 if none. */
int tycho_terrain_first_blocked(const tycho_terrain *t, const int *cells, int n);
/* Largest neighbour gradient |dz|/d of a cell (0 with no known neighbour). */
double tycho_terrain_slope(const tycho_terrain *t, int cx, int cy);

typedef struct {
    double slope_weight; /* default 1 */
    double unknown_cost; /* < 1 (default -1): unknown cells are walls; >= 1: crossable, each step's
                            cost times this */
    double clearance_weight; /* each step's cost times (1 + this * the cell's clearance penalty),
                                default 0 */
    double roughness_weight; /* adds this * (zmax - zmin) / res of the entered cell to the (1 + ...)
                                factor, default 0 */
} tycho_terrain_plan_opts;
void tycho_terrain_plan_defaults(tycho_terrain_plan_opts *o);

/* A* over traversable cells, 8-connected without corner cutting, in the
 * planners' shape (tycho/planner.h): the path into out (start .. goal; its
 * cost the sum of the steps, each d * (1 + slope_weight * gradient +
 * roughness) times the unknown and clearance factors, in metres; its length
 * in cells). o NULL = defaults. TYCHO_ENOPATH when the start or the goal is
 * off the map or not passable, or nothing connects them; TYCHO_ENOMEM. */
tycho_status tycho_terrain_plan(const tycho_terrain *t, tycho_cell start, tycho_cell goal,
                                const tycho_terrain_plan_opts *o, tycho_path *out, tycho_err *err);

#endif
