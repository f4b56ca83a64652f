/* LD_PRELOAD form of the fake I2C bus (tests/fake/fake_i2c.c) for the
 * hardware-in-the-loop test: AMG8833 cameras whose pixels come from the
 * simulator. TYCHO_FAKE_I2C_AMG="BUS,ADDRESS,FEED;..." adds one AMG8833 per
 * entry (e.g. /dev/i2c-fake1,0x68,/tmp/x/cam1); whenever the driver starts
 * reading a frame (register 0x80) or the thermistor (0x0E), the registers
 * 0x0E-0x0F and 0x80-0xFF are reloaded from FEED: 130 bytes, thermistor low
 * and high, then the 64 pixels low and high, as the sensor holds them. The
 * feeder replaces the file by rename, so a read sees a whole frame. */
#include "fake_i2c.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CAMS 4

static struct {
    fake_i2c_dev *dev;
    char feed[256];
} cams[MAX_CAMS];
static int ncams;

static void refresh(fake_i2c_dev *d, int address, uint8_t reg)
{
    (void)address;
    if (reg != 0x80 && reg != 0x0E) return;
    for (int i = 0; i < ncams; i++) {
        if (cams[i].dev != d) continue;
        uint8_t buf[130];
        int fd = open(cams[i].feed, O_RDONLY);
        if (fd < 0) return; /* nothing fed yet: the registers keep what they had */
        ssize_t n = read(fd, buf, sizeof buf);
        close(fd);
        if (n != (ssize_t)sizeof buf) return;
        d->regs[0x0E] = buf[0];
        d->regs[0x0F] = buf[1];
        memcpy(d->regs + 0x80, buf + 2, 128);
    }
}

__attribute__((constructor)) static void from_env(void)
{
    const char *spec = getenv("TYCHO_FAKE_I2C_AMG");
    if (!spec) return;
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", spec);
    char *save = NULL;
    for (char *e = strtok_r(copy, ";", &save); e && ncams < MAX_CAMS;
         e = strtok_r(NULL, ";", &save)) {
        char bus[64], feed[256];
        int address;
        if (sscanf(e, "%63[^,],%i,%255s", bus, &address, feed) != 3) {
            fprintf(stderr, "preload_i2c: bad TYCHO_FAKE_I2C_AMG entry '%s' (BUS,ADDRESS,FEED)\n",
                    e);
            continue;
        }
        cams[ncams].dev = fake_i2c_add(bus, address, FAKE_I2C_AMG8833);
        snprintf(cams[ncams].feed, sizeof cams[ncams].feed, "%s", feed);
        ncams++;
    }
    fake_i2c_on_read(refresh);
}
