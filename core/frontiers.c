/* Frontier search: one Dijkstra over free space from the robot, labelling
 * each frontier the first time a settled cell touches it. Because Dijkstra
 * settles cells in order of path distance, the settled cell that discovers a
 * frontier is the reachable free cell nearest (by path) to it, so the
 * frontier's goal and distance come for free, with no second pass.
 *
 * Distances are integers (70 per straight step, 99 per diagonal: 99/70 is
 * sqrt(2) to 3e-4 relative), so the priority queue is a ring of 100 buckets
 * (Dial's algorithm): O(1) per push and pop, no heap. */
#include "tycho/frontiers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STEP 70u
#define DIAG 99u
#define NBUCKETS 100u /* > largest step */
#define UNREACHED UINT32_MAX
#define MAX_START_CELLS 256 /* start_radius window half-size limit */

/* One byte per cell of a copy of the grid padded with a blocked border, so
 * the inner loops need no bounds checks and no index -> (x, y) divisions:
 * the low two bits classify the cell, the high bits are search marks. */
enum { BLOCKED = 0, FREE = 1, UNKNOWN = 2, CLASS = 3, SETTLED = 4, FRONTIER = 8 };

typedef struct {
    int32_t *v;
    size_t n, cap;
} bucket;

struct tycho_frontier_search {
    size_t cap;               /* padded cells the per-cell arrays hold */
    uint32_t *dist;           /* path length in 1/70 cells, UNREACHED if not reached */
    uint8_t *cell;            /* class | SETTLED | FRONTIER, padded */
    tycho_cell *cells;        /* frontier cells (grid coordinates), grouped by frontier */
    size_t ncells, cells_cap; /* grown on demand: frontier cells are few */
    tycho_frontier *fr;
    size_t nfr, fr_cap;
    bucket bk[NBUCKETS];
    int width, height; /* of the last run, for tycho_frontier_search_distance */
    double resolution;
};

void tycho_frontier_defaults(tycho_frontier_params *p)
{
    p->free_max = TYCHO_COST_INSCRIBED;
    p->min_size = 0.5;
    p->min_cells = 1;
    p->potential_scale = 3.0;
    p->gain_scale = 1.0;
    p->start_radius = 0.5;
}

tycho_status tycho_frontier_check(const tycho_frontier_params *p, tycho_err *err)
{
    if (p->free_max < 1 || p->free_max > 255)
        return tycho_fail(err, TYCHO_EINVAL, "free_max must be 1..255 (got %d)", p->free_max);
    if (!isfinite(p->min_size) || p->min_size < 0)
        return tycho_fail(err, TYCHO_EINVAL, "min_size must be >= 0 metres (got %g)", p->min_size);
    if (p->min_cells < 1)
        return tycho_fail(err, TYCHO_EINVAL, "min_cells must be >= 1 (got %d)", p->min_cells);
    if (!isfinite(p->potential_scale))
        return tycho_fail(err, TYCHO_EINVAL, "potential_scale must be finite");
    if (!isfinite(p->gain_scale)) return tycho_fail(err, TYCHO_EINVAL, "gain_scale must be finite");
    if (!isfinite(p->start_radius) || p->start_radius < 0)
        return tycho_fail(err, TYCHO_EINVAL, "start_radius must be >= 0 metres (got %g)",
                          p->start_radius);
    return TYCHO_OK;
}

tycho_frontier_search *tycho_frontier_search_new(void)
{
    return calloc(1, sizeof(tycho_frontier_search));
}

void tycho_frontier_search_free(tycho_frontier_search *s)
{
    if (!s) return;
    free(s->dist);
    free(s->cell);
    free(s->cells);
    free(s->fr);
    for (unsigned i = 0; i < NBUCKETS; i++) free(s->bk[i].v);
    free(s);
}

static bool reserve_cells(tycho_frontier_search *s, size_t n)
{
    if (n <= s->cap) return true;
    uint32_t *d = realloc(s->dist, n * sizeof *d);
    if (!d) return false;
    s->dist = d;
    uint8_t *st = realloc(s->cell, n);
    if (!st) return false;
    s->cell = st;
    s->cap = n;
    return true;
}

