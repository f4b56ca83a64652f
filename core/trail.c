/* The driven trail thinned as it grows (tycho/trail.h). */
#include "tycho/trail.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tycho_trail_init(tycho_trail *tr, double tolerance)
{
    memset(tr, 0, sizeof *tr);
    tr->tolerance = tolerance > 0 ? tolerance : 0;
}

void tycho_trail_free(tycho_trail *tr)
{
    free(tr->xyyaw);
    tycho_trail_init(tr, tr->tolerance);
}

/* distance from (px, py) to the segment a-b */
static double to_segment(double px, double py, const double *a, const double *b)
{
    double dx = b[0] - a[0], dy = b[1] - a[1];
    double len2 = dx * dx + dy * dy;
    double u = len2 > 0 ? ((px - a[0]) * dx + (py - a[1]) * dy) / len2 : 0;
    if (u < 0) u = 0;
    if (u > 1) u = 1;
    return hypot(a[0] + u * dx - px, a[1] + u * dy - py);
}

/* True when the newest point can take the place of the last one: it and
 * every point dropped since the one before it stay within the tolerance of
 * the segment from that one to (x, y). */
static bool can_drop_last(const tycho_trail *tr, double x, double y)
{
    if (tr->tolerance <= 0 || tr->n < 2 || tr->nrun == TYCHO_TRAIL_RUN) return false;
    const double *from = tr->xyyaw + 3 * (tr->n - 2), *last = from + 3;
    double to[2] = {x, y};
    if (to_segment(last[0], last[1], from, to) > tr->tolerance) return false;
    for (size_t k = 0; k < tr->nrun; k++)
        if (to_segment(tr->run[k][0], tr->run[k][1], from, to) > tr->tolerance) return false;
    return true;
}

tycho_status tycho_trail_add(tycho_trail *tr, double x, double y, double yaw)
{
    if (can_drop_last(tr, x, y)) {
        double *last = tr->xyyaw + 3 * (tr->n - 1);
        tr->run[tr->nrun][0] = last[0];
        tr->run[tr->nrun][1] = last[1];
        tr->nrun++;
        last[0] = x, last[1] = y, last[2] = yaw;
        return TYCHO_OK;
    }
    if (tr->n == tr->cap) {
        size_t cap = tr->cap ? tr->cap * 2 : 256;
        double *p = realloc(tr->xyyaw, cap * 3 * sizeof *p);
        if (!p) return TYCHO_ENOMEM;
        tr->xyyaw = p;
        tr->cap = cap;
    }
    double *at = tr->xyyaw + 3 * tr->n++;
    at[0] = x, at[1] = y, at[2] = yaw;
    tr->nrun = 0;
    return TYCHO_OK;
}
