/* Simulator: sensor geometry, kinematics, collisions, IMU on ramps, the
 * launcher's timing and judging, determinism. */
#include "check.h"
#include "tycho/sim.h"

#include <math.h>
#include <string.h>

#define DEG (M_PI / 180.0)

/* A w x h cell room at 0.05 m with a one-cell wall all round. */
static tycho_grid *room(int w, int h)
{
    tycho_pose2 o = {0, 0, 0};
    tycho_grid *g = tycho_grid_new(w, h, 0.05, o, TYCHO_COST_FREE, NULL);
    for (int x = 0; x < w; x++) {
        tycho_grid_set(g, x, 0, TYCHO_COST_LETHAL);
        tycho_grid_set(g, x, h - 1, TYCHO_COST_LETHAL);
    }
    for (int y = 0; y < h; y++) {
        tycho_grid_set(g, 0, y, TYCHO_COST_LETHAL);
        tycho_grid_set(g, w - 1, y, TYCHO_COST_LETHAL);
    }
    return g;
}

static void wall_x(tycho_grid *g, int cx, int cy0, int cy1)
{
    for (int y = cy0; y <= cy1; y++) tycho_grid_set(g, cx, y, TYCHO_COST_LETHAL);
}

/* Everything exact: no sensor or odometry noise, no quantisation. */
static void quiet(tycho_sim_config *c)
{
    tycho_sim_config_defaults(c);
    c->lidar.noise = 0;
    for (int i = 0; i < TYCHO_SIM_MAX_CAMERAS; i++) {
        c->cameras[i].noise = 0;
        c->cameras[i].quantum = 0;
    }
    c->imu.noise = c->imu.rate_noise = 0;
}

static tycho_sim *make(tycho_grid *g, const tycho_sim_config *c)
{
    tycho_err err = {0};
    tycho_sim *s = tycho_sim_new(g, c, &err);
    CHECK_MSG(s != NULL, "%s", err.msg);
    return s;
}

static void step(tycho_sim *s, double dt)
{
    tycho_err err = {0};
    CHECK_MSG(tycho_sim_step(s, dt, &err) == TYCHO_OK, "%s", err.msg);
}

static void test_lidar(void)
{
    tycho_grid *g = room(100, 100); /* 5 x 5 m; inner faces at 0.05 and 4.95 */
    wall_x(g, 80, 1, 98);           /* wall face at x = 4.0 */
    tycho_sim_config c;
    quiet(&c);
    c.start = (tycho_pose2){1.0, 2.5, 0};
    tycho_sim *s = make(g, &c);
    tycho_sim_scan sc;
    CHECK(tycho_sim_take_scan(s, &sc)); /* sample 0 exists at t = 0 */
    CHECK(sc.seq == 0 && sc.stamp == 0 && sc.scan->count == 360);
    CHECK_NEAR(sc.scan->angle_increment, 1.0 * DEG, 1e-12);
    CHECK_NEAR(sc.scan->ranges[0], 3.0, 1e-5);    /* ahead: wall face at x = 4.0 */
    CHECK_NEAR(sc.scan->ranges[180], 0.95, 1e-5); /* behind: x = 0.05 */
    CHECK_NEAR(sc.scan->ranges[90], 2.45, 1e-5);  /* left: y = 4.95 */
    CHECK_NEAR(sc.scan->ranges[270], 2.45, 1e-5);
    CHECK_NEAR(sc.scan->ranges[45], 2.45 * sqrt(2.0), 1e-4); /* corner at (3.45, 4.95) */
    CHECK(!tycho_sim_take_scan(s, &sc));                     /* consumed */
    CHECK(tycho_sim_last_scan(s, &sc) && sc.seq == 0);

    /* 5 Hz: nothing new at 0.1 s, sample 1 at 0.2 s; odd dt takes the first
     * tick at or after the sample time */
    step(s, 0.1);
    CHECK(!tycho_sim_take_scan(s, &sc));
    step(s, 0.1);
    CHECK(tycho_sim_take_scan(s, &sc) && sc.seq == 1);
    CHECK_NEAR(sc.stamp, 0.2, 1e-12);
    for (int i = 0; i < 7; i++) step(s, 0.03); /* t = 0.41 */
    CHECK(tycho_sim_take_scan(s, &sc) && sc.seq == 2);
    CHECK(sc.stamp >= 0.4 - 1e-9 && sc.stamp < 0.41 + 1e-9);
    /* a long step keeps only the newest */
    step(s, 1.0);
    CHECK(tycho_sim_take_scan(s, &sc) && sc.seq == 7);

    /* pure model (REP-117): beyond range_max reads +INFINITY, closer than
     * range_min -INFINITY, so a mapper never clears through a near wall */
    const tycho_raymap *rm = tycho_sim_raymap(s);
    float r[360];
    tycho_sim_lidar_cast(rm, (tycho_pose2){0.3, 2.5, 0}, &c.lidar, NULL, r);
    CHECK(isinf(r[0]) && r[0] > 0); /* 3.7 m */
    CHECK_NEAR(r[180], 0.25, 1e-5);
    tycho_sim_lidar_cast(rm, (tycho_pose2){0.15, 2.5, 0}, &c.lidar, NULL, r);
    CHECK(isinf(r[180]) && r[180] < 0); /* 0.10 m < 0.12 */
    /* noise: unbiased with about the configured sigma */
    tycho_sim_lidar lp = c.lidar;
    lp.noise = 0.01;
    tycho_rng rng;
    tycho_rng_seed(&rng, 7);
    double sum = 0, sum2 = 0;
    int n = 0;
    for (int k = 0; k < 50; k++) {
        tycho_sim_lidar_cast(rm, (tycho_pose2){1.0, 2.5, 0}, &lp, &rng, r);
        double e = r[0] - 3.0;
        sum += e;
        sum2 += e * e;
        n++;
    }
    CHECK_NEAR(sum / n, 0.0, 0.005);
    CHECK_NEAR(sqrt(sum2 / n), 0.01, 0.004);
    tycho_sim_free(s);
    tycho_grid_free(g);
}