static bool append_cell(tycho_frontier_search *s, size_t i, size_t W)
{
    if (s->ncells == s->cells_cap) {
        size_t cap = s->cells_cap ? s->cells_cap * 2 : 4096;
        tycho_cell *c = realloc(s->cells, cap * sizeof *c);
        if (!c) return false;
        s->cells = c;
        s->cells_cap = cap;
    }
    s->cells[s->ncells++] = (tycho_cell){(int32_t)(i % W) - 1, (int32_t)(i / W) - 1};
    return true;
}

static bool push(bucket *b, int32_t idx)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        int32_t *v = realloc(b->v, cap * sizeof *v);
        if (!v) return false;
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = idx;
    return true;
}

/* Continuous map coordinates (cells) -> world, the inverse of
 * tycho_grid_world_to_map. */
static void map_to_world(const tycho_grid *g, double mx, double my, double *x, double *y)
{
    tycho_pose2 o = tycho_grid_origin(g);
    double r = tycho_grid_resolution(g), c = cos(o.yaw), sn = sin(o.yaw);
    *x = o.x + (c * mx - sn * my) * r;
    *y = o.y + (sn * mx + c * my) * r;
}

static bool is_frontier_cell(const uint8_t *cell, size_t i, size_t W)
{
    return (cell[i] & CLASS) == UNKNOWN &&
           ((cell[i - 1] & CLASS) == FREE || (cell[i + 1] & CLASS) == FREE ||
            (cell[i - W] & CLASS) == FREE || (cell[i + W] & CLASS) == FREE);
}

/* Labels the 8-connected frontier holding padded cell fi, appending its cells
 * to s->cells (which serves as the BFS queue) from index *first. False when
 * out of memory. */
static bool grow_frontier(tycho_frontier_search *s, size_t fi, size_t W, size_t *first_out)
{
    size_t first = s->ncells;
    *first_out = first;
    const ptrdiff_t off[8] = {1,
                              -1,
                              (ptrdiff_t)W,
                              -(ptrdiff_t)W,
                              (ptrdiff_t)W + 1,
                              (ptrdiff_t)W - 1,
                              -(ptrdiff_t)W + 1,
                              -(ptrdiff_t)W - 1};
    s->cell[fi] |= FRONTIER;
    if (!append_cell(s, fi, W)) return false;
    for (size_t q = first; q < s->ncells; q++) {
        tycho_cell c = s->cells[q];
        size_t i = (size_t)(c.y + 1) * W + (size_t)(c.x + 1);
        for (int j = 0; j < 8; j++) {
            size_t ni = (size_t)((ptrdiff_t)i + off[j]);
            /* the border is BLOCKED, so neighbours of a real cell stay in the array;
             * frontier cells are never on the border, so their 4-neighbours exist */
            if ((s->cell[ni] & FRONTIER) || !is_frontier_cell(s->cell, ni, W)) continue;
            s->cell[ni] |= FRONTIER;
            if (!append_cell(s, ni, W)) return false;
        }
    }
    return true;
}

static bool add_frontier(tycho_frontier_search *s, const tycho_grid *g,
                         const tycho_frontier_params *p, size_t first, tycho_cell goal,
                         tycho_cell near, uint32_t d)
{
    size_t size = s->ncells - first;
    double res = tycho_grid_resolution(g);
    if ((int)size < p->min_cells || (double)size * res < p->min_size - 1e-9) {
        s->ncells = first; /* cells stay flagged, so they are not found again */
        return true;
    }
    if (s->nfr == s->fr_cap) {
        size_t cap = s->fr_cap ? s->fr_cap * 2 : 64;
        tycho_frontier *f = realloc(s->fr, cap * sizeof *f);
        if (!f) return false;
        s->fr = f;
        s->fr_cap = cap;
    }
    tycho_frontier *f = &s->fr[s->nfr++];
    double sx = 0, sy = 0;
    for (size_t i = first; i < s->ncells; i++) {
        sx += s->cells[i].x;
        sy += s->cells[i].y;
    }
    f->size = (int)size;
    map_to_world(g, sx / (double)size + 0.5, sy / (double)size + 0.5, &f->centroid_x,
                 &f->centroid_y);
    f->goal = goal;
    tycho_grid_cell_to_world(g, goal.x, goal.y, &f->goal_x, &f->goal_y);
    f->nearest = near;
    tycho_grid_cell_to_world(g, near.x, near.y, &f->nearest_x, &f->nearest_y);
    f->distance = (double)d / STEP * res;
    f->cost = p->potential_scale * f->distance - p->gain_scale * (double)size * res;
    f->first_cell = first;
    return true;
}

