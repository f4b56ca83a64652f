/* 2.5D terrain grid, traversability and terrain A*: see terrain.h. */
#include "tycho/terrain.h"

#include "tycho/grid.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Per cell after tycho_terrain_traversability: */
enum {
    TRAV_BLOCKED = 0, /* known and failing a criterion, or within the barrier of such a cell */
    TRAV_OK = 1,      /* known and traversable */
    TRAV_UNKNOWN = 2  /* never seen, and not within the barrier of a blocked cell */
};

struct tycho_terrain {
    int w, h;
    double res, ox, oy;
    float *zmin, *zmax;
    int32_t *count;
    uint32_t *batch_of; /* the refreshing batch that last touched a cell (0: none) */
    uint32_t batch;
    uint8_t *trav;    /* TRAV_* below */
    uint8_t *penalty; /* clearance penalty 0..255 (see spread) */
    float *slope;
    size_t outside;
};

tycho_terrain *tycho_terrain_new(int w, int h, double res, double ox, double oy, tycho_err *err)
{
    if (w < 1 || h < 1 || (long long)w * h > (1LL << 26) || !(res > 0) || !isfinite(ox) ||
        !isfinite(oy)) {
        tycho_fail(err, TYCHO_EINVAL,
                   "terrain: sizes must be 1..2^26 cells, resolution > 0, origin finite");
        return NULL;
    }
    tycho_terrain *t = calloc(1, sizeof *t);
    size_t n = (size_t)w * (size_t)h;
    if (t) {
        t->w = w, t->h = h, t->res = res, t->ox = ox, t->oy = oy;
        t->zmin = malloc(n * sizeof *t->zmin);
        t->zmax = malloc(n * sizeof *t->zmax);
        t->count = calloc(n, sizeof *t->count);
        t->batch_of = calloc(n, sizeof *t->batch_of);
        t->trav = calloc(n, 1);
        t->penalty = calloc(n, 1);
        t->slope = calloc(n, sizeof *t->slope);
    }
    if (!t || !t->zmin || !t->zmax || !t->count || !t->batch_of || !t->trav || !t->penalty ||
        !t->slope) {
        tycho_terrain_free(t);
        tycho_fail(err, TYCHO_ENOMEM, "terrain: out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) t->zmin[i] = INFINITY, t->zmax[i] = -INFINITY;
    memset(t->trav, TRAV_UNKNOWN, n); /* nothing seen, nothing blocked */
    return t;
}

void tycho_terrain_free(tycho_terrain *t)
{
    if (!t) return;
    free(t->zmin);
    free(t->zmax);
    free(t->count);
    free(t->batch_of);
    free(t->trav);
    free(t->penalty);
    free(t->slope);
    free(t);
}

int tycho_terrain_width(const tycho_terrain *t) { return t->w; }
int tycho_terrain_height(const tycho_terrain *t) { return t->h; }

size_t tycho_terrain_add_points(tycho_terrain *t, const double *p, size_t n)
{
    return tycho_terrain_add_batch(t, p, n, false);
}

size_t tycho_terrain_add_batch(tycho_terrain *t, const double *p, size_t n, bool refresh)
{
    size_t added = 0;
    if (refresh && ++t->batch == 0) { /* wrapped after 4e9 batches: forget the old marks */
        memset(t->batch_of, 0, (size_t)t->w * t->h * sizeof *t->batch_of);
        t->batch = 1;
    }
    for (size_t i = 0; i < n; i++, p += 3) {
        double fx = (p[0] - t->ox) / t->res, fy = (p[1] - t->oy) / t->res;
        if (!(fx >= 0 && fy >= 0 && fx < t->w && fy < t->h) || !isfinite(p[2])) {
            t->outside++;
            continue;
        }
        size_t k = (size_t)(int)fy * (size_t)t->w + (size_t)(int)fx;
        float z = (float)p[2];
        if (refresh && t->batch_of[k] != t->batch) {
            /* first point of this batch in the cell: the batch replaces what was there */
            t->batch_of[k] = t->batch;
            t->zmin[k] = INFINITY, t->zmax[k] = -INFINITY, t->count[k] = 0;
        }
        if (z < t->zmin[k]) t->zmin[k] = z;
        if (z > t->zmax[k]) t->zmax[k] = z;
        t->count[k]++;
        added++;
    }
    return added;
}

bool tycho_terrain_cell(const tycho_terrain *t, int cx, int cy, double *zmin, double *zmax,
                        int *count)
{
    if (cx < 0 || cy < 0 || cx >= t->w || cy >= t->h) return false;
    size_t k = (size_t)cy * (size_t)t->w + (size_t)cx;
    *count = t->count[k];
    *zmin = t->count[k] ? t->zmin[k] : NAN;
    *zmax = t->count[k] ? t->zmax[k] : NAN;
    return true;
}

void tycho_trav_defaults(tycho_trav_params *p)
{
    p->step_coef = 1.0;
    p->slope_coef = 0.3;
    p->barrier = 0;
    p->margin = 0;
}

/* A known untraversable cell on the edge of its region (a neighbour is not
 * one): the nearest such cell is the nearest obstacle for anything outside. */
static bool obstacle_edge(const tycho_terrain *t, int cx, int cy)
{
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int nx = cx + dx, ny = cy + dy;
            if (nx < 0 || ny < 0 || nx >= t->w || ny >= t->h) continue;
            size_t q = (size_t)ny * t->w + nx;
            if (!(t->count[q] && t->trav[q] == TRAV_BLOCKED)) return true;
        }
    return false;
}

/* The barrier and the clearance penalty round known untraversable cells:
 * each edge cell stamps a disc of radius barrier + margin keeping, per cell,
 * the smallest squared distance (in cells); then cells within the barrier
 * are blocked and those in the margin get a penalty falling linearly from 1
 * at the barrier to 0 at barrier + margin. */
static tycho_status spread(tycho_terrain *t, const tycho_trav_params *p, tycho_err *err)
{
    int w = t->w, h = t->h;
    size_t n = (size_t)w * h;
    memset(t->penalty, 0, n);
    if (!(p->barrier > 0) && !(p->margin > 0)) return TYCHO_OK;
    int r = (int)ceil((p->barrier + p->margin) / t->res);
    double rr = (p->barrier + p->margin) / t->res;
    float *d2 = malloc(n * sizeof *d2);
    if (!d2) return tycho_fail(err, TYCHO_ENOMEM, "terrain: out of memory");
    for (size_t k = 0; k < n; k++) d2[k] = INFINITY;
    for (int cy = 0; cy < h; cy++)
        for (int cx = 0; cx < w; cx++) {
            size_t k = (size_t)cy * w + cx;
            if (!t->count[k] || t->trav[k] != TRAV_BLOCKED || !obstacle_edge(t, cx, cy)) continue;
            for (int dy = -r; dy <= r; dy++) {
                int ny = cy + dy;
                if (ny < 0 || ny >= h) continue;
                for (int dx = -r; dx <= r; dx++) {
                    int nx = cx + dx;
                    float dd = (float)(dx * dx + dy * dy);
                    if (nx < 0 || nx >= w || dd > rr * rr + 1e-6) continue;
                    size_t q = (size_t)ny * w + nx;
                    if (dd < d2[q]) d2[q] = dd;
                }
            }
        }
    double b2 = p->barrier * p->barrier / (t->res * t->res) + 1e-6;
    for (size_t k = 0; k < n; k++) {
        if (!isfinite(d2[k])) continue;
        if (d2[k] <= b2) {
            t->trav[k] = TRAV_BLOCKED;
        } else if (p->margin > 0) {
            double beyond = (sqrt(d2[k]) * t->res - p->barrier) / p->margin;
            t->penalty[k] = (uint8_t)lround(255 * fmax(0, 1 - beyond));
        }
    }
    free(d2);
    return TYCHO_OK;
}

tycho_status tycho_terrain_traversability(tycho_terrain *t, const tycho_trav_params *p,
                                          tycho_err *err)
{
    if (!(p->step_coef >= 0) || !(p->slope_coef >= 0) || !(p->barrier >= 0) || !(p->margin >= 0))
        return tycho_fail(err, TYCHO_EINVAL,
                          "step_coef, slope_coef, barrier and margin must be >= 0");
    int w = t->w, h = t->h;
    double step_max = t->res * p->step_coef;
    for (int cy = 0; cy < h; cy++)
        for (int cx = 0; cx < w; cx++) {
            size_t k = (size_t)cy * w + cx;
            t->slope[k] = 0;
            if (!t->count[k]) {
                t->trav[k] = TRAV_UNKNOWN;
                continue;
            }
            bool ok = t->zmax[k] - t->zmin[k] <= step_max + 1e-9;
            double mid = 0.5 * (t->zmin[k] + t->zmax[k]), worst = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int nx = cx + dx, ny = cy + dy;
                    if ((!dx && !dy) || nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                    size_t q = (size_t)ny * w + nx;
                    if (!t->count[q]) continue;
                    double d = (dx && dy) ? t->res * M_SQRT2 : t->res;
                    double grad = fabs(mid - 0.5 * (t->zmin[q] + t->zmax[q])) / d;
                    if (grad > worst) worst = grad;
                }
            t->slope[k] = (float)worst;
            if (worst > p->slope_coef + 1e-9) ok = false;
            t->trav[k] = ok ? TRAV_OK : TRAV_BLOCKED;
        }
    return spread(t, p, err);
}

bool tycho_terrain_traversable(const tycho_terrain *t, int cx, int cy)
{
    return cx >= 0 && cy >= 0 && cx < t->w && cy < t->h &&
           t->trav[(size_t)cy * t->w + cx] == TRAV_OK;
}

tycho_grid *tycho_terrain_to_grid(const tycho_terrain *t, tycho_err *err)
{
    tycho_grid *g =
        tycho_grid_new(t->w, t->h, t->res, (tycho_pose2){t->ox, t->oy, 0}, TYCHO_COST_UNKNOWN, err);
    if (!g) return NULL;
    uint8_t *c = tycho_grid_cells(g);
    size_t n = (size_t)t->w * t->h;
    for (size_t k = 0; k < n; k++) {
        if (t->trav[k] == TRAV_OK) c[k] = TYCHO_COST_FREE;
        else if (t->trav[k] == TRAV_BLOCKED)
            c[k] = t->count[k] ? TYCHO_COST_LETHAL : TYCHO_COST_INSCRIBED;
    }
    return g;
}

bool tycho_terrain_blocked(const tycho_terrain *t, int cx, int cy)
{
    return cx < 0 || cy < 0 || cx >= t->w || cy >= t->h ||
           t->trav[(size_t)cy * t->w + cx] == TRAV_BLOCKED;
}

int tycho_terrain_first_blocked(const tycho_terrain *t, const int *cells, int n)
{
    for (int i = 0; i < n; i++)
        if (tycho_terrain_blocked(t, cells[2 * i], cells[2 * i + 1])) return i;
    return -1;
}

double tycho_terrain_slope(const tycho_terrain *t, int cx, int cy)
{
    if (cx < 0 || cy < 0 || cx >= t->w || cy >= t->h) return 0;
    return t->slope[(size_t)cy * t->w + cx];
}

typedef struct {
    double f;
    int k;
} hent;

static void hpush(hent *h, size_t *n, hent e)
{
    size_t i = (*n)++;
    while (i && e.f < h[(i - 1) / 2].f) h[i] = h[(i - 1) / 2], i = (i - 1) / 2;
    h[i] = e;
}

static hent hpop(hent *h, size_t *n)
{
    hent top = h[0], e = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && h[c + 1].f < h[c].f) c++;
        if (!(h[c].f < e.f)) break;
        h[i] = h[c], i = c;
    }
    if (*n) h[i] = e;
    return top;
}

