/* Test driver plugin: an IMU whose samples count up (one per read), and
 * whose settings exercise every type; with -DBROKEN=n a malformed variant:
 * 1 wrong ABI version, 2 no name, 3 no read callback, 4 no descriptor. */
#include "tycho/driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((unused)) static const tycho_setting_schema SETTINGS[] = {
    {"rate", TYCHO_SETTING_NUMBER, "10", "Hz"},
    {"count", TYCHO_SETTING_INT, NULL, "required"},
    {"label", TYCHO_SETTING_STRING, "x", ""},
    {"flag", TYCHO_SETTING_BOOL, "false", ""},
    {NULL, 0, NULL, NULL}};

typedef struct {
    long count;
    double rate;
} counter;

__attribute__((unused)) static void *open_counter(const tycho_setting *s, int n, char *err,
                                                  size_t errlen)
{
    counter *c = calloc(1, sizeof *c);
    c->count = strtol(tycho_setting_value(s, n, "count"), NULL, 0);
    c->rate = strtod(tycho_setting_value(s, n, "rate"), NULL);
    if (c->count < 0) {
        snprintf(err, errlen, "count must be >= 0");
        free(c);
        return NULL;
    }
    return c;
}

__attribute__((unused)) static void close_counter(void *d) { free(d); }

__attribute__((unused)) static int read_counter(void *d, tycho_sample *out, uint64_t *seq,
                                                char *err, size_t errlen)
{
    counter *c = d;
    if (c->count == 0) {
        snprintf(err, errlen, "ran out of samples");
        return -1;
    }
    memset(out, 0, sizeof *out);
    out->kind = TYCHO_DEVICE_IMU;
    out->seq = ++*seq;
    out->u.imu.gz = c->rate;
    out->u.imu.roll = (double)c->count--;
    return 1;
}

#if BROKEN != 4
const tycho_driver tycho_driver_descriptor = {
#if BROKEN == 1
    TYCHO_DRIVER_ABI + 1,
#else
    TYCHO_DRIVER_ABI,
#endif
#if BROKEN == 2
    NULL,
#else
    DRIVER_NAME,
#endif
    TYCHO_DEVICE_IMU,
    SETTINGS,
    open_counter,
    close_counter,
#if BROKEN == 3
    NULL,
#else
    read_counter,
#endif
    NULL};
#endif
