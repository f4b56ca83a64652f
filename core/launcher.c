/* Ball launcher sequencing: see tycho/launcher.h. */
#include "tycho/launcher.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void tycho_launcher_defaults(tycho_launcher_params *p)
{
    /* hobby ESC and servo conventions: 1000 us = off / one end, 2000 us = full */
    p->spin_up_s = 1.0;
    p->feed_s = 0.25;
    p->feed_interval_s = 0.35;
    p->spin_down_s = 0.5;
    p->esc_idle_us = 1000;
    p->esc_run_us = 1600;
    p->feeder_rest_us = 1000;
    p->feeder_push_us = 2000;
    p->max_balls = 10;
}

static bool pulse_ok(int us) { return us >= 500 && us <= 2500; }

tycho_status tycho_launcher_init(tycho_launcher *l, const tycho_launcher_params *p, tycho_err *err)
{
    memset(l, 0, sizeof *l);
    const double t[] = {p->spin_up_s, p->feed_s, p->feed_interval_s, p->spin_down_s};
    const char *tn[] = {"spin_up_s", "feed_s", "feed_interval_s", "spin_down_s"};
    for (int i = 0; i < 4; i++)
        if (!(isfinite(t[i]) && t[i] >= 0 && t[i] <= 60))
            return tycho_fail(err, TYCHO_EINVAL, "launcher: %s must be in [0, 60] s (got %g)",
                              tn[i], t[i]);
    const int us[] = {p->esc_idle_us, p->esc_run_us, p->feeder_rest_us, p->feeder_push_us};
    const char *un[] = {"esc_idle_us", "esc_run_us", "feeder_rest_us", "feeder_push_us"};
    for (int i = 0; i < 4; i++)
        if (!pulse_ok(us[i]))
            return tycho_fail(err, TYCHO_EINVAL, "launcher: %s must be in [500, 2500] us (got %d)",
                              un[i], us[i]);
    if (p->max_balls < 1 || p->max_balls > 100)
        return tycho_fail(err, TYCHO_EINVAL, "launcher: max_balls must be in [1, 100] (got %d)",
                          p->max_balls);
    if (p->feed_s <= 0)
        return tycho_fail(err, TYCHO_EINVAL, "launcher: feed_s must be > 0 (the feeder must move)");
    l->p = *p;
    l->state = TYCHO_LAUNCHER_DISARMED;
    return TYCHO_OK;
}

static void go(tycho_launcher *l, tycho_launcher_state s, double now)
{
    l->state = s;
    l->since = now;
}

tycho_status tycho_launcher_arm(tycho_launcher *l, double now, tycho_err *err)
{
    if (l->state == TYCHO_LAUNCHER_FAULT)
        return tycho_fail(err, TYCHO_EINVAL, "launcher: in fault (%s); disarm first", l->fault);
    if (l->state == TYCHO_LAUNCHER_DISARMED) {
        go(l, TYCHO_LAUNCHER_ARMED, now);
        l->fired = 0;
    }
    return TYCHO_OK;
}

void tycho_launcher_disarm(tycho_launcher *l, double now)
{
    l->balls_left = 0;
    l->fault[0] = 0;
    go(l, TYCHO_LAUNCHER_DISARMED, now);
}

tycho_status tycho_launcher_fire(tycho_launcher *l, int n, double now, tycho_err *err)
{
    if (n < 1 || n > l->p.max_balls)
        return tycho_fail(err, TYCHO_EINVAL, "launcher: balls must be in [1, %d] (got %d)",
                          l->p.max_balls, n);
    if (l->state == TYCHO_LAUNCHER_FAULT)
        return tycho_fail(err, TYCHO_EINVAL, "launcher: in fault (%s)", l->fault);
    if (l->state == TYCHO_LAUNCHER_DISARMED)
        return tycho_fail(err, TYCHO_EINVAL, "launcher: not armed");
    if (l->state == TYCHO_LAUNCHER_SPIN_UP || l->state == TYCHO_LAUNCHER_FEED ||
        l->state == TYCHO_LAUNCHER_FEED_GAP) {
        /* a volley under way: the balls join it (a behaviour that feeds one
         * ball at a time faster than a volley lasts loses none) */
        if (l->balls_left + n > l->p.max_balls)
            return tycho_fail(err, TYCHO_EINVAL, "launcher: %d balls already pending, at most %d",
                              l->balls_left, l->p.max_balls);
        l->balls_left += n;
        return TYCHO_OK;
    }
    l->balls_left = n;
    /* still spinning from the last command: no need to spin up again */
    if (l->state == TYCHO_LAUNCHER_SPIN_DOWN)
        go(l, TYCHO_LAUNCHER_FEED_GAP, now - l->p.feed_interval_s);
    else go(l, TYCHO_LAUNCHER_SPIN_UP, now);
    return TYCHO_OK;
}

