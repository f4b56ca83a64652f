/* Mean hits per cell and point-to-line refinement: see pointmap.h. */
#include "tycho/pointmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A cell: the mean of its hits as offsets from the cell's corner (metres,
 * small numbers: floats keep them to well under a micrometre), and how many
 * hits the mean is over (capped: see pointmap.h). */
typedef struct {
    float mx, my;
    uint16_t n;
} cell;

struct tycho_pointmap {
    double res;
    long x0, y0; /* world cell index of cells[0] */
    int w, h;
    cell *cells; /* w x h, row-major; NULL once compacted */
    size_t used;
    /* compacted (read-only): the used cells in an open-addressed hash of
     * cap slots keyed by 1 + their index in the w x h box (0: empty) */
    uint32_t *keys;
    cell *slots;
    size_t cap;
};

#define GROW_MARGIN 64 /* cells added round a point that falls outside */
#define FAR 1e6        /* m: farther from the origin is refused */

tycho_pointmap *tycho_pointmap_new(double resolution)
{
    if (!(isfinite(resolution) && resolution > 0)) return NULL;
    tycho_pointmap *pm = calloc(1, sizeof *pm);
    if (pm) pm->res = resolution;
    return pm;
}

void tycho_pointmap_free(tycho_pointmap *pm)
{
    if (!pm) return;
    free(pm->cells);
    free(pm->keys);
    free(pm->slots);
    free(pm);
}

/* The hash's first slot for a key (Fibonacci hashing). */
static inline size_t slot_of(uint32_t key, size_t cap)
{
    return (size_t)((key * 2654435769u) & (uint32_t)(cap - 1));
}

size_t tycho_pointmap_cells(const tycho_pointmap *pm) { return pm ? pm->used : 0; }

/* The cell of world cell index (i, j), or NULL outside the grid (or, once
 * compacted, where no hit fell). */
static inline cell *cell_at(const tycho_pointmap *pm, long i, long j)
{
    long x = i - pm->x0, y = j - pm->y0;
    if (x < 0 || y < 0 || x >= pm->w || y >= pm->h) return NULL;
    if (pm->cells) return &pm->cells[(size_t)y * pm->w + x];
    uint32_t key = (uint32_t)((size_t)y * pm->w + x) + 1;
    for (size_t k = slot_of(key, pm->cap);; k = (k + 1) & (pm->cap - 1)) {
        if (pm->keys[k] == key) return &pm->slots[k];
        if (pm->keys[k] == 0) return NULL;
    }
}

tycho_status tycho_pointmap_compact(tycho_pointmap *pm, tycho_err *err)
{
    if (!pm) return tycho_fail(err, TYCHO_EINVAL, "no map");
    if (!pm->cells) return TYCHO_OK;
    if ((uint64_t)pm->w * (uint64_t)pm->h >= UINT32_MAX)
        return tycho_fail(err, TYCHO_ERANGE, "point map too large to compact");
    size_t cap = 16;
    while (cap < 2 * pm->used + 1) cap *= 2; /* at most half full: short probes */
    uint32_t *keys = calloc(cap, sizeof *keys);
    cell *slots = malloc(cap * sizeof *slots);
    if (!keys || !slots) {
        free(keys);
        free(slots);
        return tycho_fail(err, TYCHO_ENOMEM, "out of memory compacting the point map");
    }
    for (size_t idx = 0; idx < (size_t)pm->w * pm->h; idx++) {
        if (pm->cells[idx].n == 0) continue;
        uint32_t key = (uint32_t)idx + 1;
        size_t k = slot_of(key, cap);
        while (keys[k]) k = (k + 1) & (cap - 1);
        keys[k] = key;
        slots[k] = pm->cells[idx];
    }
    free(pm->cells);
    pm->cells = NULL;
    pm->keys = keys;
    pm->slots = slots;
    pm->cap = cap;
    return TYCHO_OK;
}

size_t tycho_pointmap_bytes(const tycho_pointmap *pm)
{
    if (!pm) return 0;
    if (pm->cells) return sizeof *pm + (size_t)pm->w * pm->h * sizeof(cell);
    return sizeof *pm + pm->cap * (sizeof(uint32_t) + sizeof(cell));
}