static tycho_sim_camera exact_camera(double yaw)
{
    tycho_sim_config c;
    quiet(&c);
    tycho_sim_camera k = c.cameras[0];
    k.yaw = yaw;
    return k;
}

static double frac(double a0, double a1, double b0, double b1, double w)
{
    double lo = fmax(a0, b0), hi = fmin(a1, b1);
    return hi > lo ? (hi - lo) / w : 0;
}

static void test_thermal(void)
{
    tycho_grid *g = room(100, 100);
    tycho_ray_opts o;
    tycho_sim_ray_opts(&o);
    tycho_raymap *rm = tycho_raymap_new(g, &o, NULL);
    tycho_sim_camera cam = exact_camera(0);
    float t[64];
    tycho_heat_source src;
    tycho_heat_source_defaults(&src);
    src.temp = 62.0; /* 40 above ambient */

    /* 1 m ahead at bearing +3.75 deg: the middle of column 3 */
    tycho_pose2 robot = {1.0, 2.5, 0};
    src.x = 1.0 + cos(3.75 * DEG);
    src.y = 2.5 + sin(3.75 * DEG);
    tycho_sim_thermal_render(rm, 0.05, robot, &cam, &src, 1, 22.0, NULL, t);
    double half = asin(0.1) / DEG, el = atan2(0.15, 0.9) / DEG; /* degrees */
    double fx2 = frac(3.75 - half, 3.75 + half, 7.5, 15, 7.5);
    double fy2 = frac(-el, el, 7.5, 15, 7.5);
    CHECK_NEAR(t[3 * 8 + 3], 62.0, 1e-4); /* row 3, column 3 fully covered */
    CHECK_NEAR(t[4 * 8 + 3], 62.0, 1e-4);
    CHECK_NEAR(t[3 * 8 + 2], 22.0 + 40.0 * fx2, 1e-4);
    CHECK_NEAR(t[3 * 8 + 4], 22.0 + 40.0 * fx2, 1e-4); /* symmetric about 3.75 */
    CHECK_NEAR(t[2 * 8 + 3], 22.0 + 40.0 * fy2, 1e-4);
    CHECK_NEAR(t[2 * 8 + 2], 22.0 + 40.0 * fx2 * fy2, 1e-4);
    CHECK_NEAR(t[0], 22.0, 1e-9);
    CHECK_NEAR(t[7 * 8 + 7], 22.0, 1e-9);

    /* twice as far: the fill, and so the rise, falls */
    src.x = 1.0 + 2.0 * cos(3.75 * DEG);
    src.y = 2.5 + 2.0 * sin(3.75 * DEG);
    tycho_sim_thermal_render(rm, 0.05, robot, &cam, &src, 1, 22.0, NULL, t);
    double half2 = asin(0.05) / DEG, el2 = atan2(0.15, 1.9) / DEG;
    double fill = frac(3.75 - half2, 3.75 + half2, 0, 7.5, 7.5) * frac(-el2, el2, 0, 7.5, 7.5);
    CHECK_NEAR(t[3 * 8 + 3], 22.0 + 40.0 * fill, 1e-4);
    CHECK(t[3 * 8 + 3] < 22.0 + 40.0 * 0.5);

    /* to the left (bearing +18.75): column 1, the second from the left */
    src.x = 1.0 + cos(18.75 * DEG);
    src.y = 2.5 + sin(18.75 * DEG);
    tycho_sim_thermal_render(rm, 0.05, robot, &cam, &src, 1, 22.0, NULL, t);
    int hot = 0;
    for (int i = 1; i < 64; i++)
        if (t[i] > t[hot]) hot = i;
    CHECK(hot % 8 == 1);
    CHECK_NEAR(t[3 * 8 + 1], 62.0, 1e-4);
    CHECK_NEAR(t[3 * 8 + 6], 22.0, 1e-9);

    /* the robot's left camera (+30 deg) sees a source at +30 deg on its
     * axis; the right one (-30 deg) does not see it */
    src.x = 1.0 + cos(30 * DEG);
    src.y = 2.5 + sin(30 * DEG);
    tycho_sim_config c;
    tycho_sim_config_defaults(&c);
    tycho_sim_thermal_render(rm, 0.05, robot, &c.cameras[0], &src, 1, 22.0, NULL, t);
    CHECK(t[3 * 8 + 3] >= 40.0 && t[3 * 8 + 4] >= 40.0); /* straddles columns 3 and 4 */
    CHECK_NEAR(fmod(t[3 * 8 + 3], 0.25), 0.0, 1e-6);     /* quantised */
    tycho_sim_thermal_render(rm, 0.05, robot, &c.cameras[1], &src, 1, 22.0, NULL, t);
    for (int i = 0; i < 64; i++) CHECK_NEAR(t[i], 22.0, 1e-9);
    tycho_raymap_free(rm);

    /* occlusion: a wall between the lens and the source hides it fully;
     * moving the source so the wall's end cuts its silhouette dims it */
    wall_x(g, 40, 30, 70); /* x in [2.0, 2.05], y in [1.5, 3.55] */
    rm = tycho_raymap_new(g, &o, NULL);
    src.x = 3.0;
    src.y = 2.5;
    tycho_sim_thermal_render(rm, 0.05, robot, &cam, &src, 1, 22.0, NULL, t);
    for (int i = 0; i < 64; i++) CHECK_NEAR(t[i], 22.0, 1e-9);
    CHECK(tycho_sim_source_visibility(rm, 0.05, 1.0, 2.5, &src) == 0.0);
    src.y = 4.6; /* the sight line passes the wall's end at (2.0, 3.55) */
    double vis = tycho_sim_source_visibility(rm, 0.05, 1.0, 2.5, &src);
    CHECK(vis > 0.0 && vis < 1.0);
    src.y = 4.8;
    CHECK(tycho_sim_source_visibility(rm, 0.05, 1.0, 2.5, &src) == 1.0);
    /* a source the map draws as an obstacle does not occlude itself */
    for (int y = 78; y <= 82; y++)
        for (int x = 68; x <= 72; x++) tycho_grid_set(g, x, y, TYCHO_COST_LETHAL);
    tycho_raymap_free(rm);
    rm = tycho_raymap_new(g, &o, NULL);
    src.x = 3.525;
    src.y = 4.025;
    CHECK(tycho_sim_source_visibility(rm, 0.05, 3.525, 2.5, &src) == 1.0);
    tycho_raymap_free(rm);
    tycho_grid_free(g);
}

