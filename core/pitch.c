/* Streaming IMU pitch anomaly detector (see pitch.h). */
#include "tycho/pitch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct tycho_pitch {
    tycho_pitch_params p;
    /* window: ring of (t, |pitch|) plus the same values kept sorted, so the
     * spike-trimmed mean is a prefix sum */
    double *rt, *ra, *sorted;
    int head, n;
    double t_last;
    bool started;
    /* baseline */
    double base;
    long base_n;
    tycho_pitch_state state;
};

void tycho_pitch_defaults(tycho_pitch_params *p)
{
    p->window = 0.5;
    p->multiple = 3.0;
    p->floor = 0.02;
    p->abs_threshold = 0.12;
    p->spike_fraction = 0.25;
    p->baseline_tau = 60.0;
    p->min_samples = 3;
    p->capacity = 256;
}

tycho_status tycho_pitch_validate(const tycho_pitch_params *p, tycho_err *err)
{
    if (!(isfinite(p->window) && p->window > 0))
        return tycho_fail(err, TYCHO_EINVAL, "pitch: window must be > 0 (got %g)", p->window);
    if (!(isfinite(p->multiple) && p->multiple > 0))
        return tycho_fail(err, TYCHO_EINVAL, "pitch: multiple must be > 0 (got %g)", p->multiple);
    if (!(isfinite(p->floor) && p->floor >= 0))
        return tycho_fail(err, TYCHO_EINVAL, "pitch: floor must be >= 0 (got %g)", p->floor);
    if (!(p->abs_threshold > 0)) /* inf allowed: no absolute test */
        return tycho_fail(err, TYCHO_EINVAL, "pitch: abs_threshold must be > 0 (got %g)",
                          p->abs_threshold);
    if (!(p->spike_fraction >= 0 && p->spike_fraction < 1))
        return tycho_fail(err, TYCHO_EINVAL, "pitch: spike_fraction must be in [0, 1) (got %g)",
                          p->spike_fraction);
    if (!(isfinite(p->baseline_tau) && p->baseline_tau >= 0))
        return tycho_fail(err, TYCHO_EINVAL, "pitch: baseline_tau must be >= 0 (got %g)",
                          p->baseline_tau);
    if (p->min_samples < 1)
        return tycho_fail(err, TYCHO_EINVAL, "pitch: min_samples must be >= 1 (got %d)",
                          p->min_samples);
    if (p->capacity < p->min_samples || p->capacity > (1 << 20))
        return tycho_fail(err, TYCHO_EINVAL,
                          "pitch: capacity must be in [min_samples, 2^20] (got %d)", p->capacity);
    return TYCHO_OK;
}

tycho_pitch *tycho_pitch_new(const tycho_pitch_params *p, tycho_err *err)
{
    tycho_pitch_params d;
    if (!p) {
        tycho_pitch_defaults(&d);
        p = &d;
    }
    if (tycho_pitch_validate(p, err) != TYCHO_OK) return NULL;
    tycho_pitch *s = calloc(1, sizeof *s);
    size_t c = (size_t)p->capacity;
    if (s) {
        s->rt = malloc(c * sizeof(double));
        s->ra = malloc(c * sizeof(double));
        s->sorted = malloc(c * sizeof(double));
    }
    if (!s || !s->rt || !s->ra || !s->sorted) {
        tycho_pitch_free(s);
        tycho_fail(err, TYCHO_ENOMEM, "pitch: out of memory");
        return NULL;
    }
    s->p = *p;
    tycho_pitch_reset(s);
    return s;
}

void tycho_pitch_free(tycho_pitch *d)
{
    if (!d) return;
    free(d->rt);
    free(d->ra);
    free(d->sorted);
    free(d);
}

void tycho_pitch_reset(tycho_pitch *d)
{
    d->head = d->n = 0;
    d->started = false;
    d->t_last = 0;
    d->base = 0;
    d->base_n = 0;
    memset(&d->state, 0, sizeof d->state);
}

void tycho_pitch_get_state(const tycho_pitch *d, tycho_pitch_state *out) { *out = d->state; }

void tycho_pitch_get_params(const tycho_pitch *d, tycho_pitch_params *p) { *p = d->p; }

/* First index in sorted[0..n) with value >= v. */
static int lower_bound(const double *a, int n, double v)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (a[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static void drop_oldest(tycho_pitch *d)
{
    int cap = d->p.capacity;
    int oldest = (d->head - d->n + cap) % cap;
    int i = lower_bound(d->sorted, d->n, d->ra[oldest]); /* present: exact copy */
    memmove(d->sorted + i, d->sorted + i + 1, sizeof(double) * (size_t)(d->n - i - 1));
    d->n--;
}

static void add_sample(tycho_pitch *d, double t, double a)
{
    int cap = d->p.capacity;
    if (d->n == cap) drop_oldest(d);
    d->rt[d->head] = t;
    d->ra[d->head] = a;
    d->head = (d->head + 1) % cap;
    int i = lower_bound(d->sorted, d->n, a);
    memmove(d->sorted + i + 1, d->sorted + i, sizeof(double) * (size_t)(d->n - i));
    d->sorted[i] = a;
    d->n++;
}

tycho_status tycho_pitch_push(tycho_pitch *d, double t, double pitch, tycho_pitch_state *out,
                              tycho_err *err)
{
    if (!isfinite(t) || !isfinite(pitch))
        return tycho_fail(err, TYCHO_EINVAL, "pitch: time and pitch must be finite");
    if (d->started && t < d->t_last)
        return tycho_fail(err, TYCHO_EINVAL, "pitch: time went backwards (%g after %g)", t,
                          d->t_last);
    const tycho_pitch_params *p = &d->p;
    double a = fabs(pitch);
    int cap = p->capacity;
    /* evict samples that left the window (strictly older than `window`) */
    while (d->n > 0 && d->rt[(d->head - d->n + cap) % cap] <= t - p->window) drop_oldest(d);
    add_sample(d, t, a);

    int drop = (int)ceil(p->spike_fraction * d->n);
    if (drop > d->n - 1) drop = d->n - 1;
    int keep = d->n - drop;
    double sum = 0;
    for (int i = 0; i < keep; i++) sum += d->sorted[i];
    tycho_pitch_state st = {0};
    st.samples = d->n;
    st.short_avg = sum / keep;
    st.long_avg = d->base;
    if (d->n >= p->min_samples) {
        st.relative = st.short_avg > p->multiple * fmax(d->base, p->floor);
        st.absolute = st.short_avg > p->abs_threshold;
        st.anomaly = st.relative || st.absolute;
    }
    if (!st.anomaly) {
        d->base_n++;
        double w = 1.0 / (double)d->base_n;
        if (p->baseline_tau > 0 && d->base_n > 1) w = fmax(w, (t - d->t_last) / p->baseline_tau);
        if (w > 1) w = 1;
        d->base += w * (a - d->base);
    }
    d->started = true;
    d->t_last = t;
    d->state = st;
    if (out) *out = st;
    return TYCHO_OK;
}
