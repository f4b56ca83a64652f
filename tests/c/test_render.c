#include "check.h"
#include "tycho/render.h"

#include <string.h>
#include <unistd.h>

static bool is(const tycho_picture *p, int px, int py, int r, int g, int b)
{
    tycho_rgb c;
    if (!tycho_picture_pixel(p, px, py, &c)) return false;
    return c.r == r && c.g == g && c.b == b;
}

static bool is_rgb(const tycho_picture *p, int px, int py, tycho_rgb want)
{
    return is(p, px, py, want.r, want.g, want.b);
}

static void test_cells_and_orientation(void)
{
    tycho_pose2 o = {0, 0, 0};
    tycho_grid *g = tycho_grid_new(4, 3, 0.1, o, 0, NULL);
    tycho_grid_set(g, 0, 0, 254); /* bottom-left */
    tycho_grid_set(g, 3, 2, 255); /* top-right */
    tycho_grid_set(g, 1, 2, 253); /* top row */
    tycho_grid_set(g, 2, 1, 100);
    tycho_picture *p = tycho_picture_new(g, 3, NULL);
    CHECK(p != NULL);
    const tycho_image *img = tycho_picture_image(p);
    CHECK(img->width == 12 && img->height == 9 && img->channels == 3);
    /* every pixel of the bottom-left cell's block is black; image bottom = grid row 0 */
    bool block = true;
    for (int y = 6; y < 9; y++)
        for (int x = 0; x < 3; x++) block = block && is(p, x, y, 0, 0, 0);
    CHECK(block);
    CHECK(is(p, 11, 0, 128, 128, 128)); /* top-right: unknown grey */
    CHECK(is(p, 9, 2, 128, 128, 128));
    CHECK(is(p, 4, 1, 139, 0, 0));     /* inscribed, top row */
    CHECK(is(p, 0, 0, 255, 255, 255)); /* free, top-left */
    CHECK(is_rgb(p, 7, 4, tycho_render_cost_color(100)));
    CHECK(!is(p, 7, 4, 255, 255, 255));
    tycho_rgb c;
    CHECK(!tycho_picture_pixel(p, 12, 0, &c) && !tycho_picture_pixel(p, 0, -1, &c));

    /* the inflated ramp: ends as documented, darker with cost */
    tycho_rgb lo = tycho_render_cost_color(1), hi = tycho_render_cost_color(252);
    CHECK(lo.r == 200 && lo.g == 225 && lo.b == 255);
    CHECK(hi.r == 120 && hi.g == 40 && hi.b == 160);
    int mono = 1;
    for (int k = 2; k <= 252; k++) {
        tycho_rgb a = tycho_render_cost_color((uint8_t)(k - 1)),
                  b = tycho_render_cost_color((uint8_t)k);
        if (b.r + b.g + b.b > a.r + a.g + a.b) mono = 0;
    }
    CHECK(mono);
    tycho_picture_free(p);
    tycho_grid_free(g);
}

