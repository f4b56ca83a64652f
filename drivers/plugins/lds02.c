/* Driver plugin: the TurtleBot3 LDS-02 (LD08) LiDAR, 115200 baud; it
 * streams by itself once powered. See core/include/tycho/lidarproto.h. */
#include "serial_scanner.h"

static const tycho_setting_schema SETTINGS[] = {
    {"port", TYCHO_SETTING_STRING, "/dev/ttyUSB0", "the LiDAR's serial port"},
    {"baud", TYCHO_SETTING_INT, "115200", "baud rate"},
    {"stall_timeout", TYCHO_SETTING_NUMBER, "0.5",
     "s without a full revolution before it counts as stalled"},
    {NULL, 0, NULL, NULL}};

static size_t feed(void *p, const uint8_t *d, size_t n, tycho_scan360 *out, bool *got)
{
    return tycho_lds02_feed(p, d, n, out, got);
}

static void *open_lds02(const tycho_setting *s, int n, char *err, size_t errlen)
{
    tycho_lds02_parser *p = malloc(sizeof *p);
    if (!p) return NULL;
    tycho_lds02_init(p);
    void *dev = scanner_open(s, n, p, feed, NULL, NULL, 0, NULL, 0, 0.16, 8.0, err, errlen);
    if (!dev) free(p);
    return dev;
}

const tycho_driver tycho_driver_descriptor = {
    TYCHO_DRIVER_ABI, "lds02", TYCHO_DEVICE_RANGE_SCANNER, SETTINGS, open_lds02, scanner_close,
    scanner_read,     NULL};
