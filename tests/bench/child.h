/* What the benchmarks that run the tycho executable share: run a child
 * with its output discarded and measure it (wall time, CPU time, peak
 * resident memory: getrusage of the child), find the `tycho` beside the
 * benchmark, and read a file or a number out of a summary.json. */
#ifndef TYCHO_BENCH_CHILD_H
#define TYCHO_BENCH_CHILD_H

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

typedef struct {
    int exit_code; /* 128 when killed by a signal */
    double wall_s, cpu_s;
    long max_rss_kb;
} bench_child;

/* In a forked child: runs argv (argv[0] a path) in cwd (NULL: here) with
 * stdout and stderr to /dev/null; never returns (exit 127 when it cannot). */
static inline void bench_exec_quiet(char *const argv[], const char *cwd)
{
    if (cwd && chdir(cwd) != 0) _exit(127);
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(127);
    execv(argv[0], argv);
    _exit(127);
}

/* A child's exit code from its wait status (128 when killed by a signal). */
static inline int bench_exit_code(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Runs argv (argv[0] a path) in cwd (NULL: here) with stdout and stderr
 * to /dev/null. -1 when it could not be started or waited for. */
static inline int bench_run_child(char *const argv[], const char *cwd, bench_child *r)
{
    fflush(stdout); /* or the child would print our buffer again */
    double t0 = bench_now();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) bench_exec_quiet(argv, cwd);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) return -1;
    r->wall_s = bench_now() - t0;
    r->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    r->max_rss_kb = ru.ru_maxrss;
    r->exit_code = bench_exit_code(status);
    return 0;
}

/* The `tycho` executable beside this benchmark, into exe (PATH_MAX). */
static inline int bench_tycho_exe(char *exe, const char *who)
{
    ssize_t n = readlink("/proc/self/exe", exe, PATH_MAX - 8);
    if (n <= 0) {
        fprintf(stderr, "%s: cannot find myself\n", who);
        return -1;
    }
    exe[n] = 0;
    strcpy(strrchr(exe, '/') + 1, "tycho");
    return 0;
}

/* DIR/summary.json's text (malloc'd, at most 1 MB), or NULL. */
static inline char *bench_read_summary(const char *dir)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf) buf[n] = 0;
    return buf;
}

/* The number after the first "key": in a JSON text (NAN when absent). */
static inline double bench_json_number(const char *json, const char *key)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *s = json ? strstr(json, pat) : NULL;
    return s ? strtod(s + strlen(pat), NULL) : (double)NAN;
}

/* The tree the scripts and worlds are read from: TYCHO_SOURCE_DIR, else
 * the working directory (written into cwd, PATH_MAX). */
static inline const char *bench_source_dir(char *cwd)
{
    const char *src = getenv("TYCHO_SOURCE_DIR");
    return src ? src : getcwd(cwd, PATH_MAX);
}

/* A fresh folder /tmp/tycho-WHO-XXXXXX (into path, at least 64 bytes), or
 * NULL after saying why. */
static inline char *bench_tmpdir(char *path, const char *who)
{
    snprintf(path, 64, "/tmp/tycho-%.40s-XXXXXX", who);
    if (mkdtemp(path)) return path;
    fprintf(stderr, "%s: cannot make a folder in /tmp: ", who);
    perror(NULL);
    return NULL;
}

/* Removes a folder made by bench_tmpdir and everything in it. */
static inline void bench_remove_tree(const char *path, const char *who)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0) fprintf(stderr, "%s: could not remove %s\n", who, path);
}

#endif
