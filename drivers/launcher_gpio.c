/* Ball launcher over libgpiod with software PWM: see launcher_gpio.h. */
#include "launcher_gpio.h"

#include "gpio_lines.h"
#include "pwm_sysfs.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { LINE_ARM, LINE_ESC, LINE_FEEDER, NLINES };

struct tycho_launcher_gpio {
    tycho_gpio *gpio;                      /* arm line, and the pulse lines in software PWM */
    tycho_pwm_sysfs *esc_pwm, *feeder_pwm; /* or hardware PWM */
    double period;
    pthread_t thread;
    pthread_mutex_t mu;
    tycho_launcher seq; /* guarded by mu */
    bool stop, running;
    int esc_us, feeder_us; /* widths last written to the hardware PWM */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

void tycho_launcher_gpio_defaults(tycho_launcher_gpio_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->chip, sizeof c->chip, "/dev/gpiochip0");
    snprintf(c->sysfs_root, sizeof c->sysfs_root, "/sys/class/pwm");
    c->esc_channel = 0;
    c->feeder_channel = 1;
    c->arm_line = 17;
    c->esc_line = 18;
    c->feeder_line = 27;
    c->pwm_hz = 50;
    tycho_launcher_defaults(&c->seq);
}

/* One servo frame: both pulse lines high, each low after its width. */
static int pulse_frame(tycho_gpio *g, double t0, int esc_us, int feeder_us)
{
    int first = esc_us <= feeder_us ? LINE_ESC : LINE_FEEDER;
    int second = first == LINE_ESC ? LINE_FEEDER : LINE_ESC;
    double w1 = (first == LINE_ESC ? esc_us : feeder_us) * 1e-6;
    double w2 = (second == LINE_ESC ? esc_us : feeder_us) * 1e-6;
    if (tycho_gpio_set(g, LINE_ESC, 1) < 0 || tycho_gpio_set(g, LINE_FEEDER, 1) < 0) return -1;
    /* widths count from the rising edges as written, not from the planned
     * frame start: a thread woken late must not cut its pulses short (a
     * servo reads a short pulse as a position, an ESC as a throttle) */
    t0 = now_s();
    sleep_until(t0 + w1);
    if (tycho_gpio_set(g, first, 0) < 0) return -1;
    sleep_until(t0 + w2);
    return tycho_gpio_set(g, second, 0);
}

/* Software PWM wants to wake on time: ask for a real-time priority. Without
 * the privilege (CAP_SYS_NICE or an rtprio limit) it runs as a normal
 * thread, which is fine on an idle Pi and jittery on a loaded one. */
static void try_realtime(void)
{
    struct sched_param sp = {.sched_priority = sched_get_priority_min(SCHED_FIFO) + 10};
    (void)pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp); /* EPERM: stay SCHED_OTHER */
}

