/* Potential-field collision avoidance: see swarm.h. */
#include "tycho/swarm.h"

#include <math.h>
#include <string.h>

static const char *const SHAPE_NAMES[] = {"lin", "li2", "sin", "log", "exp", "const"};

void tycho_swarm_defaults(tycho_swarm_params *p)
{
    p->dist_critical = 3;
    p->dist_attract = 6;
    p->dist_repulse = 12;
    p->repulse_shape = TYCHO_SHAPE_LIN;
    p->attract_shape = TYCHO_SHAPE_LIN;
    p->max_speed = 1;
    p->goal_tolerance = 0.5;
    p->stall_ratio = 0.1;
    p->stall_time = 3;
    p->stall_progress = 0.5;
    p->escape_time = 4;
}

tycho_status tycho_swarm_validate(const tycho_swarm_params *p, tycho_err *err)
{
    if (!(p->dist_critical > 0)) return tycho_fail(err, TYCHO_EINVAL, "dist_critical must be > 0");
    if (!(p->dist_attract > p->dist_critical))
        return tycho_fail(err, TYCHO_EINVAL, "dist_attract must be > dist_critical");
    if (!(p->dist_repulse >= p->dist_attract))
        return tycho_fail(err, TYCHO_EINVAL, "dist_repulse must be >= dist_attract");
    if ((unsigned)p->repulse_shape > TYCHO_SHAPE_CONST ||
        (unsigned)p->attract_shape > TYCHO_SHAPE_CONST)
        return tycho_fail(err, TYCHO_EINVAL, "unknown shape");
    if (!(p->max_speed > 0)) return tycho_fail(err, TYCHO_EINVAL, "max_speed must be > 0");
    if (!(p->goal_tolerance >= 0) || !(p->stall_ratio >= 0) || !(p->stall_time > 0) ||
        !(p->stall_progress >= 0) || !(p->escape_time >= 0))
        return tycho_fail(err, TYCHO_EINVAL,
                          "goal_tolerance, stall_ratio, stall_progress, escape_time must be >= 0 "
                          "and stall_time > 0");
    return TYCHO_OK;
}

double tycho_shape_eval(tycho_shape s, double u)
{
    if (!(u > 0)) return 0;
    if (u >= 1) return 1;
    switch (s) {
    case TYCHO_SHAPE_LIN:
        return u;
    case TYCHO_SHAPE_LI2:
        return u * u;
    case TYCHO_SHAPE_SIN:
        return 0.5 * (1 - cos(M_PI * u));
    case TYCHO_SHAPE_LOG:
        return log2(1 + u);
    case TYCHO_SHAPE_EXP:
        return exp2(u) - 1;
    case TYCHO_SHAPE_CONST:
        return 1;
    }
    return u;
}

int tycho_shape_from_name(const char *name)
{
    for (int i = 0; i <= TYCHO_SHAPE_CONST; i++)
        if (!strcmp(name, SHAPE_NAMES[i])) return i;
    return -1;
}

const char *tycho_shape_name(tycho_shape s)
{
    return (unsigned)s <= TYCHO_SHAPE_CONST ? SHAPE_NAMES[s] : "?";
}

static double clamp01(double v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

double tycho_swarm_repulsion(const tycho_swarm_params *p, double d)
{
    if (d <= p->dist_critical) return 1;
    if (d >= p->dist_repulse) return 0;
    double x = (d - p->dist_critical) / (p->dist_repulse - p->dist_critical);
    return tycho_shape_eval(p->repulse_shape, 1 - x);
}

double tycho_swarm_attraction(const tycho_swarm_params *p, double closest)
{
    double y = clamp01((closest - p->dist_critical) / (p->dist_attract - p->dist_critical));
    return tycho_shape_eval(p->attract_shape, y);
}

void tycho_swarm_command(const tycho_swarm_params *p, tycho_swarm_state *st, double t,
                         tycho_vec2 self, tycho_vec2 goal, const tycho_vec2 *nb, int n,
                         tycho_swarm_cmd *out)
{
    memset(out, 0, sizeof *out);
    out->closest = INFINITY;
    double gx = goal.x - self.x, gy = goal.y - self.y;
    double gd = hypot(gx, gy);
    if (!st->started || t < st->t_mark) {
        st->started = true;
        st->t_mark = t;
        st->goal_dist_mark = gd;
        st->escape_until = -INFINITY;
    }
    if (gd <= p->goal_tolerance) {
        out->arrived = true;
        st->t_mark = t;
        st->goal_dist_mark = gd;
        return;
    }
    double rx = 0, ry = 0;
    for (int i = 0; i < n; i++) {
        double dx = self.x - nb[i].x, dy = self.y - nb[i].y;
        double d = hypot(dx, dy);
        if (d < out->closest) out->closest = d;
        double m = tycho_swarm_repulsion(p, d);
        if (m <= 0) continue;
        if (d < 1e-9) { /* on top of each other: push along -goal */
            dx = -gx, dy = -gy, d = gd;
        }
        rx += m * dx / d;
        ry += m * dy / d;
    }
    double a = tycho_swarm_attraction(p, out->closest);
    double ax = a * gx / gd, ay = a * gy / gd;
    out->attraction = (tycho_vec2){ax, ay};
    out->repulsion = (tycho_vec2){rx, ry};
    double sx = ax + rx, sy = ay + ry;

    /* stall: the terms cancel, or no progress for stall_time */
    bool cancel = a > 0 && hypot(sx, sy) < p->stall_ratio * a;
    bool no_progress =
        t - st->t_mark >= p->stall_time && st->goal_dist_mark - gd < p->stall_progress;
    if (t - st->t_mark >= p->stall_time) {
        st->t_mark = t;
        st->goal_dist_mark = gd;
    }
    if ((cancel || no_progress) && t >= st->escape_until) st->escape_until = t + p->escape_time;
    if (t < st->escape_until) {
        out->escaping = true;
        sx += gy / gd; /* right of the goal direction: (gy, -gx) / gd */
        sy += -gx / gd;
    }
    double norm = hypot(sx, sy);
    if (norm < 1e-12) return;
    double c = out->closest;
    out->speed_factor =
        isinf(c)
            ? 1
            : clamp01((c - p->dist_critical / 2) / (p->dist_repulse / 2 - p->dist_critical / 2));
    double v = p->max_speed * out->speed_factor;
    out->velocity = (tycho_vec2){v * sx / norm, v * sy / norm};
}