void tycho_launcher_fault(tycho_launcher *l, double now, const char *reason)
{
    snprintf(l->fault, sizeof l->fault, "%s", reason ? reason : "fault");
    l->balls_left = 0;
    go(l, TYCHO_LAUNCHER_FAULT, now);
}

tycho_launcher_outputs tycho_launcher_safe_outputs(const tycho_launcher_params *p)
{
    tycho_launcher_outputs o = {false, p->esc_idle_us, p->feeder_rest_us};
    return o;
}

bool tycho_launcher_step(tycho_launcher *l, double now, tycho_launcher_outputs *out)
{
    const tycho_launcher_params *p = &l->p;
    bool pushed = false;
    /* several transitions may be due at once if the driver was late */
    for (int guard = 0; guard < 4 * (p->max_balls + 2); guard++) {
        double in = now - l->since;
        if (l->state == TYCHO_LAUNCHER_SPIN_UP && in >= p->spin_up_s) {
            go(l, TYCHO_LAUNCHER_FEED, l->since + p->spin_up_s);
            pushed = true;
        } else if (l->state == TYCHO_LAUNCHER_FEED && in >= p->feed_s) {
            l->balls_left--;
            l->fired++;
            if (l->balls_left > 0) go(l, TYCHO_LAUNCHER_FEED_GAP, l->since + p->feed_s);
            else go(l, TYCHO_LAUNCHER_SPIN_DOWN, l->since + p->feed_s);
        } else if (l->state == TYCHO_LAUNCHER_FEED_GAP && in >= p->feed_interval_s) {
            go(l, TYCHO_LAUNCHER_FEED, l->since + p->feed_interval_s);
            pushed = true;
        } else if (l->state == TYCHO_LAUNCHER_SPIN_DOWN && in >= p->spin_down_s) {
            go(l, TYCHO_LAUNCHER_ARMED, l->since + p->spin_down_s);
        } else {
            break;
        }
    }
    tycho_launcher_outputs o = tycho_launcher_safe_outputs(p);
    switch (l->state) {
    case TYCHO_LAUNCHER_DISARMED:
    case TYCHO_LAUNCHER_FAULT:
        break;
    case TYCHO_LAUNCHER_ARMED:
        o.arm = true;
        break;
    case TYCHO_LAUNCHER_FEED:
        o.feeder_us = p->feeder_push_us;
        /* fall through */
    case TYCHO_LAUNCHER_SPIN_UP:
    case TYCHO_LAUNCHER_FEED_GAP:
    case TYCHO_LAUNCHER_SPIN_DOWN:
        o.arm = true;
        o.esc_us = p->esc_run_us;
        break;
    }
    if (out) *out = o;
    return pushed;
}

const char *tycho_launcher_state_name(tycho_launcher_state s)
{
    switch (s) {
    case TYCHO_LAUNCHER_DISARMED:
        return "disarmed";
    case TYCHO_LAUNCHER_ARMED:
        return "armed";
    case TYCHO_LAUNCHER_SPIN_UP:
        return "spin_up";
    case TYCHO_LAUNCHER_FEED:
        return "feed";
    case TYCHO_LAUNCHER_FEED_GAP:
        return "feed_gap";
    case TYCHO_LAUNCHER_SPIN_DOWN:
        return "spin_down";
    case TYCHO_LAUNCHER_FAULT:
        return "fault";
    }
    return "?";
}
