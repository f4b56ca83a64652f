/* Prioritized planning: classic small cases and a warehouse goal set, every
 * result checked by an independent conflict checker. */
#include "check.h"
#include "tycho/mapf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ASCII map, first line on top; '#' wall. 1 m cells centred on whole metres. */
static tycho_grid *ascii(const char *const *rows, int h)
{
    int w = (int)strlen(rows[0]);
    tycho_err err = {0};
    tycho_grid *g = tycho_grid_new(w, h, 1.0, (tycho_pose2){-0.5, -0.5, 0}, 0, &err);
    for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++) tycho_grid_set(g, c, h - 1 - r, rows[r][c] == '#' ? 254 : 0);
    return g;
}

/* Independent check: every robot ends on its goal, moves only along graph
 * edges, and no two robots share a vertex or swap along an edge. */
static int conflicts(const tycho_mapf *m, int n, const double *goals)
{
    int bad = 0, tmax = 0;
    for (int i = 0; i < n; i++) {
        if (tycho_mapf_arrival(m, i) > tmax) tmax = tycho_mapf_arrival(m, i);
        int gv = tycho_mapf_vertex_at(m, goals[2 * i], goals[2 * i + 1]);
        if (tycho_mapf_vertex_at_step(m, i, tycho_mapf_arrival(m, i)) != gv) bad++;
    }
    for (int t = 0; t <= tmax + 1; t++)
        for (int i = 0; i < n; i++) {
            int a0 = tycho_mapf_vertex_at_step(m, i, t),
                a1 = tycho_mapf_vertex_at_step(m, i, t + 1);
            if (a0 != a1 && !tycho_mapf_adjacent(m, a0, a1)) bad++;
            for (int j = i + 1; j < n; j++) {
                int b0 = tycho_mapf_vertex_at_step(m, j, t),
                    b1 = tycho_mapf_vertex_at_step(m, j, t + 1);
                if (a0 == b0) bad++;
                if (a0 == b1 && a1 == b0 && a0 != a1) bad++;
            }
        }
    return bad;
}

static tycho_mapf *plan(tycho_grid *g, int n, const double *s, const double *goal, tycho_status *st,
                        tycho_err *err)
{
    tycho_mapf *m = tycho_mapf_new(g, NULL, err);
    *st = m ? tycho_mapf_plan(m, n, s, goal, err) : TYCHO_EINVAL;
    return m;
}

