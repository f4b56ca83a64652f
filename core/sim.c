/* Simulator state and time: config, robot motion with collisions, odometry,
 * sensor schedules and the launcher's state (see sim.h). The sensor models
 * are in sim_sensors.c, the launch judge in sim_launcher.c. */
#include "tycho/sim.h"

#include "tycho/diffdrive.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEG (M_PI / 180.0)
/* Slack when comparing sim times with sample times, so that ticks whose
 * float sum lands a hair before k/rate still take sample k. */
#define TIME_EPS 1e-9

enum { STREAM_LIDAR = 1, STREAM_IMU = 2, STREAM_ODOM = 3, STREAM_ERRORS = 4, STREAM_CAMERA = 16 };

typedef struct {
    double rate;
    uint64_t next; /* number of the next sample due */
} schedule;

struct tycho_sim {
    tycho_sim_config cfg; /* sources/ramps point at the arrays below */
    tycho_heat_source *sources;
    tycho_ramp *ramps;
    tycho_grid *truth;
    tycho_raymap *rays;
    double res;

    double t;
    uint64_t ticks;
    tycho_pose2 pose, odom;
    double cmd_v, cmd_w, act_v, act_w;
    int collisions;
    bool contact;
    bool exact_odom;       /* no systematic error: the odometry integrates (v, w) as before */
    double enc_l, enc_r;   /* encoder counts, continuous (the wheels' true rotation) */
    double seen_l, seen_r; /* counts the odometry has used (whole counts when quantised) */

    schedule scan_sched;
    tycho_scan scan;
    tycho_sim_scan scan_meta;
    bool scan_fresh;

    schedule cam_sched[TYCHO_SIM_MAX_CAMERAS];
    float thermal[TYCHO_SIM_MAX_CAMERAS][TYCHO_THERMAL_PIXELS];
    tycho_sim_frame frame_meta[TYCHO_SIM_MAX_CAMERAS];
    bool thermal_fresh[TYCHO_SIM_MAX_CAMERAS];

    schedule imu_sched;
    tycho_sim_imu_sample imu;

    bool spinning;
    double spin_start, last_launch;
    int balls;
    tycho_sim_launch *launches;
    int n_launches;
    bool *engaged;
};

static void resolve_errors(tycho_sim_config *c);

void tycho_heat_source_defaults(tycho_heat_source *s)
{
    s->x = s->y = 0;
    s->temp = 40.0;
    s->radius = 0.1;
    s->height = 0.3;
}

void tycho_sim_config_defaults(tycho_sim_config *c)
{
    memset(c, 0, sizeof *c);
    c->ambient = 22.0;
    c->seed = 1;
    c->robot.max_v = 0.22;
    c->robot.max_w = 2.84;
    c->robot.radius = 0.105;
    c->robot.tick = 0.01;
    c->lidar.beams = 360;
    c->lidar.angle_min = 0;
    c->lidar.angle_increment = 1.0 * DEG;
    c->lidar.range_min = 0.12;
    c->lidar.range_max = 3.5;
    c->lidar.rate = 5.0;
    c->lidar.noise = 0.01;
    c->n_cameras = 2;
    for (int i = 0; i < TYCHO_SIM_MAX_CAMERAS; i++) {
        tycho_sim_camera *k = &c->cameras[i];
        k->yaw = (i % 2 == 0 ? 30.0 : -30.0) * DEG;
        k->z = 0.15;
        k->fov_h = k->fov_v = 60.0 * DEG;
        k->rate = 10.0;
        k->noise = 0.1;
        k->quantum = 0.25;
    }
    c->imu.rate = 50.0;
    c->imu.transition = 0.1;
    c->imu.noise = 0.002;
    c->imu.rate_noise = 0.003;
    c->imu.gyro_bias = c->imu.gyro_scale = NAN;
    c->robot.errors = TYCHO_SIM_ERRORS_NONE;
    c->robot.wheel_base = 0.160;
    c->robot.wheel_radius_error_left = c->robot.wheel_radius_error_right = NAN;
    c->robot.wheel_base_error = c->robot.encoder_ticks_per_m = NAN;
    c->robot.slip_ramp = c->robot.slip_contact = NAN;
    c->launcher.spin_up = 1.0;
    c->launcher.reload = 0.5;
    c->launcher.balls = 10;
    c->launcher.range = 1.5;
    c->launcher.angle = 15.0 * DEG;
}

/* Range checks, one line each; `what` is the field as the world file spells it. */
#define NEED(cond, ...)                                                                            \
    do {                                                                                           \
        if (!(cond)) return tycho_fail(err, TYCHO_EINVAL, __VA_ARGS__);                            \
    } while (0)
