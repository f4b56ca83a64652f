/* Driver plugin: the ball launcher (drivers/launcher_gpio.h): arming line
 * on GPIO, ESC and feeder by software PWM on GPIO or sysfs PWM. */
#include "../launcher_gpio.h"
#include "tycho/driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const tycho_setting_schema SETTINGS[] = {
    {"chip", TYCHO_SETTING_STRING, "/dev/gpiochip0", "GPIO chip"},
    {"arm_line", TYCHO_SETTING_INT, "17", "arming / enable line"},
    {"pwm", TYCHO_SETTING_STRING, "gpio", "gpio (software PWM) or sysfs"},
    {"esc_line", TYCHO_SETTING_INT, "18", "gpio: flywheel ESC line"},
    {"feeder_line", TYCHO_SETTING_INT, "27", "gpio: feeder servo line"},
    {"sysfs_root", TYCHO_SETTING_STRING, "/sys/class/pwm", "sysfs: the PWM class folder"},
    {"pwm_chip", TYCHO_SETTING_INT, "0", "sysfs: pwmchipN"},
    {"esc_channel", TYCHO_SETTING_INT, "0", "sysfs: ESC channel"},
    {"feeder_channel", TYCHO_SETTING_INT, "1", "sysfs: feeder channel"},
    {"spin_up", TYCHO_SETTING_NUMBER, "1.0", "s"},
    {"feed", TYCHO_SETTING_NUMBER, "0.25", "s per ball"},
    {"feed_interval", TYCHO_SETTING_NUMBER, "0.35", "s between balls"},
    {"spin_down", TYCHO_SETTING_NUMBER, "0.5", "s"},
    {NULL, 0, NULL, NULL}};

static long num_i(const tycho_setting *s, int n, const char *k)
{
    return strtol(tycho_setting_str(s, n, k), NULL, 0);
}
static double num_d(const tycho_setting *s, int n, const char *k)
{
    return strtod(tycho_setting_str(s, n, k), NULL);
}

static void *open_launcher(const tycho_setting *s, int n, char *err, size_t errlen)
{
    tycho_launcher_gpio_config c;
    tycho_launcher_gpio_defaults(&c);
    snprintf(c.chip, sizeof c.chip, "%s", tycho_setting_str(s, n, "chip"));
    const char *pwm = tycho_setting_str(s, n, "pwm");
    if (strcmp(pwm, "gpio") && strcmp(pwm, "sysfs")) {
        snprintf(err, errlen, "setting 'pwm' must be gpio or sysfs (got '%s')", pwm);
        return NULL;
    }
    c.pwm = !strcmp(pwm, "sysfs") ? TYCHO_PWM_SYSFS : TYCHO_PWM_SOFT_GPIO;
    c.arm_line = (unsigned)num_i(s, n, "arm_line");
    c.esc_line = (unsigned)num_i(s, n, "esc_line");
    c.feeder_line = (unsigned)num_i(s, n, "feeder_line");
    snprintf(c.sysfs_root, sizeof c.sysfs_root, "%s", tycho_setting_str(s, n, "sysfs_root"));
    c.pwm_chip = (int)num_i(s, n, "pwm_chip");
    c.esc_channel = (int)num_i(s, n, "esc_channel");
    c.feeder_channel = (int)num_i(s, n, "feeder_channel");
    c.seq.spin_up_s = num_d(s, n, "spin_up");
    c.seq.feed_s = num_d(s, n, "feed");
    c.seq.feed_interval_s = num_d(s, n, "feed_interval");
    c.seq.spin_down_s = num_d(s, n, "spin_down");
    tycho_err e = {0};
    tycho_launcher_gpio *l = tycho_launcher_gpio_open(&c, &e);
    if (!l) snprintf(err, errlen, "%s", e.msg);
    return l;
}

static void close_launcher(void *dev) { tycho_launcher_gpio_close(dev); }

static int read_launcher(void *dev, tycho_sample *out, uint64_t *seq, char *err, size_t errlen)
{
    tycho_launcher_gpio_status st = tycho_launcher_gpio_status_get(dev);
    memset(out, 0, sizeof *out);
    out->kind = TYCHO_DEVICE_LAUNCHER;
    out->seq = ++*seq; /* a state, always fresh */
    out->u.launcher.state = (int)st.state;
    out->u.launcher.fired = st.fired;
    out->u.launcher.running = st.running;
    snprintf(out->status, sizeof out->status, "%s%s%.100s", tycho_launcher_state_name(st.state),
             st.fault[0] ? ": " : "", st.fault);
    (void)err;
    (void)errlen;
    return 1;
}

static int write_launcher(void *dev, const tycho_command *cmd, char *err, size_t errlen)
{
    tycho_err e = {0};
    tycho_status st = TYCHO_OK;
    switch (cmd->type) {
    case TYCHO_CMD_ARM:
        st = tycho_launcher_gpio_arm(dev, &e);
        break;
    case TYCHO_CMD_FIRE:
        st = tycho_launcher_gpio_fire(dev, cmd->count, &e);
        break;
    case TYCHO_CMD_DISARM:
        tycho_launcher_gpio_disarm(dev);
        break;
    case TYCHO_CMD_SAFE_STOP:
        tycho_launcher_gpio_safe_stop(dev, "safe stop");
        break;
    default:
        snprintf(e.msg, sizeof e.msg, "a launcher takes arm, fire, disarm and safe_stop");
        st = TYCHO_EINVAL;
    }
    if (st != TYCHO_OK) snprintf(err, errlen, "%s", e.msg);
    return st == TYCHO_OK ? 0 : -1;
}

const tycho_driver tycho_driver_descriptor = {
    TYCHO_DRIVER_ABI, "launcher_gpio", TYCHO_DEVICE_LAUNCHER, SETTINGS,
    open_launcher,    close_launcher,  read_launcher,         write_launcher};
