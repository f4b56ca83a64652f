/* Ray casting: exact cell traversal (Amanatides–Woo) and, for snapshots, the
 * same traversal accelerated by jumps through free space.
 *
 * Everything runs in map coordinates, where a cell is 1x1 and the ray
 * direction is a unit vector, so the ray parameter t is a length in cells.
 *
 * Why the next boundary time is recomputed from the ray origin at every step
 * ((boundary - origin) / direction) instead of being accumulated: the value
 * then depends only on the cell, not on where the traversal started. The
 * accelerated caster restarts the traversal after every jump; with this form
 * it reproduces the plain traversal's decisions and hit distances bit for
 * bit. */
#include "tycho/raycast.h"

#include "tycho/edt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tycho_ray_opts_defaults(tycho_ray_opts *o)
{
    o->threshold = TYCHO_COST_LETHAL;
    o->unknown_blocked = false;
}

typedef struct {
    double ox, oy;   /* origin, cells */
    double dx, dy;   /* unit direction */
    double idx, idy; /* 1/dx, 1/dy (+inf along an axis) */
    double max_t;    /* cells */
    int sx, sy;      /* step direction, +-1 */
} ray;

static void ray_setup(ray *r, double ox, double oy, double angle, double max_t)
{
    r->ox = ox;
    r->oy = oy;
    r->dx = cos(angle);
    r->dy = sin(angle);
    /* A zero component steps "forward" with an infinite crossing time, so
     * the traversal never moves along that axis (and never computes 0*inf). */
    r->sx = r->dx < 0 ? -1 : 1;
    r->sy = r->dy < 0 ? -1 : 1;
    r->idx = r->dx != 0 ? 1.0 / r->dx : INFINITY;
    r->idy = r->dy != 0 ? 1.0 / r->dy : INFINITY;
    r->max_t = max_t;
}

static bool clip_axis(double o, double d, double inv, int n, double *tmin, double *tmax)
{
    if (d == 0) return o >= 0 && o < n;
    double a = (0 - o) * inv, b = (n - o) * inv;
    if (a > b) {
        double s = a;
        a = b;
        b = s;
    }
    if (a > *tmin) *tmin = a;
    if (b < *tmax) *tmax = b;
    return *tmin <= *tmax;
}

enum { START_CELL, START_HIT, START_MISS };

/* Where the traversal begins: the origin's cell, or for an origin outside
 * the grid the cell where the ray enters it. */
static int ray_start(const ray *r, int w, int h, bool outside_blocks, int *cx, int *cy, double *t0)
{
    *t0 = 0;
    if (r->ox >= 0 && r->oy >= 0 && r->ox < w && r->oy < h) {
        *cx = (int)r->ox; /* non-negative: truncation is floor */
        *cy = (int)r->oy;
        return START_CELL;
    }
    if (outside_blocks) return START_HIT;
    double tmin = 0, tmax = r->max_t;
    if (!clip_axis(r->ox, r->dx, r->idx, w, &tmin, &tmax) ||
        !clip_axis(r->oy, r->dy, r->idy, h, &tmin, &tmax))
        return START_MISS;
    double px = floor(r->ox + tmin * r->dx), py = floor(r->oy + tmin * r->dy);
    /* the entry point lies on the grid's edge; rounding may put it a hair outside */
    *cx = px < 0 ? 0 : (px > w - 1 ? w - 1 : (int)px);
    *cy = py < 0 ? 0 : (py > h - 1 ? h - 1 : (int)py);
    *t0 = tmin;
    return START_CELL;
}

typedef struct {
    int cx, cy;
    ptrdiff_t i;    /* cy * w + cx */
    double bx, by;  /* next vertical / horizontal boundary line */
    double tx, ty;  /* ray parameter where it crosses them */
} dda;

static inline void dda_init(dda *s, const ray *r, int cx, int cy, int w)
{
    s->cx = cx;
    s->cy = cy;
    s->i = (ptrdiff_t)cy * w + cx;
    s->bx = cx + (r->sx > 0);
    s->by = cy + (r->sy > 0);
    s->tx = (s->bx - r->ox) * r->idx;
    s->ty = (s->by - r->oy) * r->idy;
}

/* Moves into the next cell; returns the ray parameter at which it enters.
 * Ties (exact corner crossings) step along x. */
