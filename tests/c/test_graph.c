/* Route graphs (core/graph.c, graph_sparse.c) and planning on them: grid
 * graphs 4/8-connected, the sparse skeleton graph of corridors (junctions,
 * dead ends, even spacing, lengths and widths), crossing diagonals refused
 * on 8-connected grids, and a warehouse goal set on the sparse graph. */
#include "check.h"
#include "tycho/fleet_io.h"
#include "tycho/graph.h"
#include "tycho/inflation.h"
#include "tycho/mapf.h"
#include "tycho/mapio.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Map from ASCII rows (first on top), `res` metres per character, origin
 * shifted so character (c, r) is centred on (c * res, (h-1-r) * res). */
static tycho_grid *ascii(const char *const *rows, int h, double res)
{
    int w = (int)strlen(rows[0]);
    tycho_grid *g = tycho_grid_new(w, h, res, (tycho_pose2){-res / 2, -res / 2, 0}, 0, NULL);
    for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++) tycho_grid_set(g, c, h - 1 - r, rows[r][c] == '#' ? 254 : 0);
    return g;
}

static void test_grid_graphs(void)
{
    tycho_grid *g = tycho_grid_new(5, 4, 1.0, (tycho_pose2){-0.5, -0.5, 0}, 0, NULL);
    tycho_graph *g4 = tycho_graph_grid(g, 1.0, 4, NULL), *g8 = tycho_graph_grid(g, 1.0, 8, NULL);
    CHECK(g4 && g8);
    if (!g4 || !g8) return;
    CHECK(g4->V == 20 && g4->E == 2 * (4 * 4 + 5 * 3));
    CHECK(g8->E == g4->E + 2 * 2 * 4 * 3);
    CHECK(g4->max_degree == 4 && g8->max_degree == 8);
    int a = tycho_graph_nearest(g8, 0, 0, 0.1), b = tycho_graph_nearest(g8, 1, 1, 0.1);
    CHECK(tycho_graph_adjacent(g8, a, b) && !tycho_graph_adjacent(g4, a, b));
    tycho_err err = {0};
    CHECK(tycho_graph_grid(g, 1.0, 6, &err) == NULL && strstr(err.msg, "connectivity 4 or 8"));
    tycho_graph_free(g4);
    tycho_graph_free(g8);
    tycho_grid_free(g);
}

static int degree(const tycho_graph *g, int v) { return g->off[v + 1] - g->off[v]; }

static void test_sparse_plus(void)
{
    /* a plus of 1 m wide corridors (0.1 m cells), arms 3 m from the centre */
    static char rows[71][72];
    const char *rp[71];
    for (int r = 0; r < 71; r++) {
        for (int c = 0; c < 71; c++) {
            int dx = abs(c - 35), dy = abs(r - 35);
            rows[r][c] = ((dx <= 5 && dy <= 30) || (dy <= 5 && dx <= 30)) ? '.' : '#';
        }
        rows[r][71] = 0;
        rp[r] = rows[r];
    }
    tycho_grid *g = ascii(rp, 71, 0.1);
    tycho_err err = {0};
    tycho_graph *s = tycho_graph_sparse(g, 1.0, &err);
    CHECK_MSG(s != NULL, "%s", err.msg);
    if (!s) return;
    int junctions = 0, ends = 0, centre = -1, other = 0;
    for (int v = 0; v < s->V; v++) {
        int d = degree(s, v);
        if (d >= 3) junctions++, centre = v;
        else if (d == 1) ends++;
        else if (d != 2) other++;
    }
    CHECK_MSG(junctions == 1 && ends == 4 && other == 0, "%d junctions, %d ends", junctions, ends);
    if (centre >= 0) {
        CHECK(degree(s, centre) == 4);
        CHECK_MSG(fabs(s->x[centre] - 3.5) < 0.15 && fabs(s->y[centre] - 3.5) < 0.15,
                  "junction at (%g, %g)", s->x[centre], s->y[centre]);
    }
    /* edges about a metre long; each arm (about 3 m) in about three edges */
    double total = 0;
    for (int k = 0; k < s->E; k++) {
        CHECK_MSG(s->length[k] > 0.6 && s->length[k] < 1.5, "edge of %g m", s->length[k]);
        /* the corridor is 1.1 m of free cells: 11 cells of 0.1 m */
        CHECK_MSG(s->width[k] > 0.9 && s->width[k] < 1.3, "width %g m", s->width[k]);
        total += s->length[k];
    }
    /* arms of 3 m of free space; the skeleton stops half a corridor width (0.55 m) short of each
     * end */
    CHECK_MSG(fabs(total / 2 - 4 * (3.0 - 0.55)) < 1.0, "total length %g m", total / 2);
    tycho_graph_free(s);
    tycho_grid_free(g);
}