static void test_world_points(void)
{
    tycho_pose2 o = {1.0, 2.0, 0};
    tycho_grid *g = tycho_grid_new(10, 8, 0.5, o, 0, NULL);
    tycho_picture *p = tycho_picture_new(g, 4, NULL);
    double x, y, px, py;
    tycho_grid_cell_to_world(g, 3, 1, &x, &y); /* (2.75, 2.75) */
    tycho_picture_world_to_pixel(p, x, y, &px, &py);
    CHECK_NEAR(px, 14.0, 1e-9); /* 3.5 cells * 4 */
    CHECK_NEAR(py, 26.0, 1e-9); /* (8 - 1.5) cells * 4 */
    tycho_rgb red = {255, 0, 0};
    tycho_picture_marker(p, x, y, TYCHO_MARKER_DOT, 1.0, 1, red);
    CHECK(is(p, 13, 25, 255, 0, 0) && is(p, 14, 26, 255, 0, 0));
    CHECK(is(p, 16, 26, 255, 255, 255) && is(p, 14, 23, 255, 255, 255));
    /* the origin corner is the image's bottom-left corner */
    tycho_picture_world_to_pixel(p, 1.0, 2.0, &px, &py);
    CHECK_NEAR(px, 0, 1e-9);
    CHECK_NEAR(py, 32, 1e-9);

    /* ring and cross */
    tycho_rgb blue = {0, 0, 255};
    tycho_grid_cell_to_world(g, 6, 5, &x, &y); /* pixel (26, 10) */
    tycho_picture_marker(p, x, y, TYCHO_MARKER_CIRCLE, 5, 1, blue);
    CHECK(is(p, 30, 10, 0, 0, 255) && is(p, 26, 14, 0, 0, 255) && is(p, 21, 9, 0, 0, 255));
    CHECK(is(p, 32, 10, 255, 255, 255) && is(p, 28, 10, 255, 255, 255));
    CHECK(is(p, 26, 10, 255, 255, 255)); /* hollow */
    tycho_picture_marker(p, x, y, TYCHO_MARKER_CROSS, 4, 1, red);
    CHECK(is(p, 26, 10, 255, 0, 0) && is(p, 28, 12, 255, 0, 0) && is(p, 23, 12, 255, 0, 0));
    CHECK(is(p, 26, 12, 255, 255, 255)); /* an X, not a + */
    tycho_picture_free(p);

    /* rotated grid: +90 degrees; a world point still lands on its cell's block */
    tycho_pose2 r = {0, 0, M_PI / 2};
    tycho_grid *gr = tycho_grid_new(6, 4, 1.0, r, 0, NULL);
    tycho_grid_set(gr, 4, 1, 254);
    p = tycho_picture_new(gr, 5, NULL);
    tycho_grid_cell_to_world(gr, 4, 1, &x, &y);
    tycho_picture_world_to_pixel(p, x, y, &px, &py);
    CHECK_NEAR(px, 22.5, 1e-9);
    CHECK_NEAR(py, 12.5, 1e-9);
    CHECK(is(p, 22, 12, 0, 0, 0));
    /* world heading +y is the grid's +x: a pose arrow at yaw pi/2 points right */
    tycho_rgb green = {0, 200, 0};
    tycho_grid_cell_to_world(gr, 1, 2, &x, &y); /* pixel (7.5, 7.5) */
    tycho_picture_pose(p, x, y, M_PI / 2, 12, 1, green);
    CHECK(is(p, 17, 7, 0, 200, 0));
    CHECK(!is(p, 7, 17, 0, 200, 0) && !is(p, 0, 7, 0, 200, 0));
    tycho_picture_free(p);
    tycho_grid_free(gr);
    tycho_grid_free(g);
}

