/* The terrain robot (resting on a height field, roll and pitch in the
 * lidar3d convention, steps it cannot climb, mecanum sideways motion,
 * wheel and acceleration limits), the trajectory comparison, and planning
 * across unknown cells with the blocked-path check. */
#include "check.h"
#include "tycho/terrain.h"
#include "tycho/terrain_sim.h"
#include "tycho/trajectory.h"

#include <math.h>
#include <stdlib.h>

/* The terrain planner's path as x0, y0, x1, ... (the form
 * tycho_terrain_first_blocked takes); the cell count, 0 when none. */
static int plan_cells(const tycho_terrain *t, int sx, int sy, int gx, int gy,
                      const tycho_terrain_plan_opts *o, int *cells, int cap)
{
    tycho_path path;
    tycho_path_init(&path);
    int n = 0;
    if (tycho_terrain_plan(t, (tycho_cell){sx, sy}, (tycho_cell){gx, gy}, o, &path, NULL) ==
            TYCHO_OK &&
        path.count <= (size_t)cap) {
        n = (int)path.count;
        for (int i = 0; i < n; i++)
            cells[2 * i] = path.cells[i].x, cells[2 * i + 1] = path.cells[i].y;
    }
    tycho_path_release(&path);
    return n;
}

static tycho_heightfield *plane(double gx, double gy)
{
    tycho_heightfield *f = tycho_heightfield_new(100, 100, 0.1, -5, -5, NULL);
    for (int cy = 0; cy < 100; cy++)
        for (int cx = 0; cx < 100; cx++) {
            double x = -5 + (cx + 0.5) * 0.1, y = -5 + (cy + 0.5) * 0.1;
            tycho_heightfield_set(f, cx, cy, (float)(gx * x + gy * y));
        }
    return f;
}

/* The robot's own x and y axes, turned into the world by its roll, pitch and
 * yaw (tycho_rotation, the 3D LiDAR's convention), must lie in the ground
 * plane z = gx x + gy y: that ties the sim's angles to the sensor model's. */
static void check_on_plane(const tycho_pose3 *p, double gx, double gy, const char *what)
{
    double R[9];
    tycho_rotation(p->roll, p->pitch, p->yaw, R);
    double n[3] = {-gx, -gy, 1};
    double ax = R[0] * n[0] + R[3] * n[1] + R[6] * n[2]; /* (R e_x) . n */
    double ay = R[1] * n[0] + R[4] * n[1] + R[7] * n[2]; /* (R e_y) . n */
    CHECK_MSG(fabs(ax) < 0.01 && fabs(ay) < 0.01,
              "%s: body axes off the ground plane by %.4f, %.4f", what, ax, ay);
}

static void test_rests_on_slopes(void)
{
    tycho_terrain_robot r;
    tycho_terrain_robot_defaults(&r, TYCHO_BASE_DIFF);
    tycho_terrain_robot_state s;
    /* uphill along +x, facing +x: nose up, so a negative pitch */
    tycho_heightfield *f = plane(0.2, 0);
    CHECK(tycho_terrain_robot_place(&r, f, 0, 0, 0, &s));
    CHECK_NEAR(s.pose.pitch, -atan(0.2), 0.01);
    CHECK_NEAR(s.pose.roll, 0, 1e-6);
    CHECK_NEAR(s.pose.z, r.wheel_radius, 0.02);
    check_on_plane(&s.pose, 0.2, 0, "facing uphill");
    /* facing +y on the same slope: the left side (-x) is lower, a negative roll */
    CHECK(tycho_terrain_robot_place(&r, f, 0, 0, M_PI / 2, &s));
    CHECK_NEAR(s.pose.roll, -atan(0.2), 0.01);
    CHECK_NEAR(s.pose.pitch, 0, 1e-6);
    check_on_plane(&s.pose, 0.2, 0, "facing across");
    /* and an oblique one, facing 30 degrees */
    tycho_heightfield_free(f);
    f = plane(0.1, -0.15);
    CHECK(tycho_terrain_robot_place(&r, f, 1, 1, M_PI / 6, &s));
    check_on_plane(&s.pose, 0.1, -0.15, "oblique");
    /* off the field */
    CHECK(!tycho_terrain_robot_place(&r, f, 4.9, 0, 0, &s));
    tycho_heightfield_free(f);
}

