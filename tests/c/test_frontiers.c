#include "check.h"
#include "tycho/frontiers.h"

#include <string.h>

/* Draws a grid from rows of text, top row first: '.' free, '#' lethal,
 * '?' unknown, 'i' inscribed, '5' inflated 50. Resolution 0.1 m, origin 0. */
static tycho_grid *from_text(const char *const *rows, int h)
{
    int w = (int)strlen(rows[0]);
    tycho_pose2 o = {0, 0, 0};
    tycho_grid *g = tycho_grid_new(w, h, 0.1, o, TYCHO_COST_UNKNOWN, NULL);
    for (int r = 0; r < h; r++)
        for (int x = 0; x < w; x++) {
            char c = rows[r][x];
            uint8_t v = c == '.' ? 0 : c == '#' ? 254 : c == 'i' ? 253 : c == '5' ? 50 : 255;
            tycho_grid_set(g, x, h - 1 - r, v);
        }
    return g;
}

static tycho_frontier_params params(double min_size)
{
    tycho_frontier_params p;
    tycho_frontier_defaults(&p);
    p.min_size = min_size;
    return p;
}

static bool frontier_has_cell(const tycho_frontier_search *s, const tycho_frontier *f, int x, int y)
{
    const tycho_cell *c = tycho_frontier_search_cells(s);
    for (int k = 0; k < f->size; k++)
        if (c[f->first_cell + k].x == x && c[f->first_cell + k].y == y) return true;
    return false;
}

static void test_one_frontier(void)
{
    static const char *const rows[] = {
        "############", "#.........??", "#.........??",
        "#.........??", "#.........??", "############",
    };
    tycho_grid *g = from_text(rows, 6);
    tycho_frontier_search *s = tycho_frontier_search_new();
    tycho_frontier_params p = params(0.0);
    tycho_err err = {0};
    /* robot at cell (2, 2) */
    CHECK(tycho_frontier_search_run(s, g, 0.25, 0.25, &p, &err) == TYCHO_OK);
    CHECK(tycho_frontier_search_count(s) == 1);
    const tycho_frontier *f = tycho_frontier_search_get(s, 0);
    CHECK(f->size == 4); /* only the column touching free space: (10, 1..4) */
    CHECK(frontier_has_cell(s, f, 10, 1) && frontier_has_cell(s, f, 10, 4));
    CHECK(!frontier_has_cell(s, f, 11, 2));
    CHECK_NEAR(f->centroid_x, 1.05, 1e-9);
    CHECK_NEAR(f->centroid_y, 0.30, 1e-9);
    CHECK(f->goal.x == 9 && f->goal.y == 2);
    CHECK(f->nearest.x == 10 && f->nearest.y == 2);
    CHECK_NEAR(f->goal_x, 0.95, 1e-9);
    CHECK_NEAR(f->distance, 0.7, 1e-9); /* 7 straight steps */
    CHECK_NEAR(f->cost, 3.0 * 0.7 - 1.0 * 4 * 0.1, 1e-9);
    CHECK_NEAR(tycho_frontier_search_distance(s, 2, 2), 0.0, 1e-12);
    CHECK_NEAR(tycho_frontier_search_distance(s, 3, 3), 0.1 * 99.0 / 70.0, 1e-12);
    CHECK(tycho_frontier_search_distance(s, 0, 0) < 0); /* a wall: never reached */

    /* default min_size 0.5 m = 5 cells drops this 4-cell frontier */
    CHECK(tycho_frontier_search_run(s, g, 0.25, 0.25, NULL, &err) == TYCHO_OK);
    CHECK(tycho_frontier_search_count(s) == 0);
    tycho_frontier_search_free(s);
    tycho_grid_free(g);
}

