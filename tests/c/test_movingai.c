/* MovingAI loaders and planner optimality on the benchmark scenarios. */
#include "check.h"
#include "tycho/movingai.h"
#include "tycho/planner.h"

#include <string.h>

static bool within(double cost, double optimal)
{
    return fabs(cost - optimal) <= 1e-3 + 1e-5 * optimal;
}

/* Every `step`-th scenario line: A*, JPS (and, on small maps, 4-connected
 * A* as a lower-bound sanity check) against the optimal length. */
static void check_map(const char *name, size_t step)
{
    char mp[512], sp[512], rel[128];
    snprintf(rel, sizeof rel, "movingai/%s", name);
    test_data(mp, sizeof mp, rel);
    snprintf(rel, sizeof rel, "movingai/%s.scen", name);
    test_data(sp, sizeof sp, rel);
    tycho_err err = {0};
    tycho_grid *g = tycho_movingai_load_map(mp, &err);
    CHECK_MSG(g != NULL, "%s", err.msg);
    tycho_movingai_scen sc;
    tycho_status st = tycho_movingai_load_scen(sp, &sc, &err);
    CHECK_MSG(st == TYCHO_OK, "%s", err.msg);
    if (!g || st != TYCHO_OK) {
        tycho_grid_free(g);
        return;
    }
    CHECK(sc.count > 100);
    tycho_planner *pl = tycho_planner_new();
    tycho_path path;
    tycho_path_init(&path);
    CHECK(tycho_planner_prepare(pl, g, NULL, &err) == TYCHO_OK);
    size_t n = 0, bad_astar = 0, bad_jps = 0, bad_walk = 0;
    for (size_t i = 0; i < sc.count; i += step) {
        const tycho_movingai_query *q = &sc.items[i];
        if (q->width != tycho_grid_width(g) || q->height != tycho_grid_height(g)) {
            bad_walk++;
            continue;
        }
        n++;
        for (int a = 0; a < 2; a++) {
            tycho_plan_algorithm algo = a ? TYCHO_PLAN_JPS : TYCHO_PLAN_ASTAR;
            st = tycho_planner_find_with(pl, algo, 0, q->start, q->goal, &path, &err);
            bool ok = st == TYCHO_OK && within(path.cost, q->optimal);
            /* the same search without the path gives the same cost */
            double d = -1;
            tycho_status sd = tycho_planner_distance(pl, algo, 0, q->start, q->goal, &d, &err);
            if (sd != st || (st == TYCHO_OK && d != path.cost)) {
                ok = false;
                fprintf(stderr, "%s line %zu: distance %d %.6f, path %d %.6f\n", name, i + 2, sd, d,
                        st, path.cost);
            }
            if (!ok) {
                if (a) bad_jps++;
                else bad_astar++;
                if (bad_astar + bad_jps <= 5)
                    fprintf(stderr, "%s line %zu %s: status %d cost %.6f optimal %.6f (%s)\n", name,
                            i + 2, a ? "jps" : "astar", st, path.cost, q->optimal, err.msg);
                continue;
            }
            /* the path is a real walk: starts, ends, unit steps, passable, no
             * corner cutting, and its length is its cost */
            bool walk = path.count >= 1 && path.cells[0].x == q->start.x &&
                        path.cells[0].y == q->start.y &&
                        path.cells[path.count - 1].x == q->goal.x &&
                        path.cells[path.count - 1].y == q->goal.y;
            for (size_t k = 1; walk && k < path.count; k++) {
                tycho_cell u = path.cells[k - 1], v = path.cells[k];
                int dx = v.x - u.x, dy = v.y - u.y;
                walk = abs(dx) <= 1 && abs(dy) <= 1 && (dx || dy) &&
                       tycho_grid_get(g, v.x, v.y) == 0 &&
                       (!(dx && dy) || (tycho_grid_get(g, u.x + dx, u.y) == 0 &&
                                        tycho_grid_get(g, u.x, u.y + dy) == 0));
            }
            walk = walk && fabs(tycho_path_geometric_length(&path) - path.cost) < 1e-9;
            if (!walk) bad_walk++;
        }
    }
    CHECK_MSG(bad_astar == 0, "%s: %zu of %zu A* costs not optimal", name, bad_astar, n);
    CHECK_MSG(bad_jps == 0, "%s: %zu of %zu JPS costs not optimal", name, bad_jps, n);
    CHECK_MSG(bad_walk == 0, "%s: %zu paths are not valid walks", name, bad_walk);
    printf("%s: %zu scenarios checked (every %zu)\n", name, n, step);
    tycho_path_release(&path);
    tycho_planner_free(pl);
    tycho_movingai_scen_free(&sc);
    tycho_grid_free(g);
}

