#include "check.h"
#include "tycho/regions.h"

#include <string.h>

static tycho_grid *grid(int w, int h, uint8_t fill)
{
    tycho_pose2 o = {0, 0, 0};
    return tycho_grid_new(w, h, 0.1, o, fill, NULL);
}

static tycho_region_params params(int lo, int hi, int conn)
{
    tycho_region_params p = {lo, hi, conn};
    return p;
}

static void test_flood_4_vs_8(void)
{
    /* 10x10 free, wall on the anti-diagonal x + y = 9: a 4-connected fill
     * stays below it, an 8-connected one slips through the diagonal gaps */
    tycho_grid *g = grid(10, 10, 0);
    for (int i = 0; i < 10; i++) tycho_grid_set(g, i, 9 - i, 254);
    tycho_regions *ws = tycho_regions_new();
    size_t n = 0;
    tycho_region_params p4 = params(0, 252, 4), p8 = params(0, 252, 8);
    CHECK(tycho_flood_fill(ws, g, 0, 0, &p4, &n, NULL) == TYCHO_OK);
    CHECK(n == 45);
    size_t k;
    const tycho_cell *c = tycho_regions_cells(ws, &k);
    CHECK(k == 45 && c[0].x == 0 && c[0].y == 0); /* BFS order starts at the seed */
    bool below = true;
    for (size_t i = 0; i < k; i++) below = below && c[i].x + c[i].y < 9;
    CHECK(below);
    CHECK(tycho_flood_fill(ws, g, 0, 0, &p8, &n, NULL) == TYCHO_OK);
    CHECK(n == 90);
    CHECK(tycho_flood_fill(ws, g, 0, 0, NULL, &n, NULL) == TYCHO_OK); /* default: 8 */
    CHECK(n == 90);
    /* repeat: the visited map was cleared, same answer */
    CHECK(tycho_flood_fill(ws, g, 9, 9, &p4, &n, NULL) == TYCHO_OK);
    CHECK(n == 45);
    /* seed on the wall, or outside: empty; cost range selects the wall itself */
    CHECK(tycho_flood_fill(ws, g, 0, 9, &p4, &n, NULL) == TYCHO_OK && n == 0);
    CHECK(tycho_flood_fill(ws, g, -1, 3, &p4, &n, NULL) == TYCHO_OK && n == 0);
    tycho_region_params pw = params(254, 254, 8);
    CHECK(tycho_flood_fill(ws, g, 0, 9, &pw, &n, NULL) == TYCHO_OK && n == 10);
    pw.connectivity = 4;
    CHECK(tycho_flood_fill(ws, g, 0, 9, &pw, &n, NULL) == TYCHO_OK && n == 1);

    /* writing a value */
    CHECK(tycho_flood_fill(ws, g, 0, 0, &p4, &n, NULL) == TYCHO_OK);
    CHECK(tycho_regions_set(ws, g, 7) == 45);
    CHECK(tycho_grid_get(g, 3, 3) == 7 && tycho_grid_get(g, 8, 8) == 0);

    tycho_err err = {0};
    tycho_region_params bad = params(0, 252, 6);
    CHECK(tycho_flood_fill(ws, g, 0, 0, &bad, &n, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "connectivity") != NULL);
    bad = params(200, 100, 8);
    CHECK(tycho_region_check(&bad, &err) == TYCHO_EINVAL && strstr(err.msg, "min_cost"));
    bad = params(0, 256, 8);
    CHECK(tycho_region_check(&bad, &err) == TYCHO_EINVAL && strstr(err.msg, "max_cost"));
    tycho_regions_free(ws);
    tycho_grid_free(g);
}

