/* Comparing two planar trajectories (a planned path against the driven
 * one, or a run against a reference log).
 *
 * A is walked at a fixed arc-length spacing (its vertices included, so a
 * sparse A is sampled as finely as a dense one and neither sampling rate
 * biases the mean); at each sample the deviation is the distance to the
 * nearest point of polyline B. mean and max are over those samples (A to
 * B); hausdorff is the larger of that max and the same measured from B to
 * A (it also catches B wandering off where A never went). Lengths are the
 * polylines' arc lengths; length_diff = length_b - length_a. */
#ifndef TYCHO_TRAJECTORY_H
#define TYCHO_TRAJECTORY_H
#include "tycho/common.h"

typedef struct {
    double mean, max, hausdorff; /* m */
    double length_a, length_b, length_diff;
    size_t samples;
} tycho_traj_diff;

/* a and b hold na and nb points as x0, y0, x1, y1, ...; each needs at least
 * one point, all finite; spacing > 0 (m). */
tycho_status tycho_traj_compare(const double *a, size_t na, const double *b, size_t nb,
                                double spacing, tycho_traj_diff *out, tycho_err *err);
/* Distance from (x, y) to the polyline (n >= 1 points). */
double tycho_polyline_distance(const double *xy, size_t n, double x, double y);
double tycho_polyline_length(const double *xy, size_t n);
#endif
