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

/* sin and cos together, for ray directions: libm's pair costs about as much
 * as a whole accelerated ray. The angle is reduced by pi/64 in three parts
 * (Cody–Waite: k * part is exact for |k| < 2^20) to |r| <= pi/128; sin and
 * cos of r come from short Taylor series (to r^7 and r^8: the next terms
 * are below 1e-18 relative) and are turned by the tabled sin and cos of
 * k * pi/64 (angle addition). The result is within 4 ulps (3.4 the
 * largest over 2e7 random angles against long double), exact at 0 and
 * as good as libm at multiples of pi/2, and it costs a third less than the
 * longer series on |x| <= pi/4 used before. Large or non-finite angles go
 * to libm. */
#define PIO64_HI (1.5707963267341256 / 32)     /* 33 bits of pi/2, over 32 */
#define PIO64_MID (6.077100506303966e-11 / 32) /* the next 33 */
#define PIO64_LO (2.0222662487959506e-21 / 32) /* the rest */

/* sin(j * pi/64), j = 0..32, correctly rounded (cos is sin(pi/2 - x)) */
static const double SIN_PI64[33] = {
    0.0,
    0.049067674327418015,
    0.0980171403295606,
    0.14673047445536175,
    0.19509032201612828,
    0.2429801799032639,
    0.2902846772544624,
    0.33688985339222005,
    0.3826834323650898,
    0.4275550934302821,
    0.47139673682599764,
    0.5141027441932218,
    0.5555702330196022,
    0.5956993044924334,
    0.6343932841636455,
    0.6715589548470184,
    0.7071067811865476,
    0.7409511253549591,
    0.773010453362737,
    0.8032075314806449,
    0.8314696123025452,
    0.8577286100002721,
    0.881921264348355,
    0.9039892931234433,
    0.9238795325112867,
    0.9415440651830208,
    0.9569403357322088,
    0.970031253194544,
    0.9807852804032304,
    0.989176509964781,
    0.9951847266721969,
    0.9987954562051724,
    1.0,
};

static void ray_sincos(double a, double *sn, double *cs)
{
    if (!(fabs(a) < 1e5)) {
        *sn = sin(a);
        *cs = cos(a);
        return;
    }
    double q = a * 20.371832715762604; /* 64/pi */
    long k = (long)(q + (q >= 0 ? 0.5 : -0.5));
    double kd = (double)k;
    double r = ((a - kd * PIO64_HI) - kd * PIO64_MID) - kd * PIO64_LO, r2 = r * r;
    double sr = r + r * r2 * (-1.0 / 6 + r2 * (1.0 / 120 + r2 * (-1.0 / 5040)));
    double cr = 1 + r2 * (-0.5 + r2 * (1.0 / 24 + r2 * (-1.0 / 720 + r2 * (1.0 / 40320))));
    int j = (int)(k & 31);
    double sj = SIN_PI64[j], cj = SIN_PI64[32 - j];
    double s = sj * cr + cj * sr, c = cj * cr - sj * sr;
    switch ((k >> 5) & 3) {
    case 0:
        *sn = s;
        *cs = c;
        break;
    case 1:
        *sn = c;
        *cs = -s;
        break;
    case 2:
        *sn = -s;
        *cs = -c;
        break;
    default:
        *sn = -c;
        *cs = s;
        break;
    }
}

static void ray_setup(ray *r, double ox, double oy, double angle, double max_t)
{
    r->ox = ox;
    r->oy = oy;
    ray_sincos(angle, &r->dy, &r->dx);
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
    ptrdiff_t i;   /* cy * w + cx */
    double bx, by; /* next vertical / horizontal boundary line */
    double tx, ty; /* ray parameter where it crosses them */
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
        scan->ranges[i] =
            scan_range(cast_cells(cells, w, h, &r, o.threshold, o.unknown_blocked), res, scan);
    }
}

