/* The fleet simulator: see tycho/fleet_sim.h. */
#include "tycho/fleet_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double x, y, yaw, v;
    double *route; /* xy pairs */
    int count, reached, allowed;
    double stop_until;
    bool holding; /* waiting for permission at a waypoint */
    tycho_fleet_stats st;
} bot;

struct tycho_fleet {
    tycho_fleet_params p;
    int n;
    bot *b;
    double t;
    int collisions;
    bool estop;
    double min_clearance;
    unsigned char *contact; /* n*n: pairs in contact at the last step */
};

void tycho_fleet_defaults(tycho_fleet_params *p)
{
    p->radius = 0.22;
    p->v_max = 0.6;
    p->w_max = 1.5;
    p->accel = 0.8;
    p->tolerance = 0.03;
    p->dt = 0.05;
}

tycho_fleet *tycho_fleet_new(int n, const tycho_fleet_params *p, tycho_err *err)
{
    if (n < 1 || n > 1024) {
        tycho_fail(err, TYCHO_EINVAL, "fleet: 1 to 1024 robots (got %d)", n);
        return NULL;
    }
    if (!(p->radius > 0 && p->v_max > 0 && p->w_max > 0 && p->accel > 0 && p->tolerance > 0 &&
          p->dt > 0 && p->dt <= 0.5)) {
        tycho_fail(err, TYCHO_EINVAL,
                   "fleet: radius, v_max, w_max, accel, tolerance must be > 0 and dt in (0, 0.5]");
        return NULL;
    }
    tycho_fleet *f = calloc(1, sizeof *f);
    if (!f || !(f->b = calloc((size_t)n, sizeof *f->b)) ||
        !(f->contact = calloc((size_t)n * (size_t)n, 1))) {
        if (f) free(f->b);
        free(f);
        tycho_fail(err, TYCHO_ENOMEM, "fleet: out of memory");
        return NULL;
    }
    f->p = *p;
    f->n = n;
    f->min_clearance = INFINITY;
    for (int i = 0; i < n; i++) f->b[i].reached = f->b[i].allowed = -1;
    return f;
}

void tycho_fleet_free(tycho_fleet *f)
{
    if (!f) return;
    for (int i = 0; i < f->n; i++) free(f->b[i].route);
    free(f->b);
    free(f->contact);
    free(f);
}

int tycho_fleet_count(const tycho_fleet *f) { return f->n; }

static bool valid(const tycho_fleet *f, int i) { return f && i >= 0 && i < f->n; }

tycho_status tycho_fleet_set_pose(tycho_fleet *f, int i, double x, double y, double yaw,
                                  tycho_err *err)
{
    if (!valid(f, i)) return tycho_fail(err, TYCHO_EINVAL, "fleet: no robot %d", i);
    if (!(isfinite(x) && isfinite(y) && isfinite(yaw)))
        return tycho_fail(err, TYCHO_EINVAL, "fleet: robot %d: pose not finite", i);
    bot *b = &f->b[i];
    b->x = x;
    b->y = y;
    b->yaw = yaw;
    b->v = 0;
    return TYCHO_OK;
}

tycho_status tycho_fleet_set_route(tycho_fleet *f, int i, const double *xy, int count,
                                   tycho_err *err)
{
    if (!valid(f, i)) return tycho_fail(err, TYCHO_EINVAL, "fleet: no robot %d", i);
    if (count < 1 || !xy) return tycho_fail(err, TYCHO_EINVAL, "fleet: robot %d: empty route", i);
    for (int k = 0; k < 2 * count; k++)
        if (!isfinite(xy[k]))
            return tycho_fail(err, TYCHO_EINVAL, "fleet: robot %d: waypoint %d not finite", i,
                              k / 2);
    double *r = malloc(sizeof(double) * 2 * (size_t)count);
    if (!r) return tycho_fail(err, TYCHO_ENOMEM, "fleet: out of memory");
    memcpy(r, xy, sizeof(double) * 2 * (size_t)count);
    bot *b = &f->b[i];
    free(b->route);
    b->route = r;
    b->count = count;
    b->reached = -1;
    b->allowed = 0; /* it may go to the first waypoint (where it normally is) */
    b->holding = false;
    return TYCHO_OK;
}

void tycho_fleet_allow(tycho_fleet *f, int i, int upto)
{
    if (!valid(f, i)) return;
    bot *b = &f->b[i];
    if (upto > b->count - 1) upto = b->count - 1;
    /* never below the waypoint it is driving to: a robot between two
     * waypoints finishes the edge (one standing at a waypoint stays) */
    if (upto < b->reached + 1 && b->reached + 1 <= b->count - 1 && b->reached >= 0) {
        double wx = b->route[2 * b->reached], wy = b->route[2 * b->reached + 1];
        if (hypot(b->x - wx, b->y - wy) > 1e-9) upto = b->reached + 1;
    }
    b->allowed = upto;
}

void tycho_fleet_stop_until(tycho_fleet *f, int i, double until)
{
    if (valid(f, i)) f->b[i].stop_until = until;
}

static double wrap(double a) { return atan2(sin(a), cos(a)); }

