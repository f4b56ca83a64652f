/* Deterministic single-robot simulator for the heat-seeking mission: a
 * differential-drive robot (TurtleBot3 Burger by default) in a walled world
 * given as a ground-truth occupancy grid, with a 2D LiDAR, AMG8833 thermal
 * cameras, an IMU that feels ramps, and a flywheel ball launcher whose
 * launches the simulator judges against the heat sources.
 *
 * World model
 *  - Truth grid: a cell is solid (a wall) when its cost is >= 254 (lethal,
 *    or unknown: a truth map has nothing unknown, so what is not known free
 *    is taken as solid), and so is everything outside the grid, for the
 *    robot body, the LiDAR and every sight line alike (ray casting with
 *    threshold 254 and unknown_blocked, see raycast.h).
 *  - Heat source: a vertical cylinder (radius 0.1 m, height 0.3 m by
 *    default) standing on the floor at (x, y) at `temp` degrees C. It is
 *    not an obstacle unless the map draws it (then its own cells never
 *    occlude it: line-of-sight checks stop 1.5 cells short of its surface).
 *  - Ramp: an axis-aligned rectangle of free cells. The robot drives onto
 *    it and the LiDAR does not see it. Its slope is `pitch` (rad); with a
 *    finite `dir` (world direction of ascent, rad) the IMU's pitch and roll
 *    follow the robot's heading on the slope, otherwise (dir = NAN) the IMU
 *    reports `pitch` nose-up whatever the heading. See sim_sensors.c.
 *
 * Time and determinism
 *  - tycho_sim_step(dt) advances in equal physics ticks of at most
 *    robot.tick seconds (default 10 ms). Sensors sample on fixed schedules
 *    (sample k of a sensor at rate f is taken at the first tick ending at or
 *    after k/f; sample 0 is taken when the sim is created), from the true
 *    pose at that tick, stamped with the tick's end time.
 *  - All noise comes from the seed: each sensor sample draws from its own
 *    generator seeded by (seed, sensor, sample number), so the same seed and
 *    the same command sequence give bit-identical outputs, and adding a
 *    sensor or reading one more or less often changes nothing else.
 *
 * Units are REP-103 (metres, radians, counter-clockwise, x forward), except
 * that IMU pitch is positive nose-up (as the mission code reads it). */
#ifndef TYCHO_SIM_H
#define TYCHO_SIM_H

#include "tycho/common.h"
#include "tycho/grid.h"
#include "tycho/raycast.h"
#include "tycho/rng.h"
#include "tycho/scan.h"

#define TYCHO_SIM_MAX_CAMERAS 4
#define TYCHO_SIM_MAX_BEAMS 4096
#define TYCHO_SIM_MAX_SOURCES 1024
#define TYCHO_SIM_MAX_RAMPS 1024
#define TYCHO_SIM_MAX_BALLS 100000
#define TYCHO_THERMAL_COLS 8
#define TYCHO_THERMAL_ROWS 8
#define TYCHO_THERMAL_PIXELS 64

typedef struct {
    double x, y;   /* centre, m */
    double temp;   /* surface temperature, degrees C */
    double radius; /* m, default 0.1 */
    double height; /* m, default 0.3 */
} tycho_heat_source;

typedef struct {
    double x0, y0, x1, y1; /* world rectangle, any corner order */
    double pitch;          /* slope, rad (positive: climbing when driving up it) */
    double dir;            /* world direction of ascent, rad; NAN = heading-independent */
} tycho_ramp;

typedef struct {
    double max_v;        /* |v| limit, m/s, default 0.22 */
    double max_w;        /* |w| limit, rad/s, default 2.84 */
    double radius;       /* collision disc, m, default 0.105 */
    double tick;         /* longest physics tick, s, default 0.01 */
    double odom_noise_v; /* relative sigma of odometry v per tick, default 0 (exact) */
    double odom_noise_w; /* relative sigma of odometry w per tick, default 0 */
    /* Systematic odometry errors, the kind that bend a map (all 0 by
     * default: exact odometry). The odometry integrates what the encoders
     * count; each field left NAN is drawn from `errors` (the preset's
     * sigma, seeded by the world's seed), or 0 without a preset. */
    int errors;                     /* TYCHO_SIM_ERRORS_NONE (default) or _TURTLEBOT3 */
    double wheel_base;              /* m, default 0.160 (TurtleBot3 Burger) */
    double wheel_radius_error_left; /* relative: the encoder counts (1 + e) x the distance rolled */
    double wheel_radius_error_right;
    double wheel_base_error;    /* relative error of the base the odometry divides by */
    double encoder_ticks_per_m; /* encoder resolution; 0 = continuous */
    double slip_ramp;           /* fraction of the commanded motion lost on a ramp (0..1) */
    double slip_contact;        /* 0..1: how much the wheels keep turning (and counting)
                                 * when a wall stops the robot */
} tycho_sim_robot;

