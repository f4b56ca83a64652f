/* Terrain traversability on hand-made height fields, terrain A*, and
 * mecanum kinematics. */
#include "check.h"
#include "tycho/mecanum.h"
#include "tycho/terrain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One point per cell at its centre with height z(x, y), plus extra points. */
static tycho_terrain *field(int w, int h, double res, double (*z)(double, double))
{
    tycho_err err = {0};
    tycho_terrain *t = tycho_terrain_new(w, h, res, 0, 0, &err);
    for (int cy = 0; cy < h; cy++)
        for (int cx = 0; cx < w; cx++) {
            double x = (cx + 0.5) * res, y = (cy + 0.5) * res;
            double p[3] = {x, y, z(x, y)};
            tycho_terrain_add_points(t, p, 1);
        }
    return t;
}

static double slope_under(double x, double y)
{
    (void)y;
    return 0.29 * x;
}
static double slope_over(double x, double y)
{
    (void)y;
    return 0.31 * x;
}
static double flat(double x, double y)
{
    (void)x;
    (void)y;
    return 0;
}

static void test_plane_fit(void)
{
    tycho_terrain *t = tycho_terrain_new(20, 20, 0.1, 0, 0, NULL);
    /* a tilted plane z = 0.1 x + 0.05 y, one point per cell centre */
    for (int cy = 0; cy < 20; cy++)
        for (int cx = 0; cx < 20; cx++) {
            double p[3] = {(cx + 0.5) * 0.1, (cy + 0.5) * 0.1,
                           0.1 * (cx + 0.5) * 0.1 + 0.05 * (cy + 0.5) * 0.1};
            tycho_terrain_add_points(t, p, 1);
        }
    double slope, rough;
    CHECK(tycho_terrain_plane_fit(t, 10, 10, 1, &slope, &rough));
    CHECK_MSG(fabs(slope - atan(hypot(0.1, 0.05))) < 1e-6 && rough < 1e-6, "slope %g rough %g",
              slope, rough);
    /* at the corner only four cells are there: still a plane */
    CHECK(tycho_terrain_plane_fit(t, 0, 0, 1, &slope, &rough) &&
          fabs(slope - atan(hypot(0.1, 0.05))) < 1e-6);
    tycho_terrain_free(t);
    /* a checkerboard of +-2 cm: flat on average, rough */
    t = tycho_terrain_new(20, 20, 0.1, 0, 0, NULL);
    for (int cy = 0; cy < 20; cy++)
        for (int cx = 0; cx < 20; cx++) {
            double p[3] = {(cx + 0.5) * 0.1, (cy + 0.5) * 0.1, ((cx + cy) % 2) ? 0.02 : -0.02};
            tycho_terrain_add_points(t, p, 1);
        }
    CHECK(tycho_terrain_plane_fit(t, 10, 10, 2, &slope, &rough));
    CHECK_MSG(slope < 0.02 && fabs(rough - 0.02) < 0.002, "slope %g rough %g", slope, rough);
    /* nothing seen, or a single line of cells: no plane */
    CHECK(!tycho_terrain_plane_fit(t, 10, 10, 0, &slope, &rough));
    tycho_terrain_free(t);
    t = tycho_terrain_new(20, 20, 0.1, 0, 0, NULL);
    for (int cx = 0; cx < 20; cx++) {
        double p[3] = {(cx + 0.5) * 0.1, 1.05, 0};
        tycho_terrain_add_points(t, p, 1);
    }
    CHECK(!tycho_terrain_plane_fit(t, 10, 10, 1, &slope, &rough));
    CHECK(!tycho_terrain_plane_fit(t, 3, 3, 1, &slope, &rough));
    tycho_terrain_free(t);
}

