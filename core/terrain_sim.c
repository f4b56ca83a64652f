/* A robot driving over a height field: see terrain_sim.h. */
#include "tycho/terrain_sim.h"

#include "tycho/diffdrive.h"

#include <math.h>

void tycho_terrain_robot_defaults(tycho_terrain_robot *r, tycho_base_kind kind)
{
    r->kind = kind;
    r->half_length = 0.225;
    r->half_width = 0.200;
    r->wheel_radius = 0.05;
    r->max_wheel = 12.0;
    r->max_accel = 1.0;
    r->max_w_accel = 3.0;
    r->max_step = 0.08;
}

tycho_status tycho_terrain_robot_validate(const tycho_terrain_robot *r, tycho_err *err)
{
    if (r->kind != TYCHO_BASE_DIFF && r->kind != TYCHO_BASE_MECANUM)
        return tycho_fail(err, TYCHO_EINVAL, "terrain robot: kind must be diff or mecanum");
    const double v[] = {r->half_length, r->half_width,  r->wheel_radius, r->max_wheel,
                        r->max_accel,   r->max_w_accel, r->max_step};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!(v[i] > 0 && isfinite(v[i])))
            return tycho_fail(
                err, TYCHO_EINVAL,
                "terrain robot: half_length, half_width, wheel_radius, max_wheel, max_accel, "
                "max_w_accel and max_step must be finite and > 0");
    return TYCHO_OK;
}

/* Height under a point for the pose: bilinear between cell centres (a
 * smooth ride over a sampled surface); -INFINITY off the field. */
static double ground(const tycho_heightfield *f, double x, double y)
{
    double fx = (x - f->ox) / f->res - 0.5, fy = (y - f->oy) / f->res - 0.5;
    if (!(fx >= -0.5 && fy >= -0.5 && fx < f->w - 0.5 && fy < f->h - 0.5)) return -INFINITY;
    int x0 = (int)floor(fx), y0 = (int)floor(fy);
    double u = fx - x0, v = fy - y0;
    int xa = x0 < 0 ? 0 : x0, ya = y0 < 0 ? 0 : y0;
    int xb = x0 + 1 >= f->w ? f->w - 1 : x0 + 1, yb = y0 + 1 >= f->h ? f->h - 1 : y0 + 1;
    const float *z = f->z;
    return (1 - v) * ((1 - u) * z[(size_t)ya * f->w + xa] + u * z[(size_t)ya * f->w + xb]) +
           v * ((1 - u) * z[(size_t)yb * f->w + xa] + u * z[(size_t)yb * f->w + xb]);
}

/* Ground under the four wheels, in the order FL, FR, RL, RR; false off the
 * field. smooth: interpolated (for the pose), else the cell's own height
 * (for the climb check: a step stays a step, not a one-cell ramp). */
static bool contacts(const tycho_terrain_robot *r, const tycho_heightfield *f, double x, double y,
                     double yaw, bool smooth, double z[4])
{
    static const int SX[4] = {1, 1, -1, -1}, SY[4] = {1, -1, 1, -1};
    double c = cos(yaw), s = sin(yaw);
    for (int i = 0; i < 4; i++) {
        double bx = SX[i] * r->half_length, by = SY[i] * r->half_width;
        double wx = x + c * bx - s * by, wy = y + s * bx + c * by;
        z[i] = smooth ? ground(f, wx, wy) : tycho_heightfield_at(f, wx, wy);
        if (!isfinite(z[i])) return false;
    }
    return true;
}

static void rest_on(const tycho_terrain_robot *r, const double z[4], tycho_pose3 *p)
{
    double front = 0.5 * (z[0] + z[1]), rear = 0.5 * (z[2] + z[3]);
    double left = 0.5 * (z[0] + z[2]), right = 0.5 * (z[1] + z[3]);
    p->z = 0.25 * (z[0] + z[1] + z[2] + z[3]) + r->wheel_radius;
    p->pitch = atan2(rear - front, 2 * r->half_length);
    p->roll = atan2(left - right, 2 * r->half_width);
}