enum { TYCHO_SIM_ERRORS_NONE = 0, TYCHO_SIM_ERRORS_TURTLEBOT3 = 1 };

/* The turtlebot3 preset (per robot, drawn once from the seed): wheel radius
 * errors sigma 1 % each (33 mm tyres worn or pumped differently), wheel
 * base sigma 2 % (the contact patches' spread over 160 mm), gyro bias
 * sigma 0.2 deg/s and scale sigma 1 % (a MEMS gyro after start-up
 * calibration), 5 % slip on a ramp, wheels spinning fully against a wall,
 * 4096-count encoders on 33 mm wheels (19,756 counts a metre). */
#define TYCHO_SIM_TB3_RADIUS_SIGMA 0.01
#define TYCHO_SIM_TB3_BASE_SIGMA 0.02
#define TYCHO_SIM_TB3_GYRO_BIAS_SIGMA (0.2 * 3.14159265358979323846 / 180.0)
#define TYCHO_SIM_TB3_GYRO_SCALE_SIGMA 0.01
#define TYCHO_SIM_TB3_SLIP_RAMP 0.05
#define TYCHO_SIM_TB3_SLIP_CONTACT 1.0
#define TYCHO_SIM_TB3_TICKS_PER_M (4096.0 / (2.0 * 3.14159265358979323846 * 0.033))

typedef struct {
    int beams;              /* default 360 */
    double angle_min;       /* first beam, rad from the robot heading, default 0 */
    double angle_increment; /* rad, default 1 degree */
    double range_min;       /* m, default 0.12 */
    double range_max;       /* m, default 3.5 */
    double rate;            /* scans per second, default 5 */
    double noise;           /* Gaussian range sigma, m, default 0.01 */
    double x, y;            /* mount offset in the robot frame, m, default 0 */
} tycho_sim_lidar;

typedef struct {
    double yaw;     /* mount yaw from the robot heading, rad (defaults +30 / -30 deg) */
    double x, y;    /* mount offset in the robot frame, m, default 0 */
    double z;       /* lens height above the floor, m, default 0.15 */
    double fov_h;   /* horizontal field of view, rad, default 60 deg */
    double fov_v;   /* vertical field of view, rad, default 60 deg */
    double rate;    /* frames per second, default 10 */
    double noise;   /* Gaussian sigma per pixel, degrees C, default 0.1 */
    double quantum; /* output resolution, degrees C, default 0.25 (0 = none) */
} tycho_sim_camera;

typedef struct {
    double rate;       /* samples per second, default 50 */
    double transition; /* width of the smooth pitch change at a ramp edge, m, default 0.1 */
    double noise;      /* Gaussian sigma of pitch and roll, rad, default 0.002 */
    double rate_noise; /* Gaussian sigma of the yaw rate, rad/s, default 0.003 */
    double gyro_bias;  /* constant yaw-rate offset, rad/s (NAN: from robot.errors, else 0) */
    double gyro_scale; /* relative yaw-rate scale error (NAN: from robot.errors, else 0) */
} tycho_sim_imu;

typedef struct {
    double spin_up; /* s for the flywheels to reach speed, default 1.0 */
    double reload;  /* s between two launches, default 0.5 */
    int balls;      /* default 10 */
    double range;   /* engagement distance, robot centre to source centre, m, default 1.5 */
    double angle;   /* engagement half-angle, rad, default 15 deg */
} tycho_sim_launcher;

typedef struct {
    tycho_pose2 start;
    const tycho_heat_source *sources; /* copied by tycho_sim_new */
    int n_sources;
    const tycho_ramp *ramps; /* copied by tycho_sim_new */
    int n_ramps;
    double ambient; /* degrees C, default 22 */
    uint64_t seed;  /* default 1 */
    tycho_sim_robot robot;
    tycho_sim_lidar lidar;
    tycho_sim_camera cameras[TYCHO_SIM_MAX_CAMERAS];
    int n_cameras; /* default 2 */
    tycho_sim_imu imu;
    tycho_sim_launcher launcher;
} tycho_sim_config;

