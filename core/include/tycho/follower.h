/* Path follower: regulated pure pursuit for a differential-drive robot, in
 * the manner of Nav2's RegulatedPurePursuitController, plus a check of the
 * path ahead against a cost grid.
 *
 * Per step (tycho_follower_step), given the robot pose:
 *  1. Progress: the robot is projected on the path. The search starts at the
 *     current segment and only moves forward, over at most `search_dist`
 *     metres of path, so a path that crosses or returns to itself is
 *     followed in order.
 *  2. Arrival: the goal's xy is reached when the robot is within
 *     xy_tolerance of the last point AND the projection is within
 *     2*xy_tolerance of the path's end (so a loop back to the start does not
 *     end at once). Once reached it stays reached (Nav2's stateful goal
 *     checker); if the path has a goal yaw the robot then rotates in place
 *     until |yaw error| <= yaw_tolerance. Arrival commands (0, 0) at once and
 *     is latched until the next set_path.
 *  3. Lookahead L = clamp(|v_prev| * lookahead_time, min_lookahead,
 *     max_lookahead); the carrot is the first point along the path (after
 *     the projection) at Euclidean distance L from the robot, interpolated on
 *     its segment; the goal itself when the path ends inside the circle; the
 *     projection when the robot is more than L away from the path.
 *  4. Rotate to heading: when the carrot's bearing in the robot frame exceeds
 *     rotate_threshold the robot turns in place towards it (v target 0) and
 *     keeps turning until the bearing is below rotate_threshold / 2
 *     (hysteresis, so it does not chatter at the threshold). The turn rate is
 *     rotate_w, reduced so it neither overshoots within one step nor
 *     exceeds what max_w_accel can stop in the remaining angle.
 *  5. Otherwise v = desired_v, regulated (each factor <= 1, their minimum
 *     wins): curvature (radius 1/|k| below min_radius scales v by
 *     radius/min_radius) and clearance (the caller's distance to the nearest
 *     obstacle below slow_clearance scales v by
 *     clearance_gain*clearance/slow_clearance); floored at min_v. Then the
 *     approach limit near the goal: v <= desired_v * remaining/approach_dist,
 *     floored at approach_min_v. w = v * k with k = 2*y/(x^2+y^2) of the
 *     carrot in the robot frame; if |w| would exceed max_w, v is reduced so
 *     the arc is kept.
 *  6. Acceleration limits (0 disables): v and w each move towards their
 *     target by at most max_accel*dt and max_w_accel*dt (independently, like
 *     Nav2's velocity smoother), then |v| <= max_v, |w| <= max_w.
 *
 * The robot only drives forwards. Collision checking against a live costmap,
 * replanning and recovery are the caller's; tycho_follower_check_blocked
 * helps by finding the first blocked cell on the path ahead. */
#ifndef TYCHO_FOLLOWER_H
#define TYCHO_FOLLOWER_H

#include "tycho/common.h"
#include "tycho/grid.h"

typedef struct {
    double desired_v;        /* cruise speed, m/s, default 0.20 */
    double max_v;            /* m/s, default 0.22 (TurtleBot3 Burger) */
    double max_w;            /* rad/s, default 2.84 */
    double lookahead_time;   /* s, lookahead = |v| * this, default 1.5 */
    double min_lookahead;    /* m, default 0.3 */
    double max_lookahead;    /* m, default 0.9 */
    double min_radius;       /* curvature regulation below this radius, m, default 0.9; 0 off */
    double min_v;            /* floor of the regulated speed, m/s, default 0.05 */
    double slow_clearance;   /* clearance regulation below this distance, m, default 0.6; 0 off */
    double clearance_gain;   /* default 1.0 */
    double approach_dist;    /* slow down over the last metres of path, default 0.6; 0 off */
    double approach_min_v;   /* m/s, default 0.05 */
    bool rotate_to_heading;  /* default true */
    double rotate_threshold; /* rad, default 0.785 (45 deg) */
    double rotate_w;         /* in-place turn rate, rad/s, default 1.8 */
    double max_accel;        /* m/s^2, default 2.5; 0 = unlimited */
    double max_w_accel;      /* rad/s^2, default 3.2; 0 = unlimited */
    double xy_tolerance;     /* m, default 0.25 */
    double yaw_tolerance;    /* rad, default 0.25 */
    double search_dist;      /* m of path searched ahead for the projection, default 1.5 */
} tycho_follower_params;