#define POS(v, what) NEED(isfinite(v) && (v) > 0, "%s must be > 0 (got %g)", what, (double)(v))
#define NONNEG(v, what) NEED(isfinite(v) && (v) >= 0, "%s must be >= 0 (got %g)", what, (double)(v))
#define FINITE(v, what) NEED(isfinite(v), "%s must be finite (got %g)", what, (double)(v))

tycho_status tycho_sim_config_validate(const tycho_sim_config *c, tycho_err *err)
{
    FINITE(c->start.x, "start.x");
    FINITE(c->start.y, "start.y");
    FINITE(c->start.yaw, "start.yaw");
    NEED(c->n_sources >= 0 && c->n_sources <= TYCHO_SIM_MAX_SOURCES,
         "heat_sources: at most %d sources", TYCHO_SIM_MAX_SOURCES);
    NEED(c->n_sources == 0 || c->sources, "heat_sources missing");
    for (int i = 0; i < c->n_sources; i++) {
        const tycho_heat_source *s = &c->sources[i];
        NEED(isfinite(s->x), "heat_sources[%d].x must be finite", i + 1);
        NEED(isfinite(s->y), "heat_sources[%d].y must be finite", i + 1);
        NEED(isfinite(s->temp) && s->temp > -273.15 && s->temp < 2000,
             "heat_sources[%d].temp must be a temperature in degrees C (got %g)", i + 1, s->temp);
        NEED(isfinite(s->radius) && s->radius > 0 && s->radius <= 10,
             "heat_sources[%d].radius must be in (0, 10] m (got %g)", i + 1, s->radius);
        NEED(isfinite(s->height) && s->height > 0 && s->height <= 100,
             "heat_sources[%d].height must be in (0, 100] m (got %g)", i + 1, s->height);
    }
    NEED(c->n_ramps >= 0 && c->n_ramps <= TYCHO_SIM_MAX_RAMPS, "ramps: at most %d ramps",
         TYCHO_SIM_MAX_RAMPS);
    NEED(c->n_ramps == 0 || c->ramps, "ramps missing");
    for (int i = 0; i < c->n_ramps; i++) {
        const tycho_ramp *r = &c->ramps[i];
        NEED(isfinite(r->x0) && isfinite(r->y0) && isfinite(r->x1) && isfinite(r->y1),
             "ramps[%d]: x0, y0, x1, y1 must be finite", i + 1);
        NEED(r->x0 != r->x1 && r->y0 != r->y1, "ramps[%d] must have a non-zero area", i + 1);
        NEED(isfinite(r->pitch) && fabs(r->pitch) < 80 * DEG,
             "ramps[%d].pitch must be within +-80 degrees, in radians (got %g)", i + 1, r->pitch);
        NEED(!isinf(r->dir), "ramps[%d].dir must be finite", i + 1);
    }
    NEED(isfinite(c->ambient) && c->ambient > -273.15 && c->ambient < 2000,
         "ambient must be a temperature in degrees C (got %g)", c->ambient);

    POS(c->robot.max_v, "robot.max_v");
    POS(c->robot.max_w, "robot.max_w");
    POS(c->robot.radius, "robot.radius");
    NEED(isfinite(c->robot.tick) && c->robot.tick >= 1e-4 && c->robot.tick <= 0.1,
         "robot.tick must be in [0.0001, 0.1] s (got %g)", c->robot.tick);
    NONNEG(c->robot.odom_noise_v, "odom.noise_v");
    NONNEG(c->robot.odom_noise_w, "odom.noise_w");
    const tycho_sim_robot *rb = &c->robot;
    NEED(rb->errors == TYCHO_SIM_ERRORS_NONE || rb->errors == TYCHO_SIM_ERRORS_TURTLEBOT3,
         "robot.errors must be \"none\" or \"turtlebot3\"");
    NEED(isfinite(rb->wheel_base) && rb->wheel_base > 0.01 && rb->wheel_base <= 10,
         "odom.wheel_base must be in (0.01, 10] m (got %g)", rb->wheel_base);
    /* NAN: not given (drawn from the preset or 0) */
#define REL(v, lo, hi, what)                                                                       \
    NEED(isnan(v) || ((v) >= (lo) && (v) <= (hi)), what " must be in [%g, %g] (got %g)",           \
         (double)(lo), (double)(hi), (v))
    REL(rb->wheel_radius_error_left, -0.5, 0.5, "odom.wheel_radius_error_left");
    REL(rb->wheel_radius_error_right, -0.5, 0.5, "odom.wheel_radius_error_right");
    REL(rb->wheel_base_error, -0.5, 0.5, "odom.wheel_base_error");
    REL(rb->encoder_ticks_per_m, 0, 1e7, "odom.encoder_ticks_per_m");
    REL(rb->slip_ramp, 0, 1, "odom.slip_ramp");
    REL(rb->slip_contact, 0, 1, "odom.slip_contact");
    REL(c->imu.gyro_bias, -1, 1, "imu.gyro_bias (rad/s)");
    REL(c->imu.gyro_scale, -0.5, 0.5, "imu.gyro_scale");
#undef REL

    const tycho_sim_lidar *l = &c->lidar;
    NEED(l->beams >= 1 && l->beams <= TYCHO_SIM_MAX_BEAMS, "lidar.beams must be in 1..%d (got %d)",
         TYCHO_SIM_MAX_BEAMS, l->beams);
    FINITE(l->angle_min, "lidar.angle_min");
    POS(l->angle_increment, "lidar.angle_increment");
    NONNEG(l->range_min, "lidar.range_min");
    NEED(isfinite(l->range_max) && l->range_max > l->range_min && l->range_max <= 1000,
         "lidar.range_max must be > range_min and <= 1000 m (got %g)", l->range_max);
    NEED(isfinite(l->rate) && l->rate > 0 && l->rate <= 1000,
         "lidar.rate must be in (0, 1000] Hz (got %g)", l->rate);
    NONNEG(l->noise, "lidar.noise");
    FINITE(l->x, "lidar.x");
    FINITE(l->y, "lidar.y");

    NEED(c->n_cameras >= 0 && c->n_cameras <= TYCHO_SIM_MAX_CAMERAS, "cameras: at most %d cameras",
         TYCHO_SIM_MAX_CAMERAS);
    for (int i = 0; i < c->n_cameras; i++) {
        const tycho_sim_camera *k = &c->cameras[i];
        NEED(isfinite(k->yaw), "cameras[%d].yaw must be finite", i + 1);
        NEED(isfinite(k->x) && isfinite(k->y), "cameras[%d].x and .y must be finite", i + 1);
        NEED(isfinite(k->z) && k->z >= 0, "cameras[%d].z must be >= 0 (got %g)", i + 1, k->z);
        NEED(isfinite(k->fov_h) && k->fov_h > 0 && k->fov_h < M_PI,
             "cameras[%d].fov_h must be in (0, pi) rad (got %g)", i + 1, k->fov_h);
        NEED(isfinite(k->fov_v) && k->fov_v > 0 && k->fov_v < M_PI,
             "cameras[%d].fov_v must be in (0, pi) rad (got %g)", i + 1, k->fov_v);
        NEED(isfinite(k->rate) && k->rate > 0 && k->rate <= 1000,
             "cameras[%d].rate must be in (0, 1000] Hz (got %g)", i + 1, k->rate);
        NEED(isfinite(k->noise) && k->noise >= 0, "cameras[%d].noise must be >= 0", i + 1);
        NEED(isfinite(k->quantum) && k->quantum >= 0, "cameras[%d].quantum must be >= 0", i + 1);
    }
    NEED(isfinite(c->imu.rate) && c->imu.rate > 0 && c->imu.rate <= 1000,
         "imu.rate must be in (0, 1000] Hz (got %g)", c->imu.rate);
    NONNEG(c->imu.transition, "imu.transition");
    NONNEG(c->imu.noise, "imu.noise");
    NONNEG(c->imu.rate_noise, "imu.rate_noise");

    NONNEG(c->launcher.spin_up, "launcher.spin_up");
    NONNEG(c->launcher.reload, "launcher.reload");
    NEED(c->launcher.balls >= 0 && c->launcher.balls <= TYCHO_SIM_MAX_BALLS,
         "launcher.balls must be in 0..%d (got %d)", TYCHO_SIM_MAX_BALLS, c->launcher.balls);
    NONNEG(c->launcher.range, "launcher.range");
    NEED(isfinite(c->launcher.angle) && c->launcher.angle >= 0 && c->launcher.angle <= M_PI,
         "launcher.angle must be in [0, pi] rad (got %g)", c->launcher.angle);
    return TYCHO_OK;
}