static void test_sparse_ring(void)
{
    /* a 1 m corridor round a 3 m island: one loop, no junction */
    const char *ring[] = {"#######", "#.....#", "#.###.#", "#.###.#",
                          "#.###.#", "#.....#", "#######"};
    tycho_grid *coarse = ascii(ring, 7, 1.0);
    /* resample at 0.1 m so the thinning has cells to work with */
    tycho_grid *g = tycho_grid_new(70, 70, 0.1, (tycho_pose2){-0.5, -0.5, 0}, 0, NULL);
    for (int y = 0; y < 70; y++)
        for (int x = 0; x < 70; x++)
            tycho_grid_set(g, x, y, tycho_grid_get(coarse, x / 10, y / 10));
    tycho_graph *s = tycho_graph_sparse(g, 1.0, NULL);
    CHECK(s != NULL);
    if (s) {
        int bad = 0;
        for (int v = 0; v < s->V; v++) bad += degree(s, v) != 2;
        CHECK_MSG(bad == 0 && s->V >= 12 && s->V <= 20, "%d vertices, %d not on the ring", s->V,
                  bad);
        tycho_graph_free(s);
    }
    tycho_grid_free(g);
    tycho_grid_free(coarse);
}

static void test_no_crossing_diagonals(void)
{
    /* an open 2 x 2: A (0,0) -> (1,1) and B (1,0) -> (0,1) both want a diagonal */
    tycho_grid *g = tycho_grid_new(2, 2, 1.0, (tycho_pose2){-0.5, -0.5, 0}, 0, NULL);
    tycho_mapf_params p;
    tycho_mapf_defaults(&p);
    p.connectivity = 8;
    tycho_mapf *m = tycho_mapf_new(g, &p, NULL);
    const double s[] = {0, 0, 1, 0}, goal[] = {1, 1, 0, 1};
    CHECK(m && tycho_mapf_plan(m, 2, s, goal, NULL) == TYCHO_OK);
    if (m) {
        for (int t = 0; t < 6; t++) {
            int a0 = tycho_mapf_vertex_at_step(m, 0, t),
                a1 = tycho_mapf_vertex_at_step(m, 0, t + 1);
            int b0 = tycho_mapf_vertex_at_step(m, 1, t),
                b1 = tycho_mapf_vertex_at_step(m, 1, t + 1);
            double ax0, ay0, ax1, ay1, bx0, by0, bx1, by1;
            tycho_mapf_vertex_xy(m, a0, &ax0, &ay0);
            tycho_mapf_vertex_xy(m, a1, &ax1, &ay1);
            tycho_mapf_vertex_xy(m, b0, &bx0, &by0);
            tycho_mapf_vertex_xy(m, b1, &bx1, &by1);
            /* both diagonal and with the same midpoint: they would meet */
            bool cross = ax0 != ax1 && ay0 != ay1 && bx0 != bx1 && by0 != by1 &&
                         fabs((ax0 + ax1) - (bx0 + bx1)) < 1e-9 &&
                         fabs((ay0 + ay1) - (by0 + by1)) < 1e-9;
            CHECK_MSG(!cross, "robots cross diagonals at step %d", t);
        }
        CHECK(tycho_mapf_arrival(m, 0) >= 1 && tycho_mapf_arrival(m, 1) >= 1);
    }
    tycho_mapf_free(m);
    tycho_grid_free(g);
}

