/* Where the walls are, finer than a cell: the mean of the LiDAR hits that
 * fell in each cell of a world-aligned grid, and a point-to-line refinement
 * of a scan's pose against those means.
 *
 * Why: a scan matcher scoring an occupancy grid (scan_match.h) cannot tell
 * where inside a wall's cell the wall is; its answer may sit anywhere in a
 * plateau up to half a cell wide, and the map built from that pose takes
 * the offset on for good (the whole trajectory then sits ~2-3 cm off the
 * truth). The mean of the hits in a cell is on the wall's surface; the
 * means of neighbouring cells give the wall's direction; a beam's end point
 * is pulled onto the line through the nearest mean along that direction
 * (point-to-line ICP, as in Censi's PLICP, on a grid for the lookups).
 *
 * The grid is anchored in the world (cell (i, j) covers [i res, (i+1) res)
 * x [j res, (j+1) res)) and grows as hits arrive. Each cell keeps its mean
 * as an incremental average over at most `TYCHO_POINTMAP_MAX_HITS` hits,
 * so a cell keeps following its latest hits a little (a wall seen first
 * from a drifted pose is not frozen there). */
#ifndef TYCHO_POINTMAP_H
#define TYCHO_POINTMAP_H

#include "tycho/common.h"
#include "tycho/scan.h"

#define TYCHO_POINTMAP_MAX_HITS 1000

typedef struct tycho_pointmap tycho_pointmap;

/* resolution in metres, > 0 and finite; NULL when out of memory. */
tycho_pointmap *tycho_pointmap_new(double resolution);
void tycho_pointmap_free(tycho_pointmap *pm);

/* Adds the hits of a scan taken from the LiDAR pose `pose` (world frame):
 * the beams with a finite range in [range_min, range_max). Fails on a
 * non-finite pose, a scan reaching more than 1e6 m from the origin, or
 * out of memory (the map is then as before the call). */
tycho_status tycho_pointmap_add_scan(tycho_pointmap *pm, const tycho_scan *scan, tycho_pose2 pose,
                                     tycho_err *err);

/* Cells holding at least one hit. */
size_t tycho_pointmap_cells(const tycho_pointmap *pm);
/* Keeps only the cells holding hits (a hash of them instead of the dense
 * box round them: a finished SLAM submap's 300 x 300 box of 12-byte cells
 * holds a few thousand hits), for refining against later; the map is then
 * read-only (add_scan fails). Fails only out of memory, the map as before. */
tycho_status tycho_pointmap_compact(tycho_pointmap *pm, tycho_err *err);
/* Bytes the map holds. */
size_t tycho_pointmap_bytes(const tycho_pointmap *pm);

/* The mean hit of the cell containing (x, y): true and *mx, *my when it has
 * one. */
bool tycho_pointmap_mean_at(const tycho_pointmap *pm, double x, double y, double *mx, double *my);

typedef struct {
    int iterations;       /* Gauss-Newton steps, default 5 */
    double max_dist;      /* m: an end point farther than this from the nearest mean is not
                             paired, default 1.5 cells */
    double huber;         /* m: residuals beyond this count linearly (robust), default 0.01 */
    double max_shift;     /* m: a refinement moving the pose farther is refused, default 0.1 */
    double max_turn;      /* rad: the same for the heading, default 5 deg */
    int min_pairs;        /* fewer paired beams: refused, default 30 */
    int min_hits;         /* a cell's mean counts once it has this many hits, default 2 */
    double max_planarity; /* the neighbouring means' spread across / along the line
                             (smallest / largest eigenvalue of their covariance) above
                             this: no line there (a corner), not paired, default 0.1 */
} tycho_refine_params;

void tycho_refine_params_defaults(tycho_refine_params *p);

typedef struct {
    tycho_pose2 pose;          /* the refined pose (the guess when not ok) */
    bool ok;                   /* refined: enough pairs, within max_shift / max_turn */
    int pairs;                 /* beams paired at the last step */
    double rms;                /* m, point-to-line residual RMS at the last step */
    double info_min, info_max; /* eigenvalues of the translation information, the
                                  sum of the paired beams' (weighted) normal outer
                                  products: about how many beams pin each direction.
                                  A weak one is left as the guess had it */
    double info[3];            /* that information, {xx, xy, yy}, in the map's frame */
} tycho_refine_result;

/* Refines the LiDAR pose `guess` of `scan` against the map's means. Fails
 * only on bad arguments (a non-finite guess, iterations outside 1..100, a
 * negative or non-finite distance). */
tycho_status tycho_pointmap_refine(const tycho_pointmap *pm, const tycho_scan *scan,
                                   tycho_pose2 guess, const tycho_refine_params *p,
                                   tycho_refine_result *out, tycho_err *err);

#endif
