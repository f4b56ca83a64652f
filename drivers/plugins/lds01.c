/* Driver plugin: the TurtleBot3 LDS-01 LiDAR on a serial port (230400
 * baud): the motor starts with 'b' and stops with 'e'; revolutions come
 * from core lidarproto (checksum mode a setting) through the shared serial
 * scanner thread (stall detection, hand-over). */
#include "serial_scanner.h"

static const tycho_setting_schema SETTINGS[] = {
    {"port", TYCHO_SETTING_STRING, "/dev/ttyUSB0", "the LiDAR's serial port"},
    {"baud", TYCHO_SETTING_INT, "230400", "baud rate"},
    {"checksum", TYCHO_SETTING_STRING, "auto",
     "check, ignore or auto (see core/include/tycho/lidarproto.h)"},
    {"stall_timeout", TYCHO_SETTING_NUMBER, "0.5",
     "s without a full revolution before the sensor counts as stalled"},
    {NULL, 0, NULL, NULL}};

typedef struct {
    tycho_lds01_parser p;
    tycho_lds01_scan scan;
    int packets; /* of the revolution last handed out */
} lds01;

/* The LDS-01's beams are one degree each, counter-clockwise already. */
static size_t feed(void *arg, const uint8_t *d, size_t n, tycho_scan360 *out, bool *got)
{
    lds01 *l = arg;
    size_t used = tycho_lds01_feed(&l->p, d, n, &l->scan, got);
    if (*got) {
        memcpy(out->ranges, l->scan.ranges, sizeof out->ranges);
        out->points = l->scan.packets * 6;
        out->speed = l->scan.rpm * 6; /* deg/s */
        l->packets = l->scan.packets;
    }
    return used;
}

static const char *status(void *arg, const tycho_scan360 *rev)
{
    (void)rev;
    lds01 *l = arg;
    if (l->p.checksum_given_up) return "checksums never matched: no longer checked";
    return l->packets < TYCHO_LDS01_PACKETS ? "a partial revolution (packets lost)" : "";
}

static const uint8_t START[] = {'b'}, STOP[] = {'e'};

static void *open_lds(const tycho_setting *s, int n, char *err, size_t errlen)
{
    const char *mode = tycho_setting_str(s, n, "checksum");
    int m = !strcmp(mode, "check")    ? TYCHO_CHECKSUM_CHECK
            : !strcmp(mode, "ignore") ? TYCHO_CHECKSUM_IGNORE
            : !strcmp(mode, "auto")   ? TYCHO_CHECKSUM_AUTO
                                      : -1;
    if (m < 0) {
        snprintf(err, errlen, "setting 'checksum' must be check, ignore or auto (got '%s')", mode);
        return NULL;
    }
    lds01 *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    tycho_lds01_init(&l->p, (tycho_checksum_mode)m);
    scanner *dev = scanner_open(s, n, l, feed, status, START, sizeof START, STOP, sizeof STOP, 0.12,
                                3.5, err, errlen);
    if (!dev) free(l);
    return dev;
}

const tycho_driver tycho_driver_descriptor = {
    TYCHO_DRIVER_ABI, "lds01", TYCHO_DEVICE_RANGE_SCANNER, SETTINGS, open_lds, scanner_close,
    scanner_read,     NULL};
