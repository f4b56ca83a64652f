/* Swarm-style collision avoidance by potential fields (holonomic point
 * robots, 2D): each robot pushes away from neighbours that come too close
 * and pulls towards its goal, less so when a neighbour is near.
 *
 * Distances (metres): dist_critical < dist_attract <= dist_repulse
 * (defaults 3, 6, 12). For a neighbour at distance d let
 *     x = (d - dist_critical) / (dist_repulse - dist_critical)   (clamped to [0, 1])
 * Its repulsion magnitude is 1 for d <= dist_critical, 0 for d >= dist_repulse,
 * and shape(1 - x) between, along the unit vector from it to us. With the
 * closest neighbour at distance c let
 *     y = (c - dist_critical) / (dist_attract - dist_critical)  (clamped to [0, 1])
 * The attraction towards the goal has magnitude shape(y) (1 with nobody
 * within dist_attract, 0 at dist_critical or closer).
 *
 * Shapes s(u) for u in [0, 1], each with s(0) = 0 and s(1) = 1:
 *     lin  u                    li2  u^2
 *     sin  (1 - cos(pi u)) / 2  log  log2(1 + u)
 *     exp  2^u - 1              const 1 (for u > 0; 0 at u = 0)
 * (so with the defaults, repulsion at d = 3, 4.5, 7.5, 10.5 m is lin 1,
 * .8333, .5, .1667 and exp 1, .7818, .4142, .1225; attraction with the
 * closest at 3, 3.75, 4.5, 5.25, 6 m is lin 0, .25, .5, .75, 1 and sin 0,
 * .1464, .5, .8536, 1).
 *
 * Direction: the sum of attraction and all repulsions, normalised. Speed:
 * max_speed scaled by (c - dist_critical/2) / (dist_repulse/2 - dist_critical/2),
 * clamped to [0, 1]. Near the goal (within goal_tolerance) the command is 0.
 *
 * Known failure: attraction and repulsion cancel (two robots head-on on
 * the line between their goals) and the robots stop short of each other
 * forever. When the summed vector is shorter than stall_ratio of the
 * attraction, or when the robot made less than stall_progress metres of
 * progress towards its goal over stall_time seconds, a side step is added:
 * a unit push to the right of the goal direction (everyone keeps right, so
 * two robots meeting head-on pass each other), for escape_time seconds. */
#ifndef TYCHO_SWARM_H
#define TYCHO_SWARM_H

#include "tycho/common.h"

typedef enum {
    TYCHO_SHAPE_LIN = 0,
    TYCHO_SHAPE_LI2,
    TYCHO_SHAPE_SIN,
    TYCHO_SHAPE_LOG,
    TYCHO_SHAPE_EXP,
    TYCHO_SHAPE_CONST
} tycho_shape;

typedef struct {
    double dist_critical, dist_attract, dist_repulse; /* m; defaults 3, 6, 12 */
    tycho_shape repulse_shape, attract_shape;         /* defaults lin, lin */
    double max_speed;                                 /* m/s, default 1 */
    double goal_tolerance;                            /* m, default 0.5 */
    double stall_ratio;                               /* default 0.1 */
    double stall_time;                                /* s, default 3 */
    double stall_progress;                            /* m, default 0.5 */
    double escape_time;                               /* s, default 4 */
} tycho_swarm_params;

typedef struct {
    double x, y;
} tycho_vec2;

typedef struct {
    tycho_vec2 velocity;              /* velocity set-point, m/s */
    tycho_vec2 attraction, repulsion; /* the two terms before normalising */
    double closest;                   /* m, INFINITY with no neighbour */
    double speed_factor;              /* [0, 1] */
    bool escaping;                    /* the side step is on */
    bool arrived;
} tycho_swarm_cmd;

void tycho_swarm_defaults(tycho_swarm_params *p);
tycho_status tycho_swarm_validate(const tycho_swarm_params *p, tycho_err *err);
double tycho_shape_eval(tycho_shape s, double u);
/* Name <-> shape ("lin", "li2", "sin", "log", "exp", "const"); -1 if unknown. */
int tycho_shape_from_name(const char *name);
const char *tycho_shape_name(tycho_shape s);
double tycho_swarm_repulsion(const tycho_swarm_params *p, double d);
double tycho_swarm_attraction(const tycho_swarm_params *p, double closest);

/* Per-robot controller state (stall detection and escape). */
typedef struct {
    double t_mark, goal_dist_mark; /* progress reference */
    double escape_until;           /* escaping while t < this */
    bool started;
} tycho_swarm_state;

/* One command at time t for a robot at `self` going to `goal`, with n
 * neighbour positions. Allocation-free. */
void tycho_swarm_command(const tycho_swarm_params *p, tycho_swarm_state *st, double t,
                         tycho_vec2 self, tycho_vec2 goal, const tycho_vec2 *neighbours, int n,
                         tycho_swarm_cmd *out);

#endif
