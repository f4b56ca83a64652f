/* Scan-to-map matching: see scan_match.h. */
#include "tycho/scan_match.h"

#include "tycho/diffdrive.h"
#include "tycho/edt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A field kept compact (tycho_matcher_shrink): 8 x 8 tiles of 8-bit codes
 * into the matcher's palette, only the tiles with a value above zero;
 * index[t] is the tile's place in `data` (in tiles), -1 for an all-zero
 * tile. A finished submap's field is ~0 away from its walls: most of its box
 * is such tiles. The field takes one value per squared cell distance to the
 * nearest wall (its table, up to (3 sigma / res + 1)^2 + 1 entries: 17 at
 * sigma = res), and the pooled field its values too: with at most 255 of
 * them the palette is that table and the codes lose nothing (else values
 * are rounded to steps of 1/254). */
typedef struct {
    int32_t *index;
    uint8_t *data;
    int tw;
    size_t tiles;
} tiled;

/* Where a field's values are: dense floats, or tiles when compact. */
typedef struct {
    const float *dense;
    const tiled *tiles;
} layer;

struct tycho_matcher {
    int w, h;
    double res;
    tycho_pose2 origin;
    double cos_o, sin_o;
    float *field;  /* likelihood, row-major, w*h (NULL when compact) */
    float *pooled; /* the field's maximum over 3 x 3 cells: the coarse pass, stepping 2 cells,
                      cannot step over a peak */
    size_t cap;
    tiled cfield, cpooled; /* the two, compact */
    float lut[256];        /* the field's values by squared distance (set_map), nlut of them */
    int nlut;
    float palette[256]; /* code -> value of the compact fields; code 0 is 0 */
    bool exact_palette; /* the palette is lut: codes are lossless */
    layer lf, lp;       /* where match() reads them */
    uint8_t *mask;
    size_t mask_cap;
    tycho_edt *edt;
    bool ready;
    /* scratch for the beams of one match (cells, LiDAR frame) */
    double *rho, *ang, *ex, *ey;
    int beam_cap;
};

void tycho_match_params_defaults(tycho_match_params *p)
{
    p->window_xy = 0.15;
    p->window_yaw = 6.0 * M_PI / 180.0;
    p->step_yaw = 0.5 * M_PI / 180.0;
    p->beam_stride = 1;
    p->refine_steps = 0;
    p->min_score = 0.25;
    p->degenerate_ratio = 0.02;
    p->prior_xy = 0;
    p->prior_yaw = 0;
    p->plateau_centre = false;
    p->plateau_tol = 0.005;
}

tycho_matcher *tycho_matcher_new(void)
{
    tycho_matcher *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->edt = tycho_edt_new();
    if (!m->edt) {
        free(m);
        return NULL;
    }
    return m;
}

static void tiled_free(tiled *t)
{
    free(t->index);
    free(t->data);
    *t = (tiled){0};
}

void tycho_matcher_free(tycho_matcher *m)
{
    if (!m) return;
    tiled_free(&m->cfield);
    tiled_free(&m->cpooled);
    tycho_edt_free(m->edt);
    free(m->field);
    free(m->pooled);
    free(m->mask);
    free(m->rho);
    free(m->ang);
    free(m->ex);
    free(m->ey);
    free(m);
}