static inline double dda_step(dda *s, const ray *r, int w)
{
    double t;
    if (s->tx <= s->ty) {
        t = s->tx;
        s->cx += r->sx;
        s->i += r->sx;
        s->bx += r->sx;
        s->tx = (s->bx - r->ox) * r->idx;
    } else {
        t = s->ty;
        s->cy += r->sy;
        s->i += (ptrdiff_t)r->sy * w;
        s->by += r->sy;
        s->ty = (s->by - r->oy) * r->idy;
    }
    return t;
}

static inline bool cost_blocks(uint8_t c, uint8_t thr, bool ub)
{
    return c == TYCHO_COST_UNKNOWN ? ub : c >= thr;
}

/* Plain exact traversal; returns the hit parameter in cells or INFINITY. */
static double cast_cells(const uint8_t *cells, int w, int h, const ray *r, uint8_t thr, bool ub)
{
    int cx, cy;
    double t;
    int st = ray_start(r, w, h, ub, &cx, &cy, &t);
    if (st == START_HIT) return 0;
    if (st == START_MISS) return INFINITY;
    dda s;
    dda_init(&s, r, cx, cy, w);
    if (cost_blocks(cells[s.i], thr, ub)) return t;
    for (;;) {
        t = dda_step(&s, r, w);
        if (t > r->max_t) return INFINITY;
        if ((unsigned)s.cx >= (unsigned)w || (unsigned)s.cy >= (unsigned)h)
            return ub ? t : INFINITY;
        if (cost_blocks(cells[s.i], thr, ub)) return t;
    }
}

/* World pose and angle -> map-frame ray; false for non-finite input. */
static bool world_ray(ray *r, const tycho_grid *g, double x, double y, double angle,
                      double max_range)
{
    if (!isfinite(x) || !isfinite(y) || !isfinite(angle) || isnan(max_range)) return false;
    double mx, my, res = tycho_grid_resolution(g);
    tycho_grid_world_to_map(g, x, y, &mx, &my);
    ray_setup(r, mx, my, angle - tycho_grid_origin(g).yaw, max_range / res);
    return true;
}

double tycho_raycast(const tycho_grid *g, double x, double y, double angle, double max_range,
                     const tycho_ray_opts *opts)
{
    tycho_ray_opts o;
    if (!opts) tycho_ray_opts_defaults(&o);
    else o = *opts;
    ray r;
    if (!world_ray(&r, g, x, y, angle, max_range)) return NAN;
    if (max_range < 0) return INFINITY;
    double t = cast_cells(tycho_grid_cells_const(g), tycho_grid_width(g), tycho_grid_height(g), &r,
                          o.threshold, o.unknown_blocked);
    return t * tycho_grid_resolution(g) + 0.0; /* + 0.0: never report -0 */
}

static float scan_range(double t, double res, const tycho_scan *scan)
{
    double rr = t * res + 0.0;
    if (!(rr >= scan->range_min && rr <= scan->range_max)) return INFINITY;
    return (float)rr;
}

void tycho_scan_cast(const tycho_grid *g, tycho_pose2 pose, tycho_scan *scan,
                     const tycho_ray_opts *opts)
{
    tycho_ray_opts o;
    if (!opts) tycho_ray_opts_defaults(&o);
    else o = *opts;
    const uint8_t *cells = tycho_grid_cells_const(g);
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    double res = tycho_grid_resolution(g);
    double yaw = pose.yaw - tycho_grid_origin(g).yaw;
    double mx, my;
    tycho_grid_world_to_map(g, pose.x, pose.y, &mx, &my);
    bool ok = isfinite(pose.x) && isfinite(pose.y) && isfinite(pose.yaw);
    for (int i = 0; i < scan->count; i++) {
        if (!ok) {
            scan->ranges[i] = NAN;
            continue;
        }
        ray r;
        ray_setup(&r, mx, my, yaw + tycho_scan_angle(scan, i), scan->range_max / res);
        scan->ranges[i] = scan_range(cast_cells(cells, w, h, &r, o.threshold, o.unknown_blocked),
                                     res, scan);
    }
}