/* --- accelerated ----------------------------------------------------------
 *
 * field[i] == 0: blocked. field[i] == 1: free, but too close to something
 * blocked to jump; the traversal steps cell by cell. field[i] >= 2: the ray
 * may jump skip_of[field[i]] (>= 1) cells from any point of this cell.
 *
 * The jump is bounded by the gap between this cell's square and the nearest
 * blocked cell's square that the ray can reach: for centre offsets (dx, dy)
 * the gap is |(max(|dx|-1, 0), max(|dy|-1, 0))|. A ray never goes back
 * along either axis, so from a cell it reaches only blocked cells in the
 * quadrant ahead of it (offsets of the signs of its direction, or zero).
 * There is one field per quadrant of directions; a ray reads the one of its
 * own. Measured on the basement map: 5.75 jumps a ray with the nearest
 * blocked cell in any direction, 3.78 with the nearest ahead. Jumping a
 * little less than the gap (1e-6 cells, far above the rounding of the
 * positions involved) keeps every cell the exact traversal would visit
 * before the landing point free, so the two agree bit for bit. With
 * unknown_blocked the outside is blocked: the gap to the grid's edge caps
 * the jump as well.
 *
 * The skip is stored in a byte: 1/8-cell steps up to 17 cells, 2-cell steps
 * beyond (to 267); the rounding is always down.
 *
 * Memory layout, because a ray is mostly waiting for memory: each field is
 * stored in 8x8 tiles of 64 bytes, so the cell-by-cell steps near a wall
 * stay in one cache line whichever way they go, and each tile's smallest
 * value is kept in a small coarse array (a 1200x1200 map: 22 KB a quadrant).
 * Any point of a tile lies in one of its cells, so the tile's smallest jump
 * is valid from anywhere in it: in open space the rays jump on the coarse
 * array alone and only read the big field near obstacles. */
#define RM_CAP 270 /* distances beyond this (cells) all get the longest jump */
#define RM_EPS 1e-6
#define RM_FAR 0xffff /* no blocked cell within RM_CAP + 1 */

struct tycho_raymap {
    int w, h;
    double res;
    tycho_pose2 origin;
    double cos_yaw, sin_yaw;
    tycho_ray_opts opts;
    int tw;           /* tiles per row */
    size_t nt;        /* tiles per quadrant */
    uint8_t *field;   /* four quadrants, each tiled: 8x8 cells (one cache line) per tile */
    uint8_t *coarse;  /* four quadrants: per tile, the smallest field value in it */
    uint16_t *ahead;  /* scratch: per column, cells to the nearest blocked one ahead */
    int32_t *env_at;  /* scratch: the lower envelope's parabolas along a row */
    double *env_from; /* scratch: where each starts to be the lowest */
    int32_t *row_d2;  /* scratch: one row's squared gaps */
    size_t cap_field, cap_coarse;
    int cap_row;
    uint8_t *code; /* field value by squared gap, 0..RM_CAP^2 */
    double skip_of[256];
};

static double skip_value(int v) { return v < 130 ? 1 + (v - 2) / 8.0 : 17 + (v - 130) * 2.0; }

static uint8_t skip_code(double gap)
{
    double s = gap - RM_EPS;
    if (s < 1) return 1;
    int v = s < 17 ? 2 + (int)floor((s - 1) * 8) : 130 + (int)floor((s - 17) / 2);
    if (v > 255) v = 255;
    while (v > 2 && skip_value(v) > s) v--; /* guard the floor against rounding */
    return (uint8_t)v;
}

tycho_raymap *tycho_raymap_new(const tycho_grid *g, const tycho_ray_opts *opts, tycho_err *err)
{
    tycho_raymap *m = calloc(1, sizeof *m);
    if (!m) goto oom;
    m->code = malloc((size_t)RM_CAP * RM_CAP + 1);
    if (!m->code) goto oom;
    for (size_t d2 = 0; d2 <= (size_t)RM_CAP * RM_CAP; d2++)
        m->code[d2] = skip_code(sqrt((double)d2));
    m->skip_of[0] = m->skip_of[1] = 0;
    for (int v = 2; v < 256; v++) m->skip_of[v] = skip_value(v);
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
    free(m->field);
    free(m->coarse);
    free(m->ahead);
    free(m->env_at);
    free(m->env_from);
    free(m->row_d2);
    free(m->code);
    free(m);
}

void tycho_raymap_opts(const tycho_raymap *m, tycho_ray_opts *opts) { *opts = m->opts; }