/* A cell is solid when lethal or unknown; outside the grid is solid too. */
static bool disc_hits(const tycho_grid *g, double x, double y, double r)
{
    if (!isfinite(x) || !isfinite(y)) return true;
    double mx, my;
    tycho_grid_world_to_map(g, x, y, &mx, &my);
    double rc = r / tycho_grid_resolution(g), rc2 = rc * rc;
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    /* off the map altogether (and before any float -> int conversion, which
     * would overflow for a start at x = 1e10): outside is solid */
    if (!(mx - rc >= -1 && my - rc >= -1 && mx + rc <= w + 1 && my + rc <= h + 1)) return true;
    const uint8_t *cells = tycho_grid_cells_const(g);
    int cx0 = (int)floor(mx - rc), cx1 = (int)floor(mx + rc);
    int cy0 = (int)floor(my - rc), cy1 = (int)floor(my + rc);
    for (int cy = cy0; cy <= cy1; cy++) {
        double dy = my < cy ? cy - my : (my > cy + 1 ? my - (cy + 1) : 0);
        for (int cx = cx0; cx <= cx1; cx++) {
            if (tycho_grid_in_bounds_wh(w, h, cx, cy) &&
                cells[(size_t)cy * w + cx] < TYCHO_COST_LETHAL)
                continue;
            double dx = mx < cx ? cx - mx : (mx > cx + 1 ? mx - (cx + 1) : 0);
            /* strict: a disc exactly touching a wall is not overlapping it */
            if (dx * dx + dy * dy < rc2) return true;
        }
    }
    return false;
}

