/* SLAM on every real laser log in tests/data/carmen (thirteen buildings;
 * the tuning and held-out sets are declared in tests/data/README.md), each
 * as it is and with seeded odometry drift (--odometry-drift 1: wheel scale,
 * turn scale and yaw drift put into the log's odometry, so that real scans
 * test drift correction), through behaviors/slam_log.lua as a user runs it
 * (the tycho executable, the log defaults: one set for every log).
 *
 * Prints one row a run: best-fit ATE against the log's own (GMapping-
 * corrected) poses, mean RPE between consecutive scans, the odometry's ATE,
 * speed against the log's duration (n/a where the log has no usable
 * times), the loop search's worst lag in log seconds, finish()'s time and
 * the peak RSS of the whole process; and a RESULT line per figure.
 *
 * Targets (issue 49): ATE <= 0.10 m, RPE <= 0.04 m and <= 0.6 deg, >= 10x
 * the log's real time, loop lag <= 5 s, finish <= 1 s, peak RSS <= 100 MB.
 * TYCHO_BENCH_LOGS=name,name,... runs only those. */
#define _GNU_SOURCE
#include "child.h"
#include "result.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

static const struct {
    const char *name, *file;
    bool held_out;
} LOGS[] = {
    {"intel", "intel.gfs.log", false},
    {"aces", "aces.gfs.log.gz", false},
    {"edmonton", "edmonton.gfs.log.gz", false},
    {"acapulco", "acapulco.gfs.log.gz", false},
    {"csail", "csail.gfs.log.gz", false},
    {"fr101", "fr101.gfs.log.gz", false},
    {"fr079", "fr079.gfs.log.gz", true},
    {"fr_campus", "fr-campus.gfs.log.gz", true},
    {"infinite_corridor", "infinite-corridor.gfs.log.gz", true},
    {"seattle", "seattle.gfs.log.gz", true},
    {"belgioioso", "belgioioso.gfs.log.gz", true},
    {"orebro", "orebro.gfs.log.gz", true},
    {"fhw", "fhw.gfs.log.gz", true},
};

/* The number of `key` after the first `after` in json (NAN if none). */
static double number_after(const char *json, const char *after, const char *key)
{
    const char *s = json ? strstr(json, after) : NULL;
    return s ? bench_json_number(s, key) : (double)NAN;
}

static bool wanted(const char *name)
{
    const char *only = getenv("TYCHO_BENCH_LOGS");
    if (!only) return true;
    size_t n = strlen(name);
    for (const char *p = only; (p = strstr(p, name)); p += n)
        if ((p == only || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return true;
    return false;
}

int main(void)
{
    char exe[PATH_MAX], cwd[PATH_MAX];
    if (bench_tycho_exe(exe, "bench_slam_logs") != 0) return 1;
    const char *src = bench_source_dir(cwd);
    const char *data = getenv("TYCHO_TEST_DATA");
    int runs = 0, met = 0;
    printf("%-18s %-5s %-8s %8s %8s %8s %8s %9s %8s %7s %7s\n", "log", "odom", "set", "ATE m",
           "RPE m", "RPE deg", "odom ATE", "x real", "lag s", "fin s", "RSS MB");
    for (size_t i = 0; i < sizeof LOGS / sizeof LOGS[0]; i++) {
        if (!wanted(LOGS[i].name)) continue;
        char log[PATH_MAX + 64];
        if (data) snprintf(log, sizeof log, "%s/carmen/%s", data, LOGS[i].file);
        else snprintf(log, sizeof log, "%s/tests/data/carmen/%s", src, LOGS[i].file);
        for (int drift = 0; drift < 2; drift++) {
            char tmp[64];
            char *out = bench_tmpdir(tmp, "bench_slam_logs");
            if (!out) return 1;
            char *args[] = {
                exe, "run",     "behaviors/slam_log.lua",          "--carmen", log, "--out",
                out, "--quiet", drift ? "--odometry-drift" : NULL, "1",        NULL};
            bench_child r = {.exit_code = -1};
            if (bench_run_child(args, src, &r) != 0 || r.exit_code != 0) {
                printf("%-18s slam_log.lua FAILED (exit %d)\n", LOGS[i].name, r.exit_code);
                bench_remove_tree(out, "bench_slam_logs");
                runs++;
                continue;
            }
            char *sum = bench_read_summary(out);
            double ate = bench_json_number(sum, "ate_m");
            double odom = bench_json_number(sum, "odometry_ate_m");
            double rpe_t = number_after(sum, "\"rpe\":", "trans_m");
            double rpe_r = number_after(sum, "\"rpe\":", "rot_deg");
            double times = bench_json_number(sum, "times_real_time"); /* NAN when null */
            double lag = number_after(sum, "\"loop_lag\":", "max");
            double fin = bench_json_number(sum, "finish_s");
            double rss = (double)r.max_rss_kb / 1024.0;
            free(sum);
            bool ok = ate <= 0.10 && rpe_t <= 0.04 && rpe_r <= 0.6 && !(times < 10) && lag <= 5 &&
                      fin <= 1 && rss <= 100;
            runs++;
            met += ok;
            printf("%-18s %-5s %-8s %8.3f %8.3f %8.2f %8.3f %9.0f %8.1f %7.2f %7.1f  %s\n",
                   LOGS[i].name, drift ? "drift" : "log", LOGS[i].held_out ? "held-out" : "tuning",
                   ate, rpe_t, rpe_r, odom, times, lag, fin, rss, ok ? "met" : "NOT MET");
            char name[128], desc[256];
            const char *mode = drift ? "drift" : "log";
            snprintf(name, sizeof name, "slam_logs.%s.%s.ate_m", LOGS[i].name, mode);
            snprintf(desc, sizeof desc, "`bench_slam_logs`: %s (%s), %s odometry: best-fit ATE",
                     LOGS[i].name, LOGS[i].held_out ? "held out" : "tuning",
                     drift ? "drifted" : "the log's");
            bench_result(name, ate, "m", "<=", 0.10, desc);
            snprintf(name, sizeof name, "slam_logs.%s.%s.rpe_m", LOGS[i].name, mode);
            snprintf(desc, sizeof desc,
                     "`bench_slam_logs`: %s, %s odometry: mean RPE, consecutive scans",
                     LOGS[i].name, drift ? "drifted" : "the log's");
            bench_result(name, rpe_t, "m", "<=", 0.04, desc);
            if (!drift && !isnan(times)) {
                snprintf(name, sizeof name, "slam_logs.%s.times_real_time", LOGS[i].name);
                snprintf(desc, sizeof desc,
                         "`bench_slam_logs`: %s: speed against the log's duration", LOGS[i].name);
                bench_result(name, times, "x", ">=", 10, desc);
            }
            bench_remove_tree(out, "bench_slam_logs");
        }
    }
    printf("bench_slam_logs: %d of %d runs meet every target  %s\n", met, runs,
           met == runs ? "PASS" : "FAIL");
    return met == runs ? 0 : 1;
}
