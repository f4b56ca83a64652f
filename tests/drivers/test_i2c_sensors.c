/* The AMG8833 and MPU-6050 drivers (drivers/i2c_sensors.c) through libi2c's
 * real SMBus calls, against the fake bus (tests/fake/fake_i2c.c) that
 * stands in for /dev/i2c-N: datasheet values, both camera addresses on one
 * bus, the init sequence, a missing device, a device that stops answering,
 * a wrong device. */
#include "check.h"
#include "fake_i2c.h"
#include "i2c_sensors.h"

#include <math.h>
#include <string.h>

#define BUS "/dev/i2c-fake1"

static void test_amg8833_datasheet_values(void)
{
    fake_i2c_reset();
    fake_i2c_dev *left = fake_i2c_add(BUS, 0x68, FAKE_I2C_AMG8833);
    fake_i2c_dev *right = fake_i2c_add(BUS, 0x69, FAKE_I2C_AMG8833);
    fake_i2c_amg_pixel(left, 0, 0x064);    /* +25.0 degC */
    fake_i2c_amg_pixel(left, 1, 0xFFF);    /* -0.25 degC */
    fake_i2c_amg_pixel(left, 63, 0x1F4);   /* +125 degC, the sensor's top */
    fake_i2c_amg_thermistor(left, 0x190);  /* +25.0 degC */
    fake_i2c_amg_thermistor(right, 0x804); /* -0.25 degC */
    for (int i = 0; i < 64; i++)
        fake_i2c_amg_pixel(right, i, (uint16_t)(4 * (20 + i % 8))); /* 20..27 degC */
    tycho_amg8833 a, b;
    tycho_err err = {0};
    CHECK_MSG(tycho_amg8833_open(&a, BUS, 0x68, NULL, &err) == TYCHO_OK, "%s", err.msg);
    tycho_amg8833_config slow = {1, true};
    CHECK_MSG(tycho_amg8833_open(&b, BUS, 0x69, &slow, &err) == TYCHO_OK, "%s", err.msg);
    /* the init sequence reached the registers */
    CHECK(left->regs[0x00] == 0x00 && left->regs[0x02] == 0x00 && left->regs[0x07] == 0x00);
    CHECK(right->regs[0x02] == 0x01 && right->regs[0x07] == 0x20);
    float f[64];
    CHECK(tycho_amg8833_read(&a, f, &err) == TYCHO_OK);
    CHECK(f[0] == 25.0f && f[1] == -0.25f && f[63] == 125.0f && f[2] == 0.0f);
    CHECK(tycho_amg8833_read(&b, f, &err) == TYCHO_OK);
    CHECK(f[0] == 20.0f && f[7] == 27.0f && f[8] == 20.0f);
    double t;
    CHECK(tycho_amg8833_thermistor_read(&a, &t, &err) == TYCHO_OK && t == 25.0);
    CHECK(tycho_amg8833_thermistor_read(&b, &t, &err) == TYCHO_OK && t == -0.25);
    /* a frame is four 32-byte block reads */
    long before = left->reads;
    tycho_amg8833_read(&a, f, &err);
    CHECK(left->reads - before == 4);
    /* the camera stops answering: an error naming bus and address, no crash */
    left->nack = true;
    CHECK(tycho_amg8833_read(&a, f, &err) == TYCHO_EIO);
    CHECK_MSG(strstr(err.msg, BUS " 0x68: pixel block 0") != NULL, "%s", err.msg);
    tycho_amg8833_close(&a);
    tycho_amg8833_close(&b);
}

