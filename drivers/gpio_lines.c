/* GPIO output lines over libgpiod 1.6 or 2.x: see gpio_lines.h. */
#include "gpio_lines.h"

#include <errno.h>
#include <gpiod.h>
#include <stdlib.h>
#include <string.h>

struct tycho_gpio {
    struct gpiod_chip *chip;
    int n;
    unsigned offsets[TYCHO_GPIO_MAX_LINES];
#if TYCHO_GPIOD_V2
    struct gpiod_line_request *req;
#else
    struct gpiod_line *lines[TYCHO_GPIO_MAX_LINES];
    int requested;
#endif
};

#if TYCHO_GPIOD_V2
static struct gpiod_line_request *request_v2(struct gpiod_chip *chip, const unsigned *offsets,
                                             int n, const char *consumer)
{
    struct gpiod_line_settings *s = gpiod_line_settings_new();
    struct gpiod_line_config *lc = gpiod_line_config_new();
    struct gpiod_request_config *rc = gpiod_request_config_new();
    struct gpiod_line_request *req = NULL;
    if (s && lc && rc && gpiod_line_settings_set_direction(s, GPIOD_LINE_DIRECTION_OUTPUT) == 0 &&
        gpiod_line_settings_set_output_value(s, GPIOD_LINE_VALUE_INACTIVE) == 0 &&
        gpiod_line_config_add_line_settings(lc, offsets, (size_t)n, s) == 0) {
        gpiod_request_config_set_consumer(rc, consumer);
        req = gpiod_chip_request_lines(chip, rc, lc);
    }
    gpiod_request_config_free(rc);
    gpiod_line_config_free(lc);
    gpiod_line_settings_free(s);
    return req;
}
#endif

tycho_gpio *tycho_gpio_open(const char *chip, const unsigned *offsets, int n, const char *consumer,
                            tycho_err *err)
{
    if (n < 1 || n > TYCHO_GPIO_MAX_LINES) {
        tycho_fail(err, TYCHO_EINVAL, "gpio: 1 to %d lines (got %d)", TYCHO_GPIO_MAX_LINES, n);
        return NULL;
    }
    tycho_gpio *g = calloc(1, sizeof *g);
    if (!g) {
        tycho_fail(err, TYCHO_ENOMEM, "gpio: out of memory");
        return NULL;
    }
    g->n = n;
    memcpy(g->offsets, offsets, sizeof(unsigned) * (size_t)n);
    g->chip = gpiod_chip_open(chip);
    if (!g->chip) {
        tycho_fail(err, TYCHO_EIO, "gpio: cannot open %s: %s", chip, strerror(errno));
        free(g);
        return NULL;
    }
#if TYCHO_GPIOD_V2
    g->req = request_v2(g->chip, offsets, n, consumer);
    if (!g->req) {
        tycho_fail(err, TYCHO_EIO, "gpio: cannot request lines on %s: %s", chip, strerror(errno));
        tycho_gpio_close(g);
        return NULL;
    }
#else
    for (int i = 0; i < n; i++) {
        g->lines[i] = gpiod_chip_get_line(g->chip, offsets[i]);
        if (!g->lines[i] || gpiod_line_request_output(g->lines[i], consumer, 0) < 0) {
            tycho_fail(err, TYCHO_EIO, "gpio: cannot request line %u on %s: %s", offsets[i], chip,
                       strerror(errno));
            tycho_gpio_close(g);
            return NULL;
        }
        g->requested = i + 1;
    }
#endif
    return g;
}

int tycho_gpio_set(tycho_gpio *g, int index, int value)
{
    if (!g || index < 0 || index >= g->n) return -1;
#if TYCHO_GPIOD_V2
    return gpiod_line_request_set_value(g->req, g->offsets[index],
                                        value ? GPIOD_LINE_VALUE_ACTIVE
                                              : GPIOD_LINE_VALUE_INACTIVE) < 0
               ? -1
               : 0;
#else
    return gpiod_line_set_value(g->lines[index], value ? 1 : 0) < 0 ? -1 : 0;
#endif
}

void tycho_gpio_close(tycho_gpio *g)
{
    if (!g) return;
#if TYCHO_GPIOD_V2
    if (g->req) {
        for (int i = 0; i < g->n; i++) tycho_gpio_set(g, i, 0);
        gpiod_line_request_release(g->req);
    }
#else
    for (int i = 0; i < g->requested; i++) {
        gpiod_line_set_value(g->lines[i], 0);
        gpiod_line_release(g->lines[i]);
    }
#endif
    if (g->chip) gpiod_chip_close(g->chip);
    free(g);
}
