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
    seg w[2] = {facing(pose.x, pose.y, axis, 1.25, 0.25), facing(pose.x, pose.y, axis, 3.2, 5.0)};
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
    frame[4] = 35;                                    /* column 4 */
    CHECK(tycho_fusion_locate(pose, &sc3, &cam, frame, &p, &r, NULL) == TYCHO_OK);
    /* column 4 spans -7.5..0 deg (0 is its edge, inclusive) */
    CHECK(r.outcome == TYCHO_FUSION_FOUND && r.beams_in_view == 2);
    CHECK_NEAR(r.bearing, -0.5 * DEG, 1e-12);
}

/* A source on a corridor's side wall seen at a grazing angle (generated
 * maze 70049): the robot at the origin heading 65 deg, the left camera
 * (axis 95 deg) sees the source at 76 deg over three columns, the middle
 * one full. The side wall x = 0.23 spreads the hot columns' beams over ten
 * range bins, three beams at most in each; the six beams that run past to
 * the corridor's end wall (y = 1.55) share one bin and win the whole-column
 * count. The heat window keeps the beams that point at the heat. */
static void test_heat_window_at_grazing(void)
{
    tycho_pose2 pose = {0, 0, 65 * DEG};
    seg w[2] = {{0.23, -1, 0.23, 1.55}, {-0.5, 1.55, 0.23, 1.55}};
    float ranges[360];
    tycho_scan_ref scan;
    make_scan(pose, 0, 360, w, 2, ranges, &scan);
    tycho_thermal_camera cam;
    tycho_thermal_camera_defaults(&cam);
    cam.mount_yaw = 30 * DEG;
    tycho_fusion_params p;
    tycho_fusion_defaults(&p);
    float frame[64];
    frame_fill(frame, 22);
    for (int r = 2; r <= 5; r++) frame[r * 8 + 6] = 42;
    for (int r = 3; r <= 4; r++) {
        frame[r * 8 + 5] = 31;
        frame[r * 8 + 7] = 31.5f;
    }
    tycho_fusion_result r;
    tycho_err err = {0};
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, &err) == TYCHO_OK);
    CHECK(r.outcome == TYCHO_FUSION_FOUND && !r.windowed);
    CHECK_NEAR(r.y, 1.55, 0.02); /* whole columns: the end wall, 0.7 m past the heat */
    CHECK(r.bin_beams == 6);

    p.window = 3.75 * DEG;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, &err) == TYCHO_OK);
    CHECK(r.outcome == TYCHO_FUSION_FOUND && r.windowed);
    /* weights 18, 80, 19 on columns centred at -11.25, -18.75, -26.25 deg */
    CHECK_NEAR(r.heat_bearing, (30 - 18.81) * DEG, 0.01 * DEG);
    CHECK(r.beams_in_view == 7); /* 8..14 deg: world 73..79 */
    CHECK_NEAR(r.x, 0.23, 0.01); /* on the side wall, at the 74 and 75 deg beams */
    CHECK_NEAR(r.y, 0.83, 0.02);
    CHECK(r.bin_beams == 2);

    /* a window with no return in it falls back to the whole columns */
    for (int i = 8; i <= 14; i++) ranges[i] = INFINITY;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, &err) == TYCHO_OK);
    CHECK(r.outcome == TYCHO_FUSION_FOUND && !r.windowed);
    CHECK_NEAR(r.y, 1.55, 0.02);

    p.window = -1;
    CHECK(tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "window") != NULL);
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

/* --- the beam-range shortcut against a brute-force reference ------------- */

static uint64_t lcg = 4242;
static double urand(void)
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return ((lcg >> 11) + 0.5) * 0x1p-53;
}

static double ref_wrap(double a)
{
    a = remainder(a, 2 * M_PI);
    return a <= -M_PI ? a + 2 * M_PI : a;
}

