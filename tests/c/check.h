/* Minimal unit-test helpers for the C tests: CHECK records a failure with
 * file:line and continues; check_summary prints "N passed, N failed" (the
 * closing line ctest logs show) and returns the exit status. */
#ifndef TYCHO_CHECK_H
#define TYCHO_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (cond) check_passed++;                                                                  \
        else {                                                                                     \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
    do {                                                                                           \
        if (cond) check_passed++;                                                                  \
        else {                                                                                     \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* A check the caller can stop on: records like CHECK (with `detail`,
 * e.g. err.msg, when not NULL) and yields the condition, for
 *     if (!CHECKED(st == TYCHO_OK, err.msg)) return;
 * so a test whose input file is missing fails instead of using a NULL or
 * empty result. */
#define CHECKED(cond, detail) check_checked((cond) ? 1 : 0, __FILE__, __LINE__, #cond, (detail))

static inline int check_checked(int ok, const char *file, int line, const char *what,
                                const char *detail)
{
    if (ok) {
        check_passed++;
        return 1;
    }
    check_failed++;
    fprintf(stderr, "%s:%d: CHECK failed: %s%s%s\n", file, line, what, detail ? ": " : "",
            detail ? detail : "");
    return 0;
}

#define CHECK_NEAR(a, b, tol)                                                                      \
    CHECK_MSG(fabs((double)(a) - (double)(b)) <= (tol), "%.9g vs %.9g (tol %g)", (double)(a),      \
              (double)(b), (double)(tol))

static inline int check_summary(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
    return check_failed ? 1 : 0;
}

/* Path of a file in the test data (tests/data/README.md): TYCHO_TEST_DATA
 * (set by ctest and the bench target), else tests/data under TYCHO_SOURCE_DIR,
 * else under the working directory. */
static inline const char *test_data(char *buf, size_t n, const char *rel)
{
    const char *d = getenv("TYCHO_TEST_DATA");
    const char *src = getenv("TYCHO_SOURCE_DIR");
    if (d && *d) snprintf(buf, n, "%s/%s", d, rel);
    else snprintf(buf, n, "%s/tests/data/%s", src && *src ? src : ".", rel);
    return buf;
}

/* Path of a file in the source tree (TYCHO_SOURCE_DIR set by ctest). */
static inline const char *source_path(char *buf, size_t n, const char *rel)
{
    const char *d = getenv("TYCHO_SOURCE_DIR");
    snprintf(buf, n, "%s/%s", d ? d : ".", rel);
    return buf;
}

#endif
