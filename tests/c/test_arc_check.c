/* Arc collision check against a hand-made costmap. */
#include "check.h"
#include "tycho/arc_check.h"

#include <math.h>

int main(void)
{
    tycho_err err = {0};
    /* 40 x 20 cells of 0.05 m, free; a wall column at cx = 30 (x 1.50..1.55)
     * with an inscribed band (253) two cells wide in front of it */
    tycho_grid *g = tycho_grid_new(40, 20, 0.05, (tycho_pose2){0, 0, 0}, 0, &err);
    CHECK(g != NULL);
    for (int cy = 0; cy < 20; cy++) {
        tycho_grid_set(g, 30, cy, 254);
        tycho_grid_set(g, 29, cy, 253);
        tycho_grid_set(g, 28, cy, 253);
    }
    /* heading at the wall from x = 1.005 at 0.2 m/s: the band starts at
     * x = 1.40 -> first blocked step at 2.0 s (x = 1.405; dt 0.05) */
    double t = tycho_arc_first_hit(g, (tycho_pose2){1.005, 0.5, 0}, 0.2, 0, 3.0, 0.05, 0);
    CHECK_NEAR(t, 2.0, 1e-9);
    /* a shorter horizon does not reach it */
    CHECK(isinf(tycho_arc_first_hit(g, (tycho_pose2){1.0, 0.5, 0}, 0.2, 0, 1.5, 0.05, 0)));
    /* driving away, or turning on the spot, is clear */
    CHECK(isinf(tycho_arc_first_hit(g, (tycho_pose2){1.0, 0.5, 0}, -0.2, 0, 3.0, 0.05, 0)));
    CHECK(isinf(tycho_arc_first_hit(g, (tycho_pose2){1.38, 0.5, 0}, 0, 2.0, 3.0, 0.05, 0)));
    /* a tight left turn parallel to the wall stays clear */
    CHECK(isinf(tycho_arc_first_hit(g, (tycho_pose2){1.2, 0.2, M_PI / 2}, 0.2, 0, 2.0, 0.05, 0)));
    /* inside the band the automatic limit becomes lethal: moving along the
     * band is allowed, onto the wall is not */
    CHECK(isinf(tycho_arc_first_hit(g, (tycho_pose2){1.43, 0.2, M_PI / 2}, 0.1, 0, 2.0, 0.05, 0)));
    t = tycho_arc_first_hit(g, (tycho_pose2){1.43, 0.5, 0}, 0.1, 0, 2.0, 0.05, 0);
    CHECK(t > 0.6 && t < 1.3);
    /* an explicit limit overrides: 253 from inside the band hits at once */
    CHECK_NEAR(tycho_arc_first_hit(g, (tycho_pose2){1.43, 0.2, M_PI / 2}, 0.1, 0, 2.0, 0.05, 253),
               0.05, 1e-9);
    /* unknown cells (and outside the grid) never count */
    tycho_grid_set(g, 10, 10, 255);
    CHECK(isinf(tycho_arc_first_hit(g, (tycho_pose2){0.3, 0.525, 0}, 0.2, 0, 3.0, 0.05, 0)));
    CHECK(isinf(tycho_arc_first_hit(g, (tycho_pose2){0.1, 0.5, M_PI}, 0.2, 0, 5.0, 0.05, 0)));
    /* bad dt or horizon: nothing checked */
    CHECK(isinf(tycho_arc_first_hit(g, (tycho_pose2){1.0, 0.5, 0}, 0.2, 0, 3.0, 0, 0)));
    tycho_grid_free(g);
    return check_summary("arc_check");
}
