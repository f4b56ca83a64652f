/* Nav2 inflation layer semantics on top of an exact distance transform.
 *
 * The rules, as nav2_costmap_2d's InflationLayer (inflation_layer.cpp/.hpp)
 * applies them, and as we follow them here:
 *
 * - Obstacles ("sources") are cells of cost 254 (LETHAL), plus unknown cells
 *   (255) when inflate_around_unknown is set. Nothing else seeds inflation:
 *   253 or inflated costs already in the grid do not spread.
 * - d is the distance between cell centres in cells (Nav2 uses hypot(dx, dy)
 *   of integer cell offsets); the metric distance is d * resolution.
 * - The inflation reach is counted in whole cells, rounded up:
 *   cell_radius = ceil(inflation_radius / resolution) (Costmap2D::cellDistance,
 *   with its floating-point quirk kept: 0.14 / 0.02 = 7.000000000000001, so
 *   that radius reaches 8 cells, as in Nav2). Only cells with d <= cell_radius are touched;
 *   farther cells keep their cost. cell_radius == 0 disables inflation.
 * - computeCost(d): d == 0 -> 254; else if d * resolution <= inscribed_radius
 *   -> 253 (inclusive); else (unsigned char)(252 * exp(-cost_scaling_factor *
 *   (d * resolution - inscribed_radius))), i.e. truncated toward zero, so
 *   the tail reaches 0 before the radius when the factor is large.
 * - Combination with the cell's existing cost `old`:
 *     old == 255 (unknown): if inflate_unknown, the cell takes the cost when
 *       cost > 0 (so unknown cells near obstacles become ordinary costs and
 *       may even drop below 253); without it, only when cost >= 253 (unknown
 *       cells within the inscribed radius become 253, unknown sources 254).
 *       Otherwise the cell stays 255.
 *     otherwise: max(old, cost).
 * - Nav2 spreads costs with a wavefront that can pick a near-but-not-nearest
 *   obstacle for a few cells; we use the exact nearest obstacle (Nav2's own
 *   newer distance-transform layer does the same), which gives each cell the
 *   highest cost Nav2's formula allows.
 *
 * Costs depend only on the squared cell distance, an integer <= cell_radius^2,
 * so they come from a table built once per parameter set. */
#include "tycho/inflation.h"

#include "tycho/edt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct tycho_inflation {
    tycho_edt *edt;
    uint8_t *lut; /* cost by squared distance, 0..cell_radius^2 */
    size_t lut_cap;
    /* parameters the table was built for */
    int lut_valid, lut_r;
    tycho_inflation_params lut_p;
    double lut_res;
};

void tycho_inflation_defaults(tycho_inflation_params *p)
{
    p->inscribed_radius = 0.0;
    p->inflation_radius = 0.55;
    p->cost_scaling_factor = 10.0;
    p->inflate_unknown = false;
    p->inflate_around_unknown = false;
}

/* Costmap2D::cellDistance */
static double cell_radius_of(double radius, double resolution)
{
    double c = ceil(radius / resolution);
    return c > 0 ? c : 0;
}

tycho_status tycho_inflation_check(const tycho_inflation_params *p, double resolution,
                                   tycho_err *err)
{
    if (!(resolution > 0) || !isfinite(resolution))
        return tycho_fail(err, TYCHO_EINVAL, "resolution must be > 0");
    if (!isfinite(p->inscribed_radius) || p->inscribed_radius < 0)
        return tycho_fail(err, TYCHO_EINVAL, "inscribed_radius must be finite and >= 0");
    if (!isfinite(p->inflation_radius) || p->inflation_radius < 0)
        return tycho_fail(err, TYCHO_EINVAL, "inflation_radius must be finite and >= 0");
    if (!isfinite(p->cost_scaling_factor) || p->cost_scaling_factor < 0)
        return tycho_fail(err, TYCHO_EINVAL, "cost_scaling_factor must be finite and >= 0");
    if (cell_radius_of(p->inflation_radius, resolution) > TYCHO_INFLATION_MAX_CELLS)
        return tycho_fail(err, TYCHO_ERANGE,
                          "inflation_radius %.3f m is more than %d cells at %.4f m resolution",
                          p->inflation_radius, TYCHO_INFLATION_MAX_CELLS, resolution);
    return TYCHO_OK;
}

uint8_t tycho_inflation_cost(const tycho_inflation_params *p, double resolution, double distance)
{
    if (distance == 0) return TYCHO_COST_LETHAL;
    if (distance * resolution <= p->inscribed_radius) return TYCHO_COST_INSCRIBED;
    double euclidean = distance * resolution;
    double factor = exp(-1.0 * p->cost_scaling_factor * (euclidean - p->inscribed_radius));
    return (uint8_t)((TYCHO_COST_INSCRIBED - 1) * factor);
}

