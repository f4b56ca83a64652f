/* Laser scans and their insertion into a grid's log-odds layer. */
#include "tycho/scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Slack (cells) added to a hit range so a range ending exactly on a cell
 * boundary, or a hair before it after float rounding, reaches the cell
 * beyond: the obstacle cell ray casting stopped at. */
#define HIT_SLACK 1e-3

tycho_status tycho_scan_init(tycho_scan *s, int count, double angle_min, double angle_increment,
                             double range_min, double range_max, tycho_err *err)
{
    memset(s, 0, sizeof *s);
    if (count < 1 || count > TYCHO_SCAN_MAX_BEAMS)
        return tycho_fail(err, TYCHO_EINVAL, "count must be 1..%d (got %d)", TYCHO_SCAN_MAX_BEAMS,
                          count);
    if (!isfinite(angle_min)) return tycho_fail(err, TYCHO_EINVAL, "angle_min must be finite");
    if (!isfinite(angle_increment))
        return tycho_fail(err, TYCHO_EINVAL, "angle_increment must be finite");
    if (!isfinite(range_min) || range_min < 0)
        return tycho_fail(err, TYCHO_EINVAL, "range_min must be finite and >= 0");
    if (!isfinite(range_max) || !(range_max > range_min))
        return tycho_fail(err, TYCHO_EINVAL, "range_max must be finite and > range_min");
    s->ranges = malloc((size_t)count * sizeof *s->ranges);
    if (!s->ranges) return tycho_fail(err, TYCHO_ENOMEM, "out of memory for %d ranges", count);
    for (int i = 0; i < count; i++) s->ranges[i] = INFINITY;
    s->count = count;
    s->angle_min = angle_min;
    s->angle_increment = angle_increment;
    s->range_min = range_min;
    s->range_max = range_max;
    return TYCHO_OK;
}

void tycho_scan_free(tycho_scan *s)
{
    if (!s) return;
    free(s->ranges);
    s->ranges = NULL;
    s->count = 0;
}

void tycho_insert_opts_defaults(tycho_insert_opts *o)
{
    o->clear_on_max_range = true;
    o->grow = true;
}

struct tycho_inserter {
    uint8_t *stamp; /* per cell: the scan that last updated it (mod 255) */
    size_t cap;
    uint8_t now;
    double *dir; /* per beam of the scan being inserted: cos, sin of its angle */
    int dir_cap;
};

tycho_inserter *tycho_inserter_new(void) { return calloc(1, sizeof(tycho_inserter)); }

void tycho_inserter_free(tycho_inserter *ws)
{
    if (!ws) return;
    free(ws->stamp);
    free(ws->dir);
    free(ws);
}

/* A fresh stamp for this scan. Stamps left by scans of other grids (or of
 * this grid before it grew) are older than it, so they need no clearing;
 * only a wrap of the counter forces one. Bytes rather than wider counters:
 * the stamps are touched for every cell a beam crosses, and a smaller array
 * stays in cache (clearing it every 255 scans costs next to nothing). */
static tycho_status next_stamp(tycho_inserter *ws, size_t n, tycho_err *err)
{
    if (n > ws->cap) {
        free(ws->stamp);
        ws->stamp = calloc(n, 1);
        ws->cap = ws->stamp ? n : 0;
        ws->now = 0;
        if (!ws->stamp) return tycho_fail(err, TYCHO_ENOMEM, "out of memory for scan stamps");
    }
    if (++ws->now == 0) {
        memset(ws->stamp, 0, ws->cap);
        ws->now = 1;
    }
    return TYCHO_OK;
}

static tycho_status grow_for(tycho_grid *g, double mx, double my, double reach, tycho_err *err)
{
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    if (!(fabs(mx) + reach < 1e9 && fabs(my) + reach < 1e9))
        return tycho_fail(err, TYCHO_ERANGE, "scan pose or range_max too far to grow the grid to");
    double x0 = floor(mx - reach), y0 = floor(my - reach);
    double x1 = floor(mx + reach), y1 = floor(my + reach);
    if (x0 >= 0 && y0 >= 0 && x1 < w && y1 < h) return TYCHO_OK;
    /* Corner cells of the square around the sensor; growth keeps world
     * places, so the second corner is converted after the first growth. */
    double wx, wy;
    tycho_grid_cell_to_world(g, (int)x0, (int)y0, &wx, &wy);
    double ux, uy;
    tycho_grid_cell_to_world(g, (int)x1, (int)y1, &ux, &uy);
    tycho_status st = tycho_grid_grow_to(g, wx, wy, 0, err);
    if (st != TYCHO_OK) return st;
    return tycho_grid_grow_to(g, ux, uy, 0, err);
}

