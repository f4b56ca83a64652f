/* LD_PRELOAD form of the fake libgpiod (tests/fake/fake_gpiod.c) for the
 * hardware-in-the-loop test: TYCHO_FAKE_GPIO_CHIP names the chip (32
 * lines) and every line change is appended to TYCHO_FAKE_GPIO_LOG as a
 * text line "t offset value" (t: CLOCK_MONOTONIC seconds), which the
 * simulator side reads to learn what the launcher did. */
#include "fake_gpiod.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int log_fd = -1;

static void record(double t, unsigned offset, int value)
{
    char line[64];
    int n = snprintf(line, sizeof line, "%.6f %u %d\n", t, offset, value);
    if (log_fd >= 0 && write(log_fd, line, (size_t)n) != n) {
        /* the reader lost a change: nothing to do from inside a line write */
    }
}

__attribute__((constructor)) static void from_env(void)
{
    const char *chip = getenv("TYCHO_FAKE_GPIO_CHIP"), *log = getenv("TYCHO_FAKE_GPIO_LOG");
    if (!chip) return;
    fake_gpiod_reset(chip, 32);
    if (log) {
        log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (log_fd < 0) perror(log);
        else fake_gpiod_listen(record);
    }
}
