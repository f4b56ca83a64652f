#include "tycho/grid.h"

#include "tycho/cells_hash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CELLS (1u << 28)
#define GROW_CHUNK 64 /* cells added per side at least, so growth amortises */

struct tycho_grid {
    int width, height;
    double resolution;
    tycho_pose2 origin;
    double cos_yaw, sin_yaw;
    uint8_t *cost;
    float *logodds; /* NULL until mapping starts */
    tycho_logodds_params lo;
};

static float logit(double p) { return (float)log(p / (1.0 - p)); }

void tycho_logodds_defaults(tycho_logodds_params *p)
{
    p->p_hit = 0.7;
    p->p_miss = 0.4;
    p->p_min = 0.12;
    p->p_max = 0.97;
    p->occ_thresh = 0.65;
    p->free_thresh = 0.25;
}

static void set_origin(tycho_grid *g, tycho_pose2 o)
{
    g->origin = o;
    g->cos_yaw = cos(o.yaw);
    g->sin_yaw = sin(o.yaw);
}

tycho_grid *tycho_grid_new(int width, int height, double resolution, tycho_pose2 origin,
                           uint8_t fill, tycho_err *err)
{
    if (width <= 0 || height <= 0) {
        tycho_fail(err, TYCHO_EINVAL, "grid size must be positive (got %dx%d)", width, height);
        return NULL;
    }
    if ((uint64_t)width * (uint64_t)height > MAX_CELLS) {
        tycho_fail(err, TYCHO_EINVAL, "grid %dx%d exceeds %u cells", width, height, MAX_CELLS);
        return NULL;
    }
    if (!(resolution > 0) || !isfinite(resolution)) {
        tycho_fail(err, TYCHO_EINVAL, "resolution must be > 0 (got %g)", resolution);
        return NULL;
    }
    if (!isfinite(origin.x) || !isfinite(origin.y) || !isfinite(origin.yaw)) {
        tycho_fail(err, TYCHO_EINVAL, "origin must be finite");
        return NULL;
    }
    tycho_grid *g = calloc(1, sizeof *g);
    if (!g) goto oom;
    g->cost = malloc((size_t)width * height);
    if (!g->cost) goto oom;
    memset(g->cost, fill, (size_t)width * height);
    g->width = width;
    g->height = height;
    g->resolution = resolution;
    set_origin(g, origin);
    tycho_logodds_defaults(&g->lo);
    return g;
oom:
    tycho_grid_free(g);
    tycho_fail(err, TYCHO_ENOMEM, "out of memory for a %dx%d grid", width, height);
    return NULL;
}

void tycho_grid_free(tycho_grid *g)
{
    if (!g) return;
    free(g->cost);
    free(g->logodds);
    free(g);
}

tycho_grid *tycho_grid_copy(const tycho_grid *g, tycho_err *err)
{
    tycho_grid *c = tycho_grid_new(g->width, g->height, g->resolution, g->origin, 0, err);
    if (!c) return NULL;
    size_t n = (size_t)g->width * g->height;
    memcpy(c->cost, g->cost, n);
    c->lo = g->lo;
    if (g->logodds) {
        c->logodds = malloc(n * sizeof(float));
        if (!c->logodds) {
            tycho_grid_free(c);
            tycho_fail(err, TYCHO_ENOMEM, "out of memory copying log-odds");
            return NULL;
        }
        memcpy(c->logodds, g->logodds, n * sizeof(float));
    }
    return c;
}

/* World pose of the outer corner of cell (cx, cy). */
static tycho_pose2 corner_of(const tycho_grid *g, int cx, int cy)
{
    double dx = cx * g->resolution, dy = cy * g->resolution;
    tycho_pose2 p = {
        g->origin.x + g->cos_yaw * dx - g->sin_yaw * dy,
        g->origin.y + g->sin_yaw * dx + g->cos_yaw * dy,
        g->origin.yaw,
    };
    return p;
}

long tycho_grid_paste(tycho_grid *dst, const tycho_grid *src, int cx, int cy)
{
    int x0 = cx < 0 ? -cx : 0, y0 = cy < 0 ? -cy : 0;
    int x1 = src->width, y1 = src->height;
    if (cx + x1 > dst->width) x1 = dst->width - cx;
    if (cy + y1 > dst->height) y1 = dst->height - cy;
    if (x1 <= x0 || y1 <= y0) return 0;
    for (int y = y0; y < y1; y++)
        memcpy(dst->cost + (size_t)(y + cy) * dst->width + (x0 + cx),
               src->cost + (size_t)y * src->width + x0, (size_t)(x1 - x0));
    return (long)(x1 - x0) * (y1 - y0);
}

