/* The benchmarks' clocks: wall time, and this process's CPU time printed
 * beside it (the machine is shared: the difference shows how much of the
 * wall figure was waiting for it). */
#ifndef TYCHO_BENCH_CLOCK_H
#define TYCHO_BENCH_CLOCK_H

#include <time.h>

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
