#include "check.h"
#include "tycho/coverage.h"
#include "tycho/grid.h"

static void test_new_and_errors(void)
{
    tycho_err err = {0};
    tycho_pose2 o = {0, 0, 0};
    CHECK(tycho_grid_new(0, 10, 0.05, o, 0, &err) == NULL);
    CHECK(err.code == TYCHO_EINVAL);
    CHECK(tycho_grid_new(10, 10, 0.0, o, 0, &err) == NULL);
    CHECK(tycho_grid_new(10, 10, -1, o, 0, &err) == NULL);
    CHECK(tycho_grid_new(1 << 16, 1 << 16, 0.05, o, 0, &err) == NULL);

    tycho_grid *g = tycho_grid_new(20, 10, 0.5, o, TYCHO_COST_UNKNOWN, &err);
    CHECK(g != NULL);
    CHECK(tycho_grid_width(g) == 20 && tycho_grid_height(g) == 10);
    CHECK(tycho_grid_get(g, 3, 3) == TYCHO_COST_UNKNOWN);
    CHECK(tycho_grid_set(g, 3, 4, 254));
    CHECK(!tycho_grid_set(g, 20, 4, 254));
    CHECK(tycho_grid_get(g, 3, 4) == 254);
    CHECK(tycho_grid_get(g, -1, 4) == TYCHO_COST_UNKNOWN);
    tycho_grid_stats s;
    tycho_grid_stats_compute(g, &s);
    CHECK(s.lethal == 1 && s.unknown == 199 && s.free == 0);
    tycho_grid_free(g);
}

static void test_frames(void)
{
    tycho_pose2 o = {1.0, 2.0, 0.0};
    tycho_grid *g = tycho_grid_new(10, 10, 0.5, o, 0, NULL);
    int cx, cy;
    CHECK(tycho_grid_world_to_cell(g, 1.26, 2.74, &cx, &cy));
    CHECK(cx == 0 && cy == 1);
    CHECK(!tycho_grid_world_to_cell(g, 0.9, 2.1, &cx, &cy));
    CHECK(cx == -1 && cy == 0);
    double x, y;
    tycho_grid_cell_to_world(g, 2, 3, &x, &y);
    CHECK_NEAR(x, 2.25, 1e-12);
    CHECK_NEAR(y, 3.75, 1e-12);
    tycho_grid_free(g);

    /* rotated origin: +90 degrees, so map +x points along world +y */
    tycho_pose2 r = {0, 0, M_PI / 2};
    g = tycho_grid_new(10, 10, 1.0, r, 0, NULL);
    tycho_grid_cell_to_world(g, 2, 0, &x, &y);
    CHECK_NEAR(x, -0.5, 1e-9);
    CHECK_NEAR(y, 2.5, 1e-9);
    CHECK(tycho_grid_world_to_cell(g, -0.5, 2.5, &cx, &cy));
    CHECK(cx == 2 && cy == 0);
    /* round trip over every cell */
    int bad = 0;
    for (int j = 0; j < 10; j++)
        for (int i = 0; i < 10; i++) {
            tycho_grid_cell_to_world(g, i, j, &x, &y);
            if (!tycho_grid_world_to_cell(g, x, y, &cx, &cy) || cx != i || cy != j) bad++;
        }
    CHECK(bad == 0);
    tycho_grid_free(g);
}

