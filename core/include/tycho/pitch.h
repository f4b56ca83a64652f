/* IMU pitch anomaly detector: notices when the robot starts climbing
 * (a ramp) or is tipped (a collision), from a stream of pitch samples.
 *
 * Each push(t, pitch) adds |pitch| to a short window of the last `window`
 * seconds and compares the window's average with a long-run baseline:
 *
 *   anomaly = n >= min_samples and
 *             (short > multiple * max(baseline, floor)   -- "relative"
 *              or short > abs_threshold)                  -- "absolute"
 *
 *  - short: the mean of the window's samples after dropping its largest
 *    ceil(spike_fraction * n) of them (at most n - 1). A bump or a single
 *    bad sample lasting less than spike_fraction of the window cannot
 *    trigger; a ramp, which raises every sample, does. spike_fraction = 0
 *    gives the plain rolling average of the original robot.
 *  - baseline: the long-run average of |pitch|: the plain mean of all
 *    samples for the first baseline_tau seconds, then an exponential
 *    average with time constant baseline_tau (baseline_tau = 0: plain mean
 *    forever). Samples pushed while in anomaly are left out, so a long ramp
 *    does not teach the detector that climbing is normal.
 *  - floor keeps sensor noise on flat ground (baseline ~0.005 rad) from
 *    making the relative test hair-trigger.
 * The test uses the baseline from before the current sample. The state is
 * not latched: anomaly is false again once the window calms down; latching
 * is the caller's decision (a mission state).
 *
 * Times are seconds on any monotonic clock (not decreasing between pushes);
 * pitch in radians (sign ignored). The window holds at most `capacity`
 * samples: at rates above capacity / window it covers less than `window`
 * seconds. Allocation only in _new; push is O(capacity) worst case. */
#ifndef TYCHO_PITCH_H
#define TYCHO_PITCH_H

#include "tycho/common.h"

typedef struct {
    double window;         /* s, short window, default 0.5 */
    double multiple;       /* relative trigger, default 3.0 */
    double floor;          /* rad, least baseline in the relative test, default 0.02 */
    double abs_threshold;  /* rad, default 0.12 (~6.9 deg) */
    double spike_fraction; /* largest share of the window ignored, [0, 1), default 0.25 */
    double baseline_tau;   /* s, default 60; 0 = plain mean */
    int min_samples;       /* in the window before anything is reported, default 3 */
    int capacity;          /* max samples in the window, default 256 */
} tycho_pitch_params;

typedef struct {
    bool anomaly;
    bool relative;    /* the multiple-of-baseline test fired */
    bool absolute;    /* the absolute test fired */
    double short_avg; /* rad, the window statistic */
    double long_avg;  /* rad, the baseline used */
    int samples;      /* in the window */
} tycho_pitch_state;

typedef struct tycho_pitch tycho_pitch;

void tycho_pitch_defaults(tycho_pitch_params *p);
tycho_status tycho_pitch_validate(const tycho_pitch_params *p, tycho_err *err);
/* NULL params = defaults. */
tycho_pitch *tycho_pitch_new(const tycho_pitch_params *p, tycho_err *err);
void tycho_pitch_free(tycho_pitch *d);
/* EINVAL (state unchanged) for non-finite values or t before the last push. */
tycho_status tycho_pitch_push(tycho_pitch *d, double t, double pitch, tycho_pitch_state *out,
                              tycho_err *err);
/* The state after the last push (all zero after reset). */
void tycho_pitch_get_state(const tycho_pitch *d, tycho_pitch_state *out);
void tycho_pitch_get_params(const tycho_pitch *d, tycho_pitch_params *p);
/* Forgets the window, the baseline and the last time. */
void tycho_pitch_reset(tycho_pitch *d);

#endif
