/* Recording benchmark: the small-maze heat_seek mission (accelerated
 * simulation) run in back-to-back pairs, with and without `--record
 * FILE.mcap` (which goes first alternates). Prints how much slower the
 * mission is with it, the median of the pairs' ratios (the target): this
 * machine's speed changes by up to 40 % from one second to the next (a run
 * pinned to one vCPU too), so the medians of each kind taken apart
 * compared a fast run with a slow one now and then (+49 % once); a pair
 * runs within three seconds. Also the median wall time of each, and CPU time (user + system of the
 * child, both of its threads: the recording's writer thread encodes, compresses and writes beside
 * the robot's loop), the file's size (and per 300 s of mission), and checks that recording changes
 * no decision: summary.json is the same with and without it (wall time aside).
 *
 * Targets (the live-view/recording issue): <= 5 % slower with --record,
 * <= 20 MB for 300 s. Paths as bench_mission: the `tycho` beside this
 * benchmark, the scripts from TYCHO_SOURCE_DIR or the working directory.
 *
 * TYCHO_BENCH_PAIRS (default 61, at least 5): how many pairs. A pair can
 * differ by 30 % either way here, with nothing else running: 21 pairs gave
 * the median a 95 % interval about 15 points wide, 61 about 6.
 *
 * Then the same in lockstep (lockstep.h: the two missions by turns of
 * 50 ms), TYCHO_BENCH_LOCKSTEP_ROUNDS rounds (default 21): a round of the
 * mission against itself differs by about 2 %, so 21 rounds give an
 * interval about 2 points wide. */
#define _GNU_SOURCE
#include "child.h"
#include "lockstep.h"
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

/* The small-maze mission's command line into argv (12 slots): its
 * outputs in out, recorded to file when file is not NULL. */
static void mission_argv(char *exe, char *out, char *file, char *argv[12])
{
    char *args[] = {exe,
                    "run",
                    "behaviors/heat_seek.lua",
                    "--world",
                    "maps/maze_small.lua",
                    "--out",
                    out,
                    "--quiet",
                    "--no-socket",
                    file ? "--record" : NULL,
                    file,
                    NULL};
    memcpy(argv, args, sizeof args);
}

/* Lockstep (tests/bench/lockstep.h): the same comparison with the two
 * missions run by turns of 50 ms, `rounds` times (which one goes first
 * alternates); into ratio the per-round slowdowns (%). 0, or -1. */
static int lockstep_rounds(char *exe, const char *src, const char *root, int rounds, double *ratio)
{
    for (int r = 0; r < rounds; r++) {
        char out[2][PATH_MAX], file[PATH_MAX + 16];
        snprintf(out[0], sizeof out[0], "%s/l0-%d", root, r);
        snprintf(out[1], sizeof out[1], "%s/l1-%d", root, r);
        snprintf(file, sizeof file, "%s.mcap", out[1]);
        char *plain[12], *recorded[12];
        mission_argv(exe, out[0], NULL, plain);
        mission_argv(exe, out[1], file, recorded);
        bench_turns t[2];
        if (bench_lockstep(plain, recorded, src, 0.05, r % 2, t) != 0 || t[0].exit_code != 0 ||
            t[1].exit_code != 0) {
            printf("record: lockstep round %d FAILED (exit %d, %d)\n", r + 1, t[0].exit_code,
                   t[1].exit_code);
            return -1;
        }
        ratio[r] = (t[1].active_s / t[0].active_s - 1) * 100;
    }
    return 0;
}