static void test_kinematics(void)
{
    tycho_grid *g = room(200, 200); /* 10 x 10 m */
    tycho_sim_config c;
    quiet(&c);
    c.start = (tycho_pose2){2.0, 5.0, 0};
    tycho_sim *s = make(g, &c);
    double v, w;
    tycho_sim_set_cmd(s, 1.0, -5.0);
    tycho_sim_get_cmd(s, &v, &w);
    CHECK(v == 0.22 && w == -2.84);
    tycho_sim_set_cmd(s, NAN, 0.5);
    tycho_sim_get_cmd(s, &v, &w);
    CHECK(v == 0 && w == 0.5);

    tycho_sim_set_cmd(s, 0.2, 0);
    step(s, 5.0);
    tycho_pose2 p = tycho_sim_pose(s);
    CHECK_NEAR(p.x, 3.0, 1e-9);
    CHECK_NEAR(p.y, 5.0, 1e-12);
    CHECK_NEAR(tycho_sim_time(s), 5.0, 1e-12);

    /* a quarter circle of radius 0.2 m, counter-clockwise */
    tycho_sim_set_cmd(s, 0.2, 1.0);
    for (int i = 0; i < 157; i++) step(s, 0.01);
    step(s, M_PI / 2 - 1.57);
    p = tycho_sim_pose(s);
    CHECK_NEAR(p.x, 3.2, 1e-9);
    CHECK_NEAR(p.y, 5.2, 1e-9);
    CHECK_NEAR(p.yaw, M_PI / 2, 1e-9);
    tycho_sim_velocity(s, &v, &w);
    CHECK(v == 0.2 && w == 1.0);
    tycho_pose2 od = tycho_sim_odom(s);
    CHECK(od.x == p.x && od.y == p.y && od.yaw == p.yaw); /* exact odometry by default */
    CHECK(tycho_sim_collisions(s) == 0);

    tycho_err err = {0};
    CHECK(tycho_sim_step(s, 0, &err) == TYCHO_EINVAL);
    CHECK(tycho_sim_step(s, NAN, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "dt") != NULL);
    tycho_sim_free(s);

    /* noisy odometry drifts from the truth, deterministically */
    c.robot.odom_noise_v = 0.05;
    c.robot.odom_noise_w = 0.05;
    c.start = (tycho_pose2){2.0, 5.0, 0};
    s = make(g, &c);
    tycho_sim_set_cmd(s, 0.2, 0.3);
    step(s, 10.0);
    p = tycho_sim_pose(s);
    od = tycho_sim_odom(s);
    double drift = hypot(p.x - od.x, p.y - od.y);
    CHECK(drift > 1e-5 && drift < 0.2);
    tycho_sim_free(s);
    tycho_grid_free(g);
}

