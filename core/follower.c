/* Regulated pure pursuit path follower and the path-ahead grid check (see
 * follower.h for the behaviour, step by step). */
#include "tycho/follower.h"

#include "tycho/diffdrive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct tycho_follower {
    tycho_follower_params p;
    double *xy; /* path points, 2*n */
    double *s;  /* arc length from the path start to each point */
    int n, cap;
    double goal_yaw; /* NAN = any */
    /* progress: projection on segment seg (point seg to seg+1) at fraction t */
    int seg;
    double t, proj_x, proj_y;
    double v_prev, w_prev;
    bool rotating;   /* in rotate-to-heading (for its hysteresis) */
    bool xy_reached; /* stateful goal check */
    tycho_follow_status status;
};

void tycho_follower_defaults(tycho_follower_params *p)
{
    p->desired_v = 0.20;
    p->max_v = 0.22;
    p->max_w = 2.84;
    p->lookahead_time = 1.5;
    p->min_lookahead = 0.3;
    p->max_lookahead = 0.9;
    p->min_radius = 0.9;
    p->min_v = 0.05;
    p->slow_clearance = 0.6;
    p->clearance_gain = 1.0;
    p->approach_dist = 0.6;
    p->approach_min_v = 0.05;
    p->rotate_to_heading = true;
    p->rotate_threshold = 0.785;
    p->rotate_w = 1.8;
    p->max_accel = 2.5;
    p->max_w_accel = 3.2;
    p->xy_tolerance = 0.25;
    p->yaw_tolerance = 0.25;
    p->search_dist = 1.5;
}

tycho_status tycho_follower_validate(const tycho_follower_params *p, tycho_err *err)
{
    const struct {
        const char *name;
        double v;
        bool zero_ok;
    } f[] = {
        {"desired_v", p->desired_v, false},
        {"max_v", p->max_v, false},
        {"max_w", p->max_w, false},
        {"lookahead_time", p->lookahead_time, true},
        {"min_lookahead", p->min_lookahead, false},
        {"max_lookahead", p->max_lookahead, false},
        {"min_radius", p->min_radius, true},
        {"min_v", p->min_v, true},
        {"slow_clearance", p->slow_clearance, true},
        {"clearance_gain", p->clearance_gain, false},
        {"approach_dist", p->approach_dist, true},
        {"approach_min_v", p->approach_min_v, true},
        {"rotate_threshold", p->rotate_threshold, false},
        {"rotate_w", p->rotate_w, false},
        {"max_accel", p->max_accel, true},
        {"max_w_accel", p->max_w_accel, true},
        {"xy_tolerance", p->xy_tolerance, false},
        {"yaw_tolerance", p->yaw_tolerance, false},
        {"search_dist", p->search_dist, false},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        if (!isfinite(f[i].v) || f[i].v < 0 || (!f[i].zero_ok && f[i].v == 0))
            return tycho_fail(err, TYCHO_EINVAL, "follower: %s must be %s (got %g)", f[i].name,
                              f[i].zero_ok ? ">= 0" : "> 0", f[i].v);
    }
    if (p->min_lookahead > p->max_lookahead)
        return tycho_fail(err, TYCHO_EINVAL, "follower: min_lookahead (%g) > max_lookahead (%g)",
                          p->min_lookahead, p->max_lookahead);
    if (p->desired_v > p->max_v)
        return tycho_fail(err, TYCHO_EINVAL, "follower: desired_v (%g) > max_v (%g)", p->desired_v,
                          p->max_v);
    if (p->min_v > p->desired_v || p->approach_min_v > p->desired_v)
        return tycho_fail(err, TYCHO_EINVAL,
                          "follower: min_v and approach_min_v must be <= desired_v (%g)",
                          p->desired_v);
    if (p->rotate_w > p->max_w)
        return tycho_fail(err, TYCHO_EINVAL, "follower: rotate_w (%g) > max_w (%g)", p->rotate_w,
                          p->max_w);
    if (p->rotate_threshold > M_PI)
        return tycho_fail(err, TYCHO_EINVAL, "follower: rotate_threshold must be <= pi");
    return TYCHO_OK;
}

tycho_follower *tycho_follower_new(const tycho_follower_params *p, tycho_err *err)
{
    tycho_follower_params d;
    if (!p) {
        tycho_follower_defaults(&d);
        p = &d;
    }
    if (tycho_follower_validate(p, err) != TYCHO_OK) return NULL;
    tycho_follower *f = calloc(1, sizeof *f);
    if (!f) {
        tycho_fail(err, TYCHO_ENOMEM, "follower: out of memory");
        return NULL;
    }
    f->p = *p;
    f->goal_yaw = NAN;
    return f;
}