/* Defaults for everything: no sources, no ramps, start at (0, 0, 0). */
void tycho_sim_config_defaults(tycho_sim_config *c);
void tycho_heat_source_defaults(tycho_heat_source *s);
/* Ranges and finiteness of every field; the message names the field as a
 * world file spells it ("heat_sources[2].temp must be finite"). */
tycho_status tycho_sim_config_validate(const tycho_sim_config *c, tycho_err *err);

typedef struct tycho_sim tycho_sim;

/* Copies the truth grid and the config. Fails on an invalid config or a
 * start pose whose robot disc overlaps a wall. */
tycho_sim *tycho_sim_new(const tycho_grid *truth, const tycho_sim_config *c, tycho_err *err);
void tycho_sim_free(tycho_sim *s);

/* The sim's own copy of the config (sources and ramps point into the sim). */
const tycho_sim_config *tycho_sim_config_get(const tycho_sim *s);
const tycho_grid *tycho_sim_truth(const tycho_sim *s);

/* --- motion -------------------------------------------------------------- */
/* Commands a body twist, clamped to the robot's limits (each on its own, as
 * the TurtleBot3 firmware does); non-finite values become 0. */
void tycho_sim_set_cmd(tycho_sim *s, double v, double w);
void tycho_sim_get_cmd(const tycho_sim *s, double *v, double *w);
/* Advances the simulation by dt seconds (0 < dt <= 3600). Each tick moves
 * the robot along the exact arc of the command. A tick whose arc would make
 * the robot disc overlap a wall instead moves it to the last free point of
 * the arc (found by bisection, within ~0.1 mm), zeroes the command and the
 * velocity, and counts a collision unless the robot was already in contact
 * (contact ends when a tick translates the robot freely). Rotating in place
 * never collides (the body is a disc). Allocation-free. */
tycho_status tycho_sim_step(tycho_sim *s, double dt, tycho_err *err);
double tycho_sim_time(const tycho_sim *s);
/* True pose (for judging and tests). */
tycho_pose2 tycho_sim_pose(const tycho_sim *s);
/* Odometry: integrates the robot's actual motion (none while blocked),
 * each tick's v and w scaled by (1 + sigma * N(0,1)); starts at the start pose. */
tycho_pose2 tycho_sim_odom(const tycho_sim *s);
/* Actual body twist during the last tick (0 after a collision). */
void tycho_sim_velocity(const tycho_sim *s, double *v, double *w);
int tycho_sim_collisions(const tycho_sim *s);
bool tycho_sim_in_contact(const tycho_sim *s);
/* Moves the robot (true pose and odometry) without simulating; fails if the
 * disc would overlap a wall. Sensors keep their schedules. */
tycho_status tycho_sim_teleport(tycho_sim *s, tycho_pose2 p, tycho_err *err);
/* Whether a robot disc of the configured radius at (x, y) overlaps a wall. */
bool tycho_sim_collides(const tycho_sim *s, double x, double y);

/* --- sensors ------------------------------------------------------------- */
typedef struct {
    /* ranges in m; +INFINITY = nothing within range_max, -INFINITY = closer
     * than range_min (REP-117); owned by the sim */
    const tycho_scan *scan;
    double stamp; /* sim time of the sample */
    uint64_t seq; /* sample number k (taken at or just after k / rate) */
} tycho_sim_scan;

typedef struct {
    const float *temps; /* 64 values, degrees C, row-major, row 0 top, column 0 leftmost */
    double stamp;
    uint64_t seq;
} tycho_sim_frame;

typedef struct {
    double pitch;    /* rad, nose-up positive */
    double roll;     /* rad, left side up positive */
    double yaw_rate; /* rad/s, counter-clockwise positive */
    double stamp;
    uint64_t seq;
} tycho_sim_imu_sample;

/* The latest scan or frame (sample 0 exists from creation). take_* returns
 * true only if it is new since the last take (and marks it taken); last_*
 * does not consume (false only for a bad camera index). The buffers belong
 * to the sim and are overwritten by tycho_sim_step: copy what you keep. */
bool tycho_sim_take_scan(tycho_sim *s, tycho_sim_scan *out);
bool tycho_sim_last_scan(const tycho_sim *s, tycho_sim_scan *out);
bool tycho_sim_take_thermal(tycho_sim *s, int camera, tycho_sim_frame *out);
bool tycho_sim_last_thermal(const tycho_sim *s, int camera, tycho_sim_frame *out);
/* The robot's odometry and IMU errors as resolved at creation (the
 * preset's draws filled in). Either pointer may be NULL. */
void tycho_sim_errors(const tycho_sim *s, tycho_sim_robot *robot, tycho_sim_imu *imu);

