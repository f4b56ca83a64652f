/* Driver plugin: the Slamtec RPLIDAR A1, 115200 baud; scanning starts with
 * the SCAN request (A5 20) and stops with STOP (A5 25). See
 * core/include/tycho/lidarproto.h. */
#include "serial_scanner.h"

static const tycho_setting_schema SETTINGS[] = {
    {"port", TYCHO_SETTING_STRING, "/dev/ttyUSB0", "the LiDAR's serial port"},
    {"baud", TYCHO_SETTING_INT, "115200", "baud rate"},
    {"stall_timeout", TYCHO_SETTING_NUMBER, "0.5",
     "s without a full revolution before it counts as stalled"},
    {NULL, 0, NULL, NULL}};

static const uint8_t SCAN[] = {0xA5, 0x20}, STOP[] = {0xA5, 0x25};

static size_t feed(void *p, const uint8_t *d, size_t n, tycho_scan360 *out, bool *got)
{
    return tycho_rplidar_feed(p, d, n, out, got);
}

static void *open_rplidar(const tycho_setting *s, int n, char *err, size_t errlen)
{
    tycho_rplidar_parser *p = malloc(sizeof *p);
    if (!p) return NULL;
    tycho_rplidar_init(p);
    void *dev = scanner_open(s, n, p, feed, NULL, SCAN, sizeof SCAN, STOP, sizeof STOP, 0.15, 12.0,
                             err, errlen);
    if (!dev) free(p);
    return dev;
}

const tycho_driver tycho_driver_descriptor = {
    TYCHO_DRIVER_ABI, "rplidar", TYCHO_DEVICE_RANGE_SCANNER, SETTINGS, open_rplidar, scanner_close,
    scanner_read,     NULL};
