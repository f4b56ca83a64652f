/* The driver plugin ABI (version 1). A driver is a shared object exporting
 *
 *     const tycho_driver tycho_driver_descriptor = { TYCHO_DRIVER_ABI, "name", kind, ... };
 *
 * The runtime finds it by name on its plugin path (TYCHO_DRIVER_PATH, then
 * the build's drivers folder), checks the ABI version and the descriptor,
 * checks the settings against the driver's schema (names, types, required
 * ones) and only then calls open. Drivers do their I/O on their own threads
 * (or non-blocking) and hand samples over through a short ring (the
 * plugins' drivers/plugins/sample_ring.h keeps 8; a state-like device such
 * as the base may keep just its latest); read and write never wait on a
 * device. Errors come back as messages, never as crashes.
 *
 * Plain C types only, so a driver built against this header works with
 * any runtime of the same ABI version. */
#ifndef TYCHO_DRIVER_H
#define TYCHO_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#define TYCHO_DRIVER_ABI 1
#define TYCHO_DRIVER_SYMBOL "tycho_driver_descriptor"

typedef enum {
    TYCHO_DEVICE_RANGE_SCANNER = 1, /* LiDAR: a scan per revolution */
    TYCHO_DEVICE_THERMAL_CAMERA,    /* 8 x 8 temperatures */
    TYCHO_DEVICE_IMU,               /* gyro, acceleration, roll/pitch */
    TYCHO_DEVICE_DIFF_BASE,         /* velocity command in, odometry out */
    TYCHO_DEVICE_LAUNCHER           /* arm / fire / disarm in, state out */
} tycho_device_kind;

typedef enum {
    TYCHO_SETTING_INT = 1,
    TYCHO_SETTING_NUMBER,
    TYCHO_SETTING_STRING,
    TYCHO_SETTING_BOOL
} tycho_setting_type;

typedef struct {
    const char *name;
    tycho_setting_type type;
    const char *default_value; /* NULL: required */
    const char *doc;
} tycho_setting_schema;

/* A setting as given (already checked against the schema; defaults filled). */
typedef struct {
    const char *name, *value;
} tycho_setting;

#define TYCHO_SAMPLE_MAX_RANGES 720

typedef struct {
    double t;     /* CLOCK_MONOTONIC seconds when it arrived at the driver */
    uint64_t seq; /* counts up with every new sample */
    tycho_device_kind kind;
    union {
        struct {
            float angle_min, angle_increment, range_min, range_max;
            int count;
            float ranges[TYCHO_SAMPLE_MAX_RANGES];
        } scan;
        struct {
            float pixels[64];
            float thermistor;
        } thermal;
        struct {
            double ax, ay, az, gx, gy, gz, roll, pitch;
        } imu;
        struct {
            double x, y, yaw, v, w, roll, pitch, gyro_z;
            int ok;
        } base;
        struct {
            int state, fired, running;
        } launcher;
    } u;
    char status[128]; /* non-empty: a problem the device reports (still a sample) */
} tycho_sample;

typedef enum {
    TYCHO_CMD_VELOCITY = 1,
    TYCHO_CMD_ARM,
    TYCHO_CMD_DISARM,
    TYCHO_CMD_FIRE,
    TYCHO_CMD_SAFE_STOP
} tycho_command_type;

typedef struct {
    tycho_command_type type;
    double v, w; /* VELOCITY */
    int count;   /* FIRE */
} tycho_command;

typedef struct {
    uint32_t abi; /* TYCHO_DRIVER_ABI */
    const char *name;
    tycho_device_kind kind;
    const tycho_setting_schema *settings; /* ends with a { NULL } entry */
    /* returns the device, or NULL with a message in err */
    void *(*open)(const tycho_setting *settings, int n, char *err, size_t errlen);
    void (*close)(void *dev);
    /* the sample after *seq, in order (or the oldest still held, if the
     * reader fell behind the ring): 1 (and *seq updated), 0 nothing new, -1
     * the device failed (message in err) */
    int (*read)(void *dev, tycho_sample *out, uint64_t *seq, char *err, size_t errlen);
    /* actuators; NULL for sensors. 0 taken, -1 refused (message in err) */
    int (*write)(void *dev, const tycho_command *cmd, char *err, size_t errlen);
} tycho_driver;

/* For drivers: a setting's value by name (settings come checked and with
 * their defaults, so a schema name is always there). */
static inline const char *tycho_setting_value(const tycho_setting *s, int n, const char *name)
{
    for (int i = 0; i < n; i++) {
        const char *a = s[i].name, *b = name;
        while (*a && *a == *b) a++, b++;
        if (*a == *b) return s[i].value;
    }
    return NULL;
}

/* The same, "" when absent (for settings that always have a default). */
static inline const char *tycho_setting_str(const tycho_setting *s, int n, const char *name)
{
    const char *v = tycho_setting_value(s, n, name);
    return v ? v : "";
}

#endif