static void test_steps(void)
{
    tycho_terrain_robot r;
    tycho_terrain_robot_defaults(&r, TYCHO_BASE_DIFF);
    tycho_terrain_robot_state s;
    tycho_heightfield *f = plane(0, 0);
    tycho_heightfield_box(f, 1.0, -5, 1.3, 5, 0.05); /* a 5 cm sill: climbable (max_step 0.08) */
    tycho_heightfield_box(f, 3.0, -5, 5, 5, 0.20);   /* a 20 cm step: not */
    CHECK(tycho_terrain_robot_place(&r, f, 0, 0, 0, &s));
    double top = 0;
    for (int i = 0; i < 400; i++) {
        tycho_terrain_robot_step(&r, f, &s, 0.4, 0, 0, 0.05);
        if (s.pose.z > top) top = s.pose.z;
    }
    CHECK_MSG(s.pose.x > 2.5 && s.pose.x + r.half_length < 3.0 + 0.05,
              "stopped at the step: x = %.3f", s.pose.x);
    CHECK(top > r.wheel_radius + 0.02); /* it did go over the sill */
    CHECK(s.bumps > 0 && s.vx == 0);
    tycho_heightfield_free(f);
}

static void test_mecanum_and_limits(void)
{
    tycho_terrain_robot r;
    tycho_terrain_robot_defaults(&r, TYCHO_BASE_MECANUM);
    tycho_terrain_robot_state s;
    tycho_heightfield *f = plane(0, 0);
    CHECK(tycho_terrain_robot_place(&r, f, 0, 0, 0, &s));
    /* acceleration limit: from rest, one step moves v by at most max_accel * dt */
    tycho_terrain_robot_step(&r, f, &s, 0, 0.3, 0, 0.05);
    CHECK_NEAR(s.vy, r.max_accel * 0.05, 1e-9);
    for (int i = 0; i < 40; i++) tycho_terrain_robot_step(&r, f, &s, 0, 0.3, 0, 0.05);
    CHECK_NEAR(s.vy, 0.3, 1e-9);
    CHECK(s.pose.y > 0.5 && fabs(s.pose.x) < 1e-9 &&
          fabs(s.pose.yaw) < 1e-9); /* straight sideways */
    CHECK(s.wheel[0] < 0 && s.wheel[1] > 0 && s.wheel[2] > 0 && s.wheel[3] < 0);
    /* a command beyond the wheels' speed: all wheels scaled, direction kept */
    for (int i = 0; i < 100; i++) tycho_terrain_robot_step(&r, f, &s, 2.0, 1.0, 0, 0.05);
    double top = 0;
    for (int i = 0; i < 4; i++) top = fmax(top, fabs(s.wheel[i]));
    CHECK_NEAR(top, r.max_wheel, 1e-9);
    CHECK_NEAR(s.vx / s.vy, 2.0, 1e-6);
    /* a differential drive ignores the sideways command */
    tycho_terrain_robot_defaults(&r, TYCHO_BASE_DIFF);
    CHECK(tycho_terrain_robot_place(&r, f, 0, 0, 0, &s));
    for (int i = 0; i < 20; i++) tycho_terrain_robot_step(&r, f, &s, 0, 0.3, 0, 0.05);
    CHECK(s.vy == 0 && fabs(s.pose.y) < 1e-12);
    tycho_err err = {0};
    r.half_width = 0;
    CHECK(tycho_terrain_robot_validate(&r, &err) == TYCHO_EINVAL);
    tycho_heightfield_free(f);
}

