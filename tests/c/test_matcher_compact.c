/* The scan matcher's compact form (tycho_matcher_shrink): a finished
 * submap keeps its likelihood field as 8 x 8 tiles of 8-bit codes, only
 * where the field is not zero. With the field's few values as the palette
 * (sigma a cell) matching against it must give the dense field's answer
 * exactly, from a fraction of the memory; with a wide sigma (more values
 * than codes) to a few millimetres; and set_map makes it dense again. */
#include "check.h"
#include "slam_world.h"
#include "tycho/diffdrive.h"
#include "tycho/raycast.h"
#include "tycho/scan_match.h"

static tycho_match_result match(tycho_matcher *m, const tycho_scan *scan, tycho_pose2 guess)
{
    tycho_match_params p;
    tycho_match_params_defaults(&p);
    p.window_xy = 0.3;
    p.window_yaw = 8 * M_PI / 180;
    p.refine_steps = 2;
    tycho_match_result r;
    tycho_err err;
    CHECK(tycho_matcher_match(m, scan, guess, &p, &r, &err) == TYCHO_OK);
    return r;
}

/* Dense, then compact, from the same guesses: the results, and the bytes. */
static void compare(const tycho_grid *world, double sigma, bool exact)
{
    tycho_err err;
    tycho_scan scan;
    CHECK(tycho_scan_init(&scan, 360, -M_PI, 2 * M_PI / 360, 0.12, 3.5, &err) == TYCHO_OK);
    tycho_matcher *m = tycho_matcher_new();
    CHECK(tycho_matcher_shrink(m, &err) == TYCHO_OK); /* nothing set yet: nothing to do */
    CHECK(tycho_matcher_set_map(m, world, 254, sigma, &err) == TYCHO_OK);
    size_t dense_bytes = tycho_matcher_bytes(m);
    /* three places on the corridor's loop, each from a guess 10 cm and 4 degrees off */
    const tycho_pose2 truth[3] = {{1.0, 4.3, 0.3}, {6.2, 1.1, -1.2}, {10.9, 8.0, 2.5}};
    tycho_match_result dense[3];
    for (int i = 0; i < 3; i++) {
        tycho_scan_cast(world, truth[i], &scan, NULL);
        tycho_pose2 guess = {truth[i].x + 0.08, truth[i].y - 0.06, truth[i].yaw + 0.07};
        dense[i] = match(m, &scan, guess);
        CHECK_MSG(dense[i].ok &&
                      hypot(dense[i].pose.x - truth[i].x, dense[i].pose.y - truth[i].y) < 0.03,
                  "dense match %d: %.3f %.3f", i, dense[i].pose.x, dense[i].pose.y);
    }
    CHECK(tycho_matcher_shrink(m, &err) == TYCHO_OK);
    size_t compact_bytes = tycho_matcher_bytes(m);
    /* a corridor world is mostly walls and their margins: still under half */
    CHECK_MSG(compact_bytes * 2 < dense_bytes, "compact %zu bytes, dense %zu", compact_bytes,
              dense_bytes);
    for (int i = 0; i < 3; i++) {
        tycho_scan_cast(world, truth[i], &scan, NULL);
        tycho_pose2 guess = {truth[i].x + 0.08, truth[i].y - 0.06, truth[i].yaw + 0.07};
        tycho_match_result c = match(m, &scan, guess);
        double d = hypot(c.pose.x - dense[i].pose.x, c.pose.y - dense[i].pose.y);
        double dyaw = fabs(tycho_angle_wrap(c.pose.yaw - dense[i].pose.yaw));
        if (exact) {
            CHECK_MSG(c.pose.x == dense[i].pose.x && c.pose.y == dense[i].pose.y &&
                          c.pose.yaw == dense[i].pose.yaw && c.score == dense[i].score,
                      "sigma %.2f, match %d: %.6f m, %.6f deg, score %.6f vs %.6f", sigma, i, d,
                      dyaw * 180 / M_PI, c.score, dense[i].score);
        } else {
            /* a field this wide is flat near its top: the rounding moves the
             * best pose by a few centimetres (a tenth of sigma) */
            CHECK_MSG(c.ok && d < 0.1 * sigma && dyaw < 1.0 * M_PI / 180,
                      "sigma %.2f, match %d: %.4f m and %.3f deg from the dense one", sigma, i, d,
                      dyaw * 180 / M_PI);
            CHECK_MSG(fabs(c.score - dense[i].score) < 0.005, "score %.4f vs dense %.4f", c.score,
                      dense[i].score);
        }
        if (exact) CHECK(c.degenerate == dense[i].degenerate);
    }
    /* a second shrink keeps it as it is; set_map makes it dense again */
    CHECK(tycho_matcher_shrink(m, &err) == TYCHO_OK);
    CHECK(tycho_matcher_bytes(m) == compact_bytes);
    CHECK(tycho_matcher_set_map(m, world, 254, sigma, &err) == TYCHO_OK);
    tycho_scan_cast(world, truth[0], &scan, NULL);
    tycho_match_result again =
        match(m, &scan, (tycho_pose2){truth[0].x + 0.08, truth[0].y - 0.06, truth[0].yaw + 0.07});
    CHECK(again.pose.x == dense[0].pose.x && again.pose.y == dense[0].pose.y &&
          again.score == dense[0].score);
    tycho_matcher_free(m);
    tycho_scan_free(&scan);
}

int main(void)
{
    tycho_grid *world = square_world();
    compare(world, 0.05, true);  /* 17 field values: the palette is exact */
    compare(world, 0.40, false); /* 625 values: rounded to 1/255 */
    tycho_err err;
    CHECK(tycho_matcher_shrink(NULL, &err) == TYCHO_EINVAL);
    tycho_grid_free(world);
    return check_summary("test_matcher_compact");
}
