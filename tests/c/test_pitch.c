/* Pitch anomaly detector on synthetic IMU traces. */
#include "check.h"
#include "tycho/pitch.h"

#include <math.h>
#include <string.h>

static uint64_t lcg = 777;
static double urand(void)
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return ((lcg >> 11) + 0.5) * 0x1p-53;
}
static double gauss(void) { return sqrt(-2 * log(urand())) * cos(2 * M_PI * urand()); }

/* Pushes a flat noisy trace from t0 for `secs` at `hz`; returns the number
 * of anomalous samples. *t ends at the next sample time. */
static int flat(tycho_pitch *d, double *t, double secs, double hz, double sigma)
{
    int bad = 0;
    int n = (int)lround(secs * hz);
    for (int i = 0; i < n; i++, *t += 1.0 / hz) {
        tycho_pitch_state st;
        CHECK(tycho_pitch_push(d, *t, sigma * gauss(), &st, NULL) == TYCHO_OK);
        bad += st.anomaly;
    }
    return bad;
}

/* Drives onto a ramp of `pitch` rad (0.2 s transition); returns the delay
 * from the onset to the first anomaly (or inf) and the last state. */
static double ramp(tycho_pitch *d, double *t, double hz, double pitch, double secs,
                   tycho_pitch_state *last)
{
    double onset = *t, first = INFINITY;
    int n = (int)lround(secs * hz);
    for (int i = 0; i < n; i++, *t += 1.0 / hz) {
        double u = (*t - onset) / 0.2;
        double p = pitch * (u < 1 ? u : 1) + 0.005 * gauss();
        CHECK(tycho_pitch_push(d, *t, p, last, NULL) == TYCHO_OK);
        if (last->anomaly && isinf(first)) first = *t - onset;
    }
    return first;
}

static void test_flat_and_ramp(void)
{
    tycho_pitch *d = tycho_pitch_new(NULL, NULL);
    double t = 100.0;
    /* a minute of flat ground at 50 Hz with 0.005 rad noise: never */
    CHECK(flat(d, &t, 60, 50, 0.005) == 0);
    tycho_pitch_state st;
    tycho_pitch_get_state(d, &st);
    CHECK_NEAR(st.long_avg, 0.005 * sqrt(2 / M_PI), 0.001); /* mean |N(0, s)| */
    CHECK(st.samples == 25);
    /* a 0.2 rad ramp: both tests fire, within the window of the onset */
    double delay = ramp(d, &t, 50, 0.2, 2.0, &st);
    CHECK_MSG(delay <= 0.5, "detected after %g s", delay);
    CHECK(delay >= 0.1); /* not before the window holds ramp samples */
    CHECK(st.anomaly && st.relative && st.absolute);
    CHECK_NEAR(st.short_avg, 0.2, 0.01);
    /* the baseline did not learn the ramp */
    CHECK(st.long_avg < 0.01);
    /* back on the flat: clears within a window */
    int bad = flat(d, &t, 0.6, 50, 0.005);
    CHECK(bad > 0 && bad <= 25);
    CHECK(flat(d, &t, 5, 50, 0.005) == 0);
    tycho_pitch_free(d);
}

static void test_gentle_ramp_relative_only(void)
{
    tycho_pitch *d = tycho_pitch_new(NULL, NULL);
    double t = 0;
    CHECK(flat(d, &t, 20, 50, 0.005) == 0);
    tycho_pitch_state st;
    /* 4.6 deg: > 3 x floor, < 0.12. Close to the trigger level (0.06) most
     * of the window must be on the ramp, so it takes longer than a steep one */
    double delay = ramp(d, &t, 50, 0.08, 2.0, &st);
    CHECK_MSG(delay > 0.4 && delay <= 0.7, "detected after %g s", delay);
    CHECK(st.anomaly && st.relative && !st.absolute);
    tycho_pitch_free(d);

    /* the same slope on a bumpy floor (baseline 0.04 rad) is not anomalous */
    d = tycho_pitch_new(NULL, NULL);
    t = 0;
    CHECK(flat(d, &t, 20, 50, 0.05) == 0);
    tycho_pitch_get_state(d, &st);
    CHECK(st.long_avg > 0.035);
    CHECK(isinf(ramp(d, &t, 50, 0.08, 2.0, &st)));
    /* but a steep one still is, through the absolute test */
    CHECK(ramp(d, &t, 50, 0.25, 2.0, &st) <= 0.5);
    CHECK(st.absolute);
    tycho_pitch_free(d);
}