/* --- accelerated ----------------------------------------------------------
 *
 * field[i] == 0: blocked. field[i] = 1 + s: free, and the ray may jump s cells
 * from any point of this cell without entering a blocked cell, with one cell
 * to spare. If the nearest blocked cell's centre is d cells from this cell's
 * centre, every point of the two cells is at least d - sqrt(2) apart, so
 * s = floor(d - sqrt(2)) - 1. The spare cell matters for exactness: a jump
 * lands at least a cell away from anything blocked, so even when rounding
 * puts the landing point in a cell diagonal to the true path, the traversal
 * rejoins the path before it can meet an obstacle. With unknown_blocked the
 * outside counts as blocked, so d is also capped by the distance to the
 * nearest cell beyond the edge. */
struct tycho_raymap {
    int w, h;
    double res;
    tycho_pose2 origin;
    double cos_yaw, sin_yaw;
    tycho_ray_opts opts;
    uint8_t *field;
    size_t cap;
    tycho_edt *edt;
    uint8_t *lut; /* field value by squared distance, 0..RM_MAX^2 */
};

#define RM_MAX 258 /* distance (cells) at which the skip reaches 255 */

tycho_raymap *tycho_raymap_new(const tycho_grid *g, const tycho_ray_opts *opts, tycho_err *err)
{
    tycho_raymap *m = calloc(1, sizeof *m);
    if (!m) goto oom;
    m->edt = tycho_edt_new();
    m->lut = malloc((size_t)RM_MAX * RM_MAX + 1);
    if (!m->edt || !m->lut) goto oom;
    for (size_t d2 = 0; d2 <= (size_t)RM_MAX * RM_MAX; d2++) {
        double s = floor(sqrt((double)d2) - M_SQRT2) - 1;
        s = s < 0 ? 0 : (s > 254 ? 254 : s);
        m->lut[d2] = (uint8_t)(1 + s);
    }
    m->lut[0] = 0;
    if (opts) m->opts = *opts;
    else tycho_ray_opts_defaults(&m->opts);
    if (tycho_raymap_update(m, g, err) != TYCHO_OK) {
        tycho_raymap_free(m);
        return NULL;
    }
    return m;
oom:
    tycho_raymap_free(m);
    tycho_fail(err, TYCHO_ENOMEM, "out of memory for a ray map");
    return NULL;
}

void tycho_raymap_free(tycho_raymap *m)
{
    if (!m) return;
    tycho_edt_free(m->edt);
    free(m->field);
    free(m->lut);
    free(m);
}

void tycho_raymap_opts(const tycho_raymap *m, tycho_ray_opts *opts) { *opts = m->opts; }

tycho_status tycho_raymap_update(tycho_raymap *m, const tycho_grid *g, tycho_err *err)
{
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    size_t n = (size_t)w * h;
    if (n > m->cap) {
        uint8_t *f = realloc(m->field, n);
        if (!f) return tycho_fail(err, TYCHO_ENOMEM, "out of memory for a %dx%d ray map", w, h);
        m->field = f;
        m->cap = n;
    }
    uint8_t sites[256];
    for (int c = 0; c < 256; c++) sites[c] = cost_blocks((uint8_t)c, m->opts.threshold, m->opts.unknown_blocked);
    const uint8_t *cells = tycho_grid_cells_const(g);
    tycho_status st = tycho_edt_prepare(m->edt, cells, w, h, sites, RM_MAX, err);
    if (st != TYCHO_OK) return st;
    for (int y = 0; y < h; y++) {
        const int32_t *d2 = tycho_edt_row(m->edt, y);
        uint8_t *f = m->field + (size_t)y * w;
        for (int x = 0; x < w; x++) f[x] = d2 && d2[x] != TYCHO_EDT_FAR ? m->lut[d2[x]] : 255;
        if (m->opts.unknown_blocked) {
            int dy = y + 1 < h - y ? y + 1 : h - y;
            for (int x = 0; x < w; x++) {
                int dx = x + 1 < w - x ? x + 1 : w - x, db = dx < dy ? dx : dy;
                if (db < RM_MAX && m->lut[db * db] < f[x]) f[x] = m->lut[db * db];
            }
        }
    }
    m->w = w;
    m->h = h;
    m->res = tycho_grid_resolution(g);
    m->origin = tycho_grid_origin(g);
    m->cos_yaw = cos(m->origin.yaw);
    m->sin_yaw = sin(m->origin.yaw);
    return TYCHO_OK;
}

/* The cell along one axis that the traversal occupies at parameter tl,
 * starting from a guess c at most a rounding error away. */