static void test_split_and_unreachable(void)
{
    /* Right edge: a wall cell at row 3 splits the unknown edge into two
     * frontiers. Room B (bottom right) is sealed off; its frontier must not
     * be reported. */
    static const char *const rows[] = {
        "#############", "#..........??", "#..........??", "#...........#", "#..........??",
        "#..........??", "#..........??", "#############", "#...#....?###", "#############",
    };
    tycho_grid *g = from_text(rows, 10);
    tycho_frontier_search *s = tycho_frontier_search_new();
    tycho_frontier_params p = params(0.0);
    CHECK(tycho_frontier_search_run(s, g, 0.35, 0.55, &p, NULL) == TYCHO_OK);
    CHECK_MSG(tycho_frontier_search_count(s) == 2, "%zu", tycho_frontier_search_count(s));
    int sizes[2] = {0, 0};
    for (size_t i = 0; i < tycho_frontier_search_count(s) && i < 2; i++) {
        const tycho_frontier *f = tycho_frontier_search_get(s, i);
        sizes[i] = f->size;
        CHECK(!frontier_has_cell(s, f, 9, 1)); /* the sealed room's frontier */
        CHECK(f->nearest.y >= 3);
    }
    CHECK((sizes[0] == 3 && sizes[1] == 2) || (sizes[0] == 2 && sizes[1] == 3));

    /* a robot inside the sealed room sees only that frontier */
    CHECK(tycho_frontier_search_run(s, g, 0.65, 0.15, &p, NULL) == TYCHO_OK);
    CHECK(tycho_frontier_search_count(s) == 1);
    CHECK(tycho_frontier_search_get(s, 0)->size == 1);
    CHECK(tycho_frontier_search_get(s, 0)->nearest.x == 9);
    tycho_frontier_search_free(s);
    tycho_grid_free(g);
}

static void test_min_size_and_ranking(void)
{
    /* a 2-cell frontier close to the robot (left) and a 6-cell one far away */
    static const char *const rows[] = {
        "#####################", "#...................?", "#...................?",
        "#...................?", "?...................?", "?...................?",
        "#...................?", "#####################",
    };
    tycho_grid *g = from_text(rows, 8);
    tycho_frontier_search *s = tycho_frontier_search_new();
    tycho_frontier_params p = params(0.0);
    double rx = 0.25, ry = 0.25; /* cell (2, 2) */
    CHECK(tycho_frontier_search_run(s, g, rx, ry, &p, NULL) == TYCHO_OK);
    CHECK(tycho_frontier_search_count(s) == 2);
    /* left: goal (1, 2), one step: cost 3*0.1 - 0.2 = 0.1; right: goal
     * (19, 2), 17 steps: cost 3*1.7 - 0.6 = 4.5 */
    const tycho_frontier *a = tycho_frontier_search_get(s, 0), *b = tycho_frontier_search_get(s, 1);
    CHECK(a->size == 2 && b->size == 6);
    CHECK(a->cost <= b->cost);
    CHECK_NEAR(a->distance, 0.1, 1e-9);
    CHECK_NEAR(a->cost, 0.1, 1e-9);
    CHECK_NEAR(b->cost, 4.5, 1e-9);
    /* weighting the gain heavily puts the big frontier first */
    p.gain_scale = 50.0;
    CHECK(tycho_frontier_search_run(s, g, rx, ry, &p, NULL) == TYCHO_OK);
    CHECK(tycho_frontier_search_get(s, 0)->size == 6);
    CHECK(tycho_frontier_search_get(s, 0)->cost <= tycho_frontier_search_get(s, 1)->cost);
    /* min_size in metres: 0.3 m = 3 cells drops the 2-cell frontier */
    p = params(0.3);
    CHECK(tycho_frontier_search_run(s, g, rx, ry, &p, NULL) == TYCHO_OK);
    CHECK(tycho_frontier_search_count(s) == 1);
    CHECK(tycho_frontier_search_get(s, 0)->size == 6);
    /* the boundary is inclusive: 0.6 m keeps the 6-cell frontier */
    p = params(0.6);
    CHECK(tycho_frontier_search_run(s, g, rx, ry, &p, NULL) == TYCHO_OK);
    CHECK(tycho_frontier_search_count(s) == 1);
    p = params(0.0);
    p.min_cells = 7;
    CHECK(tycho_frontier_search_run(s, g, rx, ry, &p, NULL) == TYCHO_OK);
    CHECK(tycho_frontier_search_count(s) == 0);
    tycho_frontier_search_free(s);
    tycho_grid_free(g);
}

