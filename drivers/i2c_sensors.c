/* AMG8833 and MPU-6050 over libi2c: see i2c_sensors.h. */
#include "i2c_sensors.h"

#include <errno.h>
#include <fcntl.h>
#include <i2c/smbus.h>
#include <linux/i2c-dev.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

enum {
    AMG_PCTL = 0x00,
    AMG_RST = 0x01,
    AMG_FPSC = 0x02,
    AMG_INTC = 0x03,
    AMG_AVE = 0x07,
    AMG_AVE_KEY = 0x1F,
    AMG_TTHL = 0x0E,
    AMG_PIXELS = 0x80
};
enum {
    MPU_PWR_MGMT_1 = 0x6B,
    MPU_GYRO_CONFIG = 0x1B,
    MPU_ACCEL_CONFIG = 0x1C,
    MPU_ACCEL_XOUT_H = 0x3B,
    MPU_WHO_AM_I = 0x75
};

static int open_bus(const char *bus, int address, char *name, size_t cap, tycho_err *err)
{
    snprintf(name, cap, "%s", bus);
    if (address < 0x03 || address > 0x77) {
        tycho_fail(err, TYCHO_EINVAL, "%s: address 0x%02x is not a 7-bit device address", bus,
                   address);
        return -1;
    }
    int fd = open(bus, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        tycho_fail(err, TYCHO_EIO,
                   "%s: cannot open: %s (is the I2C bus enabled, and are you in group i2c?)", bus,
                   strerror(errno));
        return -1;
    }
    if (ioctl(fd, I2C_SLAVE, address) < 0) {
        tycho_fail(err, TYCHO_EIO, "%s: cannot select address 0x%02x: %s", bus, address,
                   strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

static tycho_status write_reg(int fd, const char *bus, int addr, int reg, int value, tycho_err *err)
{
    if (i2c_smbus_write_byte_data(fd, (uint8_t)reg, (uint8_t)value) < 0)
        return tycho_fail(err, TYCHO_EIO, "%s 0x%02x: no answer writing register 0x%02x: %s", bus,
                          addr, reg, strerror(errno));
    return TYCHO_OK;
}

static int read_reg(int fd, const char *bus, int addr, int reg, tycho_err *err)
{
    int v = i2c_smbus_read_byte_data(fd, (uint8_t)reg);
    if (v < 0)
        tycho_fail(err, TYCHO_EIO, "%s 0x%02x: no answer reading register 0x%02x: %s", bus, addr,
                   reg, strerror(errno));
    return v;
}

/* --- AMG8833 --- */

tycho_status tycho_amg8833_open(tycho_amg8833 *d, const char *bus, int address,
                                const tycho_amg8833_config *c, tycho_err *err)
{
    memset(d, 0, sizeof *d);
    d->fd = -1;
    tycho_amg8833_config def = {10, false};
    if (!c) c = &def;
    if (c->fps != 10 && c->fps != 1)
        return tycho_fail(err, TYCHO_EINVAL, "amg8833: fps must be 1 or 10 (got %d)", c->fps);
    if (address != 0x68 && address != 0x69)
        return tycho_fail(
            err, TYCHO_EINVAL,
            "amg8833: address must be 0x68 or 0x69 (AD_SELECT low or high), got 0x%02x", address);
    d->fd = open_bus(bus, address, d->bus, sizeof d->bus, err);
    if (d->fd < 0) return TYCHO_EIO;
    d->address = address;
    /* normal mode, initial reset (all registers to their defaults), frame
     * rate, no interrupts; then the moving-average mode, which the sensor
     * only accepts inside its unlock sequence on register 0x1F */
    int fpsc = c->fps == 1 ? 0x01 : 0x00;
    tycho_status st;
    if ((st = write_reg(d->fd, bus, address, AMG_PCTL, 0x00, err)) ||
        (st = write_reg(d->fd, bus, address, AMG_RST, 0x3F, err)) ||
        (st = write_reg(d->fd, bus, address, AMG_FPSC, fpsc, err)) ||
        (st = write_reg(d->fd, bus, address, AMG_INTC, 0x00, err)) ||
        (st = write_reg(d->fd, bus, address, AMG_AVE_KEY, 0x50, err)) ||
        (st = write_reg(d->fd, bus, address, AMG_AVE_KEY, 0x45, err)) ||
        (st = write_reg(d->fd, bus, address, AMG_AVE_KEY, 0x57, err)) ||
        (st = write_reg(d->fd, bus, address, AMG_AVE, c->moving_average ? 0x20 : 0x00, err)) ||
        (st = write_reg(d->fd, bus, address, AMG_AVE_KEY, 0x00, err))) {
        tycho_amg8833_close(d);
        return st;
    }
    /* something answered; is it an AMG8833? It has no identity register, so
     * check that it kept what we wrote and that its thermistor is sane */
    int pctl = read_reg(d->fd, bus, address, AMG_PCTL, err),
        f = read_reg(d->fd, bus, address, AMG_FPSC, err);
    double t;
    if (pctl < 0 || f < 0 || tycho_amg8833_thermistor_read(d, &t, err) != TYCHO_OK) {
        tycho_amg8833_close(d);
        return TYCHO_EIO;
    }
    if (pctl != 0x00 || (f & 0x01) != fpsc || t < -40 || t > 100) {
        tycho_amg8833_close(d);
        return tycho_fail(err, TYCHO_EIO,
                          "%s 0x%02x: the device there does not behave like an AMG8833 (mode "
                          "0x%02x, rate 0x%02x, "
                          "thermistor %.1f degC)",
                          bus, address, pctl, f, t);
    }
    return TYCHO_OK;
}

tycho_status tycho_amg8833_read(tycho_amg8833 *d, float out[TYCHO_AMG8833_PIXELS], tycho_err *err)
{
    uint8_t raw[128];
    /* SMBus block reads carry at most 32 bytes: four of them */
    for (int k = 0; k < 4; k++) {
        int n =
            i2c_smbus_read_i2c_block_data(d->fd, (uint8_t)(AMG_PIXELS + 32 * k), 32, raw + 32 * k);
        if (n != 32)
            return tycho_fail(err, TYCHO_EIO, "%s 0x%02x: pixel block %d: %s", d->bus, d->address,
                              k, n < 0 ? strerror(errno) : "short read");
    }
    tycho_amg8833_frame(raw, out);
    return TYCHO_OK;
}

tycho_status tycho_amg8833_thermistor_read(tycho_amg8833 *d, double *celsius, tycho_err *err)
{
    int lo = read_reg(d->fd, d->bus, d->address, AMG_TTHL, err);
    int hi = lo < 0 ? -1 : read_reg(d->fd, d->bus, d->address, AMG_TTHL + 1, err);
    if (hi < 0) return TYCHO_EIO;
    *celsius = tycho_amg8833_thermistor((uint8_t)lo, (uint8_t)hi);
    return TYCHO_OK;
}

void tycho_amg8833_close(tycho_amg8833 *d)
{
    if (d->fd >= 0) close(d->fd);
    d->fd = -1;
}

/* --- MPU-6050 --- */

tycho_status tycho_mpu6050_open(tycho_mpu6050 *d, const char *bus, int address, int accel_range_g,
                                int gyro_range_dps, tycho_err *err)
{
    memset(d, 0, sizeof *d);
    d->fd = -1;
    static const int ar[4] = {2, 4, 8, 16}, gr[4] = {250, 500, 1000, 2000};
    int afs = -1, gfs = -1;
    for (int i = 0; i < 4; i++) {
        if (ar[i] == accel_range_g) afs = i;
        if (gr[i] == gyro_range_dps) gfs = i;
    }
    if (afs < 0 || gfs < 0)
        return tycho_fail(
            err, TYCHO_EINVAL,
            "mpu6050: ranges are 2/4/8/16 g and 250/500/1000/2000 deg/s (got %d g, %d deg/s)",
            accel_range_g, gyro_range_dps);
    d->fd = open_bus(bus, address, d->bus, sizeof d->bus, err);
    if (d->fd < 0) return TYCHO_EIO;
    d->address = address;
    d->accel_range_g = accel_range_g;
    d->gyro_range_dps = gyro_range_dps;
    int who = read_reg(d->fd, bus, address, MPU_WHO_AM_I, err);
    if (who < 0) {
        tycho_mpu6050_close(d);
        return TYCHO_EIO;
    }
    if ((who & 0x7E) != 0x68) { /* bits 6..1 are the address' upper six bits */
        tycho_mpu6050_close(d);
        return tycho_fail(err, TYCHO_EIO, "%s 0x%02x: WHO_AM_I is 0x%02x, not an MPU-6050 (0x68)",
                          bus, address, who);
    }
    tycho_status st;
    /* wake up with the X gyro's PLL as clock (steadier than the internal oscillator) */
    if ((st = write_reg(d->fd, bus, address, MPU_PWR_MGMT_1, 0x01, err)) ||
        (st = write_reg(d->fd, bus, address, MPU_GYRO_CONFIG, gfs << 3, err)) ||
        (st = write_reg(d->fd, bus, address, MPU_ACCEL_CONFIG, afs << 3, err))) {
        tycho_mpu6050_close(d);
        return st;
    }
    return TYCHO_OK;
}

tycho_status tycho_mpu6050_read(tycho_mpu6050 *d, tycho_mpu6050_sample *out, tycho_err *err)
{
    uint8_t raw[14];
    int n = i2c_smbus_read_i2c_block_data(d->fd, MPU_ACCEL_XOUT_H, 14, raw);
    if (n != 14)
        return tycho_fail(err, TYCHO_EIO, "%s 0x%02x: burst read: %s", d->bus, d->address,
                          n < 0 ? strerror(errno) : "short read");
    return tycho_mpu6050_decode(raw, d->accel_range_g, d->gyro_range_dps, out, err);
}

void tycho_mpu6050_close(tycho_mpu6050 *d)
{
    if (d->fd >= 0) close(d->fd);
    d->fd = -1;
}