/* Drives robot b one step towards its next waypoint, if allowed. */
static void drive(tycho_fleet *f, bot *b)
{
    const tycho_fleet_params *p = &f->p;
    double dt = p->dt;
    if (!b->route || f->estop) {
        b->v = 0;
        return;
    }
    if (f->t < b->stop_until) {
        b->v = 0;
        b->st.stop_time += dt;
        return;
    }
    int next = b->reached + 1;
    if (next >= b->count) {
        b->v = 0;
        return; /* at its goal */
    }
    if (next > b->allowed) {
        if (!b->holding) b->st.waits++;
        b->holding = true;
        b->v = 0;
        b->st.wait_time += dt;
        return;
    }
    b->holding = false;
    double tx = b->route[2 * next], ty = b->route[2 * next + 1];
    double dx = tx - b->x, dy = ty - b->y, d = hypot(dx, dy);
    if (d <= p->tolerance) {
        b->x = tx; /* snap: waypoints are where the plan says */
        b->y = ty;
        b->st.distance += d;
        b->reached = next;
        return;
    }
    double err = wrap(atan2(dy, dx) - b->yaw);
    if (fabs(err) > 0.15 && b->v < 0.05) {
        /* turn in place first: robots stay on the graph's edges */
        double w = fmax(-p->w_max, fmin(p->w_max, err / dt));
        b->yaw = wrap(b->yaw + w * dt);
        b->v = 0;
        return;
    }
    /* the speed that still stops at the next waypoint unless it may pass it
     * going straight on (at a corner it stops and turns in place) */
    double stop_d = d;
    bool through = false;
    if (next < b->allowed && next + 1 < b->count) {
        double nx = b->route[2 * next + 2] - tx, ny = b->route[2 * next + 3] - ty;
        through = hypot(nx, ny) > 1e-9 && fabs(wrap(atan2(ny, nx) - atan2(dy, dx))) < 0.15;
    }
    double v_target = through ? p->v_max : fmin(p->v_max, sqrt(2 * p->accel * stop_d));
    if (b->v < v_target) b->v = fmin(v_target, b->v + p->accel * dt);
    else b->v = fmax(v_target, b->v - p->accel * dt);
    double step = fmin(b->v * dt, d);
    double w = fmax(-p->w_max, fmin(p->w_max, 2.0 * err));
    b->yaw = wrap(b->yaw + w * dt);
    b->x += step * cos(atan2(dy, dx));
    b->y += step * sin(atan2(dy, dx));
    b->st.distance += step;
    if (step >= d - 1e-12) {
        b->x = tx;
        b->y = ty;
        b->reached = next;
        if (!through) b->v = 0; /* braked to a stop here */
    }
}

int tycho_fleet_step(tycho_fleet *f)
{
    for (int i = 0; i < f->n; i++) drive(f, &f->b[i]);
    f->t += f->p.dt;
    int fresh = 0;
    double lim = 2 * f->p.radius;
    for (int i = 0; i < f->n; i++)
        for (int j = i + 1; j < f->n; j++) {
            double dx = f->b[i].x - f->b[j].x, dy = f->b[i].y - f->b[j].y;
            if (fabs(dx) > lim + 1 || fabs(dy) > lim + 1) {
                f->contact[i * f->n + j] = 0;
                continue;
            }
            double gap = hypot(dx, dy) - lim;
            if (gap < f->min_clearance) f->min_clearance = gap;
            bool touch = gap < 0;
            if (touch && !f->contact[i * f->n + j]) fresh++;
            f->contact[i * f->n + j] = touch;
        }
    if (fresh) {
        f->collisions += fresh;
        f->estop = true; /* everyone stops where they are */
        for (int i = 0; i < f->n; i++) f->b[i].v = 0;
    }
    return fresh;
}

double tycho_fleet_time(const tycho_fleet *f) { return f->t; }
int tycho_fleet_reached(const tycho_fleet *f, int i) { return valid(f, i) ? f->b[i].reached : -1; }

bool tycho_fleet_moving(const tycho_fleet *f, int i)
{
    if (!valid(f, i)) return false;
    const bot *b = &f->b[i];
    return b->route && b->reached + 1 < b->count && b->reached + 1 <= b->allowed && !f->estop &&
           f->t >= b->stop_until;
}

bool tycho_fleet_stopped(const tycho_fleet *f, int i)
{
    return valid(f, i) && f->t < f->b[i].stop_until;
}

void tycho_fleet_pose(const tycho_fleet *f, int i, double *x, double *y, double *yaw)
{
    if (!valid(f, i)) return;
    *x = f->b[i].x;
    *y = f->b[i].y;
    *yaw = f->b[i].yaw;
}

tycho_fleet_stats tycho_fleet_robot_stats(const tycho_fleet *f, int i)
{
    tycho_fleet_stats none = {0};
    return valid(f, i) ? f->b[i].st : none;
}

int tycho_fleet_collisions(const tycho_fleet *f) { return f->collisions; }
bool tycho_fleet_estopped(const tycho_fleet *f) { return f->estop; }
double tycho_fleet_min_clearance(const tycho_fleet *f) { return f->min_clearance; }
