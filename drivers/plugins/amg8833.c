/* Driver plugin: the AMG8833 thermal camera over I2C (drivers/i2c_sensors.h).
 * A thread reads a frame at the sensor's rate and publishes it. */
#include "../i2c_sensors.h"
#include "sample_ring.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const tycho_setting_schema SETTINGS[] = {
    {"bus", TYCHO_SETTING_STRING, "/dev/i2c-1", "I2C bus device"},
    {"address", TYCHO_SETTING_INT, "0x68", "0x68 or 0x69"},
    {"fps", TYCHO_SETTING_INT, "10", "1 or 10 frames per second"},
    {"moving_average", TYCHO_SETTING_BOOL, "false", "the sensor's moving average"},
    {NULL, 0, NULL, NULL}};

typedef struct {
    tycho_amg8833 cam;
    tycho_sample_ring ring;
    pthread_t thread;
    volatile int stop;
    double period;
} amg;

static void *run(void *arg)
{
    amg *a = arg;
    while (!a->stop) {
        tycho_sample s;
        memset(&s, 0, sizeof s);
        tycho_err e = {0};
        double t;
        if (tycho_amg8833_read(&a->cam, s.u.thermal.pixels, &e) != TYCHO_OK ||
            tycho_amg8833_thermistor_read(&a->cam, &t, &e) != TYCHO_OK)
            tycho_ring_fail(&a->ring, e.msg);
        else {
            s.u.thermal.thermistor = (float)t;
            tycho_ring_put(&a->ring, &s);
        }
        usleep((useconds_t)(a->period * 1e6));
    }
    return NULL;
}

static void *open_amg(const tycho_setting *s, int n, char *err, size_t errlen)
{
    amg *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    tycho_amg8833_config c = {(int)strtol(tycho_setting_str(s, n, "fps"), NULL, 0), false};
    const char *ma = tycho_setting_str(s, n, "moving_average");
    c.moving_average = !strcmp(ma, "true") || !strcmp(ma, "1");
    tycho_err e = {0};
    if (tycho_amg8833_open(&a->cam, tycho_setting_str(s, n, "bus"),
                           (int)strtol(tycho_setting_str(s, n, "address"), NULL, 0), &c,
                           &e) != TYCHO_OK) {
        snprintf(err, errlen, "%s", e.msg);
        free(a);
        return NULL;
    }
    a->period = 1.0 / c.fps;
    tycho_ring_init(&a->ring, TYCHO_DEVICE_THERMAL_CAMERA);
    if (pthread_create(&a->thread, NULL, run, a) != 0) {
        tycho_amg8833_close(&a->cam);
        free(a);
        snprintf(err, errlen, "cannot start its thread");
        return NULL;
    }
    return a;
}

static void close_amg(void *dev)
{
    amg *a = dev;
    a->stop = 1;
    pthread_join(a->thread, NULL);
    tycho_amg8833_close(&a->cam);
    free(a);
}

static int read_amg(void *dev, tycho_sample *out, uint64_t *seq, char *err, size_t errlen)
{
    return tycho_ring_get(&((amg *)dev)->ring, out, seq, err, errlen);
}

const tycho_driver tycho_driver_descriptor = {
    TYCHO_DRIVER_ABI, "amg8833", TYCHO_DEVICE_THERMAL_CAMERA, SETTINGS, open_amg, close_amg,
    read_amg,         NULL};