static void test_spikes(void)
{
    /* at 10 Hz (the original robot's fast loop) a 0.5 s window holds 5
     * samples; one 1-rad spike lifts the plain mean to 0.2 rad */
    tycho_pitch_params p;
    tycho_pitch_defaults(&p);
    tycho_pitch *d = tycho_pitch_new(&p, NULL);
    /* the detector keeps the parameters it was made with */
    tycho_pitch_params back;
    tycho_pitch_get_params(d, &back);
    CHECK(back.window == p.window && back.multiple == p.multiple && back.capacity == p.capacity &&
          back.spike_fraction == p.spike_fraction && back.baseline_tau == p.baseline_tau);
    double t = 0;
    CHECK(flat(d, &t, 10, 10, 0.005) == 0);
    int bad = 0;
    tycho_pitch_state st;
    CHECK(tycho_pitch_push(d, t, 1.0, &st, NULL) == TYCHO_OK);
    bad += st.anomaly;
    t += 0.1;
    bad += flat(d, &t, 1, 10, 0.005);
    CHECK(bad == 0);
    /* two consecutive spike samples are still a bump (2 of 5 dropped) */
    CHECK(tycho_pitch_push(d, t, -0.9, &st, NULL) == TYCHO_OK);
    bad += st.anomaly;
    t += 0.1;
    CHECK(tycho_pitch_push(d, t, 0.8, &st, NULL) == TYCHO_OK);
    bad += st.anomaly;
    t += 0.1;
    bad += flat(d, &t, 1, 10, 0.005);
    CHECK(bad == 0);
    tycho_pitch_free(d);

    /* spike_fraction = 0 is the plain rolling average: the spike triggers */
    p.spike_fraction = 0;
    d = tycho_pitch_new(&p, NULL);
    t = 0;
    CHECK(flat(d, &t, 10, 10, 0.005) == 0);
    CHECK(tycho_pitch_push(d, t, 1.0, &st, NULL) == TYCHO_OK);
    CHECK(st.anomaly && st.absolute);
    CHECK(st.samples == 5 || st.samples == 6); /* the edge sample, by rounding of t */
    CHECK_NEAR(st.short_avg, 1.0 / st.samples, 0.01);
    tycho_pitch_free(d);

    /* at 50 Hz a 3-sample (60 ms) bump of 1 rad is ignored with the defaults */
    d = tycho_pitch_new(NULL, NULL);
    t = 0;
    CHECK(flat(d, &t, 10, 50, 0.005) == 0);
    for (int i = 0; i < 3; i++, t += 0.02) {
        CHECK(tycho_pitch_push(d, t, 1.0, &st, NULL) == TYCHO_OK);
        CHECK(!st.anomaly);
    }
    CHECK(flat(d, &t, 1, 50, 0.005) == 0);
    tycho_pitch_free(d);
}

static void test_startup_reset_and_errors(void)
{
    tycho_pitch *d = tycho_pitch_new(NULL, NULL);
    tycho_pitch_state st;
    tycho_err err = {0};
    /* nothing reported until min_samples are in the window */
    CHECK(tycho_pitch_push(d, 0.00, 0.5, &st, NULL) == TYCHO_OK);
    CHECK(!st.anomaly && st.samples == 1);
    CHECK(tycho_pitch_push(d, 0.02, 0.5, &st, NULL) == TYCHO_OK);
    CHECK(!st.anomaly);
    CHECK(tycho_pitch_push(d, 0.04, 0.5, &st, NULL) == TYCHO_OK);
    CHECK(st.anomaly && st.absolute); /* starting on a ramp is still a ramp */
    /* time going backwards is refused and changes nothing */
    CHECK(tycho_pitch_push(d, 0.03, 0.0, &st, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "backwards") != NULL);
    tycho_pitch_get_state(d, &st);
    CHECK(st.samples == 3 && st.anomaly);
    CHECK(tycho_pitch_push(d, 0.05, NAN, &st, &err) == TYCHO_EINVAL);
    CHECK(tycho_pitch_push(d, INFINITY, 0, &st, &err) == TYCHO_EINVAL);
    /* reset forgets the window, the baseline and the clock */
    tycho_pitch_reset(d);
    tycho_pitch_get_state(d, &st);
    CHECK(!st.anomaly && st.samples == 0 && st.long_avg == 0);
    CHECK(tycho_pitch_push(d, 0.0, 0.001, &st, &err) == TYCHO_OK);
    CHECK(!st.anomaly && st.samples == 1);
    /* the window is time-based: a gap empties it */
    double t = 0.02;
    CHECK(flat(d, &t, 1, 50, 0.005) == 0);
    CHECK(tycho_pitch_push(d, t + 10, 0.001, &st, &err) == TYCHO_OK);
    CHECK(st.samples == 1);
    tycho_pitch_free(d);

    tycho_pitch_params p;
    tycho_pitch_defaults(&p);
    p.window = 0;
    CHECK(tycho_pitch_new(&p, &err) == NULL && strstr(err.msg, "window") != NULL);
    tycho_pitch_defaults(&p);
    p.spike_fraction = 1;
    CHECK(tycho_pitch_new(&p, &err) == NULL && strstr(err.msg, "spike_fraction") != NULL);
    tycho_pitch_defaults(&p);
    p.capacity = 1;
    CHECK(tycho_pitch_new(&p, &err) == NULL);
    tycho_pitch_defaults(&p);
    p.abs_threshold = INFINITY; /* allowed: relative test only */
    d = tycho_pitch_new(&p, &err);
    CHECK(d != NULL);
    tycho_pitch_free(d);
}

/* Faster than capacity / window: the window keeps the newest `capacity`
 * samples, and still detects. */
static void test_capacity(void)
{
    tycho_pitch_params p;
    tycho_pitch_defaults(&p);
    p.capacity = 64;
    tycho_pitch *d = tycho_pitch_new(&p, NULL);
    double t = 0;
    CHECK(flat(d, &t, 5, 1000, 0.005) == 0);
    tycho_pitch_state st;
    tycho_pitch_get_state(d, &st);
    CHECK(st.samples == 64);
    double delay = ramp(d, &t, 1000, 0.2, 0.5, &st);
    CHECK(delay <= 0.25); /* the effective window is 64 ms */
    CHECK(st.samples == 64 && st.anomaly);
    tycho_pitch_free(d);
}

int main(void)
{
    test_flat_and_ramp();
    test_gentle_ramp_relative_only();
    test_spikes();
    test_startup_reset_and_errors();
    test_capacity();
    return check_summary("test_pitch");
}
