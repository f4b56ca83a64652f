/* For driver plugins: the latest sample, handed from the driver's thread
 * to the runtime under a mutex (one writer, one reader; the reader copies
 * out only what is newer than what it has). Header-only: each plugin is
 * one shared object. */
#ifndef TYCHO_DRIVER_LATEST_H
#define TYCHO_DRIVER_LATEST_H

#include "tycho/driver.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef struct {
    pthread_mutex_t mu;
    tycho_sample s;
    char error[256]; /* the device failed: read returns -1 with this */
} tycho_latest;

static inline double tycho_latest_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline void tycho_latest_init(tycho_latest *l, tycho_device_kind kind)
{
    pthread_mutex_init(&l->mu, NULL);
    memset(&l->s, 0, sizeof l->s);
    l->s.kind = kind;
    l->error[0] = 0;
}

/* Publishes s (stamped now, numbered); from the driver's thread. */
static inline void tycho_latest_put(tycho_latest *l, const tycho_sample *s)
{
    pthread_mutex_lock(&l->mu);
    uint64_t seq = l->s.seq + 1;
    tycho_device_kind kind = l->s.kind;
    l->s = *s;
    l->s.seq = seq;
    l->s.kind = kind;
    l->s.t = tycho_latest_now();
    l->error[0] = 0;
    pthread_mutex_unlock(&l->mu);
}

static inline void tycho_latest_fail(tycho_latest *l, const char *msg)
{
    pthread_mutex_lock(&l->mu);
    snprintf(l->error, sizeof l->error, "%.250s", msg);
    pthread_mutex_unlock(&l->mu);
}

/* The driver's read callback, done. */
static inline int tycho_latest_get(tycho_latest *l, tycho_sample *out, uint64_t *seq, char *err, size_t errlen)
{
    pthread_mutex_lock(&l->mu);
    int r = 0;
    if (l->error[0]) {
        snprintf(err, errlen, "%s", l->error);
        r = -1;
    } else if (l->s.seq > *seq) {
        *out = l->s;
        *seq = l->s.seq;
        r = 1;
    }
    pthread_mutex_unlock(&l->mu);
    return r;
}

#endif