bool tycho_sim_collides(const tycho_sim *s, double x, double y)
{
    return disc_hits(s->truth, x, y, s->cfg.robot.radius);
}

static tycho_pose2 mount(tycho_pose2 p, double x, double y, double yaw)
{
    double c = cos(p.yaw), sn = sin(p.yaw);
    tycho_pose2 q = {p.x + c * x - sn * y, p.y + sn * x + c * y, tycho_angle_wrap(p.yaw + yaw)};
    return q;
}

/* Is sample `*next` of a schedule due at time t? Then *k gets the newest due
 * sample number (older ones are skipped when one tick covers several). */
static bool sched_due(schedule *sc, double t, uint64_t *k)
{
    if (t + TIME_EPS < (double)sc->next / sc->rate) return false;
    double newest = floor((t + TIME_EPS) * sc->rate);
    uint64_t last = newest > (double)sc->next ? (uint64_t)newest : sc->next;
    *k = last;
    sc->next = last + 1;
    return true;
}

/* Would this schedule have another sample by t_end? Then computing the
 * current one is wasted: it is overwritten before anyone can read it. */
static bool sched_superseded(const schedule *sc, double t_end)
{
    return t_end + TIME_EPS >= (double)sc->next / sc->rate;
}

static void sample_scan(tycho_sim *s, uint64_t k)
{
    tycho_rng rng;
    tycho_rng_seed(&rng, tycho_rng_mix(s->cfg.seed, STREAM_LIDAR, k));
    const tycho_sim_lidar *l = &s->cfg.lidar;
    tycho_sim_lidar_cast(s->rays, mount(s->pose, l->x, l->y, 0), l, l->noise > 0 ? &rng : NULL,
                         s->scan.ranges);
    s->scan_meta.stamp = s->t;
    s->scan_meta.seq = k;
    s->scan_fresh = true;
}

static void sample_thermal(tycho_sim *s, int i, uint64_t k)
{
    tycho_rng rng;
    tycho_rng_seed(&rng, tycho_rng_mix(s->cfg.seed, STREAM_CAMERA + (uint64_t)i, k));
    const tycho_sim_camera *cam = &s->cfg.cameras[i];
    tycho_sim_thermal_render(s->rays, s->res, s->pose, cam, s->sources, s->cfg.n_sources,
                             s->cfg.ambient, cam->noise > 0 ? &rng : NULL, s->thermal[i]);
    s->frame_meta[i].stamp = s->t;
    s->frame_meta[i].seq = k;
    s->thermal_fresh[i] = true;
}

static void sample_imu(tycho_sim *s, uint64_t k)
{
    tycho_rng rng;
    tycho_rng_seed(&rng, tycho_rng_mix(s->cfg.seed, STREAM_IMU, k));
    const tycho_sim_imu *p = &s->cfg.imu;
    double pitch, roll;
    tycho_sim_ramp_attitude(s->ramps, s->cfg.n_ramps, p->transition, s->pose, &pitch, &roll);
    s->imu.pitch = pitch + (p->noise > 0 ? p->noise * tycho_rng_normal(&rng) : 0);
    s->imu.roll = roll + (p->noise > 0 ? p->noise * tycho_rng_normal(&rng) : 0);
    s->imu.yaw_rate = s->act_w * (1.0 + p->gyro_scale) + p->gyro_bias +
                      (p->rate_noise > 0 ? p->rate_noise * tycho_rng_normal(&rng) : 0);
    s->imu.stamp = s->t;
    s->imu.seq = k;
}

