/* Output lines on one GPIO chip through libgpiod, 1.6 (Debian bookworm) or
 * 2.x, chosen at build time (TYCHO_GPIOD_V2). The rest of the drivers see
 * only this. */
#ifndef TYCHO_GPIO_LINES_H
#define TYCHO_GPIO_LINES_H

#include "tycho/common.h"

#define TYCHO_GPIO_MAX_LINES 8

typedef struct tycho_gpio tycho_gpio;

/* Requests n lines (offsets on `chip`: a path such as /dev/gpiochip0) as
 * outputs, all low. */
tycho_gpio *tycho_gpio_open(const char *chip, const unsigned *offsets, int n, const char *consumer,
                            tycho_err *err);
/* Line `index` (0-based, in the order given to open) to value 0 or 1; -1 on error. */
int tycho_gpio_set(tycho_gpio *g, int index, int value);
/* Lines low, then released. */
void tycho_gpio_close(tycho_gpio *g);

#endif