tycho_grid *tycho_grid_crop(const tycho_grid *g, int cx0, int cy0, int w, int h, tycho_err *err)
{
    int x0 = cx0 < 0 ? 0 : cx0, y0 = cy0 < 0 ? 0 : cy0;
    int x1 = cx0 + w > g->width ? g->width : cx0 + w;
    int y1 = cy0 + h > g->height ? g->height : cy0 + h;
    if (x1 <= x0 || y1 <= y0) {
        tycho_fail(err, TYCHO_ERANGE, "crop [%d,%d %dx%d] does not overlap the %dx%d grid", cx0,
                   cy0, w, h, g->width, g->height);
        return NULL;
    }
    tycho_grid *c = tycho_grid_new(x1 - x0, y1 - y0, g->resolution, corner_of(g, x0, y0), 0, err);
    if (!c) return NULL;
    c->lo = g->lo;
    for (int y = y0; y < y1; y++)
        memcpy(c->cost + (size_t)(y - y0) * c->width, g->cost + (size_t)y * g->width + x0,
               (size_t)c->width);
    if (g->logodds) {
        c->logodds = malloc((size_t)c->width * c->height * sizeof(float));
        if (!c->logodds) {
            tycho_grid_free(c);
            tycho_fail(err, TYCHO_ENOMEM, "out of memory cropping log-odds");
            return NULL;
        }
        for (int y = y0; y < y1; y++)
            memcpy(c->logodds + (size_t)(y - y0) * c->width, g->logodds + (size_t)y * g->width + x0,
                   (size_t)c->width * sizeof(float));
    }
    return c;
}

int tycho_grid_width(const tycho_grid *g) { return g->width; }
int tycho_grid_height(const tycho_grid *g) { return g->height; }
double tycho_grid_resolution(const tycho_grid *g) { return g->resolution; }
tycho_pose2 tycho_grid_origin(const tycho_grid *g) { return g->origin; }
uint8_t *tycho_grid_cells(tycho_grid *g) { return g->cost; }
const uint8_t *tycho_grid_cells_const(const tycho_grid *g) { return g->cost; }

bool tycho_grid_in_bounds(const tycho_grid *g, int cx, int cy)
{
    return tycho_grid_in_bounds_wh(g->width, g->height, cx, cy);
}

uint8_t tycho_grid_get(const tycho_grid *g, int cx, int cy)
{
    if (!tycho_grid_in_bounds(g, cx, cy)) return TYCHO_COST_UNKNOWN;
    return g->cost[(size_t)cy * g->width + cx];
}

static float cost_to_logodds(const tycho_grid *g, uint8_t c)
{
    if (c == TYCHO_COST_UNKNOWN) return 0.0f;
    if (c >= TYCHO_COST_INSCRIBED) return logit(g->lo.p_max);
    return logit(g->lo.p_min);
}

bool tycho_grid_set(tycho_grid *g, int cx, int cy, uint8_t cost)
{
    if (!tycho_grid_in_bounds(g, cx, cy)) return false;
    size_t i = (size_t)cy * g->width + cx;
    g->cost[i] = cost;
    if (g->logodds) g->logodds[i] = cost_to_logodds(g, cost);
    return true;
}

void tycho_grid_fill(tycho_grid *g, uint8_t cost)
{
    size_t n = (size_t)g->width * g->height;
    memset(g->cost, cost, n);
    if (g->logodds) {
        float l = cost_to_logodds(g, cost);
        for (size_t i = 0; i < n; i++) g->logodds[i] = l;
    }
}

void tycho_grid_world_to_map(const tycho_grid *g, double x, double y, double *mx, double *my)
{
    double dx = x - g->origin.x, dy = y - g->origin.y;
    /* inverse rotation */
    *mx = (g->cos_yaw * dx + g->sin_yaw * dy) / g->resolution;
    *my = (-g->sin_yaw * dx + g->cos_yaw * dy) / g->resolution;
}

bool tycho_grid_world_to_cell(const tycho_grid *g, double x, double y, int *cx, int *cy)
{
    double mx, my;
    tycho_grid_world_to_map(g, x, y, &mx, &my);
    /* clamp before the int conversion so far-away points cannot overflow */
    mx = fmax(fmin(mx, 1e9), -1e9);
    my = fmax(fmin(my, 1e9), -1e9);
    *cx = (int)floor(mx);
    *cy = (int)floor(my);
    return tycho_grid_in_bounds(g, *cx, *cy);
}

void tycho_grid_cell_to_world(const tycho_grid *g, int cx, int cy, double *x, double *y)
{
    double dx = (cx + 0.5) * g->resolution, dy = (cy + 0.5) * g->resolution;
    *x = g->origin.x + g->cos_yaw * dx - g->sin_yaw * dy;
    *y = g->origin.y + g->sin_yaw * dx + g->cos_yaw * dy;
}