static inline size_t tile_index(int tw, int cx, int cy)
{
    return ((size_t)((cy >> 3) * tw + (cx >> 3)) << 6) | (size_t)((cy & 7) << 3) | (size_t)(cx & 7);
}

static bool reserve(uint8_t **p, size_t *cap, size_t n)
{
    if (n <= *cap) return true;
    uint8_t *q = realloc(*p, n);
    if (!q) return false;
    *p = q;
    *cap = n;
    return true;
}

/* The quadrant of directions (sx, sy) is numbered (sx < 0) + 2 (sy < 0). */
static inline int quadrant_of(int sx, int sy) { return (sx < 0) + 2 * (sy < 0); }

/* One row of a quadrant's squared gaps. ahead[x]: rows from this one to the
 * nearest blocked cell at or beyond it in direction sy in column x
 * (RM_FAR: none within the cap), so the column's own gap is
 * max(ahead - 1, 0). The row's gap at x is the smallest over the columns bx
 * at or beyond x in direction sx of col(bx) + max(|bx - x| - 1, 0)^2:
 * col(x) itself, or the one-sided transform F(x + sx) = min over bx beyond
 * of col(bx) + (bx - (x + sx))^2, the lower envelope of parabolas
 * (Felzenszwalb & Huttenlocher's) built from the far end and read at the
 * newest parabola's place as it grows. Positions are counted p = 0.. from
 * the far end. */
static void quadrant_row(tycho_raymap *m, int w, int sx, const uint16_t *ahead, int32_t *d2)
{
    int32_t *at = m->env_at;
    double *from = m->env_from;
    int k = -1, kq = 0; /* the envelope's last entry; the one the reads are in */
    int64_t gk = 0;
    for (int p = 0; p < w; p++) {
        int x = sx > 0 ? w - 1 - p : p;
        int64_t col = -1; /* this column's squared gap (-1: none) */
        if (ahead[x] != RM_FAR) {
            int64_t gy = ahead[x] > 0 ? ahead[x] - 1 : 0;
            col = gy * gy;
        }
        /* F at p - 1: the envelope holds the parabolas of positions < p */
        int64_t best = col >= 0 ? col : INT64_MAX;
        if (k >= 0) {
            double q = p - 1;
            if (kq > k) kq = k;
            while (kq < k && from[kq + 1] <= q) kq++;
            int64_t dp = (int64_t)(p - 1) - at[kq];
            int32_t xk = sx > 0 ? w - 1 - at[kq] : at[kq];
            int64_t gy = ahead[xk] > 0 ? ahead[xk] - 1 : 0;
            int64_t f = gy * gy + dp * dp;
            if (f < best) best = f;
        }
        d2[x] = best > (int64_t)RM_CAP * RM_CAP ? -1 : (int32_t)best;
        if (col < 0) continue;
        /* add the parabola col + (z - p)^2 */
        double s = -INFINITY;
        while (k >= 0) {
            int32_t xk = sx > 0 ? w - 1 - at[k] : at[k];
            int64_t gy = ahead[xk] > 0 ? ahead[xk] - 1 : 0;
            gk = gy * gy;
            s = ((double)(col + (int64_t)p * p) - (double)(gk + (int64_t)at[k] * at[k])) /
                (2.0 * (p - at[k]));
            if (s <= from[k]) {
                k--;
                continue;
            }
            break;
        }
        if (kq > k && k >= 0) kq = k;
        if (k < 0) {
            k = 0;
            kq = 0;
            at[0] = p;
            from[0] = -INFINITY;
        } else {
            k++;
            at[k] = p;
            from[k] = s;
        }
    }
}