static void test_components(void)
{
    /* three blobs; two of them touch only at a corner */
    tycho_grid *g = grid(8, 6, 254);
    int blobs[][2] = {{0, 0}, {1, 0}, {0, 1}, /* A: 3 cells */
                      {2, 2}, {3, 2}, {3, 3}, /* B: touches A? no */
                      {4, 4},                 /* C: diagonal to B (3,3) */
                      {7, 5}, {6, 5}};        /* D */
    for (size_t i = 0; i < sizeof blobs / sizeof blobs[0]; i++)
        tycho_grid_set(g, blobs[i][0], blobs[i][1], 0);
    tycho_labels *l = tycho_labels_new();
    size_t n = 0;
    tycho_region_params p4 = params(0, 0, 4), p8 = params(0, 0, 8);
    CHECK(tycho_components(l, g, &p4, &n, NULL) == TYCHO_OK);
    CHECK(n == 4 && tycho_labels_count(l) == 4);
    CHECK(tycho_labels_get(l, 0, 0) == 1 && tycho_labels_get(l, 0, 1) == 1);
    CHECK(tycho_labels_get(l, 2, 2) == 2 && tycho_labels_get(l, 3, 3) == 2);
    CHECK(tycho_labels_get(l, 4, 4) == 3);
    CHECK(tycho_labels_get(l, 6, 5) == 4);
    CHECK(tycho_labels_get(l, 5, 5) == 0 && tycho_labels_get(l, 99, 0) == 0);
    CHECK(tycho_labels_size(l, 1) == 3 && tycho_labels_size(l, 2) == 3);
    CHECK(tycho_labels_size(l, 3) == 1 && tycho_labels_size(l, 4) == 2);
    CHECK(tycho_labels_size(l, 0) == 0 && tycho_labels_size(l, 5) == 0);
    /* 8-connectivity: A-B touch diagonally at (1,0)-(2,... no: (1,0) and (2,2)
     * do not touch; B and C do, via (3,3)-(4,4) */
    CHECK(tycho_components(l, g, &p8, &n, NULL) == TYCHO_OK);
    CHECK(n == 3);
    CHECK(tycho_labels_get(l, 4, 4) == tycho_labels_get(l, 2, 2));
    CHECK(tycho_labels_size(l, tycho_labels_get(l, 4, 4)) == 4);
    int w, h;
    const int32_t *data = tycho_labels_data(l, &w, &h);
    CHECK(w == 8 && h == 6 && data[5 * 8 + 7] == 3);
    /* every matching cell is labelled, every other is 0 */
    int wrong = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            wrong += (tycho_grid_get(g, x, y) == 0) != (data[y * w + x] != 0);
    CHECK(wrong == 0);
    /* the whole wall is one component */
    tycho_region_params pw = params(254, 254, 4);
    CHECK(tycho_components(l, g, &pw, &n, NULL) == TYCHO_OK && n == 1);
    CHECK(tycho_labels_size(l, 1) == 48 - 9);
    tycho_labels_free(l);
    tycho_grid_free(g);
}

/* --- supercover lines ----------------------------------------------------- */

typedef struct {
    tycho_cell c[4096];
    int n;
} cell_list;

static void collect(void *ctx, int cx, int cy)
{
    cell_list *l = ctx;
    if (l->n < 4096) l->c[l->n++] = (tycho_cell){cx, cy};
}

static bool has(const cell_list *l, int x, int y)
{
    for (int i = 0; i < l->n; i++)
        if (l->c[i].x == x && l->c[i].y == y) return true;
    return false;
}

static uint32_t rng_state = 99;
static double urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return (rng_state & 0xffffff) / (double)0x1000000;
}

