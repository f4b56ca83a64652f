#include "check.h"
#include "tycho/sched.h"

#include <string.h>

/* A run log: which task ran at what time. */
typedef struct {
    char name[64][16];
    double t[64];
    int n;
} runlog;

typedef struct {
    runlog *log;
    const char *name;
    tycho_sched *s;
    int fail_at; /* fail on this run number (1-based), 0 = never */
    int runs;
    tycho_task_id other; /* cancelled from inside the run, if set */
    bool cancel_self, stop, pause, nested_run;
    double advance; /* advance the sim clock inside the run */
    tycho_run_reason nested;
    int released;
    tycho_task_end why;
} probe;

static int probe_fn(void *ctx, tycho_task_id id, double now)
{
    probe *p = ctx;
    p->runs++;
    if (p->log && p->log->n < 64) {
        snprintf(p->log->name[p->log->n], sizeof p->log->name[0], "%s", p->name);
        p->log->t[p->log->n++] = now;
    }
    if (p->other) tycho_sched_cancel(p->s, p->other);
    if (p->cancel_self) {
        CHECK(tycho_sched_current(p->s) == id);
        CHECK(tycho_sched_cancel(p->s, id));
        CHECK(!tycho_sched_is_live(p->s, id));
        CHECK(p->released == 0); /* not while its own run is on the stack */
    }
    if (p->stop) tycho_sched_stop(p->s, TYCHO_RUN_STOPPED);
    if (p->pause) tycho_sched_pause(p->s);
    if (p->advance > 0) tycho_clock_advance(tycho_sched_clock(p->s), p->advance, NULL);
    if (p->nested_run) p->nested = tycho_sched_run(p->s, NULL, NULL);
    return p->fail_at && p->runs == p->fail_at;
}

static void probe_release(void *ctx, tycho_task_id id, tycho_task_end why)
{
    probe *p = ctx;
    p->released++;
    p->why = why;
}

static tycho_task_id add(tycho_sched *s, probe *p, double period, double delay)
{
    tycho_task_spec spec = {p->name, period, delay, probe_fn, probe_release, p, false};
    tycho_task_id id = 0;
    tycho_err err = {0};
    CHECK_MSG(tycho_sched_add(s, &spec, &id, &err) == TYCHO_OK, "%s", err.msg);
    CHECK(id != 0);
    return id;
}

static tycho_run_reason run_until(tycho_sched *s, double t, long long *steps)
{
    tycho_run_opts o;
    tycho_run_opts_defaults(&o);
    o.until_time = t;
    return tycho_sched_run(s, &o, steps);
}

static void test_clock(void)
{
    tycho_err err = {0};
    tycho_clock *c = tycho_clock_new(TYCHO_CLOCK_SIM, &err);
    CHECK(tycho_clock_now(c) == 0.0);
    CHECK(tycho_clock_advance(c, 0.25, &err) == TYCHO_OK);
    CHECK(tycho_clock_now(c) == 0.25);
    CHECK(tycho_clock_advance(c, -1, &err) == TYCHO_EINVAL);
    CHECK(tycho_clock_advance(c, NAN, &err) == TYCHO_EINVAL);
    CHECK(tycho_clock_advance_to(c, 0.1, &err) == TYCHO_OK);
    CHECK(tycho_clock_now(c) == 0.25); /* never backwards */
    CHECK(tycho_clock_advance_to(c, 2.0, &err) == TYCHO_OK && tycho_clock_now(c) == 2.0);
    tycho_clock_free(c);

    c = tycho_clock_new(TYCHO_CLOCK_WALL, &err);
    CHECK(tycho_clock_get_mode(c) == TYCHO_CLOCK_WALL);
    double a = tycho_clock_now(c);
    tycho_sleep_seconds(0.002);
    double b = tycho_clock_now(c);
    CHECK(a >= 0 && a < 0.5);
    CHECK(b - a >= 0.0019);
    CHECK(tycho_clock_advance(c, 1, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "wall") != NULL);
    tycho_clock_free(c);
    CHECK(tycho_clock_new((tycho_clock_mode)7, &err) == NULL);
}

