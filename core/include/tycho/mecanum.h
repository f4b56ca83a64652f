/* Four-wheel mecanum base kinematics (rollers at 45 degrees).
 *
 * Wheels FL, FR, RL, RR; L1 = half the distance between left and right
 * wheels, L2 = half the distance between front and rear axles, r = wheel
 * radius. Body twist (vx forward, vy left, wz counter-clockwise):
 *     w_FL = (vx - vy - (L1 + L2) wz) / r
 *     w_FR = (vx + vy + (L1 + L2) wz) / r
 *     w_RL = (vx + vy - (L1 + L2) wz) / r
 *     w_RR = (vx - vy + (L1 + L2) wz) / r
 * and the forward kinematics is its least-squares inverse:
 *     vx = r (w_FL + w_FR + w_RL + w_RR) / 4
 *     vy = r (-w_FL + w_FR + w_RL - w_RR) / 4
 *     wz = r (-w_FL + w_FR - w_RL + w_RR) / (4 (L1 + L2))
 * Defaults: a 450 mm (front to rear) x 400 mm (left to right) wheel layout,
 * L1 = 0.200, L2 = 0.225, r = 0.05. */
#ifndef TYCHO_MECANUM_H
#define TYCHO_MECANUM_H

#include "tycho/common.h"

typedef struct {
    double l1, l2, r;
} tycho_mecanum;

void tycho_mecanum_defaults(tycho_mecanum *m);
/* wheel[4] in rad/s, order FL, FR, RL, RR */
void tycho_mecanum_inverse(const tycho_mecanum *m, double vx, double vy, double wz,
                           double wheel[4]);
void tycho_mecanum_forward(const tycho_mecanum *m, const double wheel[4], double *vx, double *vy,
                           double *wz);
/* Integrates a body twist for dt from pose p (exact for constant twist). */
tycho_pose2 tycho_mecanum_step(tycho_pose2 p, double vx, double vy, double wz, double dt);

#endif
