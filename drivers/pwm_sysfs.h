/* One hardware PWM channel through Linux sysfs (/sys/class/pwm): export,
 * period, duty cycle, enable. Every write opens, writes and closes the
 * attribute file, as the kernel's ABI expects. The root is a parameter so
 * tests can point it at a fake tree. */
#ifndef TYCHO_PWM_SYSFS_H
#define TYCHO_PWM_SYSFS_H

#include "tycho/common.h"

typedef struct tycho_pwm_sysfs tycho_pwm_sysfs;

/* Exports channel `channel` of pwmchip`chip` under root if needed (waiting
 * up to 1 s for the kernel to create it), sets the period, duty 0 and
 * enables it. */
tycho_pwm_sysfs *tycho_pwm_sysfs_open(const char *root, int chip, int channel, double period_s,
                                      tycho_err *err);
/* Pulse width in microseconds; -1 on error (errno set). */
int tycho_pwm_sysfs_set_us(tycho_pwm_sysfs *p, int us);
/* Duty 0, disabled, unexported (if we exported it). */
void tycho_pwm_sysfs_close(tycho_pwm_sysfs *p);

#endif
