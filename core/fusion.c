/* Thermal + LiDAR fusion (see fusion.h for conventions and the algorithm). */
#include "tycho/fusion.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tycho_thermal_camera_defaults(tycho_thermal_camera *c)
{
    c->mount_yaw = 0;
    c->hfov = 60.0 * M_PI / 180.0;
    c->rows = 8;
    c->cols = 8;
    c->mirrored = false;
}

void tycho_fusion_defaults(tycho_fusion_params *p)
{
    p->threshold = 30.0;
    p->bin_width = 0.1;
    p->min_range = 0.0;
    p->max_range = 3.5;
    p->narrow = true;
    p->window = 0;
}

const char *tycho_fusion_outcome_name(tycho_fusion_outcome o)
{
    switch (o) {
    case TYCHO_FUSION_FOUND:
        return "found";
    case TYCHO_FUSION_NO_HOT_PIXEL:
        return "no hot pixel";
    case TYCHO_FUSION_NO_BEAMS_IN_FOV:
        return "no beams in fov";
    case TYCHO_FUSION_NO_RETURN_IN_RANGE:
        return "no return within max range";
    }
    return "unknown";
}

tycho_status tycho_fusion_validate(const tycho_thermal_camera *c, const tycho_fusion_params *p,
                                   tycho_err *err)
{
    if (!isfinite(c->mount_yaw))
        return tycho_fail(err, TYCHO_EINVAL, "camera: yaw (mounting) must be finite");
    if (!(c->hfov > 0 && c->hfov <= 2 * M_PI))
        return tycho_fail(err, TYCHO_EINVAL, "camera: fov must be in (0, 2*pi] rad (got %g)",
                          c->hfov);
    if (c->rows < 1 || c->cols < 1 || (long)c->rows * c->cols > TYCHO_FUSION_MAX_PIXELS)
        return tycho_fail(err, TYCHO_EINVAL, "camera: rows x cols must be 1..%d pixels (got %dx%d)",
                          TYCHO_FUSION_MAX_PIXELS, c->rows, c->cols);
    if (!isfinite(p->threshold))
        return tycho_fail(err, TYCHO_EINVAL, "fusion: threshold must be finite");
    if (!(isfinite(p->bin_width) && p->bin_width > 0))
        return tycho_fail(err, TYCHO_EINVAL, "fusion: bin_width must be > 0 (got %g)",
                          p->bin_width);
    if (!(isfinite(p->max_range) && p->max_range > 0))
        return tycho_fail(err, TYCHO_EINVAL, "fusion: max_range must be > 0 and finite (got %g)",
                          p->max_range);
    if (!(isfinite(p->window) && p->window >= 0 && p->window <= M_PI))
        return tycho_fail(err, TYCHO_EINVAL, "fusion: window must be in [0, pi] rad (got %g)",
                          p->window);
    if (!(p->min_range >= 0 && p->min_range < p->max_range))
        return tycho_fail(err, TYCHO_EINVAL, "fusion: min_range must be in [0, max_range)");
    if (p->max_range / p->bin_width >= TYCHO_FUSION_MAX_BINS)
        return tycho_fail(err, TYCHO_EINVAL,
                          "fusion: max_range / bin_width must be < %d (got %g / %g)",
                          TYCHO_FUSION_MAX_BINS, p->max_range, p->bin_width);
    return TYCHO_OK;
}

static double wrap(double a)
{
    if (a > -M_PI && a <= M_PI) return a;
    /* one turn off is the common case (a scan from -pi, a camera at +-30 deg) */
    double b = a > 0 ? a - 2.0 * M_PI : a + 2.0 * M_PI;
    if (b > -M_PI && b <= M_PI) return b;
    a = remainder(a, 2.0 * M_PI);
    return a <= -M_PI ? a + 2.0 * M_PI : a;
}

/* Camera column of a bearing relative to the camera axis (inside the view). */
static int column_of(const tycho_thermal_camera *c, double rel)
{
    /* u >= 0 up to rounding at the view's edge, so truncation is floor
     * (and avoids a libm call per beam) */
    double u = (0.5 * c->hfov - rel) * c->cols / c->hfov;
    int col = (int)u;
    if (col < 0) col = 0;
    if (col >= c->cols) col = c->cols - 1;
    return c->mirrored ? c->cols - 1 - col : col;
}

/* The bearing of camera column c's centre relative to the camera axis
 * (column_of's inverse). */
static double column_centre(const tycho_thermal_camera *c, int col)
{
    int k = c->mirrored ? c->cols - 1 - col : col; /* counted from the left edge */
    return 0.5 * c->hfov - (k + 0.5) * (c->hfov / c->cols);
}

typedef struct {
    const tycho_scan_ref *scan;
    const tycho_thermal_camera *cam;
    const tycho_fusion_params *p;
    const bool *hot_col;
    bool windowed;       /* keep only beams within p->window of heat_bearing */
    double heat_bearing; /* robot frame */
} beam_filter;

