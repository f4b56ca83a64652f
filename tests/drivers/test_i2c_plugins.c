/* The AMG8833 and MPU-6050 driver plugins, loaded by the plugin loader, on
 * the fake I2C bus: this executable exports its open/ioctl/close (the fake
 * bus) so the plugins and libi2c inside them use it, as an LD_PRELOAD shim
 * would. The plugins' threads, the latest-sample hand-over, the values. */
#include "check.h"
#include "fake_i2c.h"
#include "loader.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

static int wait_sample(tycho_device *d, tycho_sample *s, tycho_err *err)
{
    for (int i = 0; i < 200; i++) {
        int r = tycho_device_read(d, s, err);
        if (r != 0) return r;
        usleep(10000);
    }
    return 0;
}

int main(void)
{
    fake_i2c_reset();
    fake_i2c_dev *cam = fake_i2c_add("/dev/i2c-fake1", 0x69, FAKE_I2C_AMG8833);
    for (int i = 0; i < 64; i++) fake_i2c_amg_pixel(cam, i, 0x064); /* 25.0 degC */
    fake_i2c_amg_pixel(cam, 27, 0x0C8);                             /* 50.0: a hot spot */
    fake_i2c_amg_thermistor(cam, 0x190);
    fake_i2c_dev *imu = fake_i2c_add("/dev/i2c-fake2", 0x68, FAKE_I2C_MPU6050);
    /* nose up 0.2 rad: gravity along x and z */
    fake_i2c_mpu_word(imu, 0x3B, (int16_t)lround(-sin(0.2) * 16384));
    fake_i2c_mpu_word(imu, 0x3F, (int16_t)lround(cos(0.2) * 16384));
    tycho_err err = {0};
    tycho_setting cs[] = {{"bus", "/dev/i2c-fake1"}, {"address", "0x69"}};
    tycho_device *c =
        tycho_device_open(TYCHO_DRIVER_DIR, "amg8833", TYCHO_DEVICE_THERMAL_CAMERA, cs, 2, &err);
    CHECK_MSG(c != NULL, "%s", err.msg);
    static tycho_sample s;
    if (c) {
        CHECK(wait_sample(c, &s, &err) == 1);
        CHECK(s.u.thermal.pixels[0] == 25.0f && s.u.thermal.pixels[27] == 50.0f &&
              s.u.thermal.thermistor == 25.0f);
        cam->nack = true; /* unplugged: the error comes back as a value */
        int r = 0;
        for (int i = 0; i < 100 && r >= 0; i++) {
            r = tycho_device_read(c, &s, &err);
            usleep(10000);
        }
        CHECK_MSG(r == -1 && strstr(err.msg, "amg8833: /dev/i2c-fake1 0x69: pixel block 0"), "%s",
                  err.msg);
        tycho_device_close(c);
    }
    tycho_setting is[] = {{"bus", "/dev/i2c-fake2"}, {"rate_hz", "200"}, {"tau", "0.05"}};
    tycho_device *m = tycho_device_open(TYCHO_DRIVER_DIR, "mpu6050", TYCHO_DEVICE_IMU, is, 3, &err);
    CHECK_MSG(m != NULL, "%s", err.msg);
    if (m) {
        usleep(400000); /* the filter settles (tau 0.05 s) */
        CHECK(wait_sample(m, &s, &err) == 1);
        CHECK_MSG(fabs(s.u.imu.pitch - 0.2) < 0.01 && fabs(s.u.imu.roll) < 0.01,
                  "pitch %.4f roll %.4f", s.u.imu.pitch, s.u.imu.roll);
        tycho_device_close(m);
    }
    tycho_setting missing[] = {{"bus", "/dev/i2c-fake2"}, {"address", "0x69"}};
    CHECK(tycho_device_open(TYCHO_DRIVER_DIR, "mpu6050", TYCHO_DEVICE_IMU, missing, 2, &err) ==
              NULL &&
          strstr(err.msg, "no answer"));
    return check_summary("i2c plugins");
}
