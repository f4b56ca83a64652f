/* Laser scans and their insertion into a grid's log-odds layer. */
#include "tycho/scan.h"

#include <math.h>
#include <stdint.h>
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
    o->fill_near = true;
}

struct tycho_inserter {
    uint8_t *stamp; /* per cell: the scan that last updated it (mod 255) */
    size_t cap;
    uint8_t now;
    double *dir; /* per beam of the scan being inserted: cos, sin of its angle */
    int dir_cap;
    double *beam; /* per beam: cos, sin of its angle in the scan's frame */
    int beam_count;
    double beam_min, beam_inc;
    double *limit; /* per beam: how far its walk goes (cells), NaN for none */
};

tycho_inserter *tycho_inserter_new(void) { return calloc(1, sizeof(tycho_inserter)); }

void tycho_inserter_free(tycho_inserter *ws)
{
    if (!ws) return;
    free(ws->stamp);
    free(ws->dir);
    free(ws->beam);
    free(ws->limit);
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

/* One miss on cell i, unless this scan has stamped it already (a hit, or
 * crossed by an earlier beam); returns 1 when it stamps it. A cell already
 * as free as it gets stays as it is (most cells of a map the robot drives
 * through: nothing to write back). */
static inline size_t miss_cell(float *restrict lo, uint8_t *restrict cost, uint8_t *restrict stamp,
                               uint8_t now, const tycho_logodds_lut *lut, size_t i)
{
    if (stamp[i] == now) return 0;
    stamp[i] = now;
    float l0 = lo[i];
    if (!(l0 <= lut->min && cost[i] == TYCHO_COST_FREE)) {
        float l = l0 + lut->miss;
        l = l < lut->min ? lut->min : (l > lut->max ? lut->max : l);
        lo[i] = l;
        cost[i] = tycho_logodds_to_cost(lut, l);
    }
    return 1;
}

/* Distance (cells) from a cell boundary below which a start point is taken
 * to be on it: the walk then starts at the sensor instead. Far above the
 * fixed-point walk's error (below 1e-9 cells over any beam). */
#define ON_BOUNDARY 1e-6

/* A beam parameter (cells) in fixed point, 2^-32 of a cell; parameters past
 * 2^20 cells (a beam all but parallel to an axis, or an infinite one) all
 * become 2^20: no beam gets that far, and sums of them stay below 2^53. */
#define FIXED_ONE 4294967296.0
#define FIXED_CAP (1 << 20)
static inline int64_t to_fixed(double t)
{
    return t < FIXED_CAP ? (int64_t)llround(t * FIXED_ONE) : (int64_t)FIXED_CAP << 32;
}

/* At a tie of the fixed-point crossings (a beam through a cell corner, to
 * 2^-32 of a cell): the axis whose crossing comes first in floating point,
 * from the sensor, x on an exact tie. A beam at 45 degrees from a corner
 * ties at every corner; its components differ by an ulp, and it keeps to
 * the side that ulp gives it, as the floating-point walk did. */
static bool x_first(ptrdiff_t i, int w, int sx, int sy, double ox, double oy, double idx,
                    double idy)
{
    double cx = (double)(i % w), cy = (double)(i / w); /* rare: no need to carry them */
    return (cx + (sx > 0) - ox) * idx <= (cy + (sy > 0) - oy) * idy;
}

/* Misses along a beam from (ox, oy), direction (dx, dy) (unit, cells), over
 * every cell it enters before `limit`, skipping those it crosses before
 * `from` (cells the caller has already covered; 0 for none). Cells already
 * stamped this scan (hits, or crossed by an earlier beam) are left alone. */
static void trace_misses(target *tg, int w, int h, double ox, double oy, double dx, double dy,
                         double limit, double from)
{
    double ex = ox + limit * dx, ey = oy + limit * dy;
    /* A beam from well inside the grid to well inside it (every beam of a
     * grown map) needs no bounds checks. */
    bool inside = ox >= 1 && oy >= 1 && ox < w - 1 && oy < h - 1 && ex >= 1 && ey >= 1 &&
                  ex < w - 1 && ey < h - 1;
    double t = 0;
    if (inside && from > 0) {
        /* start in the cell that holds the point at `from`, unless that
         * point is too near a boundary to say which cell the walk from the
         * sensor would be in there */
        double fx = ox + from * dx, fy = oy + from * dy;
        double rx = fx - floor(fx), ry = fy - floor(fy);
        if (rx > ON_BOUNDARY && rx < 1 - ON_BOUNDARY && ry > ON_BOUNDARY && ry < 1 - ON_BOUNDARY)
            t = from;
    } else if (!(ox >= 0 && oy >= 0 && ox < w && oy < h)) {
        /* an origin outside the grid (no growth) starts where the beam enters it */
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
    ptrdiff_t i = (ptrdiff_t)cy * w + cx, rowstep = (ptrdiff_t)sy * w;
    /* The hot loops of insertion: locals instead of tg's fields, which the
     * byte stores to cost[] would otherwise force to be reloaded. */
    float *restrict lo = tg->lo;
    uint8_t *restrict cost = tg->cost;
    uint8_t *restrict stamp = tg->stamp;
    const uint8_t now = tg->now;
    const tycho_logodds_lut lut = tg->lut;
    size_t n = 0;
    if (inside) {
        /* Crossing parameters in fixed point, counted from the sensor's
         * cell: the sum is exact, so the walk decides each step as a walk
         * from the sensor would whichever cell it starts in (accumulated in
         * floating point, a walk started at `from` could part from it at a
         * corner the beam passes within rounding of: a sensor on a grid
         * line, a beam ending on one), and an integer addition is a shorter
         * chain than a floating one. */
        int ocx = (int)ox, ocy = (int)oy; /* ox, oy >= 1: truncation is floor */
        int64_t step_x = to_fixed(fabs(idx)), step_y = to_fixed(fabs(idy));
        int64_t tx = to_fixed((ocx + (sx > 0) - ox) * idx) + (int64_t)abs(cx - ocx) * step_x;
        int64_t ty = to_fixed((ocy + (sy > 0) - oy) * idy) + (int64_t)abs(cy - ocy) * step_y;
        const int64_t end = to_fixed(limit);
        for (;;) {
            n += miss_cell(lo, cost, stamp, now, &lut, (size_t)i);
            if (tx < ty || (tx == ty && x_first(i, w, sx, sy, ox, oy, idx, idy))) {
                if (tx >= end) break;
                i += sx;
                tx += step_x;
            } else {
                if (ty >= end) break;
                i += rowstep;
                ty += step_y;
            }
        }
    } else {
        double tx = (cx + (sx > 0) - ox) * idx, ty = (cy + (sy > 0) - oy) * idy;
        double ddx = fabs(idx), ddy = fabs(idy);
        const unsigned uw = (unsigned)w, uh = (unsigned)h;
        for (;;) {
            n += miss_cell(lo, cost, stamp, now, &lut, (size_t)i);
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
    }
    tg->updated += n;
}

/* The disk round the sensor that the beams cover whole, as a radius in cells
 * (0: none). A cell whose centre is D from the sensor holds a disk of radius
 * 1/2, which every beam within asin(1/2 / D) of the cell's bearing crosses
 * (away from the cell's edges, so rounding cannot decide it); with beams at
 * most `gap` apart all round, one of them does so while D <= 0.45 /
 * sin(gap / 2) (a tenth to spare), and it reaches the cell if its walk goes
 * a cell farther. Near the sensor every beam crosses the same cells again
 * (a scan of 360 beams visits 23.6 k cells of which 10.6 k are different):
 * filling the disk once and starting each walk at its edge gives the same
 * cells for less. */
static double covered_radius(const tycho_scan *scan, const double *limit, int w, int h, double ox,
                             double oy)
{
    /* the widest gap between beams that are walked, round the circle */
    double inc = fabs(scan->angle_increment), nearest = INFINITY;
    int first = -1, prev = -1, widest = 0;
    for (int k = 0; k < scan->count; k++) {
        if (isnan(limit[k])) continue;
        if (prev >= 0 && k - prev > widest) widest = k - prev;
        if (first < 0) first = k;
        prev = k;
        if (limit[k] < nearest) nearest = limit[k];
    }
    if (first < 0 || prev - first < 8) return 0;
    double gap = widest * inc, wrap = 2 * M_PI - (prev - first) * inc;
    if (wrap > gap) gap = wrap;
    if (!(gap < M_PI / 4)) return 0;
    double r = 0.45 / sin(gap / 2);
    if (nearest - 1 < r) r = nearest - 1;
    if (!(r >= 3) || ox - r < 1 || oy - r < 1 || ox + r >= w - 1 || oy + r >= h - 1) return 0;
    return r;
}

/* Misses on every cell whose centre lies within r of (ox, oy). */
static void fill_disk(target *tg, int w, double ox, double oy, double r)
{
    float *restrict lo = tg->lo;
    uint8_t *restrict cost = tg->cost;
    uint8_t *restrict stamp = tg->stamp;
    const tycho_logodds_lut lut = tg->lut;
    size_t n = 0;
    for (int cy = (int)floor(oy - r); cy <= (int)floor(oy + r); cy++) {
        double off = cy + 0.5 - oy, half2 = r * r - off * off;
        if (half2 < 0) continue;
        double half = sqrt(half2);
        int x0 = (int)ceil(ox - half - 0.5), x1 = (int)floor(ox + half - 0.5);
        for (int cx = x0; cx <= x1; cx++)
            n += miss_cell(lo, cost, stamp, tg->now, &lut, (size_t)cy * w + cx);
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
    /* Each beam's direction once, for both passes. The cos and sin of the
     * beams' angles in the scan's frame are kept from scan to scan (a LiDAR
     * sends the same beams every time) and turned by the pose's yaw: two
     * libm calls a scan instead of 720, which cost a tenth of the walks
     * (a scan's insertion: 57 -> 53 us). */
    if (scan->count > ws->dir_cap) {
        double *d = realloc(ws->dir, (size_t)scan->count * 2 * sizeof *d);
        if (d) ws->dir = d;
        double *b = realloc(ws->beam, (size_t)scan->count * 2 * sizeof *b);
        if (b) ws->beam = b;
        double *l = realloc(ws->limit, (size_t)scan->count * sizeof *l);
        if (l) ws->limit = l;
        if (!d || !b || !l)
            return tycho_fail(err, TYCHO_ENOMEM, "out of memory for %d beams", scan->count);
        ws->beam_count = 0;
        ws->dir_cap = scan->count;
    }
    double *dir = ws->dir;
    if (scan->count != ws->beam_count || scan->angle_min != ws->beam_min ||
        scan->angle_increment != ws->beam_inc) {
        for (int k = 0; k < scan->count; k++) {
            double a = tycho_scan_angle(scan, k);
            ws->beam[2 * k] = cos(a);
            ws->beam[2 * k + 1] = sin(a);
        }
        ws->beam_count = scan->count;
        ws->beam_min = scan->angle_min;
        ws->beam_inc = scan->angle_increment;
    }
    double cy = cos(yaw), sy = sin(yaw);
    for (int k = 0; k < scan->count; k++) {
        double cb = ws->beam[2 * k], sb = ws->beam[2 * k + 1];
        dir[2 * k] = cy * cb - sy * sb;
        dir[2 * k + 1] = sy * cb + cy * sb;
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
    double *limit = ws->limit;
    for (int k = 0; k < scan->count; k++) {
        double r = scan->ranges[k];
        if (isnan(r) || r < rmin) limit[k] = NAN;
        else if (r < rmax) limit[k] = r / res + HIT_SLACK;
        else if (o.clear_on_max_range) limit[k] = rmax / res;
        else limit[k] = NAN;
    }
    double disk = o.fill_near ? covered_radius(scan, limit, w, h, mx, my) : 0;
    if (disk > 0) fill_disk(&tg, w, mx, my, disk);
    /* a walk that starts this far out crosses nothing nearer than the
     * disk's edge (a cell's centre is within sqrt(2)/2 of its points) */
    double from = disk > 0 ? disk - 0.75 : 0;
    for (int k = 0; k < scan->count; k++)
        if (!isnan(limit[k]))
            trace_misses(&tg, w, h, mx, my, dir[2 * k], dir[2 * k + 1], limit[k], from);
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