static void *pulse_thread(void *arg)
{
    tycho_launcher_gpio *l = arg;
    if (!l->esc_pwm) try_realtime();
    int arm_level = 0;
    double t0 = now_s();
    for (;;) {
        tycho_launcher_outputs out;
        pthread_mutex_lock(&l->mu);
        bool stop = l->stop;
        tycho_launcher_step(&l->seq, t0, &out);
        pthread_mutex_unlock(&l->mu);
        if (stop) break;
        int rc = 0;
        if (out.arm != arm_level) {
            rc = tycho_gpio_set(l->gpio, LINE_ARM, out.arm);
            arm_level = out.arm;
        }
        if (rc == 0 && l->esc_pwm) {
            /* hardware PWM: write a width only when it changes */
            if (out.esc_us != l->esc_us) rc = tycho_pwm_sysfs_set_us(l->esc_pwm, out.esc_us);
            if (rc == 0 && out.feeder_us != l->feeder_us)
                rc = tycho_pwm_sysfs_set_us(l->feeder_pwm, out.feeder_us);
            l->esc_us = out.esc_us;
            l->feeder_us = out.feeder_us;
        } else if (rc == 0) {
            rc = pulse_frame(l->gpio, t0, out.esc_us, out.feeder_us);
        }
        if (rc < 0) {
            int e = errno;
            pthread_mutex_lock(&l->mu);
            char why[96];
            snprintf(why, sizeof why, "gpio write failed: %s", strerror(e));
            tycho_launcher_fault(&l->seq, t0, why);
            pthread_mutex_unlock(&l->mu);
            break;
        }
        t0 += l->period;
        double now = now_s();
        if (t0 < now) t0 = now; /* late (a loaded machine): drop frames, never bunch them */
        sleep_until(t0);
    }
    /* safe state on the way out, whatever brought us here: no pulses at
     * all (an ESC without signal stops its motor), arming line low */
    for (int i = 0; i < (l->esc_pwm ? 1 : NLINES); i++) tycho_gpio_set(l->gpio, i, 0);
    if (l->esc_pwm) {
        tycho_pwm_sysfs_set_us(l->esc_pwm, 0);
        tycho_pwm_sysfs_set_us(l->feeder_pwm, 0);
    }
    pthread_mutex_lock(&l->mu);
    l->running = false;
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

tycho_launcher_gpio *tycho_launcher_gpio_open(const tycho_launcher_gpio_config *c, tycho_err *err)
{
    if (!(c->pwm_hz >= 20 && c->pwm_hz <= 400)) {
        tycho_fail(err, TYCHO_EINVAL, "launcher: pwm_hz must be in [20, 400] (got %g)", c->pwm_hz);
        return NULL;
    }
    bool soft = c->pwm == TYCHO_PWM_SOFT_GPIO;
    if (soft && (c->arm_line == c->esc_line || c->arm_line == c->feeder_line ||
                 c->esc_line == c->feeder_line)) {
        tycho_fail(err, TYCHO_EINVAL, "launcher: arm, esc and feeder lines must differ");
        return NULL;
    }
    if (!soft && c->esc_channel == c->feeder_channel) {
        tycho_fail(err, TYCHO_EINVAL, "launcher: esc and feeder PWM channels must differ");
        return NULL;
    }
    int longest =
        c->seq.esc_run_us > c->seq.feeder_push_us ? c->seq.esc_run_us : c->seq.feeder_push_us;
    if (longest * 1e-6 >= 0.9 / c->pwm_hz) {
        tycho_fail(err, TYCHO_EINVAL, "launcher: a %d us pulse does not fit a %g Hz frame", longest,
                   c->pwm_hz);
        return NULL;
    }
    tycho_launcher_gpio *l = calloc(1, sizeof *l);
    if (!l) {
        tycho_fail(err, TYCHO_ENOMEM, "launcher: out of memory");
        return NULL;
    }
    if (tycho_launcher_init(&l->seq, &c->seq, err) != TYCHO_OK) {
        free(l);
        return NULL;
    }
    const unsigned lines[NLINES] = {c->arm_line, c->esc_line, c->feeder_line};
    l->gpio = tycho_gpio_open(c->chip, lines, soft ? NLINES : 1, "tycho-launcher", err);
    if (!l->gpio) {
        free(l);
        return NULL;
    }
    l->period = 1.0 / c->pwm_hz;
    if (!soft) {
        l->esc_pwm =
            tycho_pwm_sysfs_open(c->sysfs_root, c->pwm_chip, c->esc_channel, l->period, err);
        l->feeder_pwm = l->esc_pwm ? tycho_pwm_sysfs_open(c->sysfs_root, c->pwm_chip,
                                                          c->feeder_channel, l->period, err)
                                   : NULL;
        if (!l->feeder_pwm) {
            tycho_pwm_sysfs_close(l->esc_pwm);
            tycho_gpio_close(l->gpio);
            free(l);
            return NULL;
        }
    }
    pthread_mutex_init(&l->mu, NULL);
    l->running = true;
    if (pthread_create(&l->thread, NULL, pulse_thread, l) != 0) {
        tycho_fail(err, TYCHO_EIO, "launcher: cannot start the pulse thread");
        tycho_pwm_sysfs_close(l->esc_pwm);
        tycho_pwm_sysfs_close(l->feeder_pwm);
        tycho_gpio_close(l->gpio);
        pthread_mutex_destroy(&l->mu);
        free(l);
        return NULL;
    }
    return l;
}

tycho_status tycho_launcher_gpio_arm(tycho_launcher_gpio *l, tycho_err *err)
{
    pthread_mutex_lock(&l->mu);
    tycho_status st = l->running
                          ? tycho_launcher_arm(&l->seq, now_s(), err)
                          : tycho_fail(err, TYCHO_EIO, "launcher: stopped (%s)", l->seq.fault);
    pthread_mutex_unlock(&l->mu);
    return st;
}

tycho_status tycho_launcher_gpio_fire(tycho_launcher_gpio *l, int balls, tycho_err *err)
{
    pthread_mutex_lock(&l->mu);
    tycho_status st = l->running
                          ? tycho_launcher_fire(&l->seq, balls, now_s(), err)
                          : tycho_fail(err, TYCHO_EIO, "launcher: stopped (%s)", l->seq.fault);
    pthread_mutex_unlock(&l->mu);
    return st;
}

void tycho_launcher_gpio_disarm(tycho_launcher_gpio *l)
{
    pthread_mutex_lock(&l->mu);
    tycho_launcher_disarm(&l->seq, now_s());
    pthread_mutex_unlock(&l->mu);
}

void tycho_launcher_gpio_safe_stop(tycho_launcher_gpio *l, const char *reason)
{
    pthread_mutex_lock(&l->mu);
    tycho_launcher_fault(&l->seq, now_s(), reason ? reason : "safe stop");
    pthread_mutex_unlock(&l->mu);
}

tycho_launcher_gpio_status tycho_launcher_gpio_status_get(tycho_launcher_gpio *l)
{
    tycho_launcher_gpio_status s;
    pthread_mutex_lock(&l->mu);
    s.state = l->seq.state;
    s.fired = l->seq.fired;
    s.running = l->running;
    snprintf(s.fault, sizeof s.fault, "%s", l->seq.fault);
    pthread_mutex_unlock(&l->mu);
    return s;
}

void tycho_launcher_gpio_close(tycho_launcher_gpio *l)
{
    if (!l) return;
    pthread_mutex_lock(&l->mu);
    l->stop = true;
    pthread_mutex_unlock(&l->mu);
    pthread_join(l->thread, NULL);
    tycho_pwm_sysfs_close(l->esc_pwm);
    tycho_pwm_sysfs_close(l->feeder_pwm);
    tycho_gpio_close(l->gpio);
    pthread_mutex_destroy(&l->mu);
    free(l);
}