static void test_compare(void)
{
    /* a straight line, and the same line 0.5 m to the side, finely sampled */
    double a[4] = {0, 0, 10, 0}, b[202];
    for (int i = 0; i <= 100; i++) b[2 * i] = i * 0.1, b[2 * i + 1] = 0.5;
    tycho_traj_diff d;
    tycho_err err = {0};
    CHECK(tycho_traj_compare(a, 2, b, 101, 0.05, &d, &err) == TYCHO_OK);
    CHECK_NEAR(d.mean, 0.5, 1e-9);
    CHECK_NEAR(d.max, 0.5, 1e-9);
    CHECK_NEAR(d.length_diff, 0, 1e-9);
    CHECK(d.samples >= 200); /* A (two points) was sampled along its length */
    /* B goes 2 m further and comes back: length differs by 4, hausdorff sees it, A->B does not */
    double c[8] = {0, 0, 12, 0, 10, 0, 10, 0};
    CHECK(tycho_traj_compare(a, 2, c, 4, 0.05, &d, &err) == TYCHO_OK);
    CHECK_NEAR(d.max, 0, 1e-9);
    CHECK_NEAR(d.hausdorff, 2, 1e-9);
    CHECK_NEAR(d.length_diff, 4, 1e-9);
    /* a triangle bump of height 1 over [4, 6] against the line: max 1, mean small */
    double e[10] = {0, 0, 4, 0, 5, 1, 6, 0, 10, 0};
    CHECK(tycho_traj_compare(e, 5, a, 2, 0.01, &d, &err) == TYCHO_OK);
    CHECK_NEAR(d.max, 1, 1e-9);
    double bump_len = 2 * sqrt(2), total = 8 + bump_len;
    CHECK_NEAR(d.mean, (bump_len * 0.5) / total, 0.01); /* the mean height along the path */
    double bad[2] = {NAN, 0};
    CHECK(tycho_traj_compare(bad, 1, a, 2, 0.05, &d, &err) == TYCHO_EINVAL);
    CHECK(tycho_traj_compare(a, 0, a, 2, 0.05, &d, &err) == TYCHO_EINVAL);
    CHECK(tycho_traj_compare(a, 2, a, 2, 0, &d, &err) == TYCHO_EINVAL);
}

static void test_plan_through_unknown(void)
{
    /* 40 x 10 cells; only the first 10 columns seen, flat, with a wall at
     * column 5 except a gap at the top */
    tycho_terrain *t = tycho_terrain_new(40, 10, 0.1, 0, 0, NULL);
    for (int cy = 0; cy < 10; cy++)
        for (int cx = 0; cx < 10; cx++) {
            double z = (cx == 5 && cy < 8) ? 0.5 : 0;
            double p[3] = {(cx + 0.5) * 0.1, (cy + 0.5) * 0.1, z};
            tycho_terrain_add_points(t, p, 1);
        }
    tycho_trav_params tp;
    tycho_trav_defaults(&tp);
    tycho_err err = {0};
    CHECK(tycho_terrain_traversability(t, &tp, &err) == TYCHO_OK);
    CHECK(!tycho_terrain_traversable(t, 20, 5) && !tycho_terrain_blocked(t, 20, 5)); /* unknown */
    CHECK(tycho_terrain_blocked(t, 5, 2) &&
          tycho_terrain_blocked(t, 4, 2)); /* wall and its climb */
    int cells[2 * 400];
    tycho_terrain_plan_opts o;
    tycho_terrain_plan_defaults(&o);
    CHECK(plan_cells(t, 1, 1, 35, 1, &o, cells, 400) == 0); /* unknown is a wall by default */
    o.unknown_cost = 1.5;
    int n = plan_cells(t, 1, 1, 35, 1, &o, cells, 400);
    CHECK(n > 0);
    CHECK(tycho_terrain_first_blocked(t, cells, n) == -1);
    bool through_gap = false;
    for (int i = 0; i < n; i++)
        through_gap = through_gap || (cells[2 * i] == 5 && cells[2 * i + 1] >= 8);
    CHECK(through_gap);
    /* now the unknown part turns out to hold a wall across the whole map at column 20 */
    for (int cy = 0; cy < 10; cy++)
        for (int cx = 10; cx < 40; cx++) {
            double p[3] = {(cx + 0.5) * 0.1, (cy + 0.5) * 0.1, cx == 20 ? 0.5 : 0};
            tycho_terrain_add_points(t, p, 1);
        }
    CHECK(tycho_terrain_traversability(t, &tp, &err) == TYCHO_OK);
    int k = tycho_terrain_first_blocked(t, cells, n);
    CHECK(k > 0 && (cells[2 * k] == 19 || cells[2 * k] == 20));
    CHECK(plan_cells(t, 1, 1, 35, 1, &o, cells, 400) == 0);
    tycho_terrain_free(t);
}