bool tycho_terrain_robot_place(const tycho_terrain_robot *r, const tycho_heightfield *f, double x,
                               double y, double yaw, tycho_terrain_robot_state *s)
{
    double z[4];
    *s = (tycho_terrain_robot_state){.pose = {.x = x, .y = y, .yaw = tycho_angle_wrap(yaw)}};
    if (!contacts(r, f, x, y, yaw, true, z)) return false;
    rest_on(r, z, &s->pose);
    return true;
}

static double towards(double from, double to, double max_delta)
{
    if (to > from + max_delta) return from + max_delta;
    if (to < from - max_delta) return from - max_delta;
    return to;
}

/* Wheel speeds of a twist (FL, FR, RL, RR, or left, right, 0, 0). */
static void wheels_of(const tycho_terrain_robot *r, double vx, double vy, double wz, double w[4])
{
    w[0] = w[1] = w[2] = w[3] = 0;
    if (r->kind == TYCHO_BASE_MECANUM) {
        tycho_mecanum m = {r->half_width, r->half_length, r->wheel_radius};
        tycho_mecanum_inverse(&m, vx, vy, wz, w);
    } else {
        tycho_diffdrive_params d = {2 * r->half_width, r->wheel_radius, INFINITY, INFINITY};
        tycho_diffdrive_to_wheels(&d, vx, wz, &w[0], &w[1]);
    }
}

/* Scales a twist down so no wheel exceeds max_wheel (the wheel speeds are
 * linear in the twist, so the direction of travel is kept). */
static void within_wheels(const tycho_terrain_robot *r, double *vx, double *vy, double *wz)
{
    double w[4], worst = 0;
    wheels_of(r, *vx, *vy, *wz, w);
    for (int i = 0; i < 4; i++) worst = fmax(worst, fabs(w[i]));
    if (worst > r->max_wheel) {
        double k = r->max_wheel / worst;
        *vx *= k, *vy *= k, *wz *= k;
    }
}

bool tycho_terrain_robot_step(const tycho_terrain_robot *r, const tycho_heightfield *f,
                              tycho_terrain_robot_state *s, double vx, double vy, double wz,
                              double dt)
{
    if (!isfinite(vx) || !isfinite(vy) || !isfinite(wz)) vx = vy = wz = 0;
    if (!(dt > 0)) return true;
    if (r->kind == TYCHO_BASE_DIFF) vy = 0;
    within_wheels(r, &vx, &vy, &wz);
    /* acceleration: the linear part as a vector, so the direction holds */
    double dvx = vx - s->vx, dvy = vy - s->vy, dv = hypot(dvx, dvy), most = r->max_accel * dt;
    if (dv > most) dvx *= most / dv, dvy *= most / dv;
    s->vx += dvx, s->vy += dvy;
    s->wz = towards(s->wz, wz, r->max_w_accel * dt);
    wheels_of(r, s->vx, s->vy, s->wz, s->wheel);
    tycho_pose2 p = tycho_mecanum_step((tycho_pose2){s->pose.x, s->pose.y, s->pose.yaw}, s->vx,
                                       s->vy, s->wz, dt);
    double before[4], after[4], smooth[4];
    bool had = contacts(r, f, s->pose.x, s->pose.y, s->pose.yaw, false, before);
    bool ok = contacts(r, f, p.x, p.y, p.yaw, false, after) &&
              contacts(r, f, p.x, p.y, p.yaw, true, smooth);
    for (int i = 0; ok && had && i < 4; i++)
        if (after[i] - before[i] > r->max_step) ok = false;
    if (!ok) {
        s->bumps++;
        s->vx = s->vy = s->wz = 0;
        for (int i = 0; i < 4; i++) s->wheel[i] = 0;
        return false;
    }
    s->pose.x = p.x, s->pose.y = p.y, s->pose.yaw = tycho_angle_wrap(p.yaw);
    rest_on(r, smooth, &s->pose);
    return true;
}
