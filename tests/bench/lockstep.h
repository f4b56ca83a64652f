/* Two runs of the executable compared in lockstep: both are started, and
 * they run by turns of a few tens of milliseconds, the other one stopped
 * (SIGSTOP to its process group, SIGCONT for its turn), so a change of the
 * machine's speed that lasts longer than a turn slows both alike. On this
 * project's VM the speed changes by up to 40 % from one second to the next:
 * back-to-back runs of the same mission differ by 10 to 30 %, runs in
 * lockstep by about 2 % (21 same-against-same rounds).
 *
 * Each run's time is the wall time of its turns until it ended: its threads
 * all run (or wait) in its turns, as they would alone; only what the kernel
 * does for it meanwhile (writing its files back) runs in the other's turns.
 * The end is seen at once (a pidfd, Linux 5.3 and later). */
#ifndef TYCHO_BENCH_LOCKSTEP_H
#define TYCHO_BENCH_LOCKSTEP_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"

typedef struct {
    pid_t pid;
    int pidfd;
    int exited, exit_code;
    double active_s; /* wall time of its turns, until it ended */
} bench_turns;

/* Starts argv in cwd with its output discarded, stopped before it runs:
 * it begins (exec included) at its first turn. */
static inline int bench_turns_start(char *const argv[], const char *cwd, bench_turns *r)
{
    fflush(stdout);
    *r = (bench_turns){.pid = -1, .pidfd = -1, .exit_code = -1};
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        setpgid(0, 0);
        raise(SIGSTOP);
        bench_exec_quiet(argv, cwd);
    }
    setpgid(pid, pid); /* both sides: whichever runs first */
    int status;
    if (waitpid(pid, &status, WUNTRACED) != pid || !WIFSTOPPED(status)) return -1;
    r->pid = pid;
    r->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    return r->pidfd < 0 ? -1 : 0;
}

/* r ended with this wait status. */
static inline void bench_turns_ended(bench_turns *r, int status)
{
    r->exited = 1;
    r->exit_code = bench_exit_code(status);
    close(r->pidfd);
}

/* One turn of at most slice_s: runs r until the slice is over (then stops
 * it) or it ends. */
static inline int bench_turns_run(bench_turns *r, double slice_s)
{
    double t0 = bench_now();
    if (kill(-r->pid, SIGCONT) != 0) return -1;
    struct pollfd pf = {r->pidfd, POLLIN, 0};
    int n;
    do n = poll(&pf, 1, (int)(slice_s * 1000));
    while (n < 0 && errno == EINTR);
    int status;
    if (n > 0) { /* it ended */
        r->active_s += bench_now() - t0;
        if (waitpid(r->pid, &status, 0) != r->pid) return -1;
        bench_turns_ended(r, status);
        return 0;
    }
    kill(-r->pid, SIGSTOP);
    r->active_s += bench_now() - t0;
    /* stopped (or ended meanwhile) before the other one's turn */
    if (waitpid(r->pid, &status, WUNTRACED) != r->pid) return -1;
    if (!WIFSTOPPED(status)) bench_turns_ended(r, status);
    return 0;
}

/* Runs a and b in lockstep, turns of slice_s, `first` (0: a, 1: b) first;
 * their times in the bench_turns. 0, or -1 when one could not be run. */
static inline int bench_lockstep(char *const a[], char *const b[], const char *cwd, double slice_s,
                                 int first, bench_turns out[2])
{
    if (bench_turns_start(a, cwd, &out[0]) != 0) return -1;
    if (bench_turns_start(b, cwd, &out[1]) != 0) {
        kill(-out[0].pid, SIGKILL);
        kill(-out[0].pid, SIGCONT);
        waitpid(out[0].pid, NULL, 0);
        return -1;
    }
    for (int k = first ? 1 : 0; !(out[0].exited && out[1].exited); k ^= 1) {
        if (out[k].exited) continue;
        if (bench_turns_run(&out[k], slice_s) != 0) return -1;
    }
    return 0;
}

#endif