/* fusion.h's algorithm, straight from the text, over every beam */
static void reference(tycho_pose2 pose, const tycho_scan_ref *s, const tycho_thermal_camera *c,
                      const float *frame, const tycho_fusion_params *p, tycho_fusion_result *r)
{
    memset(r, 0, sizeof *r);
    bool hot[64] = {0};
    int nhot = 0;
    for (int i = 0; i < c->rows * c->cols; i++)
        if (frame[i] > p->threshold) hot[i % c->cols] = true, nhot++;
    if (!nhot) {
        r->outcome = TYCHO_FUSION_NO_HOT_PIXEL;
        return;
    }
    int hist[4096] = {0}, nb = (int)floor(p->max_range / p->bin_width) + 1;
    for (int pass = 0; pass < 2; pass++) {
        int best = 0;
        for (int k = 1; pass == 1 && k < nb; k++)
            if (hist[k] > hist[best]) best = k;
        double sr = 0, ss = 0, sc = 0;
        for (int i = 0; i < s->count; i++) {
            double b = s->angle_min + i * s->angle_increment;
            double rel = ref_wrap(b - c->mount_yaw);
            if (fabs(rel) > 0.5 * c->hfov + 1e-12) continue;
            int col = (int)((0.5 * c->hfov - rel) * c->cols / c->hfov);
            col = col < 0 ? 0 : col >= c->cols ? c->cols - 1 : col;
            if (c->mirrored) col = c->cols - 1 - col;
            if (p->narrow && !hot[col]) continue;
            double rg = s->ranges[i];
            bool ok = isfinite(rg) && rg > 0 && rg >= p->min_range && rg <= p->max_range;
            int bin = ok ? (int)floor(rg / p->bin_width) : -1;
            if (pass == 0) {
                r->beams_in_view++;
                if (ok) r->returns++, hist[bin]++;
            } else if (ok && bin == best) {
                sr += s->ranges[i], ss += sin(b), sc += cos(b);
            }
        }
        if (pass == 0 && (r->beams_in_view == 0 || r->returns == 0)) {
            r->outcome =
                r->beams_in_view ? TYCHO_FUSION_NO_RETURN_IN_RANGE : TYCHO_FUSION_NO_BEAMS_IN_FOV;
            return;
        }
        if (pass == 1) {
            r->bin_beams = hist[best];
            r->range = sr / hist[best];
            r->bearing = atan2(ss, sc);
            r->x = pose.x + r->range * cos(pose.yaw + r->bearing);
            r->y = pose.y + r->range * sin(pose.yaw + r->bearing);
        }
    }
}

static void test_random_vs_reference(void)
{
    static float ranges[3000];
    int mismatches = 0, found = 0;
    for (int trial = 0; trial < 3000; trial++) {
        tycho_scan_ref s;
        s.count = 1 + (int)(urand() * 2999);
        s.angle_min = (urand() - 0.5) * 20;
        double mag = urand() < 0.5 ? M_PI / 180 : urand() * 0.05;
        s.angle_increment = (urand() < 0.3 ? -1 : 1) * (1e-4 + mag);
        if (trial % 10 == 0) s.angle_increment = (urand() - 0.5) * 8; /* coarse, odd */
        for (int i = 0; i < s.count; i++)
            ranges[i] = urand() < 0.1 ? INFINITY : (float)(0.1 + urand() * 4);
        s.ranges = ranges;
        tycho_thermal_camera c;
        tycho_thermal_camera_defaults(&c);
        c.mount_yaw = (urand() - 0.5) * 16;
        c.hfov = 0.05 + urand() * (trial % 7 == 0 ? 2 * M_PI - 0.05 : 1.5);
        c.mirrored = urand() < 0.5;
        tycho_fusion_params p;
        tycho_fusion_defaults(&p);
        p.narrow = urand() < 0.5;
        float frame[64];
        for (int i = 0; i < 64; i++) frame[i] = urand() < 0.05 ? 40 : 20;
        tycho_pose2 pose = {urand(), urand(), (urand() - 0.5) * 7};
        tycho_fusion_result a, b;
        CHECK(tycho_fusion_locate(pose, &s, &c, frame, &p, &a, NULL) == TYCHO_OK);
        reference(pose, &s, &c, frame, &p, &b);
        bool same = a.outcome == b.outcome && a.beams_in_view == b.beams_in_view &&
                    a.returns == b.returns && a.bin_beams == b.bin_beams && a.range == b.range &&
                    a.bearing == b.bearing && a.x == b.x && a.y == b.y;
        if (!same && mismatches++ < 5)
            fprintf(stderr, "trial %d: outcome %d/%d view %d/%d returns %d/%d x %.17g/%.17g\n",
                    trial, a.outcome, b.outcome, a.beams_in_view, b.beams_in_view, a.returns,
                    b.returns, a.x, b.x);
        found += a.outcome == TYCHO_FUSION_FOUND;
    }
    CHECK_MSG(mismatches == 0, "%d of 3000 random cases differ from the reference", mismatches);
    CHECK(found > 1000); /* the cases exercise the whole pipeline */
}

int main(void)
{
    test_random_vs_reference();
    test_known_geometry();
    test_columns_and_narrowing();
    test_wraparound();
    test_ties_and_reasons();
    test_heat_window_at_grazing();
    test_invalid();
    return check_summary("test_fusion");
}
