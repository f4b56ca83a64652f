/* The path and line-of-sight helpers of the planner API (tycho/planner.h)
 * that C programs use beside the planners: copying a path, the straight
 * line-of-sight test with the planners' no-corner-cutting rule, and the
 * built-in "unknown cell" predicate of tycho_nearest. */
#include "check.h"
#include "tycho/grid.h"
#include "tycho/planner.h"

#include <string.h>

/* A grid from rows of text, the first row on top: '#' lethal, '?' unknown,
 * anything else free. */
static tycho_grid *ascii(const char **rows, int h)
{
    int w = (int)strlen(rows[0]);
    tycho_grid *g = tycho_grid_new(w, h, 1.0, (tycho_pose2){0, 0, 0}, 0, NULL);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            char c = rows[h - 1 - y][x];
            tycho_grid_set(g, x, y,
                           c == '#'   ? TYCHO_COST_LETHAL
                           : c == '?' ? TYCHO_COST_UNKNOWN
                                      : 0);
        }
    return g;
}

static void test_copy(void)
{
    tycho_path a, b;
    tycho_path_init(&a);
    tycho_path_init(&b);
    tycho_err err = {0};
    CHECK(tycho_path_reserve(&a, 3, &err) == TYCHO_OK);
    a.cells[0] = (tycho_cell){0, 0};
    a.cells[1] = (tycho_cell){1, 1};
    a.cells[2] = (tycho_cell){2, 1};
    a.count = 3;
    a.cost = a.length = tycho_path_geometric_length(&a);
    CHECK(tycho_path_copy(&b, &a, &err) == TYCHO_OK);
    CHECK(b.count == 3 && b.cells != a.cells);
    CHECK(b.cells[1].x == 1 && b.cells[2].x == 2 && b.cells[2].y == 1);
    CHECK_NEAR(b.length, sqrt(2.0) + 1.0, 1e-12);
    CHECK(b.cost == a.cost);
    /* the copy is its own: changing the source leaves it alone */
    a.cells[1].x = 7;
    CHECK(b.cells[1].x == 1);
    /* copying an empty path empties the destination */
    tycho_path empty;
    tycho_path_init(&empty);
    CHECK(tycho_path_copy(&b, &empty, &err) == TYCHO_OK && b.count == 0);
    tycho_path_release(&a);
    tycho_path_release(&b);
}

static void test_line_of_sight(void)
{
    const char *rows[] = {
        ".....",
        ".#...",
        "..#..",
        ".....",
    };
    tycho_grid *g = ascii(rows, 4);
    tycho_plan_opts o;
    tycho_plan_opts_defaults(&o);
    /* along the free bottom row, and up the free left column */
    CHECK(tycho_line_of_sight(g, (tycho_cell){0, 0}, (tycho_cell){4, 0}, &o));
    CHECK(tycho_line_of_sight(g, (tycho_cell){0, 0}, (tycho_cell){0, 3}, &o));
    /* straight through the wall cell (2, 1) */
    CHECK(!tycho_line_of_sight(g, (tycho_cell){2, 0}, (tycho_cell){2, 3}, &o));
    /* the diagonal between (1, 2) and (2, 1), which touch only at a corner:
     * refused, as the planners refuse to cut it */
    CHECK(!tycho_line_of_sight(g, (tycho_cell){1, 1}, (tycho_cell){2, 2}, &o));
    /* an unknown cell blocks unless unknown is allowed */
    tycho_grid_set(g, 3, 0, TYCHO_COST_UNKNOWN);
    CHECK(!tycho_line_of_sight(g, (tycho_cell){0, 0}, (tycho_cell){4, 0}, &o));
    o.allow_unknown = true;
    CHECK(tycho_line_of_sight(g, (tycho_cell){0, 0}, (tycho_cell){4, 0}, &o));
    tycho_grid_free(g);
}

static void test_nearest_unknown(void)
{
    const char *rows[] = {
        "?....",
        ".....",
        "....?",
    };
    tycho_grid *g = ascii(rows, 3);
    tycho_planner *p = tycho_planner_new();
    tycho_dijkstra_opts o;
    tycho_dijkstra_opts_defaults(&o);
    tycho_cell found;
    double d = -1;
    tycho_err err = {0};
    /* from (3, 1) the unknown (4, 0) is one diagonal step, (0, 2) three */
    CHECK(tycho_nearest(p, g, (tycho_cell){3, 1}, tycho_pred_unknown, NULL, &o, &found, &d, &err) ==
          TYCHO_OK);
    CHECK(found.x == 4 && found.y == 0);
    CHECK_NEAR(d, sqrt(2.0), 1e-9);
    CHECK(tycho_nearest(p, g, (tycho_cell){1, 1}, tycho_pred_unknown, NULL, &o, &found, &d, &err) ==
          TYCHO_OK);
    CHECK(found.x == 0 && found.y == 2);
    /* nothing unknown left: no such cell */
    tycho_grid_set(g, 0, 2, 0);
    tycho_grid_set(g, 4, 0, 0);
    CHECK(tycho_nearest(p, g, (tycho_cell){1, 1}, tycho_pred_unknown, NULL, &o, &found, &d, &err) ==
          TYCHO_ENOPATH);
    tycho_planner_free(p);
    tycho_grid_free(g);
}

int main(void)
{
    test_copy();
    test_line_of_sight();
    test_nearest_unknown();
    return check_summary("test_path_api");
}
