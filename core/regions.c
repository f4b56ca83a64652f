/* Flood fill, sealing and connected components over a grid's cost layer. */
#include "tycho/regions.h"
#include "clip_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THICKNESS 256

void tycho_region_defaults(tycho_region_params *p)
{
    p->min_cost = TYCHO_COST_FREE;
    p->max_cost = TYCHO_COST_INSCRIBED - 1;
    p->connectivity = 8;
}

tycho_status tycho_region_check(const tycho_region_params *p, tycho_err *err)
{
    if (p->min_cost < 0 || p->min_cost > 255)
        return tycho_fail(err, TYCHO_EINVAL, "min_cost must be 0..255 (got %d)", p->min_cost);
    if (p->max_cost < 0 || p->max_cost > 255)
        return tycho_fail(err, TYCHO_EINVAL, "max_cost must be 0..255 (got %d)", p->max_cost);
    if (p->min_cost > p->max_cost)
        return tycho_fail(err, TYCHO_EINVAL, "min_cost %d is above max_cost %d", p->min_cost,
                          p->max_cost);
    if (p->connectivity != 4 && p->connectivity != 8)
        return tycho_fail(err, TYCHO_EINVAL, "connectivity must be 4 or 8 (got %d)",
                          p->connectivity);
    return TYCHO_OK;
}

static const int NDX[8] = {1, -1, 0, 0, 1, 1, -1, -1};
static const int NDY[8] = {0, 0, 1, -1, 1, -1, 1, -1};

static void match_table(const tycho_region_params *p, bool m[256])
{
    for (int c = 0; c < 256; c++) m[c] = c >= p->min_cost && c <= p->max_cost;
}

/* --- flood fill ------------------------------------------------------------- */

struct tycho_regions {
    uint8_t *seen; /* all zero between calls: cleared through the cell list */
    size_t seen_cap;
    tycho_cell *cells; /* the region, in BFS order; also the BFS queue */
    size_t n, cap;
    int width; /* of the last fill */
};

tycho_regions *tycho_regions_new(void) { return calloc(1, sizeof(tycho_regions)); }

void tycho_regions_free(tycho_regions *ws)
{
    if (!ws) return;
    free(ws->seen);
    free(ws->cells);
    free(ws);
}

static bool append(tycho_regions *ws, int x, int y)
{
    if (ws->n == ws->cap) {
        size_t cap = ws->cap ? ws->cap * 2 : 1024;
        tycho_cell *c = realloc(ws->cells, cap * sizeof *c);
        if (!c) return false;
        ws->cells = c;
        ws->cap = cap;
    }
    ws->cells[ws->n++] = (tycho_cell){x, y};
    return true;
}

tycho_status tycho_flood_fill(tycho_regions *ws, const tycho_grid *g, int cx, int cy,
                              const tycho_region_params *pp, size_t *count, tycho_err *err)
{
    tycho_region_params def;
    if (!pp) {
        tycho_region_defaults(&def);
        pp = &def;
    }
    ws->n = 0;
    if (count) *count = 0;
    tycho_status st = tycho_region_check(pp, err);
    if (st) return st;
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    size_t total = (size_t)w * h;
    if (total > ws->seen_cap) {
        free(ws->seen);
        ws->seen = calloc(total, 1);
        ws->seen_cap = ws->seen ? total : 0;
        if (!ws->seen)
            return tycho_fail(err, TYCHO_ENOMEM, "out of memory for a %dx%d flood fill", w, h);
    }
    ws->width = w;
    const uint8_t *cost = tycho_grid_cells_const(g);
    bool m[256];
    match_table(pp, m);
    if (!tycho_grid_in_bounds_wh(w, h, cx, cy) || !m[cost[(size_t)cy * w + cx]]) return TYCHO_OK;

    bool ok = append(ws, cx, cy);
    ws->seen[(size_t)cy * w + cx] = 1;
    for (size_t q = 0; ok && q < ws->n; q++) {
        tycho_cell c = ws->cells[q];
        for (int j = 0; j < pp->connectivity; j++) {
            int x = c.x + NDX[j], y = c.y + NDY[j];
            if (!tycho_grid_in_bounds_wh(w, h, x, y)) continue;
            size_t i = (size_t)y * w + x;
            if (ws->seen[i] || !m[cost[i]]) continue;
            ws->seen[i] = 1;
            if (!append(ws, x, y)) {
                ok = false;
                break;
            }
        }
    }
    for (size_t k = 0; k < ws->n; k++) ws->seen[(size_t)ws->cells[k].y * w + ws->cells[k].x] = 0;
    if (!ok) {
        ws->n = 0;
        return tycho_fail(err, TYCHO_ENOMEM, "out of memory in a flood fill");
    }
    if (count) *count = ws->n;
    return TYCHO_OK;
}