static void test_supercover(void)
{
    cell_list l;
    /* exact diagonal through corners: both side cells, 4-connected */
    l.n = 0;
    tycho_supercover(0.5, 0.5, 3.5, 3.5, 10, 10, collect, &l);
    CHECK(l.n == 10); /* 4 diagonal cells + 2 side cells per corner * 3 */
    CHECK(has(&l, 0, 0) && has(&l, 1, 0) && has(&l, 0, 1) && has(&l, 3, 3));
    /* horizontal, clipped at both ends */
    l.n = 0;
    tycho_supercover(-5.0, 2.5, 50.0, 2.5, 10, 10, collect, &l);
    CHECK(l.n == 10 && has(&l, 0, 2) && has(&l, 9, 2));
    /* completely outside */
    l.n = 0;
    tycho_supercover(-5.0, -1.0, 50.0, -0.5, 10, 10, collect, &l);
    CHECK(l.n == 0);
    l.n = 0;
    tycho_supercover(NAN, 1, 2, 2, 10, 10, collect, &l);
    CHECK(l.n == 0);

    /* random segments: no duplicates, consecutive cells share an edge, and
     * every point sampled along the segment lies in a visited cell */
    int bad_conn = 0, bad_cover = 0, bad_dup = 0;
    for (int t = 0; t < 2000; t++) {
        double x0 = urand() * 30, y0 = urand() * 30, x1 = urand() * 30, y1 = urand() * 30;
        if (t % 4 == 0) x1 = x0 + (urand() < 0.5 ? 1 : -1) * fabs(y1 - y0); /* 45 degrees */
        if (t % 8 == 1)
            x0 = floor(x0) + 0.5, y0 = floor(y0) + 0.5, x1 = floor(x1) + 0.5,
            y1 = floor(y1) + 0.5; /* cell centres */
        l.n = 0;
        tycho_supercover(x0, y0, x1, y1, 30, 30, collect, &l);
        for (int i = 1; i < l.n; i++)
            if (abs(l.c[i].x - l.c[i - 1].x) + abs(l.c[i].y - l.c[i - 1].y) != 1) {
                /* corner crossings emit (x+sx, y), (x, y+sy), then (x+sx, y+sy) */
                bool corner =
                    i >= 2 && abs(l.c[i].x - l.c[i - 2].x) + abs(l.c[i].y - l.c[i - 2].y) == 1;
                if (!corner) bad_conn++;
            }
        for (int i = 0; i < l.n; i++)
            for (int j = i + 1; j < l.n; j++)
                if (l.c[i].x == l.c[j].x && l.c[i].y == l.c[j].y) bad_dup++;
        for (int s = 0; s <= 200; s++) {
            double u = s / 200.0, x = x0 + u * (x1 - x0), y = y0 + u * (y1 - y0);
            if (x < 0 || y < 0 || x > 30 || y > 30) continue; /* clipped away */
            int cx = (int)floor(x), cy = (int)floor(y);
            if (cx >= 30) cx = 29;
            if (cy >= 30) cy = 29;
            if (!has(&l, cx, cy)) bad_cover++;
        }
    }
    CHECK_MSG(bad_conn == 0, "%d", bad_conn);
    CHECK_MSG(bad_cover == 0, "%d", bad_cover);
    CHECK_MSG(bad_dup == 0, "%d", bad_dup);
}

static void test_seal_line_blocks_corridor(void)
{
    /* a corridor 4 cells wide along x, walls above and below */
    tycho_grid *g = grid(30, 8, 254);
    for (int y = 2; y < 6; y++)
        for (int x = 0; x < 30; x++) tycho_grid_set(g, x, y, 0);
    tycho_regions *ws = tycho_regions_new();
    size_t n = 0, sealed = 0;
    tycho_region_params p8 = params(0, 252, 8);
    CHECK(tycho_flood_fill(ws, g, 0, 3, &p8, &n, NULL) == TYCHO_OK && n == 120);

    /* a slanted line in world coordinates across the corridor */
    double x0, y0, x1, y1;
    tycho_grid_cell_to_world(g, 10, 0, &x0, &y0);
    tycho_grid_cell_to_world(g, 14, 7, &x1, &y1);
    CHECK(tycho_seal_line_world(g, x0 + 0.02, y0, x1, y1 + 0.03, 1, &sealed, NULL) == TYCHO_OK);
    CHECK(sealed >= 4); /* at least one cell per corridor row */
    CHECK(tycho_flood_fill(ws, g, 0, 3, &p8, &n, NULL) == TYCHO_OK);
    CHECK(n < 120 && n > 40);
    size_t left = n;
    CHECK(tycho_flood_fill(ws, g, 29, 3, &p8, &n, NULL) == TYCHO_OK);
    CHECK(left + n + sealed == 120); /* the two sides no longer meet */
    /* sealing again changes nothing */
    CHECK(tycho_seal_line_world(g, x0 + 0.02, y0, x1, y1 + 0.03, 1, &sealed, NULL) == TYCHO_OK);
    CHECK(sealed == 0);

    /* thick cell line: 3 wide vertical line at x = 20 seals 3 x 4 corridor cells */
    CHECK(tycho_seal_line(g, (tycho_cell){20, 0}, (tycho_cell){20, 7}, 3, &sealed, NULL) ==
          TYCHO_OK);
    CHECK(sealed == 12);
    CHECK(tycho_grid_get(g, 19, 3) == 254 && tycho_grid_get(g, 21, 4) == 254);
    CHECK(tycho_grid_get(g, 18, 3) == 0 && tycho_grid_get(g, 22, 3) == 0);
    /* a thick line running just outside the grid still covers its edge */
    tycho_grid *e = grid(10, 10, 0);
    CHECK(tycho_seal_line(e, (tycho_cell){-1, 0}, (tycho_cell){-1, 9}, 3, &sealed, NULL) ==
          TYCHO_OK);
    CHECK(sealed == 10 && tycho_grid_get(e, 0, 5) == 254 && tycho_grid_get(e, 1, 5) == 0);
    tycho_grid_free(e);

    tycho_err err = {0};
    CHECK(tycho_seal_line(g, (tycho_cell){0, 0}, (tycho_cell){1, 1}, 0, &sealed, &err) ==
          TYCHO_EINVAL);
    CHECK(strstr(err.msg, "thickness") != NULL);
    CHECK(tycho_seal_line_world(g, 0, INFINITY, 1, 1, 1, &sealed, &err) == TYCHO_EINVAL);
    tycho_regions_free(ws);
    tycho_grid_free(g);
}