static void test_paths_and_clipping(void)
{
    tycho_pose2 o = {0, 0, 0};
    tycho_grid *g = tycho_grid_new(20, 20, 0.1, o, 0, NULL);
    tycho_picture *p = tycho_picture_new(g, 2, NULL); /* 40 x 40 */
    tycho_rgb red = {255, 0, 0};
    /* an L-shaped path along y = 0.5 m then up x = 1.5 m */
    double xy[] = {0.25, 0.5, 1.5, 0.5, 1.5, 1.5};
    tycho_picture_path(p, xy, 3, red, 3);
    CHECK(is(p, 5, 30, 255, 0, 0) && is(p, 29, 30, 255, 0, 0)); /* y = 0.5 m -> row 30 */
    CHECK(is(p, 30, 21, 255, 0, 0) && is(p, 30, 10, 255, 0, 0));
    CHECK(is(p, 15, 27, 255, 255, 255) && is(p, 15, 33, 255, 255, 255)); /* width 3 */
    CHECK(is(p, 15, 29, 255, 0, 0) && is(p, 15, 31, 255, 0, 0));
    CHECK(is(p, 35, 20, 255, 255, 255));
    /* pose at yaw 0 points right (+x), at pi/2 up (smaller rows) */
    tycho_rgb blue = {0, 0, 255};
    tycho_picture_pose(p, 0.5, 1.5, 0, 10, 1, blue); /* pixel (10, 10) */
    CHECK(is(p, 18, 10, 0, 0, 255) && !is(p, 2, 10, 0, 0, 255));
    tycho_picture_pose(p, 0.5, 0.25, M_PI / 2, 8, 1, blue); /* pixel (10, 35) */
    CHECK(is(p, 10, 29, 0, 0, 255) && !is(p, 10, 39, 0, 0, 255));

    /* clipping: far away, huge and non-finite input never crashes, and a line
     * crossing the image from far outside still shows its visible part */
    tycho_rgb k = {1, 2, 3};
    double far[] = {-1e9, 1.0, 1e9, 1.0};
    tycho_picture_path(p, far, 2, k, 1);
    CHECK(is(p, 0, 19, 1, 2, 3) || is(p, 0, 20, 1, 2, 3));
    CHECK(is(p, 39, 19, 1, 2, 3) || is(p, 39, 20, 1, 2, 3));
    double weird[] = {NAN, 0, 1, 1, INFINITY, 2, 1e308, -1e308, 0.1, 0.1};
    tycho_picture_path(p, weird, 5, k, 1e12);
    tycho_picture_marker(p, 1e300, 1e300, TYCHO_MARKER_DOT, 1e300, 1, k);
    tycho_picture_marker(p, 50, 50, TYCHO_MARKER_CIRCLE, 3, 2, k);
    tycho_picture_marker(p, 0.5, 0.5, TYCHO_MARKER_CROSS, NAN, NAN, k);
    tycho_picture_pose(p, 0.5, 0.5, NAN, 10, 1, k);
    tycho_picture_pose(p, -1e200, 0.5, 0, 1e200, 1, k);
    CHECK(true); /* reached: nothing crashed (ASan/UBSan builds check the rest) */
    tycho_picture_free(p);

    tycho_err err = {0};
    CHECK(tycho_picture_new(g, 0, &err) == NULL && err.code == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "scale") != NULL);
    tycho_grid *big = tycho_grid_new(20000, 2, 0.1, o, 0, NULL);
    CHECK(tycho_picture_new(big, 2, &err) == NULL && err.code == TYCHO_ERANGE);
    tycho_grid_free(big);
    tycho_grid_free(g);
}

static void test_save_png(void)
{
    tycho_pose2 o = {0, 0, 0};
    tycho_grid *g = tycho_grid_new(30, 20, 0.05, o, 255, NULL);
    for (int y = 3; y < 17; y++)
        for (int x = 3; x < 27; x++) tycho_grid_set(g, x, y, (uint8_t)(x == 10 ? 254 : x * 5));
    tycho_picture *p = tycho_picture_new(g, 2, NULL);
    double xy[] = {0.2, 0.2, 1.3, 0.8};
    tycho_picture_path(p, xy, 2, (tycho_rgb){255, 0, 0}, 2);
    char path[128];
    snprintf(path, sizeof path, "/tmp/tycho_test_render_%d.png", (int)getpid());
    tycho_err err = {0};
    CHECK(tycho_picture_save_png(p, path, &err) == TYCHO_OK);
    tycho_image back = {0};
    CHECK(tycho_image_load(path, &back, &err) == TYCHO_OK);
    const tycho_image *img = tycho_picture_image(p);
    CHECK(back.width == img->width && back.height == img->height);
    CHECK(back.channels == 3);
    CHECK(back.pixels && back.channels == 3 &&
          memcmp(back.pixels, img->pixels, (size_t)img->width * img->height * 3) == 0);
    tycho_image_free(&back);
    unlink(path);
    CHECK(tycho_picture_save_png(p, "/nonexistent-dir/x.png", &err) != TYCHO_OK);
    tycho_picture_free(p);
    tycho_grid_free(g);
}