static void test_collision(void)
{
    tycho_grid *g = room(100, 100);
    wall_x(g, 80, 1, 98); /* face at x = 4.0 */
    tycho_sim_config c;
    quiet(&c);
    c.start = (tycho_pose2){3.0, 2.5, 0};
    tycho_sim *s = make(g, &c);
    tycho_sim_set_cmd(s, 0.22, 0);
    step(s, 10.0);
    tycho_pose2 p = tycho_sim_pose(s);
    CHECK_NEAR(p.x, 4.0 - 0.105, 2e-4); /* stopped touching the wall */
    CHECK(p.x < 4.0 - 0.105);
    CHECK(tycho_sim_collisions(s) == 1);
    CHECK(tycho_sim_in_contact(s));
    double v, w;
    tycho_sim_get_cmd(s, &v, &w);
    CHECK(v == 0 && w == 0); /* command zeroed */
    tycho_sim_velocity(s, &v, &w);
    CHECK(v == 0 && w == 0);
    /* pushing on every tick stays one collision */
    for (int i = 0; i < 50; i++) {
        tycho_sim_set_cmd(s, 0.22, 0.1);
        step(s, 0.05);
    }
    CHECK(tycho_sim_collisions(s) == 1);
    CHECK(tycho_sim_pose(s).x < 4.0 - 0.105);
    /* turning in place is never blocked */
    double yaw0 = tycho_sim_pose(s).yaw;
    tycho_sim_set_cmd(s, 0, 1.0);
    step(s, 1.0);
    CHECK_NEAR(tycho_sim_pose(s).yaw, yaw0 + 1.0, 1e-9);
    CHECK(tycho_sim_collisions(s) == 1);
    /* back off, drive in again: a second collision */
    tycho_sim_teleport(s, (tycho_pose2){tycho_sim_pose(s).x, 2.5, 0}, NULL);
    tycho_sim_set_cmd(s, -0.1, 0);
    step(s, 1.0);
    CHECK(!tycho_sim_in_contact(s));
    tycho_sim_set_cmd(s, 0.2, 0);
    step(s, 2.0);
    CHECK(tycho_sim_collisions(s) == 2);
    CHECK(tycho_sim_odom(s).x == tycho_sim_pose(s).x); /* odometry saw no phantom motion */

    /* start or teleport into a wall fails */
    tycho_err err = {0};
    c.start = (tycho_pose2){3.95, 2.5, 0};
    CHECK(tycho_sim_new(g, &c, &err) == NULL);
    CHECK(strstr(err.msg, "start") != NULL);
    CHECK(tycho_sim_teleport(s, (tycho_pose2){0.1, 2.5, 0}, &err) != TYCHO_OK);
    CHECK(tycho_sim_collides(s, 0.1, 2.5) && !tycho_sim_collides(s, 2.0, 2.5));
    CHECK(tycho_sim_collides(s, -3.0, 2.5)); /* outside the map */
    tycho_sim_free(s);
    tycho_grid_free(g);
}