void tycho_follower_free(tycho_follower *f)
{
    if (!f) return;
    free(f->xy);
    free(f->s);
    free(f);
}

tycho_status tycho_follower_set_params(tycho_follower *f, const tycho_follower_params *p,
                                       tycho_err *err)
{
    tycho_status st = tycho_follower_validate(p, err);
    if (st != TYCHO_OK) return st;
    f->p = *p;
    return TYCHO_OK;
}

void tycho_follower_get_params(const tycho_follower *f, tycho_follower_params *p) { *p = f->p; }

/* Euclidean distance; hypot's overflow care costs ~10x and paths are metres. */
static inline double dist(double ax, double ay, double bx, double by)
{
    double dx = bx - ax, dy = by - ay;
    return sqrt(dx * dx + dy * dy);
}

static void restart_progress(tycho_follower *f)
{
    f->seg = 0;
    f->t = 0;
    f->proj_x = f->n ? f->xy[0] : 0;
    f->proj_y = f->n ? f->xy[1] : 0;
    f->rotating = false;
    f->xy_reached = false;
    f->status = f->n ? TYCHO_FOLLOW_FOLLOWING : TYCHO_FOLLOW_IDLE;
}

tycho_status tycho_follower_set_path(tycho_follower *f, const double *xy, int n, double goal_yaw,
                                     tycho_err *err)
{
    if (n < 0 || (n > 0 && !xy))
        return tycho_fail(err, TYCHO_EINVAL, "follower: bad path (n = %d)", n);
    for (int i = 0; i < 2 * n; i++)
        if (!isfinite(xy[i]))
            return tycho_fail(err, TYCHO_EINVAL, "follower: path point %d is not finite", i / 2);
    if (!isfinite(goal_yaw) && !isnan(goal_yaw))
        return tycho_fail(err, TYCHO_EINVAL, "follower: goal yaw must be finite or NAN");
    if (n > f->cap) {
        double *nxy = malloc(sizeof(double) * 2 * (size_t)n);
        double *ns = malloc(sizeof(double) * (size_t)n);
        if (!nxy || !ns) {
            free(nxy);
            free(ns);
            return tycho_fail(err, TYCHO_ENOMEM, "follower: out of memory for %d points", n);
        }
        free(f->xy);
        free(f->s);
        f->xy = nxy;
        f->s = ns;
        f->cap = n;
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        double x = xy[2 * i], y = xy[2 * i + 1];
        if (m > 0) {
            double d = dist(x, y, f->xy[2 * m - 2], f->xy[2 * m - 1]);
            /* zero-length segments have no direction to pursue */
            if (d < 1e-9) continue;
            f->s[m] = f->s[m - 1] + d;
        } else {
            f->s[0] = 0;
        }
        f->xy[2 * m] = x;
        f->xy[2 * m + 1] = y;
        m++;
    }
    f->n = m;
    f->goal_yaw = isnan(goal_yaw) ? NAN : tycho_angle_wrap(goal_yaw);
    restart_progress(f);
    return TYCHO_OK;
}

const double *tycho_follower_path(const tycho_follower *f, int *n)
{
    if (n) *n = f->n;
    return f->xy;
}

void tycho_follower_reset(tycho_follower *f)
{
    restart_progress(f);
    f->v_prev = f->w_prev = 0;
}

tycho_follow_status tycho_follower_status(const tycho_follower *f) { return f->status; }

const char *tycho_follow_status_name(tycho_follow_status s)
{
    switch (s) {
    case TYCHO_FOLLOW_IDLE:
        return "idle";
    case TYCHO_FOLLOW_FOLLOWING:
        return "following";
    case TYCHO_FOLLOW_ROTATING:
        return "rotating";
    case TYCHO_FOLLOW_ARRIVED:
        return "arrived";
    }
    return "unknown";
}

