/* Fleet planning benchmark: the 32-robot warehouse (tests/data/warehouse):
 * starts from stage.world, every goal set in goals032 (robots 0..31), a 1 m
 * grid graph on the map inflated for a 0.3 m robot radius. Prints the time
 * to plan all 32 robots per goal set (prioritized space-time A*), the orders
 * tried, the makespan and the sum of arrival steps, checks every plan with
 * an independent conflict check, and the median against the target.
 * Target (issue 6): median <= 1 s, every goal set solved. */
#include "result.h"

#include "clock.h"
#include "tycho/fleet_io.h"
#include "tycho/graph.h"
#include "tycho/inflation.h"
#include "tycho/mapf.h"
#include "tycho/mapio.h"
#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NR 32

static void data_path(char *buf, size_t n, const char *rel)
{
    const char *d = getenv("TYCHO_TEST_DATA");
    const char *src = getenv("TYCHO_SOURCE_DIR");
    if (d && *d) snprintf(buf, n, "%s/%s", d, rel);
    else snprintf(buf, n, "%s/tests/data/%s", src && *src ? src : ".", rel);
}

static int conflicts(const tycho_mapf *m, int n)
{
    int bad = 0, tmax = 0;
    for (int i = 0; i < n; i++)
        if (tycho_mapf_arrival(m, i) > tmax) tmax = tycho_mapf_arrival(m, i);
    for (int t = 0; t <= tmax; t++)
        for (int i = 0; i < n; i++) {
            int a0 = tycho_mapf_vertex_at_step(m, i, t),
                a1 = tycho_mapf_vertex_at_step(m, i, t + 1);
            if (a0 != a1 && !tycho_mapf_adjacent(m, a0, a1)) bad++;
            for (int j = i + 1; j < n; j++) {
                int b0 = tycho_mapf_vertex_at_step(m, j, t),
                    b1 = tycho_mapf_vertex_at_step(m, j, t + 1);
                if (a0 == b0 || (a0 == b1 && a1 == b0 && a0 != a1)) bad++;
            }
        }
    return bad;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Plans every goal set on one planner; prints each and the median. */
static bool plan_sets(tycho_mapf *m, const double *sxy, const char *label, const char *key_of)
{
    double gxy[2 * NR], times[16];
    char path[4096], *text;
    size_t len;
    tycho_err err = {0};
    int sets = 0, failures = 0;
    for (int k = 0; k < 16; k++) {
        char rel[64];
        snprintf(rel, sizeof rel, "warehouse/goals032/goals%03d.txt", k);
        data_path(path, sizeof path, rel);
        tycho_fleet_pose *goals;
        int ng;
        if (tycho_read_text_file(path, &text, &len, &err) != TYCHO_OK) break;
        tycho_status st = tycho_goal_file(text, len, path, &goals, &ng, &err);
        free(text);
        if (st != TYCHO_OK || ng < NR) {
            printf("%s: %s FAIL\n", rel, st != TYCHO_OK ? err.msg : "fewer than 32 goals");
            failures++;
            continue;
        }
        for (int i = 0; i < NR; i++) gxy[2 * i] = goals[i].x, gxy[2 * i + 1] = goals[i].y;
        free(goals);
        double t = bench_now();
        st = tycho_mapf_plan(m, NR, sxy, gxy, &err);
        times[sets] = bench_now() - t;
        if (st != TYCHO_OK) {
            printf("plan %s: FAILED after %.3f s: %s\n", rel, times[sets], err.msg);
            failures++;
            sets++;
            continue;
        }
        int makespan = 0, sum = 0;
        for (int i = 0; i < NR; i++) {
            int a = tycho_mapf_arrival(m, i);
            sum += a;
            if (a > makespan) makespan = a;
        }
        int bad = conflicts(m, NR);
        printf("plan %s: 32 robots in %.1f ms, %d order(s) tried, makespan %d steps, sum %d steps, "
               "conflicts %d %s\n",
               rel, times[sets] * 1e3, tycho_mapf_orders_tried(m), makespan, sum, bad,
               bad ? "FAIL" : "ok");
        if (bad) failures++;
        sets++;
    }
    qsort(times, (size_t)sets, sizeof times[0], cmp);
    double med = sets ? times[sets / 2] : 0;
    bool pass = sets > 0 && failures == 0 && med <= 1.0;
    printf("fleet planning (%s): median %.1f ms over %d goal sets, %d failed (target <= 1000 ms, "
           "all solved) %s\n",
           label, med * 1e3, sets, failures, pass ? "PASS" : "FAIL");
    char key[96], what[200];
    snprintf(key, sizeof key, "fleet.%s.median_ms", key_of);
    snprintf(what, sizeof what,
             "`bench_fleet`: 32 robots, warehouse, 5 goal sets, %s (median; %d not solved)", label,
             failures);
    bench_result(key, failures ? INFINITY : med * 1e3, "ms", "<=", 1000, what);
    return pass;
}

int main(void)
{
    char path[4096];
    tycho_err err = {0};
    data_path(path, sizeof path, "warehouse/map.yaml");
    tycho_grid *map = tycho_map_load(path, NULL, &err);
    if (!map) {
        fprintf(stderr, "bench_fleet: %s\n", err.msg);
        return 1;
    }
    tycho_grid *cost = tycho_grid_copy(map, &err);
    tycho_inflation *ws = tycho_inflation_new();
    tycho_inflation_params ip;
    tycho_inflation_defaults(&ip);
    ip.inscribed_radius = 0.3;
    ip.inflation_radius = 0.3;
    if (!cost || !ws || tycho_inflate(ws, map, cost, &ip, &err) != TYCHO_OK) {
        fprintf(stderr, "bench_fleet: inflation: %s\n", err.msg);
        return 1;
    }
    data_path(path, sizeof path, "warehouse/stage.world");
    char *text;
    size_t len;
    tycho_fleet_pose *starts;
    int ns;
    if (tycho_read_text_file(path, &text, &len, &err) != TYCHO_OK ||
        tycho_stage_poses(text, len, path, &starts, &ns, &err) != TYCHO_OK || ns < NR) {
        fprintf(stderr, "bench_fleet: %s\n", err.msg[0] ? err.msg : "fewer than 32 robots");
        return 1;
    }
    free(text);
    double sxy[2 * NR];
    for (int i = 0; i < NR; i++) sxy[2 * i] = starts[i].x, sxy[2 * i + 1] = starts[i].y;
    bool pass = true;
    const char *labels[3] = {"grid, 4-connected, 1 m", "grid, 8-connected, 1 m",
                             "sparse skeleton graph, 1 m spacing"};
    for (int kind = 0; kind < 3; kind++) {
        double t0 = bench_now();
        tycho_graph *graph = kind < 2 ? tycho_graph_grid(cost, 1.0, kind ? 8 : 4, &err)
                                      : tycho_graph_sparse(cost, 1.0, &err);
        tycho_mapf *m = graph ? tycho_mapf_new_graph(graph, NULL, &err) : NULL;
        if (!m) {
            fprintf(stderr, "bench_fleet: %s\n", err.msg);
            return 1;
        }
        printf("fleet graph (%s): %d vertices, %d edges, built in %.1f ms\n", labels[kind],
               tycho_mapf_vertex_count(m), tycho_mapf_graph(m)->E / 2, (bench_now() - t0) * 1e3);
        static const char *keys[3] = {"grid4", "grid8", "sparse"};
        pass = plan_sets(m, sxy, labels[kind], keys[kind]) && pass;
        tycho_mapf_free(m);
    }
    free(starts);
    tycho_inflation_free(ws);
    tycho_grid_free(cost);
    tycho_grid_free(map);
    return pass ? 0 : 1;
}
