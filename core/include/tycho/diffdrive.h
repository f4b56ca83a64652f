/* Differential-drive kinematics: the unicycle model (body twist v, w) and
 * its wheel-speed form, with TurtleBot3 Burger defaults.
 *
 * Units are REP-103: metres, radians, seconds; w > 0 turns counter-clockwise.
 * Wheel speeds are wheel angular speeds in rad/s (positive drives forward). */
#ifndef TYCHO_DIFFDRIVE_H
#define TYCHO_DIFFDRIVE_H

#include "tycho/common.h"

typedef struct {
    double wheel_separation; /* m between the wheel contact points, default 0.160 */
    double wheel_radius;     /* m, default 0.033 */
    double max_v;            /* |v| limit, m/s, default 0.22 */
    double max_w;            /* |w| limit, rad/s, default 2.84 */
} tycho_diffdrive_params;

/* TurtleBot3 Burger values. */
void tycho_diffdrive_defaults(tycho_diffdrive_params *p);
/* Every field finite and > 0. */
tycho_status tycho_diffdrive_validate(const tycho_diffdrive_params *p, tycho_err *err);

/* Wraps an angle to (-pi, pi]. */
double tycho_angle_wrap(double a);

/* Pose after driving the constant twist (v, w) for dt seconds: the exact arc
 * (a straight segment when w == 0), numerically smooth as w -> 0. The
 * returned yaw is wrapped to (-pi, pi]. */
tycho_pose2 tycho_unicycle_step(tycho_pose2 p, double v, double w, double dt);

/* Twist -> wheel angular speeds (left, right), and back. No limits applied. */
void tycho_diffdrive_to_wheels(const tycho_diffdrive_params *p, double v, double w, double *wl,
                               double *wr);
void tycho_diffdrive_from_wheels(const tycho_diffdrive_params *p, double wl, double wr, double *v,
                                 double *w);

/* Brings (v, w) inside |v| <= max_v, |w| <= max_w. With keep_curvature both
 * are scaled by the same factor, so the robot still drives the same arc
 * (what a path follower wants); otherwise each is clamped on its own (what
 * TurtleBot3's firmware does). Non-finite inputs become 0. */
void tycho_diffdrive_limit(const tycho_diffdrive_params *p, double *v, double *w,
                           bool keep_curvature);

#endif