int main(void)
{
    tycho_err err = {0};
    tycho_status st;
    /* 1. two robots swap through a corridor with one passing bay */
    /* (the bay nearer one end: with it in the very middle neither robot can
     * reach it before the other passes, whatever the priorities) */
    const char *bay[] = {"#########", "######.##", ".........", "#########"};
    tycho_grid *g = ascii(bay, 4);
    double s1[] = {0, 1, 8, 1}, g1[] = {8, 1, 0, 1};
    tycho_mapf *m = plan(g, 2, s1, g1, &st, &err);
    CHECK(st == TYCHO_OK);
    CHECK(conflicts(m, 2, g1) == 0);
    /* one of them steps into the bay: its route visits (6, 2) */
    bool bay_used = false;
    for (int r = 0; r < 2; r++)
        for (int t = 0; t <= tycho_mapf_arrival(m, r); t++)
            if (tycho_mapf_vertex_at_step(m, r, t) == tycho_mapf_vertex_at(m, 6, 2))
                bay_used = true;
    CHECK(bay_used);
    /* preconditions: the later robot's entry into a shared vertex names the
     * earlier robot's segment */
    int pre_total = 0;
    tycho_mapf_segment seg[64];
    for (int r = 0; r < 2; r++) {
        int ns = tycho_mapf_segments(m, r, seg, 64);
        CHECK(ns >= 9);
        for (int k = 0; k < ns; k++) {
            tycho_mapf_precondition pc[4];
            int np = tycho_mapf_preconditions(m, r, k, pc, 4);
            for (int q = 0; q < np; q++) {
                tycho_mapf_segment other[64];
                tycho_mapf_segments(m, pc[q].robot, other, 64);
                /* that segment is at the same vertex and left before we enter */
                CHECK(other[pc[q].segment].vertex == seg[k].vertex);
                CHECK(other[pc[q].segment].leave <= seg[k].enter);
            }
            pre_total += np;
        }
    }
    CHECK(pre_total > 0);
    /* the graph is the 9 x 4 grid at one cell a vertex, its free cells the
     * vertices; the order is the two robots, each once */
    int cols = 0, rows = 0;
    CHECK(tycho_mapf_graph_size(m, &cols, &rows) == tycho_mapf_vertex_count(m));
    CHECK(cols == 9 && rows == 4 && tycho_mapf_vertex_count(m) == 10);
    const int *order = tycho_mapf_order(m);
    CHECK(order && ((order[0] == 0 && order[1] == 1) || (order[0] == 1 && order[1] == 0)));
    CHECK(tycho_mapf_orders_tried(m) >= 1);
    tycho_mapf_free(m);
    tycho_grid_free(g);

    /* 2. a robot that must wait: one crosses in front of the other */
    const char *cross[] = {"##.##", "##.##", ".....", "##.##", "##.##"};
    g = ascii(cross, 5);
    double s2[] = {0, 2, 2, 4}, g2[] = {4, 2, 2, 0};
    m = plan(g, 2, s2, g2, &st, &err);
    CHECK(st == TYCHO_OK && conflicts(m, 2, g2) == 0);
    CHECK(tycho_mapf_arrival(m, 0) + tycho_mapf_arrival(m, 1) >=
          9); /* 4 + 4 plus at least one wait */
    tycho_mapf_free(m);
    /* 3. four robots crossing at the junction */
    double s3[] = {0, 2, 4, 2, 2, 0, 2, 4}, g3[] = {4, 2, 0, 2, 2, 4, 2, 0};
    m = plan(g, 4, s3, g3, &st, &err);
    if (st != TYCHO_OK) fprintf(stderr, "junction: %s\n", err.msg);
    /* a plus-shaped junction without bays cannot swap four robots: an honest failure */
    CHECK(st == TYCHO_ENOPATH || conflicts(m, 4, g3) == 0);
    tycho_mapf_free(m);
    tycho_grid_free(g);
    const char *plaza[] = {"#.#.#", ".....", "#...#", ".....", "#.#.#"};
    g = ascii(plaza, 5);
    double s4[] = {0, 1, 4, 3, 1, 4, 3, 0}, g4[] = {4, 1, 0, 3, 1, 0, 3, 4};
    m = plan(g, 4, s4, g4, &st, &err);
    CHECK(st == TYCHO_OK);
    if (st == TYCHO_OK) CHECK(conflicts(m, 4, g4) == 0);
    tycho_mapf_free(m);
    tycho_grid_free(g);

    /* 4. a longer way round: the short way is a dead end for the other */
    const char *loop[] = {".......", ".#####.", "......."};
    g = ascii(loop, 3);
    double s5[] = {0, 0, 6, 0}, g5[] = {6, 0, 0, 0};
    m = plan(g, 2, s5, g5, &st, &err);
    CHECK(st == TYCHO_OK && conflicts(m, 2, g5) == 0);
    bool top = false;
    for (int r = 0; r < 2; r++)
        for (int t = 0; t <= tycho_mapf_arrival(m, r); t++) {
            double x, y;
            tycho_mapf_vertex_xy(m, tycho_mapf_vertex_at_step(m, r, t), &x, &y);
            if (y == 2) top = true;
        }
    CHECK(top);
    tycho_mapf_free(m);

    /* 5. bad input names the robot */
    double sb[] = {0, 0, 0, 0}, gb[] = {6, 0, 5, 0};
    m = plan(g, 2, sb, gb, &st, &err);
    CHECK(st == TYCHO_EINVAL && strstr(err.msg, "robot 1: shares its start vertex with robot 0"));
    tycho_mapf_free(m);
    double sw[] = {0, 0, 3, 5}, gw[] = {6, 0, 5, 0};
    m = plan(g, 2, sw, gw, &st, &err);
    CHECK(st == TYCHO_EINVAL && strstr(err.msg, "robot 1: start (3.00, 5.00) is not on the graph"));
    tycho_mapf_free(m);
    double sg[] = {0, 0, 6, 2}, gg[] = {6, 0, 6, 0};
    m = plan(g, 2, sg, gg, &st, &err);
    CHECK(st == TYCHO_EINVAL && strstr(err.msg, "robot 1: shares its goal vertex with robot 0"));
    tycho_mapf_free(m);
    tycho_grid_free(g);
    const char *split[] = {"..#.."};
    g = ascii(split, 1);
    double su[] = {0, 0}, gu[] = {4, 0};
    m = plan(g, 1, su, gu, &st, &err);
    CHECK(st == TYCHO_ENOPATH && strstr(err.msg, "robot 0: goal unreachable"));
    tycho_mapf_free(m);
    tycho_grid_free(g);
    return check_summary("mapf");
}