tycho_status tycho_matcher_set_map(tycho_matcher *m, const tycho_grid *g, int occupied,
                                   double sigma, tycho_err *err)
{
    if (!m || !g) return tycho_fail(err, TYCHO_EINVAL, "matcher: no map");
    if (occupied < 1 || occupied > 254)
        return tycho_fail(err, TYCHO_EINVAL, "matcher: occupied cost must be in 1..254 (got %d)",
                          occupied);
    if (!(isfinite(sigma) && sigma > 0))
        return tycho_fail(err, TYCHO_EINVAL, "matcher: sigma must be > 0 m (got %g)", sigma);
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    size_t n = (size_t)w * h;
    tiled_free(&m->cfield);
    tiled_free(&m->cpooled);
    m->ready = false;
    if (n > m->cap || !m->field) {
        float *f = realloc(m->field, n * sizeof *f);
        if (f) m->field = f;
        float *q = f ? realloc(m->pooled, n * sizeof *q) : NULL;
        if (q) m->pooled = q;
        if (!f || !q)
            return tycho_fail(err, TYCHO_ENOMEM, "matcher: out of memory for a %dx%d field", w, h);
        m->cap = n;
    }
    double res = tycho_grid_resolution(g);
    /* the field is negligible beyond 3 sigma */
    int reach = (int)ceil(3.0 * sigma / res) + 1;
    uint8_t sites[256] = {0};
    tycho_edt_sites_range(sites, occupied, 254);
    if (!m->edt && !(m->edt = tycho_edt_new()))
        return tycho_fail(err, TYCHO_ENOMEM, "matcher: out of memory");
    tycho_status st = tycho_edt_prepare(m->edt, tycho_grid_cells_const(g), w, h, sites, reach, err);
    if (st != TYCHO_OK) return st;
    /* exp(-d^2 / 2 sigma^2) with d the distance to the nearest occupied
     * cell's square (its centre's distance less half a cell), by squared
     * centre distance: a small table. Every point inside an occupied cell
     * scores 1: a cell is occupied when a beam ended anywhere in it, so a
     * wall face lies anywhere in its cells, not at their centres (scoring
     * the centres pulled the pose by up to half a cell, always the same
     * way: 3.4 cm of trajectory error with exact odometry). */
    double k = res * res / (2.0 * sigma * sigma);
    float lut[4096];
    int nlut = reach * reach + 1;
    if (nlut > 4096) nlut = 4096;
    for (int d2 = 0; d2 < nlut; d2++) {
        double d = fmax(0.0, sqrt((double)d2) - 0.5);
        lut[d2] = (float)exp(-k * d * d);
    }
    m->nlut = nlut < 256 ? nlut : 0; /* kept for a lossless compact form */
    if (m->nlut) memcpy(m->lut, lut, (size_t)nlut * sizeof *lut);
    for (int y = 0; y < h; y++) {
        const int32_t *row = tycho_edt_row(m->edt, y);
        float *f = m->field + (size_t)y * w;
        if (!row) {
            memset(f, 0, (size_t)w * sizeof *f);
            continue;
        }
        for (int x = 0; x < w; x++) {
            int32_t d2 = row[x];
            f[x] = d2 == TYCHO_EDT_FAR || d2 >= nlut ? 0.0f : lut[d2];
        }
    }
    /* 3 x 3 maximum, separable: along rows into pooled, then down columns in place */
    for (int y = 0; y < h; y++) {
        const float *f = m->field + (size_t)y * w;
        float *q = m->pooled + (size_t)y * w;
        for (int x = 0; x < w; x++) {
            float v = f[x];
            if (x > 0 && f[x - 1] > v) v = f[x - 1];
            if (x + 1 < w && f[x + 1] > v) v = f[x + 1];
            q[x] = v;
        }
    }
    for (int x = 0; x < w; x++) {
        float prev = 0, cur = m->pooled[x];
        for (int y = 0; y < h; y++) {
            float next = y + 1 < h ? m->pooled[(size_t)(y + 1) * w + x] : 0;
            float v = cur;
            if (prev > v) v = prev;
            if (next > v) v = next;
            m->pooled[(size_t)y * w + x] = v;
            prev = cur;
            cur = next;
        }
    }
    m->w = w;
    m->h = h;
    m->res = res;
    m->origin = tycho_grid_origin(g);
    m->cos_o = cos(m->origin.yaw);
    m->sin_o = sin(m->origin.yaw);
    m->lf = (layer){.dense = m->field};
    m->lp = (layer){.dense = m->pooled};
    m->ready = true;
    return TYCHO_OK;
}

/* The palette code of value v: exact when v is in the palette (the field's
 * table, decreasing after code 0), else the nearest of 1/254 steps. */