static void test_flip(void)
{
    const char *map = "type octile\nheight 3\nwidth 4\nmap\n@...\n.T..\n...W\n";
    tycho_err err = {0};
    tycho_grid *g = tycho_movingai_parse_map(map, strlen(map), "flip.map", &err);
    CHECK_MSG(g != NULL, "%s", err.msg);
    if (!g) return;
    CHECK(tycho_grid_width(g) == 4 && tycho_grid_height(g) == 3);
    CHECK(tycho_grid_resolution(g) == 1.0);
    /* file row 0 (top) is grid row 2 */
    CHECK(tycho_grid_get(g, 0, 2) == 254);
    CHECK(tycho_grid_get(g, 1, 1) == 254);
    CHECK(tycho_grid_get(g, 3, 0) == 254); /* water: blocked */
    CHECK(tycho_grid_get(g, 0, 0) == 0);
    CHECK(tycho_grid_get(g, 1, 2) == 0);
    tycho_grid_free(g);

    const char *scen = "version 1\n3\tx.map\t4\t3\t0\t0\t3\t2\t3.5\n";
    tycho_movingai_scen sc;
    CHECK(tycho_movingai_parse_scen(scen, strlen(scen), "x.scen", &sc, &err) == TYCHO_OK);
    CHECK(sc.count == 1);
    if (sc.count == 1) {
        CHECK(sc.items[0].bucket == 3);
        CHECK(sc.items[0].start.x == 0 && sc.items[0].start.y == 2);
        CHECK(sc.items[0].goal.x == 3 && sc.items[0].goal.y == 0);
        CHECK(sc.items[0].optimal == 3.5);
        CHECK(!strcmp(sc.items[0].map, "x.map"));
    }
    tycho_movingai_scen_free(&sc);
}

static void expect_map_error(const char *text, const char *want)
{
    tycho_err err = {0};
    tycho_grid *g = tycho_movingai_parse_map(text, strlen(text), "t.map", &err);
    CHECK(g == NULL);
    CHECK(err.code == TYCHO_EPARSE);
    CHECK_MSG(strstr(err.msg, want) != NULL, "got '%s', want '%s'", err.msg, want);
    tycho_grid_free(g);
}

static void expect_scen_error(const char *text, const char *want)
{
    tycho_err err = {0};
    tycho_movingai_scen sc;
    CHECK(tycho_movingai_parse_scen(text, strlen(text), "t.scen", &sc, &err) == TYCHO_EPARSE);
    CHECK(sc.items == NULL && sc.count == 0);
    CHECK_MSG(strstr(err.msg, want) != NULL, "got '%s', want '%s'", err.msg, want);
}

static void test_errors(void)
{
    expect_map_error("type hex\nheight 1\nwidth 1\nmap\n.\n", "t.map:1: unsupported map type");
    expect_map_error("type octile\nheight x\nwidth 1\nmap\n.\n", "t.map:2: height must be");
    expect_map_error("type octile\nheight 0\nwidth 1\nmap\n.\n", "t.map:2: height must be");
    expect_map_error("type octile\nwidth 2\nmap\n..\n", "t.map:3: incomplete header");
    expect_map_error("type octile\nheight 2\nheight 2\n", "t.map:3: duplicate height");
    expect_map_error("type octile\nfoo 2\n", "t.map:2: bad header line");
    expect_map_error("type octile\nheight 2\nwidth 3\nmap\n...\n..\n",
                     "t.map:6: map row 2 has 2 cells, expected 3");
    expect_map_error("type octile\nheight 2\nwidth 3\nmap\n...\n.x.\n",
                     "t.map:6: bad map character 'x' at column 2");
    expect_map_error("type octile\nheight 1\nwidth 2\nmap\n.\001\n",
                     "t.map:5: bad map character 0x01 at column 2");
    expect_map_error("type octile\nheight 3\nwidth 1\nmap\n.\n.\n", "expected 3 map rows, found 2");
    expect_map_error("type octile\nheight 1\nwidth 1\nmap\n.\n.\n",
                     "t.map:6: unexpected data after 1 map rows");
    expect_map_error("", "incomplete header");
    /* CRLF line ends and no final newline are fine */
    const char *crlf = "type octile\r\nheight 1\r\nwidth 2\r\nmap\r\n.@";
    tycho_grid *g = tycho_movingai_parse_map(crlf, strlen(crlf), "crlf.map", NULL);
    CHECK(g && tycho_grid_get(g, 1, 0) == 254 && tycho_grid_get(g, 0, 0) == 0);
    tycho_grid_free(g);

    expect_scen_error("", "t.scen:1: empty scenario");
    expect_scen_error("version 2\n", "t.scen:1: expected 'version 1'");
    expect_scen_error("version 1\n0\tm\t4\t4\t0\t0\t1\t1\n", "t.scen:2: expected 9 fields");
    expect_scen_error("version 1\n0\tm\t4\t4\t0\t0\t1\t1\t1.4\n0\tm\t4\t4\t0\t9\t1\t1\t1\n",
                      "t.scen:3: bad sy '9'");
    expect_scen_error("version 1\n-1\tm\t4\t4\t0\t0\t1\t1\t1\n", "t.scen:2: bad bucket");
    expect_scen_error("version 1\n0\tm\t4\t4\t0\t0\t1\t1\tnan\n", "t.scen:2: bad optimal length");
    expect_scen_error("version 1\n0\tm\t0\t4\t0\t0\t1\t1\t1\n", "t.scen:2: bad width");

    tycho_err err = {0};
    CHECK(tycho_movingai_load_map("/nonexistent/x.map", &err) == NULL);
    CHECK(err.code == TYCHO_EIO && strstr(err.msg, "/nonexistent/x.map"));
    tycho_movingai_scen sc;
    CHECK(tycho_movingai_load_scen("/nonexistent/x.scen", &sc, &err) == TYCHO_EIO);
}