typedef struct {
    float *lo;
    uint8_t *cost;
    uint8_t *stamp;
    uint8_t now;
    tycho_logodds_lut lut;
    size_t updated;
} target;

static inline void update(target *tg, size_t i, float delta)
{
    if (tg->stamp[i] == tg->now) return;
    tg->stamp[i] = tg->now;
    float l = tg->lo[i] + delta;
    l = l < tg->lut.min ? tg->lut.min : (l > tg->lut.max ? tg->lut.max : l);
    tg->lo[i] = l;
    tg->cost[i] = tycho_logodds_to_cost(&tg->lut, l);
    tg->updated++;
}

/* Misses along a beam from (ox, oy), direction (dx, dy) (unit, cells), over
 * every cell it enters before `limit`. Cells already stamped this scan
 * (hits, or crossed by an earlier beam) are left alone. */
static void trace_misses(target *tg, int w, int h, double ox, double oy, double dx, double dy,
                         double limit)
{
    double t = 0;
    /* an origin outside the grid (no growth) starts where the beam enters it */
    if (!(ox >= 0 && oy >= 0 && ox < w && oy < h)) {
        double tmin = 0, tmax = limit;
        const double o[2] = {ox, oy}, d[2] = {dx, dy};
        const int n[2] = {w, h};
        for (int a = 0; a < 2; a++) {
            if (d[a] == 0) {
                if (!(o[a] >= 0 && o[a] < n[a])) return;
                continue;
            }
            double t0 = (0 - o[a]) / d[a], t1 = (n[a] - o[a]) / d[a];
            if (t0 > t1) {
                double s = t0;
                t0 = t1;
                t1 = s;
            }
            tmin = t0 > tmin ? t0 : tmin;
            tmax = t1 < tmax ? t1 : tmax;
        }
        if (tmin >= tmax) return;
        t = tmin;
    }
    double px = floor(ox + t * dx), py = floor(oy + t * dy);
    int cx = px < 0 ? 0 : (px > w - 1 ? w - 1 : (int)px);
    int cy = py < 0 ? 0 : (py > h - 1 ? h - 1 : (int)py);
    int sx = dx < 0 ? -1 : 1, sy = dy < 0 ? -1 : 1;
    double idx = dx != 0 ? 1.0 / dx : INFINITY, idy = dy != 0 ? 1.0 / dy : INFINITY;
    double tx = (cx + (sx > 0) - ox) * idx, ty = (cy + (sy > 0) - oy) * idy;
    double ddx = fabs(idx), ddy = fabs(idy);
    ptrdiff_t i = (ptrdiff_t)cy * w + cx, rowstep = (ptrdiff_t)sy * w;
    /* The hot loop of insertion: locals instead of tg's fields, which the
     * byte stores to cost[] would otherwise force to be reloaded. */
    float *restrict lo = tg->lo;
    uint8_t *restrict cost = tg->cost;
    uint8_t *restrict stamp = tg->stamp;
    const uint8_t now = tg->now;
    const tycho_logodds_lut lut = tg->lut;
    const unsigned uw = (unsigned)w, uh = (unsigned)h;
    size_t n = 0;
    for (;;) {
        if (stamp[i] != now) {
            stamp[i] = now;
            float l0 = lo[i];
            /* a cell already as free as it gets stays so: most cells of a
             * map the robot drives through (nothing to write back) */
            if (!(l0 <= lut.min && cost[i] == TYCHO_COST_FREE)) {
                float l = l0 + lut.miss;
                l = l < lut.min ? lut.min : (l > lut.max ? lut.max : l);
                lo[i] = l;
                cost[i] = tycho_logodds_to_cost(&lut, l);
            }
            n++;
        }
        if (tx <= ty) {
            if (tx >= limit) break;
            cx += sx;
            if ((unsigned)cx >= uw) break;
            i += sx;
            tx += ddx;
        } else {
            if (ty >= limit) break;
            cy += sy;
            if ((unsigned)cy >= uh) break;
            i += rowstep;
            ty += ddy;
        }
    }
    tg->updated += n;
}