static void test_amg8833_missing_and_wrong(void)
{
    fake_i2c_reset();
    fake_i2c_add(BUS, 0x68, FAKE_I2C_PLAIN); /* answers but keeps nothing written: not an AMG8833 */
    tycho_amg8833 a;
    tycho_err err = {0};
    CHECK(tycho_amg8833_open(&a, BUS, 0x69, NULL, &err) == TYCHO_EIO);
    CHECK_MSG(strstr(err.msg, "0x69: no answer writing register 0x00") != NULL, "%s", err.msg);
    fake_i2c_dev *plain = fake_i2c_add(BUS, 0x69, FAKE_I2C_PLAIN);
    plain->regs[0x02] = 0x01; /* a rate register stuck at 1 fps */
    CHECK(tycho_amg8833_open(&a, BUS, 0x69, NULL, &err) == TYCHO_EIO);
    CHECK_MSG(strstr(err.msg, "does not behave like an AMG8833") != NULL, "%s", err.msg);
    CHECK(tycho_amg8833_open(&a, "/dev/i2c-fake9", 0x68, NULL, &err) == TYCHO_EIO);
    CHECK_MSG(strstr(err.msg, "cannot open") != NULL, "%s", err.msg);
    CHECK(tycho_amg8833_open(&a, BUS, 0x50, NULL, &err) == TYCHO_EINVAL);
    tycho_amg8833_config bad = {5, false};
    CHECK(tycho_amg8833_open(&a, BUS, 0x68, &bad, &err) == TYCHO_EINVAL && strstr(err.msg, "fps"));
}

static void test_mpu6050(void)
{
    fake_i2c_reset();
    fake_i2c_dev *imu = fake_i2c_add("/dev/i2c-fake2", 0x68, FAKE_I2C_MPU6050);
    fake_i2c_mpu_word(imu, 0x3F, 8192);  /* accel z: 1 g at +-4 g */
    fake_i2c_mpu_word(imu, 0x3B, -4096); /* accel x: -0.5 g */
    fake_i2c_mpu_word(imu, 0x43, 655);   /* gyro x: 10 deg/s at +-500 (65.5 LSB per deg/s) */
    fake_i2c_mpu_word(imu, 0x41, 0);     /* temperature raw 0: 36.53 degC */
    tycho_mpu6050 m;
    tycho_err err = {0};
    CHECK_MSG(tycho_mpu6050_open(&m, "/dev/i2c-fake2", 0x68, 4, 500, &err) == TYCHO_OK, "%s",
              err.msg);
    CHECK(imu->regs[0x6B] == 0x01);                                    /* awake, PLL clock */
    CHECK(imu->regs[0x1C] == (1 << 3) && imu->regs[0x1B] == (1 << 3)); /* +-4 g, +-500 deg/s */
    tycho_mpu6050_sample s;
    CHECK(tycho_mpu6050_read(&m, &s, &err) == TYCHO_OK);
    CHECK_MSG(fabs(s.az - 9.80665) < 1e-3 && fabs(s.ax + 4.903) < 1e-2, "a = (%g, %g, %g)", s.ax,
              s.ay, s.az);
    CHECK_MSG(fabs(s.gx - 10 * M_PI / 180) < 1e-3, "gx %g", s.gx);
    CHECK(fabs(s.temp_c - 36.53) < 1e-6);
    tycho_mpu6050_close(&m);
    /* the wrong chip at that address */
    imu->regs[0x75] = 0x71; /* an MPU-9250 says 0x71 */
    CHECK(tycho_mpu6050_open(&m, "/dev/i2c-fake2", 0x68, 4, 500, &err) == TYCHO_EIO);
    CHECK_MSG(strstr(err.msg, "WHO_AM_I is 0x71") != NULL, "%s", err.msg);
    CHECK(tycho_mpu6050_open(&m, "/dev/i2c-fake2", 0x69, 4, 500, &err) == TYCHO_EIO);
    CHECK(tycho_mpu6050_open(&m, "/dev/i2c-fake2", 0x68, 3, 500, &err) == TYCHO_EINVAL);
}

int main(void)
{
    test_amg8833_datasheet_values();
    test_amg8833_missing_and_wrong();
    test_mpu6050();
    return check_summary("i2c sensors");
}
