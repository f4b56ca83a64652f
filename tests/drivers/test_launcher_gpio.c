/* The GPIO launcher driver (drivers/launcher_gpio.c, gpio_lines.c) against
 * the fake libgpiod: the driver's real calls, the line changes they make,
 * with timestamps. Built twice: libgpiod 1.6 API and 2.x API. */
#include "check.h"
#include "fake_gpiod.h"
#include "launcher_gpio.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHIP "/dev/gpiochip-fake"
enum { ARM = 5, ESC = 6, FEEDER = 7 };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static tycho_launcher_gpio_config config(void)
{
    tycho_launcher_gpio_config c;
    tycho_launcher_gpio_defaults(&c);
    snprintf(c.chip, sizeof c.chip, CHIP);
    c.arm_line = ARM;
    c.esc_line = ESC;
    c.feeder_line = FEEDER;
    c.seq.spin_up_s = 0.2;
    c.seq.feed_s = 0.1;
    c.seq.feed_interval_s = 0.1;
    c.seq.spin_down_s = 0.1;
    return c;
}

typedef struct {
    double t, width;
} pulse;

/* Pulses (rising edge time, width) of one line within [t0, t1). */
static int pulses(const fake_gpiod_event *ev, size_t n, unsigned line, double t0, double t1,
                  pulse *out, int cap)
{
    int k = 0;
    double rise = -1;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].offset != line) continue;
        if (ev[i].value) rise = ev[i].t;
        else if (rise >= t0 && rise < t1 && k < cap) out[k++] = (pulse){rise, ev[i].t - rise};
    }
    return k;
}

static double median_width(pulse *p, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && p[j].width < p[j - 1].width; j--) {
            pulse t = p[j];
            p[j] = p[j - 1];
            p[j - 1] = t;
        }
    return n ? p[n / 2].width : 0;
}

static void test_sequence_and_timings(void)
{
    fake_gpiod_reset(CHIP, 16);
    tycho_launcher_gpio_config c = config();
    tycho_err err = {0};
    tycho_launcher_gpio *l = tycho_launcher_gpio_open(&c, &err);
    CHECK_MSG(l != NULL, "%s", err.msg);
    if (!l) return;
    CHECK(fake_gpiod_requested() == 3);
    usleep(100000);
    double t_arm = now_s();
    CHECK(tycho_launcher_gpio_arm(l, &err) == TYCHO_OK);
    usleep(60000);
    CHECK(fake_gpiod_level(ARM) == 1);
    double t_fire = now_s();
    CHECK(tycho_launcher_gpio_fire(l, 2, &err) == TYCHO_OK);
    /* spin-up 0.2 + 2 balls (0.1 + 0.1 gap + 0.1) + spin-down 0.1 = 0.6 s */
    usleep(900000);
    tycho_launcher_gpio_status st = tycho_launcher_gpio_status_get(l);
    CHECK(st.fired == 2 && st.state == TYCHO_LAUNCHER_ARMED && st.running);
    tycho_launcher_gpio_disarm(l);
    usleep(60000);
    CHECK(fake_gpiod_level(ARM) == 0);
    tycho_launcher_gpio_close(l);
    CHECK(fake_gpiod_requested() == 0);

    size_t n;
    fake_gpiod_event *ev = fake_gpiod_events(&n);
    static pulse p[4096];
    /* before arming: idle ESC pulses at 50 Hz, feeder at rest */
    int k = pulses(ev, n, ESC, 0, t_arm, p, 4096);
    CHECK(k >= 3);
    CHECK_MSG(fabs(median_width(p, k) - 0.0010) < 0.0003, "idle ESC pulse %.0f us",
              median_width(p, k) * 1e6);
    /* frames 20 ms apart */
    k = pulses(ev, n, ESC, t_fire, t_fire + 0.6, p, 4096);
    /* ~30 frames; a loaded machine drops some (never bunches them) */
    CHECK_MSG(k >= 10 && k <= 32, "%d ESC frames in 0.6 s", k);
    /* feeder: pushes only after the spin-up, in two groups of ~0.1 s */
    k = pulses(ev, n, FEEDER, t_fire, t_fire + 1.0, p, 4096);
    /* a push (0.1 s = 5 frames) is a run of at least three wide frames: a
     * wide rest pulse or two is scheduling jitter (the pulse thread
     * descheduled mid-pulse on a loaded machine), not a push. Likewise a
     * lone narrow frame inside a run is a rising edge written late (the
     * thread descheduled between the two line writes), not the end of a
     * push: runs separated by fewer than two narrow frames are one push
     * (the real gap between balls is 0.1 s, five frames). */
    int pushes = 0, groups = 0;
    /* first_sure: the first push's third wide frame, when the run became a
     * push (a jittered rest frame or two at its head start the run early:
     * once under ASan beside the other tests the run began 0.17 s after
     * fire, its real push frames after 0.2 s) */
    double first_push = -1, last_push = -1, first_sure = -1;
    int run_start = -1, run_wide = 0, narrow = 0;
    for (int i = 0; i <= k; i++) {
        bool wide = i < k && p[i].width >= 0.0015;
        if (wide) {
            if (run_start < 0) run_start = i;
            run_wide++;
            narrow = 0;
            last_push = run_wide >= 3 ? p[i].t : last_push;
            if (run_wide == 3 && first_sure < 0) first_sure = p[i].t;
            continue;
        }
        if (run_start >= 0 && (++narrow >= 2 || i == k)) {
            if (run_wide >= 3) {
                groups++;
                pushes += run_wide;
                if (first_push < 0) first_push = p[run_start].t;
            }
            run_start = -1;
            run_wide = 0;
        }
    }
    CHECK_MSG(first_sure - t_fire >= 0.19,
              "first push (its third frame) %.3f s after fire (spin-up 0.2 s)",
              first_sure - t_fire);
    CHECK_MSG(groups == 2, "%d groups of feeder pushes (2 balls)", groups);
    if (groups != 2)
        for (int i = 0; i < k; i++)
            fprintf(stderr, "  feeder %.4f s %.0f us\n", p[i].t - t_fire, p[i].width * 1e6);
    CHECK_MSG(pushes >= 6 && pushes <= 14, "%d push frames (2 x 0.1 s at 50 Hz)", pushes);
    /* the ESC runs while feeding */
    k = pulses(ev, n, ESC, first_push, last_push, p, 4096);
    CHECK_MSG(k > 0 && fabs(median_width(p, k) - 0.0016) < 0.0003, "running ESC pulse %.0f us",
              median_width(p, k) * 1e6);
    /* every line ends low */
    for (unsigned line = ARM; line <= FEEDER; line++) {
        int last = -1;
        for (size_t i = 0; i < n; i++)
            if (ev[i].offset == line) last = ev[i].value;
        CHECK(last == 0);
    }
    free(ev);
}