static void test_warehouse_on_sparse_graph(void)
{
    char path[1024];
    test_data(path, sizeof path, "warehouse/map.yaml");
    tycho_err err = {0};
    tycho_grid *map = tycho_map_load(path, NULL, &err);
    if (!CHECKED(map != NULL, err.msg)) return;
    tycho_grid *cost = tycho_grid_new(tycho_grid_width(map), tycho_grid_height(map),
                                      tycho_grid_resolution(map), tycho_grid_origin(map), 0, NULL);
    tycho_inflation_params ip;
    tycho_inflation_defaults(&ip);
    ip.inscribed_radius = ip.inflation_radius = 0.3;
    tycho_inflation *ws = tycho_inflation_new();
    CHECK(tycho_inflate(ws, map, cost, &ip, &err) == TYCHO_OK);
    tycho_graph *s = tycho_graph_sparse(cost, 1.0, &err);
    CHECK(s && s->V > 300);
    tycho_mapf *m = tycho_mapf_new_graph(s, NULL, &err);
    char *text;
    size_t len;
    test_data(path, sizeof path, "warehouse/stage.world");
    tycho_fleet_pose *starts = NULL, *goals = NULL;
    int ns = 0, ng = 0;
    if (CHECKED(tycho_read_text_file(path, &text, &len, &err) == TYCHO_OK, err.msg)) {
        CHECK(tycho_stage_poses(text, len, path, &starts, &ns, &err) == TYCHO_OK);
        free(text);
    }
    test_data(path, sizeof path, "warehouse/goals032/goals002.txt");
    if (CHECKED(tycho_read_text_file(path, &text, &len, &err) == TYCHO_OK, err.msg)) {
        CHECK(tycho_goal_file(text, len, path, &goals, &ng, &err) == TYCHO_OK);
        free(text);
    }
    CHECK_MSG(ns >= 32 && ng >= 32, "%d starts, %d goals", ns, ng);
    if (ns < 32 || ng < 32) {
        free(starts);
        free(goals);
        tycho_mapf_free(m); /* owns the graph */
        tycho_inflation_free(ws);
        tycho_grid_free(cost);
        tycho_grid_free(map);
        return;
    }
    double sxy[64], gxy[64];
    for (int i = 0; i < 32; i++) {
        CHECK(starts[i].robot == i && goals[i].robot == i);
        sxy[2 * i] = starts[i].x;
        sxy[2 * i + 1] = starts[i].y;
        gxy[2 * i] = goals[i].x;
        gxy[2 * i + 1] = goals[i].y;
    }
    CHECK_MSG(m && tycho_mapf_plan(m, 32, sxy, gxy, &err) == TYCHO_OK, "%s", err.msg);
    /* independently: moves along edges, no shared vertex, no swap */
    int bad = 0;
    for (int t = 0; m && t < 200; t++)
        for (int i = 0; i < 32; i++) {
            int a0 = tycho_mapf_vertex_at_step(m, i, t),
                a1 = tycho_mapf_vertex_at_step(m, i, t + 1);
            if (a0 != a1 && !tycho_mapf_adjacent(m, a0, a1)) bad++;
            for (int j = i + 1; j < 32; j++) {
                int b0 = tycho_mapf_vertex_at_step(m, j, t),
                    b1 = tycho_mapf_vertex_at_step(m, j, t + 1);
                if (a0 == b0 || (a0 == b1 && a1 == b0 && a0 != a1)) bad++;
            }
        }
    CHECK_MSG(bad == 0, "%d conflicts", bad);
    free(starts);
    free(goals);
    tycho_mapf_free(m);
    tycho_inflation_free(ws);
    tycho_grid_free(cost);
    tycho_grid_free(map);
}

int main(void)
{
    test_grid_graphs();
    test_sparse_plus();
    test_sparse_ring();
    test_no_crossing_diagonals();
    test_warehouse_on_sparse_graph();
    return check_summary("graph");
}