static uint8_t encode(const tycho_matcher *m, float v)
{
    if (!(v > 0)) return 0;
    if (!m->exact_palette) return (uint8_t)(1 + lrintf(fminf(v, 1.0f) * 254.0f));
    int lo = 1, hi = m->nlut; /* palette[1..nlut] decreasing */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (m->palette[mid] > v) lo = mid + 1;
        else hi = mid;
    }
    /* palette[lo] <= v < palette[lo - 1]: the nearer of the two */
    if (lo > 1 && m->palette[lo - 1] - v < v - m->palette[lo]) lo--;
    return (uint8_t)lo;
}

/* The dense field f (w x h) as 8 x 8 tiles of codes, all-zero tiles left out. */
static bool tile_field(const tycho_matcher *m, tiled *t, const float *f, int w, int h)
{
    int tw = (w + 7) / 8, th = (h + 7) / 8;
    t->tw = tw;
    t->tiles = 0;
    t->index = malloc((size_t)tw * th * sizeof *t->index);
    if (!t->index) return false;
    for (int ty = 0; ty < th; ty++)
        for (int tx = 0; tx < tw; tx++) {
            bool any = false;
            for (int y = ty * 8; y < ty * 8 + 8 && y < h && !any; y++)
                for (int x = tx * 8; x < tx * 8 + 8 && x < w; x++)
                    if (encode(m, f[(size_t)y * w + x])) {
                        any = true;
                        break;
                    }
            t->index[(size_t)ty * tw + tx] = any ? (int32_t)t->tiles++ : -1;
        }
    t->data = calloc(t->tiles ? t->tiles : 1, 64);
    if (!t->data) return false;
    for (int ty = 0; ty < th; ty++)
        for (int tx = 0; tx < tw; tx++) {
            int32_t k = t->index[(size_t)ty * tw + tx];
            if (k < 0) continue;
            uint8_t *d = t->data + (size_t)k * 64;
            for (int y = ty * 8; y < ty * 8 + 8 && y < h; y++)
                for (int x = tx * 8; x < tx * 8 + 8 && x < w; x++)
                    d[(y & 7) * 8 + (x & 7)] = encode(m, f[(size_t)y * w + x]);
        }
    return true;
}

tycho_status tycho_matcher_shrink(tycho_matcher *m, tycho_err *err)
{
    if (!m) return tycho_fail(err, TYCHO_EINVAL, "matcher: no matcher");
    tycho_edt_free(m->edt);
    m->edt = NULL;
    free(m->mask);
    m->mask = NULL;
    m->mask_cap = 0;
    if (!m->ready || !m->field) return TYCHO_OK; /* nothing set, or compact already */
    m->palette[0] = 0;
    m->exact_palette = m->nlut > 0 && m->nlut < 256;
    for (int c = 1; c < 256; c++)
        m->palette[c] =
            m->exact_palette ? (c <= m->nlut ? m->lut[c - 1] : 0.0f) : (float)(c - 1) / 254.0f;
    if (!tile_field(m, &m->cfield, m->field, m->w, m->h) ||
        !tile_field(m, &m->cpooled, m->pooled, m->w, m->h)) {
        tiled_free(&m->cfield);
        tiled_free(&m->cpooled);
        return tycho_fail(err, TYCHO_ENOMEM, "matcher: out of memory compacting a %dx%d field",
                          m->w, m->h);
    }
    free(m->field);
    free(m->pooled);
    m->field = m->pooled = NULL;
    m->cap = 0;
    m->lf = (layer){.tiles = &m->cfield};
    m->lp = (layer){.tiles = &m->cpooled};
    return TYCHO_OK;
}

size_t tycho_matcher_bytes(const tycho_matcher *m)
{
    if (!m) return 0;
    size_t tiles = 0;
    const tiled *t[2] = {&m->cfield, &m->cpooled};
    for (int k = 0; k < 2; k++)
        if (t[k]->index)
            tiles += t[k]->tiles * 64 + (size_t)t[k]->tw * ((m->h + 7) / 8) * sizeof *t[k]->index;
    return m->cap * 2 * sizeof(float) + tiles + (size_t)m->beam_cap * 4 * sizeof(double) +
           sizeof *m;
}