tycho_status tycho_raymap_update(tycho_raymap *m, const tycho_grid *g, tycho_err *err)
{
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    int tw = (w + 7) / 8, th = (h + 7) / 8;
    size_t nt = (size_t)tw * th;
    bool ok = reserve(&m->field, &m->cap_field, 4 * nt * 64) &&
              reserve(&m->coarse, &m->cap_coarse, 4 * nt);
    if (ok && w > m->cap_row) {
        void *a = realloc(m->ahead, (size_t)w * sizeof *m->ahead);
        if (a) m->ahead = a;
        void *b = realloc(m->env_at, (size_t)w * sizeof *m->env_at);
        if (b) m->env_at = b;
        void *c = realloc(m->env_from, (size_t)w * sizeof *m->env_from);
        if (c) m->env_from = c;
        void *d = realloc(m->row_d2, (size_t)w * sizeof *m->row_d2);
        if (d) m->row_d2 = d;
        ok = a && b && c && d;
        if (ok) m->cap_row = w;
    }
    if (!ok) return tycho_fail(err, TYCHO_ENOMEM, "out of memory for a %dx%d ray map", w, h);
    const uint8_t *cells = tycho_grid_cells_const(g);
    uint8_t is_blocked[256];
    for (int c = 0; c < 256; c++)
        is_blocked[c] = cost_blocks((uint8_t)c, m->opts.threshold, m->opts.unknown_blocked);
    memset(m->coarse, 255, 4 * nt);
    for (int q = 0; q < 4; q++) {
        int sx = q & 1 ? -1 : 1, sy = q & 2 ? -1 : 1;
        uint8_t *f = m->field + (size_t)q * nt * 64, *co = m->coarse + (size_t)q * nt;
        for (int x = 0; x < w; x++) m->ahead[x] = RM_FAR;
        /* rows from the far end in y, so `ahead` carries the column counts */
        for (int r = 0; r < h; r++) {
            int y = sy > 0 ? h - 1 - r : r;
            const uint8_t *c = cells + (size_t)y * w;
            for (int x = 0; x < w; x++)
                m->ahead[x] = is_blocked[c[x]]            ? 0
                              : m->ahead[x] >= RM_CAP + 1 ? RM_FAR
                                                          : (uint16_t)(m->ahead[x] + 1);
            quadrant_row(m, w, sx, m->ahead, m->row_d2);
            int gy = y < h - 1 - y ? y : h - 1 - y;
            for (int x = 0; x < w; x++) {
                int32_t d2 = m->row_d2[x];
                uint8_t v = d2 >= 0 ? m->code[d2] : 255;
                if (m->opts.unknown_blocked) {
                    int gx = x < w - 1 - x ? x : w - 1 - x, gb = gx < gy ? gx : gy;
                    if (gb < RM_CAP && m->code[gb * gb] < v) v = m->code[gb * gb];
                }
                if (is_blocked[c[x]]) v = 0;
                f[tile_index(tw, x, y)] = v;
                uint8_t *least = &co[(size_t)(y >> 3) * tw + (x >> 3)];
                if (v < *least) *least = v;
            }
        }
    }
    m->w = w;
    m->h = h;
    m->tw = tw;
    m->nt = nt;
    m->res = tycho_grid_resolution(g);
    m->origin = tycho_grid_origin(g);
    m->cos_yaw = cos(m->origin.yaw);
    m->sin_yaw = sin(m->origin.yaw);
    return TYCHO_OK;
}

/* The cell along one axis that the traversal occupies at parameter tl,
 * starting from a guess c at most a rounding error away. Only needed when
 * the landing point is within SETTLE_NEAR of a cell boundary: farther from
 * it, rounding (~1e-13 cells at any realistic map size) cannot make the
 * crossing parameters and the position disagree. */
#define SETTLE_NEAR 1e-6
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

/* Jumps from the coarse array shorter than this many cells are not worth
 * taking when the cell's own (longer) jump is one memory read away. */
#ifndef COARSE_MIN_CODE
#define COARSE_MIN_CODE 26 /* skip_value(26) = 4 cells */
#endif

/* One ray's progress through the accelerated traversal. A ray is a chain of
 * dependent steps (each jump's landing cell decides the next jump), so one
 * ray at a time leaves the processor waiting on loads and on the branch that
 * ends the ray; several rays advanced in turn (cast_lanes) let it overlap
 * their chains. A single ray runs the same steps in a loop. */
typedef struct {
    const ray *r;
    const uint8_t *field, *coarse; /* the ray's quadrant's */
    double t;                      /* result once done */
    double tl;                     /* how far along the ray the jumps have got */
    int cx, cy;
    unsigned v; /* field value of the current cell */
} lane;

/* Starts a ray; true when it already ended (result in L->t). */
/* The field value to use at cell (cx, cy): the tile's smallest when it is
 * long enough, else the cell's own (a read from the big field, the one
 * likely to miss the cache). */