/* Closest point of segment a-b to p, as the fraction t in [0, 1]. */
static double seg_closest(double ax, double ay, double bx, double by, double px, double py)
{
    double dx = bx - ax, dy = by - ay;
    double l2 = dx * dx + dy * dy;
    if (l2 <= 0) return 0;
    double t = ((px - ax) * dx + (py - ay) * dy) / l2;
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

static void update_projection(tycho_follower *f, double rx, double ry)
{
    if (f->n < 2) {
        f->seg = 0;
        f->t = 0;
        f->proj_x = f->xy[0];
        f->proj_y = f->xy[1];
        return;
    }
    const double *P = f->xy;
    double s_now = f->s[f->seg] + f->t * (f->s[f->seg + 1] - f->s[f->seg]);
    double best = INFINITY;
    int best_j = f->seg;
    double best_t = f->t;
    for (int j = f->seg; j < f->n - 1; j++) {
        if (j > f->seg && f->s[j] - s_now > f->p.search_dist) break;
        double t = seg_closest(P[2 * j], P[2 * j + 1], P[2 * j + 2], P[2 * j + 3], rx, ry);
        double x = P[2 * j] + t * (P[2 * j + 2] - P[2 * j]);
        double y = P[2 * j + 1] + t * (P[2 * j + 3] - P[2 * j + 1]);
        double d2 = (x - rx) * (x - rx) + (y - ry) * (y - ry);
        if (d2 < best) { /* strict: the earliest of equally near segments */
            best = d2;
            best_j = j;
            best_t = t;
        }
    }
    f->seg = best_j;
    f->t = best_t;
    f->proj_x = P[2 * best_j] + best_t * (P[2 * best_j + 2] - P[2 * best_j]);
    f->proj_y = P[2 * best_j + 1] + best_t * (P[2 * best_j + 3] - P[2 * best_j + 1]);
}

static double remaining_length(const tycho_follower *f)
{
    if (f->n < 2) return 0;
    double s_now = f->s[f->seg] + f->t * (f->s[f->seg + 1] - f->s[f->seg]);
    double r = f->s[f->n - 1] - s_now;
    return r > 0 ? r : 0;
}

/* The lookahead point (see follower.h, step 3). */
static void find_carrot(const tycho_follower *f, double rx, double ry, double L, double *cx,
                        double *cy)
{
    double ax = f->proj_x, ay = f->proj_y;
    if (dist(ax, ay, rx, ry) >= L) {
        *cx = ax;
        *cy = ay;
        return;
    }
    for (int j = f->seg; j < f->n - 1; j++) {
        double bx = f->xy[2 * j + 2], by = f->xy[2 * j + 3];
        if (dist(bx, by, rx, ry) >= L) {
            /* a is inside the circle, b on or outside: the exit root */
            double dx = bx - ax, dy = by - ay, fx = ax - rx, fy = ay - ry;
            double qa = dx * dx + dy * dy, qb = 2 * (fx * dx + fy * dy),
                   qc = fx * fx + fy * fy - L * L;
            double disc = qb * qb - 4 * qa * qc;
            double t = qa > 0 ? (-qb + sqrt(disc > 0 ? disc : 0)) / (2 * qa) : 1;
            t = t < 0 ? 0 : t > 1 ? 1 : t;
            *cx = ax + t * dx;
            *cy = ay + t * dy;
            return;
        }
        ax = bx;
        ay = by;
    }
    *cx = f->xy[2 * f->n - 2];
    *cy = f->xy[2 * f->n - 1];
}

/* In-place turn rate towards a heading error: no overshoot within the step,
 * and slow enough to stop in the remaining angle under max_w_accel. */
static double turn_rate(const tycho_follower_params *p, double e, double dt)
{
    double m = p->rotate_w;
    m = fmin(m, fabs(e) / dt);
    if (p->max_w_accel > 0) m = fmin(m, sqrt(2.0 * p->max_w_accel * fabs(e)));
    return copysign(m, e);
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

tycho_status tycho_follower_step(tycho_follower *f, tycho_pose2 pose, double dt, double clearance,
                                 tycho_follow_cmd *out, tycho_err *err)
{
    memset(out, 0, sizeof *out);
    if (!(isfinite(pose.x) && isfinite(pose.y) && isfinite(pose.yaw)))
        return tycho_fail(err, TYCHO_EINVAL, "follower: pose is not finite");
    if (!(isfinite(dt) && dt > 0))
        return tycho_fail(err, TYCHO_EINVAL, "follower: dt must be > 0 (got %g)", dt);
    if (isnan(clearance)) return tycho_fail(err, TYCHO_EINVAL, "follower: clearance is NaN");
    const tycho_follower_params *p = &f->p;
    out->status = f->status;
    if (f->n == 0 || f->status == TYCHO_FOLLOW_ARRIVED) {
        f->v_prev = f->w_prev = 0;
        out->remaining = 0;
        out->nearest = f->n ? f->n - 1 : 0;
        return TYCHO_OK;
    }

    update_projection(f, pose.x, pose.y);
    double remaining = remaining_length(f);
    out->remaining = remaining;
    out->nearest = (f->n > 1 && f->t >= 0.5) ? f->seg + 1 : f->seg;

    double gx = f->xy[2 * f->n - 2], gy = f->xy[2 * f->n - 1];
    double dist_goal = dist(gx, gy, pose.x, pose.y);
    if (!f->xy_reached && dist_goal <= p->xy_tolerance && remaining <= 2 * p->xy_tolerance)
        f->xy_reached = true;

    double v_t = 0, w_t = 0; /* targets before acceleration limits */
    double c = cos(pose.yaw), s = sin(pose.yaw);
    if (f->xy_reached) {
        double e = isnan(f->goal_yaw) ? 0 : tycho_angle_wrap(f->goal_yaw - pose.yaw);
        if (fabs(e) <= p->yaw_tolerance) {
            f->status = TYCHO_FOLLOW_ARRIVED;
            f->v_prev = f->w_prev = 0;
            out->status = f->status;
            out->carrot_x = gx;
            out->carrot_y = gy;
            return TYCHO_OK;
        }
        f->status = TYCHO_FOLLOW_ROTATING;
        w_t = turn_rate(p, e, dt);
        out->carrot_x = gx;
        out->carrot_y = gy;
    } else {
        double L = clampd(fabs(f->v_prev) * p->lookahead_time, p->min_lookahead, p->max_lookahead);
        double cx, cy;
        find_carrot(f, pose.x, pose.y, L, &cx, &cy);
        out->lookahead = L;
        out->carrot_x = cx;
        out->carrot_y = cy;
        double dx = cx - pose.x, dy = cy - pose.y;
        double xr = c * dx + s * dy, yr = -s * dx + c * dy;
        double he = atan2(yr, xr);
        double exit_angle = f->rotating ? 0.5 * p->rotate_threshold : p->rotate_threshold;
        if (p->rotate_to_heading && fabs(he) > exit_angle) {
            f->rotating = true;
            f->status = TYCHO_FOLLOW_ROTATING;
            w_t = turn_rate(p, he, dt);
        } else {
            f->rotating = false;
            f->status = TYCHO_FOLLOW_FOLLOWING;
            double d2 = xr * xr + yr * yr;
            double k = d2 > 1e-12 ? 2.0 * yr / d2 : 0.0;
            double fac = 1.0;
            if (p->min_radius > 0 && fabs(k) * p->min_radius > 1.0)
                fac = fmin(fac, 1.0 / (fabs(k) * p->min_radius));
            if (p->slow_clearance > 0 && clearance < p->slow_clearance)
                fac = fmin(fac, fmax(0.0, p->clearance_gain * clearance / p->slow_clearance));
            double v = fmax(p->desired_v * fac, p->min_v);
            if (p->approach_dist > 0 && remaining < p->approach_dist)
                v = fmin(v, fmax(p->desired_v * remaining / p->approach_dist, p->approach_min_v));
            v = fmin(v, p->max_v);
            double w = v * k;
            if (fabs(w) > p->max_w) { /* keep the arc, slow down */
                v = p->max_w / fabs(k);
                w = copysign(p->max_w, k);
            }
            v_t = v;
            w_t = w;
            out->curvature = k;
        }
    }

    double v = v_t, w = w_t;
    if (p->max_accel > 0)
        v = clampd(v, f->v_prev - p->max_accel * dt, f->v_prev + p->max_accel * dt);
    if (p->max_w_accel > 0)
        w = clampd(w, f->w_prev - p->max_w_accel * dt, f->w_prev + p->max_w_accel * dt);
    v = clampd(v, -p->max_v, p->max_v);
    w = clampd(w, -p->max_w, p->max_w);
    f->v_prev = v;
    f->w_prev = w;
    out->v = v;
    out->w = w;
    out->status = f->status;
    return TYCHO_OK;
}

/* --- path ahead against a grid ------------------------------------------- */

/* The grid as the walk needs it: world -> map transform and raw cells. */
typedef struct {
    const uint8_t *cells;
    int w, h;
    double ox, oy, c, s, inv_res;
    int threshold;
    bool unknown_blocked;
} walk_ctx;

static void walk_ctx_init(walk_ctx *k, const tycho_grid *g, int threshold, bool unknown_blocked)
{
    tycho_pose2 o = tycho_grid_origin(g);
    k->cells = tycho_grid_cells_const(g);
    k->w = tycho_grid_width(g);
    k->h = tycho_grid_height(g);
    k->ox = o.x;
    k->oy = o.y;
    k->c = cos(o.yaw);
    k->s = sin(o.yaw);
    k->inv_res = 1.0 / tycho_grid_resolution(g);
    k->threshold = threshold;
    k->unknown_blocked = unknown_blocked;
}

/* Same arithmetic as tycho_grid_world_to_map. */
static void to_map(const walk_ctx *k, double x, double y, double *mx, double *my)
{
    double dx = x - k->ox, dy = y - k->oy;
    *mx = (k->c * dx + k->s * dy) * k->inv_res;
    *my = (-k->s * dx + k->c * dy) * k->inv_res;
}

static bool cell_blocked(const walk_ctx *k, int cx, int cy)
{
    if (!tycho_grid_in_bounds_wh(k->w, k->h, cx, cy)) return k->unknown_blocked;
    uint8_t c = k->cells[(size_t)cy * k->w + cx];
    if (c == TYCHO_COST_UNKNOWN) return k->unknown_blocked;
    return c >= k->threshold;
}

/* Clips the map segment p + t*d, t in [*t0, *t1], to the grid rectangle
 * (Liang-Barsky); inv = 1/d per axis (unused where d is 0). False when it
 * misses the grid. */
static bool clip_to_grid(const walk_ctx *k, double px, double py, double dx, double dy,
                         double inv_x, double inv_y, double *t0, double *t1)
{
    const double d[2] = {dx, dy}, inv[2] = {inv_x, inv_y}, p[2] = {px, py};
    const double hi[2] = {k->w, k->h};
    for (int a = 0; a < 2; a++) {
        if (d[a] == 0) {
            if (p[a] < 0 || p[a] > hi[a]) return false;
            continue;
        }
        double ra = (0 - p[a]) * inv[a], rb = (hi[a] - p[a]) * inv[a];
        double lo = fmin(ra, rb), up = fmax(ra, rb);
        if (lo > *t0) *t0 = lo;
        if (up < *t1) *t1 = up;
    }
    return *t0 <= *t1;
}

static bool inside_map(const walk_ctx *k, double mx, double my)
{
    return mx >= 0 && my >= 0 && mx <= k->w && my <= k->h;
}

static int floor_cell(double m)
{
    /* clamp before the int conversion so far-away points cannot overflow */
    return (int)floor(fmax(fmin(m, 1e9), -1e9));
}

/* Exact cell traversal (Amanatides-Woo) of the world segment a->b (map
 * coordinates ma->mb) up to `budget` metres. Returns true and fills out
 * (distance relative to the segment start) at the first blocked cell. Where
 * the segment passes exactly through a cell corner only one of the two side
 * cells is visited. Cells outside the grid read as unknown; when unknown does
 * not block, only the part of the segment over the grid is walked, so the
 * work is bounded by the grid size whatever the coordinates. */
static bool walk_segment(const walk_ctx *k, double ax, double ay, double bx, double by, double max,
                         double may, double mbx, double mby, double budget, tycho_path_block *out)
{
    double len = dist(ax, ay, bx, by);
    double dx = mbx - max, dy = mby - may;
    /* divisions dominate a short segment's cost: one per axis */
    double inv_x = dx != 0 ? 1.0 / dx : 0, inv_y = dy != 0 ? 1.0 / dy : 0;
    double t = 0, t_end = len > budget ? budget / len : 1.0;
    if (!k->unknown_blocked) {
        if (!inside_map(k, max, may) || !inside_map(k, mbx, mby)) {
            double t1 = t_end;
            if (!clip_to_grid(k, max, may, dx, dy, inv_x, inv_y, &t, &t1)) return false;
            t_end = t1;
        }
    } else if (!tycho_grid_in_bounds_wh(k->w, k->h, floor_cell(max), floor_cell(may))) {
        t_end = 0; /* starts off the grid: blocked right here */
    }
    double sx0 = max + t * dx, sy0 = may + t * dy;
    int ix = floor_cell(sx0), iy = floor_cell(sy0);
    int stx = dx > 0 ? 1 : -1, sty = dy > 0 ? 1 : -1;
    double tdx = dx != 0 ? fabs(inv_x) : INFINITY;
    double tdy = dy != 0 ? fabs(inv_y) : INFINITY;
    double tmx = dx != 0 ? t + ((dx > 0 ? ix + 1 : ix) - sx0) * inv_x : INFINITY;
    double tmy = dy != 0 ? t + ((dy > 0 ? iy + 1 : iy) - sy0) * inv_y : INFINITY;
    /* a walk crosses at most w + h cells of the grid plus the one it leaves to */
    long steps = (long)k->w + k->h + 4;
    for (long n = 0; n < steps; n++) {
        if (cell_blocked(k, ix, iy)) {
            out->blocked = true;
            out->distance = t * len;
            out->x = ax + t * (bx - ax);
            out->y = ay + t * (by - ay);
            out->cx = ix;
            out->cy = iy;
            return true;
        }
        if (tmx < tmy) {
            t = tmx;
            tmx += tdx;
            ix += stx;
        } else {
            t = tmy;
            tmy += tdy;
            iy += sty;
        }
        if (t > t_end) break;
    }
    return false;
}

/* Checks from (sx, sy) on segment `seg` onwards. */
static void check_from(const walk_ctx *k, const double *xy, int n, int seg, double sx, double sy,
                       double lookahead, tycho_path_block *out)
{
    memset(out, 0, sizeof *out);
    double ax = sx, ay = sy, max, may;
    to_map(k, ax, ay, &max, &may);
    if (n == 1) {
        int cx = floor_cell(max), cy = floor_cell(may);
        if (cell_blocked(k, cx, cy)) {
            out->blocked = true;
            out->x = ax;
            out->y = ay;
            out->cx = cx;
            out->cy = cy;
        }
        return;
    }
    double done = 0;
    for (int j = seg; j < n - 1 && done <= lookahead; j++) {
        double bx = xy[2 * j + 2], by = xy[2 * j + 3], mbx, mby;
        to_map(k, bx, by, &mbx, &mby);
        if (walk_segment(k, ax, ay, bx, by, max, may, mbx, mby, lookahead - done, out)) {
            out->distance += done;
            out->segment = j;
            return;
        }
        done += dist(ax, ay, bx, by);
        ax = bx;
        ay = by;
        max = mbx;
        may = mby;
    }
}

static tycho_status check_args(const tycho_grid *g, double lookahead, int threshold, tycho_err *err)
{
    if (!g) return tycho_fail(err, TYCHO_EINVAL, "path check: no grid");
    if (isnan(lookahead) || lookahead < 0)
        return tycho_fail(err, TYCHO_EINVAL, "path check: lookahead must be >= 0");
    if (threshold < 1 || threshold > 255)
        return tycho_fail(err, TYCHO_EINVAL, "path check: threshold must be 1..255 (got %d)",
                          threshold);
    return TYCHO_OK;
}

tycho_status tycho_path_check_blocked(const tycho_grid *g, const double *xy, int n,
                                      double lookahead, int threshold, bool unknown_blocked,
                                      tycho_path_block *out, tycho_err *err)
{
    memset(out, 0, sizeof *out);
    tycho_status st = check_args(g, lookahead, threshold, err);
    if (st != TYCHO_OK) return st;
    if (n < 1 || !xy) return tycho_fail(err, TYCHO_EINVAL, "path check: empty path");
    for (int i = 0; i < 2 * n; i++)
        if (!isfinite(xy[i]))
            return tycho_fail(err, TYCHO_EINVAL, "path check: point %d is not finite", i / 2);
    walk_ctx k;
    walk_ctx_init(&k, g, threshold, unknown_blocked);
    check_from(&k, xy, n, 0, xy[0], xy[1], lookahead, out);
    return TYCHO_OK;
}

tycho_status tycho_follower_check_blocked(const tycho_follower *f, const tycho_grid *g,
                                          double lookahead, int threshold, bool unknown_blocked,
                                          tycho_path_block *out, tycho_err *err)
{
    memset(out, 0, sizeof *out);
    tycho_status st = check_args(g, lookahead, threshold, err);
    if (st != TYCHO_OK) return st;
    if (f->n == 0) return tycho_fail(err, TYCHO_EINVAL, "path check: the follower has no path");
    walk_ctx k;
    walk_ctx_init(&k, g, threshold, unknown_blocked);
    check_from(&k, f->xy, f->n, f->seg, f->proj_x, f->proj_y, lookahead, out);
    return TYCHO_OK;
}
