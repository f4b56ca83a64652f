/* Fleet execution benchmark (issue 6): every warehouse goal set (32
 * robots), executed in the fleet simulator by the real mission
 * (behaviors/fleet.lua through the tycho executable beside this binary),
 * 20 seeded runs each with random delays (p = 0.2 per vertex, 1-8 s) and
 * breakdowns (p = 0.01, 40-90 s). Prints robots home, collisions, re-plans
 * and the simulated/wall time ratio. Targets: 100 % home, 0 collisions,
 * >= 20x real time. */
#include "result.h"
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    int home, robots, collisions, replans;
    double sim_s, wall_s;
} outcome;

static int run(const char *exe, const char *src, const char *data, int set, int seed, double delays,
               double stops, outcome *o)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' run behaviors/fleet.lua --quiet --out /tmp/tycho-bench-fleet-%d "
             "--map '%s/warehouse/map.yaml' --starts '%s/warehouse/stage.world' "
             "--goals '%s/warehouse/goals032/goals%03d.txt' --delays %g --stops %g --seed %d 2>&1",
             src, exe, (int)getpid(), data, data, data, set, delays, stops, seed);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[1024];
    int found = 0;
    while (fgets(line, sizeof line, p)) {
        const char *s = strstr(line, "summary: ");
        if (!s || !strstr(s, "robots at their goals")) continue;
        double factor;
        int delays_n, stops_n, waits;
        if (sscanf(s,
                   "summary: %d/%d robots at their goals in %lf s simulated (%lf s wall, %lfx real "
                   "time), "
                   "%d collisions, %d delays + %d stops injected, %d re-plans, %d waits",
                   &o->home, &o->robots, &o->sim_s, &o->wall_s, &factor, &o->collisions, &delays_n,
                   &stops_n, &o->replans, &waits) == 10)
            found = 1;
    }
    pclose(p);
    return found ? 0 : -1;
}

int main(void)
{
    char self[PATH_MAX], exe[PATH_MAX + 8];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0) return 1;
    self[n] = 0;
    snprintf(exe, sizeof exe, "%s/tycho", dirname(self));
    const char *src = getenv("TYCHO_SOURCE_DIR");
    const char *data = getenv("TYCHO_TEST_DATA");
    if (!src || !*src) src = ".";
    if (!data || !*data) data = "tests/data"; /* the commands run in src */
    const int runs = getenv("TYCHO_BENCH_RUNS") ? atoi(getenv("TYCHO_BENCH_RUNS")) : 20;
    int total_home = 0, total_robots = 0, total_collisions = 0, total_replans = 0, failures = 0;
    double total_sim = 0, total_wall = 0, worst_factor = 1e300;
    for (int set = 0; set < 5; set++) {
        outcome o;
        if (run(exe, src, data, set, 1, 0, 0, &o) != 0) {
            fprintf(stderr, "bench_fleet_exec: goal set %d: no summary (is %s built?)\n", set, exe);
            return 1;
        }
        printf("goal set %d, no delays: %d/%d home, %d collisions, %.1f s simulated in %.3f s "
               "(%.0fx real time)\n",
               set, o.home, o.robots, o.collisions, o.sim_s, o.wall_s, o.sim_s / o.wall_s);
        int home = 0, robots = 0, coll = 0, rep = 0;
        double sim = 0, wall = 0;
        for (int seed = 1; seed <= runs; seed++) {
            if (run(exe, src, data, set, seed, 0.2, 0.01, &o) != 0) {
                failures++;
                continue;
            }
            home += o.home;
            robots += o.robots;
            coll += o.collisions;
            rep += o.replans;
            sim += o.sim_s;
            wall += o.wall_s;
            if (o.sim_s / o.wall_s < worst_factor) worst_factor = o.sim_s / o.wall_s;
        }
        printf("goal set %d, %d seeded runs with delays and breakdowns: %d/%d robots home, %d "
               "collisions, "
               "%d re-plans, mean %.1f s simulated, %.0fx real time\n",
               set, runs, home, robots, coll, rep, sim / runs, sim / wall);
        total_home += home;
        total_robots += robots;
        total_collisions += coll;
        total_replans += rep;
        total_sim += sim;
        total_wall += wall;
    }
    int pass =
        failures == 0 && total_home == total_robots && total_collisions == 0 && worst_factor >= 20;
    printf("fleet execution: %d/%d robots home (%.1f %%), %d collisions, %d re-plans over %d runs; "
           "%.0fx real time overall, slowest run %.0fx (targets 100 %%, 0, >= 20x) %s\n",
           total_home, total_robots, 100.0 * total_home / (total_robots ? total_robots : 1),
           total_collisions, total_replans, 5 * runs, total_sim / total_wall, worst_factor,
           pass ? "PASS" : "FAIL");
    bench_result("fleet_exec.home_pct", 100.0 * total_home / (total_robots ? total_robots : 1), "%",
                 ">=", 100,
                 "`bench_fleet_exec`: 32 robots, 5 goal sets × seeded runs with delays and "
                 "breakdowns: robots home");
    bench_result("fleet_exec.collisions", total_collisions, "collisions", "<=", 0,
                 "`bench_fleet_exec`: collisions over every run");
    bench_result("fleet_exec.slowest_x", worst_factor, "x_real_time", ">=", 20,
                 "`bench_fleet_exec`: slowest run, times real time");
    bench_result("fleet_exec.overall_x", total_sim / total_wall, "x_real_time", NULL, 0,
                 "`bench_fleet_exec`: all runs together, times real time (higher is better)");
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf /tmp/tycho-bench-fleet-%d", (int)getpid());
    if (system(rm) != 0) fprintf(stderr, "could not clean up\n");
    return pass ? 0 : 1;
}
