/* LD_PRELOAD form of the fake libgpiod (tests/fake/fake_gpiod.c) for the
 * hardware-in-the-loop test: TYCHO_FAKE_GPIO_CHIP names the chip (32
 * lines) and every line change is appended to TYCHO_FAKE_GPIO_LOG as a
 * text line "t offset value" (t: CLOCK_MONOTONIC seconds), which the
 * simulator side reads to learn what the launcher did.
 *
 * The change is only copied into memory on the driver's pulse thread; a
 * thread of our own writes the file every 5 ms. Writing from the pulse
 * thread would let a slow disk stretch the servo pulses being recorded (the
 * next edge waits for the write), which reads as the feeder pushing. */
#include "fake_gpiod.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int log_fd = -1;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char pending[1 << 16];
static size_t npending;
static long lost;

static void record(double t, unsigned offset, int value)
{
    char line[64];
    int n = snprintf(line, sizeof line, "%.6f %u %d\n", t, offset, value);
    pthread_mutex_lock(&mu);
    if (npending + (size_t)n <= sizeof pending) {
        memcpy(pending + npending, line, (size_t)n);
        npending += (size_t)n;
    } else {
        lost++;
    }
    pthread_mutex_unlock(&mu);
}

static void *flusher(void *arg)
{
    (void)arg;
    static char out[sizeof pending];
    for (;;) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&mu);
        size_t n = npending;
        memcpy(out, pending, n);
        npending = 0;
        pthread_mutex_unlock(&mu);
        for (size_t off = 0; off < n;) {
            ssize_t w = write(log_fd, out + off, n - off);
            if (w <= 0) break;
            off += (size_t)w;
        }
    }
    return NULL;
}

__attribute__((constructor)) static void from_env(void)
{
    const char *chip = getenv("TYCHO_FAKE_GPIO_CHIP"), *log = getenv("TYCHO_FAKE_GPIO_LOG");
    if (!chip) return;
    fake_gpiod_reset(chip, 32);
    if (!log) return;
    log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (log_fd < 0) {
        perror(log);
        return;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, flusher, NULL) == 0) {
        pthread_detach(t);
        fake_gpiod_listen(record);
    }
}