static void test_order_and_ties(void)
{
    tycho_clock *c = tycho_clock_new(TYCHO_CLOCK_SIM, NULL);
    tycho_sched *s = tycho_sched_new(c, NULL);
    runlog log = {0};
    probe fast = {.log = &log, .name = "fast", .s = s};
    probe slow = {.log = &log, .name = "slow", .s = s};
    probe once = {.log = &log, .name = "once", .s = s};
    add(s, &slow, 0.5, 0); /* registered first: wins ties */
    add(s, &fast, 0.25, 0);
    add(s, &once, 0, 0.5); /* ties with slow and fast at 0.5, registered last */
    long long steps = 0;
    CHECK(run_until(s, 1.0, &steps) == TYCHO_RUN_UNTIL_TIME);
    const char *want[] = {"slow", "fast", "fast", "slow", "fast", "once", "fast", "slow", "fast"};
    const double wt[] = {0, 0, 0.25, 0.5, 0.5, 0.5, 0.75, 1.0, 1.0};
    CHECK(steps == 9 && log.n == 9);
    for (int i = 0; i < 9 && i < log.n; i++) {
        CHECK_MSG(strcmp(log.name[i], want[i]) == 0, "run %d: %s, want %s", i, log.name[i],
                  want[i]);
        CHECK_NEAR(log.t[i], wt[i], 1e-12);
    }
    CHECK(once.released == 1 && once.why == TYCHO_TASK_DONE);
    CHECK(tycho_sched_count(s) == 2);
    CHECK(tycho_clock_now(c) == 1.0);

    /* continuing never repeats a run: 1.0 ran already */
    log.n = 0;
    CHECK(run_until(s, 1.5, &steps) == TYCHO_RUN_UNTIL_TIME);
    CHECK(steps == 3 && log.n == 3);
    CHECK_NEAR(log.t[0], 1.25, 1e-12);

    /* until_time between due times leaves the clock exactly there */
    CHECK(run_until(s, 1.6, &steps) == TYCHO_RUN_UNTIL_TIME && steps == 0);
    CHECK(tycho_clock_now(c) == 1.6);
    tycho_sched_free(s);
    CHECK(fast.released == 1 && fast.why == TYCHO_TASK_CANCELLED);
    tycho_clock_free(c);
}

static void test_phase_and_eps(void)
{
    tycho_clock *c = tycho_clock_new(TYCHO_CLOCK_SIM, NULL);
    tycho_clock_advance(c, 10.0, NULL);
    tycho_sched *s = tycho_sched_new(c, NULL);
    runlog log = {0};
    probe a = {.log = &log, .name = "a", .s = s};
    probe b = {.log = &log, .name = "b", .s = s};
    add(s, &a, 1.0, 0.5);
    add(s, &b, 0.1, 0.0);
    long long steps;
    run_until(s, 12.0, &steps);
    CHECK(a.runs == 2);  /* 10.5, 11.5 */
    CHECK(b.runs == 21); /* 10.0 .. 12.0 inclusive */
    CHECK_NEAR(log.t[0], 10.0, 1e-12);
    tycho_task_info info;
    tycho_task_id ids[4];
    CHECK(tycho_sched_list(s, ids, 4) == 2);
    CHECK(tycho_sched_task_info(s, ids[0], &info));
    CHECK(strcmp(info.name, "a") == 0 && info.period == 1.0 && info.runs == 2);
    CHECK_NEAR(info.next_due, 12.5, 1e-12);
    tycho_sched_free(s);
    tycho_clock_free(c);

    /* 3 * 0.1 = 0.30000000000000004 still counts as due at until_time 0.3 */
    c = tycho_clock_new(TYCHO_CLOCK_SIM, NULL);
    s = tycho_sched_new(c, NULL);
    probe e = {.name = "e", .s = s};
    add(s, &e, 0.1, 0);
    run_until(s, 0.3, &steps);
    CHECK(e.runs == 4 && steps == 4);
    tycho_sched_free(s);
    tycho_clock_free(c);
}

static void test_cancel(void)
{
    tycho_clock *c = tycho_clock_new(TYCHO_CLOCK_SIM, NULL);
    tycho_sched *s = tycho_sched_new(c, NULL);
    probe victim = {.name = "victim", .s = s};
    probe killer = {.name = "killer", .s = s};
    probe self = {.name = "self", .s = s, .cancel_self = true};
    tycho_task_id v = add(s, &victim, 0.1, 0.05);
    killer.other = v;
    add(s, &killer, 1.0, 0.3);
    tycho_task_id me = add(s, &self, 0.1, 0);
    run_until(s, 1.0, NULL);
    CHECK(victim.runs == 3); /* 0.05, 0.15, 0.25 then cancelled at 0.3 */
    CHECK(victim.released == 1 && victim.why == TYCHO_TASK_CANCELLED);
    CHECK(self.runs == 1 && self.released == 1 && self.why == TYCHO_TASK_CANCELLED);
    CHECK(!tycho_sched_cancel(s, v)); /* stale */
    CHECK(!tycho_sched_cancel(s, me));
    CHECK(tycho_sched_count(s) == 1);

    /* a stale id never reaches the task that reuses its slot */
    probe fresh = {.name = "fresh", .s = s};
    tycho_task_id f = add(s, &fresh, 0.5, 0);
    CHECK((f & 0xffffffffu) == (v & 0xffffffffu) || (f & 0xffffffffu) == (me & 0xffffffffu));
    CHECK(!tycho_sched_cancel(s, v) && !tycho_sched_cancel(s, me));
    CHECK(tycho_sched_is_live(s, f));
    CHECK(!tycho_sched_cancel(s, 0) && !tycho_sched_cancel(s, 12345));

    tycho_sched_cancel_all(s);
    CHECK(tycho_sched_count(s) == 0);
    CHECK(run_until(s, 2.0, NULL) == TYCHO_RUN_UNTIL_TIME);
    CHECK(tycho_sched_run(s, NULL, NULL) == TYCHO_RUN_IDLE);
    tycho_sched_free(s);
    tycho_clock_free(c);
}

