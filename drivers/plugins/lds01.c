/* Driver plugin: the TurtleBot3 LDS-01 LiDAR on a serial port (230400
 * baud), a range scanner. Its thread starts the motor ('b'), reads what
 * arrives, assembles revolutions (core lidarproto) and publishes each as a
 * scan; no full revolution for `stall_timeout` seconds is reported as a
 * failure (motor stopped, cable out) until revolutions come again. */
#include "latest.h"
#include "../serial_port.h"
#include "tycho/lidarproto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const tycho_setting_schema SETTINGS[] = {
    {"port", TYCHO_SETTING_STRING, "/dev/ttyUSB0", "the LiDAR's serial port"},
    {"baud", TYCHO_SETTING_INT, "230400", "baud rate"},
    {"checksum", TYCHO_SETTING_STRING, "auto", "check, ignore or auto (see core/include/tycho/lidarproto.h)"},
    {"stall_timeout", TYCHO_SETTING_NUMBER, "0.5", "s without a full revolution before the sensor counts as stalled"},
    {NULL, 0, NULL, NULL}};

typedef struct {
    int fd;
    tycho_lds01_parser parser;
    tycho_latest latest;
    pthread_t thread;
    volatile int stop;
    double stall;
} lds;

static void *run(void *arg)
{
    lds *l = arg;
    uint8_t buf[1024];
    double last_rev = tycho_latest_now();
    bool stalled = false;
    while (!l->stop) {
        long n = tycho_serial_read(l->fd, buf, sizeof buf, 0.05);
        if (n < 0) {
            tycho_latest_fail(&l->latest, "serial port failed (unplugged?)");
            usleep(100000);
            continue;
        }
        for (long off = 0; off < n;) {
            bool got;
            static __thread tycho_lds01_scan scan;
            off += (long)tycho_lds01_feed(&l->parser, buf + off, (size_t)(n - off), &scan, &got);
            if (!got) continue;
            tycho_sample s;
            memset(&s, 0, sizeof s);
            s.u.scan.count = TYCHO_LDS01_BEAMS;
            s.u.scan.angle_min = 0;
            s.u.scan.angle_increment = (float)(2 * M_PI / TYCHO_LDS01_BEAMS);
            s.u.scan.range_min = 0.12f;
            s.u.scan.range_max = 3.5f;
            memcpy(s.u.scan.ranges, scan.ranges, sizeof scan.ranges);
            if (l->parser.checksum_given_up)
                snprintf(s.status, sizeof s.status, "checksums never matched: no longer checked");
            else if (scan.packets < TYCHO_LDS01_PACKETS)
                snprintf(s.status, sizeof s.status, "%d of 60 packets in this revolution", scan.packets);
            tycho_latest_put(&l->latest, &s);
            last_rev = tycho_latest_now();
            stalled = false;
        }
        if (!stalled && tycho_latest_now() - last_rev > l->stall) {
            stalled = true;
            tycho_latest_fail(&l->latest, "stalled: no full revolution (is the motor turning, the cable in?)");
        }
    }
    return NULL;
}

static void *open_lds(const tycho_setting *s, int n, char *err, size_t errlen)
{
    const char *mode = tycho_setting_str(s, n, "checksum");
    tycho_checksum_mode m = !strcmp(mode, "check") ? TYCHO_CHECKSUM_CHECK : !strcmp(mode, "ignore") ? TYCHO_CHECKSUM_IGNORE
                          : !strcmp(mode, "auto") ? TYCHO_CHECKSUM_AUTO : (tycho_checksum_mode)-1;
    if ((int)m < 0) {
        snprintf(err, errlen, "setting 'checksum' must be check, ignore or auto (got '%s')", mode);
        return NULL;
    }
    lds *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    tycho_err e = {0};
    l->fd = tycho_serial_open(tycho_setting_str(s, n, "port"), (int)strtol(tycho_setting_str(s, n, "baud"), NULL, 0), &e);
    if (l->fd < 0) {
        snprintf(err, errlen, "%s", e.msg);
        free(l);
        return NULL;
    }
    l->stall = strtod(tycho_setting_str(s, n, "stall_timeout"), NULL);
    tycho_lds01_init(&l->parser, m);
    tycho_latest_init(&l->latest, TYCHO_DEVICE_RANGE_SCANNER);
    tycho_serial_write_all(l->fd, "b", 1); /* start the motor */
    if (pthread_create(&l->thread, NULL, run, l) != 0) {
        close(l->fd);
        free(l);
        snprintf(err, errlen, "cannot start its thread");
        return NULL;
    }
    return l;
}

static void close_lds(void *dev)
{
    lds *l = dev;
    l->stop = 1;
    pthread_join(l->thread, NULL);
    tycho_serial_write_all(l->fd, "e", 1); /* stop the motor */
    close(l->fd);
    free(l);
}

static int read_lds(void *dev, tycho_sample *out, uint64_t *seq, char *err, size_t errlen)
{
    return tycho_latest_get(&((lds *)dev)->latest, out, seq, err, errlen);
}

const tycho_driver tycho_driver_descriptor = {TYCHO_DRIVER_ABI, "lds01", TYCHO_DEVICE_RANGE_SCANNER, SETTINGS,
                                              open_lds, close_lds, read_lds, NULL};
