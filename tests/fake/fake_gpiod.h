/* Test-only libgpiod: the library's own API (1.6, or 2.x with
 * FAKE_GPIOD_V2) over an in-memory chip, recording every line change with
 * a monotonic timestamp, so driver tests run the drivers' real calls and
 * check the sequence and timings they produce. */
#ifndef TYCHO_FAKE_GPIOD_H
#define TYCHO_FAKE_GPIOD_H

#include <stddef.h>

typedef struct {
    double t; /* CLOCK_MONOTONIC seconds */
    unsigned offset;
    int value;
} fake_gpiod_event;

/* A chip at `path` with `nlines` lines; forgets earlier chips and events. */
void fake_gpiod_reset(const char *path, unsigned nlines);
/* After `n` more successful value changes, every change fails with EIO (-1: never). */
void fake_gpiod_fail_after(long n);
/* A copy of the events so far (caller frees); *n set. */
fake_gpiod_event *fake_gpiod_events(size_t *n);
/* Current level of a line (-1 if not requested). */
int fake_gpiod_level(unsigned offset);
/* Lines currently requested. */
int fake_gpiod_requested(void);
/* Calls fn on every line change (under the chip's lock; NULL stops). */
void fake_gpiod_listen(void (*fn)(double t, unsigned offset, int value));

#endif
