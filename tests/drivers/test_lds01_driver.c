#define _GNU_SOURCE /* posix_openpt, ptsname (fake_lds01.h) */
/* The LDS-01 driver plugin (drivers/plugins/lds01.c) through the plugin
 * loader, against a simulated sensor on a pseudo-terminal: scans arrive with
 * the right ranges, the motor is started and stopped, a stalled sensor is
 * reported and recovers, a missing port is a clear error. */
#include "check.h"
#include "fake_lds01.h"
#include "loader.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static tycho_device *open_on(const char *port, tycho_err *err)
{
    tycho_setting s[] = {{"port", port}, {"stall_timeout", "0.3"}};
    return tycho_device_open(TYCHO_DRIVER_DIR, "lds01", TYCHO_DEVICE_RANGE_SCANNER, s, 2, err);
}

int main(void)
{
    fake_lds01 f;
    const char *port = fake_lds01_start(&f, 0.1);
    tycho_err err = {0};
    tycho_device *d = open_on(port, &err);
    CHECK_MSG(d != NULL, "%s", err.msg);
    if (!d) {
        fake_lds01_stop(&f);
        return check_summary("lds01 driver");
    }
    static tycho_sample s;
    int scans = 0;
    double t0 = fake_lds01_now();
    while (fake_lds01_now() - t0 < 1.0) {
        if (tycho_device_read(d, &s, &err) == 1) {
            scans++;
            CHECK(s.kind == TYCHO_DEVICE_RANGE_SCANNER && s.u.scan.count == 360);
            CHECK(fabsf(s.u.scan.ranges[0] - 0.5f) < 1e-3 &&
                  fabsf(s.u.scan.ranges[359] - (0.5f + 0.005f * 359)) < 1e-3);
            CHECK(fabsf(s.u.scan.angle_increment - (float)(2 * M_PI / 360)) < 1e-6);
        }
        usleep(1000);
    }
    CHECK_MSG(scans >= 5 && scans <= 11, "%d scans in 1 s at 10 Hz", scans);
    CHECK(f.got_b); /* the driver started the motor */
    /* stall: the sensor stops sending */
    f.paused = 1;
    usleep(500000);
    CHECK(tycho_device_read(d, &s, &err) == -1);
    CHECK_MSG(strstr(err.msg, "lds01: stalled: no full revolution") != NULL, "%s", err.msg);
    f.paused = 0;
    usleep(400000);
    CHECK(tycho_device_read(d, &s, &err) == 1); /* and back */
    tycho_device_close(d);
    usleep(300000); /* the sensor looks at its input every 0.1 s */
    CHECK(f.got_e); /* and stopped it */
    fake_lds01_stop(&f);
    CHECK(open_on("/dev/ttyNOPE9", &err) == NULL && strstr(err.msg, "cannot open /dev/ttyNOPE9"));
    tycho_setting bad[] = {{"port", "/dev/null"}, {"checksum", "sometimes"}};
    CHECK(tycho_device_open(TYCHO_DRIVER_DIR, "lds01", TYCHO_DEVICE_RANGE_SCANNER, bad, 2, &err) ==
              NULL &&
          strstr(err.msg, "check, ignore or auto"));
    return check_summary("lds01 driver");
}