int main(void)
{
    test_plane_fit();
    tycho_trav_params p;
    tycho_trav_defaults(&p); /* step_coef 1, slope_coef 0.3 */
    tycho_err err = {0};
    /* slopes just under and just over the limit */
    tycho_terrain *t = field(10, 10, 0.1, slope_under);
    CHECK(tycho_terrain_traversability(t, &p, &err) == TYCHO_OK);
    CHECK(tycho_terrain_traversable(t, 5, 5));
    CHECK_NEAR(tycho_terrain_slope(t, 5, 5), 0.29, 1e-6);
    tycho_terrain_free(t);
    t = field(10, 10, 0.1, slope_over);
    tycho_terrain_traversability(t, &p, &err);
    CHECK(!tycho_terrain_traversable(t, 5, 5));
    tycho_terrain_free(t);
    /* a step inside one cell just under and just over res * step_coef */
    t = field(10, 10, 0.1, flat);
    double under[3] = {0.55, 0.55, 0.099}, over[3] = {0.25, 0.25, 0.101};
    tycho_terrain_add_points(t, under, 1);
    tycho_terrain_add_points(t, over, 1);
    p.slope_coef = 10; /* the step only */
    tycho_terrain_traversability(t, &p, &err);
    CHECK(tycho_terrain_traversable(t, 5, 5));
    CHECK(!tycho_terrain_traversable(t, 2, 2));
    double zmin, zmax;
    int count;
    CHECK(tycho_terrain_cell(t, 2, 2, &zmin, &zmax, &count) && count == 2 && zmin == 0 &&
          fabs(zmax - 0.101) < 1e-6);
    /* the barrier grows the untraversable cell by the robot's half-size */
    p.barrier = 0.2;
    tycho_terrain_traversability(t, &p, &err);
    CHECK(!tycho_terrain_traversable(t, 4, 2) && tycho_terrain_traversable(t, 5, 2));
    CHECK(!tycho_terrain_traversable(t, 2, 4) && tycho_terrain_traversable(t, 2, 5));
    /* A* goes round it; unknown cells are walls */
    tycho_path path;
    tycho_path_init(&path);
    tycho_terrain_plan_opts po;
    tycho_terrain_plan_defaults(&po);
    CHECK(tycho_terrain_plan(t, (tycho_cell){0, 7}, (tycho_cell){5, 0}, &po, &path, &err) ==
          TYCHO_OK);
    CHECK(path.count > 0);
    CHECK(path.cells[0].x == 0 && path.cells[0].y == 7);
    CHECK(path.count > 0 && path.cells[path.count - 1].x == 5 && path.cells[path.count - 1].y == 0);
    for (size_t i = 0; i < path.count; i++)
        CHECK(tycho_terrain_traversable(t, path.cells[i].x, path.cells[i].y));
    /* longer than the straight octile distance (5 diagonals + 2 straight) */
    CHECK(path.cost > (5 * M_SQRT2 + 2) * 0.1 + 1e-6);
    CHECK(path.length >= 5 * M_SQRT2 + 2 - 1e-9);
    /* goal untraversable: no path, said so */
    CHECK(tycho_terrain_plan(t, (tycho_cell){0, 7}, (tycho_cell){2, 2}, NULL, &path, &err) ==
          TYCHO_ENOPATH);
    CHECK(path.count == 0 && strstr(err.msg, "goal") != NULL);
    p.barrier = -1;
    CHECK(tycho_terrain_traversability(t, &p, &err) == TYCHO_EINVAL);
    tycho_terrain_free(t);
    t = tycho_terrain_new(5, 1, 0.1, 0, 0, &err);
    double line[] = {0.05, 0.05, 0, 0.15, 0.05, 0, 0.45, 0.05, 0};
    tycho_terrain_add_points(t, line, 3);
    tycho_trav_defaults(&p);
    tycho_terrain_traversability(t, &p, &err);
    /* a gap of unknown cells: no path unless unknown is priced */
    po.slope_weight = 0;
    CHECK(tycho_terrain_plan(t, (tycho_cell){0, 0}, (tycho_cell){4, 0}, &po, &path, &err) ==
          TYCHO_ENOPATH);
    po.unknown_cost = 2;
    CHECK(tycho_terrain_plan(t, (tycho_cell){0, 0}, (tycho_cell){4, 0}, &po, &path, &err) ==
          TYCHO_OK);
    CHECK(path.count == 5);
    tycho_path_release(&path);
    tycho_terrain_free(t);

    /* mecanum: inverse then forward gives the twist back */
    tycho_mecanum m;
    tycho_mecanum_defaults(&m);
    double w[4], vx, vy, wz;
    tycho_mecanum_inverse(&m, 0.3, -0.2, 0.7, w);
    tycho_mecanum_forward(&m, w, &vx, &vy, &wz);
    CHECK_NEAR(vx, 0.3, 1e-12);
    CHECK_NEAR(vy, -0.2, 1e-12);
    CHECK_NEAR(wz, 0.7, 1e-12);
    /* pure sideways: front-left and rear-right turn backwards */
    tycho_mecanum_inverse(&m, 0, 0.1, 0, w);
    CHECK(w[0] < 0 && w[3] < 0 && w[1] > 0 && w[2] > 0);
    CHECK_NEAR(w[1], 0.1 / 0.05, 1e-12);
    /* yaw rate: the (L1 + L2) term */
    tycho_mecanum_inverse(&m, 0, 0, 1.0, w);
    CHECK_NEAR(w[1], (0.200 + 0.225) / 0.05, 1e-12);
    /* holonomic motion: sideways at yaw 90 deg moves along -x */
    tycho_pose2 q = tycho_mecanum_step((tycho_pose2){0, 0, M_PI / 2}, 0, 1, 0, 1);
    CHECK_NEAR(q.x, -1, 1e-12);
    CHECK_NEAR(q.y, 0, 1e-12);
    /* a full turn while moving forward comes back to the start */
    q = tycho_mecanum_step((tycho_pose2){1, 2, 0}, 0.5, 0, 2 * M_PI, 1);
    CHECK_NEAR(q.x, 1, 1e-9);
    CHECK_NEAR(q.y, 2, 1e-9);
    return check_summary("terrain");
}