const tycho_cell *tycho_regions_cells(const tycho_regions *ws, size_t *n)
{
    *n = ws->n;
    return ws->cells;
}

size_t tycho_regions_set(const tycho_regions *ws, tycho_grid *g, uint8_t value)
{
    size_t changed = 0;
    for (size_t k = 0; k < ws->n; k++) {
        tycho_cell c = ws->cells[k];
        if (tycho_grid_get(g, c.x, c.y) != value && tycho_grid_set(g, c.x, c.y, value)) changed++;
    }
    return changed;
}

tycho_status tycho_seal_region(tycho_regions *ws, tycho_grid *g, int cx, int cy,
                               const tycho_region_params *p, size_t *sealed, tycho_err *err)
{
    if (sealed) *sealed = 0;
    tycho_status st = tycho_flood_fill(ws, g, cx, cy, p, NULL, err);
    if (st) return st;
    size_t n = tycho_regions_set(ws, g, TYCHO_COST_LETHAL);
    if (sealed) *sealed = n;
    return TYCHO_OK;
}

/* --- lines ------------------------------------------------------------------ */

static int clampi(double v, int hi)
{
    int i = (int)floor(v);
    return i < 0 ? 0 : i > hi ? hi : i;
}

static void visit_in(int w, int h, tycho_cell_visit visit, void *ctx, int x, int y)
{
    if (tycho_grid_in_bounds_wh(w, h, x, y)) visit(ctx, x, y);
}

void tycho_supercover(double mx0, double my0, double mx1, double my1, int w, int h,
                      tycho_cell_visit visit, void *ctx)
{
    if (w <= 0 || h <= 0 || !isfinite(mx0) || !isfinite(my0) || !isfinite(mx1) || !isfinite(my1))
        return;
    if (!tycho_clip_segment(&mx0, &my0, &mx1, &my1, 0, 0, w, h)) return;
    /* Amanatides-Woo traversal with a step budget (not an end-cell test), so
     * rounding can never make it run past the end. */
    int x = clampi(mx0, w - 1), y = clampi(my0, h - 1);
    int ex = clampi(mx1, w - 1), ey = clampi(my1, h - 1);
    double dx = mx1 - mx0, dy = my1 - my0;
    int sx = dx > 0 ? 1 : -1, sy = dy > 0 ? 1 : -1;
    double tdx = dx != 0 ? 1.0 / fabs(dx) : INFINITY, tdy = dy != 0 ? 1.0 / fabs(dy) : INFINITY;
    double tx = dx != 0 ? ((x + (sx > 0)) - mx0) / dx : INFINITY;
    double ty = dy != 0 ? ((y + (sy > 0)) - my0) / dy : INFINITY;
    long budget = labs((long)ex - x) + labs((long)ey - y);
    visit_in(w, h, visit, ctx, x, y);
    const double eps = 1e-9;
    while (budget > 0) {
        if (budget >= 2 && x != ex && y != ey && fabs(tx - ty) <= eps) {
            /* through a corner: both side cells, so the line stays 4-connected */
            visit_in(w, h, visit, ctx, x + sx, y);
            visit_in(w, h, visit, ctx, x, y + sy);
            x += sx, y += sy;
            tx += tdx, ty += tdy;
            budget -= 2;
        } else if (tx < ty ? x != ex : y == ey) {
            x += sx;
            tx += tdx;
            budget--;
        } else {
            y += sy;
            ty += tdy;
            budget--;
        }
        visit_in(w, h, visit, ctx, x, y);
    }
}