static inline unsigned field_at(const tycho_raymap *m, const lane *L, int cx, int cy)
{
    unsigned v = L->coarse[(size_t)(cy >> 3) * m->tw + (cx >> 3)];
    if (v >= COARSE_MIN_CODE) return v;
    return L->field[tile_index(m->tw, cx, cy)];
}

static inline bool lane_begin(const tycho_raymap *m, lane *L, const ray *r)
{
    L->r = r;
    int q = quadrant_of(r->sx, r->sy);
    L->field = m->field + (size_t)q * m->nt * 64;
    L->coarse = m->coarse + (size_t)q * m->nt;
    int st = ray_start(r, m->w, m->h, m->opts.unknown_blocked, &L->cx, &L->cy, &L->t);
    if (st == START_HIT) {
        L->t = 0;
        return true;
    }
    if (st == START_MISS) {
        L->t = INFINITY;
        return true;
    }
    /* a tile with a long enough jump everywhere has nothing blocked in it:
     * the start cell's own value need not be fetched */
    unsigned v = field_at(m, L, L->cx, L->cy);
    L->v = v;
    /* Hit distances always come from dda_step; tl only has to keep growing.
     * (After a landing the first traversal step can cross a line the
     * landing point was, by rounding, already past, at a parameter below
     * tl; jumping from there again could loop forever.) */
    L->tl = L->t;
    return v == 0;
}

static inline bool lane_done(lane *L, double t)
{
    L->t = t;
    return true;
}

/* One jump, or the exact traversal through cells too close to something
 * blocked to jump from; true when the ray has ended (result in L->t). */
static inline __attribute__((always_inline)) bool lane_advance(const tycho_raymap *m, lane *L)
{
    const ray *r = L->r;
    const int w = m->w, h = m->h, tw = m->tw;
    const uint8_t *f = L->field;
    if (L->v >= 2) {
        double tl = L->tl + m->skip_of[L->v];
        if (tl > r->max_t) return lane_done(L, INFINITY);
        L->tl = tl;
        double px = r->ox + tl * r->dx, py = r->oy + tl * r->dy;
        /* Leaving the grid is only possible when the outside is free
         * (otherwise the field keeps jumps inside): nothing left to hit. */
        if (px < 0 || py < 0) return lane_done(L, INFINITY); /* (int) would round toward 0 */
        /* The landing cell must be the one the traversal itself would be
         * in at tl, i.e. judged by the same boundary-crossing parameters,
         * not by rounding px: a ray running along a grid line within
         * rounding distance would otherwise land in the neighbouring row
         * and never come back. */
        int cx = (int)px, cy = (int)py;
        double fx = px - cx, fy = py - cy;
        if (fx < SETTLE_NEAR || fx > 1 - SETTLE_NEAR) cx = settle(cx, r->ox, r->idx, r->sx, tl);
        if (fy < SETTLE_NEAR || fy > 1 - SETTLE_NEAR) cy = settle(cy, r->oy, r->idy, r->sy, tl);
        if ((unsigned)cx >= (unsigned)w || (unsigned)cy >= (unsigned)h)
            return lane_done(L, INFINITY);
        unsigned v = field_at(m, L, cx, cy);
        L->cx = cx;
        L->cy = cy;
        L->v = v;
        return false;
    }
    dda s;
    dda_init(&s, r, L->cx, L->cy, w);
    double t;
    unsigned v;
    do {
        t = dda_step(&s, r, w);
        if (t > r->max_t) return lane_done(L, INFINITY);
        if ((unsigned)s.cx >= (unsigned)w || (unsigned)s.cy >= (unsigned)h)
            return lane_done(L, m->opts.unknown_blocked ? t : INFINITY);
        v = f[tile_index(tw, s.cx, s.cy)];
        if (v == 0) return lane_done(L, t);
    } while (v == 1);
    if (t > L->tl) L->tl = t;
    L->cx = s.cx;
    L->cy = s.cy;
    L->v = v;
    return false;
}

static double cast_field(const tycho_raymap *m, const ray *r)
{
    lane L;
    if (!lane_begin(m, &L, r))
        while (!lane_advance(m, &L)) {
        }
    return L.t;
}