/* Grows the grid to hold the cell boxes [i0, i1] x [j0, j1]. */
static bool grow_to(tycho_pointmap *pm, long i0, long j0, long i1, long j1)
{
    if (pm->cells && i0 >= pm->x0 && j0 >= pm->y0 && i1 < pm->x0 + pm->w && j1 < pm->y0 + pm->h)
        return true;
    long nx0 = i0 - GROW_MARGIN, ny0 = j0 - GROW_MARGIN;
    long nx1 = i1 + GROW_MARGIN, ny1 = j1 + GROW_MARGIN;
    if (pm->cells) {
        if (pm->x0 < nx0) nx0 = pm->x0;
        if (pm->y0 < ny0) ny0 = pm->y0;
        if (pm->x0 + pm->w - 1 > nx1) nx1 = pm->x0 + pm->w - 1;
        if (pm->y0 + pm->h - 1 > ny1) ny1 = pm->y0 + pm->h - 1;
    }
    long nw = nx1 - nx0 + 1, nh = ny1 - ny0 + 1;
    if (nw > 1 << 16 || nh > 1 << 16) return false;
    cell *c = calloc((size_t)nw * (size_t)nh, sizeof *c);
    if (!c) return false;
    for (int y = 0; y < pm->h; y++)
        memcpy(&c[(size_t)(pm->y0 + y - ny0) * nw + (pm->x0 - nx0)], &pm->cells[(size_t)y * pm->w],
               (size_t)pm->w * sizeof *c);
    free(pm->cells);
    pm->cells = c;
    pm->x0 = nx0;
    pm->y0 = ny0;
    pm->w = (int)nw;
    pm->h = (int)nh;
    return true;
}

static bool usable(const tycho_scan *s, int k)
{
    double r = s->ranges[k];
    return isfinite(r) && r >= s->range_min && r < s->range_max;
}

tycho_status tycho_pointmap_add_scan(tycho_pointmap *pm, const tycho_scan *scan, tycho_pose2 pose,
                                     tycho_err *err)
{
    if (!pm || !scan || !scan->ranges) return tycho_fail(err, TYCHO_EINVAL, "no map or scan");
    if (pm->keys) return tycho_fail(err, TYCHO_EINVAL, "the point map is compacted (read-only)");
    if (!(isfinite(pose.x) && isfinite(pose.y) && isfinite(pose.yaw)))
        return tycho_fail(err, TYCHO_EINVAL, "pose must be finite");
    double reach = fabs(pose.x) + fabs(pose.y) + scan->range_max;
    if (!(reach < FAR)) return tycho_fail(err, TYCHO_ERANGE, "scan reaches beyond 1e6 m");
    /* the box of the scan's reach first, so that a failed growth adds nothing */
    double rm = scan->range_max;
    long i0 = (long)floor((pose.x - rm) / pm->res), i1 = (long)floor((pose.x + rm) / pm->res);
    long j0 = (long)floor((pose.y - rm) / pm->res), j1 = (long)floor((pose.y + rm) / pm->res);
    if (!grow_to(pm, i0, j0, i1, j1))
        return tycho_fail(err, TYCHO_ENOMEM, "out of memory for the point map");
    for (int k = 0; k < scan->count; k++) {
        if (!usable(scan, k)) continue;
        double a = pose.yaw + tycho_scan_angle(scan, k), r = scan->ranges[k];
        double x = pose.x + r * cos(a), y = pose.y + r * sin(a);
        double fi = floor(x / pm->res), fj = floor(y / pm->res);
        cell *c = cell_at(pm, (long)fi, (long)fj);
        if (!c) continue; /* (rounding at the box's edge) */
        float ox = (float)(x - fi * pm->res), oy = (float)(y - fj * pm->res);
        if (c->n == 0) pm->used++;
        if (c->n < TYCHO_POINTMAP_MAX_HITS) c->n++;
        c->mx += (ox - c->mx) / c->n;
        c->my += (oy - c->my) / c->n;
    }
    return TYCHO_OK;
}

bool tycho_pointmap_mean_at(const tycho_pointmap *pm, double x, double y, double *mx, double *my)
{
    if (!pm || !(pm->cells || pm->keys) || !(isfinite(x) && isfinite(y)) ||
        !(fabs(x) + fabs(y) < FAR))
        return false;
    double fi = floor(x / pm->res), fj = floor(y / pm->res);
    const cell *c = cell_at(pm, (long)fi, (long)fj);
    if (!c || c->n == 0) return false;
    *mx = fi * pm->res + c->mx;
    *my = fj * pm->res + c->my;
    return true;
}