void tycho_grid_stats_compute(const tycho_grid *g, tycho_grid_stats *s)
{
    size_t hist[256] = {0};
    size_t n = (size_t)g->width * g->height;
    for (size_t i = 0; i < n; i++) hist[g->cost[i]]++;
    memset(s, 0, sizeof *s);
    s->free = hist[0];
    for (int c = 1; c <= 252; c++) s->inflated += hist[c];
    s->inscribed = hist[TYCHO_COST_INSCRIBED];
    s->lethal = hist[TYCHO_COST_LETHAL];
    s->unknown = hist[TYCHO_COST_UNKNOWN];
}

/* true when the 32 bytes at p are all unknown (255) */
static bool unknown32(const uint8_t *p)
{
    uint64_t w[4];
    memcpy(w, p, sizeof w);
    return (w[0] & w[1] & w[2] & w[3]) == UINT64_MAX;
}

/* true when the 128 bytes at p are all unknown: a map's rows outside the
 * maze are read whole at every map a recording writes */
typedef uint8_t bytes16 __attribute__((vector_size(16))); /* SSE2 / NEON registers */

static bytes16 load16(const uint8_t *p)
{
    bytes16 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static bool unknown128(const uint8_t *p)
{
    bytes16 all = (load16(p) & load16(p + 16)) & (load16(p + 32) & load16(p + 48)) &
                  ((load16(p + 64) & load16(p + 80)) & (load16(p + 96) & load16(p + 112)));
    uint64_t w[2];
    memcpy(w, &all, sizeof w);
    return (w[0] & w[1]) == UINT64_MAX;
}

/* the first byte of row[0..n) that is not unknown, or n: 128, 32, then eight at a time */
static int first_known(const uint8_t *row, int n)
{
    int i = 0;
    while (i + 128 <= n && unknown128(row + i)) i += 128;
    while (i + 32 <= n && unknown32(row + i)) i += 32;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, row + i, 8);
        if (w != UINT64_MAX) break; /* TYCHO_COST_UNKNOWN is 255 */
    }
    while (i < n && row[i] == TYCHO_COST_UNKNOWN) i++;
    return i;
}

/* the last byte of row[0..n) that is not unknown, or -1 */
static int last_known(const uint8_t *row, int n)
{
    int i = n;
    while (i >= 32 && unknown32(row + i - 32)) i -= 32;
    for (; i >= 8; i -= 8) {
        uint64_t w;
        memcpy(&w, row + i - 8, 8);
        if (w != UINT64_MAX) break;
    }
    while (i > 0 && row[i - 1] == TYCHO_COST_UNKNOWN) i--;
    return i - 1;
}

bool tycho_cells_known_box(const uint8_t *cells, int w, int h, int box[4])
{
    _Static_assert(TYCHO_COST_UNKNOWN == 255, "the word scan looks for bytes of 255");
    /* the first and last rows with a known cell (a row is read up to its
     * first known cell) */
    int y0 = 0, y1 = h - 1;
    while (y0 < h && first_known(cells + (size_t)y0 * w, w) == w) y0++;
    if (y0 == h) return false;
    while (first_known(cells + (size_t)y1 * w, w) == w) y1--;
    /* between them, only the columns left and right of the box found so far
     * are read: the map's inside is never scanned (a recording asks for the
     * box of every map it writes) */
    int x0 = w, x1 = -1;
    for (int y = y0; y <= y1; y++) {
        const uint8_t *row = cells + (size_t)y * w;
        int first = first_known(row, x0);
        if (first < x0) x0 = first;
        int last = last_known(row + x1 + 1, w - x1 - 1);
        if (last >= 0) x1 += 1 + last;
    }
    box[0] = x0, box[1] = y0, box[2] = x1, box[3] = y1;
    return true;
}

bool tycho_grid_known_box(const tycho_grid *g, int box[4])
{
    return tycho_cells_known_box(g->cost, g->width, g->height, box);
}

void tycho_grid_box_hash_start(const tycho_grid *g, const int box[4], tycho_cells_hash *ch)
{
    int bw = box[2] - box[0] + 1, bh = box[3] - box[1] + 1;
    tycho_cells_hash_init(ch, (uint64_t)bw << 32 | (uint32_t)bh);
    double place[6] = {g->origin.x, g->origin.y, g->origin.yaw, g->resolution, box[0], box[1]};
    tycho_cells_hash_add(ch, place, sizeof place);
}

uint64_t tycho_grid_fingerprint(const tycho_grid *g)
{
    int box[4] = {0, 0, 0, 0}; /* nothing known: the cell (0, 0), as a viewer is sent */
    tycho_grid_known_box(g, box);
    tycho_cells_hash ch;
    tycho_grid_box_hash_start(g, box, &ch);
    for (int y = box[1]; y <= box[3]; y++)
        tycho_cells_hash_add(&ch, g->cost + (size_t)y * g->width + box[0],
                             (size_t)(box[2] - box[0] + 1));
    return tycho_cells_hash_end(&ch);
}