/* Roughness as cost: a band of rough (but climbable) cells across the way,
 * smooth only near its top end: ignored at weight 0, avoided at weight 5. */
static void test_roughness_cost(void)
{
    tycho_terrain *t = tycho_terrain_new(40, 20, 0.1, 0, 0, NULL);
    for (int cy = 0; cy < 20; cy++)
        for (int cx = 0; cx < 40; cx++) {
            bool rough = cx >= 18 && cx <= 21 && cy < 16;
            double p[6] = {(cx + 0.3) * 0.1, (cy + 0.5) * 0.1, 0,
                           (cx + 0.7) * 0.1, (cy + 0.5) * 0.1, rough ? 0.06 : 0};
            tycho_terrain_add_points(t, p, 2);
        }
    tycho_trav_params tp;
    tycho_trav_defaults(&tp);
    tp.slope_coef = 1.0; /* the band's mid heights step by 3 cm: within the slope limit */
    tycho_err err = {0};
    CHECK(tycho_terrain_traversability(t, &tp, &err) == TYCHO_OK);
    CHECK(tycho_terrain_traversable(t, 19, 5)); /* rough, yet traversable */
    int cells[2 * 800];
    tycho_terrain_plan_opts o;
    tycho_terrain_plan_defaults(&o);
    int n = plan_cells(t, 2, 5, 37, 5, &o, cells, 800);
    int top = 0;
    for (int i = 0; i < n; i++) top = cells[2 * i + 1] > top ? cells[2 * i + 1] : top;
    CHECK_MSG(n > 0 && top <= 6, "weight 0: straight through the band (highest row %d)", top);
    o.roughness_weight = 5;
    n = plan_cells(t, 2, 5, 37, 5, &o, cells, 800);
    top = 0;
    for (int i = 0; i < n; i++) top = cells[2 * i + 1] > top ? cells[2 * i + 1] : top;
    CHECK_MSG(n > 0 && top >= 16, "weight 5: round the band's smooth end (highest row %d)", top);
    tycho_terrain_free(t);
}

/* A batch with refresh replaces what the cells it touches held; others keep theirs. */
static void test_refresh(void)
{
    tycho_terrain *t = tycho_terrain_new(4, 1, 0.1, 0, 0, NULL);
    double box[6] = {0.05, 0.05, 0.5, 0.15, 0.05, 0.5}; /* a box top in cells 0 and 1 */
    tycho_terrain_add_batch(t, box, 2, true);
    double floor[3] = {0.05, 0.05, 0.0}; /* the floor seen again in cell 0 only */
    tycho_terrain_add_batch(t, floor, 1, true);
    double lo, hi;
    int n;
    tycho_terrain_cell(t, 0, 0, &lo, &hi, &n);
    CHECK(n == 1 && hi == 0 && lo == 0);
    tycho_terrain_cell(t, 1, 0, &lo, &hi, &n);
    CHECK(n == 1 && fabs(hi - 0.5) < 1e-6);
    tycho_terrain_add_batch(t, floor, 1, false); /* without refresh: accumulate */
    tycho_terrain_add_batch(t, box, 1, false);
    tycho_terrain_cell(t, 0, 0, &lo, &hi, &n);
    CHECK(n == 3 && lo == 0 && fabs(hi - 0.5) < 1e-6);
    tycho_terrain_free(t);
    /* a height field's copy restores what a moving box covered */
    tycho_heightfield *f = plane(0, 0), *ground = tycho_heightfield_copy(f, NULL);
    tycho_heightfield_box(f, 1, 1, 1.5, 1.5, 0.4);
    CHECK(tycho_heightfield_at(f, 1.25, 1.25) > 0.39f);
    CHECK(tycho_heightfield_restore(f, ground, 1, 1, 1.5, 1.5));
    CHECK(tycho_heightfield_at(f, 1.25, 1.25) == 0.0f);
    tycho_heightfield_free(ground);
    tycho_heightfield_free(f);
}

int main(void)
{
    test_refresh();
    test_roughness_cost();
    test_rests_on_slopes();
    test_steps();
    test_mecanum_and_limits();
    test_compare();
    test_plan_through_unknown();
    return check_summary("terrain_sim");
}