typedef struct {
    tycho_grid *g;
    int thickness;
    int pad;      /* the traversal runs on a grid padded by this many cells */
    uint8_t cost; /* cells below it are raised to it */
    size_t sealed;
} seal_ctx;

static void seal_cell(void *vctx, int px, int py)
{
    seal_ctx *c = vctx;
    int cx = px - c->pad, cy = py - c->pad;
    int lo = -(c->thickness - 1) / 2, hi = c->thickness / 2;
    for (int dy = lo; dy <= hi; dy++)
        for (int dx = lo; dx <= hi; dx++) {
            int x = cx + dx, y = cy + dy;
            if (tycho_grid_in_bounds(c->g, x, y)) {
                uint8_t v = tycho_grid_get(c->g, x, y);
                /* unknown (255) counts as below a soft cost, as above lethal */
                bool below = c->cost == TYCHO_COST_LETHAL
                                 ? v != TYCHO_COST_LETHAL
                                 : (v < c->cost || v == TYCHO_COST_UNKNOWN);
                if (below && tycho_grid_set(c->g, x, y, c->cost)) c->sealed++;
            }
        }
}

static tycho_status seal_map_line(tycho_grid *g, double mx0, double my0, double mx1, double my1,
                                  int thickness, uint8_t cost, size_t *sealed, tycho_err *err)
{
    if (sealed) *sealed = 0;
    if (thickness < 1 || thickness > MAX_THICKNESS)
        return tycho_fail(err, TYCHO_EINVAL, "thickness must be 1..%d cells (got %d)",
                          MAX_THICKNESS, thickness);
    if (!isfinite(mx0) || !isfinite(my0) || !isfinite(mx1) || !isfinite(my1))
        return tycho_fail(err, TYCHO_EINVAL, "line end points must be finite");
    /* A thick line whose centre runs just outside the grid still covers
     * cells inside it, so the traversal is clipped to a padded grid. */
    int pad = thickness == 1 ? 0 : thickness / 2 + 1;
    seal_ctx c = {g, thickness, pad, cost, 0};
    tycho_supercover(mx0 + pad, my0 + pad, mx1 + pad, my1 + pad, tycho_grid_width(g) + 2 * pad,
                     tycho_grid_height(g) + 2 * pad, seal_cell, &c);
    if (sealed) *sealed = c.sealed;
    return TYCHO_OK;
}

tycho_status tycho_seal_line(tycho_grid *g, tycho_cell a, tycho_cell b, int thickness,
                             size_t *sealed, tycho_err *err)
{
    return seal_map_line(g, a.x + 0.5, a.y + 0.5, b.x + 0.5, b.y + 0.5, thickness,
                         TYCHO_COST_LETHAL, sealed, err);
}

tycho_status tycho_seal_line_world(tycho_grid *g, double x0, double y0, double x1, double y1,
                                   int thickness, size_t *sealed, tycho_err *err)
{
    return tycho_stamp_line_world(g, x0, y0, x1, y1, thickness, TYCHO_COST_LETHAL, sealed, err);
}

tycho_status tycho_stamp_line_world(tycho_grid *g, double x0, double y0, double x1, double y1,
                                    int thickness, uint8_t cost, size_t *sealed, tycho_err *err)
{
    double mx0, my0, mx1, my1;
    tycho_grid_world_to_map(g, x0, y0, &mx0, &my0);
    tycho_grid_world_to_map(g, x1, y1, &mx1, &my1);
    return seal_map_line(g, mx0, my0, mx1, my1, thickness, cost, sealed, err);
}

/* --- connected components ---------------------------------------------------- */

struct tycho_labels {
    int32_t *label;
    int32_t *queue;
    size_t cap;
    int width, height;
    uint32_t *sizes; /* sizes[k] for k = 1..count */
    size_t count, sizes_cap;
};

tycho_labels *tycho_labels_new(void) { return calloc(1, sizeof(tycho_labels)); }

void tycho_labels_free(tycho_labels *l)
{
    if (!l) return;
    free(l->label);
    free(l->queue);
    free(l->sizes);
    free(l);
}

