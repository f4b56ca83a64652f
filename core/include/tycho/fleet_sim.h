/* The fleet simulator: N differential-drive robots (discs) on one floor,
 * each driving its route waypoint by waypoint, never past the waypoint it
 * has been allowed to reach. Who may go where is decided outside (the
 * route supervisors and distributor, in Lua); this only moves the robots,
 * injects stops, and watches for contact: any overlap of two discs stops
 * every robot at once (emergency stop) and is counted as a collision.
 *
 * Driving: at a waypoint a robot turns in place towards the next one, then
 * drives straight to it, accelerating and braking within its limits so it
 * can stop at a waypoint it may not pass or where the route turns. The
 * follower is ideal along the edge: the position moves along the segment
 * while the heading converges (it starts with an error under 0.15 rad). Time is
 * simulated in fixed steps; the same inputs give the same run. */
#ifndef TYCHO_FLEET_SIM_H
#define TYCHO_FLEET_SIM_H

#include "tycho/common.h"

typedef struct {
    double radius;    /* disc for contact checks, m (default 0.22: a Pioneer 2DX's half length) */
    double v_max;     /* m/s (default 0.6) */
    double w_max;     /* rad/s (default 1.5) */
    double accel;     /* m/s^2 (default 0.8) */
    double tolerance; /* a waypoint is reached within this distance, m (default 0.03) */
    double dt;        /* step, s (default 0.05) */
} tycho_fleet_params;

typedef struct {
    double distance;  /* driven, m */
    double wait_time; /* held at a waypoint it was not allowed to leave, s */
    double stop_time; /* stopped by an injected stop, s */
    int waits;        /* times it had to hold */
} tycho_fleet_stats;

typedef struct tycho_fleet tycho_fleet;

void tycho_fleet_defaults(tycho_fleet_params *p);
tycho_fleet *tycho_fleet_new(int n, const tycho_fleet_params *p, tycho_err *err);
void tycho_fleet_free(tycho_fleet *f);
int tycho_fleet_count(const tycho_fleet *f);

tycho_status tycho_fleet_set_pose(tycho_fleet *f, int robot, double x, double y, double yaw,
                                  tycho_err *err);
/* A new route (world points); the robot counts as at waypoint 0 once it is
 * there, and may not move until allowed. */
tycho_status tycho_fleet_set_route(tycho_fleet *f, int robot, const double *xy, int count,
                                   tycho_err *err);
/* May drive up to waypoint `upto` (0-based; lowering it below the one the
 * robot is heading to makes it stop at that one first). */
void tycho_fleet_allow(tycho_fleet *f, int robot, int upto);
/* An injected stop: the robot stands still until simulated time `until`. */
void tycho_fleet_stop_until(tycho_fleet *f, int robot, double until);

/* One step; returns the number of new contacts (0 normally). */
int tycho_fleet_step(tycho_fleet *f);

double tycho_fleet_time(const tycho_fleet *f);
/* The last waypoint reached (-1 before the first). */
int tycho_fleet_reached(const tycho_fleet *f, int robot);
/* True while the robot is between waypoints or turning. */
bool tycho_fleet_moving(const tycho_fleet *f, int robot);
bool tycho_fleet_stopped(const tycho_fleet *f, int robot); /* by an injected stop */
void tycho_fleet_pose(const tycho_fleet *f, int robot, double *x, double *y, double *yaw);
tycho_fleet_stats tycho_fleet_robot_stats(const tycho_fleet *f, int robot);
int tycho_fleet_collisions(const tycho_fleet *f);
bool tycho_fleet_estopped(const tycho_fleet *f);
/* The closest two discs came (centre distance minus two radii), m. */
double tycho_fleet_min_clearance(const tycho_fleet *f);

#endif