/* The latest IMU sample (state-like: never consumed). */
void tycho_sim_imu_read(const tycho_sim *s, tycho_sim_imu_sample *out);

/* --- launcher ------------------------------------------------------------ */
typedef enum {
    TYCHO_LAUNCH_FIRED = 0,
    TYCHO_LAUNCH_NOT_SPINNING,
    TYCHO_LAUNCH_SPINNING_UP,
    TYCHO_LAUNCH_RELOADING,
    TYCHO_LAUNCH_EMPTY
} tycho_launch_status;

typedef struct {
    double t;           /* sim time of the launch */
    tycho_pose2 pose;   /* true robot pose */
    int engaged;        /* index of the engaged source, or -1 */
    int nearest;        /* index of the nearest source (any), or -1 if none */
    double distance;    /* m to the engaged (else nearest) source */
    double bearing_err; /* rad, source bearing minus robot yaw, wrapped */
    char reason[112];   /* why it engaged or missed, for people */
} tycho_sim_launch;

/* Starts (on) or stops the flywheels. Spin-up restarts from zero after a
 * stop; stopping is immediate. */
void tycho_sim_launcher_spin(tycho_sim *s, bool on);
/* Seconds until the flywheels are at speed (0 when ready, INFINITY when off). */
double tycho_sim_launcher_spin_left(const tycho_sim *s);
int tycho_sim_launcher_balls(const tycho_sim *s);
/* Fires one ball if spun up, reloaded and not empty; fills *out (judged
 * against the true pose) and marks the engaged source. Otherwise returns
 * why not and leaves *out with only `reason` set. */
tycho_launch_status tycho_sim_launcher_feed(tycho_sim *s, tycho_sim_launch *out);
const char *tycho_launch_status_name(tycho_launch_status st);
/* Launches so far (oldest first). */
const tycho_sim_launch *tycho_sim_launches(const tycho_sim *s, int *n);
/* Per-source engaged flags (n_sources entries). */
const bool *tycho_sim_engaged(const tycho_sim *s);

/* --- the models on their own (pure; used by the sim, exposed for tests) ---
 * They cast against a ray map of the truth grid built with the sim's
 * options (tycho_sim_ray_opts); `res` is the grid's resolution. */

/* The sim's notion of solid: threshold 254, unknown and outside blocked. */
void tycho_sim_ray_opts(tycho_ray_opts *o);
/* The sim's ray map of its truth grid. */
const tycho_raymap *tycho_sim_raymap(const tycho_sim *s);

/* Judges a launch from `pose`: a ball engages a source when the robot
 * centre is within p->range of the source centre, no wall lies between them
 * and |bearing - yaw| <= p->angle; the nearest qualifying source wins.
 * Returns its index or -1 and fills *out (t is left 0). */
int tycho_sim_judge(const tycho_raymap *rays, double res, const tycho_heat_source *src, int n,
                    const tycho_sim_launcher *p, tycho_pose2 pose, tycho_sim_launch *out);

/* Whether the segment (x0,y0)-(x1,y1) crosses no solid cell, looking only
 * at its first `len` metres (len < 0: the whole segment). */
bool tycho_sim_line_clear(const tycho_raymap *rays, double x0, double y0, double x1, double y1,
                          double len);
/* Fraction (0..1) of a source's width visible from (x, y): rays to five
 * points across its silhouette, each stopped 1.5 cells short of the
 * cylinder so the source's own cells (if the map draws it) do not occlude. */
double tycho_sim_source_visibility(const tycho_raymap *rays, double res, double x, double y,
                                   const tycho_heat_source *s);

/* One scan from the sensor pose into ranges[p->beams]; rng NULL = no noise. */
void tycho_sim_lidar_cast(const tycho_raymap *rays, tycho_pose2 sensor, const tycho_sim_lidar *p,
                          tycho_rng *rng, float *ranges);
/* One 8x8 frame of a camera on a robot at `robot` (see sim_sensors.c for the
 * formula); rng NULL = no noise. Quantised when cam->quantum > 0. */
void tycho_sim_thermal_render(const tycho_raymap *rays, double res, tycho_pose2 robot,
                              const tycho_sim_camera *cam, const tycho_heat_source *src, int n,
                              double ambient, tycho_rng *rng, float *temps);
/* Noise-free pitch and roll of a robot at `pose` on the given ramps. */
void tycho_sim_ramp_attitude(const tycho_ramp *ramps, int n, double transition, tycho_pose2 pose,
                             double *pitch, double *roll);

#endif