static int by_cost(const void *a, const void *b)
{
    const tycho_frontier *x = a, *y = b;
    if (x->cost != y->cost) return x->cost < y->cost ? -1 : 1;
    if (x->distance != y->distance) return x->distance < y->distance ? -1 : 1;
    return (x->first_cell > y->first_cell) - (x->first_cell < y->first_cell);
}

/* The robot's cell, or the nearest free cell (Euclidean) within the radius. */
static bool find_start(const uint8_t *cell, int w, int h, int rx, int ry, int radius, int *sx,
                       int *sy, double *offset)
{
    size_t W = (size_t)w + 2;
    if ((cell[(size_t)(ry + 1) * W + rx + 1] & CLASS) == FREE) {
        *sx = rx, *sy = ry, *offset = 0;
        return true;
    }
    long best = -1;
    for (int y = ry - radius; y <= ry + radius; y++)
        for (int x = rx - radius; x <= rx + radius; x++) {
            if (!tycho_grid_in_bounds_wh(w, h, x, y)) continue;
            long d2 = (long)(x - rx) * (x - rx) + (long)(y - ry) * (y - ry);
            if (d2 > (long)radius * radius || (cell[(size_t)(y + 1) * W + x + 1] & CLASS) != FREE)
                continue;
            if (best < 0 || d2 < best) best = d2, *sx = x, *sy = y;
        }
    *offset = best < 0 ? 0 : sqrt((double)best);
    return best >= 0;
}

/* Classifies the grid into the padded byte array (border BLOCKED). */
static void classify(uint8_t *cell, const uint8_t *cost, int w, int h, int free_max)
{
    uint8_t lut[256];
    for (int c = 0; c < 256; c++)
        lut[c] = c < free_max ? FREE : c == TYCHO_COST_UNKNOWN ? UNKNOWN : BLOCKED;
    size_t W = (size_t)w + 2;
    memset(cell, BLOCKED, W);
    memset(cell + (size_t)(h + 1) * W, BLOCKED, W);
    for (int y = 0; y < h; y++) {
        uint8_t *row = cell + (size_t)(y + 1) * W;
        const uint8_t *src = cost + (size_t)y * w;
        row[0] = row[w + 1] = BLOCKED;
        for (int x = 0; x < w; x++) row[x + 1] = lut[src[x]];
    }
}

