/* Hardware PWM through sysfs: see pwm_sysfs.h. */
#include "pwm_sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct tycho_pwm_sysfs {
    char chip_dir[512], dir[600];
    int channel;
    long period_ns;
    bool exported_by_us;
};

static int write_attr(const char *dir, const char *name, long value)
{
    char path[700], text[32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int n = snprintf(text, sizeof text, "%ld\n", value);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t w = write(fd, text, (size_t)n);
    int e = errno;
    close(fd);
    errno = e;
    return w == n ? 0 : -1;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

tycho_pwm_sysfs *tycho_pwm_sysfs_open(const char *root, int chip, int channel, double period_s,
                                      tycho_err *err)
{
    if (chip < 0 || channel < 0 || !(period_s > 1e-6 && period_s < 1)) {
        tycho_fail(err, TYCHO_EINVAL,
                   "pwm: chip and channel must be >= 0 and the period in (1 us, 1 s)");
        return NULL;
    }
    tycho_pwm_sysfs *p = calloc(1, sizeof *p);
    if (!p) {
        tycho_fail(err, TYCHO_ENOMEM, "pwm: out of memory");
        return NULL;
    }
    snprintf(p->chip_dir, sizeof p->chip_dir, "%s/pwmchip%d", root, chip);
    snprintf(p->dir, sizeof p->dir, "%s/pwm%d", p->chip_dir, channel);
    p->channel = channel;
    p->period_ns = (long)(period_s * 1e9 + 0.5);
    if (!is_dir(p->chip_dir)) {
        tycho_fail(err, TYCHO_EIO, "pwm: %s not found (is the PWM overlay enabled?)", p->chip_dir);
        free(p);
        return NULL;
    }
    if (!is_dir(p->dir)) {
        if (write_attr(p->chip_dir, "export", channel) < 0) {
            tycho_fail(err, TYCHO_EIO, "pwm: cannot export channel %d of %s: %s", channel,
                       p->chip_dir, strerror(errno));
            free(p);
            return NULL;
        }
        p->exported_by_us = true;
        /* the kernel creates it, and udev makes it writable for the group,
         * asynchronously: wait (up to 1 s) until its duty cycle is writable */
        char duty[700];
        snprintf(duty, sizeof duty, "%s/duty_cycle", p->dir);
        for (int i = 0; i < 100 && access(duty, W_OK) != 0; i++)
            nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    /* duty first: a period shorter than the current duty is refused */
    if (write_attr(p->dir, "duty_cycle", 0) < 0 || write_attr(p->dir, "period", p->period_ns) < 0 ||
        write_attr(p->dir, "enable", 1) < 0) {
        tycho_fail(err, TYCHO_EIO, "pwm: cannot set up %s: %s", p->dir, strerror(errno));
        tycho_pwm_sysfs_close(p);
        return NULL;
    }
    return p;
}

int tycho_pwm_sysfs_set_us(tycho_pwm_sysfs *p, int us)
{
    long ns = (long)us * 1000;
    if (!p || ns < 0 || ns > p->period_ns) {
        errno = EINVAL;
        return -1;
    }
    return write_attr(p->dir, "duty_cycle", ns);
}

void tycho_pwm_sysfs_close(tycho_pwm_sysfs *p)
{
    if (!p) return;
    write_attr(p->dir, "duty_cycle", 0);
    write_attr(p->dir, "enable", 0);
    if (p->exported_by_us) write_attr(p->chip_dir, "unexport", p->channel);
    free(p);
}
