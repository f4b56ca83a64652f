/* Thermal + LiDAR fusion against scans computed analytically from walls. */
#include "check.h"
#include "tycho/fusion.h"

#include <math.h>
#include <string.h>

#define DEG (M_PI / 180.0)

typedef struct {
    double x1, y1, x2, y2;
} seg;

/* Distance along the ray (ox, oy, a) to the nearest segment, or inf. */
static double cast(double ox, double oy, double a, const seg *w, int nw)
{
    double dx = cos(a), dy = sin(a), best = INFINITY;
    for (int i = 0; i < nw; i++) {
        double ex = w[i].x2 - w[i].x1, ey = w[i].y2 - w[i].y1;
        double den = dx * ey - dy * ex;
        if (fabs(den) < 1e-15) continue;
        double qx = w[i].x1 - ox, qy = w[i].y1 - oy;
        double t = (qx * ey - qy * ex) / den; /* along the ray */
        double u = (qx * dy - qy * dx) / den; /* along the segment */
        if (t > 0 && u >= 0 && u <= 1 && t < best) best = t;
    }
    return best;
}

/* A 1-degree LaserScan from the robot pose against world segments. */
static void make_scan(tycho_pose2 pose, double angle_min, int count, const seg *w, int nw,
                      float *ranges, tycho_scan_ref *scan)
{
    for (int i = 0; i < count; i++)
        ranges[i] = (float)cast(pose.x, pose.y, pose.yaw + angle_min + i * DEG, w, nw);
    scan->angle_min = angle_min;
    scan->angle_increment = DEG;
    scan->count = count;
    scan->ranges = ranges;
}

static void frame_fill(float *f, float t)
{
    for (int i = 0; i < 64; i++) f[i] = t;
}

/* A segment perpendicular to the bearing b (world) at distance d from
 * (x, y), half-width h. */
static seg facing(double x, double y, double b, double d, double h)
{
    double cx = x + d * cos(b), cy = y + d * sin(b);
    seg s = {cx - h * sin(b), cy + h * cos(b), cx + h * sin(b), cy - h * cos(b)};
    return s;
}

static void test_known_geometry(void)
{
    /* robot at (2, -1) facing 100 deg; right camera mounted at -30 deg; a
     * 0.5 m wide object 1.25 m away straight along the camera axis (+-11.3
     * deg), and a far wall behind it at 3.2 m */
    tycho_pose2 pose = {2, -1, 100 * DEG};
    double axis = pose.yaw - 30 * DEG;
    seg w[2] = {facing(pose.x, pose.y, axis, 1.25, 0.25),
                facing(pose.x, pose.y, axis, 3.2, 5.0)};
    float ranges[360];
    tycho_scan_ref scan;
    make_scan(pose, 0, 360, w, 2, ranges, &scan);
    tycho_thermal_camera cam;
    tycho_thermal_camera_defaults(&cam);
    cam.mount_yaw = -30 * DEG;
    tycho_fusion_params p;
    tycho_fusion_defaults(&p);
    float frame[64];
    frame_fill(frame, 22);
    frame[3 * 8 + 3] = frame[3 * 8 + 4] = frame[4 * 8 + 3] = 36; /* centre columns */
    tycho_fusion_result r;
    tycho_err err = {0};
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, &err) == TYCHO_OK);
    CHECK(r.outcome == TYCHO_FUSION_FOUND);
    CHECK(r.hot_pixels == 3 && r.col_lo == 3 && r.col_hi == 4);
    CHECK_NEAR(r.max_temp, 36, 1e-6);
    CHECK(r.beams_in_view == 15); /* columns 3..4 span -7.5..7.5 deg: beams -7..7 */
    double ex = pose.x + 1.25 * cos(axis), ey = pose.y + 1.25 * sin(axis);
    CHECK_NEAR(r.x, ex, 0.01);
    CHECK_NEAR(r.y, ey, 0.01);
    CHECK_NEAR(r.bearing, -30 * DEG, 1e-6); /* symmetric beams about the axis */
    CHECK(r.bin_beams == 15);

    /* the whole field of view (narrow off): the far wall fills more beams
     * (38, of which 24 within max_range) but spread over bins 32..34; the
     * object's 23 in bin 12 win */
    p.narrow = false;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, &err) == TYCHO_OK);
    CHECK(r.outcome == TYCHO_FUSION_FOUND);
    CHECK(r.beams_in_view == 61);
    CHECK(r.returns == 61 - 14); /* 3.2/cos(a) > 3.5 beyond 23.9 deg: 7 beams a side */
    CHECK(r.bin_beams == 23);
    CHECK_NEAR(r.x, ex, 0.01);
    CHECK_NEAR(r.y, ey, 0.01);
}

/* Column 0 is the most counter-clockwise; mirrored flips it; narrowing
 * points the fix at the hot column rather than the view's centre. */