/* Casts rays[0..n) into t[0..n), LANES rays in flight: a lane whose ray
 * ends takes the next one. Same steps as cast_field, so the same results. */
#define LANES 4 /* measured: 2-4 lanes gain ~12 %, 8 lose it again */
static void cast_lanes(const tycho_raymap *m, const ray *rays, int n, double *t)
{
    lane L[LANES];
    int who[LANES], next = 0, active = 0;
    for (int k = 0; k < LANES; k++) {
        who[k] = -1;
        while (next < n) {
            int i = next++;
            if (!lane_begin(m, &L[k], &rays[i])) {
                who[k] = i;
                active++;
                break;
            }
            t[i] = L[k].t;
        }
    }
    while (active > 0) {
        for (int k = 0; k < LANES; k++) {
            if (who[k] < 0 || !lane_advance(m, &L[k])) continue;
            t[who[k]] = L[k].t;
            who[k] = -1;
            active--;
            while (next < n) {
                int i = next++;
                if (!lane_begin(m, &L[k], &rays[i])) {
                    who[k] = i;
                    active++;
                    break;
                }
                t[i] = L[k].t;
            }
        }
    }
}

static void raymap_to_map(const tycho_raymap *m, double x, double y, double *mx, double *my)
{
    double dx = x - m->origin.x, dy = y - m->origin.y;
    *mx = (m->cos_yaw * dx + m->sin_yaw * dy) / m->res;
    *my = (-m->sin_yaw * dx + m->cos_yaw * dy) / m->res;
}

double tycho_raymap_cast(const tycho_raymap *m, double x, double y, double angle, double max_range)
{
    if (!isfinite(x) || !isfinite(y) || !isfinite(angle) || isnan(max_range)) return NAN;
    if (max_range < 0) return INFINITY;
    double mx, my;
    raymap_to_map(m, x, y, &mx, &my);
    ray r;
    ray_setup(&r, mx, my, angle - m->origin.yaw, max_range / m->res);
    return cast_field(m, &r) * m->res + 0.0;
}

/* Rays are set up and cast in chunks: enough to keep every lane busy, few
 * enough to stay on the stack. */
#define CHUNK 64

void tycho_raymap_cast_many(const tycho_raymap *m, int n, const double *x, const double *y,
                            const double *angle, double max_range, double *range)
{
    ray rays[CHUNK];
    double t[CHUNK];
    int out[CHUNK];
    for (int i0 = 0; i0 < n; i0 += CHUNK) {
        int k = 0;
        for (int i = i0; i < n && i < i0 + CHUNK; i++) {
            if (!isfinite(x[i]) || !isfinite(y[i]) || !isfinite(angle[i]) || isnan(max_range)) {
                range[i] = NAN;
                continue;
            }
            if (max_range < 0) {
                range[i] = INFINITY;
                continue;
            }
            double mx, my;
            raymap_to_map(m, x[i], y[i], &mx, &my);
            ray_setup(&rays[k], mx, my, angle[i] - m->origin.yaw, max_range / m->res);
            out[k++] = i;
        }
        cast_lanes(m, rays, k, t);
        for (int j = 0; j < k; j++) range[out[j]] = t[j] * m->res + 0.0;
    }
}

void tycho_raymap_scan(const tycho_raymap *m, tycho_pose2 pose, tycho_scan *scan)
{
    if (!(isfinite(pose.x) && isfinite(pose.y) && isfinite(pose.yaw))) {
        for (int i = 0; i < scan->count; i++) scan->ranges[i] = NAN;
        return;
    }
    double mx, my;
    raymap_to_map(m, pose.x, pose.y, &mx, &my);
    double yaw = pose.yaw - m->origin.yaw;
    ray rays[CHUNK];
    double t[CHUNK];
    for (int i0 = 0; i0 < scan->count; i0 += CHUNK) {
        int k = scan->count - i0 < CHUNK ? scan->count - i0 : CHUNK;
        for (int j = 0; j < k; j++)
            ray_setup(&rays[j], mx, my, yaw + tycho_scan_angle(scan, i0 + j),
                      scan->range_max / m->res);
        cast_lanes(m, rays, k, t);
        for (int j = 0; j < k; j++) scan->ranges[i0 + j] = scan_range(t[j], m->res, scan);
    }
}
