/* The ball launcher: an arming / enable line on GPIO (libgpiod), and the
 * flywheel ESC and feeder servo as servo pulses (50 Hz) either from Linux
 * sysfs PWM channels when the board has them, or by software PWM on two
 * more GPIO lines otherwise. Its own thread generates the pulses and
 * runs the sequencer (core launcher.h); commands come from any thread and
 * never block on the hardware. Any GPIO error faults the launcher into the
 * safe state (flywheels off, feeder at rest, arming line low). */
#ifndef TYCHO_LAUNCHER_GPIO_H
#define TYCHO_LAUNCHER_GPIO_H

#include "tycho/launcher.h"

typedef enum { TYCHO_PWM_SOFT_GPIO = 0, TYCHO_PWM_SYSFS } tycho_pwm_mode;

typedef struct {
    char chip[128]; /* e.g. /dev/gpiochip0 */
    unsigned arm_line;
    tycho_pwm_mode pwm;
    unsigned esc_line, feeder_line; /* TYCHO_PWM_SOFT_GPIO */
    char sysfs_root[256];           /* TYCHO_PWM_SYSFS: /sys/class/pwm */
    int pwm_chip, esc_channel, feeder_channel;
    double pwm_hz; /* servo frame rate, 50 by default */
    tycho_launcher_params seq;
} tycho_launcher_gpio_config;

typedef struct tycho_launcher_gpio tycho_launcher_gpio;

typedef struct {
    tycho_launcher_state state;
    int fired;
    bool running; /* the pulse thread is alive */
    char fault[128];
} tycho_launcher_gpio_status;

void tycho_launcher_gpio_defaults(tycho_launcher_gpio_config *c);
tycho_launcher_gpio *tycho_launcher_gpio_open(const tycho_launcher_gpio_config *c, tycho_err *err);
tycho_status tycho_launcher_gpio_arm(tycho_launcher_gpio *l, tycho_err *err);
tycho_status tycho_launcher_gpio_fire(tycho_launcher_gpio *l, int balls, tycho_err *err);
void tycho_launcher_gpio_disarm(tycho_launcher_gpio *l);
/* The runtime's safe stop: the same as a fault, reason given. */
void tycho_launcher_gpio_safe_stop(tycho_launcher_gpio *l, const char *reason);
tycho_launcher_gpio_status tycho_launcher_gpio_status_get(tycho_launcher_gpio *l);
/* Safe outputs, pulse thread stopped, lines released. */
void tycho_launcher_gpio_close(tycho_launcher_gpio *l);

#endif