void tycho_terrain_plan_defaults(tycho_terrain_plan_opts *o)
{
    o->slope_weight = 1.0;
    o->unknown_cost = -1;
    o->clearance_weight = 0;
    o->roughness_weight = 0;
}

tycho_status tycho_terrain_plan(const tycho_terrain *t, tycho_cell start_cell, tycho_cell goal_cell,
                                const tycho_terrain_plan_opts *opts, tycho_path *out,
                                tycho_err *err)
{
    tycho_terrain_plan_opts defaults;
    tycho_terrain_plan_defaults(&defaults);
    const tycho_terrain_plan_opts *o = opts ? opts : &defaults;
    const int sx = start_cell.x, sy = start_cell.y, gx = goal_cell.x, gy = goal_cell.y;
    out->count = 0;
    /* passable[TRAV_*]: unknown cells only when the caller prices them */
    const uint8_t passable[3] = {0, 1, o->unknown_cost >= 1};
    const double unknown_cost = o->unknown_cost >= 1 ? o->unknown_cost : 1,
                 slope_weight = o->slope_weight;
    const double clearance_weight = o->clearance_weight / 255.0,
                 rough_weight = o->roughness_weight / t->res;
    if (sx < 0 || sy < 0 || gx < 0 || gy < 0 || sx >= t->w || gx >= t->w || sy >= t->h ||
        gy >= t->h)
        return tycho_fail(err, TYCHO_ENOPATH, "terrain plan: start or goal off the map");
    if (!passable[t->trav[sy * t->w + sx]] || !passable[t->trav[gy * t->w + gx]])
        return tycho_fail(err, TYCHO_ENOPATH, "terrain plan: the %s is not passable",
                          passable[t->trav[sy * t->w + sx]] ? "goal" : "start");
    int w = t->w;
    size_t n = (size_t)w * t->h;
    double *g = malloc(n * sizeof *g);
    int32_t *par = malloc(n * sizeof *par);
    uint8_t *closed = calloc(n, 1);
    size_t hcap = 4096, hn = 0;
    hent *heap = malloc(hcap * sizeof *heap);
    const uint8_t *trav = t->trav;
    int h = t->h;
    tycho_status result = TYCHO_ENOMEM;
    if (!g || !par || !closed || !heap) goto out;
    for (size_t i = 0; i < n; i++) g[i] = INFINITY;
    int start = sy * w + sx, goal = gy * w + gx;
    g[start] = 0;
    par[start] = -1;
    hpush(heap, &hn, (hent){0, start});
    static const int DX[8] = {1, -1, 0, 0, 1, 1, -1, -1}, DY[8] = {0, 0, 1, -1, 1, -1, 1, -1};
    while (hn) {
        hent e = hpop(heap, &hn);
        if (closed[e.k]) continue;
        closed[e.k] = 1;
        if (e.k == goal) break;
        int cx = e.k % w, cy = e.k / w;
        for (int d = 0; d < 8; d++) {
            int nx = cx + DX[d], ny = cy + DY[d];
            if (nx < 0 || ny < 0 || nx >= w || ny >= h || !passable[trav[ny * w + nx]]) continue;
            if (DX[d] && DY[d] && (!passable[trav[cy * w + nx]] || !passable[trav[ny * w + cx]]))
                continue; /* no corner cutting (both orthogonal cells are in the grid) */
            int q = ny * w + nx;
            if (closed[q]) continue;
            double dist = (DX[d] && DY[d]) ? M_SQRT2 : 1.0;
            double grad = 0.5 * (t->slope[e.k] + t->slope[q]);
            /* roughness: the height range inside the entered cell, per metre of cell */
            double rough = t->count[q] ? (double)(t->zmax[q] - t->zmin[q]) : 0;
            double step = dist * t->res * (1 + slope_weight * grad + rough_weight * rough);
            if (trav[q] == TRAV_UNKNOWN) step *= unknown_cost;
            step *= 1 + clearance_weight * t->penalty[q];
            double ng = g[e.k] + step;
            if (ng < g[q]) {
                g[q] = ng;
                par[q] = e.k;
                double hx = fabs((double)(nx - gx)), hy = fabs((double)(ny - gy));
                double hh = (fmax(hx, hy) + (M_SQRT2 - 1) * fmin(hx, hy)) * t->res;
                if (hn == hcap) {
                    hent *bigger = realloc(heap, 2 * hcap * sizeof *heap);
                    if (!bigger) goto out;
                    heap = bigger, hcap *= 2;
                }
                hpush(heap, &hn, (hent){ng + hh, q});
            }
        }
    }
    if (!closed[goal]) {
        result = TYCHO_ENOPATH;
        goto out;
    }
    size_t len = 0;
    for (int k = goal; k != -1; k = par[k]) len++;
    if (tycho_path_reserve(out, len, NULL) != TYCHO_OK) goto out;
    size_t i = len;
    for (int k = goal; k != -1; k = par[k]) out->cells[--i] = (tycho_cell){k % w, k / w};
    out->count = len;
    out->cost = g[goal];
    out->length = tycho_path_geometric_length(out);
    result = TYCHO_OK;
out:
    free(g);
    free(par);
    free(closed);
    free(heap);
    if (result == TYCHO_ENOMEM) return tycho_fail(err, result, "terrain plan: out of memory");
    if (result == TYCHO_ENOPATH)
        return tycho_fail(err, result, "terrain plan: no path over %s cells",
                          o->unknown_cost >= 1 ? "traversable or unknown" : "traversable");
    return result;
}

