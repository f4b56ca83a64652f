/* The plugins' sample ring (drivers/plugins/sample_ring.h): samples in
 * order, a reader that falls behind resumes at the oldest still held,
 * failures in place of samples, and a writer and a reader on two threads
 * never tear a sample. */
#include "check.h"
#include "sample_ring.h"

#include <pthread.h>

static tycho_sample numbered(double v)
{
    tycho_sample s;
    memset(&s, 0, sizeof s);
    s.u.base.x = v;
    return s;
}

static void test_order_and_overrun(void)
{
    tycho_sample_ring r;
    tycho_ring_init(&r, TYCHO_DEVICE_DIFF_BASE);
    tycho_sample out;
    uint64_t seq = 0;
    char err[256];
    CHECK(tycho_ring_get(&r, &out, &seq, err, sizeof err) == 0);
    for (int i = 1; i <= 3; i++) {
        tycho_sample s = numbered(i);
        tycho_ring_put(&r, &s);
    }
    for (int i = 1; i <= 3; i++) {
        CHECK(tycho_ring_get(&r, &out, &seq, err, sizeof err) == 1);
        CHECK(out.seq == (uint64_t)i && out.u.base.x == i && out.kind == TYCHO_DEVICE_DIFF_BASE &&
              out.t > 0);
    }
    CHECK(tycho_ring_get(&r, &out, &seq, err, sizeof err) == 0);
    /* 20 more while nobody reads: the first 12 are gone */
    for (int i = 4; i <= 23; i++) {
        tycho_sample s = numbered(i);
        tycho_ring_put(&r, &s);
    }
    CHECK(tycho_ring_get(&r, &out, &seq, err, sizeof err) == 1);
    CHECK_MSG(out.seq == 23 - TYCHO_RING_SLOTS + 1, "resumed at %llu", (unsigned long long)out.seq);
    int more = 0;
    while (tycho_ring_get(&r, &out, &seq, err, sizeof err) == 1) more++;
    CHECK(more == TYCHO_RING_SLOTS - 1 && out.seq == 23 && out.u.base.x == 23);
    /* a failure is reported until the next good sample */
    tycho_ring_fail(&r, "stalled");
    CHECK(tycho_ring_get(&r, &out, &seq, err, sizeof err) == -1 && !strcmp(err, "stalled"));
    tycho_sample s = numbered(24);
    tycho_ring_put(&r, &s);
    CHECK(tycho_ring_get(&r, &out, &seq, err, sizeof err) == 1 && out.u.base.x == 24);
}

static tycho_sample_ring shared;
enum { PUTS = 200000 };

static void *writer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= PUTS; i++) {
        tycho_sample s = numbered(i);
        s.u.base.y = -i; /* a torn copy would mix x and y of two samples */
        tycho_ring_put(&shared, &s);
    }
    return NULL;
}

static void test_two_threads(void)
{
    tycho_ring_init(&shared, TYCHO_DEVICE_DIFF_BASE);
    pthread_t w;
    pthread_create(&w, NULL, writer, NULL);
    uint64_t seq = 0, last = 0;
    long got = 0, torn = 0, backwards = 0;
    tycho_sample out;
    char err[256];
    while (last < PUTS) {
        if (tycho_ring_get(&shared, &out, &seq, err, sizeof err) != 1) continue;
        got++;
        if (out.u.base.x != (double)out.seq || out.u.base.y != -(double)out.seq) torn++;
        if (out.seq <= last) backwards++;
        last = out.seq;
    }
    pthread_join(w, NULL);
    CHECK(torn == 0 && backwards == 0);
    CHECK(got > 0);
    printf("two threads: %d samples written, %ld read in order (the rest overrun), none torn\n",
           PUTS, got);
}

int main(void)
{
    test_order_and_overrun();
    test_two_threads();
    return check_summary("sample_ring");
}