static void test_start_and_errors(void)
{
    static const char *const rows[] = {
        "#######", "#iiii.?", "#i###.?", "#iiii.?", "#######",
    };
    tycho_grid *g = from_text(rows, 5);
    tycho_frontier_search *s = tycho_frontier_search_new();
    tycho_frontier_params p = params(0.0);
    tycho_err err = {0};
    /* robot on an inscribed cell (1,1): starts from the nearest free cell (5,1)? no:
     * that is 0.4 m away, beyond start_radius 0.3 */
    p.start_radius = 0.3;
    CHECK(tycho_frontier_search_run(s, g, 0.15, 0.15, &p, &err) == TYCHO_ERANGE);
    CHECK(strstr(err.msg, "no free cell") != NULL);
    p.start_radius = 0.5;
    CHECK(tycho_frontier_search_run(s, g, 0.15, 0.15, &p, &err) == TYCHO_OK);
    CHECK(tycho_frontier_search_count(s) == 1);
    CHECK(tycho_frontier_search_get(s, 0)->size == 3);
    CHECK_NEAR(tycho_frontier_search_get(s, 0)->distance, 0.4, 1e-9);
    /* free_max 254 makes inscribed cells free: the start is the robot's cell */
    p.free_max = 254;
    CHECK(tycho_frontier_search_run(s, g, 0.15, 0.15, &p, &err) == TYCHO_OK);
    CHECK_NEAR(tycho_frontier_search_get(s, 0)->distance, 0.4, 1e-9);
    CHECK(tycho_frontier_search_get(s, 0)->goal.x == 5);

    CHECK(tycho_frontier_search_run(s, g, -1.0, 0.2, &p, &err) == TYCHO_ERANGE);
    CHECK(strstr(err.msg, "outside") != NULL);
    CHECK(tycho_frontier_search_count(s) == 0);
    p.free_max = 0;
    CHECK(tycho_frontier_search_run(s, g, 0.15, 0.15, &p, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "free_max") != NULL);
    p = params(-1);
    CHECK(tycho_frontier_check(&p, &err) == TYCHO_EINVAL && strstr(err.msg, "min_size"));
    p = params(0);
    p.gain_scale = NAN;
    CHECK(tycho_frontier_check(&p, &err) == TYCHO_EINVAL && strstr(err.msg, "gain_scale"));
    tycho_frontier_search_free(s);
    tycho_grid_free(g);
}

/* --- randomized comparison against a brute-force reference ---------------- */

static uint32_t rng_state = 12345;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* Bellman-Ford style relaxation until stable: slow and obviously right. */
static void reference_distances(const uint8_t *c, int w, int h, int sx, int sy, double *d)
{
    for (int i = 0; i < w * h; i++) d[i] = INFINITY;
    d[sy * w + sx] = 0;
    bool changed = true;
    while (changed) {
        changed = false;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                if (c[y * w + x] >= 253 || isinf(d[y * w + x])) continue;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int nx = x + dx, ny = y + dy;
                        if ((!dx && !dy) || nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                        if (c[ny * w + nx] >= 253) continue;
                        if (dx && dy && (c[y * w + nx] >= 253 || c[ny * w + x] >= 253)) continue;
                        double nd = d[y * w + x] + ((dx && dy) ? 99.0 : 70.0);
                        if (nd < d[ny * w + nx]) {
                            d[ny * w + nx] = nd;
                            changed = true;
                        }
                    }
            }
    }
}

