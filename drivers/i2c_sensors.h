/* I2C sensors over libi2c (Debian's libi2c-dev, i2c-tools): the AMG8833
 * thermal camera and the MPU-6050 IMU. Each call is a short blocking bus
 * transaction (an AMG frame: four 32-byte SMBus block reads, ~3 ms at
 * 400 kHz), so the runtime calls these from a driver thread, never from a
 * behaviour. Errors name the bus, the address and what failed. */
#ifndef TYCHO_I2C_SENSORS_H
#define TYCHO_I2C_SENSORS_H

#include "tycho/devproto.h"

/* --- AMG8833 (Panasonic Grid-EYE) --- */
typedef struct {
    int fd;
    int address;
    char bus[64];
} tycho_amg8833;

typedef struct {
    int fps;             /* 10 (default) or 1 */
    bool moving_average; /* the sensor's twice moving average (noise down, lag up) */
} tycho_amg8833_config;

/* Opens the bus, selects the address (0x68 or 0x69), resets the sensor to
 * normal mode at the frame rate and checks it answers as an AMG8833. */
tycho_status tycho_amg8833_open(tycho_amg8833 *d, const char *bus, int address,
                                const tycho_amg8833_config *c, tycho_err *err);
/* 64 temperatures (degC, row-major as the sensor orders them). */
tycho_status tycho_amg8833_read(tycho_amg8833 *d, float out[TYCHO_AMG8833_PIXELS], tycho_err *err);
tycho_status tycho_amg8833_thermistor_read(tycho_amg8833 *d, double *celsius, tycho_err *err);
void tycho_amg8833_close(tycho_amg8833 *d);

/* --- MPU-6050 --- */
typedef struct {
    int fd;
    int address;
    int accel_range_g, gyro_range_dps;
    char bus[64];
} tycho_mpu6050;

/* Wakes it (PWR_MGMT_1), checks WHO_AM_I, sets the ranges (2/4/8/16 g,
 * 250/500/1000/2000 deg/s). */
tycho_status tycho_mpu6050_open(tycho_mpu6050 *d, const char *bus, int address, int accel_range_g,
                                int gyro_range_dps, tycho_err *err);
/* One 14-byte burst from ACCEL_XOUT_H, decoded. */
tycho_status tycho_mpu6050_read(tycho_mpu6050 *d, tycho_mpu6050_sample *out, tycho_err *err);
void tycho_mpu6050_close(tycho_mpu6050 *d);

#endif
