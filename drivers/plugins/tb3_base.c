/* Driver plugin: the TurtleBot3 base (OpenCR over DYNAMIXEL 2.0), a
 * differential drive base. See drivers/tb3_base.h. */
#include "../tb3_base.h"
#include "tycho/driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const tycho_setting_schema SETTINGS[] = {
    {"port", TYCHO_SETTING_STRING, "/dev/ttyACM0", "the OpenCR's USB serial port"},
    {"baud", TYCHO_SETTING_INT, "1000000", "baud rate"},
    {"id", TYCHO_SETTING_INT, "200", "the board's DYNAMIXEL id"},
    {"wheel_radius", TYCHO_SETTING_NUMBER, "0.033", "m"},
    {"wheel_separation", TYCHO_SETTING_NUMBER, "0.160", "m"},
    {"rate_hz", TYCHO_SETTING_NUMBER, "50", "polling rate"},
    {"cmd_timeout", TYCHO_SETTING_NUMBER, "0.5",
     "s without a command before the wheels are stopped"},
    {NULL, 0, NULL, NULL}};

static void *open_base(const tycho_setting *s, int n, char *err, size_t errlen)
{
    tycho_tb3_config c;
    tycho_tb3_defaults(&c);
    snprintf(c.port, sizeof c.port, "%s", tycho_setting_str(s, n, "port"));
    c.baud = (int)strtol(tycho_setting_str(s, n, "baud"), NULL, 0);
    c.id = (int)strtol(tycho_setting_str(s, n, "id"), NULL, 0);
    c.wheel_radius = strtod(tycho_setting_str(s, n, "wheel_radius"), NULL);
    c.wheel_separation = strtod(tycho_setting_str(s, n, "wheel_separation"), NULL);
    c.rate_hz = strtod(tycho_setting_str(s, n, "rate_hz"), NULL);
    c.cmd_timeout_s = strtod(tycho_setting_str(s, n, "cmd_timeout"), NULL);
    tycho_err e = {0};
    tycho_tb3 *b = tycho_tb3_open(&c, &e);
    if (!b) snprintf(err, errlen, "%s", e.msg);
    return b;
}

static void close_base(void *dev) { tycho_tb3_close(dev); }

static int read_base(void *dev, tycho_sample *out, uint64_t *seq, char *err, size_t errlen)
{
    tycho_tb3_state st = tycho_tb3_state_get(dev);
    if (!st.ok) {
        snprintf(err, errlen, "%s", st.error);
        return -1;
    }
    if ((uint64_t)st.samples <= *seq) return 0;
    memset(out, 0, sizeof *out);
    out->kind = TYCHO_DEVICE_DIFF_BASE;
    out->t = st.t;
    out->seq = *seq = (uint64_t)st.samples;
    out->u.base.x = st.x;
    out->u.base.y = st.y;
    out->u.base.yaw = st.yaw;
    out->u.base.v = st.v;
    out->u.base.w = st.w;
    out->u.base.roll = st.roll;
    out->u.base.pitch = st.pitch;
    out->u.base.gyro_z = st.gyro_z;
    out->u.base.ok = 1;
    if (st.watchdog_stops)
        snprintf(out->status, sizeof out->status, "command watchdog stopped the wheels %ld time(s)",
                 st.watchdog_stops);
    return 1;
}

static int write_base(void *dev, const tycho_command *cmd, char *err, size_t errlen)
{
    if (cmd->type == TYCHO_CMD_VELOCITY) tycho_tb3_command(dev, cmd->v, cmd->w);
    else if (cmd->type == TYCHO_CMD_SAFE_STOP) tycho_tb3_command(dev, 0, 0);
    else {
        snprintf(err, errlen, "a base takes velocity and safe_stop commands");
        return -1;
    }
    return 0;
}

const tycho_driver tycho_driver_descriptor = {TYCHO_DRIVER_ABI, "tb3_base", TYCHO_DEVICE_DIFF_BASE,
                                              SETTINGS,         open_base,  close_base,
                                              read_base,        write_base};