void tycho_refine_params_defaults(tycho_refine_params *p)
{
    p->iterations = 5;
    p->max_dist = -1; /* 1.5 cells: set from the map's resolution */
    p->huber = 0.01;
    p->max_shift = 0.1;
    p->max_turn = 5.0 * M_PI / 180.0;
    p->min_pairs = 30;
    p->min_hits = 2;
    p->max_planarity = 0.1;
}

/* The nearest mean to (x, y) among the 3 x 3 cells round it within max_d:
 * true and its cell index and position. */
static bool nearest_mean(const tycho_pointmap *pm, double x, double y, double max_d, int min_hits,
                         long *ci, long *cj, double *qx, double *qy)
{
    long i = (long)floor(x / pm->res), j = (long)floor(y / pm->res);
    double best = max_d * max_d;
    bool found = false;
    for (long dj = -1; dj <= 1; dj++)
        for (long di = -1; di <= 1; di++) {
            const cell *c = cell_at(pm, i + di, j + dj);
            if (!c || c->n < min_hits) continue;
            double mx = (double)(i + di) * pm->res + c->mx, my = (double)(j + dj) * pm->res + c->my;
            double d2 = (mx - x) * (mx - x) + (my - y) * (my - y);
            if (d2 <= best) {
                best = d2;
                found = true;
                *ci = i + di, *cj = j + dj, *qx = mx, *qy = my;
            }
        }
    return found;
}

/* Eigenvalues of the symmetric 2 x 2 [[a, b], [b, d]]. */
static void eig2(double a, double b, double d, double *lmin, double *lmax)
{
    double half_tr = 0.5 * (a + d), disc = sqrt(0.25 * (a - d) * (a - d) + b * b);
    *lmin = half_tr - disc;
    *lmax = half_tr + disc;
}

/* The wall's normal at cell (i, j): the direction of least spread of the
 * means of the 5 x 5 cells round it (their covariance's smaller
 * eigenvector); false where they do not make a line (fewer than 3, or
 * spread across nearly as much as along: a corner). */
static bool normal_at(const tycho_pointmap *pm, long i, long j, int min_hits, double max_planarity,
                      double *nx, double *ny)
{
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    int n = 0;
    for (long dj = -2; dj <= 2; dj++)
        for (long di = -2; di <= 2; di++) {
            const cell *c = cell_at(pm, i + di, j + dj);
            if (!c || c->n < min_hits) continue;
            /* relative to cell (i, j)'s corner: small numbers */
            double x = (double)di * pm->res + c->mx, y = (double)dj * pm->res + c->my;
            sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
            n++;
        }
    if (n < 3) return false;
    double mx = sx / n, my = sy / n;
    double a = sxx / n - mx * mx, b = sxy / n - mx * my, d = syy / n - my * my;
    double lmin, lmax;
    eig2(a, b, d, &lmin, &lmax);
    if (!(lmax > 0) || lmin > max_planarity * lmax) return false;
    /* eigenvector of lmin: (b, lmin - a) or (lmin - d, b), whichever is longer */
    double ux = b, uy = lmin - a, vx = lmin - d, vy = b;
    if (ux * ux + uy * uy < vx * vx + vy * vy) ux = vx, uy = vy;
    double len = hypot(ux, uy);
    if (!(len > 0)) {
        /* axis-aligned: b = 0; the smaller of a, d is across the line */
        ux = a < d ? 1 : 0, uy = a < d ? 0 : 1, len = 1;
    }
    *nx = ux / len;
    *ny = uy / len;
    return true;
}

/* Solves the 3 x 3 symmetric positive definite H x = g (Cholesky); false
 * when H is not. */
static bool solve3(const double H[3][3], const double g[3], double x[3])
{
    double L[3][3] = {{0}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j <= i; j++) {
            double s = H[i][j];
            for (int k = 0; k < j; k++) s -= L[i][k] * L[j][k];
            if (i == j) {
                if (!(s > 0)) return false;
                L[i][i] = sqrt(s);
            } else {
                L[i][j] = s / L[j][j];
            }
        }
    double y[3];
    for (int i = 0; i < 3; i++) {
        double s = g[i];
        for (int k = 0; k < i; k++) s -= L[i][k] * y[k];
        y[i] = s / L[i][i];
    }
    for (int i = 2; i >= 0; i--) {
        double s = y[i];
        for (int k = i + 1; k < 3; k++) s -= L[k][i] * x[k];
        x[i] = s / L[i][i];
    }
    return true;
}