/* A soft stamp raises free and unknown cells to its cost and leaves higher
 * ones (the inscribed band, walls) as they were. */
static void test_stamp_soft_cost(void)
{
    tycho_grid *g = tycho_grid_new(5, 1, 1.0, (tycho_pose2){0, 0, 0}, 0, NULL);
    tycho_grid_set(g, 1, 0, 253);
    tycho_grid_set(g, 2, 0, 254);
    tycho_grid_set(g, 3, 0, 255);
    tycho_grid_set(g, 4, 0, 241);
    size_t n = 0;
    CHECK(tycho_stamp_line_world(g, 0.5, 0.5, 4.5, 0.5, 1, 240, &n, NULL) == TYCHO_OK);
    CHECK(n == 2);
    CHECK(tycho_grid_get(g, 0, 0) == 240 && tycho_grid_get(g, 1, 0) == 253);
    CHECK(tycho_grid_get(g, 2, 0) == 254 && tycho_grid_get(g, 3, 0) == 240);
    CHECK(tycho_grid_get(g, 4, 0) == 241);
    /* lethal over the same: everything but the wall */
    CHECK(tycho_stamp_line_world(g, 0.5, 0.5, 4.5, 0.5, 1, 254, &n, NULL) == TYCHO_OK);
    CHECK(n == 4);
    tycho_grid_free(g);
}

static void test_seal_region_keeps_logodds(void)
{
    /* a "ramp" of cost 100 inside free space */
    tycho_grid *g = grid(12, 12, 0);
    for (int y = 3; y < 7; y++)
        for (int x = 4; x < 9; x++) tycho_grid_set(g, x, y, 100);
    float *lo = tycho_grid_logodds(g); /* mapping is running */
    CHECK(lo != NULL);
    tycho_regions *ws = tycho_regions_new();
    size_t sealed = 0;
    tycho_region_params p = params(100, 100, 4);
    CHECK(tycho_seal_region(ws, g, 5, 4, &p, &sealed, NULL) == TYCHO_OK);
    CHECK(sealed == 20);
    tycho_grid_stats s;
    tycho_grid_stats_compute(g, &s);
    CHECK(s.lethal == 20 && s.free == 124);
    /* the log-odds layer agrees, so the next observation does not undo it */
    tycho_logodds_lut lut;
    tycho_grid_logodds_lut(g, &lut);
    lo = tycho_grid_logodds(g);
    CHECK(tycho_logodds_to_cost(&lut, lo[4 * 12 + 5]) == TYCHO_COST_LETHAL);
    tycho_grid_observe(g, 5, 4, false);
    CHECK(tycho_grid_get(g, 5, 4) != TYCHO_COST_FREE);
    /* seed outside the predicate: nothing sealed */
    CHECK(tycho_seal_region(ws, g, 0, 0, &p, &sealed, NULL) == TYCHO_OK && sealed == 0);
    tycho_regions_free(ws);
    tycho_grid_free(g);
}

int main(void)
{
    test_flood_4_vs_8();
    test_components();
    test_supercover();
    test_seal_line_blocks_corridor();
    test_stamp_soft_cost();
    test_seal_region_keeps_logodds();
    return check_summary("test_regions");
}