tycho_status tycho_frontier_search_run(tycho_frontier_search *s, const tycho_grid *g, double rx,
                                       double ry, const tycho_frontier_params *pp, tycho_err *err)
{
    tycho_frontier_params def;
    if (!pp) {
        tycho_frontier_defaults(&def);
        pp = &def;
    }
    s->nfr = s->ncells = 0;
    s->width = s->height = 0;
    tycho_status st = tycho_frontier_check(pp, err);
    if (st) return st;
    if (!isfinite(rx) || !isfinite(ry))
        return tycho_fail(err, TYCHO_EINVAL, "robot position must be finite");

    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    double res = tycho_grid_resolution(g);
    int cx, cy;
    if (!tycho_grid_world_to_cell(g, rx, ry, &cx, &cy))
        return tycho_fail(err, TYCHO_ERANGE, "robot (%.3f, %.3f) is outside the grid", rx, ry);
    double rcells = pp->start_radius / res;
    if (rcells > MAX_START_CELLS)
        return tycho_fail(err, TYCHO_EINVAL, "start_radius %.3f m spans more than %d cells",
                          pp->start_radius, MAX_START_CELLS);

    size_t W = (size_t)w + 2, np = W * ((size_t)h + 2);
    if (!reserve_cells(s, np))
        return tycho_fail(err, TYCHO_ENOMEM, "out of memory for a %dx%d frontier search", w, h);
    classify(s->cell, tycho_grid_cells_const(g), w, h, pp->free_max);
    int sx, sy;
    double offset;
    if (!find_start(s->cell, w, h, cx, cy, (int)floor(rcells + 1e-9), &sx, &sy, &offset))
        return tycho_fail(err, TYCHO_ERANGE,
                          "robot cell (%d, %d) has cost %d and no free cell lies within %.3f m", cx,
                          cy, tycho_grid_get(g, cx, cy), pp->start_radius);
    memset(s->dist, 0xff, np * sizeof *s->dist);
    for (unsigned b = 0; b < NBUCKETS; b++) s->bk[b].n = 0;

    uint32_t cur = (uint32_t)lround(offset * STEP);
    size_t start = (size_t)(sy + 1) * W + (size_t)(sx + 1);
    s->dist[start] = cur;
    if (!push(&s->bk[cur % NBUCKETS], (int32_t)start)) goto oom;
    size_t pending = 1;
    const ptrdiff_t iW = (ptrdiff_t)W;
    uint8_t *cell = s->cell;
    uint32_t *dist = s->dist;

    for (; pending; cur++) {
        bucket *b = &s->bk[cur % NBUCKETS];
        /* steps are >= 70, so nothing is pushed into this bucket while it drains */
        for (size_t k = 0; k < b->n; k++) {
            size_t i = (size_t)b->v[k];
            pending--;
            if ((cell[i] & SETTLED) || dist[i] != cur) continue;
            cell[i] |= SETTLED;
            /* an unknown 4-neighbour of a free cell is a frontier cell */
            const ptrdiff_t o4[4] = {1, -1, iW, -iW};
            for (int j = 0; j < 4; j++) {
                size_t ni = (size_t)((ptrdiff_t)i + o4[j]);
                if ((cell[ni] & (CLASS | FRONTIER)) != UNKNOWN) continue;
                size_t first;
                if (!grow_frontier(s, ni, W, &first)) goto oom;
                tycho_cell goal = {(int32_t)(i % W) - 1, (int32_t)(i / W) - 1};
                tycho_cell near = {(int32_t)(ni % W) - 1, (int32_t)(ni / W) - 1};
                if (!add_frontier(s, g, pp, first, goal, near, cur)) goto oom;
            }
            if (cur > UNREACHED - 2 * NBUCKETS) continue; /* absurdly long path */
            /* relaxation, unrolled: diagonals need both orthogonal cells free
             * (no corner cutting) */
            bool px = (cell[i + 1] & CLASS) == FREE, mx = (cell[i - 1] & CLASS) == FREE;
            bool py = (cell[i + W] & CLASS) == FREE, my = (cell[i - W] & CLASS) == FREE;
#define RELAX(cond, o, step)                                                                       \
    do {                                                                                           \
        size_t ni_ = (size_t)((ptrdiff_t)i + (o));                                                 \
        uint32_t nd_ = cur + (step);                                                               \
        if ((cond) && (cell[ni_] & (CLASS | SETTLED)) == FREE && nd_ < dist[ni_]) {                \
            dist[ni_] = nd_;                                                                       \
            if (!push(&s->bk[nd_ % NBUCKETS], (int32_t)ni_)) goto oom;                             \
            pending++;                                                                             \
        }                                                                                          \
    } while (0)
            RELAX(px, 1, STEP);
            RELAX(mx, -1, STEP);
            RELAX(py, iW, STEP);
            RELAX(my, -iW, STEP);
            RELAX(px && py, iW + 1, DIAG);
            RELAX(px && my, -iW + 1, DIAG);
            RELAX(mx && py, iW - 1, DIAG);
            RELAX(mx && my, -iW - 1, DIAG);
#undef RELAX
        }
        b->n = 0;
    }

    qsort(s->fr, s->nfr, sizeof *s->fr, by_cost);
    s->width = w;
    s->height = h;
    s->resolution = res;
    return TYCHO_OK;
oom:
    s->nfr = s->ncells = 0;
    return tycho_fail(err, TYCHO_ENOMEM, "out of memory in the frontier search");
}

size_t tycho_frontier_search_count(const tycho_frontier_search *s) { return s->nfr; }

const tycho_frontier *tycho_frontier_search_get(const tycho_frontier_search *s, size_t i)
{
    return i < s->nfr ? &s->fr[i] : NULL;
}

const tycho_cell *tycho_frontier_search_cells(const tycho_frontier_search *s) { return s->cells; }

double tycho_frontier_search_distance(const tycho_frontier_search *s, int cx, int cy)
{
    if (!tycho_grid_in_bounds_wh(s->width, s->height, cx, cy)) return -1;
    size_t i = (size_t)(cy + 1) * ((size_t)s->width + 2) + (size_t)(cx + 1);
    if (!(s->cell[i] & SETTLED)) return -1;
    return (double)s->dist[i] / STEP * s->resolution;
}