/* The value of cell (cx, cy), inside the field. */
static inline float cell_value(const tycho_matcher *m, const layer *l, int cx, int cy)
{
    if (l->dense) return l->dense[(size_t)cy * m->w + cx];
    int32_t k = l->tiles->index[(size_t)(cy >> 3) * l->tiles->tw + (cx >> 3)];
    return k < 0 ? 0.0f
                 : m->palette[l->tiles->data[(size_t)k * 64 + (size_t)((cy & 7) * 8 + (cx & 7))]];
}

static inline float at_in(const tycho_matcher *m, const layer *l, double u, double v)
{
    /* compared as doubles before the cast: a point 1e9 cells out (a corrupt
     * odometry) does not fit an int, and its cast was an out-of-bounds read */
    if (!(u >= 0 && v >= 0 && u < m->w && v < m->h)) return 0.0f; /* NaN too */
    int cx = (int)u, cy = (int)v;
    return cell_value(m, l, cx, cy);
}

static inline float at(const tycho_matcher *m, double u, double v)
{
    return at_in(m, &m->lf, u, v);
}

/* Bilinear value and gradient (per cell) at (u, v), cell-centred. */
static double bilinear(const tycho_matcher *m, double u, double v, double *gu, double *gv)
{
    double x = u - 0.5, y = v - 0.5;
    if (!(x > -2 && y > -2 && x < m->w + 1 && y < m->h + 1)) {
        *gu = *gv = 0;
        return 0;
    }
    double fx = floor(x), fy = floor(y);
    int x0 = (int)fx, y0 = (int)fy;
    double ax = x - fx, ay = y - fy;
    double q[4];
    for (int k = 0; k < 4; k++) {
        int cx = x0 + (k & 1), cy = y0 + (k >> 1);
        q[k] = (cx >= 0 && cy >= 0 && cx < m->w && cy < m->h) ? cell_value(m, &m->lf, cx, cy) : 0.0;
    }
    *gu = (1 - ay) * (q[1] - q[0]) + ay * (q[3] - q[2]);
    *gv = (1 - ax) * (q[2] - q[0]) + ax * (q[3] - q[1]);
    return (1 - ay) * ((1 - ax) * q[0] + ax * q[1]) + ay * ((1 - ax) * q[2] + ax * q[3]);
}

/* Mean field value of the beams (every `stride`-th) from cell pose (u, v, t). */
static double score_at(const tycho_matcher *m, int nb, double u, double v, double t, int stride)
{
    double s = 0;
    int n = 0;
    for (int i = 0; i < nb; i += stride, n++) {
        double a = t + m->ang[i];
        s += at(m, u + m->rho[i] * cos(a), v + m->rho[i] * sin(a));
    }
    return n ? s / n : 0;
}

/* The same, interpolated: what the refinement climbs. */
static double smooth_score_at(const tycho_matcher *m, int nb, double u, double v, double t)
{
    double s = 0, gu, gv;
    for (int i = 0; i < nb; i++) {
        double a = t + m->ang[i];
        s += bilinear(m, u + m->rho[i] * cos(a), v + m->rho[i] * sin(a), &gu, &gv);
    }
    return nb ? s / nb : 0;
}

/* Best (u, v, t) over a window: headings t0 + k*dt (|k| <= kt), offsets
 * (i, j)*dxy cells (|i|, |j| <= kxy), every `stride`-th beam. */
/* The prior on the guess (scan_match.h: prior_xy, prior_yaw), in score units. */
typedef struct {
    double u0, v0, t0, per_cell, per_rad;
} prior;

static inline double penalty(const prior *pr, double u, double v, double t)
{
    return pr->per_cell * hypot(u - pr->u0, v - pr->v0) + pr->per_rad * fabs(t - pr->t0);
}

