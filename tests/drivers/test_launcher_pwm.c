/* The launcher driver with hardware PWM through sysfs, against a fake
 * /sys/class/pwm: attribute files are FIFOs read by recorder threads, so
 * every write the driver makes is recorded with its time; writing `export`
 * creates the channel's folder as the kernel would. The arming line goes
 * through the fake libgpiod. */
#include "check.h"
#include "fake_gpiod.h"
#include "launcher_gpio.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHIP "/dev/gpiochip-fake"
enum { ARM = 5 };

typedef struct {
    double t;
    char attr[64]; /* e.g. "pwm0/duty_cycle" */
    long value;
} write_rec;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static write_rec recs[100000];
static int nrecs;
static char root[256];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void make_channel(int ch);

/* Records every line written to one FIFO attribute, forever. The FIFO is
 * held open read-write so that it always has a reader: a writer's open
 * never waits, and a write that lands while we would be reopening it (the
 * kernel drops a pipe's data when its last reader closes) is never lost.
 * Writes of a line are atomic (shorter than PIPE_BUF); a read can still
 * end inside a line when several arrive together, so the tail is kept. */
static void *recorder(void *arg)
{
    char *rel = arg, path[512];
    snprintf(path, sizeof path, "%s/pwmchip0/%s", root, rel);
    int fd = open(path, O_RDWR);
    if (fd < 0) return NULL;
    char buf[512];
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fd, buf + len, sizeof buf - 1 - len);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            close(fd);
            return NULL;
        }
        len += (size_t)n;
        char *start = buf, *nl;
        while ((nl = memchr(start, '\n', len - (size_t)(start - buf)))) {
            *nl = 0;
            long v = strtol(start, NULL, 10);
            start = nl + 1;
            pthread_mutex_lock(&mu);
            if (nrecs < (int)(sizeof recs / sizeof recs[0])) {
                recs[nrecs].t = now_s();
                snprintf(recs[nrecs].attr, sizeof recs[nrecs].attr, "%s", rel);
                recs[nrecs].value = v;
                nrecs++;
            }
            pthread_mutex_unlock(&mu);
            if (!strcmp(rel, "export")) make_channel((int)v); /* the kernel's part */
        }
        len -= (size_t)(start - buf);
        memmove(buf, start, len);
        if (len == sizeof buf - 1) len = 0; /* a line longer than any attribute: drop it */
    }
}

static void fifo(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/pwmchip0/%s", root, rel);
    mkfifo(path, 0600);
    pthread_t t;
    pthread_create(&t, NULL, recorder, strdup(rel));
    pthread_detach(t);
}

static void make_channel(int ch)
{
    /* the folder appears with its attributes in it, as the kernel's does:
     * built aside, then renamed into place */
    char dir[512], tmp[512], path[600], rel[64];
    snprintf(dir, sizeof dir, "%s/pwmchip0/pwm%d", root, ch);
    snprintf(tmp, sizeof tmp, "%s/pwmchip0/.new%d", root, ch);
    mkdir(tmp, 0700);
    const char *attrs[] = {"period", "duty_cycle", "enable"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", tmp, attrs[i]);
        mkfifo(path, 0600);
    }
    rename(tmp, dir);
    for (int i = 0; i < 3; i++) {
        snprintf(rel, sizeof rel, "pwm%d/%s", ch, attrs[i]);
        pthread_t t;
        pthread_create(&t, NULL, recorder, strdup(rel));
        pthread_detach(t);
    }
}

/* Values written to one attribute after time t0, in order; a value
 * written again (the safe state is written on the way out and on close)
 * counts once. */
static int values(const char *attr, double t0, long *out, double *when, int cap)
{
    int k = 0;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < nrecs && k < cap; i++)
        if (!strcmp(recs[i].attr, attr) && recs[i].t >= t0 &&
            !(k > 0 && out[k - 1] == recs[i].value)) {
            out[k] = recs[i].value;
            if (when) when[k] = recs[i].t;
            k++;
        }
    pthread_mutex_unlock(&mu);
    return k;
}

static tycho_launcher_gpio_config config(void)
{
    tycho_launcher_gpio_config c;
    tycho_launcher_gpio_defaults(&c);
    snprintf(c.chip, sizeof c.chip, CHIP);
    c.arm_line = ARM;
    c.pwm = TYCHO_PWM_SYSFS;
    snprintf(c.sysfs_root, sizeof c.sysfs_root, "%s", root);
    c.pwm_chip = 0;
    c.esc_channel = 0;
    c.feeder_channel = 1;
    c.seq.spin_up_s = 0.2;
    c.seq.feed_s = 0.1;
    c.seq.feed_interval_s = 0.1;
    c.seq.spin_down_s = 0.1;
    return c;
}