tycho_status tycho_grid_grow_to(tycho_grid *g, double x, double y, int margin, tycho_err *err)
{
    if (!isfinite(x) || !isfinite(y))
        return tycho_fail(err, TYCHO_EINVAL, "cannot grow the grid to a non-finite point");
    if (margin < 0) margin = 0;
    int cx, cy;
    tycho_grid_world_to_cell(g, x, y, &cx, &cy);
    int add_l = cx - margin < 0 ? -(cx - margin) : 0;
    int add_b = cy - margin < 0 ? -(cy - margin) : 0;
    int add_r = cx + margin >= g->width ? cx + margin - g->width + 1 : 0;
    int add_t = cy + margin >= g->height ? cy + margin - g->height + 1 : 0;
    if (!(add_l | add_b | add_r | add_t)) return TYCHO_OK;
    if (add_l) add_l = add_l > GROW_CHUNK ? add_l : GROW_CHUNK;
    if (add_b) add_b = add_b > GROW_CHUNK ? add_b : GROW_CHUNK;
    if (add_r) add_r = add_r > GROW_CHUNK ? add_r : GROW_CHUNK;
    if (add_t) add_t = add_t > GROW_CHUNK ? add_t : GROW_CHUNK;
    int64_t nw = (int64_t)g->width + add_l + add_r, nh = (int64_t)g->height + add_b + add_t;
    if (nw * nh > MAX_CELLS)
        return tycho_fail(err, TYCHO_ERANGE, "growing to (%.2f, %.2f) would exceed %u cells", x, y,
                          MAX_CELLS);
    size_t n = (size_t)(nw * nh);
    uint8_t *cost = malloc(n);
    float *lo = g->logodds ? malloc(n * sizeof(float)) : NULL;
    if (!cost || (g->logodds && !lo)) {
        free(cost);
        free(lo);
        return tycho_fail(err, TYCHO_ENOMEM, "out of memory growing the grid");
    }
    memset(cost, TYCHO_COST_UNKNOWN, n);
    for (int r = 0; r < g->height; r++)
        memcpy(cost + (size_t)(r + add_b) * nw + add_l, g->cost + (size_t)r * g->width,
               (size_t)g->width);
    if (lo) {
        for (size_t i = 0; i < n; i++) lo[i] = 0.0f;
        for (int r = 0; r < g->height; r++)
            memcpy(lo + (size_t)(r + add_b) * nw + add_l, g->logodds + (size_t)r * g->width,
                   (size_t)g->width * sizeof(float));
    }
    tycho_pose2 o = corner_of(g, -add_l, -add_b);
    free(g->cost);
    free(g->logodds);
    g->cost = cost;
    g->logodds = lo;
    g->width = (int)nw;
    g->height = (int)nh;
    set_origin(g, o);
    return TYCHO_OK;
}

void tycho_grid_set_logodds_params(tycho_grid *g, const tycho_logodds_params *p) { g->lo = *p; }

void tycho_grid_get_logodds_params(const tycho_grid *g, tycho_logodds_params *p) { *p = g->lo; }

float *tycho_grid_logodds(tycho_grid *g)
{
    if (g->logodds) return g->logodds;
    size_t n = (size_t)g->width * g->height;
    g->logodds = malloc(n * sizeof(float));
    if (!g->logodds) return NULL;
    for (size_t i = 0; i < n; i++) g->logodds[i] = cost_to_logodds(g, g->cost[i]);
    return g->logodds;
}

void tycho_grid_drop_logodds(tycho_grid *g)
{
    free(g->logodds);
    g->logodds = NULL;
}

void tycho_grid_logodds_lut(const tycho_grid *g, tycho_logodds_lut *lut)
{
    lut->hit = logit(g->lo.p_hit);
    lut->miss = logit(g->lo.p_miss);
    lut->min = logit(g->lo.p_min);
    lut->max = logit(g->lo.p_max);
    lut->occ = logit(g->lo.occ_thresh);
    lut->free_ = logit(g->lo.free_thresh);
}

void tycho_grid_observe(tycho_grid *g, int cx, int cy, bool hit)
{
    if (!tycho_grid_in_bounds(g, cx, cy)) return;
    float *lo = tycho_grid_logodds(g);
    if (!lo) return;
    tycho_logodds_lut lut;
    tycho_grid_logodds_lut(g, &lut);
    size_t i = (size_t)cy * g->width + cx;
    float l = lo[i] + (hit ? lut.hit : lut.miss);
    l = l < lut.min ? lut.min : (l > lut.max ? lut.max : l);
    lo[i] = l;
    g->cost[i] = tycho_logodds_to_cost(&lut, l);
}