typedef enum {
    TYCHO_FOLLOW_IDLE = 0,  /* no path */
    TYCHO_FOLLOW_FOLLOWING, /* pure pursuit */
    TYCHO_FOLLOW_ROTATING,  /* turning in place (towards the path or to the goal yaw) */
    TYCHO_FOLLOW_ARRIVED    /* goal reached; latched until the next path */
} tycho_follow_status;

typedef struct {
    double v, w; /* command, m/s and rad/s */
    tycho_follow_status status;
    int nearest;               /* index of the path point nearest the projection */
    double remaining;          /* m along the path from the projection to the goal */
    double lookahead;          /* m, the lookahead distance used */
    double carrot_x, carrot_y; /* world lookahead point */
    double curvature;          /* 1/m of the pursuit arc (0 when rotating) */
} tycho_follow_cmd;

typedef struct tycho_follower tycho_follower;

void tycho_follower_defaults(tycho_follower_params *p);
tycho_status tycho_follower_validate(const tycho_follower_params *p, tycho_err *err);

/* NULL params = defaults. */
tycho_follower *tycho_follower_new(const tycho_follower_params *p, tycho_err *err);
void tycho_follower_free(tycho_follower *f);
tycho_status tycho_follower_set_params(tycho_follower *f, const tycho_follower_params *p,
                                       tycho_err *err);
void tycho_follower_get_params(const tycho_follower *f, tycho_follower_params *p);

/* Copies the path (n points as x0,y0,x1,y1,... in world coordinates);
 * consecutive duplicate points are dropped. goal_yaw is the heading wanted
 * at the end, or NAN for "any". Resets progress and the arrival latch, keeps
 * the last command (the robot is still moving). n == 0 clears the path. */
tycho_status tycho_follower_set_path(tycho_follower *f, const double *xy, int n, double goal_yaw,
                                     tycho_err *err);
/* Points kept by set_path (after dropping duplicates); *n gets their count. */
const double *tycho_follower_path(const tycho_follower *f, int *n);

/* One control step: pose, time since the previous step (s, > 0) and the
 * distance from the robot to the nearest obstacle (INFINITY if unknown).
 * Allocation-free. EINVAL on non-finite pose or dt <= 0 (out is zeroed). */
tycho_status tycho_follower_step(tycho_follower *f, tycho_pose2 pose, double dt, double clearance,
                                 tycho_follow_cmd *out, tycho_err *err);
/* Forgets progress, the arrival latch and the last command (keeps the path). */
void tycho_follower_reset(tycho_follower *f);
tycho_follow_status tycho_follower_status(const tycho_follower *f);
const char *tycho_follow_status_name(tycho_follow_status s);

/* --- path ahead against a grid ------------------------------------------- */
typedef struct {
    bool blocked;
    double distance; /* m along the path from the start of the check to the blocked cell's edge */
    double x, y;     /* world point where the path enters the blocked cell */
    int cx, cy;      /* the blocked cell */
    int segment;     /* index of the path segment (point i to i+1) it lies on */
} tycho_path_block;

/* Walks the polyline xy[0..n) from its first point for at most `lookahead`
 * metres, visiting every grid cell it crosses (exact cell traversal), and
 * reports the first with cost >= threshold. Cells outside the grid read as
 * unknown (255). Unknown cells count as blocked only if unknown_blocked
 * (otherwise they are skipped, whatever the threshold). */
tycho_status tycho_path_check_blocked(const tycho_grid *g, const double *xy, int n,
                                      double lookahead, int threshold, bool unknown_blocked,
                                      tycho_path_block *out, tycho_err *err);
/* The same from the follower's current projection on its path (the path
 * start before the first step). */
tycho_status tycho_follower_check_blocked(const tycho_follower *f, const tycho_grid *g,
                                          double lookahead, int threshold, bool unknown_blocked,
                                          tycho_path_block *out, tycho_err *err);

#endif