static void test_sequence(void)
{
    fake_gpiod_reset(CHIP, 16);
    tycho_launcher_gpio_config c = config();
    tycho_err err = {0};
    double t_open = now_s();
    tycho_launcher_gpio *l = tycho_launcher_gpio_open(&c, &err);
    CHECK_MSG(l != NULL, "%s", err.msg);
    if (!l) return;
    long v[64];
    double when[64];
    usleep(150000); /* let the recorders catch up */
    CHECK(values("export", t_open, v, NULL, 64) == 2 && v[0] == 0 && v[1] == 1);
    CHECK(values("pwm0/period", t_open, v, NULL, 64) == 1 && v[0] == 20000000);
    CHECK(values("pwm1/enable", t_open, v, NULL, 64) == 1 && v[0] == 1);
    usleep(60000);
    tycho_launcher_gpio_arm(l, NULL);
    usleep(60000);
    CHECK(fake_gpiod_level(ARM) == 1);
    double t_fire = now_s();
    CHECK(tycho_launcher_gpio_fire(l, 2, &err) == TYCHO_OK);
    usleep(900000);
    tycho_launcher_gpio_close(l);
    usleep(150000); /* let the recorders catch up */
    CHECK(fake_gpiod_level(ARM) == -1 && fake_gpiod_requested() == 0);
    /* ESC: idle, run from the fire command, idle after the spin-down, then off */
    int k = values("pwm0/duty_cycle", t_fire, v, when, 64);
    CHECK_MSG(k == 3 && v[0] == 1600000 && v[1] == 1000000 && v[2] == 0, "%d ESC writes", k);
    if (k == 3)
        CHECK_MSG(fabs(when[1] - t_fire - 0.6) < 0.1, "spin-down ended %.3f s after fire",
                  when[1] - t_fire);
    /* feeder: push, rest, push, rest, then off; the first push after the spin-up */
    k = values("pwm1/duty_cycle", t_fire, v, when, 64);
    for (int i = 0; i < k && check_failed; i++)
        fprintf(stderr, "  feeder %.3f %ld\n", when[i] - t_fire, v[i]);
    CHECK_MSG(k == 5 && v[0] == 2000000 && v[1] == 1000000 && v[2] == 2000000 && v[3] == 1000000 &&
                  v[4] == 0,
              "%d feeder writes", k);
    if (k == 5) {
        CHECK_MSG(when[0] - t_fire >= 0.19 && when[0] - t_fire < 0.32,
                  "first push %.3f s after fire", when[0] - t_fire);
        CHECK_MSG(fabs(when[1] - when[0] - 0.1) < 0.06, "push held %.3f s", when[1] - when[0]);
        CHECK_MSG(fabs(when[2] - when[1] - 0.1) < 0.06, "gap %.3f s", when[2] - when[1]);
    }
    CHECK(values("pwm0/enable", t_fire, v, NULL, 64) == 1 && v[0] == 0);
    CHECK(values("unexport", t_fire, v, NULL, 64) == 2 && v[0] == 0 && v[1] == 1);
}

static void test_write_error_leaves_it_safe(void)
{
    fake_gpiod_reset(CHIP, 16);
    tycho_launcher_gpio_config c = config();
    tycho_launcher_gpio *l = tycho_launcher_gpio_open(&c, NULL);
    CHECK(l != NULL);
    if (!l) return;
    tycho_launcher_gpio_arm(l, NULL);
    tycho_launcher_gpio_fire(l, 2, NULL);
    usleep(100000);
    /* the feeder's channel disappears (overlay unloaded, cable...): the
     * next write fails */
    char path[512];
    snprintf(path, sizeof path, "%s/pwmchip0/pwm1/duty_cycle", root);
    unlink(path);
    usleep(300000);
    tycho_launcher_gpio_status st = tycho_launcher_gpio_status_get(l);
    CHECK(st.state == TYCHO_LAUNCHER_FAULT && !st.running);
    CHECK_MSG(strstr(st.fault, "write failed") != NULL, "fault '%s'", st.fault);
    CHECK(fake_gpiod_level(ARM) == 0); /* disarmed at once */
    long v[64];
    int k = values("pwm0/duty_cycle", 0, v, NULL, 64);
    CHECK(k > 0 && v[k - 1] == 0); /* flywheels: no signal, motor stopped */
    tycho_launcher_gpio_close(l);
}

static void test_missing_chip(void)
{
    fake_gpiod_reset(CHIP, 16);
    tycho_launcher_gpio_config c = config();
    c.pwm_chip = 3;
    tycho_err err = {0};
    CHECK(tycho_launcher_gpio_open(&c, &err) == NULL && strstr(err.msg, "pwmchip3 not found"));
    CHECK(fake_gpiod_requested() == 0);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/tycho-fake-pwm-%d", (int)getpid());
    char dir[300];
    snprintf(dir, sizeof dir, "%s/pwmchip0", root);
    mkdir(root, 0700);
    mkdir(dir, 0700);
    fifo("export");
    fifo("unexport");
    test_sequence();
    test_write_error_leaves_it_safe();
    test_missing_chip();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    return check_summary("launcher with sysfs PWM");
}
