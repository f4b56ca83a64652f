/* The driven trail thinned as it grows (tycho/trail.h): every point added
 * stays within the tolerance of the line kept, the newest point is always
 * the last, turns and reversals are kept, and a tolerance of 0 keeps all. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "tycho/rng.h"
#include "tycho/trail.h"

/* distance from p to the polyline of the trail's kept points */
static double to_polyline(const tycho_trail *tr, double px, double py)
{
    double best = INFINITY;
    for (size_t k = 0; k + 1 < tr->n || (k == 0 && tr->n == 1); k++) {
        const double *a = tr->xyyaw + 3 * k, *b = tr->n > 1 ? a + 3 : a;
        double dx = b[0] - a[0], dy = b[1] - a[1], len2 = dx * dx + dy * dy;
        double u = len2 > 0 ? ((px - a[0]) * dx + (py - a[1]) * dy) / len2 : 0;
        u = u < 0 ? 0 : u > 1 ? 1 : u;
        double d = hypot(a[0] + u * dx - px, a[1] + u * dy - py);
        if (d < best) best = d;
    }
    return best;
}

static void straight_and_turns(void)
{
    tycho_trail tr;
    tycho_trail_init(&tr, 0.01);
    /* 2 m east in 5 cm steps, then 1 m north: three points */
    for (int i = 0; i <= 40; i++) CHECK(tycho_trail_add(&tr, i * 0.05, 0, 0) == TYCHO_OK);
    for (int i = 1; i <= 20; i++) CHECK(tycho_trail_add(&tr, 2, i * 0.05, 0) == TYCHO_OK);
    CHECK_MSG(tr.n == 3, "%zu points", tr.n);
    CHECK(tr.xyyaw[3] == 2 && tr.xyyaw[4] == 0 && tr.xyyaw[6] == 2 &&
          fabs(tr.xyyaw[7] - 1) < 1e-12);
    /* back the way it came: the far end is kept, not folded away */
    for (int i = 1; i <= 10; i++) tycho_trail_add(&tr, 2, 1 - i * 0.05, 0);
    CHECK_MSG(tr.n == 4 && fabs(tr.xyyaw[3 * 2 + 1] - 1) < 1e-12, "%zu points", tr.n);
    CHECK(fabs(tr.xyyaw[3 * 3 + 1] - 0.5) < 1e-12); /* the newest is last */
    tycho_trail_free(&tr);
    CHECK(tr.n == 0 && tr.xyyaw == NULL && tr.tolerance == 0.01);

    /* a long straight run keeps a point every TYCHO_TRAIL_RUN + 1 */
    tycho_trail_init(&tr, 0.01);
    for (int i = 0; i <= 10 * (TYCHO_TRAIL_RUN + 1); i++) tycho_trail_add(&tr, i * 0.01, 0, 0);
    CHECK_MSG(tr.n == 11, "%zu points", tr.n);
    tycho_trail_free(&tr);
}

static void every_point_close(void)
{
    tycho_rng rng;
    tycho_rng_seed(&rng, 7);
    for (int trial = 0; trial < 50; trial++) {
        double tol = 0.002 + 0.03 * tycho_rng_uniform(&rng);
        tycho_trail tr, all;
        tycho_trail_init(&tr, tol);
        tycho_trail_init(&all, 0);
        double x = 0, y = 0, heading = 0, turn = 0;
        for (int i = 0; i < 2000; i++) {
            if (tycho_rng_uniform(&rng) < 0.02) turn = (tycho_rng_uniform(&rng) - 0.5) * 0.6;
            if (tycho_rng_uniform(&rng) < 0.05) turn = 0;
            heading += turn;
            double step = 0.05 * tycho_rng_uniform(&rng);
            x += step * cos(heading), y += step * sin(heading);
            tycho_trail_add(&tr, x, y, heading);
            tycho_trail_add(&all, x, y, heading);
            /* the newest point is always the last one */
            if (tr.xyyaw[3 * (tr.n - 1)] != x || tr.xyyaw[3 * (tr.n - 1) + 1] != y) {
                CHECK_MSG(0, "trial %d point %d not last", trial, i);
                break;
            }
        }
        CHECK(all.n == 2000);
        CHECK(tr.xyyaw[0] == all.xyyaw[0] && tr.xyyaw[1] == all.xyyaw[1]);
        double worst = 0;
        for (size_t k = 0; k < all.n; k++) {
            double d = to_polyline(&tr, all.xyyaw[3 * k], all.xyyaw[3 * k + 1]);
            if (d > worst) worst = d;
        }
        CHECK_MSG(worst <= tol + 1e-12, "trial %d: a point %.4f m off (tolerance %.4f)", trial,
                  worst, tol);
        CHECK_MSG(tr.n < all.n / 2, "trial %d: %zu of %zu points kept", trial, tr.n, all.n);
        tycho_trail_free(&tr);
        tycho_trail_free(&all);
    }
}

int main(void)
{
    straight_and_turns();
    every_point_close();
    return check_summary("test_trail");
}