tycho_status tycho_pointmap_refine(const tycho_pointmap *pm, const tycho_scan *scan,
                                   tycho_pose2 guess, const tycho_refine_params *p,
                                   tycho_refine_result *out, tycho_err *err)
{
    if (!pm || !scan || !scan->ranges || !p || !out)
        return tycho_fail(err, TYCHO_EINVAL, "no map, scan, parameters or result");
    if (!(isfinite(guess.x) && isfinite(guess.y) && isfinite(guess.yaw)))
        return tycho_fail(err, TYCHO_EINVAL, "guess must be finite");
    if (p->iterations < 1 || p->iterations > 100)
        return tycho_fail(err, TYCHO_EINVAL, "iterations must be in 1..100 (got %d)",
                          p->iterations);
    double max_d = p->max_dist < 0 ? 1.5 * pm->res : p->max_dist;
    if (!(isfinite(max_d) && isfinite(p->huber) && p->huber > 0 && isfinite(p->max_shift) &&
          p->max_shift >= 0 && isfinite(p->max_turn) && p->max_turn >= 0))
        return tycho_fail(err, TYCHO_EINVAL, "distances must be finite and >= 0 (huber > 0)");
    memset(out, 0, sizeof *out);
    out->pose = guess;
    if (!(pm->cells || pm->keys) || !(fabs(guess.x) + fabs(guess.y) + scan->range_max < FAR))
        return TYCHO_OK;

    tycho_pose2 x = guess;
    double info[3] = {0}; /* translation information of the last step: a, b, d */
    for (int it = 0; it < p->iterations; it++) {
        double H[3][3] = {{0}}, g[3] = {0}, sse = 0;
        int pairs = 0;
        double c = cos(x.yaw), s = sin(x.yaw);
        for (int k = 0; k < scan->count; k++) {
            if (!usable(scan, k)) continue;
            double a = tycho_scan_angle(scan, k), r = scan->ranges[k];
            double lx = r * cos(a), ly = r * sin(a);
            double px = x.x + c * lx - s * ly, py = x.y + s * lx + c * ly;
            long ci, cj;
            double qx, qy, nx, ny;
            if (!nearest_mean(pm, px, py, max_d, p->min_hits, &ci, &cj, &qx, &qy)) continue;
            if (!normal_at(pm, ci, cj, p->min_hits, p->max_planarity, &nx, &ny)) continue;
            double e = nx * (px - qx) + ny * (py - qy);
            /* d(end point)/d(yaw) = (-(py - y), px - x) */
            double J[3] = {nx, ny, nx * -(py - x.y) + ny * (px - x.x)};
            double w = fabs(e) <= p->huber ? 1.0 : p->huber / fabs(e);
            for (int i = 0; i < 3; i++) {
                g[i] += w * J[i] * e;
                for (int j = 0; j < 3; j++) H[i][j] += w * J[i] * J[j];
            }
            sse += e * e;
            pairs++;
        }
        out->pairs = pairs;
        out->rms = pairs ? sqrt(sse / pairs) : 0;
        info[0] = H[0][0], info[1] = H[0][1], info[2] = H[1][1];
        if (pairs < p->min_pairs) return TYCHO_OK;
        /* Damping (Levenberg) at a hundredth of the translation's and of
         * the heading's information: it slows a pinned direction's step by
         * a percent or two, and holds a direction no wall fixes (along a
         * corridor), whose information is only the noise in the walls'
         * normals, where the guess had it: without it that noise alone
         * would slide the pose along the corridor. */
        double damp_t = 1e-2 * (H[0][0] + H[1][1]), damp_r = 1e-2 * H[2][2];
        H[0][0] += damp_t;
        H[1][1] += damp_t;
        H[2][2] += damp_r;
        double d[3];
        if (!solve3(H, g, d)) return TYCHO_OK;
        x.x -= d[0];
        x.y -= d[1];
        x.yaw -= d[2];
        if (fabs(d[0]) + fabs(d[1]) < 1e-5 && fabs(d[2]) < 1e-6) break;
    }
    eig2(info[0], info[1], info[2], &out->info_min, &out->info_max);
    memcpy(out->info, info, sizeof info);
    double shift = hypot(x.x - guess.x, x.y - guess.y),
           turn = fabs(remainder(x.yaw - guess.yaw, 2 * M_PI));
    if (shift > p->max_shift || turn > p->max_turn) return TYCHO_OK;
    out->pose = x;
    out->ok = true;
    return TYCHO_OK;
}