bool tycho_terrain_plane_fit(const tycho_terrain *t, int cx, int cy, int radius, double *slope,
                             double *roughness)
{
    if (radius < 1 || radius > 16) return false;
    /* normal equations in coordinates relative to the cell (well conditioned) */
    double sxx = 0, sxy = 0, syy = 0, sx = 0, sy = 0, n = 0, sxz = 0, syz = 0, sz = 0;
    for (int j = -radius; j <= radius; j++)
        for (int i = -radius; i <= radius; i++) {
            int x = cx + i, y = cy + j;
            if (x < 0 || y < 0 || x >= t->w || y >= t->h) continue;
            size_t k = (size_t)y * t->w + x;
            if (!t->count[k]) continue;
            double px = i * t->res, py = j * t->res, z = 0.5 * ((double)t->zmin[k] + t->zmax[k]);
            sxx += px * px, sxy += px * py, syy += py * py, sx += px, sy += py, n += 1;
            sxz += px * z, syz += py * z, sz += z;
        }
    if (n < 3) return false;
    /* solve [sxx sxy sx; sxy syy sy; sx sy n] [a b c] = [sxz syz sz] (Cramer) */
    double det = sxx * (syy * n - sy * sy) - sxy * (sxy * n - sy * sx) + sx * (sxy * sy - syy * sx);
    double scale = n * pow(radius * t->res, 4);
    if (fabs(det) < 1e-9 * scale) return false; /* collinear */
    double a =
        (sxz * (syy * n - sy * sy) - sxy * (syz * n - sy * sz) + sx * (syz * sy - syy * sz)) / det;
    double b =
        (sxx * (syz * n - sz * sy) - sxz * (sxy * n - sy * sx) + sx * (sxy * sz - syz * sx)) / det;
    double c =
        (sxx * (syy * sz - sy * syz) - sxy * (sxy * sz - sy * sxz) + sx * (sxy * syz - syy * sxz)) /
        det;
    double ss = 0;
    for (int j = -radius; j <= radius; j++)
        for (int i = -radius; i <= radius; i++) {
            int x = cx + i, y = cy + j;
            if (x < 0 || y < 0 || x >= t->w || y >= t->h) continue;
            size_t k = (size_t)y * t->w + x;
            if (!t->count[k]) continue;
            double r =
                0.5 * ((double)t->zmin[k] + t->zmax[k]) - (a * i * t->res + b * j * t->res + c);
            ss += r * r;
        }
    if (slope) *slope = atan(hypot(a, b));
    if (roughness) *roughness = sqrt(ss / n);
    return true;
}
