/* Recording benchmark: the small-maze heat_seek mission (accelerated
 * simulation) run in REPS back-to-back pairs, with and without `--record
 * FILE.mcap` (which goes first alternates). Prints how much slower the
 * mission is with it, the median of the pairs' ratios (the target): this
 * machine's two vCPUs at times differ by 40 % in speed, and a whole run
 * lands on one or the other, so the medians of each kind taken apart
 * compared a fast run with a slow one now and then (+49 % once); a pair
 * runs within two seconds. Also the median wall time of each, and CPU time (user + system of the
 * child, both of its threads: the recording's writer thread encodes, compresses and writes beside
 * the robot's loop), the file's size (and per 300 s of mission), and checks that recording changes
 * no decision: summary.json is the same with and without it (wall time aside).
 *
 * Targets (the live-view/recording issue): <= 5 % slower with --record,
 * <= 20 MB for 300 s. Paths as bench_mission: the `tycho` beside this
 * benchmark, the scripts from TYCHO_SOURCE_DIR or the working directory. */
#define _GNU_SOURCE
#include "child.h"
#include "result.h"

#include <limits.h>
#include <math.h>
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

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], by_value);
    return v[n / 2];
}

/* The order statistics of n sorted values that hold the median with at
 * least 95 % confidence whatever the distribution: v[k - 1] and v[n - k]
 * for the largest k with P(Binomial(n, 1/2) < k) <= 2.5 % (for 21 pairs
 * the 6th and the 16th, 97 %). Returns k (0: too few values, the whole
 * range). On this VM a pair can differ by 20 % either way, so the interval
 * says how far the median itself can be trusted. */
static int median_interval(const double *sorted, int n, double *lo, double *hi)
{
    double below = 0, ways = 1; /* P(B < i + 1) so far; C(n, i) */
    int k = 0;
    for (int i = 0; i < n / 2; i++) {
        below += ways * ldexp(1.0, -n);
        if (below > 0.025) break;
        k = i + 1;
        ways = ways * (n - i) / (i + 1);
    }
    *lo = sorted[k > 0 ? k - 1 : 0];
    *hi = sorted[k > 0 ? n - k : n - 1];
    return k;
}