static double search(const tycho_matcher *m, const layer *f, const prior *pr, int nb, double *u,
                     double *v, double *t, int kt, double dt, int kxy, double dxy, int stride,
                     double *ex, double *ey)
{
    double bu = *u, bv = *v, bt = *t, best = -1;
    int ne = 0;
    for (int k = -kt; k <= kt; k++) {
        double th = *t + k * dt;
        ne = 0;
        for (int i = 0; i < nb; i += stride, ne++) {
            double a = th + m->ang[i];
            ex[ne] = *u + m->rho[i] * cos(a);
            ey[ne] = *v + m->rho[i] * sin(a);
        }
        for (int j = -kxy; j <= kxy; j++) {
            for (int i = -kxy; i <= kxy; i++) {
                double ou = i * dxy, ov = j * dxy, s = 0;
                for (int e = 0; e < ne; e++) s += at_in(m, f, ex[e] + ou, ey[e] + ov);
                /* the prior: a pose away from the guess must score better
                 * by more (and ties keep the one nearest the guess) */
                s -= ne * penalty(pr, *u + ou, *v + ov, th) + 1e-9 * (abs(k) + abs(i) + abs(j));
                if (s > best) {
                    best = s;
                    bu = *u + ou;
                    bv = *v + ov;
                    bt = th;
                }
            }
        }
    }
    *u = bu;
    *v = bv;
    *t = bt;
    return ne ? best / ne : 0;
}

/* The centroid of the poses on the fine grid around (u, v, t) (the same
 * steps as the fine search) whose score is within tol of `best`. */
static void plateau_centroid(const tycho_matcher *m, const prior *pr, int nb, double *u, double *v,
                             double *t, double dt, int stride, double best, double tol, double *ex,
                             double *ey)
{
    double su = 0, sv = 0, st = 0;
    int count = 0;
    for (int k = -4; k <= 4; k++) {
        double th = *t + k * dt;
        int ne = 0;
        for (int i = 0; i < nb; i += stride, ne++) {
            double a = th + m->ang[i];
            ex[ne] = *u + m->rho[i] * cos(a);
            ey[ne] = *v + m->rho[i] * sin(a);
        }
        if (!ne) return;
        for (int j = -4; j <= 4; j++)
            for (int i = -4; i <= 4; i++) {
                double ou = i * 0.5, ov = j * 0.5, s = 0;
                for (int e = 0; e < ne; e++) s += at_in(m, &m->lf, ex[e] + ou, ey[e] + ov);
                s = s / ne - penalty(pr, *u + ou, *v + ov, th);
                if (s >= best - tol) {
                    su += ou;
                    sv += ov;
                    st += k * dt;
                    count++;
                }
            }
    }
    if (count) {
        *u += su / count;
        *v += sv / count;
        *t += st / count;
    }
}

/* Gauss-Newton: minimises sum (1 - M(p_i))^2; fills the normal matrix H. */
static void refine(const tycho_matcher *m, int nb, double *u, double *v, double *t, int steps,
                   double H[3][3])
{
    for (int it = 0; it <= steps; it++) {
        double A[3][3] = {{0}}, b[3] = {0};
        for (int i = 0; i < nb; i++) {
            double a = *t + m->ang[i], ca = cos(a), sa = sin(a);
            double gu, gv, val = bilinear(m, *u + m->rho[i] * ca, *v + m->rho[i] * sa, &gu, &gv);
            double g[3] = {gu, gv, gu * (-m->rho[i] * sa) + gv * (m->rho[i] * ca)};
            double r = 1.0 - val;
            for (int p = 0; p < 3; p++) {
                b[p] += g[p] * r;
                for (int q = 0; q < 3; q++) A[p][q] += g[p] * g[q];
            }
        }
        memcpy(H, A, sizeof A);
        if (it == steps) break;
        /* solve A d = b (3x3, Cramer's rule; a tiny damping keeps it regular) */
        for (int p = 0; p < 3; p++) A[p][p] += 1e-6 + 1e-3 * A[p][p];
        double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
                     A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                     A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
        if (!(fabs(det) > 1e-18)) break;
        double d[3];
        for (int c = 0; c < 3; c++) {
            double M[3][3];
            memcpy(M, A, sizeof M);
            for (int r = 0; r < 3; r++) M[r][c] = b[r];
            d[c] = (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                    M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                    M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])) /
                   det;
        }
        /* one step moves at most a cell and a degree: the field's gradient
         * is only meaningful that close */
        double step = sqrt(d[0] * d[0] + d[1] * d[1]);
        if (step > 1.0) {
            d[0] /= step;
            d[1] /= step;
        }
        if (d[2] > 0.0175) d[2] = 0.0175;
        if (d[2] < -0.0175) d[2] = -0.0175;
        *u += d[0];
        *v += d[1];
        *t += d[2];
    }
}