/* Takes every sensor sample due at s->t, skipping the computation of those
 * that a later tick of the same step (ending at t_end) will replace. */
static void run_sensors(tycho_sim *s, double t_end)
{
    uint64_t k;
    if (sched_due(&s->scan_sched, s->t, &k) && !sched_superseded(&s->scan_sched, t_end))
        sample_scan(s, k);
    for (int i = 0; i < s->cfg.n_cameras; i++)
        if (sched_due(&s->cam_sched[i], s->t, &k) && !sched_superseded(&s->cam_sched[i], t_end))
            sample_thermal(s, i, k);
    if (sched_due(&s->imu_sched, s->t, &k) && !sched_superseded(&s->imu_sched, t_end))
        sample_imu(s, k);
}

tycho_sim *tycho_sim_new(const tycho_grid *truth, const tycho_sim_config *c, tycho_err *err)
{
    if (!truth || !c) {
        tycho_fail(err, TYCHO_EINVAL, "sim: truth grid and config required");
        return NULL;
    }
    if (tycho_sim_config_validate(c, err) != TYCHO_OK) return NULL;
    tycho_sim *s = calloc(1, sizeof *s);
    if (!s) goto oom;
    s->cfg = *c;
    s->truth = tycho_grid_copy(truth, err);
    if (!s->truth) {
        free(s);
        return NULL;
    }
    size_t ns = (size_t)c->n_sources, nr = (size_t)c->n_ramps, nb = (size_t)c->launcher.balls;
    s->sources = malloc((ns ? ns : 1) * sizeof *s->sources);
    s->ramps = malloc((nr ? nr : 1) * sizeof *s->ramps);
    s->engaged = calloc(ns ? ns : 1, sizeof *s->engaged);
    s->launches = calloc(nb ? nb : 1, sizeof *s->launches);
    if (!s->sources || !s->ramps || !s->engaged || !s->launches) {
        tycho_sim_free(s);
        goto oom;
    }
    tycho_ray_opts ro;
    tycho_sim_ray_opts(&ro);
    s->rays = tycho_raymap_new(s->truth, &ro, err);
    const tycho_sim_lidar *l = &c->lidar;
    if (!s->rays || tycho_scan_init(&s->scan, l->beams, l->angle_min, l->angle_increment,
                                    l->range_min, l->range_max, err) != TYCHO_OK) {
        tycho_sim_free(s);
        return NULL;
    }
    s->res = tycho_grid_resolution(s->truth);
    if (ns) memcpy(s->sources, c->sources, ns * sizeof *s->sources);
    if (nr) memcpy(s->ramps, c->ramps, nr * sizeof *s->ramps);
    s->cfg.sources = s->sources;
    s->cfg.ramps = s->ramps;

    resolve_errors(&s->cfg);
    s->exact_odom = s->cfg.robot.wheel_radius_error_left == 0 &&
                    s->cfg.robot.wheel_radius_error_right == 0 &&
                    s->cfg.robot.wheel_base_error == 0 && s->cfg.robot.encoder_ticks_per_m == 0 &&
                    s->cfg.robot.slip_ramp == 0 && s->cfg.robot.slip_contact == 0;
    s->pose = s->odom = c->start;
    s->pose.yaw = s->odom.yaw = tycho_angle_wrap(c->start.yaw);
    if (disc_hits(s->truth, s->pose.x, s->pose.y, c->robot.radius)) {
        tycho_fail(
            err, TYCHO_EINVAL,
            "start (%.3f, %.3f): the robot (radius %.3f m) overlaps a wall or leaves the map",
            c->start.x, c->start.y, c->robot.radius);
        tycho_sim_free(s);
        return NULL;
    }
    s->scan_meta.scan = &s->scan;
    s->scan_sched.rate = l->rate;
    for (int i = 0; i < c->n_cameras; i++) {
        s->cam_sched[i].rate = c->cameras[i].rate;
        s->frame_meta[i].temps = s->thermal[i];
    }
    s->imu_sched.rate = c->imu.rate;
    s->balls = c->launcher.balls;
    s->last_launch = -INFINITY;
    run_sensors(s, 0); /* sample 0 of everything, at t = 0 */
    return s;
oom:
    tycho_fail(err, TYCHO_ENOMEM, "sim: out of memory");
    return NULL;
}

void tycho_sim_free(tycho_sim *s)
{
    if (!s) return;
    tycho_grid_free(s->truth);
    tycho_raymap_free(s->rays);
    tycho_scan_free(&s->scan);
    free(s->sources);
    free(s->ramps);
    free(s->engaged);
    free(s->launches);
    free(s);
}