/* Step 2 for beam i: is it in view (and in a hot column when narrowing, and
 * in the heat window when windowed)? */
static bool in_view(const beam_filter *bf, int i, double *bearing)
{
    double b = bf->scan->angle_min + i * bf->scan->angle_increment;
    double rel = wrap(b - bf->cam->mount_yaw);
    if (fabs(rel) > 0.5 * bf->cam->hfov + 1e-12) return false;
    if (bf->p->narrow && !bf->hot_col[column_of(bf->cam, rel)]) return false;
    if (bf->windowed && fabs(wrap(b - bf->heat_bearing)) > bf->p->window + 1e-12) return false;
    *bearing = b;
    return true;
}

/* The k-th smallest of a[0..n) (0-based), moving a's elements (Hoare's
 * selection: the median of a frame costs a third of sorting it). */
static float kth_smallest(float *a, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        float pivot = a[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot) i++;
            while (a[j] > pivot) j--;
            if (i <= j) {
                float t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else break; /* between j and i: equal to the pivot */
    }
    return a[k];
}

/* The heat's bearing relative to the camera axis: the hot columns' centres
 * weighted by their pixels' excess over the frame's median (the background). */
static double heat_bearing_rel(const tycho_thermal_camera *cam, const float *frame,
                               const bool *hot_col)
{
    float pixels[TYCHO_FUSION_MAX_PIXELS];
    int n = 0;
    for (int i = 0; i < cam->rows * cam->cols; i++)
        if (!isnan(frame[i])) pixels[n++] = frame[i];
    double background = n ? kth_smallest(pixels, n, n / 2) : 0;
    double sw = 0, sa = 0;
    for (int c = 0; c < cam->cols; c++) {
        if (!hot_col[c]) continue;
        double w = 0;
        for (int r = 0; r < cam->rows; r++) {
            double t = frame[r * cam->cols + c];
            if (t > background) w += t - background;
        }
        sa += w * column_centre(cam, c);
        sw += w;
    }
    return sw > 0 ? sa / sw : 0;
}

/* Step 3: a usable return; *bin gets its histogram bin. */
static bool usable(const tycho_fusion_params *p, float rf, int *bin)
{
    double r = rf;
    if (!isfinite(r) || r <= 0 || r < p->min_range || r > p->max_range) return false;
    *bin = (int)(r / p->bin_width); /* r > 0: truncation is floor */
    return true;
}

/* Steps 2-3 over the beam index ranges: the histogram of the usable
 * returns that bf keeps, and the counts in out. */
static void histogram(const beam_filter *bf, int nr, const int *lo, const int *hi, int *hist,
                      int nbins, tycho_fusion_result *out)
{
    memset(hist, 0, sizeof(int) * (size_t)nbins);
    out->beams_in_view = out->returns = 0;
    for (int ri = 0; ri < nr; ri++) {
        for (int i = lo[ri]; i <= hi[ri]; i++) {
            double b;
            int bin;
            if (!in_view(bf, i, &b)) continue;
            out->beams_in_view++;
            if (!usable(bf->p, bf->scan->ranges[i], &bin)) continue;
            out->returns++;
            hist[bin]++;
        }
    }
}

/* Beam index ranges [lo, hi] that can be in view, from the scan's uniform
 * spacing: one per turn of 2*pi the scan covers, widened by a beam each side
 * against rounding (the exact test still runs on every candidate). Returns
 * the number of disjoint ranges, in order. Falls back to every beam when the
 * geometry is unusual (huge angles, a near-full-turn view). */
#define VIEW_RANGES 4
static int view_ranges(const tycho_scan_ref *s, const tycho_thermal_camera *c, int lo[], int hi[])
{
    const double two_pi = 2.0 * M_PI, h = 0.5 * c->hfov, inc = s->angle_increment;
    double first = s->angle_min - c->mount_yaw, last = first + (s->count - 1) * inc;
    double a_lo = fmin(first, last), a_hi = fmax(first, last);
    int m = 0;
    if (inc != 0 && c->hfov < two_pi - 1e-6 && fabs(a_lo) < 1e6 && fabs(a_hi) < 1e6) {
        long k0 = (long)floor((a_lo - h) / two_pi), k1 = (long)ceil((a_hi + h) / two_pi);
        if (k1 - k0 + 1 > VIEW_RANGES) goto all;
        for (long k = k0; k <= k1; k++) {
            double i0 = (two_pi * k - h - first) / inc, i1 = (two_pi * k + h - first) / inc;
            double ilo = fmax(fmin(i0, i1) - 1, -1.0),
                   ihi = fmin(fmax(i0, i1) + 1, (double)s->count);
            int a = (int)ceil(ilo), b = (int)floor(ihi);
            if (a < 0) a = 0;
            if (b > s->count - 1) b = s->count - 1;
            if (a > b) continue;
            /* insert in order, merging overlaps (only possible after widening) */
            int j = m;
            while (j > 0 && lo[j - 1] > a) {
                lo[j] = lo[j - 1];
                hi[j] = hi[j - 1];
                j--;
            }
            lo[j] = a;
            hi[j] = b;
            m++;
        }
        int w = 0;
        for (int r = 0; r < m; r++) {
            if (w > 0 && lo[r] <= hi[w - 1] + 1) {
                if (hi[r] > hi[w - 1]) hi[w - 1] = hi[r];
            } else {
                lo[w] = lo[r];
                hi[w] = hi[r];
                w++;
            }
        }
        return w;
    }
all:
    lo[0] = 0;
    hi[0] = s->count - 1;
    return s->count > 0 ? 1 : 0;
}