static void test_copy_crop_grow(void)
{
    tycho_pose2 o = {-1, -1, 0};
    tycho_grid *g = tycho_grid_new(8, 6, 0.25, o, 0, NULL);
    tycho_grid_set(g, 5, 4, 254);
    tycho_grid *c = tycho_grid_copy(g, NULL);
    CHECK(tycho_grid_get(c, 5, 4) == 254);
    tycho_grid_set(c, 5, 4, 0);
    CHECK(tycho_grid_get(g, 5, 4) == 254); /* deep copy */
    tycho_grid_free(c);

    tycho_grid *k = tycho_grid_crop(g, 4, 3, 10, 10, NULL);
    CHECK(k && tycho_grid_width(k) == 4 && tycho_grid_height(k) == 3);
    CHECK(tycho_grid_get(k, 1, 1) == 254);
    double x1, y1, x2, y2;
    tycho_grid_cell_to_world(g, 5, 4, &x1, &y1);
    tycho_grid_cell_to_world(k, 1, 1, &x2, &y2);
    CHECK_NEAR(x1, x2, 1e-12);
    CHECK_NEAR(y1, y2, 1e-12);
    tycho_grid_free(k);
    tycho_err err;
    CHECK(tycho_grid_crop(g, 20, 20, 2, 2, &err) == NULL && err.code == TYCHO_ERANGE);
    /* paste: clipped at every edge, cells land where asked */
    {
        tycho_grid *dst = tycho_grid_new(6, 5, 0.05, (tycho_pose2){0, 0, 0}, 7, NULL);
        tycho_grid *src = tycho_grid_new(3, 3, 0.05, (tycho_pose2){0, 0, 0}, 0, NULL);
        tycho_grid_set(src, 2, 2, 254);
        CHECK(tycho_grid_paste(dst, src, 1, 1) == 9);
        CHECK(tycho_grid_get(dst, 3, 3) == 254 && tycho_grid_get(dst, 1, 1) == 0);
        CHECK(tycho_grid_get(dst, 0, 0) == 7 && tycho_grid_get(dst, 4, 4) == 7);
        CHECK(tycho_grid_paste(dst, src, 4, 3) == 4); /* 2x2 fits */
        CHECK(tycho_grid_get(dst, 5, 4) == 0);
        CHECK(tycho_grid_paste(dst, src, -2, -2) == 1); /* only src (2,2) */
        CHECK(tycho_grid_get(dst, 0, 0) == 254);
        CHECK(tycho_grid_paste(dst, src, 6, 0) == 0);
        CHECK(tycho_grid_paste(dst, src, -3, 0) == 0);
        tycho_grid_free(src);
        tycho_grid_free(dst);
    }

    /* grow to the lower left: the lethal cell keeps its world position */
    CHECK(tycho_grid_grow_to(g, -3.0, -2.0, 2, NULL) == TYCHO_OK);
    CHECK(tycho_grid_width(g) > 8 && tycho_grid_height(g) > 6);
    int cx, cy;
    CHECK(tycho_grid_world_to_cell(g, x1, y1, &cx, &cy));
    CHECK(tycho_grid_get(g, cx, cy) == 254);
    CHECK(tycho_grid_world_to_cell(g, -3.0, -2.0, &cx, &cy));
    CHECK(tycho_grid_get(g, cx, cy) == TYCHO_COST_UNKNOWN);
    CHECK(cx >= 2 && cy >= 2);
    tycho_grid_free(g);
}

static void test_logodds(void)
{
    tycho_pose2 o = {0, 0, 0};
    tycho_grid *g = tycho_grid_new(4, 4, 0.1, o, TYCHO_COST_UNKNOWN, NULL);
    tycho_grid_observe(g, 1, 1, true);
    CHECK(tycho_grid_get(g, 1, 1) == 254); /* 0.7 >= 0.65 */
    tycho_grid_observe(g, 2, 2, false);
    CHECK(tycho_grid_get(g, 2, 2) == 255); /* 0.4: not yet free */
    for (int i = 0; i < 3; i++) tycho_grid_observe(g, 2, 2, false);
    CHECK(tycho_grid_get(g, 2, 2) == 0);
    for (int i = 0; i < 100; i++) tycho_grid_observe(g, 2, 2, false);
    float *lo = tycho_grid_logodds(g);
    CHECK_NEAR(lo[2 * 4 + 2], log(0.12 / 0.88), 1e-5); /* clamped */
    /* a set() resets the belief to match */
    tycho_grid_set(g, 2, 2, 254);
    CHECK(lo[2 * 4 + 2] > 0);
    tycho_grid_free(g);
}

static void test_coverage(void)
{
    /* truth: 10x10 at 0.1 m, free inside a wall ring, a closed 2x2 pocket */
    tycho_pose2 o = {0, 0, 0};
    tycho_grid *truth = tycho_grid_new(10, 10, 0.1, o, 0, NULL);
    for (int i = 0; i < 10; i++) {
        tycho_grid_set(truth, i, 0, 254);
        tycho_grid_set(truth, i, 9, 254);
        tycho_grid_set(truth, 0, i, 254);
        tycho_grid_set(truth, 9, i, 254);
    }
    for (int i = 5; i <= 8; i++) {
        tycho_grid_set(truth, i, 5, 254);
        tycho_grid_set(truth, 5, i, 254);
    }
    /* reachable: 8*8 interior - 7 wall cells - 9 pocket cells = 48 */
    tycho_grid *map = tycho_grid_new(20, 20, 0.05, o, TYCHO_COST_UNKNOWN, NULL);
    size_t reach, mapped;
    CHECK(tycho_grid_coverage(truth, map, 0.15, 0.15, &reach, &mapped, NULL) == TYCHO_OK);
    CHECK(reach == 48 && mapped == 0);
    for (int j = 0; j < 10; j++) /* map the lower half (y < 0.5 m) */
        for (int i = 0; i < 20; i++) tycho_grid_set(map, i, j, 0);
    CHECK(tycho_grid_coverage(truth, map, 0.15, 0.15, &reach, &mapped, NULL) == TYCHO_OK);
    CHECK(reach == 48 && mapped == 32); /* rows 1..4, columns 1..8 */
    tycho_err err;
    CHECK(tycho_grid_coverage(truth, map, 0.05, 0.05, &reach, &mapped, &err) == TYCHO_EINVAL);
    tycho_grid_free(truth);
    tycho_grid_free(map);
}

int main(void)
{
    test_coverage();
    test_new_and_errors();
    test_frames();
    test_copy_crop_grow();
    test_logodds();
    return check_summary("test_grid");
}
