/* Mecanum kinematics: see mecanum.h. */
#include "tycho/mecanum.h"

#include <math.h>

void tycho_mecanum_defaults(tycho_mecanum *m)
{
    m->l1 = 0.200;
    m->l2 = 0.225;
    m->r = 0.05;
}

void tycho_mecanum_inverse(const tycho_mecanum *m, double vx, double vy, double wz, double w[4])
{
    double k = (m->l1 + m->l2) * wz;
    w[0] = (vx - vy - k) / m->r;
    w[1] = (vx + vy + k) / m->r;
    w[2] = (vx + vy - k) / m->r;
    w[3] = (vx - vy + k) / m->r;
}

void tycho_mecanum_forward(const tycho_mecanum *m, const double w[4], double *vx, double *vy,
                           double *wz)
{
    *vx = m->r * (w[0] + w[1] + w[2] + w[3]) / 4;
    *vy = m->r * (-w[0] + w[1] + w[2] - w[3]) / 4;
    *wz = m->r * (-w[0] + w[1] - w[2] + w[3]) / (4 * (m->l1 + m->l2));
}

tycho_pose2 tycho_mecanum_step(tycho_pose2 p, double vx, double vy, double wz, double dt)
{
    double th = wz * dt;
    /* body displacement of a constant twist: the arc, rotated by the start yaw */
    double dx, dy;
    if (fabs(th) < 1e-9) {
        dx = vx * dt, dy = vy * dt;
    } else {
        double s = sin(th) / wz, c = (1 - cos(th)) / wz;
        dx = vx * s - vy * c;
        dy = vx * c + vy * s;
    }
    double cy = cos(p.yaw), sy = sin(p.yaw);
    tycho_pose2 q = {p.x + cy * dx - sy * dy, p.y + sy * dx + cy * dy, p.yaw + th};
    q.yaw = atan2(sin(q.yaw), cos(q.yaw));
    return q;
}
