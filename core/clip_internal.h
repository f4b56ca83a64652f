/* Liang-Barsky clipping of a segment to a rectangle, shared by the regions
 * (rasterising a sealing line onto a grid) and the pictures (drawing a line
 * onto an image): one routine, internal to core. */
#ifndef TYCHO_CLIP_INTERNAL_H
#define TYCHO_CLIP_INTERNAL_H

#include <stdbool.h>

/* Clips (x0, y0)-(x1, y1) to [xmin, xmax] x [ymin, ymax] in place; false
 * when the segment misses the rectangle. */
static inline bool tycho_clip_segment(double *x0, double *y0, double *x1, double *y1, double xmin,
                                      double ymin, double xmax, double ymax)
{
    double t0 = 0, t1 = 1, dx = *x1 - *x0, dy = *y1 - *y0;
    double p[4] = {-dx, dx, -dy, dy};
    double q[4] = {*x0 - xmin, xmax - *x0, *y0 - ymin, ymax - *y0};
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] < 0) return false;
            continue;
        }
        double t = q[i] / p[i];
        if (p[i] < 0) {
            if (t > t1) return false;
            if (t > t0) t0 = t;
        } else {
            if (t < t0) return false;
            if (t < t1) t1 = t;
        }
    }
    double ox = *x0, oy = *y0;
    *x0 = ox + t0 * dx, *y0 = oy + t0 * dy;
    *x1 = ox + t1 * dx, *y1 = oy + t1 * dy;
    return true;
}

#endif