static void test_columns_and_narrowing(void)
{
    tycho_pose2 pose = {0, 0, 0};
    /* a wall across the camera's view at x = 1.0 */
    seg w[1] = {{1.0, -5, 1.0, 5}};
    float ranges[360];
    tycho_scan_ref scan;
    make_scan(pose, -M_PI, 360, w, 1, ranges, &scan);
    tycho_thermal_camera cam;
    tycho_thermal_camera_defaults(&cam);
    tycho_fusion_params p;
    tycho_fusion_defaults(&p);
    float frame[64];
    frame_fill(frame, 22);
    frame[5 * 8 + 0] = 40; /* column 0: bearings 22.5..30 deg */
    tycho_fusion_result r;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, NULL) == TYCHO_OK);
    CHECK(r.outcome == TYCHO_FUSION_FOUND);
    CHECK(r.col_lo == 0 && r.col_hi == 0);
    CHECK(r.beams_in_view == 8); /* 23..30 deg: the view's edge is inclusive */
    CHECK_MSG(r.bearing > 22.5 * DEG && r.bearing < 30 * DEG, "bearing %g deg", r.bearing / DEG);
    CHECK_NEAR(r.x, 1.0, 0.05); /* on the wall, within a bin */
    CHECK(r.y > 0.4);
    /* expected exactly: ranges 1/cos(a) for a = 23..30 deg, bins 10 (23, 24)
     * and 11 (25..30): bin 11 wins with 6 beams */
    CHECK(r.bin_beams == 6);
    double sr = 0;
    for (int a = 25; a <= 30; a++) sr += (float)(1.0 / cos(a * DEG));
    CHECK_NEAR(r.range, sr / 6, 1e-6);
    CHECK_NEAR(r.bearing, 27.5 * DEG, 1e-9);

    cam.mirrored = true; /* column 0 is now the clockwise edge */
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, NULL) == TYCHO_OK);
    CHECK_NEAR(r.bearing, -27.5 * DEG, 1e-9);
    CHECK(r.y < -0.4);

    /* whole view: the wall's centre (bin 10, -24..24 deg), not the hot side */
    cam.mirrored = false;
    p.narrow = false;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, NULL) == TYCHO_OK);
    CHECK(r.beams_in_view == 61);
    CHECK(r.bin_beams == 49);
    CHECK_NEAR(r.bearing, 0, 1e-9);
    CHECK_NEAR(r.x, 1.0, 0.05);
    CHECK_NEAR(r.y, 0, 1e-9);
}

/* A camera looking backwards straddles the +-pi seam of the scan. */
static void test_wraparound(void)
{
    tycho_pose2 pose = {1, 1, 0.4};
    double axis = pose.yaw + M_PI;
    seg w[1] = {facing(pose.x, pose.y, axis, 0.8, 0.3)};
    tycho_thermal_camera cam;
    tycho_thermal_camera_defaults(&cam);
    cam.mount_yaw = M_PI;
    tycho_fusion_params p;
    tycho_fusion_defaults(&p);
    p.narrow = false;
    float frame[64];
    frame_fill(frame, 22);
    frame[0] = 50;
    /* the object covers +-20 deg; all its ranges 0.8/cos(a) share bin 8 */
    double mr = 0;
    for (int a = -20; a <= 20; a++) mr += (float)(0.8 / cos(a * DEG));
    mr /= 41;
    double ex = pose.x + mr * cos(axis), ey = pose.y + mr * sin(axis);
    float ranges[360];
    tycho_scan_ref scan;
    /* bearings -180..179 (seam in the middle of the view) and 0..359 */
    double mins[2] = {-M_PI, 0};
    for (int k = 0; k < 2; k++) {
        make_scan(pose, mins[k], 360, w, 1, ranges, &scan);
        tycho_fusion_result r;
        CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, NULL) == TYCHO_OK);
        CHECK(r.outcome == TYCHO_FUSION_FOUND);
        CHECK(r.beams_in_view == 61);
        CHECK(r.bin_beams == 41);
        CHECK_NEAR(fabs(r.bearing), M_PI, 1e-9); /* a plain mean would give ~0 */
        CHECK_NEAR(r.x, ex, 1e-5);
        CHECK_NEAR(r.y, ey, 1e-5);
    }
    /* mount_yaw -pi is the same camera */
    cam.mount_yaw = -M_PI;
    tycho_fusion_result r;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, NULL) == TYCHO_OK);
    CHECK_NEAR(r.x, ex, 1e-5);
    /* a clockwise scan (negative increment) describes the same beams */
    float rev[360];
    for (int i = 0; i < 360; i++) rev[i] = ranges[359 - i];
    tycho_scan_ref rs = {359 * DEG, -DEG, 360, rev};
    tycho_fusion_result r2;
    CHECK(tycho_fusion_locate(pose, &rs, &cam, frame, &p, &r2, NULL) == TYCHO_OK);
    CHECK_NEAR(r2.x, r.x, 1e-9);
    CHECK_NEAR(r2.y, r.y, 1e-9);
}

