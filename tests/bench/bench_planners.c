/* Planner benchmark on the MovingAI maps: every scenario line, A* and JPS,
 * mean microseconds per query and how many costs are optimal.
 *
 * Conditions: the map is snapshotted once (tycho_planner_prepare, timed and
 * printed separately, as is a one-shot tycho_planner_plan that snapshots on
 * every call), then each query is a tycho_planner_find_with on that snapshot,
 * writing into a reused tycho_path (no allocation per query). Each algorithm
 * runs the whole scenario file `reps` times (env TYCHO_BENCH_REPS, default
 * 3) and the best mean is kept, which filters noise from other processes on
 * a shared machine. Data: TYCHO_TEST_DATA, default tests/data in the
 * repository (TYCHO_SOURCE_DIR, else the working directory). */
#include "result.h"
#include "tycho/movingai.h"
#include "tycho/planner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
    const char *map;
    double astar_us, jps_us; /* targets, mean us/query; 0 = none */
} bench_map;

static const bench_map MAPS[] = {
    {"arena.map", 0, 0},
    {"den011d.map", 325, 17},
    {"random512-10-0.map", 1530, 890},
    {"maze512-4-0.map", 12400, 410},
};

static int failures;
static size_t not_optimal; /* over every map and algorithm */

static void data_path(char *buf, size_t n, const char *rel)
{
    const char *d = getenv("TYCHO_TEST_DATA");
    if (d && *d) {
        snprintf(buf, n, "%s/%s", d, rel);
        return;
    }
    const char *src = getenv("TYCHO_SOURCE_DIR");
    snprintf(buf, n, "%s/tests/data/%s", src && *src ? src : ".", rel);
}

static void run_algo(tycho_planner *pl, const char *name, tycho_plan_algorithm algo,
                     const tycho_movingai_scen *sc, double target, int reps)
{
    tycho_path path;
    tycho_path_init(&path);
    tycho_err err = {0};
    size_t optimal = 0, failed = 0;
    double best = INFINITY;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        double sink = 0;
        for (size_t i = 0; i < sc->count; i++) {
            const tycho_movingai_query *q = &sc->items[i];
            tycho_status st = tycho_planner_find_with(pl, algo, 0, q->start, q->goal, &path, &err);
            sink += st == TYCHO_OK ? path.cost : -1;
        }
        double dt = now() - t0;
        if (dt < best) best = dt;
        if (sink == 12345.678) puts(""); /* keeps the loop observable */
    }
    /* optimality, checked outside the timed loops */
    for (size_t i = 0; i < sc->count; i++) {
        const tycho_movingai_query *q = &sc->items[i];
        tycho_status st = tycho_planner_find_with(pl, algo, 0, q->start, q->goal, &path, &err);
        if (st != TYCHO_OK) failed++;
        else if (fabs(path.cost - q->optimal) <= 1e-3 + 1e-5 * q->optimal) optimal++;
    }
    double us = best / (double)sc->count * 1e6;
    bool pass = optimal == sc->count && (target <= 0 || us <= target);
    if (!pass) failures++;
    char tgt[64];
    if (target > 0) snprintf(tgt, sizeof tgt, "target <= %.0f us", target);
    else snprintf(tgt, sizeof tgt, "no target");
    printf("%-6s %-20s %9.1f us/query mean over %zu queries, best of %d runs (%s), "
           "optimal %zu/%zu%s %s\n",
           tycho_plan_algorithm_name(algo), name, us, sc->count, reps, tgt, optimal, sc->count,
           failed ? " (some failed)" : "", pass ? "PASS" : "FAIL");
    tycho_path_release(&path);
    not_optimal += sc->count - optimal;
    char key[96], what[160], map[64];
    snprintf(map, sizeof map, "%s", name);
    char *dot = strrchr(map, '.');
    if (dot) *dot = 0;
    snprintf(key, sizeof key, "planners.%s.%s_us", tycho_plan_algorithm_name(algo), map);
    snprintf(what, sizeof what, "`bench_planners`: %s, %s, every scenario line",
             tycho_plan_algorithm_name(algo), map);
    bench_result(key, us, "us/query", target > 0 ? "<=" : NULL, target, what);
}

int main(void)
{
    int reps = 3;
    const char *e = getenv("TYCHO_BENCH_REPS");
    if (e && atoi(e) > 0) reps = atoi(e);
    tycho_planner *pl = tycho_planner_new();
    for (size_t m = 0; m < sizeof MAPS / sizeof MAPS[0]; m++) {
        char mp[1024], sp[1024], rel[256];
        snprintf(rel, sizeof rel, "movingai/%s", MAPS[m].map);
        data_path(mp, sizeof mp, rel);
        snprintf(rel, sizeof rel, "movingai/%s.scen", MAPS[m].map);
        data_path(sp, sizeof sp, rel);
        tycho_err err = {0};
        tycho_grid *g = tycho_movingai_load_map(mp, &err);
        tycho_movingai_scen sc = {0};
        if (!g || tycho_movingai_load_scen(sp, &sc, &err) != TYCHO_OK) {
            printf("%s: cannot load: %s FAIL\n", MAPS[m].map, err.msg);
            failures++;
            tycho_grid_free(g);
            continue;
        }
        const char *name = MAPS[m].map;
        char shortname[64];
        snprintf(shortname, sizeof shortname, "%.*s", (int)(strlen(name) - 4), name);

        /* snapshot cost, and a one-shot plan (snapshot + JPS bit maps + search) */
        tycho_plan_opts o;
        tycho_plan_opts_default(&o);
        o.algorithm = TYCHO_PLAN_JPS;
        tycho_path path;
        tycho_path_init(&path);
        const tycho_movingai_query *q0 = &sc.items[sc.count - 1];
        double t0 = now();
        int k = 0;
        do {
            tycho_planner_prepare(pl, g, &o, &err);
            k++;
        } while (now() - t0 < 0.05);
        double prep = (now() - t0) / k;
        t0 = now();
        k = 0;
        do {
            tycho_planner_plan(pl, g, q0->start, q0->goal, &o, &path, &err);
            k++;
        } while (now() - t0 < 0.05);
        double oneshot = (now() - t0) / k;
        printf("prepare %-20s %9.1f us per snapshot (%dx%d); one-shot JPS plan incl. "
               "snapshot and bit maps %.1f us (longest scenario)\n",
               shortname, prep * 1e6, tycho_grid_width(g), tycho_grid_height(g), oneshot * 1e6);
        tycho_path_release(&path);

        tycho_planner_prepare(pl, g, &o, &err);
        run_algo(pl, shortname, TYCHO_PLAN_ASTAR, &sc, MAPS[m].astar_us, reps);
        run_algo(pl, shortname, TYCHO_PLAN_JPS, &sc, MAPS[m].jps_us, reps);
        tycho_movingai_scen_free(&sc);
        tycho_grid_free(g);
    }
    tycho_planner_free(pl);
    bench_result("planners.not_optimal", (double)not_optimal, "queries", "<=", 0,
                 "`bench_planners`: answers that are not optimal, every map and algorithm");
    printf("bench_planners: %s\n", failures ? "FAIL" : "all PASS");
    return failures ? 1 : 0;
}
