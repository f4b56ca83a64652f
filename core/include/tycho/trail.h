/* A driven trail kept for showing: poses added as the robot moves, thinned
 * as they come. A point is dropped when it, and every point dropped since
 * the last one kept for good, lies within a tolerance of the straight
 * segment from that point to the newest, so a corridor driven straight is
 * two points, not forty, and the line drawn stays within the tolerance of
 * where the robot was. The newest point is always the last one (where the
 * robot is now).
 *
 * Only positions are looked at: a dropped point's heading is lost, so a
 * list whose headings matter (poses drawn as arrows) is kept with a
 * tolerance of 0, which keeps every point. */
#ifndef TYCHO_TRAIL_H
#define TYCHO_TRAIL_H

#include "tycho/common.h"

#include <stddef.h>

/* points dropped in a row at most: a longer straight run keeps a point
 * every this many, which bounds the work an added point costs */
#define TYCHO_TRAIL_RUN 64

typedef struct {
    double *xyyaw; /* n kept poses, x, y, yaw each */
    size_t n, cap;
    double tolerance; /* metres; 0 keeps every point */
    double run[TYCHO_TRAIL_RUN][2];
    size_t nrun; /* points dropped since the last point kept for good */
} tycho_trail;

/* An empty trail (no allocation until the first point). */
void tycho_trail_init(tycho_trail *tr, double tolerance);
/* Adds a pose; TYCHO_ENOMEM (the trail unchanged) when it cannot grow. */
tycho_status tycho_trail_add(tycho_trail *tr, double x, double y, double yaw);
void tycho_trail_free(tycho_trail *tr);

#endif