static void test_ties_and_reasons(void)
{
    tycho_pose2 pose = {0, 0, 0};
    tycho_thermal_camera cam;
    tycho_thermal_camera_defaults(&cam);
    tycho_fusion_params p;
    tycho_fusion_defaults(&p);
    p.narrow = false;
    float frame[64];
    frame_fill(frame, 22);
    frame[10] = 31;
    /* beams -30..30 deg: five at 1.23 m, five at 2.47 m, the rest inf */
    float ranges[61];
    for (int i = 0; i < 61; i++) ranges[i] = INFINITY;
    for (int i = 0; i < 5; i++) ranges[40 + i] = 2.47f, ranges[10 + i] = 1.23f;
    tycho_scan_ref scan = {-30 * DEG, DEG, 61, ranges};
    tycho_fusion_result r;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, NULL) == TYCHO_OK);
    CHECK(r.outcome == TYCHO_FUSION_FOUND);
    CHECK(r.returns == 10 && r.bin_beams == 5);
    CHECK_NEAR(r.range, 1.23, 1e-6); /* tie: the nearer bin */
    CHECK_NEAR(r.bearing, -18 * DEG, 1e-9);
    ranges[46] = 2.49f; /* one more far beam, also in bin 24: the far bin wins */
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, NULL) == TYCHO_OK);
    CHECK(r.bin_beams == 6);
    CHECK_NEAR(r.range, (5 * 2.47f + 2.49f) / 6.0, 1e-6);
    /* NaN ranges and returns shorter than min_range are no returns */
    ranges[47] = NAN;
    ranges[48] = 0.05f;
    p.min_range = 0.1;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, NULL) == TYCHO_OK);
    CHECK(r.returns == 11);

    /* no hot pixel (NaN pixels ignored; equal to the threshold is not hot) */
    frame[10] = 30;
    frame[11] = NAN;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, NULL) == TYCHO_OK);
    CHECK(r.outcome == TYCHO_FUSION_NO_HOT_PIXEL);
    CHECK(r.hot_pixels == 0 && r.col_lo == -1);
    CHECK_NEAR(r.max_temp, 30, 0);
    frame[10] = 31;
    /* all beyond max_range */
    p.max_range = 1.0;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, NULL) == TYCHO_OK);
    CHECK(r.outcome == TYCHO_FUSION_NO_RETURN_IN_RANGE);
    CHECK(r.beams_in_view == 61 && r.returns == 0);
    CHECK(strcmp(tycho_fusion_outcome_name(r.outcome), "no return within max range") == 0);
    p.max_range = 3.5;
    /* the camera looks where the scan has no beams */
    cam.mount_yaw = M_PI / 2;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, NULL) == TYCHO_OK);
    CHECK(r.outcome == TYCHO_FUSION_NO_BEAMS_IN_FOV);
    /* narrowing to a hot column that no beam falls in */
    cam.mount_yaw = 0;
    p.narrow = true;
    float few[3] = {1, 1, 1};
    tycho_scan_ref sc3 = {-1 * DEG, DEG, 3, few}; /* -1..1 deg: columns 3 and 4 */
    CHECK(tycho_fusion_locate(pose, &sc3, &cam, frame, &p, &r, NULL) == TYCHO_OK);
    CHECK(r.outcome == TYCHO_FUSION_NO_BEAMS_IN_FOV); /* hot pixel 10 is column 2 */
    frame[4] = 35; /* column 4 */
    CHECK(tycho_fusion_locate(pose, &sc3, &cam, frame, &p, &r, NULL) == TYCHO_OK);
    /* column 4 spans -7.5..0 deg (0 is its edge, inclusive) */
    CHECK(r.outcome == TYCHO_FUSION_FOUND && r.beams_in_view == 2);
    CHECK_NEAR(r.bearing, -0.5 * DEG, 1e-12);
}

static void test_invalid(void)
{
    tycho_pose2 pose = {0, 0, 0};
    tycho_thermal_camera cam;
    tycho_thermal_camera_defaults(&cam);
    tycho_fusion_params p;
    tycho_fusion_defaults(&p);
    float frame[64] = {0}, ranges[4] = {1, 1, 1, 1};
    tycho_scan_ref scan = {0, DEG, 4, ranges};
    tycho_fusion_result r;
    tycho_err err = {0};
    p.bin_width = 0;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "bin_width") != NULL);
    p.bin_width = 1e-4;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, &err) == TYCHO_EINVAL);
    tycho_fusion_defaults(&p);
    p.max_range = INFINITY;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, &err) == TYCHO_EINVAL);
    tycho_fusion_defaults(&p);
    cam.cols = 0;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, &err) == TYCHO_EINVAL);
    cam.cols = 100, cam.rows = 100;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, &err) == TYCHO_EINVAL);
    tycho_thermal_camera_defaults(&cam);
    cam.hfov = 0;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "fov") != NULL);
    tycho_thermal_camera_defaults(&cam);
    CHECK(tycho_fusion_locate(pose, &scan, &cam, NULL, &p, &r, &err) == TYCHO_EINVAL);
    scan.ranges = NULL;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, &err) == TYCHO_EINVAL);
    scan.ranges = ranges;
    pose.yaw = NAN;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, &err) == TYCHO_EINVAL);
}

int main(void)
{
    test_known_geometry();
    test_columns_and_narrowing();
    test_wraparound();
    test_ties_and_reasons();
    test_invalid();
    return check_summary("test_fusion");
}
