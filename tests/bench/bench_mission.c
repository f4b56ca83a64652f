/* Mission benchmark: the whole heat-seeking mission, as the main job runs
 * it (the tycho executable, behaviors/heat_seek.lua, the built-in
 * simulator), on the small and the large maze. For each run it prints the
 * wall time, the simulated time and the speed-up, and the peak resident set
 * size of the process (getrusage of the child: ru_maxrss). Each world runs
 * twice with the same seed; the two summary.json files must be equal once
 * the wall time is taken out (determinism).
 *
 * Targets (issue 3): small maze <= 5 s wall, large maze <= 20 s, peak RSS
 * <= 30 MB, same seed -> same summary.
 *
 * Paths: the executable is the `tycho` beside this benchmark; the scripts
 * and worlds are found from TYCHO_SOURCE_DIR (set by `cmake --build build
 * --target bench`), else the working directory. */
#define _GNU_SOURCE
#include "child.h"
#include "result.h"
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* summary.json without its "wall_time_s" value (malloc'd), or NULL. */
static char *summary_without_wall(const char *dir)
{
    char *buf = bench_read_summary(dir);
    if (!buf) return NULL;
    char *w = strstr(buf, "\"wall_time_s\":");
    if (w) {
        char *e = w + strlen("\"wall_time_s\":");
        while (*e && *e != ',' && *e != '}') e++;
        memmove(w, e, strlen(e) + 1);
    }
    return buf;
}

static double sim_time(const char *summary)
{
    const char *s = summary ? strstr(summary, "\"sim_time_s\":") : NULL;
    return s ? atof(s + strlen("\"sim_time_s\":")) : 0;
}

int main(void)
{
    char exe[PATH_MAX];
    if (bench_tycho_exe(exe, "bench_mission") != 0) return 1;
    char cwd[PATH_MAX];
    const char *src = bench_source_dir(cwd);

    static const struct {
        const char *world;
        double target_s;
    } worlds[] = {{"maps/maze_small.lua", 5.0},
                  {"maps/maze_large.lua", 20.0},
                  {"maps/narrow_corridor.lua", 5.0}};
    const double rss_target_mb = 30.0;
    int failures = 0;
    char tmp[64];
    char *root = bench_tmpdir(tmp, "bench_mission");
    if (!root) return 1;
    for (size_t w = 0; w < sizeof worlds / sizeof worlds[0]; w++) {
        char *summaries[2] = {NULL, NULL};
        double worst_wall = 0, worst_rss = 0, sim_s = 0;
        for (int rep = 0; rep < 2; rep++) {
            char out[PATH_MAX];
            snprintf(out, sizeof out, "%s/w%zu-r%d", root, w, rep);
            char *args[] = {exe,
                            "run",
                            "behaviors/heat_seek.lua",
                            "--world",
                            (char *)worlds[w].world,
                            "--out",
                            out,
                            "--quiet",
                            "--seed",
                            "1",
                            NULL};
            bench_child r = {.exit_code = -1};
            if (bench_run_child(args, src, &r) != 0 || r.exit_code != 0) {
                printf("mission %-22s run %d: FAILED (exit %d)\n", worlds[w].world, rep + 1,
                       r.exit_code);
                failures++;
                continue;
            }
            summaries[rep] = summary_without_wall(out);
            double st = sim_time(summaries[rep]);
            double rss_mb = (double)r.max_rss_kb / 1024.0;
            bool ok = r.wall_s <= worlds[w].target_s && rss_mb <= rss_target_mb;
            printf("mission %-22s run %d: %.2f s wall for %.0f s simulated (%.0fx real time), "
                   "peak RSS %.1f MB (targets <= %.0f s, <= %.0f MB) %s\n",
                   worlds[w].world, rep + 1, r.wall_s, st, st / r.wall_s, rss_mb,
                   worlds[w].target_s, rss_target_mb, ok ? "PASS" : "FAIL");
            if (!ok) failures++;
            worst_wall = r.wall_s > worst_wall ? r.wall_s : worst_wall;
            worst_rss = rss_mb > worst_rss ? rss_mb : worst_rss;
            sim_s = st;
        }
        char key[96], what[200], world[64];
        const char *base = strrchr(worlds[w].world, '/');
        snprintf(world, sizeof world, "%s", base ? base + 1 : worlds[w].world);
        char *dot = strrchr(world, '.');
        if (dot) *dot = 0;
        snprintf(key, sizeof key, "mission.%s.wall_s", world);
        snprintf(what, sizeof what,
                 "`bench_mission`: whole mission, %s (%.0f s simulated), slower of 2 runs", world,
                 sim_s);
        bench_result(key, worst_wall, "s", "<=", worlds[w].target_s, what);
        snprintf(key, sizeof key, "mission.%s.sim_s", world);
        snprintf(what, sizeof what, "`bench_mission`: simulated time of the mission, %s, seed 1",
                 world);
        bench_result(key, sim_s, "s", NULL, 0, what);
        snprintf(key, sizeof key, "mission.%s.rss_mb", world);
        snprintf(what, sizeof what, "`bench_mission`: peak RSS, %s", world);
        bench_result(key, worst_rss, "MB", "<=", rss_target_mb, what);
        bool same = summaries[0] && summaries[1] && strcmp(summaries[0], summaries[1]) == 0;
        printf("mission %-22s determinism: same seed -> %s summary.json (wall time aside) %s\n",
               worlds[w].world, same ? "identical" : "DIFFERENT", same ? "PASS" : "FAIL");
        if (!same) failures++;
        snprintf(key, sizeof key, "mission.%s.deterministic", world);
        snprintf(what, sizeof what,
                 "`bench_mission`: same seed twice gives the same summary.json, %s (1 = yes)",
                 world);
        bench_result(key, same, "bool", ">=", 1, what);
        free(summaries[0]);
        free(summaries[1]);
    }
    bench_remove_tree(root, "bench_mission");
    printf("bench_mission: %s\n", failures ? "FAIL" : "all PASS");
    return failures ? 1 : 0;
}