static bool grow_beams(tycho_matcher *m, int n)
{
    if (n <= m->beam_cap) return true;
    double **arrays[4] = {&m->rho, &m->ang, &m->ex, &m->ey};
    for (int k = 0; k < 4; k++) {
        double *q = realloc(*arrays[k], (size_t)n * sizeof *q);
        if (!q) return false;
        *arrays[k] = q;
    }
    m->beam_cap = n;
    return true;
}

tycho_status tycho_matcher_match(tycho_matcher *m, const tycho_scan *scan, tycho_pose2 guess,
                                 const tycho_match_params *p, tycho_match_result *out,
                                 tycho_err *err)
{
    tycho_match_params def;
    if (!p) {
        tycho_match_params_defaults(&def);
        p = &def;
    }
    memset(out, 0, sizeof *out);
    out->pose = guess;
    if (!m || !m->ready) return tycho_fail(err, TYCHO_EINVAL, "matcher: no map set");
    if (!scan || scan->count < 1 || !scan->ranges)
        return tycho_fail(err, TYCHO_EINVAL, "matcher: empty scan");
    if (!(isfinite(guess.x) && isfinite(guess.y) && isfinite(guess.yaw)))
        return tycho_fail(err, TYCHO_EINVAL, "matcher: the guess is not finite");
    if (!(p->window_xy >= 0 && p->window_xy <= 5 && p->window_yaw >= 0 && p->window_yaw <= M_PI &&
          p->step_yaw > 0 && p->beam_stride >= 1 && p->refine_steps >= 0 &&
          p->refine_steps <= 100 && p->min_score >= 0 && p->min_score <= 1 &&
          p->degenerate_ratio >= 0 && p->degenerate_ratio <= 1 && p->prior_xy >= 0 &&
          p->prior_xy <= 100 && p->prior_yaw >= 0 && p->prior_yaw <= 100))
        return tycho_fail(
            err, TYCHO_EINVAL,
            "matcher: bad parameters (window_xy 0..5 m, window_yaw 0..pi, step_yaw > 0, "
            "beam_stride >= 1, refine_steps 0..100, min_score and degenerate_ratio 0..1, "
            "prior_xy and prior_yaw 0..100)");
    if (!grow_beams(m, scan->count)) return tycho_fail(err, TYCHO_ENOMEM, "matcher: out of memory");
    int nb = 0;
    for (int i = 0; i < scan->count; i++) {
        double r = scan->ranges[i];
        if (!isfinite(r) || r < scan->range_min || r >= scan->range_max || r <= 0) continue;
        m->rho[nb] = r / m->res;
        m->ang[nb] = tycho_scan_angle(scan, i);
        nb++;
    }
    out->beams = nb;
    if (nb < 10) return TYCHO_OK; /* too little to go on: keep the guess */
    /* the guess in map cells */
    double dx = guess.x - m->origin.x, dy = guess.y - m->origin.y;
    double u = (m->cos_o * dx + m->sin_o * dy) / m->res,
           v = (-m->sin_o * dx + m->cos_o * dy) / m->res;
    double t = guess.yaw - m->origin.yaw;
    out->guess_score = score_at(m, nb, u, v, t, 1);
    double *ex = m->ex, *ey = m->ey;
    /* 1. coarse */
    double win = p->window_xy / m->res;
    int kxy = (int)ceil(win / 2.0), kt = (int)ceil(p->window_yaw / (4 * p->step_yaw));
    prior pr = {u, v, t, p->prior_xy * m->res, p->prior_yaw};
    search(m, &m->lp, &pr, nb, &u, &v, &t, kt, 4 * p->step_yaw, kxy, 2.0, 4, ex, ey);
    /* 2. fine */
    double fine =
        search(m, &m->lf, &pr, nb, &u, &v, &t, 4, p->step_yaw, 4, 0.5, p->beam_stride, ex, ey);
    if (p->plateau_centre)
        plateau_centroid(m, &pr, nb, &u, &v, &t, p->step_yaw, p->beam_stride, fine, p->plateau_tol,
                         ex, ey);
    /* 3. refine below the search's steps: a parabola through the
     * interpolated score at -h, 0, +h along each axis, its peak taken when
     * it lies within the step (twice over, with halved steps). (A
     * Gauss-Newton step on sum (1 - L)^2, as Hector does on an occupancy
     * map, settled off the peak of this Gaussian-shaped field.) */
    double hs[3] = {0.5, 0.5, p->step_yaw};
    for (int pass = 0; pass < p->refine_steps && pass < 4; pass++) {
        for (int axis = 0; axis < 3; axis++) {
            double *q = axis == 0 ? &u : axis == 1 ? &v : &t, h = hs[axis], c = *q;
            *q = c - h;
            double sm = smooth_score_at(m, nb, u, v, t);
            *q = c + h;
            double sp = smooth_score_at(m, nb, u, v, t);
            *q = c;
            double s0 = smooth_score_at(m, nb, u, v, t);
            double den = sm - 2 * s0 + sp;
            if (den < -1e-12) {
                double off = 0.5 * (sm - sp) / den * h;
                if (fabs(off) <= h) *q = c + off;
            }
            hs[axis] *= 0.5;
        }
    }
    double H[3][3] = {{0}};
    double ru = u, rv = v, rt = t;
    refine(m, nb, &ru, &rv, &rt, 0, H); /* the information at the pose */
    double best = score_at(m, nb, u, v, t, 1);
    /* translation information, per m^2 */
    double a = H[0][0], b = H[0][1], c = H[1][1];
    double tr = a + c, det = a * c - b * b, disc = sqrt(fmax(0.0, tr * tr / 4 - det));
    double r2 = m->res * m->res;
    out->info_max = (tr / 2 + disc) / r2;
    out->info_min = fmax(0.0, tr / 2 - disc) / r2;
    out->degenerate = !(out->info_max > 0) || out->info_min < p->degenerate_ratio * out->info_max;
    /* the match's uncertainty, Gauss-Newton's: the beams' mean squared
     * residual over the information (sigma^2 H^-1), the weakest translation
     * direction and the heading */
    double res2 = 0, gu, gv;
    for (int i = 0; i < nb; i++) {
        double an = t + m->ang[i];
        double l = bilinear(m, u + m->rho[i] * cos(an), v + m->rho[i] * sin(an), &gu, &gv);
        res2 += (1 - l) * (1 - l) / nb;
    }
    out->sigma_xy = out->info_min > 0 ? sqrt(res2 / out->info_min) : INFINITY;
    out->sigma_yaw = H[2][2] > 0 ? sqrt(res2 / H[2][2]) : INFINITY;
    out->score = best;
    out->ok = best >= p->min_score;
    if (out->ok) {
        double wx = u * m->res, wy = v * m->res;
        out->pose.x = m->origin.x + m->cos_o * wx - m->sin_o * wy;
        out->pose.y = m->origin.y + m->sin_o * wx + m->cos_o * wy;
        out->pose.yaw = tycho_angle_wrap(t + m->origin.yaw);
    }
    return TYCHO_OK;
}