tycho_status tycho_scan_insert(tycho_inserter *ws, tycho_grid *g, tycho_pose2 pose,
                               const tycho_scan *scan, const tycho_insert_opts *opts,
                               size_t *updated, tycho_err *err)
{
    tycho_insert_opts o;
    if (opts) o = *opts;
    else tycho_insert_opts_defaults(&o);
    if (updated) *updated = 0;
    if (!isfinite(pose.x) || !isfinite(pose.y) || !isfinite(pose.yaw))
        return tycho_fail(err, TYCHO_EINVAL, "pose must be finite");
    if (!scan->ranges || scan->count < 1 || !(scan->range_max > scan->range_min) ||
        !isfinite(scan->range_max))
        return tycho_fail(err, TYCHO_EINVAL, "scan is empty or has a bad range_min/range_max");

    double res = tycho_grid_resolution(g), mx, my;
    tycho_grid_world_to_map(g, pose.x, pose.y, &mx, &my);
    double reach = scan->range_max / res + 1;
    if (o.grow) {
        tycho_status st = grow_for(g, mx, my, reach, err);
        if (st != TYCHO_OK) return st;
        tycho_grid_world_to_map(g, pose.x, pose.y, &mx, &my); /* the origin moved */
    }
    /* Only now take the layer pointers: growth reallocates them. */
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    target tg;
    tg.lo = tycho_grid_logodds(g);
    if (!tg.lo) return tycho_fail(err, TYCHO_ENOMEM, "out of memory for the log-odds layer");
    tg.cost = tycho_grid_cells(g);
    tycho_status st = next_stamp(ws, (size_t)w * h, err);
    if (st != TYCHO_OK) return st;
    tg.stamp = ws->stamp;
    tg.now = ws->now;
    tycho_grid_logodds_lut(g, &tg.lut);
    tg.updated = 0;

    double yaw = pose.yaw - tycho_grid_origin(g).yaw;
    double rmin = scan->range_min, rmax = scan->range_max;
    /* each beam's direction once: both passes need it, and a cos/sin pair
     * costs a tenth of a beam's walk (a scan's insertion: 62.6 -> 58 us) */
    if (scan->count > ws->dir_cap) {
        double *d = realloc(ws->dir, (size_t)scan->count * 2 * sizeof *d);
        if (!d) return tycho_fail(err, TYCHO_ENOMEM, "out of memory for %d beams", scan->count);
        ws->dir = d;
        ws->dir_cap = scan->count;
    }
    double *dir = ws->dir;
    for (int k = 0; k < scan->count; k++) {
        double r = scan->ranges[k];
        if (isnan(r) || r < rmin || (r >= rmax && !o.clear_on_max_range)) continue;
        double a = yaw + tycho_scan_angle(scan, k);
        dir[2 * k] = cos(a);
        dir[2 * k + 1] = sin(a);
    }
    /* Hits first, so a cell that is some beam's end point is not also
     * cleared by another beam passing through it in the same scan. */
    for (int k = 0; k < scan->count; k++) {
        double r = scan->ranges[k];
        if (!(r >= rmin && r < rmax)) continue;
        double t = r / res + HIT_SLACK;
        double px = floor(mx + t * dir[2 * k]), py = floor(my + t * dir[2 * k + 1]);
        if (px >= 0 && py >= 0 && px < w && py < h)
            update(&tg, (size_t)py * w + (size_t)px, tg.lut.hit);
    }
    for (int k = 0; k < scan->count; k++) {
        double r = scan->ranges[k], limit;
        if (isnan(r) || r < rmin) continue;
        if (r < rmax) limit = r / res + HIT_SLACK;
        else if (o.clear_on_max_range) limit = rmax / res;
        else continue;
        trace_misses(&tg, w, h, mx, my, dir[2 * k], dir[2 * k + 1], limit);
    }
    if (updated) *updated = tg.updated;
    return TYCHO_OK;
}

void tycho_scan_lane(const tycho_scan *s, double half, double *front, double *left, double *right)
{
    double f = INFINITY, l = INFINITY, r = INFINITY;
    for (int i = 0; i < s->count; i++) {
        double range = s->ranges[i];
        if (!(range > 0 && range < INFINITY)) continue;
        double a = s->angle_min + i * s->angle_increment;
        double ahead = range * cos(a), side = range * sin(a);
        if (ahead > 0 && fabs(side) <= half && ahead < f) f = ahead;
        if (fabs(ahead) <= half) {
            if (side > 0 && side < l) l = side;
            if (side < 0 && -side < r) r = -side;
        }
    }
    *front = f, *left = l, *right = r;
}