static void test_imu(void)
{
    tycho_grid *g = room(100, 100);
    tycho_ramp ramps[2] = {{2.0, 1.0, 3.0, 2.0, 0.2, NAN}, {2.0, 3.0, 3.0, 4.0, 0.2, 0.0}};
    tycho_sim_config c;
    quiet(&c);
    c.start = (tycho_pose2){1.0, 1.5, 0};
    c.ramps = ramps;
    c.n_ramps = 2;
    tycho_sim *s = make(g, &c);
    tycho_sim_imu_sample m;
    tycho_sim_imu_read(s, &m);
    CHECK(m.pitch == 0 && m.roll == 0 && m.seq == 0);
    /* drive onto the ramp at 0.2 m/s: the pitch rises smoothly at x = 2 */
    tycho_sim_set_cmd(s, 0.2, 0);
    double last = 0;
    bool monotone = true;
    for (int i = 0; i < 40; i++) { /* 8 s: x from 1.0 to 2.6 */
        step(s, 0.2);
        tycho_sim_imu_read(s, &m);
        if (m.pitch < last - 1e-12) monotone = false;
        last = m.pitch;
        double x = tycho_sim_pose(s).x;
        if (x < 1.95) CHECK(m.pitch == 0);
        if (x > 2.05) CHECK_NEAR(m.pitch, 0.2, 1e-12);
    }
    CHECK(monotone);
    CHECK_NEAR(m.yaw_rate, 0, 1e-12);
    double p, r;
    tycho_sim_ramp_attitude(ramps, 2, 0.1, (tycho_pose2){2.0, 1.5, 1.0}, &p, &r);
    CHECK_NEAR(p, 0.1, 1e-12); /* half way up the transition, any heading */
    /* a directed ramp: pitch and roll follow the heading */
    tycho_sim_ramp_attitude(ramps, 2, 0.1, (tycho_pose2){2.5, 3.5, 0}, &p, &r);
    CHECK_NEAR(p, 0.2, 1e-12);
    CHECK_NEAR(r, 0, 1e-12);
    tycho_sim_ramp_attitude(ramps, 2, 0.1, (tycho_pose2){2.5, 3.5, M_PI}, &p, &r);
    CHECK_NEAR(p, -0.2, 1e-12); /* driving down: nose down */
    tycho_sim_ramp_attitude(ramps, 2, 0.1, (tycho_pose2){2.5, 3.5, M_PI / 2}, &p, &r);
    CHECK_NEAR(p, 0, 1e-12);
    CHECK_NEAR(r, -0.2, 1e-12); /* uphill on the right: right side up */
    tycho_sim_ramp_attitude(ramps, 2, 0.1, (tycho_pose2){1.0, 3.5, 0}, &p, &r);
    CHECK(p == 0 && r == 0);
    /* yaw rate follows the actual turn */
    tycho_sim_set_cmd(s, 0, 1.5);
    step(s, 0.1);
    tycho_sim_imu_read(s, &m);
    CHECK_NEAR(m.yaw_rate, 1.5, 1e-12);
    tycho_sim_free(s);
    tycho_grid_free(g);
}

