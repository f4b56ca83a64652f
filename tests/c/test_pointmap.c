/* The point map (core/pointmap.c): the mean hit per cell lies on the wall
 * (not at a cell's centre), and point-to-line refinement brings a pose a
 * few centimetres and a degree off back to within millimetres of the truth
 * in a room whose walls are at no cell boundary; along a featureless
 * corridor it leaves the unpinned direction alone; bad input is refused,
 * and a refinement that would move too far is not taken. */
#include "check.h"
#include "tycho/pointmap.h"

#include <string.h>

/* A room [0, 4.02] x [0, 3.013] with a pillar [2.01, 2.43] x [1.007, 1.31]:
 * no wall on a multiple of 5 cm. */
static double cast_room(double x, double y, double a, bool corridor)
{
    double dx = cos(a), dy = sin(a), best = INFINITY;
    struct {
        double at, lo, hi;
        bool vertical;
    } walls[8] = {
        {0.0, 0, 3.013, true},      {4.02, 0, 3.013, true},    {0.0, 0, 4.02, false},
        {3.013, 0, 4.02, false},    {2.01, 1.007, 1.31, true}, {2.43, 1.007, 1.31, true},
        {1.007, 2.01, 2.43, false}, {1.31, 2.01, 2.43, false},
    };
    int n = 8;
    if (corridor) {
        /* two long walls along x, 1.003 m apart, nothing else in reach */
        walls[0].at = 0.0, walls[0].lo = -100, walls[0].hi = 100, walls[0].vertical = false;
        walls[1].at = 1.003, walls[1].lo = -100, walls[1].hi = 100, walls[1].vertical = false;
        n = 2;
    }
    for (int i = 0; i < n; i++) {
        double d = walls[i].vertical ? dx : dy;
        if (d == 0) continue;
        double t = (walls[i].at - (walls[i].vertical ? x : y)) / d;
        double along = walls[i].vertical ? y + t * dy : x + t * dx;
        if (t > 0 && along >= walls[i].lo && along <= walls[i].hi && t < best) best = t;
    }
    return best;
}

static unsigned seed = 11;
static double noise(void) /* uniform in +-5 mm */
{
    seed = seed * 1103515245u + 12345u;
    return ((seed >> 8) / 16777216.0 - 0.5) * 0.01;
}

static void scan_at(tycho_scan *s, tycho_pose2 p, bool corridor)
{
    for (int k = 0; k < s->count; k++) {
        double r = cast_room(p.x, p.y, p.yaw + tycho_scan_angle(s, k), corridor) + noise();
        s->ranges[k] = r < s->range_max ? r : INFINITY;
    }
}

