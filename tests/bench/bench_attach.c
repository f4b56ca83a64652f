/* Attach benchmark (issue 4): console round trip of a simple expression
 * over the attach socket, against a real `tycho repl` process (the tycho
 * executable beside this binary), idle and with the simulator running at
 * 20 Hz beside the console. A round trip is from sending the line until
 * the prompt frame that ends its output arrives. Target: <= 2 ms. */
#include "clock.h"
#include "result.h"
#include "tycho/frame.h"

#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) { return bench_now() * 1e3; }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Reads frames until a prompt; 0 on success. */
static int await_prompt(int fd, tycho_frame_reader *r)
{
    for (;;) {
        char t;
        const uint8_t *p;
        size_t len;
        int rc;
        while ((rc = tycho_frame_next(r, &t, &p, &len, NULL)) == 1)
            if (t == 'P') return 0;
        if (rc < 0) return -1;
        uint8_t buf[4096];
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0) return -1;
        tycho_frame_reader_feed(r, buf, (size_t)n, NULL);
    }
}

static int run(const char *exe, const char *label, const char *world)
{
    char sock[96];
    snprintf(sock, sizeof sock, "/tmp/tycho-bench-attach-%d.sock", (int)getpid());
    int in[2];
    if (pipe(in) < 0) return 1;
    fflush(stdout); /* the child would print our buffered lines again */
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        close(in[1]);
        if (!freopen("/dev/null", "w", stdout)) _exit(127);
        if (world)
            execl(exe, exe, "repl", "--socket", sock, "--history", "/dev/null", "--world", world,
                  (char *)NULL);
        else execl(exe, exe, "repl", "--socket", sock, "--history", "/dev/null", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", sock);
    int fd = -1;
    for (int i = 0; i < 200 && fd < 0; i++) {
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
            close(fd);
            fd = -1;
            usleep(20000);
        }
    }
    if (fd < 0) {
        fprintf(stderr, "bench_attach: %s did not start listening on %s\n", exe, sock);
        return 1;
    }
    tycho_frame_reader r;
    tycho_frame_reader_init(&r, 1 << 20);
    if (await_prompt(fd, &r) < 0) return 1;
    enum { N = 2000 };
    static double ms[N];
    const char *line = "1 + 1";
    uint8_t frame[64];
    tycho_frame_header(frame, 'E', (uint32_t)strlen(line));
    memcpy(frame + TYCHO_FRAME_HEADER, line, strlen(line));
    for (int i = 0; i < N; i++) {
        double t0 = now_ms();
        if (send(fd, frame, TYCHO_FRAME_HEADER + strlen(line), 0) < 0 || await_prompt(fd, &r) < 0) {
            fprintf(stderr, "bench_attach: connection lost\n");
            return 1;
        }
        ms[i] = now_ms() - t0;
    }
    qsort(ms, N, sizeof ms[0], cmp_double);
    double p50 = ms[N / 2], p99 = ms[N * 99 / 100], max = ms[N - 1];
    printf("attach round trip '1 + 1' (%s): median %.3f ms, p99 %.3f ms, max %.3f ms over %d "
           "(target <= 2 ms) %s\n",
           label, p50, p99, max, N, p99 <= 2.0 ? "PASS" : "FAIL");
    char key[64], what[200];
    snprintf(key, sizeof key, "attach.%s.p99_ms", world ? "sim" : "idle");
    snprintf(what, sizeof what,
             "`bench_attach`: console round trip of `1 + 1` over the attach socket (%s), p99",
             label);
    bench_result(key, p99, "ms", "<=", 2, what);
    snprintf(key, sizeof key, "attach.%s.median_ms", world ? "sim" : "idle");
    snprintf(what, sizeof what, "`bench_attach`: the same (%s), median", label);
    bench_result(key, p50, "ms", NULL, 0, what);
    close(fd);
    close(in[1]); /* EOF on the console: the runtime leaves */
    int status;
    waitpid(pid, &status, 0);
    tycho_frame_reader_free(&r);
    return p99 <= 2.0 ? 0 : 1;
}

int main(void)
{
    char self[PATH_MAX], exe[PATH_MAX + 8], world[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0) return 1;
    self[n] = 0;
    snprintf(exe, sizeof exe, "%s/tycho", dirname(self));
    const char *src = getenv("TYCHO_SOURCE_DIR");
    snprintf(world, sizeof world, "%s/maps/maze_small.lua", src ? src : ".");
    int rc = run(exe, "idle runtime", NULL);
    rc |= run(exe, "simulator running at 20 Hz", world);
    return rc;
}