int main(void)
{
    char exe[PATH_MAX];
    if (bench_tycho_exe(exe, "bench_record") != 0) return 1;
    char cwd[PATH_MAX], tmp[64];
    const char *src = bench_source_dir(cwd);
    char *root = bench_tmpdir(tmp, "bench_record");
    if (!root) return 1;

    const char *pairs_env = getenv("TYCHO_BENCH_PAIRS");
    const int pairs = pairs_env ? atoi(pairs_env) : 61;
    if (pairs < 5 || pairs > 1000) {
        fprintf(stderr, "bench_record: TYCHO_BENCH_PAIRS must be 5 to 1000, not '%s'\n", pairs_env);
        return 2;
    }
    double *cpu[2], *wall[2], *ratio = calloc((size_t)pairs, sizeof *ratio);
    for (int k = 0; k < 2; k++) {
        cpu[k] = calloc((size_t)pairs, sizeof *cpu[k]);
        wall[k] = calloc((size_t)pairs, sizeof *wall[k]);
    }
    if (!ratio || !cpu[0] || !cpu[1] || !wall[0] || !wall[1]) {
        fprintf(stderr, "bench_record: out of memory\n");
        return 1;
    }
    printf("record: %d pairs of small-maze missions, without and with --record (about %d s)\n",
           pairs, pairs * 3);
    char *summaries[2] = {NULL, NULL};
    long long bytes = 0;
    double sim_s = 0;
    int failures = 0;
    for (int rep = 0; rep < pairs; rep++) {
        for (int k = 0; k < 2; k++) {
            int rec = (k + rep) % 2; /* the first of a pair alternates */
            char out[PATH_MAX], file[PATH_MAX + 16];
            snprintf(out, sizeof out, "%s/r%d-%d", root, rec, rep);
            snprintf(file, sizeof file, "%s.mcap", out);
            char *plain[12], *recorded[12];
            mission_argv(exe, out, NULL, plain);
            mission_argv(exe, out, file, recorded);
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
        if ((rep + 1) % 10 == 0 && rep + 1 < pairs) {
            printf("record: %d of %d pairs\n", rep + 1, pairs);
            fflush(stdout);
        }
    }
    double cpu0 = median(cpu[0], pairs), cpu1 = median(cpu[1], pairs);
    for (int rep = 0; rep < pairs; rep++)
        ratio[rep] = wall[0][rep] > 0 ? (wall[1][rep] / wall[0][rep] - 1) * 100 : 0;
    printf("record: the pairs, slower by:");
    for (int rep = 0; rep < pairs; rep++) printf(" %+.1f", ratio[rep]);
    printf(" %%\n");
    double overhead = median(ratio, pairs);
    double ci_lo, ci_hi;
    int k = median_interval(ratio, pairs, &ci_lo, &ci_hi);
    printf(
        "record: the median's 95 %% interval (pairs %d and %d of %d, sorted): %+.1f to %+.1f %%\n",
        k > 0 ? k : 1, k > 0 ? pairs + 1 - k : pairs, pairs, ci_lo, ci_hi);
    double wall0 = median(wall[0], pairs), wall1 = median(wall[1], pairs);
    double cpu_overhead = cpu0 > 0 ? (cpu1 / cpu0 - 1) * 100 : 0;
    double mb = (double)bytes / 1e6, mb300 = sim_s > 0 ? mb * 300 / sim_s : 0;
    printf("record: small maze, %d pairs: without %.3f s wall (%.3f s CPU), with --record "
           "%.3f s wall (%.3f s CPU, both threads) (medians): %+.1f %% slower (median of the "
           "pairs; target <= 5 %%) %s, %+.1f %% CPU\n",
           pairs, wall0, cpu0, wall1, cpu1, overhead, overhead <= 5 ? "PASS" : "FAIL",
           cpu_overhead);
    printf("record: file %.2f MB for %.0f s of mission = %.2f MB per 300 s (target <= 20 MB) %s\n",
           mb, sim_s, mb300, mb300 <= 20 ? "PASS" : "FAIL");
    bool same = summaries[0] && summaries[1] && strcmp(summaries[0], summaries[1]) == 0;
    printf("record: decisions with and without --record: %s summary.json %s\n",
           same ? "identical" : "DIFFERENT", same ? "PASS" : "FAIL");
    const char *rounds_env = getenv("TYCHO_BENCH_LOCKSTEP_ROUNDS");
    int rounds = rounds_env ? atoi(rounds_env) : 21;
    if (rounds < 5 || rounds > pairs) rounds = pairs < 21 ? pairs : 21;
    double lock = NAN, lock_lo = NAN, lock_hi = NAN;
    printf("record: %d rounds in lockstep (the two missions by turns of 50 ms, so the machine's "
           "speed changes hit both alike)\n",
           rounds);
    if (lockstep_rounds(exe, src, root, rounds, ratio) == 0) {
        printf("record: lockstep, slower by:");
        for (int r = 0; r < rounds; r++) printf(" %+.1f", ratio[r]);
        printf(" %%\n");
        lock = median(ratio, rounds);
        int kk = median_interval(ratio, rounds, &lock_lo, &lock_hi);
        printf("record: in lockstep, %d rounds: %+.1f %% slower (median; its 95 %% interval, "
               "rounds %d and %d of %d sorted: %+.1f to %+.1f %%)\n",
               rounds, lock, kk > 0 ? kk : 1, kk > 0 ? rounds + 1 - kk : rounds, rounds, lock_lo,
               lock_hi);
    } else {
        failures++;
    }
    char what[160];
    snprintf(what, sizeof what,
             "`bench_record`: small-maze mission with `--record FILE.mcap`, slower (wall time, "
             "median of %d back-to-back pairs)",
             pairs);
    bench_result("record.overhead_pct", overhead, "%", "<=", 5, what);
    bench_result("record.overhead_ci_high_pct", ci_hi, "%", NULL, 0,
                 "`bench_record`: the upper end of that median's 95 % interval");
    snprintf(what, sizeof what,
             "`bench_record`: the same in lockstep (the two missions by turns of 50 ms), median "
             "of %d rounds",
             rounds);
    bench_result("record.lockstep_overhead_pct", lock, "%", NULL, 0, what);
    bench_result("record.lockstep_ci_high_pct", lock_hi, "%", NULL, 0,
                 "`bench_record`: the upper end of that median's 95 % interval");
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
    for (int kind = 0; kind < 2; kind++) {
        free(cpu[kind]);
        free(wall[kind]);
    }
    free(ratio);
    bench_remove_tree(root, "bench_record");
    printf("bench_record: %s\n", failures ? "FAIL" : "all PASS");
    return failures ? 1 : 0;
}