tycho_status tycho_components(tycho_labels *l, const tycho_grid *g, const tycho_region_params *pp,
                              size_t *count, tycho_err *err)
{
    tycho_region_params def;
    if (!pp) {
        tycho_region_defaults(&def);
        pp = &def;
    }
    if (count) *count = 0;
    l->count = 0;
    l->width = l->height = 0;
    tycho_status st = tycho_region_check(pp, err);
    if (st) return st;
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    size_t n = (size_t)w * h;
    if (n > l->cap) {
        int32_t *a = realloc(l->label, n * sizeof *a);
        if (a) l->label = a;
        int32_t *q = a ? realloc(l->queue, n * sizeof *q) : NULL;
        if (q) l->queue = q;
        if (!a || !q)
            return tycho_fail(err, TYCHO_ENOMEM, "out of memory labelling a %dx%d grid", w, h);
        l->cap = n;
    }
    const uint8_t *cost = tycho_grid_cells_const(g);
    bool m[256];
    match_table(pp, m);
    memset(l->label, 0, n * sizeof *l->label);
    int32_t k = 0;
    for (size_t s = 0; s < n; s++) {
        if (l->label[s] || !m[cost[s]]) continue;
        if (k == INT32_MAX - 1) break; /* cannot happen below 2^28 cells; keeps int32 safe */
        if ((size_t)k + 2 > l->sizes_cap) {
            size_t cap = l->sizes_cap ? l->sizes_cap * 2 : 256;
            uint32_t *z = realloc(l->sizes, cap * sizeof *z);
            if (!z) return tycho_fail(err, TYCHO_ENOMEM, "out of memory labelling components");
            l->sizes = z;
            l->sizes_cap = cap;
        }
        k++;
        size_t head = 0, tail = 0;
        l->label[s] = k;
        l->queue[tail++] = (int32_t)s;
        while (head < tail) {
            size_t i = (size_t)l->queue[head++];
            int x = (int)(i % (size_t)w), y = (int)(i / (size_t)w);
            for (int j = 0; j < pp->connectivity; j++) {
                int nx = x + NDX[j], ny = y + NDY[j];
                if (!tycho_grid_in_bounds_wh(w, h, nx, ny)) continue;
                size_t ni = (size_t)ny * w + nx;
                if (l->label[ni] || !m[cost[ni]]) continue;
                l->label[ni] = k;
                l->queue[tail++] = (int32_t)ni;
            }
        }
        l->sizes[k] = (uint32_t)tail;
    }
    l->count = (size_t)k;
    l->width = w;
    l->height = h;
    if (count) *count = l->count;
    return TYCHO_OK;
}

size_t tycho_labels_count(const tycho_labels *l) { return l->count; }

int32_t tycho_labels_get(const tycho_labels *l, int cx, int cy)
{
    if (!tycho_grid_in_bounds_wh(l->width, l->height, cx, cy)) return 0;
    return l->label[(size_t)cy * l->width + cx];
}

size_t tycho_labels_size(const tycho_labels *l, int32_t k)
{
    return k >= 1 && (size_t)k <= l->count ? l->sizes[k] : 0;
}

const int32_t *tycho_labels_data(const tycho_labels *l, int *width, int *height)
{
    if (width) *width = l->width;
    if (height) *height = l->height;
    return l->label;
}

/* --- wall faces ------------------------------------------------------------ */

size_t tycho_wall_faces(const tycho_grid *g, int threshold, int free_max, tycho_face_fn fn,
                        void *ud)
{
    static const int DIRS[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    size_t n = 0;
    for (int cy = 0; cy < h; cy++) {
        for (int cx = 0; cx < w; cx++) {
            int c = tycho_grid_get(g, cx, cy);
            if (c < threshold || c == 255) continue;
            for (int d = 0; d < 4; d++) {
                int x = cx + DIRS[d][0], y = cy + DIRS[d][1];
                if (!tycho_grid_in_bounds_wh(w, h, x, y) || tycho_grid_get(g, x, y) > free_max)
                    continue;
                /* every free side: a wall one cell thick has two faces */
                if (fn) fn(ud, cx, cy, DIRS[d][0], DIRS[d][1]);
                n++;
            }
        }
    }
    return n;
}
