/* The LDS-02 and RPLIDAR driver plugins through the loader, each against a
 * simulated sensor on a pseudo-terminal writing real protocol bytes (the
 * RPLIDAR only after it was asked to scan, and told to stop at close). */
#define _GNU_SOURCE
#include "check.h"
#include "loader.h"
#include "tycho/lidarproto.h"

#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    int master, rplidar;
    volatile int stop;
    uint8_t got_cmd[8];
    int ncmd;
} sensor;

static void *run(void *arg)
{
    sensor *s = arg;
    bool scanning = !s->rplidar; /* an LDS-02 streams by itself */
    int k = 0;
    while (!s->stop) {
        struct pollfd p = {s->master, POLLIN, 0};
        if (poll(&p, 1, 0) > 0) {
            uint8_t b[8];
            ssize_t n = read(s->master, b, sizeof b);
            for (ssize_t i = 0; i < n && s->ncmd < 8; i++) s->got_cmd[s->ncmd++] = b[i];
            if (s->rplidar && s->ncmd >= 2 && s->got_cmd[0] == 0xA5 && s->got_cmd[1] == 0x20 &&
                !scanning) {
                scanning = true;
                if (write(s->master, TYCHO_RPLIDAR_SCAN_DESCRIPTOR, 7) < 0) break;
            }
        }
        if (!scanning) {
            usleep(2000);
            continue;
        }
        uint8_t buf[60 * TYCHO_RPLIDAR_NODE + TYCHO_LDS02_FRAME];
        size_t len = 0;
        if (s->rplidar) {
            for (int d = 0; d < 60; d++) {
                int deg = (k * 60 + d) % 360;
                tycho_rplidar_encode_node(deg == 0, 40, deg, 700 + deg, buf + len);
                len += TYCHO_RPLIDAR_NODE;
            }
        } else {
            uint16_t mm[12];
            int f = k % 30;
            for (int i = 0; i < 12; i++) mm[i] = (uint16_t)(700 + 12 * f + i);
            tycho_lds02_encode(f * 1200, f * 1200 + 1100, 3600, mm, 0, buf);
            len = TYCHO_LDS02_FRAME;
        }
        if (write(s->master, buf, len) < 0) break;
        k++;
        usleep(s->rplidar ? 16000 : 3000); /* about 10 revolutions a second */
    }
    return NULL;
}

static void check_driver(const char *driver, int rplidar)
{
    sensor s = {0};
    s.master = posix_openpt(O_RDWR | O_NOCTTY);
    grantpt(s.master);
    unlockpt(s.master);
    s.rplidar = rplidar;
    pthread_t t;
    pthread_create(&t, NULL, run, &s);
    tycho_setting set[] = {{"port", ptsname(s.master)}};
    tycho_err err = {0};
    tycho_device *d =
        tycho_device_open(TYCHO_DRIVER_DIR, driver, TYCHO_DEVICE_RANGE_SCANNER, set, 1, &err);
    CHECK_MSG(d != NULL, "%s: %s", driver, err.msg);
    if (d) {
        static tycho_sample sm;
        int scans = 0;
        for (int i = 0; i < 300 && scans < 3; i++) {
            int r = tycho_device_read(d, &sm, &err);
            if (r == 1) {
                scans++;
                /* clockwise 90 degrees is counter-clockwise bin 270 */
                CHECK_MSG(fabsf(sm.u.scan.ranges[270] - 0.790f) < 1e-3, "%s: bin 270 = %f", driver,
                          sm.u.scan.ranges[270]);
                CHECK(sm.u.scan.count == 360);
            }
            usleep(10000);
        }
        CHECK_MSG(scans == 3, "%s: %d scans in 3 s", driver, scans);
        tycho_device_close(d);
    }
    usleep(50000);
    s.stop = 1;
    pthread_join(t, NULL);
    if (rplidar)
        CHECK(s.ncmd >= 4 && s.got_cmd[2] == 0xA5 && s.got_cmd[3] == 0x25); /* SCAN, then STOP */
    close(s.master);
}

int main(void)
{
    check_driver("lds02", 0);
    check_driver("rplidar", 1);
    return check_summary("scanner drivers");
}