const tycho_sim_config *tycho_sim_config_get(const tycho_sim *s) { return &s->cfg; }
const tycho_grid *tycho_sim_truth(const tycho_sim *s) { return s->truth; }
const tycho_raymap *tycho_sim_raymap(const tycho_sim *s) { return s->rays; }

void tycho_sim_ray_opts(tycho_ray_opts *o)
{
    tycho_ray_opts_defaults(o);
    o->threshold = TYCHO_COST_LETHAL;
    o->unknown_blocked = true;
}
double tycho_sim_time(const tycho_sim *s) { return s->t; }
tycho_pose2 tycho_sim_pose(const tycho_sim *s) { return s->pose; }
tycho_pose2 tycho_sim_odom(const tycho_sim *s) { return s->odom; }
int tycho_sim_collisions(const tycho_sim *s) { return s->collisions; }
bool tycho_sim_in_contact(const tycho_sim *s) { return s->contact; }

void tycho_sim_set_cmd(tycho_sim *s, double v, double w)
{
    if (!isfinite(v)) v = 0;
    if (!isfinite(w)) w = 0;
    s->cmd_v = fmax(-s->cfg.robot.max_v, fmin(s->cfg.robot.max_v, v));
    s->cmd_w = fmax(-s->cfg.robot.max_w, fmin(s->cfg.robot.max_w, w));
}

void tycho_sim_get_cmd(const tycho_sim *s, double *v, double *w)
{
    *v = s->cmd_v;
    *w = s->cmd_w;
}

void tycho_sim_velocity(const tycho_sim *s, double *v, double *w)
{
    *v = s->act_v;
    *w = s->act_w;
}

tycho_status tycho_sim_teleport(tycho_sim *s, tycho_pose2 p, tycho_err *err)
{
    if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.yaw))
        return tycho_fail(err, TYCHO_EINVAL, "sim: teleport pose must be finite");
    if (disc_hits(s->truth, p.x, p.y, s->cfg.robot.radius))
        return tycho_fail(err, TYCHO_ERANGE, "sim: (%.3f, %.3f) overlaps a wall", p.x, p.y);
    p.yaw = tycho_angle_wrap(p.yaw);
    s->pose = s->odom = p;
    s->contact = false;
    return TYCHO_OK;
}

/* Fills the error fields left NAN: drawn from the preset's sigmas with the
 * world's seed (one robot, one set of errors), or 0 without a preset. */
static void resolve_errors(tycho_sim_config *c)
{
    tycho_sim_robot *r = &c->robot;
    bool tb3 = r->errors == TYCHO_SIM_ERRORS_TURTLEBOT3;
    tycho_rng rng;
    tycho_rng_seed(&rng, tycho_rng_mix(c->seed, STREAM_ERRORS, 0));
    /* always draw, in a fixed order, so one field given by hand does not
     * change the others */
    double d_l = TYCHO_SIM_TB3_RADIUS_SIGMA * tycho_rng_normal(&rng);
    double d_r = TYCHO_SIM_TB3_RADIUS_SIGMA * tycho_rng_normal(&rng);
    double d_b = TYCHO_SIM_TB3_BASE_SIGMA * tycho_rng_normal(&rng);
    double d_gb = TYCHO_SIM_TB3_GYRO_BIAS_SIGMA * tycho_rng_normal(&rng);
    double d_gs = TYCHO_SIM_TB3_GYRO_SCALE_SIGMA * tycho_rng_normal(&rng);
#define PICK(field, drawn)                                                                         \
    if (isnan(field)) field = tb3 ? (drawn) : 0.0
    PICK(r->wheel_radius_error_left, d_l);
    PICK(r->wheel_radius_error_right, d_r);
    PICK(r->wheel_base_error, d_b);
    PICK(r->encoder_ticks_per_m, TYCHO_SIM_TB3_TICKS_PER_M);
    PICK(r->slip_ramp, TYCHO_SIM_TB3_SLIP_RAMP);
    PICK(r->slip_contact, TYCHO_SIM_TB3_SLIP_CONTACT);
    PICK(c->imu.gyro_bias, d_gb);
    PICK(c->imu.gyro_scale, d_gs);
#undef PICK
}

void tycho_sim_errors(const tycho_sim *s, tycho_sim_robot *robot, tycho_sim_imu *imu)
{
    if (robot) *robot = s->cfg.robot;
    if (imu) *imu = s->cfg.imu;
}

/* The odometry of one tick from the encoders: the wheels turned as
 * commanded (v, w over h seconds, `turned` of it when a wall stopped the
 * robot and the wheels stopped with it), each counted with its radius
 * error, quantised to whole counts, and turned back into (v, w) with the
 * believed wheel base. */