static void test_random_against_reference(void)
{
    enum { W = 24, H = 18 };
    static uint8_t c[W * H];
    static double d[W * H];
    static int comp[W * H];
    int mismatches = 0, frontiers_seen = 0;
    tycho_frontier_search *s = tycho_frontier_search_new();
    tycho_frontier_params p = params(0.0);
    for (int trial = 0; trial < 60; trial++) {
        tycho_pose2 o = {0, 0, 0};
        tycho_grid *g = tycho_grid_new(W, H, 0.1, o, 255, NULL);
        /* known blob: random free/lethal inside a random disc, unknown outside */
        int ccx = 4 + (int)(rnd() % (W - 8)), ccy = 4 + (int)(rnd() % (H - 8));
        int r = 4 + (int)(rnd() % 6);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int dd = (x - ccx) * (x - ccx) + (y - ccy) * (y - ccy);
                uint8_t v = 255;
                if (dd <= r * r) v = rnd() % 100 < 22 ? 254 : (rnd() % 4 ? 0 : 100);
                if (rnd() % 100 < 3) v = 253;
                tycho_grid_set(g, x, y, v);
            }
        tycho_grid_set(g, ccx, ccy, 0);
        memcpy(c, tycho_grid_cells(g), sizeof c);
        double rx, ry;
        tycho_grid_cell_to_world(g, ccx, ccy, &rx, &ry);
        if (tycho_frontier_search_run(s, g, rx, ry, &p, NULL) != TYCHO_OK) {
            mismatches++;
            tycho_grid_free(g);
            continue;
        }
        reference_distances(c, W, H, ccx, ccy, d);
        /* reference frontiers: 8-connected groups of frontier cells, kept
         * when some cell has a reached free 4-neighbour */
        memset(comp, 0, sizeof comp);
        int ncomp = 0, expected = 0;
        static int stack[W * H];
        for (int i = 0; i < W * H; i++) {
            int x = i % W, y = i / W;
            bool fr = c[i] == 255 && ((x > 0 && c[i - 1] < 253) || (x < W - 1 && c[i + 1] < 253) ||
                                      (y > 0 && c[i - W] < 253) || (y < H - 1 && c[i + W] < 253));
            comp[i] = fr ? -1 : 0;
        }
        for (int i = 0; i < W * H; i++) {
            if (comp[i] != -1) continue;
            ncomp++;
            int sp = 0, size = 0;
            double best = INFINITY;
            stack[sp++] = i;
            comp[i] = ncomp;
            while (sp) {
                int k = stack[--sp], x = k % W, y = k / W;
                size++;
                const int ox[4] = {1, -1, 0, 0}, oy[4] = {0, 0, 1, -1};
                for (int j = 0; j < 4; j++) {
                    int nx = x + ox[j], ny = y + oy[j];
                    if (nx < 0 || ny < 0 || nx >= W || ny >= H) continue;
                    if (c[ny * W + nx] < 253 && d[ny * W + nx] < best) best = d[ny * W + nx];
                }
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int nx = x + dx, ny = y + dy;
                        if (nx < 0 || ny < 0 || nx >= W || ny >= H) continue;
                        if (comp[ny * W + nx] == -1) {
                            comp[ny * W + nx] = ncomp;
                            stack[sp++] = ny * W + nx;
                        }
                    }
            }
            if (isinf(best)) continue;
            expected++;
            /* find our frontier holding cell i and compare size and distance */
            bool found = false;
            for (size_t f = 0; f < tycho_frontier_search_count(s); f++) {
                const tycho_frontier *fr = tycho_frontier_search_get(s, f);
                if (!frontier_has_cell(s, fr, i % W, i / W)) continue;
                found = true;
                if (fr->size != size || fabs(fr->distance - best / 70.0 * 0.1) > 1e-9) {
                    mismatches++;
                    fprintf(stderr, "trial %d: size %d vs %d, distance %g vs %g\n", trial, fr->size,
                            size, fr->distance, best / 70.0 * 0.1);
                }
                /* goal: free, reached at that distance, 4-adjacent to nearest */
                int gi = fr->goal.y * W + fr->goal.x;
                if (c[gi] >= 253 || fabs(d[gi] - best) > 1e-9 ||
                    abs(fr->goal.x - fr->nearest.x) + abs(fr->goal.y - fr->nearest.y) != 1 ||
                    !frontier_has_cell(s, fr, fr->nearest.x, fr->nearest.y))
                    mismatches++;
            }
            if (!found) mismatches++;
        }
        if ((int)tycho_frontier_search_count(s) != expected) mismatches++;
        for (size_t f = 1; f < tycho_frontier_search_count(s); f++)
            if (tycho_frontier_search_get(s, f - 1)->cost > tycho_frontier_search_get(s, f)->cost)
                mismatches++;
        frontiers_seen += expected;
        tycho_grid_free(g);
    }
    CHECK_MSG(mismatches == 0, "%d mismatches", mismatches);
    CHECK(frontiers_seen > 60); /* the trials really exercised frontiers */
    tycho_frontier_search_free(s);
}

