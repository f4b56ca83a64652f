/* A robot driving over a height field (tycho/lidar3d.h): a differential
 * drive or four-wheel mecanum base whose wheels rest on the ground, for the
 * terrain simulator.
 *
 * Each step:
 *  1. The commanded body twist (vx forward, vy left, wz) is limited: a
 *     differential drive ignores vy; if a wheel speed of the command
 *     (tycho/mecanum.h or tycho/diffdrive.h) would exceed max_wheel, the
 *     whole twist is scaled down (the wheel speeds are linear in it, so the
 *     direction of travel is kept); then (vx, vy) moves towards it by at
 *     most max_accel * dt as a vector, wz by max_w_accel * dt. The wheel
 *     speeds reported are those of the twist driven.
 *  2. The planar pose is integrated exactly for the constant twist.
 *  3. The wheels rest on the ground: contact points at (+-half_length,
 *     +-half_width) in the robot frame. If one would climb more than
 *     max_step above where it was in one step (cell heights as they are: a
 *     wall, a box, a kerb), or leaves the field, the robot does not move:
 *     the step counts as a bump and the twist drops to 0.
 *  4. The pose uses the ground interpolated bilinearly between cell
 *     centres under each wheel: z is the mean (plus wheel_radius, the
 *     axle); pitch and
 *     roll follow the REP-103 convention of lidar3d.h: pitch =
 *     atan2(z_rear - z_front, 2 half_length) (nose down positive), roll =
 *     atan2(z_left - z_right, 2 half_width) (left side up positive). */
#ifndef TYCHO_TERRAIN_SIM_H
#define TYCHO_TERRAIN_SIM_H
#include "tycho/lidar3d.h"
#include "tycho/mecanum.h"

typedef enum { TYCHO_BASE_DIFF, TYCHO_BASE_MECANUM } tycho_base_kind;

typedef struct {
    tycho_base_kind kind;
    double half_length,
        half_width;      /* wheel contacts, m: mecanum default 0.225 x 0.200 (450 x 400 mm) */
    double wheel_radius; /* m, 0.05 */
    double max_wheel;    /* rad/s, 12 (0.6 m/s at r = 0.05) */
    double max_accel;    /* m/s^2, 1.0 */
    double max_w_accel;  /* rad/s^2, 3.0 */
    double max_step;     /* m a wheel may climb in one step, 0.08 */
} tycho_terrain_robot;

/* Defaults for the kind (a differential drive gets the same footprint). */
void tycho_terrain_robot_defaults(tycho_terrain_robot *r, tycho_base_kind kind);
tycho_status tycho_terrain_robot_validate(const tycho_terrain_robot *r, tycho_err *err);

typedef struct {
    tycho_pose3 pose;
    double vx, vy, wz; /* the twist driven in the last step */
    double wheel[4];   /* rad/s: FL, FR, RL, RR (mecanum) or left, right, 0, 0 */
    long bumps;        /* steps refused (a wheel against a step it cannot climb) */
} tycho_terrain_robot_state;

/* Places the robot at (x, y, yaw) resting on the ground; false off the field. */
bool tycho_terrain_robot_place(const tycho_terrain_robot *r, const tycho_heightfield *f, double x,
                               double y, double yaw, tycho_terrain_robot_state *s);
/* One step of dt seconds towards the commanded twist. False when the step
 * was refused (a bump). */
bool tycho_terrain_robot_step(const tycho_terrain_robot *r, const tycho_heightfield *f,
                              tycho_terrain_robot_state *s, double vx, double vy, double wz,
                              double dt);
#endif