static void test_room(void)
{
    tycho_err err;
    tycho_scan s;
    CHECK(tycho_scan_init(&s, 360, -M_PI, 2 * M_PI / 360, 0.12, 3.5, &err) == TYCHO_OK);
    tycho_pointmap *pm = tycho_pointmap_new(0.05);
    CHECK(pm != NULL);
    const tycho_pose2 seen[3] = {{1.0, 1.5, 0.1}, {1.2, 1.6, 0.2}, {1.1, 2.0, -0.3}};
    for (int i = 0; i < 3; i++) {
        scan_at(&s, seen[i], false);
        CHECK(tycho_pointmap_add_scan(pm, &s, seen[i], &err) == TYCHO_OK);
    }
    CHECK(tycho_pointmap_cells(pm) > 300);
    /* the mean of a cell on the wall x = 4.02 is on the wall, not at x = 4.025 */
    double mx, my;
    CHECK(tycho_pointmap_mean_at(pm, 4.02, 1.52, &mx, &my));
    CHECK_NEAR(mx, 4.02, 0.004);
    CHECK(!tycho_pointmap_mean_at(pm, 1.0, 1.0, &mx, &my)); /* free space: no hits */

    tycho_refine_params p;
    tycho_refine_params_defaults(&p);
    const tycho_pose2 truth = {1.23, 1.37, 0.3};
    scan_at(&s, truth, false);
    tycho_pose2 guess = {truth.x + 0.023, truth.y - 0.018, truth.yaw + 0.7 * M_PI / 180};
    tycho_refine_result r;
    CHECK(tycho_pointmap_refine(pm, &s, guess, &p, &r, &err) == TYCHO_OK);
    CHECK(r.ok);
    CHECK(r.pairs > 200);
    CHECK_NEAR(r.pose.x, truth.x, 0.003);
    CHECK_NEAR(r.pose.y, truth.y, 0.003);
    CHECK_NEAR(r.pose.yaw, truth.yaw, 0.1 * M_PI / 180);
    CHECK(r.rms < 0.006);   /* the noise: uniform +-5 mm has an RMS of 2.9 mm */
    CHECK(r.info_min > 50); /* walls both ways: both directions pinned */

    /* a move beyond max_shift is refused: the guess comes back, not ok */
    p.max_shift = 0.01;
    CHECK(tycho_pointmap_refine(pm, &s, guess, &p, &r, &err) == TYCHO_OK);
    CHECK(!r.ok);
    CHECK(r.pose.x == guess.x && r.pose.y == guess.y && r.pose.yaw == guess.yaw);
    /* too few pairs: nothing in reach of an empty map */
    tycho_pointmap *empty = tycho_pointmap_new(0.05);
    tycho_refine_params_defaults(&p);
    CHECK(tycho_pointmap_refine(empty, &s, guess, &p, &r, &err) == TYCHO_OK);
    CHECK(!r.ok && r.pairs == 0);
    tycho_pointmap_free(empty);

    /* bad input */
    CHECK(tycho_pointmap_new(0) == NULL);
    CHECK(tycho_pointmap_new(NAN) == NULL);
    tycho_pose2 bad = {NAN, 0, 0};
    CHECK(tycho_pointmap_add_scan(pm, &s, bad, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "finite") != NULL);
    CHECK(tycho_pointmap_refine(pm, &s, bad, &p, &r, &err) == TYCHO_EINVAL);
    p.iterations = 0;
    CHECK(tycho_pointmap_refine(pm, &s, truth, &p, &r, &err) == TYCHO_EINVAL);
    tycho_pose2 far = {2e6, 0, 0};
    size_t before = tycho_pointmap_cells(pm);
    CHECK(tycho_pointmap_add_scan(pm, &s, far, &err) == TYCHO_ERANGE);
    CHECK(tycho_pointmap_cells(pm) == before); /* nothing added */

    /* compacted: the same means and the same refinement, bit for bit, in
     * a fraction of the memory; and read-only */
    tycho_refine_params_defaults(&p);
    tycho_refine_result dense;
    CHECK(tycho_pointmap_refine(pm, &s, guess, &p, &dense, &err) == TYCHO_OK);
    double dense_mx, dense_my;
    CHECK(tycho_pointmap_mean_at(pm, 4.02, 1.52, &dense_mx, &dense_my));
    size_t dense_bytes = tycho_pointmap_bytes(pm);
    CHECK(tycho_pointmap_compact(pm, &err) == TYCHO_OK);
    CHECK(tycho_pointmap_compact(pm, &err) == TYCHO_OK); /* twice: nothing more to do */
    CHECK_MSG(tycho_pointmap_bytes(pm) * 5 < dense_bytes, "%zu bytes compacted, %zu dense",
              tycho_pointmap_bytes(pm), dense_bytes);
    CHECK(tycho_pointmap_cells(pm) == before);
    CHECK(tycho_pointmap_mean_at(pm, 4.02, 1.52, &mx, &my) && mx == dense_mx && my == dense_my);
    CHECK(!tycho_pointmap_mean_at(pm, 1.0, 1.0, &mx, &my));
    CHECK(!tycho_pointmap_mean_at(pm, -50.0, 1.0, &mx, &my)); /* outside the box */
    CHECK(tycho_pointmap_refine(pm, &s, guess, &p, &r, &err) == TYCHO_OK);
    CHECK(r.ok && r.pose.x == dense.pose.x && r.pose.y == dense.pose.y &&
          r.pose.yaw == dense.pose.yaw && r.pairs == dense.pairs);
    CHECK(tycho_pointmap_add_scan(pm, &s, truth, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "compacted") != NULL);
    CHECK(tycho_pointmap_cells(pm) == before);
    tycho_pointmap_free(pm);
    /* an empty map compacts to an empty one */
    empty = tycho_pointmap_new(0.05);
    CHECK(tycho_pointmap_compact(empty, &err) == TYCHO_OK);
    CHECK(!tycho_pointmap_mean_at(empty, 0.0, 0.0, &mx, &my));
    CHECK(tycho_pointmap_refine(empty, &s, guess, &p, &r, &err) == TYCHO_OK && !r.ok);
    tycho_pointmap_free(empty);
    tycho_scan_free(&s);
}

/* In a corridor along x nothing fixes x: the refinement corrects y and the
 * heading and leaves x where the guess had it. */
static void test_corridor(void)
{
    tycho_err err;
    tycho_scan s;
    CHECK(tycho_scan_init(&s, 360, -M_PI, 2 * M_PI / 360, 0.12, 3.5, &err) == TYCHO_OK);
    tycho_pointmap *pm = tycho_pointmap_new(0.05);
    for (int i = 0; i < 5; i++) {
        tycho_pose2 p = {0.4 * i, 0.5, 0};
        scan_at(&s, p, true);
        CHECK(tycho_pointmap_add_scan(pm, &s, p, &err) == TYCHO_OK);
    }
    const tycho_pose2 truth = {1.1, 0.52, 0.05};
    scan_at(&s, truth, true);
    tycho_pose2 guess = {truth.x + 0.04, truth.y + 0.02, truth.yaw - 0.01};
    tycho_refine_params p;
    tycho_refine_params_defaults(&p);
    tycho_refine_result r;
    CHECK(tycho_pointmap_refine(pm, &s, guess, &p, &r, &err) == TYCHO_OK);
    CHECK(r.ok);
    CHECK_NEAR(r.pose.y, truth.y, 0.003);
    CHECK_NEAR(r.pose.yaw, truth.yaw, 0.2 * M_PI / 180);
    CHECK_NEAR(r.pose.x, guess.x, 0.005); /* unpinned: left as guessed */
    CHECK(r.info_min < 0.01 * r.info_max);
    tycho_pointmap_free(pm);
    tycho_scan_free(&s);
}

int main(void)
{
    test_room();
    test_corridor();
    return check_summary("pointmap");
}