int main(void)
{
    char exe[PATH_MAX];
    if (bench_tycho_exe(exe, "bench_record") != 0) return 1;
    char cwd[PATH_MAX], tmp[64];
    const char *src = bench_source_dir(cwd);
    char *root = bench_tmpdir(tmp, "bench_record");
    if (!root) return 1;

    enum {
        REPS = 21
    }; /* a shared machine: the median of 21 pairs (its 95 % interval the 6th to the 16th) */
    double cpu[2][REPS], wall[2][REPS];
    char *summaries[2] = {NULL, NULL};
    long long bytes = 0;
    double sim_s = 0;
    int failures = 0;
    for (int rep = 0; rep < REPS; rep++) {
        for (int k = 0; k < 2; k++) {
            int rec = (k + rep) % 2; /* the first of a pair alternates */
            char out[PATH_MAX], file[PATH_MAX + 16];
            snprintf(out, sizeof out, "%s/r%d-%d", root, rec, rep);
            snprintf(file, sizeof file, "%s.mcap", out);
            char *plain[] = {exe,
                             "run",
                             "behaviors/heat_seek.lua",
                             "--world",
                             "maps/maze_small.lua",
                             "--out",
                             out,
                             "--quiet",
                             "--no-socket",
                             NULL};
            char *recorded[] = {exe,
                                "run",
                                "behaviors/heat_seek.lua",
                                "--world",
                                "maps/maze_small.lua",
                                "--out",
                                out,
                                "--quiet",
                                "--no-socket",
                                "--record",
                                file,
                                NULL};
            bench_child r = {.exit_code = -1};
            if (bench_run_child(rec ? recorded : plain, src, &r) != 0 || r.exit_code != 0) {
                printf("record: run %d %s FAILED (exit %d)\n", rep + 1,
                       rec ? "with --record" : "without", r.exit_code);
                failures++;
                cpu[rec][rep] = wall[rec][rep] = 0;
                continue;
            }
            cpu[rec][rep] = r.cpu_s;
            wall[rec][rep] = r.wall_s;
            if (rep == 0) {
                summaries[rec] = summary_without_wall(out);
                const char *s = summaries[rec] ? strstr(summaries[rec], "\"sim_time_s\":") : NULL;
                if (s) sim_s = atof(s + strlen("\"sim_time_s\":"));
            }
            struct stat st;
            if (rec && stat(file, &st) == 0) bytes = (long long)st.st_size;
        }
    }
    double cpu0 = median(cpu[0], REPS), cpu1 = median(cpu[1], REPS);
    double ratio[REPS];
    for (int rep = 0; rep < REPS; rep++)
        ratio[rep] = wall[0][rep] > 0 ? (wall[1][rep] / wall[0][rep] - 1) * 100 : 0;
    printf("record: the pairs, slower by:");
    for (int rep = 0; rep < REPS; rep++) printf(" %+.1f", ratio[rep]);
    printf(" %%\n");
    double overhead = median(ratio, REPS);
    double ci_lo, ci_hi;
    int k = median_interval(ratio, REPS, &ci_lo, &ci_hi);
    printf(
        "record: the median's 95 %% interval (pairs %d and %d of %d, sorted): %+.1f to %+.1f %%\n",
        k > 0 ? k : 1, k > 0 ? REPS + 1 - k : REPS, REPS, ci_lo, ci_hi);
    double wall0 = median(wall[0], REPS), wall1 = median(wall[1], REPS);
    double cpu_overhead = cpu0 > 0 ? (cpu1 / cpu0 - 1) * 100 : 0;
    double mb = (double)bytes / 1e6, mb300 = sim_s > 0 ? mb * 300 / sim_s : 0;
    printf("record: small maze, %d pairs: without %.3f s wall (%.3f s CPU), with --record "
           "%.3f s wall (%.3f s CPU, both threads) (medians): %+.1f %% slower (median of the "
           "pairs; target <= 5 %%) %s, %+.1f %% CPU\n",
           REPS, wall0, cpu0, wall1, cpu1, overhead, overhead <= 5 ? "PASS" : "FAIL", cpu_overhead);
    printf("record: file %.2f MB for %.0f s of mission = %.2f MB per 300 s (target <= 20 MB) %s\n",
           mb, sim_s, mb300, mb300 <= 20 ? "PASS" : "FAIL");
    bool same = summaries[0] && summaries[1] && strcmp(summaries[0], summaries[1]) == 0;
    printf("record: decisions with and without --record: %s summary.json %s\n",
           same ? "identical" : "DIFFERENT", same ? "PASS" : "FAIL");
    bench_result(
        "record.overhead_pct", overhead, "%", "<=", 5,
        "`bench_record`: small-maze mission with `--record FILE.mcap`, slower (wall time, median "
        "of 21 back-to-back pairs)");
    bench_result("record.cpu_overhead_pct", cpu_overhead, "%", NULL, 0,
                 "`bench_record`: the same, extra CPU time of both threads (the writer's thread "
                 "works beside the robot's loop)");
    bench_result("record.mb_per_300s", mb300, "MB", "<=", 20,
                 "`bench_record`: recording size per 300 s of mission");
    bench_result("record.same_decisions", same ? 1 : 0, "bool", ">=", 1,
                 "`bench_record`: identical summary.json with and without `--record`");
    if (overhead > 5 || mb300 > 20 || !same) failures++;
    free(summaries[0]);
    free(summaries[1]);
    bench_remove_tree(root, "bench_record");
    printf("bench_record: %s\n", failures ? "FAIL" : "all PASS");
    return failures ? 1 : 0;
}
