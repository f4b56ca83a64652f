/* For LiDAR plugins that assemble 360 one-degree bins (LDS-02, RPLIDAR):
 * the serial port, the reading thread, stall detection and the hand-over;
 * each plugin gives its parser's feed function and its start/stop bytes.
 * Header-only: each plugin is one shared object. */
#ifndef TYCHO_SERIAL_SCANNER_H
#define TYCHO_SERIAL_SCANNER_H

#include "../serial_port.h"
#include "sample_ring.h"
#include "tycho/lidarproto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef size_t (*scanner_feed_fn)(void *parser, const uint8_t *data, size_t len, tycho_scan360 *out,
                                  bool *got);
/* Optional: a note about the revolution just handed out ("" for none). */
typedef const char *(*scanner_status_fn)(void *parser, const tycho_scan360 *rev);

typedef struct {
    int fd;
    void *parser;
    scanner_feed_fn feed;
    scanner_status_fn status;
    tycho_sample_ring ring;
    pthread_t thread;
    volatile int stop;
    double stall, range_min, range_max;
    const uint8_t *stop_cmd;
    size_t stop_len;
} scanner;

static void *scanner_run(void *arg)
{
    scanner *l = arg;
    uint8_t buf[1024];
    double last_rev = tycho_ring_now();
    bool stalled = false;
    while (!l->stop) {
        long n = tycho_serial_read(l->fd, buf, sizeof buf, 0.05);
        if (n < 0) {
            tycho_ring_fail(&l->ring, "serial port failed (unplugged?)");
            usleep(100000);
            continue;
        }
        for (long off = 0; off < n;) {
            bool got;
            tycho_scan360 rev;
            off += (long)l->feed(l->parser, buf + off, (size_t)(n - off), &rev, &got);
            if (!got) continue;
            tycho_sample s;
            memset(&s, 0, sizeof s);
            s.u.scan.count = 360;
            s.u.scan.angle_increment = (float)(2 * M_PI / 360);
            s.u.scan.range_min = (float)l->range_min;
            s.u.scan.range_max = (float)l->range_max;
            memcpy(s.u.scan.ranges, rev.ranges, sizeof rev.ranges);
            if (l->status) snprintf(s.status, sizeof s.status, "%s", l->status(l->parser, &rev));
            tycho_ring_put(&l->ring, &s);
            last_rev = tycho_ring_now();
            stalled = false;
        }
        if (!stalled && tycho_ring_now() - last_rev > l->stall) {
            stalled = true;
            tycho_ring_fail(&l->ring,
                            "stalled: no full revolution (is the motor turning, the cable in?)");
        }
    }
    return NULL;
}

static void *scanner_open(const tycho_setting *s, int n, void *parser, scanner_feed_fn feed,
                          scanner_status_fn status, const uint8_t *start, size_t start_len,
                          const uint8_t *stop, size_t stop_len, double rmin, double rmax, char *err,
                          size_t errlen)
{
    scanner *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    tycho_err e = {0};
    l->fd = tycho_serial_open(tycho_setting_str(s, n, "port"),
                              (int)strtol(tycho_setting_str(s, n, "baud"), NULL, 0), &e);
    if (l->fd < 0) {
        snprintf(err, errlen, "%s", e.msg);
        free(l);
        return NULL;
    }
    l->parser = parser;
    l->feed = feed;
    l->status = status; /* before the thread starts: it reads them */
    l->stall = strtod(tycho_setting_str(s, n, "stall_timeout"), NULL);
    l->range_min = rmin;
    l->range_max = rmax;
    l->stop_cmd = stop;
    l->stop_len = stop_len;
    tycho_ring_init(&l->ring, TYCHO_DEVICE_RANGE_SCANNER);
    if (start_len) tycho_serial_write_all(l->fd, start, start_len);
    if (pthread_create(&l->thread, NULL, scanner_run, l) != 0) {
        close(l->fd);
        free(l);
        snprintf(err, errlen, "cannot start its thread");
        return NULL;
    }
    return l;
}

static void scanner_close(void *dev)
{
    scanner *l = dev;
    l->stop = 1;
    pthread_join(l->thread, NULL);
    if (l->stop_len) tycho_serial_write_all(l->fd, l->stop_cmd, l->stop_len);
    close(l->fd);
    free(l->parser);
    free(l);
}

static int scanner_read(void *dev, tycho_sample *out, uint64_t *seq, char *err, size_t errlen)
{
    return tycho_ring_get(&((scanner *)dev)->ring, out, seq, err, errlen);
}

#endif