static uint32_t lcg(uint32_t *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return *seed >> 8;
}

/* JPS against A* on seeded random grids: widths and heights either side of
 * the 64-cell words of JPS's bit lines (stop lines carry bits across words),
 * densities from open to cluttered, and the same planner re-prepared after
 * cells change (stale stop lines would show as a wrong cost). */
static void test_random_grids(void)
{
    static const int sizes[] = {1, 2, 3, 7, 55, 63, 64, 65, 66, 127, 128, 129, 130, 200};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    uint32_t seed = 12345;
    tycho_planner *pl = tycho_planner_new();
    tycho_path a, j;
    tycho_path_init(&a);
    tycho_path_init(&j);
    size_t checked = 0, wrong = 0;
    for (int si = 0; si < nsizes; si++) {
        for (int sj = 0; sj < nsizes; sj += 3) {
            int w = sizes[si], h = sizes[(si + sj) % nsizes];
            tycho_err err = {0};
            tycho_grid *g = tycho_grid_new(w, h, 1.0, (tycho_pose2){0, 0, 0}, 0, &err);
            CHECK_MSG(g != NULL, "%s", err.msg);
            if (!g) continue;
            for (int round = 0; round < 3; round++) {
                unsigned density = 5 + (lcg(&seed) % 40); /* percent blocked */
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++)
                        tycho_grid_set(g, x, y, lcg(&seed) % 100 < density ? 254 : 0);
                CHECK(tycho_planner_prepare(pl, g, NULL, &err) == TYCHO_OK);
                for (int q = 0; q < 25; q++) {
                    /* one draw per statement: the order of draws is fixed */
                    tycho_cell s, t;
                    s.x = (int)(lcg(&seed) % (unsigned)w);
                    s.y = (int)(lcg(&seed) % (unsigned)h);
                    t.x = (int)(lcg(&seed) % (unsigned)w);
                    t.y = (int)(lcg(&seed) % (unsigned)h);
                    tycho_grid_set(g, s.x, s.y, 0);
                    tycho_grid_set(g, t.x, t.y, 0);
                    /* the snapshot does not see the two cells just freed */
                    CHECK(tycho_planner_prepare(pl, g, NULL, &err) == TYCHO_OK);
                    tycho_status sa =
                        tycho_planner_find_with(pl, TYCHO_PLAN_ASTAR, 0, s, t, &a, &err);
                    tycho_status sj2 =
                        tycho_planner_find_with(pl, TYCHO_PLAN_JPS, 0, s, t, &j, &err);
                    double d = 0;
                    tycho_status sd = tycho_planner_distance(pl, TYCHO_PLAN_JPS, 0, s, t, &d, &err);
                    checked++;
                    bool same = sa == sj2 && (sa != TYCHO_OK || fabs(a.cost - j.cost) < 1e-9) &&
                                sd == sj2 && (sd == TYCHO_OK ? d == j.cost : isinf(d));
                    if (!same && ++wrong <= 5)
                        fprintf(stderr, "%dx%d (%d,%d)->(%d,%d): astar %d %.3f, jps %d %.3f\n", w,
                                h, s.x, s.y, t.x, t.y, sa, a.cost, sj2, j.cost);
                }
            }
            tycho_grid_free(g);
        }
    }
    CHECK_MSG(wrong == 0, "%zu of %zu random queries: JPS differs from A*", wrong, checked);
    CHECK(checked > 1000);
    tycho_path_release(&a);
    tycho_path_release(&j);
    tycho_planner_free(pl);
}

int main(void)
{
    test_random_grids();
    test_flip();
    test_errors();
    check_map("arena.map", 1);
    check_map("den011d.map", 1);
    check_map("random512-10-0.map", 4);
    check_map("maze512-4-0.map", 16);
    /* the maps bench_planners adds (scenarios from tests/bench/movingai_scen.c) */
    check_map("brc202d.map", 8);
    check_map("den520d.map", 4);
    check_map("ost003d.map", 4);
    check_map("maze-128-128-10.map", 4);
    check_map("Paris_1_256.map", 4);
    check_map("random-64-64-20.map", 1);
    check_map("room-32-32-4.map", 1);
    return check_summary("test_movingai");
}
