/* Ray casting on a cost grid.
 *
 * A ray starts at a world point with a world angle and returns the distance
 * (metres) to the point where it enters the first blocked cell, i.e. that
 * cell's boundary, or INFINITY when no blocked cell is entered within
 * max_range (a hit exactly at max_range counts). A ray that starts inside a
 * blocked cell returns 0.
 *
 * Blocked: cost >= threshold (default 254, lethal) for known cells; unknown
 * cells (255) are free unless unknown_blocked is set. Outside the grid counts
 * as unknown: with unknown_blocked a ray stops where it leaves the grid (and
 * a ray starting outside returns 0); without it a ray from outside starts
 * where it enters the grid and ends with INFINITY when it leaves.
 *
 * The traversal is exact (Amanatides–Woo): every cell the ray passes through
 * is visited. When the ray passes exactly through a cell corner, it steps
 * through the neighbour across the vertical line first (ties go to x); the
 * other neighbour, touched only at that one point, is not visited.
 *
 * tycho_raymap is the accelerated form for a grid that does not change often
 * (a static map, a simulator world): it stores, per cell and per quadrant of
 * ray directions, how far a ray may jump through free space (the exact gap to
 * the nearest blocked cell ahead of it), then finishes with the same exact
 * traversal near obstacles, so its results are bit-identical to
 * tycho_raycast's. It holds four bytes a cell. */
#ifndef TYCHO_RAYCAST_H
#define TYCHO_RAYCAST_H

#include "tycho/grid.h"
#include "tycho/scan.h"

typedef struct {
    uint8_t threshold;    /* known cells with cost >= threshold block; default 254 */
    bool unknown_blocked; /* unknown (255) cells and the outside block; default false */
} tycho_ray_opts;

void tycho_ray_opts_defaults(tycho_ray_opts *o);

/* One ray on the grid as it is now. opts may be NULL (defaults). */
double tycho_raycast(const tycho_grid *g, double x, double y, double angle, double max_range,
                     const tycho_ray_opts *opts);

/* Fills scan->ranges for a sensor at `pose` (beam angles relative to
 * pose.yaw); ranges beyond range_max or below range_min become INFINITY. */
void tycho_scan_cast(const tycho_grid *g, tycho_pose2 pose, tycho_scan *scan,
                     const tycho_ray_opts *opts);

/* --- accelerated casting on a snapshot --------------------------------- */
typedef struct tycho_raymap tycho_raymap;

/* Snapshot of g's blocked cells as four skip-distance fields. O(cells). */
tycho_raymap *tycho_raymap_new(const tycho_grid *g, const tycho_ray_opts *opts, tycho_err *err);
/* Rebuilds from g (after the grid changed or grew), reusing memory. */
tycho_status tycho_raymap_update(tycho_raymap *m, const tycho_grid *g, tycho_err *err);
void tycho_raymap_free(tycho_raymap *m);
double tycho_raymap_cast(const tycho_raymap *m, double x, double y, double angle, double max_range);
/* n rays, ray i from (x[i], y[i]) at angle[i], all with max_range, into
 * range[i]: the same values as n calls of tycho_raymap_cast, in less time
 * (several rays are kept in flight at once). */
void tycho_raymap_cast_many(const tycho_raymap *m, int n, const double *x, const double *y,
                            const double *angle, double max_range, double *range);
/* Fills scan->ranges as tycho_scan_cast does (NaN for a non-finite pose),
 * several beams in flight at once. */
void tycho_raymap_scan(const tycho_raymap *m, tycho_pose2 pose, tycho_scan *scan);
void tycho_raymap_opts(const tycho_raymap *m, tycho_ray_opts *opts);

#endif