static void test_gpio_error_leaves_it_safe(void)
{
    fake_gpiod_reset(CHIP, 16);
    tycho_launcher_gpio_config c = config();
    tycho_launcher_gpio *l = tycho_launcher_gpio_open(&c, NULL);
    CHECK(l != NULL);
    if (!l) return;
    tycho_launcher_gpio_arm(l, NULL);
    tycho_launcher_gpio_fire(l, 3, NULL);
    usleep(250000);           /* feeding */
    fake_gpiod_fail_after(2); /* the line driver dies mid-frame */
    usleep(100000);
    tycho_launcher_gpio_status st = tycho_launcher_gpio_status_get(l);
    CHECK(st.state == TYCHO_LAUNCHER_FAULT && !st.running);
    CHECK_MSG(strstr(st.fault, "gpio write failed") != NULL, "fault '%s'", st.fault);
    tycho_err err = {0};
    CHECK(tycho_launcher_gpio_fire(l, 1, &err) != TYCHO_OK);
    CHECK(tycho_launcher_gpio_arm(l, &err) != TYCHO_OK);
    fake_gpiod_fail_after(-1);
    tycho_launcher_gpio_close(l);
    /* after the error the driver drove every line low: the last recorded
     * value of each line is 0 (writes that failed were not recorded) */
    size_t n;
    fake_gpiod_event *ev = fake_gpiod_events(&n);
    for (unsigned line = ARM; line <= FEEDER; line++) {
        int last = -1;
        for (size_t i = 0; i < n; i++)
            if (ev[i].offset == line) last = ev[i].value;
        CHECK_MSG(last == 0, "line %u last %d", line, last);
    }
    free(ev);
}

static void test_safe_stop_and_bad_config(void)
{
    fake_gpiod_reset(CHIP, 16);
    tycho_launcher_gpio_config c = config();
    tycho_launcher_gpio *l = tycho_launcher_gpio_open(&c, NULL);
    CHECK(l != NULL);
    if (!l) return;
    tycho_launcher_gpio_arm(l, NULL);
    tycho_launcher_gpio_fire(l, 1, NULL);
    usleep(100000);
    tycho_launcher_gpio_safe_stop(l, "safe stop from the console");
    usleep(60000);
    CHECK(fake_gpiod_level(ARM) == 0);
    tycho_launcher_gpio_status st = tycho_launcher_gpio_status_get(l);
    CHECK(st.state == TYCHO_LAUNCHER_FAULT && st.fired == 0);
    tycho_launcher_gpio_close(l);

    tycho_err err = {0};
    snprintf(c.chip, sizeof c.chip, "/dev/gpiochip-missing");
    CHECK(tycho_launcher_gpio_open(&c, &err) == NULL &&
          strstr(err.msg, "cannot open /dev/gpiochip-missing"));
    c = config();
    c.feeder_line = 40; /* beyond the chip's 16 lines */
    CHECK(tycho_launcher_gpio_open(&c, &err) == NULL && strstr(err.msg, "cannot request"));
    CHECK(fake_gpiod_requested() == 0); /* nothing left claimed */
    c = config();
    c.esc_line = ARM;
    CHECK(tycho_launcher_gpio_open(&c, &err) == NULL && strstr(err.msg, "must differ"));
}

int main(void)
{
    test_sequence_and_timings();
    test_gpio_error_leaves_it_safe();
    test_safe_stop_and_bad_config();
#if TYCHO_GPIOD_V2
    return check_summary("launcher_gpio (libgpiod 2.x API)");
#else
    return check_summary("launcher_gpio (libgpiod 1.6 API)");
#endif
}