static void test_launcher(void)
{
    tycho_grid *g = room(200, 100); /* 10 x 5 m */
    wall_x(g, 100, 60, 98);         /* x in [5.0, 5.05], y >= 3.0 */
    tycho_heat_source src[2];
    tycho_heat_source_defaults(&src[0]);
    tycho_heat_source_defaults(&src[1]);
    src[0].x = 3.0;
    src[0].y = 1.0;
    src[1].x = 6.0;
    src[1].y = 4.0;
    tycho_sim_config c;
    quiet(&c);
    c.start = (tycho_pose2){1.6, 1.0, 0}; /* 1.4 m from source 1, facing it */
    c.sources = src;
    c.n_sources = 2;
    c.launcher.balls = 3;
    tycho_sim *s = make(g, &c);
    tycho_sim_launch l;
    CHECK(tycho_sim_launcher_feed(s, &l) == TYCHO_LAUNCH_NOT_SPINNING);
    CHECK(strstr(l.reason, "not spinning") != NULL);
    tycho_sim_launcher_spin(s, true);
    step(s, 0.5);
    CHECK(tycho_sim_launcher_feed(s, &l) == TYCHO_LAUNCH_SPINNING_UP);
    CHECK_NEAR(tycho_sim_launcher_spin_left(s), 0.5, 1e-9);
    step(s, 0.49);
    CHECK(tycho_sim_launcher_feed(s, &l) == TYCHO_LAUNCH_SPINNING_UP);
    step(s, 0.01); /* t = 1.0: at speed */
    CHECK(tycho_sim_launcher_feed(s, &l) == TYCHO_LAUNCH_FIRED);
    CHECK(l.engaged == 0 && l.t == tycho_sim_time(s));
    CHECK_NEAR(l.distance, 1.4, 1e-9);
    CHECK(tycho_sim_engaged(s)[0] && !tycho_sim_engaged(s)[1]);
    CHECK(tycho_sim_launcher_balls(s) == 2);
    CHECK(tycho_sim_launcher_feed(s, &l) == TYCHO_LAUNCH_RELOADING);
    step(s, 0.5);
    /* 1.6 m away: a miss */
    tycho_sim_teleport(s, (tycho_pose2){1.4, 1.0, 0}, NULL);
    CHECK(tycho_sim_launcher_feed(s, &l) == TYCHO_LAUNCH_FIRED);
    CHECK(l.engaged == -1 && l.nearest == 0);
    CHECK(strstr(l.reason, "m away") != NULL);
    /* stopping the flywheels means spinning up again */
    tycho_sim_launcher_spin(s, false);
    tycho_sim_launcher_spin(s, true);
    step(s, 0.6);
    CHECK(tycho_sim_launcher_feed(s, &l) == TYCHO_LAUNCH_SPINNING_UP);
    step(s, 0.4);
    CHECK(tycho_sim_launcher_feed(s, &l) == TYCHO_LAUNCH_FIRED);
    step(s, 1.0);
    CHECK(tycho_sim_launcher_feed(s, &l) == TYCHO_LAUNCH_EMPTY);
    int n;
    const tycho_sim_launch *all = tycho_sim_launches(s, &n);
    CHECK(n == 3 && all[0].engaged == 0 && all[1].engaged == -1);

    /* the judge alone: angle 14 vs 16 degrees at 1.0 m */
    const tycho_raymap *rm = tycho_sim_raymap(s);
    const tycho_sim_launcher *lp = &c.launcher;
    tycho_pose2 at = {2.0, 1.0, 14 * DEG};
    CHECK(tycho_sim_judge(rm, 0.05, src, 2, lp, at, &l) == 0);
    at.yaw = -14 * DEG;
    CHECK(tycho_sim_judge(rm, 0.05, src, 2, lp, at, &l) == 0);
    at.yaw = 16 * DEG;
    CHECK(tycho_sim_judge(rm, 0.05, src, 2, lp, at, &l) == -1);
    CHECK(strstr(l.reason, "deg off") != NULL);
    /* a wall between: source 2 at (6, 4) seen from (4.8, 4.0) facing it is
     * behind the wall at x = 5 */
    at = (tycho_pose2){4.8, 4.0, 0};
    CHECK(tycho_sim_judge(rm, 0.05, src, 2, lp, at, &l) == -1);
    CHECK(strstr(l.reason, "wall") != NULL);
    at = (tycho_pose2){4.8, 2.5, atan2(1.5, 1.2)}; /* below the wall's end, 1.92 m */
    CHECK(tycho_sim_judge(rm, 0.05, src, 2, lp, at, &l) == -1);
    at = (tycho_pose2){5.3, 3.0, atan2(1.0, 0.7)}; /* 1.22 m, past the wall: clear */
    CHECK(tycho_sim_judge(rm, 0.05, src, 2, lp, at, &l) == 1);
    /* the nearest qualifying source wins */
    tycho_heat_source two[2] = {src[0], src[0]};
    two[1].x = 2.8;
    at = (tycho_pose2){2.0, 1.0, 0};
    CHECK(tycho_sim_judge(rm, 0.05, two, 2, lp, at, &l) == 1);
    tycho_sim_free(s);
    tycho_grid_free(g);
}