static void test_failure_stop_pause(void)
{
    tycho_clock *c = tycho_clock_new(TYCHO_CLOCK_SIM, NULL);
    tycho_sched *s = tycho_sched_new(c, NULL);
    probe bad = {.name = "bad", .s = s, .fail_at = 2};
    probe good = {.name = "good", .s = s};
    add(s, &bad, 0.1, 0);
    add(s, &good, 0.1, 0);
    run_until(s, 1.0, NULL);
    CHECK(bad.runs == 2 && bad.released == 1 && bad.why == TYCHO_TASK_FAILED);
    CHECK(good.runs == 11); /* keeps running */

    probe stopper = {.name = "stopper", .s = s, .stop = true};
    add(s, &stopper, 0, 0.25);
    long long steps;
    CHECK(run_until(s, 5.0, &steps) == TYCHO_RUN_STOPPED);
    CHECK_NEAR(tycho_clock_now(c), 1.25, 1e-12);
    /* stop requests do not leak into the next run */
    tycho_sched_stop(s, TYCHO_RUN_STOPPED);
    CHECK(run_until(s, 1.5, &steps) == TYCHO_RUN_UNTIL_TIME && steps == 3); /* 1.3 1.4 1.5 */

    tycho_sched_pause(s);
    CHECK(tycho_sched_paused(s));
    CHECK(run_until(s, 9.0, &steps) == TYCHO_RUN_PAUSED && steps == 0);
    CHECK_NEAR(tycho_clock_now(c), 1.5, 1e-12); /* paused: time does not move */
    /* step: exactly one due task, even while paused */
    tycho_run_opts o;
    tycho_run_opts_defaults(&o);
    o.max_steps = 1;
    o.ignore_pause = true;
    int before = good.runs;
    CHECK(tycho_sched_run(s, &o, &steps) == TYCHO_RUN_MAX_STEPS && steps == 1);
    CHECK(good.runs == before + 1);
    CHECK_NEAR(tycho_clock_now(c), 1.6, 1e-9);
    tycho_sched_resume(s);
    CHECK(run_until(s, 2.0, &steps) == TYCHO_RUN_UNTIL_TIME && steps == 4);

    probe pauser = {.name = "pauser", .s = s, .pause = true};
    add(s, &pauser, 0, 0.05);
    CHECK(run_until(s, 9.0, &steps) == TYCHO_RUN_PAUSED && steps == 1);
    tycho_sched_resume(s);

    probe nested = {.name = "nested", .s = s, .nested_run = true};
    add(s, &nested, 0, 0);
    run_until(s, 2.5, NULL);
    CHECK(nested.runs == 1 && nested.nested == TYCHO_RUN_BUSY);
    tycho_sched_free(s);
    tycho_clock_free(c);
}

static int count_until(void *ctx)
{
    probe *p = ctx;
    return p->runs >= 5;
}

