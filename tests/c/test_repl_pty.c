/* Drives `tycho repl` through a pseudo-terminal, as a person would: line
 * editing is on (libedit), an expression prints its value, a multi-line
 * chunk continues with ">> ", TAB completes through tables and metatables,
 * an error is printed and the console goes on, history is kept in the file
 * given, and :quit leaves with status 0. */
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char out[1 << 16];
static size_t nout;

/* Reads from the terminal until `want` appears after position `from` or
 * `seconds` pass; returns the position just after it, or 0. */
static size_t expect(int fd, const char *want, size_t from, double seconds)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        out[nout] = 0;
        char *hit = strstr(out + from, want);
        if (hit) return (size_t)(hit - out) + strlen(want);
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        double el = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9;
        if (el > seconds) {
            fprintf(stderr, "expected \"%s\"; terminal so far:\n%s\n", want, out + from);
            return 0;
        }
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 100) > 0) {
            ssize_t n = read(fd, out + nout, sizeof out - 1 - nout);
            if (n > 0) nout += (size_t)n;
            else if (n < 0 && errno != EINTR && errno != EAGAIN) return 0;
        }
    }
}

static void send(int fd, const char *s)
{
    size_t n = strlen(s);
    if (write(fd, s, n) != (ssize_t)n) perror("write");
}

static void exe_path(char *buf, size_t n)
{
    const char *e = getenv("TYCHO_EXE");
    if (e) {
        snprintf(buf, n, "%s", e);
        return;
    }
    ssize_t k = readlink("/proc/self/exe", buf, n - 8);
    buf[k > 0 ? k : 0] = 0;
    char *slash = strrchr(buf, '/');
    if (slash) strcpy(slash + 1, "tycho");
}

int main(void)
{
    char exe[PATH_MAX];
    exe_path(exe, sizeof exe);
    char hist[] = "/tmp/tycho-repl-hist-XXXXXX";
    int hfd = mkstemp(hist);
    CHECK(hfd >= 0);
    close(hfd);
    unlink(hist); /* the console creates it */

    int fd;
    pid_t pid = forkpty(&fd, NULL, NULL, NULL);
    CHECK(pid >= 0);
    if (pid == 0) {
        setenv("TERM", "xterm", 1);
        execl(exe, exe, "repl", "--history", hist, (char *)NULL);
        _exit(127);
    }
    size_t at = expect(fd, "tycho> ", 0, 20);
    CHECK(at > 0);
    send(fd, "1 + 1\r");
    CHECK((at = expect(fd, "2", at, 10)) > 0);
    /* multi-line chunk */
    send(fd, "function twice(n)\r");
    CHECK((at = expect(fd, ">> ", at, 10)) > 0);
    send(fd, "return 2 * n end\r");
    send(fd, "twice(21)\r");
    CHECK((at = expect(fd, "42", at, 10)) > 0);
    /* pretty printing of nested tables and __tostring userdata */
    send(fd, "{a = 1, b = {c = 'd'}}\r");
    CHECK((at = expect(fd, "{ a = 1, b = { c = \"d\" } }", at, 10)) > 0);
    send(fd, "tycho.grid.new{width = 3, height = 2, resolution = 0.5}\r");
    CHECK((at = expect(fd, "grid", at, 10)) > 0);
    /* TAB completion: a module path (then Enter evaluates the completed
     * name), then a method reached through the grid's metatable */
    send(fd, "tycho.sim.lo\t");
    usleep(200000);
    send(fd, "\r");
    CHECK((at = expect(fd, "function", at, 10)) > 0);
    send(fd, "g = tycho.grid.new{width = 3, height = 2}\r");
    send(fd, "g:infl\t");
    usleep(200000);
    send(fd, "{inscribed_radius = 0.1, inflation_radius = 0.2}\r");
    CHECK((at = expect(fd, "tycho.grid 3x2", at, 10)) > 0);
    /* an error is reported and the console goes on */
    send(fd, "error('boom')\r");
    CHECK((at = expect(fd, "boom", at, 10)) > 0);
    send(fd, "6 * 7\r");
    CHECK((at = expect(fd, "42", at, 10)) > 0);
    send(fd, ":quit\r");
    int status = -1;
    for (int i = 0; i < 100; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid) break;
        char drain[4096];
        if (read(fd, drain, sizeof drain) < 0 && errno != EAGAIN && errno != EIO) break;
        usleep(50000);
        status = -1;
    }
    if (status == -1) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* the history was written, with the lines typed */
    FILE *h = fopen(hist, "r");
    CHECK(h != NULL);
    if (h) {
        char buf[4096];
        size_t n = fread(buf, 1, sizeof buf - 1, h);
        buf[n] = 0;
        CHECK(strstr(buf, "twice(21)") != NULL);
        fclose(h);
    }
    unlink(hist);
    close(fd);
    return check_summary("repl_pty");
}