tycho_inflation *tycho_inflation_new(void)
{
    tycho_inflation *ws = calloc(1, sizeof *ws);
    if (!ws) return NULL;
    ws->edt = tycho_edt_new();
    if (!ws->edt) {
        free(ws);
        return NULL;
    }
    return ws;
}

void tycho_inflation_free(tycho_inflation *ws)
{
    if (!ws) return;
    tycho_edt_free(ws->edt);
    free(ws->lut);
    free(ws);
}

static bool same_params(const tycho_inflation_params *a, const tycho_inflation_params *b)
{
    return a->inscribed_radius == b->inscribed_radius &&
           a->inflation_radius == b->inflation_radius &&
           a->cost_scaling_factor == b->cost_scaling_factor;
}

static tycho_status build_lut(tycho_inflation *ws, const tycho_inflation_params *p, double res,
                              int R, tycho_err *err)
{
    if (ws->lut_valid && ws->lut_r == R && ws->lut_res == res && same_params(&ws->lut_p, p))
        return TYCHO_OK;
    size_t n = (size_t)R * R + 1;
    if (n > ws->lut_cap) {
        uint8_t *l = realloc(ws->lut, n);
        if (!l) return tycho_fail(err, TYCHO_ENOMEM, "out of memory for the inflation table");
        ws->lut = l;
        ws->lut_cap = n;
    }
    /* Entries for squared distances that are not sums of two squares are
     * never read; filling them anyway keeps the table simple. */
    for (size_t d2 = 0; d2 < n; d2++) ws->lut[d2] = tycho_inflation_cost(p, res, sqrt((double)d2));
    ws->lut_valid = 1;
    ws->lut_r = R;
    ws->lut_p = *p;
    ws->lut_res = res;
    return TYCHO_OK;
}

static inline uint8_t combine(uint8_t old, uint8_t cost, bool inflate_unknown)
{
    if (old == TYCHO_COST_UNKNOWN) {
        if (inflate_unknown ? cost > TYCHO_COST_FREE : cost >= TYCHO_COST_INSCRIBED) return cost;
        return old;
    }
    return old > cost ? old : cost;
}

tycho_status tycho_inflate_cells(tycho_inflation *ws, const uint8_t *src, uint8_t *dst, int w,
                                 int h, double res, const tycho_inflation_params *p, tycho_err *err)
{
    if (w <= 0 || h <= 0)
        return tycho_fail(err, TYCHO_EINVAL, "grid size must be positive (got %dx%d)", w, h);
    tycho_status st = tycho_inflation_check(p, res, err);
    if (st != TYCHO_OK) return st;
    size_t n = (size_t)w * h;
    if (dst != src) memcpy(dst, src, n);
    int R = (int)cell_radius_of(p->inflation_radius, res);
    if (R == 0) return TYCHO_OK; /* Nav2: a zero cell radius disables the layer */
    /* No cell is farther than the grid's diagonal, so the table need not be either. */
    double diag = ceil(hypot(w, h));
    if (R > diag) R = (int)diag;
    st = build_lut(ws, p, res, R, err);
    if (st != TYCHO_OK) return st;

    uint8_t sites[256];
    memset(sites, 0, sizeof sites);
    sites[TYCHO_COST_LETHAL] = 1;
    if (p->inflate_around_unknown) sites[TYCHO_COST_UNKNOWN] = 1;
    /* Sources are read from src before any row of dst is written, so in-place
     * inflation sees the original obstacles. */
    st = tycho_edt_prepare(ws->edt, src, w, h, sites, R, err);
    if (st != TYCHO_OK) return st;

    const int32_t r2 = R * R;
    const uint8_t *lut = ws->lut;
    const bool iu = p->inflate_unknown;
    for (int y = 0; y < h; y++) {
        const int32_t *d2 = tycho_edt_row(ws->edt, y);
        if (!d2) continue;
        uint8_t *out = dst + (size_t)y * w;
        for (int x = 0; x < w; x++) {
            int32_t d = d2[x];
            if (d > r2) continue;
            out[x] = combine(out[x], lut[d], iu);
        }
    }
    return TYCHO_OK;
}

tycho_status tycho_inflate(tycho_inflation *ws, const tycho_grid *src, tycho_grid *dst,
                           const tycho_inflation_params *p, tycho_err *err)
{
    int w = tycho_grid_width(src), h = tycho_grid_height(src);
    if (tycho_grid_width(dst) != w || tycho_grid_height(dst) != h)
        return tycho_fail(err, TYCHO_EINVAL, "destination grid is %dx%d, source is %dx%d",
                          tycho_grid_width(dst), tycho_grid_height(dst), w, h);
    if (tycho_grid_resolution(dst) != tycho_grid_resolution(src))
        return tycho_fail(err, TYCHO_EINVAL, "destination resolution differs from the source's");
    return tycho_inflate_cells(ws, tycho_grid_cells_const(src), tycho_grid_cells(dst), w, h,
                               tycho_grid_resolution(src), p, err);
}
