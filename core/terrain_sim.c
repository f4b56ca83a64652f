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
    const double v[] = {r->half_length, r->half_width, r->wheel_radius, r->max_wheel,
                        r->max_accel,   r->max_w_accel, r->max_step};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!(v[i] > 0 && isfinite(v[i])))
            return tycho_fail(err, TYCHO_EINVAL,
                              "terrain robot: half_length, half_width, wheel_radius, max_wheel, max_accel, "
                              "max_w_accel and max_step must be finite and > 0");
    return TYCHO_OK;
}

/* Ground under the four wheels, in the order FL, FR, RL, RR; false off the field. */
static bool contacts(const tycho_terrain_robot *r, const tycho_heightfield *f, double x, double y, double yaw,
                     double z[4])
{
    static const int SX[4] = {1, 1, -1, -1}, SY[4] = {1, -1, 1, -1};
    double c = cos(yaw), s = sin(yaw);
    for (int i = 0; i < 4; i++) {
        double bx = SX[i] * r->half_length, by = SY[i] * r->half_width;
        z[i] = tycho_heightfield_at(f, x + c * bx - s * by, y + s * bx + c * by);
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

bool tycho_terrain_robot_place(const tycho_terrain_robot *r, const tycho_heightfield *f, double x, double y,
                               double yaw, tycho_terrain_robot_state *s)
{
    double z[4];
    *s = (tycho_terrain_robot_state){.pose = {.x = x, .y = y, .yaw = tycho_angle_wrap(yaw)}};
    if (!contacts(r, f, x, y, yaw, z)) return false;
    rest_on(r, z, &s->pose);
    return true;
}

static double towards(double from, double to, double max_delta)
{
    if (to > from + max_delta) return from + max_delta;
    if (to < from - max_delta) return from - max_delta;
    return to;
}

/* Limits a twist through the wheels (step 1 of terrain_sim.h). */
static void through_wheels(const tycho_terrain_robot *r, tycho_terrain_robot_state *s, double vx, double vy,
                           double wz)
{
    double w[4] = {0, 0, 0, 0};
    tycho_mecanum m = {r->half_width, r->half_length, r->wheel_radius};
    tycho_diffdrive_params d = {2 * r->half_width, r->wheel_radius, INFINITY, INFINITY};
    if (r->kind == TYCHO_BASE_MECANUM)
        tycho_mecanum_inverse(&m, vx, vy, wz, w);
    else
        tycho_diffdrive_to_wheels(&d, vx, wz, &w[0], &w[1]);
    double worst = 0;
    for (int i = 0; i < 4; i++) worst = fmax(worst, fabs(w[i]));
    if (worst > r->max_wheel)
        for (int i = 0; i < 4; i++) w[i] *= r->max_wheel / worst;
    for (int i = 0; i < 4; i++) s->wheel[i] = w[i];
    if (r->kind == TYCHO_BASE_MECANUM) {
        tycho_mecanum_forward(&m, w, &s->vx, &s->vy, &s->wz);
    } else {
        tycho_diffdrive_from_wheels(&d, w[0], w[1], &s->vx, &s->wz);
        s->vy = 0;
    }
}

bool tycho_terrain_robot_step(const tycho_terrain_robot *r, const tycho_heightfield *f, tycho_terrain_robot_state *s,
                              double vx, double vy, double wz, double dt)
{
    if (!isfinite(vx) || !isfinite(vy) || !isfinite(wz)) vx = vy = wz = 0;
    if (!(dt > 0)) return true;
    if (r->kind == TYCHO_BASE_DIFF) vy = 0;
    vx = towards(s->vx, vx, r->max_accel * dt);
    vy = towards(s->vy, vy, r->max_accel * dt);
    wz = towards(s->wz, wz, r->max_w_accel * dt);
    through_wheels(r, s, vx, vy, wz);
    tycho_pose2 p = tycho_mecanum_step((tycho_pose2){s->pose.x, s->pose.y, s->pose.yaw}, s->vx, s->vy, s->wz, dt);
    double before[4], after[4];
    bool had = contacts(r, f, s->pose.x, s->pose.y, s->pose.yaw, before);
    bool ok = contacts(r, f, p.x, p.y, p.yaw, after);
    for (int i = 0; ok && had && i < 4; i++)
        if (after[i] - before[i] > r->max_step) ok = false;
    if (!ok) {
        s->bumps++;
        s->vx = s->vy = s->wz = 0;
        for (int i = 0; i < 4; i++) s->wheel[i] = 0;
        return false;
    }
    s->pose.x = p.x, s->pose.y = p.y, s->pose.yaw = tycho_angle_wrap(p.yaw);
    rest_on(r, after, &s->pose);
    return true;
}
