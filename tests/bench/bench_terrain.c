/* Terrain benchmark: a 500 x 500 height field at 0.1 m (gentle waves plus
 * scattered boxes the robot cannot climb), traversability with a 0.3 m
 * barrier, and terrain A* corner to corner. Target (issue 7): terrain A* on
 * a 500 x 500 grid <= 20 ms. */
#include "clock.h"
#include "result.h"
#include "tycho/terrain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(void)
{
    const int N = 500;
    const double res = 0.1;
    tycho_err err = {0};
    tycho_terrain *t = tycho_terrain_new(N, N, res, 0, 0, &err);
    double *pts = malloc((size_t)N * N * 2 * 3 * sizeof *pts);
    if (!t || !pts) return 1;
    srand(3);
    size_t k = 0;
    for (int cy = 0; cy < N; cy++)
        for (int cx = 0; cx < N; cx++) {
            double x = (cx + 0.5) * res, y = (cy + 0.5) * res;
            double z = 0.3 * sin(x * 0.4) * cos(y * 0.3);
            for (int j = 0; j < 2; j++) {
                pts[k++] = x + (j ? 0.02 : -0.02);
                pts[k++] = y;
                pts[k++] = z + (j ? 0.01 : 0);
            }
        }
    tycho_terrain_add_points(t, pts, k / 3);
    /* 300 boxes of 0.5 m side, 0.4 m high */
    for (int b = 0; b < 300; b++) {
        double bx = 2 + rand() % 4500 / 100.0, by = 2 + rand() % 4500 / 100.0;
        for (double x = bx; x < bx + 0.5; x += res)
            for (double y = by; y < by + 0.5; y += res) {
                double p[3] = {x, y, 0.4 + 0.3 * sin(x * 0.4) * cos(y * 0.3)};
                tycho_terrain_add_points(t, p, 1);
            }
    }
    tycho_trav_params tp;
    tycho_trav_defaults(&tp);
    tp.barrier = 0.3;
    double t0 = bench_now();
    tycho_terrain_traversability(t, &tp, &err);
    double trav_ms = (bench_now() - t0) * 1e3;
    tycho_path path;
    tycho_path_init(&path);
    tycho_terrain_plan_opts po;
    tycho_terrain_plan_defaults(&po);
    po.slope_weight = 2.0;
    double best = INFINITY, cost = 0;
    int n = 0;
    for (int rep = 0; rep < 5; rep++) {
        t0 = bench_now();
        tycho_status st =
            tycho_terrain_plan(t, (tycho_cell){5, 5}, (tycho_cell){N - 6, N - 6}, &po, &path, NULL);
        n = st == TYCHO_OK ? (int)path.count : 0;
        cost = path.cost;
        double ms = (bench_now() - t0) * 1e3;
        if (ms < best) best = ms;
    }
    printf("terrain traversability 500x500 (step, slope, 0.3 m barrier): %.1f ms\n", trav_ms);
    printf("terrain A* 500x500 corner to corner: %.1f ms (best of 5), path %d cells, cost %.1f m "
           "(target <= 20 ms) %s\n",
           best, n, cost, n > 0 && best <= 20 ? "PASS" : "FAIL");
    bench_result("terrain.astar_ms", n > 0 ? best : INFINITY, "ms", "<=", 20,
                 "`bench_terrain`: terrain A* 500×500, slope and roughness cost, corner to corner "
                 "(best of 5)");
    tycho_path_release(&path);
    free(pts);
    tycho_terrain_free(t);
    return n > 0 && best <= 20 ? 0 : 1;
}