static inline int settle(int c, double o, double inv, int step, double tl)
{
    for (int k = 0; k < 4; k++) {
        double ahead = ((double)c + (step > 0) - o) * inv;
        if (ahead <= tl) {
            c += step;
            continue;
        }
        double behind = ((double)c + (step < 0) - o) * inv;
        if (behind > tl) {
            c -= step;
            continue;
        }
        break;
    }
    return c;
}

static double cast_field(const tycho_raymap *m, const ray *r)
{
    const int w = m->w, h = m->h;
    const uint8_t *f = m->field;
    const bool ub = m->opts.unknown_blocked;
    int cx, cy;
    double t;
    int st = ray_start(r, w, h, ub, &cx, &cy, &t);
    if (st == START_HIT) return 0;
    if (st == START_MISS) return INFINITY;
    ptrdiff_t i = (ptrdiff_t)cy * w + cx;
    if (f[i] == 0) return t;
    /* tl: how far along the ray the jumps have got. Hit distances always
     * come from dda_step; tl only has to keep growing. (After a landing the
     * first traversal step can cross a line the landing point was, by
     * rounding, already past, at a parameter below tl; jumping from there
     * again could loop forever.) */
    double tl = t;
    for (;;) {
        unsigned v = f[i];
        if (v >= 2) {
            tl += v - 1;
            if (tl > r->max_t) return INFINITY;
            double px = r->ox + tl * r->dx, py = r->oy + tl * r->dy;
            /* Only possible when the outside is free (otherwise the field
             * keeps jumps inside): nothing left to hit. */
            if (!(px >= 0 && py >= 0 && px < w && py < h)) return INFINITY;
            /* The landing cell must be the one the traversal itself would
             * be in at tl, i.e. judged by the same boundary-crossing
             * parameters, not by rounding px: a ray running along a grid
             * line within rounding distance would otherwise land in the
             * neighbouring row and never come back. */
            cx = settle((int)px, r->ox, r->idx, r->sx, tl);
            cy = settle((int)py, r->oy, r->idy, r->sy, tl);
            if ((unsigned)cx >= (unsigned)w || (unsigned)cy >= (unsigned)h) return INFINITY;
            i = (ptrdiff_t)cy * w + cx;
            continue;
        }
        dda s;
        dda_init(&s, r, cx, cy, w);
        do {
            t = dda_step(&s, r, w);
            if (t > r->max_t) return INFINITY;
            if ((unsigned)s.cx >= (unsigned)w || (unsigned)s.cy >= (unsigned)h)
                return ub ? t : INFINITY;
            v = f[s.i];
            if (v == 0) return t;
        } while (v == 1);
        if (t > tl) tl = t;
        cx = s.cx;
        cy = s.cy;
        i = s.i;
    }
}

static void raymap_to_map(const tycho_raymap *m, double x, double y, double *mx, double *my)
{
    double dx = x - m->origin.x, dy = y - m->origin.y;
    *mx = (m->cos_yaw * dx + m->sin_yaw * dy) / m->res;
    *my = (-m->sin_yaw * dx + m->cos_yaw * dy) / m->res;
}

double tycho_raymap_cast(const tycho_raymap *m, double x, double y, double angle,
                         double max_range)
{
    if (!isfinite(x) || !isfinite(y) || !isfinite(angle) || isnan(max_range)) return NAN;
    if (max_range < 0) return INFINITY;
    double mx, my;
    raymap_to_map(m, x, y, &mx, &my);
    ray r;
    ray_setup(&r, mx, my, angle - m->origin.yaw, max_range / m->res);
    return cast_field(m, &r) * m->res + 0.0;
}

void tycho_raymap_scan(const tycho_raymap *m, tycho_pose2 pose, tycho_scan *scan)
{
    bool ok = isfinite(pose.x) && isfinite(pose.y) && isfinite(pose.yaw);
    double mx, my;
    raymap_to_map(m, pose.x, pose.y, &mx, &my);
    double yaw = pose.yaw - m->origin.yaw;
    for (int i = 0; i < scan->count; i++) {
        if (!ok) {
            scan->ranges[i] = NAN;
            continue;
        }
        ray r;
        ray_setup(&r, mx, my, yaw + tycho_scan_angle(scan, i), scan->range_max / m->res);
        scan->ranges[i] = scan_range(cast_field(m, &r), m->res, scan);
    }
}
