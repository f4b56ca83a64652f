/* Atomic file writing (issue 14): the file is the old one or the complete
 * new one; a failed write (here: RLIMIT_FSIZE, as a full disk would) is
 * reported with the file's name and leaves the old content and no temp
 * file; the permissions of the file replaced are kept; a symbolic link is
 * followed and stays a link; a temp file left by a dead process is removed
 * by the next write, a live process's is not. */
#include "check.h"
#include "tycho/atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static const char *at(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int content_is(const char *path, const char *want)
{
    char buf[4096];
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strcmp(buf, want) == 0;
}

static int count_temps(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) n += strstr(e->d_name, ".tmp") != NULL;
    if (d) closedir(d);
    return n;
}

/* a pid that no process has */
static long dead_pid(void)
{
    for (long pid = 4000000; pid > 1000; pid -= 7)
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) return pid;
    return -1;
}

static void test_mode_kept(void)
{
    tycho_err err = {0};
    put(at("private"), "old");
    chmod(at("private"), 0600);
    CHECKED(tycho_atomic_write(at("private"), "new", 3, &err) == TYCHO_OK, err.msg);
    struct stat st;
    CHECK(stat(at("private"), &st) == 0 && (st.st_mode & 0777) == 0600);
    CHECK(content_is(at("private"), "new"));
    CHECKED(tycho_atomic_write(at("fresh"), "x", 1, &err) == TYCHO_OK, err.msg);
    CHECK(stat(at("fresh"), &st) == 0 && (st.st_mode & 0777) == 0644);
}

static void test_symlink(void)
{
    tycho_err err = {0};
    put(at("target"), "old");
    unlink(at("link"));
    CHECK(symlink("target", at("link")) == 0);
    CHECKED(tycho_atomic_write(at("link"), "new", 3, &err) == TYCHO_OK, err.msg);
    struct stat st;
    CHECK(lstat(at("link"), &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(content_is(at("target"), "new"));
    unlink(at("dangling"));
    CHECK(symlink("nothing-here", at("dangling")) == 0);
    CHECK(tycho_atomic_write(at("dangling"), "x", 1, &err) != TYCHO_OK);
    CHECK_MSG(strstr(err.msg, "dangling") && strstr(err.msg, "symbolic link"), "%s", err.msg);
    mkdir(at("adir"), 0755);
    CHECK(tycho_atomic_write(at("adir"), "x", 1, &err) != TYCHO_OK);
    CHECK_MSG(strstr(err.msg, "is a directory") != NULL, "%s", err.msg);
}

static void test_stale_temps(void)
{
    tycho_err err = {0};
    long dead = dead_pid();
    char name[128];
    snprintf(name, sizeof name, "stale.tmp-%ld-abcdef", dead);
    put(at(name), "torn");
    snprintf(name, sizeof name, "stale.tmp-%ld-ghijkl", (long)getppid()); /* alive */
    put(at(name), "in progress");
    CHECKED(tycho_atomic_write(at("stale"), "whole", 5, &err) == TYCHO_OK, err.msg);
    snprintf(name, sizeof name, "stale.tmp-%ld-abcdef", dead);
    CHECK(access(at(name), F_OK) != 0);
    snprintf(name, sizeof name, "stale.tmp-%ld-ghijkl", (long)getppid());
    CHECK(access(at(name), F_OK) == 0);
    unlink(at(name));
}

static void test_write_failure(void)
{
    tycho_err err = {0};
    put(at("summary.json"), "{\"previous\": true}\n");
    int before = count_temps();
    /* as a full disk would: writes past 1 KiB fail with EFBIG */
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, small = {1024, 1024};
    getrlimit(RLIMIT_FSIZE, &old);
    small.rlim_max = old.rlim_max;
    setrlimit(RLIMIT_FSIZE, &small);
    static char big[64 * 1024];
    memset(big, 'x', sizeof big);
    tycho_status st = tycho_atomic_write(at("summary.json"), big, sizeof big, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(st != TYCHO_OK);
    CHECK_MSG(strstr(err.msg, "summary.json") != NULL, "%s", err.msg);
    CHECK(content_is(at("summary.json"), "{\"previous\": true}\n"));
    CHECK(count_temps() == before);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/tycho_atomic_%d", (int)getpid());
    mkdir(dir, 0755);
    test_mode_kept();
    test_symlink();
    test_stale_temps();
    test_write_failure();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_summary("test_atomic_file");
}
