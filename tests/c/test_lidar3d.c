/* 3D LiDAR model (core/lidar3d.c): the Euler convention both ways, beams on
 * a known plane and box, a tilted robot, the self filter. */
#include "check.h"
#include "tycho/lidar3d.h"

#include <math.h>
#include <stdlib.h>

static void test_rotation(void)
{
    double R[9], p[3] = {1, 0, 0}, o[3];
    tycho_rotation(0, 0, M_PI / 2, R); /* yaw 90: x -> y */
    o[0] = R[0] * p[0], o[1] = R[3] * p[0], o[2] = R[6] * p[0];
    CHECK(fabs(o[0]) < 1e-12 && fabs(o[1] - 1) < 1e-12 && fabs(o[2]) < 1e-12);
    tycho_rotation(0, M_PI / 2, 0, R); /* pitch +90: nose down, x -> -z */
    CHECK(fabs(R[0]) < 1e-12 && fabs(R[6] + 1) < 1e-12);
    tycho_rotation(M_PI / 2, 0, 0, R); /* roll +90: y -> z */
    CHECK(fabs(R[4]) < 1e-12 && fabs(R[7] - 1) < 1e-12);
    /* a hand-computed case: yaw 90 then pitch 90 (about the fixed axes,
     * pitch first): x -> -z, z -> x -> y */
    tycho_rotation(0, M_PI / 2, M_PI / 2, R);
    CHECK(fabs(R[6] + 1) < 1e-12 && fabs(R[5] - 1) < 1e-12);
    /* sensor -> world -> sensor is the identity */
    srand(7);
    double worst = 0;
    for (int k = 0; k < 1000; k++) {
        tycho_pose3 robot = {rand() % 100 - 50,
                             rand() % 100 - 50,
                             rand() % 10,
                             (rand() % 628) / 100.0 - 3.14,
                             (rand() % 300) / 100.0 - 1.5,
                             (rand() % 628) / 100.0 - 3.14};
        tycho_pose3 mount = {0.1, -0.05, 0.4, 0.05, -0.1, 0.3};
        double q[3] = {rand() % 20 - 10.0, rand() % 20 - 10.0, rand() % 5 - 2.0}, w[3], back[3];
        tycho_lidar3d_to_world(robot, mount, q, w);
        tycho_lidar3d_to_sensor(robot, mount, w, back);
        for (int i = 0; i < 3; i++) worst = fmax(worst, fabs(back[i] - q[i]));
    }
    CHECK_MSG(worst < 1e-9, "round trip off by %g", worst);
}

static tycho_heightfield *flat(void)
{
    return tycho_heightfield_new(400, 400, 0.1, 0, 0, NULL); /* 40 m square, z = 0 */
}

static void test_plane(void)
{
    tycho_heightfield *f = flat();
    tycho_lidar3d_model m;
    CHECK(tycho_lidar3d_preset(&m, 16, NULL) == TYCHO_OK);
    tycho_pose3 robot = {20, 20, 0, 0, 0, 0}, mount = {0, 0, 1, 0, 0, 0};
    float *r = malloc(sizeof(float) * 16 * 1800);
    double *pts = malloc(sizeof(double) * 3 * 16 * 1800);
    int n = tycho_lidar3d_sweep(&m, f, robot, mount, NULL, r, pts, 16 * 1800);
    /* the lines that look down hit the ground, at 1 / sin(-elevation); all
     * of -15..-3 deg land within the 20 m to the field's edge (-1 deg would
     * need 57 m) */
    CHECK_MSG(n >= 7 * 1800 && n < 8 * 1800, "%d points", n);
    CHECK(fabsf(r[0] - (float)(1 / sin(15 * M_PI / 180))) < 1e-4);
    CHECK(isinf(r[15 * 1800]));
    double zerr = 0;
    for (int i = 0; i < n; i++) zerr = fmax(zerr, fabs(pts[3 * i + 2]));
    CHECK_MSG(zerr < 1e-6, "points %g off the plane", zerr);
    /* nose down 0.1 rad about the robot's origin: the sensor, 1 m up the
     * mast, is now cos(0.1) m high, and its 1 deg line looks down at
     * 0.1 rad - 1 deg */
    robot.pitch = 0.1;
    tycho_lidar3d_sweep(&m, f, robot, mount, NULL, r, NULL, 0);
    double want = cos(0.1) / sin(0.1 - M_PI / 180);
    CHECK_MSG(fabs(r[8 * 1800] - want) < 1e-3, "range %f, want %f", r[8 * 1800], want);
    free(r);
    free(pts);
    tycho_heightfield_free(f);
}

static void test_box_and_self(void)
{
    tycho_heightfield *f = flat();
    tycho_heightfield_box(f, 15, 5, 16, 15, 3.0f); /* a wall: cells from x = 15.0 */
    tycho_heightfield_box(f, 10.15, 9.9, 10.25, 10.1,
                          2.0f); /* a post just in front, inside its body box */
    tycho_lidar3d_model m = {0};
    m.lines = 1;
    m.vangle[0] = 0;
    m.columns = 4;
    m.hfov = 2 * M_PI;
    m.range_min = 0.01;
    m.range_max = 50;
    tycho_pose3 robot = {10, 10, 0, 0, 0, 0}, mount = {0, 0, 1, 0, 0, 0};
    float r[4];
    double pts[12];
    int n = tycho_lidar3d_sweep(&m, f, robot, mount, NULL, r, pts, 4);
    /* column 0 looks along x: the post's cells start at 10.1 */
    CHECK_MSG(fabsf(r[0] - 0.1f) < 1e-4f, "range to the post %f", r[0]);
    CHECK(n == 1);
    tycho_box3 self = {-0.2, 0.4, -0.2, 0.2, -0.1, 1.5};
    n = tycho_lidar3d_sweep(&m, f, robot, mount, &self, r, pts, 4);
    CHECK(n == 0); /* its own body: dropped */
    /* without the post the beam reaches the wall, 5 m ahead */
    f->z[(size_t)100 * f->w + 101] = f->z[(size_t)100 * f->w + 102] = 0;
    f->z[(size_t)99 * f->w + 101] = f->z[(size_t)99 * f->w + 102] = 0;
    tycho_lidar3d_sweep(&m, f, robot, mount, &self, r, pts, 4);
    CHECK_MSG(fabsf(r[0] - 5.0f) < 1e-4f, "range to the wall %f", r[0]);
    tycho_err err = {0};
    CHECK(tycho_lidar3d_preset(&m, 24, &err) == TYCHO_EINVAL && err.msg[0]);
    tycho_heightfield_free(f);
}

int main(void)
{
    test_rotation();
    test_plane();
    test_box_and_self();
    return check_summary("lidar3d");
}
