/* A simulated LDS-01 on the master side of a pseudo-terminal, for the
 * driver's test and latency benchmark: like the real one it spins up when
 * it is sent 'b' and stops on 'e'; while spinning it writes real
 * revolutions (ranges 0.5 + 0.005 * beam m) every `period` seconds, with a
 * few garbage bytes between, and notes when each revolution's last byte
 * went out. Header-only
 * (static functions): each user is one program. */
#ifndef TYCHO_FAKE_LDS01_H
#define TYCHO_FAKE_LDS01_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tycho/lidarproto.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    int master;
    double period;
    volatile int stop, paused, spinning, got_b, got_e;
    volatile int written; /* revolutions written */
    double sent_at[4096]; /* when revolution k's last byte was written */
    pthread_t thread;
} fake_lds01;

static double fake_lds01_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *fake_lds01_run(void *arg)
{
    fake_lds01 *f = arg;
    static uint8_t rev[TYCHO_LDS01_PACKETS * TYCHO_LDS01_PACKET];
    float r[TYCHO_LDS01_BEAMS];
    for (int i = 0; i < TYCHO_LDS01_BEAMS; i++) r[i] = 0.5f + 0.005f * (float)i;
    tycho_lds01_encode(r, 300, rev);
    while (!f->stop) {
        uint8_t cmd[16];
        ssize_t nc;
        while ((nc = read(f->master, cmd, sizeof cmd)) > 0)
            for (ssize_t i = 0; i < nc; i++) {
                if (cmd[i] == 'b') f->spinning = f->got_b = 1;
                if (cmd[i] == 'e') f->spinning = 0, f->got_e = 1;
            }
        if (f->spinning && !f->paused && f->written < 4096) {
            static const uint8_t junk[] = {0x00, 0xFA, 0x17, 0x42};
            if (write(f->master, junk, sizeof junk) < 0) break;
            size_t off = 0;
            while (off < sizeof rev) {
                ssize_t w = write(f->master, rev + off, sizeof rev - off);
                if (w <= 0) break;
                off += (size_t)w;
            }
            f->sent_at[f->written] = fake_lds01_now();
            f->written++;
        }
        usleep((useconds_t)(f->period * 1e6));
    }
    return NULL;
}

/* Starts it; returns the pty path the driver opens. */
static const char *fake_lds01_start(fake_lds01 *f, double period)
{
    f->master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
    grantpt(f->master);
    unlockpt(f->master);
    f->period = period;
    f->stop = f->paused = f->spinning = f->got_b = f->got_e = 0;
    f->written = 0;
    static char path[128];
    snprintf(path, sizeof path, "%s", ptsname(f->master));
    pthread_create(&f->thread, NULL, fake_lds01_run, f);
    return path;
}

static void fake_lds01_stop(fake_lds01 *f)
{
    f->stop = 1;
    pthread_join(f->thread, NULL);
    close(f->master);
}

#endif