static void test_until_fn_and_missed(void)
{
    tycho_clock *c = tycho_clock_new(TYCHO_CLOCK_SIM, NULL);
    tycho_sched *s = tycho_sched_new(c, NULL);
    probe p = {.name = "p", .s = s};
    add(s, &p, 0.2, 0);
    tycho_run_opts o;
    tycho_run_opts_defaults(&o);
    o.until_fn = count_until;
    o.until_ctx = &p;
    long long steps;
    CHECK(tycho_sched_run(s, &o, &steps) == TYCHO_RUN_UNTIL_FN && steps == 5);
    CHECK_NEAR(tycho_clock_now(c), 0.8, 1e-12);
    /* already true: returns before running anything */
    CHECK(tycho_sched_run(s, &o, &steps) == TYCHO_RUN_UNTIL_FN && steps == 0);

    /* a run that eats 0.75 s of a 0.2 s period skips the grid points in the past */
    tycho_sched_cancel_all(s);
    probe slow = {.name = "slow", .s = s, .advance = 0.75};
    tycho_task_id id = add(s, &slow, 0.2, 0); /* grid 0.8, 1.0, 1.2, ... */
    CHECK(tycho_sched_run(s, &(tycho_run_opts){.until_time = 0.8, .max_steps = -1}, NULL) ==
          TYCHO_RUN_UNTIL_TIME);
    tycho_task_info info;
    CHECK(tycho_sched_task_info(s, id, &info));
    CHECK(info.runs == 1 && info.missed == 3); /* 1.0, 1.2, 1.4 skipped (now 1.55) */
    CHECK_NEAR(info.next_due, 1.6, 1e-9);
    tycho_sched_free(s);
    tycho_clock_free(c);
}

typedef struct {
    probe *worker;
    int asked;
} until_probe;

static int until_worker_ran_3(void *ctx)
{
    until_probe *u = ctx;
    u->asked++;
    return u->worker->runs >= 3;
}

/* An observer task (a recorder) is not followed by an until_fn call; any
 * other task is, so the run still ends right after the task that made
 * until_fn true. */
static void test_observer_tasks(void)
{
    tycho_clock *c = tycho_clock_new(TYCHO_CLOCK_SIM, NULL);
    tycho_sched *s = tycho_sched_new(c, NULL);
    runlog log = {0};
    probe worker = {.log = &log, .name = "worker", .s = s};
    probe watcher = {.log = &log, .name = "watcher", .s = s};
    add(s, &worker, 0.1, 0);
    tycho_task_spec spec = {"watcher", 0.1, 0, probe_fn, probe_release, &watcher, true};
    tycho_task_id id = 0;
    CHECK(tycho_sched_add(s, &spec, &id, NULL) == TYCHO_OK);
    until_probe u = {&worker, 0};
    tycho_run_opts o;
    tycho_run_opts_defaults(&o);
    o.until_fn = until_worker_ran_3;
    o.until_ctx = &u;
    long long steps = 0;
    CHECK(tycho_sched_run(s, &o, &steps) == TYCHO_RUN_UNTIL_FN);
    /* worker, watcher at 0, 0.1, then worker at 0.2 ends the run */
    CHECK(steps == 5 && worker.runs == 3 && watcher.runs == 2);
    CHECK(log.n == 5 && strcmp(log.name[4], "worker") == 0);
    /* asked at the start and after each worker run: not after the watcher's */
    CHECK_MSG(u.asked == 4, "until_fn asked %d times", u.asked);

    /* the same tasks, neither an observer: asked after every task */
    tycho_sched_cancel(s, id);
    spec.observer = false;
    CHECK(tycho_sched_add(s, &spec, &id, NULL) == TYCHO_OK);
    worker.runs = watcher.runs = 0;
    u.asked = 0;
    CHECK(tycho_sched_run(s, &o, &steps) == TYCHO_RUN_UNTIL_FN);
    CHECK_MSG(u.asked == steps + 1, "until_fn asked %d times in %lld steps", u.asked, steps);
    tycho_sched_free(s);
    tycho_clock_free(c);
}

/* Deterministic pseudo-random numbers for the stress test. */
static uint32_t rng(uint32_t *st)
{
    *st ^= *st << 13;
    *st ^= *st >> 17;
    *st ^= *st << 5;
    return *st;
}

typedef struct {
    double last_due;
    uint64_t last_seq;
    int bad, runs;
    tycho_sched *s;
} order_ctx;

static int order_fn(void *ctx, tycho_task_id id, double now)
{
    order_ctx *o = ctx;
    tycho_task_info info;
    tycho_sched_task_info(o->s, id, &info);
    if (now < o->last_due || (now == o->last_due && info.seq < o->last_seq)) o->bad++;
    o->last_due = now;
    o->last_seq = info.seq;
    o->runs++;
    return 0;
}