/* Runs a fixed command sequence and hashes every output. */
static uint64_t run_hash(tycho_grid *g, uint64_t seed, double noise)
{
    tycho_heat_source src;
    tycho_heat_source_defaults(&src);
    src.x = 3.0;
    src.y = 2.8;
    tycho_ramp ramp = {3.5, 1.0, 4.5, 2.0, 0.15, NAN};
    tycho_sim_config c;
    tycho_sim_config_defaults(&c);
    c.seed = seed;
    c.lidar.noise = noise;
    c.robot.odom_noise_v = c.robot.odom_noise_w = noise;
    c.imu.noise = c.imu.rate_noise = noise;
    for (int k = 0; k < 2; k++) c.cameras[k].noise = 10 * noise;
    c.start = (tycho_pose2){1.0, 2.5, 0};
    c.sources = &src;
    c.n_sources = 1;
    c.ramps = &ramp;
    c.n_ramps = 1;
    tycho_sim *s = make(g, &c);
    uint64_t h = 1469598103934665603ull;
#define MIX(ptr, len)                                                                              \
    do {                                                                                           \
        const unsigned char *b_ = (const unsigned char *)(ptr);                                    \
        for (size_t i_ = 0; i_ < (len); i_++) h = (h ^ b_[i_]) * 1099511628211ull;                 \
    } while (0)
    for (int i = 0; i < 200; i++) {
        tycho_sim_set_cmd(s, 0.2 * sin(i * 0.05), 0.8 * cos(i * 0.07));
        step(s, 0.05);
        tycho_sim_scan sc;
        if (tycho_sim_take_scan(s, &sc)) MIX(sc.scan->ranges, 360 * sizeof(float));
        tycho_sim_frame f;
        for (int k = 0; k < 2; k++)
            if (tycho_sim_take_thermal(s, k, &f)) MIX(f.temps, 64 * sizeof(float));
        tycho_sim_imu_sample m;
        tycho_sim_imu_read(s, &m);
        MIX(&m.pitch, sizeof m.pitch);
        MIX(&m.yaw_rate, sizeof m.yaw_rate);
        tycho_pose2 p = tycho_sim_odom(s);
        MIX(&p, sizeof p);
    }
    tycho_sim_free(s);
    return h;
}

static void test_determinism(void)
{
    tycho_grid *g = room(120, 100);
    wall_x(g, 60, 1, 40);
    uint64_t a = run_hash(g, 42, 0.01), b = run_hash(g, 42, 0.01), d = run_hash(g, 43, 0.01);
    CHECK(a == b);
    CHECK(a != d);
    CHECK(run_hash(g, 42, 0) == run_hash(g, 43, 0)); /* without noise the seed is moot */
    tycho_grid_free(g);
}

static void test_config_errors(void)
{
    tycho_grid *g = room(40, 40);
    tycho_sim_config c;
    tycho_err err = {0};
    tycho_heat_source src;
    tycho_heat_source_defaults(&src);
    src.x = src.y = 1.0;
    src.temp = NAN;
    tycho_sim_config_defaults(&c);
    c.start = (tycho_pose2){1, 1, 0};
    c.sources = &src;
    c.n_sources = 1;
    CHECK(tycho_sim_new(g, &c, &err) == NULL);
    CHECK_MSG(strstr(err.msg, "heat_sources[1].temp") != NULL, "%s", err.msg);
    c.n_sources = 0;
    c.lidar.range_max = 0.1;
    CHECK(tycho_sim_config_validate(&c, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "lidar.range_max") != NULL);
    tycho_sim_config_defaults(&c);
    c.cameras[1].fov_h = 0;
    CHECK(tycho_sim_config_validate(&c, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "cameras[2].fov_h") != NULL);
    tycho_sim_config_defaults(&c);
    c.launcher.balls = -1;
    CHECK(tycho_sim_config_validate(&c, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "launcher.balls") != NULL);
    tycho_grid_free(g);
}

int main(void)
{
    test_lidar();
    test_thermal();
    test_kinematics();
    test_collision();
    test_imu();
    test_launcher();
    test_determinism();
    test_config_errors();
    return check_summary("test_sim");
}
