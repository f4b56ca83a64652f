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

int main(void)
{
    test_flip();
    test_errors();
    check_map("arena.map", 1);
    check_map("den011d.map", 1);
    check_map("random512-10-0.map", 4);
    check_map("maze512-4-0.map", 16);
    return check_summary("test_movingai");
}
