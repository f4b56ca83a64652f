/* SLAM on a real laser log: behaviors/slam_log.lua over the whole Intel
 * Research Lab log (tests/data/carmen/intel.gfs.log: 910 scans over 2,651
 * s), as a user runs it (the tycho executable, the log's defaults). Prints
 * the speed against the log's duration, the trajectory against the log's
 * own (GMapping-corrected) laser poses with the first pose aligned and
 * with the best-fitting alignment, the same over the log's second half
 * alone (the defaults were chosen on the first half), loop closures, and
 * the peak resident memory of the whole process (getrusage of the child:
 * the pictures and files included).
 *
 * Targets (the localization issue): >= 20x the log's duration, best-fit
 * ATE <= 0.10 m, peak memory <= 50 MB. Every other log: bench_slam_logs.
 *
 * Paths: the `tycho` beside this benchmark; the script from
 * TYCHO_SOURCE_DIR (else the working directory); the log from
 * TYCHO_TEST_DATA (else tests/data under the sources). */
#define _GNU_SOURCE
#include "child.h"
#include "result.h"

#include <math.h>
#include <stdbool.h>

/* RMSE over the second half of trajectory.csv's rows (first pose aligned:
 * the columns t,x,y,yaw,ref_x,ref_y,ref_yaw,...), or NAN. */
static double second_half_rmse(const char *dir)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/trajectory.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f) return NAN;
    enum { MAX_ROWS = 100000 };
    static double row[MAX_ROWS][6];
    char line[512];
    int n = 0;
    if (!fgets(line, sizeof line, f)) n = -1; /* the header */
    while (n >= 0 && n < MAX_ROWS && fgets(line, sizeof line, f)) {
        double t;
        double *r = row[n];
        if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", &t, &r[0], &r[1], &r[2], &r[3], &r[4],
                   &r[5]) == 7)
            n++;
    }
    fclose(f);
    if (n < 2) return NAN;
    double dyaw = row[0][5] - row[0][2], c = cos(dyaw), s = sin(dyaw), sum = 0;
    int count = 0;
    for (int i = n / 2; i < n; i++, count++) {
        double dx = row[i][0] - row[0][0], dy = row[i][1] - row[0][1];
        double x = row[0][3] + c * dx - s * dy, y = row[0][4] + s * dx + c * dy;
        sum += (x - row[i][3]) * (x - row[i][3]) + (y - row[i][4]) * (y - row[i][4]);
    }
    return sqrt(sum / count);
}

int main(void)
{
    char exe[PATH_MAX], cwd[PATH_MAX], log[PATH_MAX + 64];
    if (bench_tycho_exe(exe, "bench_slam_log") != 0) return 1;
    const char *src = bench_source_dir(cwd);
    const char *data = getenv("TYCHO_TEST_DATA");
    if (data) snprintf(log, sizeof log, "%s/carmen/intel.gfs.log", data);
    else snprintf(log, sizeof log, "%s/tests/data/carmen/intel.gfs.log", src);
    char tmp[64];
    char *out = bench_tmpdir(tmp, "bench_slam_log");
    if (!out) return 1;
    char *args[] = {exe,       "run", "behaviors/slam_log.lua", "--carmen", log, "--out", out,
                    "--quiet", NULL};
    bench_child r = {.exit_code = -1};
    if (bench_run_child(args, src, &r) != 0 || r.exit_code != 0) {
        printf("bench_slam_log: slam_log.lua FAILED (exit %d) on %s\n", r.exit_code, log);
        return 1;
    }
    char *sum = bench_read_summary(out);
    double times = bench_json_number(sum, "times_real_time");
    /* slam_log's summary has best-fit figures only since schema 2 (first-pose
     * alignment is blind to nothing and fair to nothing): both are that */
    double rmse = bench_json_number(sum, "ate_m"), max = bench_json_number(sum, "ate_max_m");
    double fit = rmse;
    double odom = bench_json_number(sum, "odometry_ate_m");
    double median = bench_json_number(sum, "median");
    double closures = bench_json_number(sum, "loop_closures");
    double rejected = bench_json_number(sum, "loop_rejected");
    double half = second_half_rmse(out);
    double rss_mb = (double)r.max_rss_kb / 1024.0;
    free(sum);
    bool ok = times >= 20 && rmse <= 0.10 && rss_mb <= 50;
    printf("slam_log on the Intel log: %.1f s wall, %.0fx the log's duration (target >= 20x); "
           "add_scan median %.2f ms\n",
           r.wall_s, times, median);
    printf("  trajectory against the log's poses, best-fit ATE %.3f m (target <= "
           "0.10 m), max %.3f m; second half alone (first pose aligned) %.3f m; best-fit %.3f m; "
           "the log's odometry (not raw wheels: tests/data/README.md) %.3f m\n",
           rmse, max, half, fit, odom);
    printf("  %.0f loop closures (%.0f set aside); peak RSS of the process %.1f MB (target <= 50 "
           "MB)  %s\n",
           closures, rejected, rss_mb, ok ? "PASS" : "FAIL");
    bench_result("slam_log.intel.times_real_time", times, "x", ">=", 20,
                 "`bench_slam_log`: SLAM on the Intel log, speed against the log's duration");
    bench_result("slam_log.intel.rmse_m", rmse, "m", "<=", 0.10,
                 "`bench_slam_log`: Intel log trajectory error against the log's poses (best-fit "
                 "ATE)");
    bench_result("slam_log.intel.second_half_rmse_m", half, "m", NULL, 0,
                 "`bench_slam_log`: the same over the second half (the defaults were chosen on "
                 "the first)");
    bench_result("slam_log.intel.best_fit_rmse_m", fit, "m", NULL, 0,
                 "`bench_slam_log`: the same (best-fit ATE; kept under its old name)");
    bench_result("slam_log.intel.peak_rss_mb", rss_mb, "MB", "<=", 50,
                 "`bench_slam_log`: peak resident memory of the whole run (pictures included)");
    bench_remove_tree(out, "bench_slam_log");
    return ok ? 0 : 1;
}
