/* Scan-to-map matching: where was the LiDAR, given a map and a guess?
 *
 * The map's occupied cells become a likelihood field, L = exp(-d^2 / 2
 * sigma^2) with d the distance to the nearest occupied cell (an exact
 * distance transform, edt.h), as in the "likelihood field" sensor model of
 * Thrun, Burgard and Fox. A scan scores the mean of L at its beams' end
 * points. The match is a correlative search in two passes, then a
 * Gauss-Newton refinement:
 * Each candidate's score is reduced by a prior on its distance from the
 * guess (prior_xy, prior_yaw; the correlative matcher's odometry term):
 *   1. coarse: every 4th beam, translations on a grid of 2 cells, headings
 *      in steps of 4 x step_yaw, over the whole window;
 *   2. fine: every beam stride, translations by half a cell and headings by
 *      step_yaw, around the best coarse pose (+-2 cells, +-4 steps);
 *   3. Gauss-Newton on the bilinearly interpolated field (the refinement of
 *      Kohlbrecher et al.'s Hector mapping), a few steps, kept only if it
 *      raises the score.
 * The Gauss-Newton normal matrix (J^T J over the beams) tells how well the
 * scan pins the pose down: when its translation block has one direction
 * far weaker than the other (a straight featureless corridor: nothing
 * fixes the position along it) the result is flagged `degenerate` and the
 * caller should keep its guess along that direction (or altogether).
 *
 * Costs: the field is rebuilt by tycho_matcher_set_map (one distance
 * transform, a few hundred microseconds for a 300 x 300 map); a match of a
 * 360-beam scan with the default window is a few hundred microseconds. */
#ifndef TYCHO_SCAN_MATCH_H
#define TYCHO_SCAN_MATCH_H

#include "tycho/common.h"
#include "tycho/grid.h"
#include "tycho/scan.h"

typedef struct {
    double window_xy;        /* m, search half-width in x and y, default 0.15 */
    double window_yaw;       /* rad, search half-width in heading, default 6 deg */
    double step_yaw;         /* rad, fine heading step, default 0.5 deg */
    int beam_stride;         /* use every n-th beam in the fine pass, default 1 */
    int refine_steps;        /* sub-step refinement passes, default 0 (none: see scan_match.c) */
    double min_score;        /* mean likelihood per beam to accept, default 0.25 */
    double degenerate_ratio; /* weakest / strongest translation information below this: degenerate,
                                default 0.02 */
    /* The prior on the guess, in score (mean likelihood per beam) lost per
     * metre and per radian off it; default 0, 0 (none). The odometry's guess
     * is good over one scan, and a heading jumped for a hair of score swings
     * every later pose about it (SLAM on a log: 0.5 and 1.0). */
    double prior_xy;
    double prior_yaw;
    bool plateau_centre; /* default false: of the fine poses scoring within plateau_tol of the best,
                          * take their centroid, not the one nearest the guess. The field is flat
                          * across a wall's cell, so ties are common; breaking them towards the
                          * guess passes the odometry's bias into the pose, which a chain of submaps
                          * then inherits (slam.c) */
    double plateau_tol;  /* mean likelihood per beam, default 0.005 */
} tycho_match_params;

void tycho_match_params_defaults(tycho_match_params *p);

typedef struct {
    tycho_pose2 pose;          /* the best pose (the guess when not ok) */
    double score;              /* mean likelihood at the end points, 0..1 */
    double guess_score;        /* the same at the guess */
    int beams;                 /* usable beams scored */
    bool ok;                   /* score >= min_score and enough beams */
    bool degenerate;           /* the scan does not fix the translation in some direction */
    double info_min, info_max; /* eigenvalues of the translation information (1/m^2) */
    /* The match's standard deviations (Gauss-Newton: the beams' mean squared
     * residual over the information): along the translation direction the
     * scan pins least (m; along a bare corridor, metres) and in heading
     * (rad). Infinity where the scan pins nothing. */
    double sigma_xy, sigma_yaw;
} tycho_match_result;

typedef struct tycho_matcher tycho_matcher;

tycho_matcher *tycho_matcher_new(void);
void tycho_matcher_free(tycho_matcher *m);

/* Builds the likelihood field from a cost grid: cells with cost in
 * [occupied, 254] are obstacles (unknown, 255, is not); sigma in metres
 * (> 0). Keeps its buffers between calls. */
tycho_status tycho_matcher_set_map(tycho_matcher *m, const tycho_grid *g, int occupied,
                                   double sigma, tycho_err *err);

/* For a matcher kept only to match against a map that no longer changes (a
 * finished submap): frees the distance transform's scratch and keeps the two
 * fields compact, as 8 x 8 tiles of 8-bit codes with the all-zero tiles left
 * out (a field is ~0 away from the walls: a tenth of the memory or less).
 * The codes index the field's own table of values (one per squared cell
 * distance to a wall, up to 255 of them: sigma up to ~4.6 cells), so
 * matches give the dense field's answers bit for bit; a wider sigma rounds
 * values to 1/254. The next set_map makes it dense again. Fails only when
 * out of memory (the matcher is then as before). */
tycho_status tycho_matcher_shrink(tycho_matcher *m, tycho_err *err);
/* Memory a matcher holds now (fields and beam scratch), for accounting. */
size_t tycho_matcher_bytes(const tycho_matcher *m);

/* Matches a scan taken from the LiDAR pose `guess` (world frame). Beams
 * with no usable return (not finite, outside [range_min, range_max)) are
 * skipped. Fails only on bad arguments or no map set. (m holds the beams'
 * scratch: one matcher per thread.) */
tycho_status tycho_matcher_match(tycho_matcher *m, const tycho_scan *scan, tycho_pose2 guess,
                                 const tycho_match_params *p, tycho_match_result *out,
                                 tycho_err *err);

#endif