tycho_status tycho_fusion_locate(tycho_pose2 pose, const tycho_scan_ref *scan,
                                 const tycho_thermal_camera *cam, const float *frame,
                                 const tycho_fusion_params *p, tycho_fusion_result *out,
                                 tycho_err *err)
{
    memset(out, 0, sizeof *out);
    out->col_lo = out->col_hi = -1;
    out->max_temp = NAN;
    tycho_status st = tycho_fusion_validate(cam, p, err);
    if (st != TYCHO_OK) return st;
    if (!frame) return tycho_fail(err, TYCHO_EINVAL, "fusion: no thermal frame");
    if (!scan || scan->count < 0 || (scan->count > 0 && !scan->ranges) ||
        !isfinite(scan->angle_min) || !isfinite(scan->angle_increment))
        return tycho_fail(err, TYCHO_EINVAL, "fusion: bad scan");
    if (!(isfinite(pose.x) && isfinite(pose.y) && isfinite(pose.yaw)))
        return tycho_fail(err, TYCHO_EINVAL, "fusion: pose is not finite");

    /* 1. hot pixels and their columns */
    bool hot_col[TYCHO_FUSION_MAX_PIXELS];
    memset(hot_col, 0, sizeof(bool) * (size_t)cam->cols);
    for (int r = 0; r < cam->rows; r++)
        for (int c = 0; c < cam->cols; c++) {
            double t = frame[r * cam->cols + c];
            if (isnan(t)) continue;
            if (isnan(out->max_temp) || t > out->max_temp) out->max_temp = t;
            if (t > p->threshold) {
                out->hot_pixels++;
                hot_col[c] = true;
                if (out->col_lo < 0 || c < out->col_lo) out->col_lo = c;
                if (c > out->col_hi) out->col_hi = c;
            }
        }
    if (out->hot_pixels == 0) {
        out->outcome = TYCHO_FUSION_NO_HOT_PIXEL;
        return TYCHO_OK;
    }

    /* 2-4. histogram of the usable ranges in view (in the heat window
     * first, when there is one; the whole view if the window has none) */
    int hist[TYCHO_FUSION_MAX_BINS];
    int nbins = (int)floor(p->max_range / p->bin_width) + 1;
    beam_filter bf = {scan, cam, p, hot_col, p->window > 0, 0};
    bf.heat_bearing = wrap(cam->mount_yaw + heat_bearing_rel(cam, frame, hot_col));
    out->heat_bearing = bf.heat_bearing;
    int lo[VIEW_RANGES], hi[VIEW_RANGES];
    int nr = view_ranges(scan, cam, lo, hi);
    histogram(&bf, nr, lo, hi, hist, nbins, out);
    if (bf.windowed && out->returns == 0) {
        bf.windowed = false;
        histogram(&bf, nr, lo, hi, hist, nbins, out);
    }
    out->windowed = bf.windowed;
    if (out->beams_in_view == 0) {
        out->outcome = TYCHO_FUSION_NO_BEAMS_IN_FOV;
        return TYCHO_OK;
    }
    if (out->returns == 0) {
        out->outcome = TYCHO_FUSION_NO_RETURN_IN_RANGE;
        return TYCHO_OK;
    }
    int best = 0;
    for (int k = 1; k < nbins; k++)
        if (hist[k] > hist[best]) best = k; /* strict: ties keep the nearer bin */

    double sum_r = 0, sum_s = 0, sum_c = 0;
    for (int ri = 0; ri < nr; ri++) {
        for (int i = lo[ri]; i <= hi[ri]; i++) {
            double b;
            int bin;
            if (!in_view(&bf, i, &b) || !usable(p, scan->ranges[i], &bin) || bin != best) continue;
            sum_r += scan->ranges[i];
            sum_s += sin(b);
            sum_c += cos(b);
        }
    }
    out->bin_beams = hist[best];
    out->range = sum_r / hist[best];
    out->bearing = atan2(sum_s, sum_c);
    double a = pose.yaw + out->bearing;
    out->x = pose.x + out->range * cos(a);
    out->y = pose.y + out->range * sin(a);
    out->outcome = TYCHO_FUSION_FOUND;
    return TYCHO_OK;
}