static void wheel_odometry(tycho_sim *s, double v, double w, double h, double *ov, double *ow)
{
    const tycho_sim_robot *r = &s->cfg.robot;
    double half = 0.5 * r->wheel_base;
    double dl = (v - w * half) * h * (1.0 + r->wheel_radius_error_left);
    double dr = (v + w * half) * h * (1.0 + r->wheel_radius_error_right);
    double q = r->encoder_ticks_per_m;
    if (q > 0) {
        s->enc_l += dl * q;
        s->enc_r += dr * q;
        double nl = floor(s->enc_l), nr = floor(s->enc_r);
        dl = (nl - s->seen_l) / q;
        dr = (nr - s->seen_r) / q;
        s->seen_l = nl;
        s->seen_r = nr;
    }
    *ov = 0.5 * (dl + dr) / h;
    *ow = (dr - dl) / (r->wheel_base * (1.0 + r->wheel_base_error)) / h;
}

/* One physics tick of length h. */
static void tick(tycho_sim *s, double h)
{
    double v = s->cmd_v, w = s->cmd_w, frac = 1.0;
    double wheel_v = v, wheel_w = w; /* what the wheels do: the encoders count it */
    if (!s->exact_odom && s->cfg.robot.slip_ramp > 0 && s->cfg.n_ramps > 0) {
        double pitch, roll;
        tycho_sim_ramp_attitude(s->ramps, s->cfg.n_ramps, s->cfg.imu.transition, s->pose, &pitch,
                                &roll);
        if (fabs(pitch) + fabs(roll) > 1e-3) { /* on a slope: the tyres slip */
            v *= 1.0 - s->cfg.robot.slip_ramp;
            w *= 1.0 - s->cfg.robot.slip_ramp;
        }
    }
    tycho_pose2 next = tycho_unicycle_step(s->pose, v, w, h);
    if (v != 0 && disc_hits(s->truth, next.x, next.y, s->cfg.robot.radius)) {
        /* Bisect the arc for the last free point; 17 halvings of a tick's
         * travel (<= 2.2 mm at 0.22 m/s and 10 ms) is finer than 0.1 mm. */
        double lo = 0, hi = 1;
        for (int i = 0; i < 17; i++) {
            double mid = 0.5 * (lo + hi);
            tycho_pose2 q = tycho_unicycle_step(s->pose, v, w, h * mid);
            if (disc_hits(s->truth, q.x, q.y, s->cfg.robot.radius)) hi = mid;
            else lo = mid;
        }
        frac = lo;
        next = tycho_unicycle_step(s->pose, v, w, h * frac);
        if (!s->contact) s->collisions++;
        s->contact = true;
        s->cmd_v = s->cmd_w = 0;
    } else if (v != 0) {
        s->contact = false;
    }
    s->pose = next;

    double ov = v, ow = w, oh = h * frac;
    const tycho_sim_robot *r = &s->cfg.robot;
    if (!s->exact_odom) {
        /* the wheels turned for the part of the tick the robot moved, and
         * against the wall for slip_contact of the rest */
        double turned = frac + (1.0 - frac) * r->slip_contact;
        wheel_odometry(s, wheel_v * turned, wheel_w * turned, h, &ov, &ow);
        oh = h;
    }
    if ((r->odom_noise_v > 0 || r->odom_noise_w > 0) && (v != 0 || w != 0)) {
        tycho_rng rng;
        tycho_rng_seed(&rng, tycho_rng_mix(s->cfg.seed, STREAM_ODOM, s->ticks));
        ov *= 1.0 + r->odom_noise_v * tycho_rng_normal(&rng);
        ow *= 1.0 + r->odom_noise_w * tycho_rng_normal(&rng);
    }
    s->odom = tycho_unicycle_step(s->odom, ov, ow, oh);
    if (frac < 1.0) v = w = 0;
    s->act_v = v;
    s->act_w = w;
    s->ticks++;
}

tycho_status tycho_sim_step(tycho_sim *s, double dt, tycho_err *err)
{
    if (!(isfinite(dt) && dt > 0 && dt <= 3600))
        return tycho_fail(err, TYCHO_EINVAL, "sim: step dt must be in (0, 3600] s (got %g)", dt);
    double t0 = s->t, t_end = t0 + dt;
    double n = ceil(dt / s->cfg.robot.tick - 1e-9);
    if (n < 1) n = 1;
    double h = dt / n;
    for (double i = 1; i <= n; i++) {
        tick(s, h);
        /* times from t0 (not summed) so the last tick ends exactly at t_end */
        s->t = i == n ? t_end : t0 + dt * (i / n);
        run_sensors(s, t_end);
    }
    return TYCHO_OK;
}

