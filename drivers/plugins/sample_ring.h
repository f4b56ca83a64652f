/* For driver plugins: samples handed from the driver's thread to the
 * runtime through a ring of TYCHO_RING_SLOTS under a mutex (one writer, one
 * reader). The reader asks for what follows the last sequence number it
 * saw and gets the samples in order; if it fell more than a ring behind,
 * the oldest are gone and it resumes at the oldest still held (so a
 * stalled reader sees at most TYCHO_RING_SLOTS stale samples, never
 * blocks the driver, and the driver never waits for it). A failure is
 * reported in place of samples until the next good one. Header-only: each
 * plugin is one shared object. */
#ifndef TYCHO_DRIVER_SAMPLE_RING_H
#define TYCHO_DRIVER_SAMPLE_RING_H

#include "tycho/driver.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define TYCHO_RING_SLOTS 8

typedef struct {
    pthread_mutex_t mu;
    tycho_device_kind kind;
    uint64_t newest;                     /* sequence number of the newest sample (0: none yet) */
    tycho_sample slot[TYCHO_RING_SLOTS]; /* sample n lives in slot n % TYCHO_RING_SLOTS */
    char error[256];                     /* the device failed: read returns -1 with this */
} tycho_sample_ring;

static inline double tycho_ring_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline void tycho_ring_init(tycho_sample_ring *r, tycho_device_kind kind)
{
    pthread_mutex_init(&r->mu, NULL);
    r->kind = kind;
    r->newest = 0;
    r->error[0] = 0;
}

/* Publishes s (stamped now, numbered); from the driver's thread. */
static inline void tycho_ring_put(tycho_sample_ring *r, const tycho_sample *s)
{
    pthread_mutex_lock(&r->mu);
    uint64_t seq = r->newest + 1;
    tycho_sample *d = &r->slot[seq % TYCHO_RING_SLOTS];
    *d = *s;
    d->seq = seq;
    d->kind = r->kind;
    d->t = tycho_ring_now();
    r->newest = seq;
    r->error[0] = 0;
    pthread_mutex_unlock(&r->mu);
}

static inline void tycho_ring_fail(tycho_sample_ring *r, const char *msg)
{
    pthread_mutex_lock(&r->mu);
    snprintf(r->error, sizeof r->error, "%.250s", msg);
    pthread_mutex_unlock(&r->mu);
}

/* The driver's read callback, done: the sample after *seq (or the oldest
 * still held), 1; nothing new, 0; the device failed, -1. */
static inline int tycho_ring_get(tycho_sample_ring *r, tycho_sample *out, uint64_t *seq, char *err,
                                 size_t errlen)
{
    pthread_mutex_lock(&r->mu);
    int rc = 0;
    if (r->error[0]) {
        snprintf(err, errlen, "%s", r->error);
        rc = -1;
    } else if (r->newest > *seq) {
        uint64_t next = *seq + 1,
                 oldest = r->newest >= TYCHO_RING_SLOTS ? r->newest - TYCHO_RING_SLOTS + 1 : 1;
        if (next < oldest) next = oldest;
        *out = r->slot[next % TYCHO_RING_SLOTS];
        *seq = next;
        rc = 1;
    }
    pthread_mutex_unlock(&r->mu);
    return rc;
}

#endif