static void test_workspace_reuse(void)
{
    tycho_frontier_search *s = tycho_frontier_search_new();
    tycho_pose2 o = {-2, -2, 0};
    for (int k = 0; k < 3; k++) {
        int n = k == 1 ? 40 : 20; /* grows, then shrinks */
        tycho_grid *g = tycho_grid_new(n, n, 0.1, o, 255, NULL);
        for (int y = 5; y < n - 5; y++)
            for (int x = 5; x < n - 5; x++) tycho_grid_set(g, x, y, 0);
        CHECK(tycho_frontier_search_run(s, g, -2 + n * 0.05, -2 + n * 0.05, NULL, NULL) ==
              TYCHO_OK);
        /* one ring of frontier cells around the square (corners excluded:
         * they have no free 4-neighbour) */
        CHECK(tycho_frontier_search_count(s) == 1);
        CHECK(tycho_frontier_search_get(s, 0)->size == 4 * (n - 10));
        tycho_grid_free(g);
    }
    tycho_frontier_search_free(s);
}

static void test_many_frontier_cells(void)
{
    /* free even rows joined by a free column x = 0; the unknown odd rows are
     * 100 separate frontiers, 19900 cells in all (the cell list grows) */
    tycho_pose2 o = {0, 0, 0};
    tycho_grid *g = tycho_grid_new(200, 201, 0.05, o, 255, NULL);
    for (int y = 0; y < 201; y++)
        for (int x = 0; x < 200; x++)
            if (y % 2 == 0 || x == 0) tycho_grid_set(g, x, y, 0);
    tycho_frontier_search *s = tycho_frontier_search_new();
    tycho_frontier_params p = params(0.0);
    CHECK(tycho_frontier_search_run(s, g, 0.025, 0.025, &p, NULL) == TYCHO_OK);
    CHECK(tycho_frontier_search_count(s) == 100);
    int bad = 0;
    for (size_t i = 0; i < tycho_frontier_search_count(s); i++) {
        const tycho_frontier *f = tycho_frontier_search_get(s, i);
        const tycho_cell *c = tycho_frontier_search_cells(s) + f->first_cell;
        if (f->size != 199 || c[0].y % 2 != 1 || c[f->size - 1].y != c[0].y) bad++;
        /* the goal is a free cell next to the frontier, reached at that distance */
        if (tycho_grid_get(g, f->goal.x, f->goal.y) != 0 || f->nearest.y != c[0].y ||
            abs(f->goal.x - f->nearest.x) + abs(f->goal.y - f->nearest.y) != 1 ||
            fabs(tycho_frontier_search_distance(s, f->goal.x, f->goal.y) - f->distance) > 1e-12)
            bad++;
        if (f->goal.x > 1) bad++; /* close to the column, where the rows are entered */
        if (i > 0 && tycho_frontier_search_get(s, i - 1)->distance > f->distance) bad++;
    }
    CHECK_MSG(bad == 0, "%d", bad);
    tycho_frontier_search_free(s);
    tycho_grid_free(g);
}

int main(void)
{
    test_one_frontier();
    test_split_and_unreachable();
    test_min_size_and_ranking();
    test_start_and_errors();
    test_random_against_reference();
    test_workspace_reuse();
    test_many_frontier_cells();
    return check_summary("test_frontiers");
}