static void test_heap_stress(void)
{
    tycho_clock *c = tycho_clock_new(TYCHO_CLOCK_SIM, NULL);
    tycho_sched *s = tycho_sched_new(c, NULL);
    order_ctx oc = {.s = s};
    uint32_t st = 12345;
    enum { N = 3000 };
    static tycho_task_id ids[N];
    for (int i = 0; i < N; i++) {
        /* coarse delays so many ties occur */
        bool periodic = rng(&st) % 3 == 0;
        double period = periodic ? 0.5 + 0.5 * (rng(&st) % 4) : 0.0;
        double delay = 0.25 * (rng(&st) % 40);
        tycho_task_spec spec = {"t", period, delay, order_fn, NULL, &oc, false};
        tycho_sched_add(s, &spec, &ids[i], NULL);
    }
    int cancelled = 0;
    for (int i = 0; i < N; i += 3)
        if (tycho_sched_cancel(s, ids[i])) cancelled++;
    CHECK(cancelled == (N + 2) / 3);
    CHECK(tycho_sched_count(s) == (size_t)(N - cancelled));
    long long steps;
    run_until(s, 20.0, &steps);
    CHECK(oc.bad == 0);
    CHECK(oc.runs == steps && steps > N / 2);
    tycho_sched_free(s);
    tycho_clock_free(c);
}

static void test_wall_and_realtime(void)
{
    tycho_clock *c = tycho_clock_new(TYCHO_CLOCK_WALL, NULL);
    tycho_sched *s = tycho_sched_new(c, NULL);
    probe p = {.name = "p", .s = s};
    add(s, &p, 0.01, 0);
    double t0 = tycho_monotonic_seconds();
    CHECK(run_until(s, 0.05, NULL) == TYCHO_RUN_UNTIL_TIME);
    double took = tycho_monotonic_seconds() - t0;
    CHECK(tycho_clock_now(c) >= 0.05);
    CHECK_MSG(p.runs >= 2 && p.runs <= 6, "runs %d", p.runs); /* late runs skip */
    CHECK_MSG(took >= 0.04 && took < 1.0, "took %f s", took);
    tycho_sched_free(s);
    tycho_clock_free(c);

    /* sim clock paced at 10x real time: 0.3 sim s take ~0.03 wall s */
    c = tycho_clock_new(TYCHO_CLOCK_SIM, NULL);
    s = tycho_sched_new(c, NULL);
    probe q = {.name = "q", .s = s};
    add(s, &q, 0.1, 0);
    tycho_run_opts o;
    tycho_run_opts_defaults(&o);
    o.until_time = 0.3;
    o.realtime = 10;
    t0 = tycho_monotonic_seconds();
    tycho_sched_run(s, &o, NULL);
    took = tycho_monotonic_seconds() - t0;
    CHECK(q.runs == 4);
    CHECK_NEAR(tycho_clock_now(c), 0.3, 1e-9);
    CHECK_MSG(took >= 0.025 && took < 1.0, "took %f s", took);
    tycho_sched_free(s);
    tycho_clock_free(c);
}

static void test_bad_specs(void)
{
    tycho_clock *c = tycho_clock_new(TYCHO_CLOCK_SIM, NULL);
    tycho_sched *s = tycho_sched_new(c, NULL);
    tycho_err err = {0};
    tycho_task_id id = 99;
    probe p = {.name = "p", .s = s};
    tycho_task_spec bad = {"x", -1, 0, probe_fn, NULL, &p, false};
    CHECK(tycho_sched_add(s, &bad, &id, &err) == TYCHO_EINVAL && id == 0);
    CHECK(strstr(err.msg, "period") != NULL);
    bad.period = 1;
    bad.delay = NAN;
    CHECK(tycho_sched_add(s, &bad, &id, &err) == TYCHO_EINVAL);
    bad.delay = 0;
    bad.fn = NULL;
    CHECK(tycho_sched_add(s, &bad, &id, &err) == TYCHO_EINVAL);
    CHECK(tycho_sched_new(NULL, &err) == NULL);
    /* long names are truncated, not overflowed */
    char longname[200];
    memset(longname, 'n', sizeof longname - 1);
    longname[199] = '\0';
    tycho_task_spec ok = {longname, 0, 0, probe_fn, NULL, &p, false};
    CHECK(tycho_sched_add(s, &ok, &id, &err) == TYCHO_OK);
    tycho_task_info info;
    CHECK(tycho_sched_task_info(s, id, &info) && strlen(info.name) == TYCHO_TASK_NAME_MAX - 1);
    CHECK(strcmp(tycho_run_reason_name(TYCHO_RUN_UNTIL_FN), "until_fn") == 0);
    tycho_sched_free(s);
    tycho_clock_free(c);
}

int main(void)
{
    test_clock();
    test_order_and_ties();
    test_phase_and_eps();
    test_cancel();
    test_failure_stop_pause();
    test_until_fn_and_missed();
    test_observer_tasks();
    test_heap_stress();
    test_wall_and_realtime();
    test_bad_specs();
    return check_summary("test_sched");
}