/* --- sensors ------------------------------------------------------------- */

bool tycho_sim_last_scan(const tycho_sim *s, tycho_sim_scan *out)
{
    *out = s->scan_meta;
    return true;
}

bool tycho_sim_take_scan(tycho_sim *s, tycho_sim_scan *out)
{
    *out = s->scan_meta;
    bool fresh = s->scan_fresh;
    s->scan_fresh = false;
    return fresh;
}

bool tycho_sim_last_thermal(const tycho_sim *s, int camera, tycho_sim_frame *out)
{
    if (camera < 0 || camera >= s->cfg.n_cameras) return false;
    *out = s->frame_meta[camera];
    return true;
}

bool tycho_sim_take_thermal(tycho_sim *s, int camera, tycho_sim_frame *out)
{
    if (camera < 0 || camera >= s->cfg.n_cameras) return false;
    *out = s->frame_meta[camera];
    bool fresh = s->thermal_fresh[camera];
    s->thermal_fresh[camera] = false;
    return fresh;
}

void tycho_sim_imu_read(const tycho_sim *s, tycho_sim_imu_sample *out) { *out = s->imu; }

/* --- launcher ------------------------------------------------------------ */

void tycho_sim_launcher_spin(tycho_sim *s, bool on)
{
    if (on && !s->spinning) s->spin_start = s->t;
    s->spinning = on;
}

double tycho_sim_launcher_spin_left(const tycho_sim *s)
{
    if (!s->spinning) return INFINITY;
    return fmax(0.0, s->spin_start + s->cfg.launcher.spin_up - s->t);
}

int tycho_sim_launcher_balls(const tycho_sim *s) { return s->balls; }

const char *tycho_launch_status_name(tycho_launch_status st)
{
    switch (st) {
    case TYCHO_LAUNCH_FIRED:
        return "fired";
    case TYCHO_LAUNCH_NOT_SPINNING:
        return "not spinning";
    case TYCHO_LAUNCH_SPINNING_UP:
        return "spinning up";
    case TYCHO_LAUNCH_RELOADING:
        return "reloading";
    case TYCHO_LAUNCH_EMPTY:
        return "empty";
    }
    return "?";
}

tycho_launch_status tycho_sim_launcher_feed(tycho_sim *s, tycho_sim_launch *out)
{
    memset(out, 0, sizeof *out);
    out->engaged = out->nearest = -1;
    out->t = s->t;
    out->pose = s->pose;
    tycho_launch_status st = TYCHO_LAUNCH_FIRED;
    double left = tycho_sim_launcher_spin_left(s);
    double reload_left = s->last_launch + s->cfg.launcher.reload - s->t;
    if (s->balls <= 0) st = TYCHO_LAUNCH_EMPTY;
    else if (!s->spinning) st = TYCHO_LAUNCH_NOT_SPINNING;
    else if (left > TIME_EPS) st = TYCHO_LAUNCH_SPINNING_UP;
    else if (reload_left > TIME_EPS) st = TYCHO_LAUNCH_RELOADING;
    switch (st) {
    case TYCHO_LAUNCH_FIRED:
        break;
    case TYCHO_LAUNCH_EMPTY:
        snprintf(out->reason, sizeof out->reason, "no balls left");
        break;
    case TYCHO_LAUNCH_NOT_SPINNING:
        snprintf(out->reason, sizeof out->reason, "flywheels are not spinning");
        break;
    case TYCHO_LAUNCH_SPINNING_UP:
        snprintf(out->reason, sizeof out->reason, "flywheels spinning up (%.2f s left)", left);
        break;
    case TYCHO_LAUNCH_RELOADING:
        snprintf(out->reason, sizeof out->reason, "reloading (%.2f s left)", reload_left);
        break;
    }
    if (st != TYCHO_LAUNCH_FIRED) return st;

    tycho_sim_judge(s->rays, s->res, s->sources, s->cfg.n_sources, &s->cfg.launcher, s->pose, out);
    out->t = s->t;
    s->balls--;
    s->last_launch = s->t;
    if (out->engaged >= 0) s->engaged[out->engaged] = true;
    s->launches[s->n_launches++] = *out;
    return st;
}

const tycho_sim_launch *tycho_sim_launches(const tycho_sim *s, int *n)
{
    *n = s->n_launches;
    return s->launches;
}

const bool *tycho_sim_engaged(const tycho_sim *s) { return s->engaged; }
