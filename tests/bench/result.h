/* The one machine-readable line a benchmark prints per figure, beside its
 * human-readable report; scripts/bench.sh collects them into
 * bench/results.json and the README's performance table:
 *
 *   RESULT <name> <value> <unit> <target> <description...>
 *
 * name: [a-z0-9_.]+, unique over all benchmarks (prefixed with the bench's
 * own name); unit: no spaces; target: "<=X" or ">=X" in the same unit, or
 * "-" for a figure reported without one (then lower is better, but for the units x_real_time and
 * x); the description (the rest of the line) becomes the table's first column. */
#ifndef TYCHO_BENCH_RESULT_H
#define TYCHO_BENCH_RESULT_H

#include <stdio.h>

/* cmp: "<=", ">=" or NULL (no target) */
static inline void bench_result(const char *name, double value, const char *unit, const char *cmp,
                                double target, const char *description)
{
    if (cmp) printf("RESULT %s %.6g %s %s%.6g %s\n", name, value, unit, cmp, target, description);
    else printf("RESULT %s %.6g %s - %s\n", name, value, unit, description);
    fflush(stdout);
}

#endif
