/* Comparing two planar trajectories: see trajectory.h. */
#include "tycho/trajectory.h"

#include <math.h>

double tycho_polyline_length(const double *xy, size_t n)
{
    double len = 0;
    for (size_t i = 1; i < n; i++)
        len += hypot(xy[2 * i] - xy[2 * i - 2], xy[2 * i + 1] - xy[2 * i - 1]);
    return len;
}

static double segment_distance2(double ax, double ay, double bx, double by, double x, double y)
{
    double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? ((x - ax) * dx + (y - ay) * dy) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double ex = ax + t * dx - x, ey = ay + t * dy - y;
    return ex * ex + ey * ey;
}

double tycho_polyline_distance(const double *xy, size_t n, double x, double y)
{
    if (n == 1) return hypot(xy[0] - x, xy[1] - y);
    double best = INFINITY;
    for (size_t i = 1; i < n; i++) {
        double d2 = segment_distance2(xy[2 * i - 2], xy[2 * i - 1], xy[2 * i], xy[2 * i + 1], x, y);
        if (d2 < best) best = d2;
    }
    return sqrt(best);
}

/* Samples `from` every `spacing` metres (and at each vertex); the mean and
 * max distance of the samples to `to`. */
static void one_way(const double *from, size_t nf, const double *to, size_t nt, double spacing,
                    double *mean, double *max, size_t *samples)
{
    double sum = 0, worst = 0;
    size_t count = 0;
    for (size_t i = 0; i < nf; i++) {
        double x0 = from[2 * i], y0 = from[2 * i + 1];
        double d = tycho_polyline_distance(to, nt, x0, y0);
        sum += d, count++;
        worst = fmax(worst, d);
        if (i + 1 == nf) break;
        double dx = from[2 * i + 2] - x0, dy = from[2 * i + 3] - y0, len = hypot(dx, dy);
        for (double s = spacing; s < len; s += spacing) {
            d = tycho_polyline_distance(to, nt, x0 + dx * s / len, y0 + dy * s / len);
            sum += d, count++;
            worst = fmax(worst, d);
        }
    }
    *mean = sum / (double)count;
    *max = worst;
    if (samples) *samples = count;
}

tycho_status tycho_traj_compare(const double *a, size_t na, const double *b, size_t nb,
                                double spacing, tycho_traj_diff *out, tycho_err *err)
{
    if (na < 1 || nb < 1)
        return tycho_fail(err, TYCHO_EINVAL, "trajectory compare: each trajectory needs a point");
    if (!(spacing > 0 && isfinite(spacing)))
        return tycho_fail(err, TYCHO_EINVAL, "trajectory compare: spacing must be > 0");
    for (size_t i = 0; i < 2 * na; i++)
        if (!isfinite(a[i]))
            return tycho_fail(err, TYCHO_EINVAL, "trajectory compare: point %zu of A is not finite",
                              i / 2 + 1);
    for (size_t i = 0; i < 2 * nb; i++)
        if (!isfinite(b[i]))
            return tycho_fail(err, TYCHO_EINVAL, "trajectory compare: point %zu of B is not finite",
                              i / 2 + 1);
    double back_mean, back_max;
    one_way(a, na, b, nb, spacing, &out->mean, &out->max, &out->samples);
    one_way(b, nb, a, na, spacing, &back_mean, &back_max, NULL);
    out->hausdorff = fmax(out->max, back_max);
    out->length_a = tycho_polyline_length(a, na);
    out->length_b = tycho_polyline_length(b, nb);
    out->length_diff = out->length_b - out->length_a;
    return TYCHO_OK;
}