static void test_scale_bar(void)
{
    CHECK_NEAR(tycho_scale_bar_length(5), 1, 1e-12);     /* 5/3 = 1.67 -> 1 */
    CHECK_NEAR(tycho_scale_bar_length(6), 2, 1e-12);     /* exactly a third */
    CHECK_NEAR(tycho_scale_bar_length(14.4), 2, 1e-12);  /* 4.8 -> 2 */
    CHECK_NEAR(tycho_scale_bar_length(40), 10, 1e-12);   /* 13.3 -> 10 */
    CHECK_NEAR(tycho_scale_bar_length(16), 5, 1e-12);    /* 5.33 -> 5 */
    CHECK_NEAR(tycho_scale_bar_length(0.9), 0.2, 1e-12); /* 0.3 -> 0.2 */
    CHECK(tycho_scale_bar_length(0) == 0 && tycho_scale_bar_length(-1) == 0);
}

/* The panel goes under the map: the map's pixels stay as they were, the
 * image grows, and the panel holds ink (symbols, bar, text). */
static void test_annotate(void)
{
    tycho_err err = {0};
    tycho_grid *g = tycho_grid_new(100, 60, 0.05, (tycho_pose2){0, 0, 0}, 0, &err);
    for (int x = 0; x < 100; x++) tycho_grid_set(g, x, 0, TYCHO_COST_LETHAL);
    tycho_picture *p = tycho_picture_new(g, 2, &err);
    tycho_picture_marker(p, 1, 1, TYCHO_MARKER_CROSS, 5, 2, (tycho_rgb){255, 0, 0});
    tycho_image before = {0};
    const tycho_image *img = tycho_picture_image(p);
    CHECK(tycho_image_init(&before, img->width, img->height, 3, &err) == TYCHO_OK);
    memcpy(before.pixels, img->pixels, (size_t)img->width * img->height * 3);
    tycho_legend_item items[2] = {{"heat source", TYCHO_LEGEND_CROSS, {255, 0, 0}},
                                  {"trail", TYCHO_LEGEND_LINE, {0, 0, 255}}};
    tycho_annotation a = {
        .title = "a title", .items = items, .n_items = 2, .scale_bar = true, .axes = true};
    CHECK_MSG(tycho_picture_annotate(p, &a, &err) == TYCHO_OK, "%s", err.msg);
    img = tycho_picture_image(p);
    CHECK(img->width == 400 && img->height > 120); /* widened to the panel's minimum */
    bool same = true;
    for (int y = 0; y < before.height; y++)
        if (memcmp(img->pixels + (size_t)y * img->width * 3,
                   before.pixels + (size_t)y * before.width * 3, (size_t)before.width * 3))
            same = false;
    CHECK(same);
    int ink = 0, red = 0;
    for (int y = before.height + 1; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            const uint8_t *px = img->pixels + ((size_t)y * img->width + x) * 3;
            if (px[0] < 100 && px[1] < 100 && px[2] < 100) ink++;
            if (px[0] == 255 && px[1] == 0 && px[2] == 0) red++;
        }
    CHECK_MSG(ink > 200, "%d dark pixels in the panel", ink); /* text, bar, axes */
    CHECK(red > 10);                                          /* the legend's cross */
    double px, py;
    tycho_picture_world_to_pixel(p, 1, 1, &px, &py); /* the map's transform is unchanged */
    CHECK_NEAR(px, 40, 1e-9);
    CHECK_NEAR(py, 80, 1e-9);
    tycho_annotation too_many = {.items = items, .n_items = TYCHO_LEGEND_MAX + 1};
    CHECK(tycho_picture_annotate(p, &too_many, &err) == TYCHO_EINVAL);
    tycho_image_free(&before);
    tycho_picture_free(p);
    tycho_grid_free(g);
}

int main(void)
{
    test_scale_bar();
    test_annotate();
    test_cells_and_orientation();
    test_world_points();
    test_paths_and_clipping();
    test_save_png();
    return check_summary("test_render");
}
