/* Driver plugin: the MPU-6050 IMU over I2C (drivers/i2c_sensors.h). A
 * thread reads it at `rate_hz` and runs the complementary filter, so roll
 * and pitch come with every sample. */
#include "../i2c_sensors.h"
#include "sample_ring.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const tycho_setting_schema SETTINGS[] = {
    {"bus", TYCHO_SETTING_STRING, "/dev/i2c-1", "I2C bus device"},
    {"address", TYCHO_SETTING_INT, "0x68", "0x68 or 0x69 (AD0)"},
    {"accel_range", TYCHO_SETTING_INT, "2", "g: 2, 4, 8 or 16"},
    {"gyro_range", TYCHO_SETTING_INT, "250", "deg/s: 250, 500, 1000 or 2000"},
    {"rate_hz", TYCHO_SETTING_NUMBER, "100", "samples per second"},
    {"tau", TYCHO_SETTING_NUMBER, "0.5", "s, complementary filter time constant"},
    {NULL, 0, NULL, NULL}};

typedef struct {
    tycho_mpu6050 imu;
    tycho_attitude att;
    tycho_sample_ring ring;
    pthread_t thread;
    volatile int stop;
    double period;
} mpu;

static void *run(void *arg)
{
    mpu *m = arg;
    double last = tycho_ring_now();
    while (!m->stop) {
        tycho_mpu6050_sample s;
        tycho_err e = {0};
        if (tycho_mpu6050_read(&m->imu, &s, &e) != TYCHO_OK) tycho_ring_fail(&m->ring, e.msg);
        else {
            double now = tycho_ring_now();
            tycho_attitude_update(&m->att, &s, now - last);
            last = now;
            tycho_sample out;
            memset(&out, 0, sizeof out);
            out.u.imu.ax = s.ax, out.u.imu.ay = s.ay, out.u.imu.az = s.az;
            out.u.imu.gx = s.gx, out.u.imu.gy = s.gy, out.u.imu.gz = s.gz;
            out.u.imu.roll = m->att.roll, out.u.imu.pitch = m->att.pitch;
            tycho_ring_put(&m->ring, &out);
        }
        usleep((useconds_t)(m->period * 1e6));
    }
    return NULL;
}

static void *open_mpu(const tycho_setting *s, int n, char *err, size_t errlen)
{
    double rate = strtod(tycho_setting_str(s, n, "rate_hz"), NULL),
           tau = strtod(tycho_setting_str(s, n, "tau"), NULL);
    if (!(rate >= 1 && rate <= 1000) || !(tau > 0)) {
        snprintf(err, errlen, "rate_hz must be in [1, 1000] and tau > 0");
        return NULL;
    }
    mpu *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    tycho_err e = {0};
    if (tycho_mpu6050_open(&m->imu, tycho_setting_str(s, n, "bus"),
                           (int)strtol(tycho_setting_str(s, n, "address"), NULL, 0),
                           (int)strtol(tycho_setting_str(s, n, "accel_range"), NULL, 0),
                           (int)strtol(tycho_setting_str(s, n, "gyro_range"), NULL, 0),
                           &e) != TYCHO_OK) {
        snprintf(err, errlen, "%s", e.msg);
        free(m);
        return NULL;
    }
    tycho_attitude_init(&m->att, tau);
    m->period = 1.0 / rate;
    tycho_ring_init(&m->ring, TYCHO_DEVICE_IMU);
    if (pthread_create(&m->thread, NULL, run, m) != 0) {
        tycho_mpu6050_close(&m->imu);
        free(m);
        snprintf(err, errlen, "cannot start its thread");
        return NULL;
    }
    return m;
}

static void close_mpu(void *dev)
{
    mpu *m = dev;
    m->stop = 1;
    pthread_join(m->thread, NULL);
    tycho_mpu6050_close(&m->imu);
    free(m);
}

static int read_mpu(void *dev, tycho_sample *out, uint64_t *seq, char *err, size_t errlen)
{
    return tycho_ring_get(&((mpu *)dev)->ring, out, seq, err, errlen);
}

const tycho_driver tycho_driver_descriptor = {
    TYCHO_DRIVER_ABI, "mpu6050", TYCHO_DEVICE_IMU, SETTINGS, open_mpu, close_mpu, read_mpu, NULL};
