/* Clock and timer queue (see tycho/sched.h for the semantics). */
#include "tycho/sched.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --- clock -------------------------------------------------------------- */

struct tycho_clock {
    tycho_clock_mode mode;
    double sim_now;
    double wall0;
};

double tycho_monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void tycho_sleep_seconds(double s)
{
    if (!(s > 0)) return;
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec > 999999999L) ts.tv_nsec = 999999999L;
    /* A signal may cut the sleep short; callers re-check the time anyway. */
    nanosleep(&ts, NULL);
}

tycho_clock *tycho_clock_new(tycho_clock_mode mode, tycho_err *err)
{
    if (mode != TYCHO_CLOCK_SIM && mode != TYCHO_CLOCK_WALL) {
        tycho_fail(err, TYCHO_EINVAL, "clock mode must be sim or wall");
        return NULL;
    }
    tycho_clock *c = calloc(1, sizeof *c);
    if (!c) {
        tycho_fail(err, TYCHO_ENOMEM, "out of memory for a clock");
        return NULL;
    }
    c->mode = mode;
    c->wall0 = tycho_monotonic_seconds();
    return c;
}

void tycho_clock_free(tycho_clock *c) { free(c); }

tycho_clock_mode tycho_clock_get_mode(const tycho_clock *c) { return c->mode; }

double tycho_clock_now(const tycho_clock *c)
{
    return c->mode == TYCHO_CLOCK_SIM ? c->sim_now : tycho_monotonic_seconds() - c->wall0;
}

tycho_status tycho_clock_advance(tycho_clock *c, double dt, tycho_err *err)
{
    if (c->mode != TYCHO_CLOCK_SIM)
        return tycho_fail(err, TYCHO_EINVAL, "a wall clock cannot be advanced");
    if (!(dt >= 0) || !isfinite(dt))
        return tycho_fail(err, TYCHO_EINVAL, "dt must be finite and >= 0, got %g", dt);
    c->sim_now += dt;
    return TYCHO_OK;
}

tycho_status tycho_clock_advance_to(tycho_clock *c, double t, tycho_err *err)
{
    if (c->mode != TYCHO_CLOCK_SIM)
        return tycho_fail(err, TYCHO_EINVAL, "a wall clock cannot be advanced");
    if (isnan(t)) return tycho_fail(err, TYCHO_EINVAL, "time must not be NaN");
    if (t > c->sim_now) c->sim_now = t;
    return TYCHO_OK;
}

/* --- scheduler ---------------------------------------------------------- */

#define NONE UINT32_MAX

typedef struct {
    char name[TYCHO_TASK_NAME_MAX];
    double period, base, due, last_run;
    uint64_t k; /* due = base + k * period for periodic tasks */
    uint64_t runs, missed, seq;
    tycho_task_fn fn;
    tycho_task_release_fn release;
    void *ctx;
    uint32_t gen;
    uint32_t prev, next; /* registration-order list of used slots */
    uint32_t next_free;
    bool used, running, cancel_pending;
    bool observer; /* tycho_task_spec.observer */
} slot;

/* Heap entries carry their own key so sifting never touches the slots. */
typedef struct {
    double due;
    uint64_t seq;
    uint32_t slot;
} hent;

struct tycho_sched {
    tycho_clock *clock;
    slot *slots;
    hent *heap;     /* min-heap on (due, seq) */
    uint32_t *hpos; /* heap position per slot, NONE when not queued; apart
                       from the slots so sifting stays in a few cache lines */
    uint32_t cap, nheap, free_head, head, tail;
    size_t live;
    uint64_t next_seq;
    tycho_task_id current;
    int stop_req; /* -1: none, else a tycho_run_reason */
    bool running, paused;
};

static tycho_task_id make_id(const tycho_sched *s, uint32_t i)
{
    return ((uint64_t)s->slots[i].gen << 32) | (uint64_t)(i + 1);
}

/* Slot index of a live-or-pending id, or NONE if the id is stale. */
static uint32_t lookup(const tycho_sched *s, tycho_task_id id)
{
    uint64_t lo = id & 0xffffffffu;
    if (lo == 0 || lo > s->cap) return NONE;
    uint32_t i = (uint32_t)(lo - 1);
    if (!s->slots[i].used || s->slots[i].gen != (uint32_t)(id >> 32)) return NONE;
    return i;
}

static bool before(const hent *x, const hent *y)
{
    return x->due < y->due || (x->due == y->due && x->seq < y->seq);
}

static void heap_set(tycho_sched *s, uint32_t pos, hent e)
{
    s->heap[pos] = e;
    s->hpos[e.slot] = pos;
}

static void sift_up(tycho_sched *s, uint32_t pos)
{
    hent e = s->heap[pos];
    while (pos > 0) {
        uint32_t parent = (pos - 1) / 2;
        if (!before(&e, &s->heap[parent])) break;
        heap_set(s, pos, s->heap[parent]);
        pos = parent;
    }
    heap_set(s, pos, e);
}

static void sift_down(tycho_sched *s, uint32_t pos)
{
    hent e = s->heap[pos];
    for (;;) {
        uint32_t c = 2 * pos + 1;
        if (c >= s->nheap) break;
        if (c + 1 < s->nheap && before(&s->heap[c + 1], &s->heap[c])) c++;
        if (!before(&s->heap[c], &e)) break;
        heap_set(s, pos, s->heap[c]);
        pos = c;
    }
    heap_set(s, pos, e);
}

static void heap_push(tycho_sched *s, uint32_t i)
{
    hent e = {s->slots[i].due, s->slots[i].seq, i};
    heap_set(s, s->nheap++, e);
    sift_up(s, s->nheap - 1);
}

static void heap_remove(tycho_sched *s, uint32_t i)
{
    uint32_t pos = s->hpos[i];
    if (pos == NONE) return;
    s->hpos[i] = NONE;
    hent last = s->heap[--s->nheap];
    if (pos == s->nheap) return;
    heap_set(s, pos, last);
    if (pos > 0 && before(&last, &s->heap[(pos - 1) / 2])) sift_up(s, pos);
    else sift_down(s, pos);
}

static void free_slot(tycho_sched *s, uint32_t i, tycho_task_end why)
{
    slot *t = &s->slots[i];
    tycho_task_id id = make_id(s, i);
    tycho_task_release_fn release = t->release;
    void *ctx = t->ctx;
    heap_remove(s, i);
    if (!t->cancel_pending) s->live--;
    if (t->prev != NONE) s->slots[t->prev].next = t->next;
    else s->head = t->next;
    if (t->next != NONE) s->slots[t->next].prev = t->prev;
    else s->tail = t->prev;
    t->used = t->running = t->cancel_pending = false;
    t->gen++;
    if (t->gen == 0) t->gen = 1;
    t->next_free = s->free_head;
    s->free_head = i;
    /* Last, so the hook may register new tasks (the slot is already free). */
    if (release) release(ctx, id, why);
}

static bool grow(tycho_sched *s)
{
    uint32_t ncap = s->cap ? s->cap * 2 : 16;
    if (ncap <= s->cap || ncap >= NONE / 2) return false;
    slot *ns = realloc(s->slots, (size_t)ncap * sizeof *ns);
    if (!ns) return false;
    s->slots = ns;
    hent *nh = realloc(s->heap, (size_t)ncap * sizeof *nh);
    if (!nh) return false;
    s->heap = nh;
    uint32_t *np = realloc(s->hpos, (size_t)ncap * sizeof *np);
    if (!np) return false;
    s->hpos = np;
    /* New slots go on the free list lowest index first, so reuse is deterministic. */
    for (uint32_t i = ncap; i-- > s->cap;) {
        memset(&ns[i], 0, sizeof ns[i]);
        ns[i].gen = 1;
        s->hpos[i] = NONE;
        ns[i].next_free = s->free_head;
        s->free_head = i;
    }
    s->cap = ncap;
    return true;
}

tycho_sched *tycho_sched_new(tycho_clock *clock, tycho_err *err)
{
    if (!clock) {
        tycho_fail(err, TYCHO_EINVAL, "scheduler needs a clock");
        return NULL;
    }
    tycho_sched *s = calloc(1, sizeof *s);
    if (!s) {
        tycho_fail(err, TYCHO_ENOMEM, "out of memory for a scheduler");
        return NULL;
    }
    s->clock = clock;
    s->free_head = s->head = s->tail = NONE;
    s->stop_req = -1;
    s->next_seq = 1;
    return s;
}

void tycho_sched_free(tycho_sched *s)
{
    if (!s) return;
    tycho_sched_cancel_all(s);
    /* A task that was running when freed is gone with the arrays. */
    free(s->slots);
    free(s->heap);
    free(s->hpos);
    free(s);
}

tycho_clock *tycho_sched_clock(const tycho_sched *s) { return s->clock; }

tycho_status tycho_sched_add(tycho_sched *s, const tycho_task_spec *spec, tycho_task_id *out,
                             tycho_err *err)
{
    if (out) *out = 0;
    if (!spec || !spec->fn) return tycho_fail(err, TYCHO_EINVAL, "task needs a callback");
    if (!(spec->period >= 0) || !isfinite(spec->period))
        return tycho_fail(err, TYCHO_EINVAL, "period must be finite and >= 0, got %g",
                          spec->period);
    if (!(spec->delay >= 0) || !isfinite(spec->delay))
        return tycho_fail(err, TYCHO_EINVAL, "delay must be finite and >= 0, got %g", spec->delay);
    if (s->free_head == NONE && !grow(s))
        return tycho_fail(err, TYCHO_ENOMEM, "out of memory for tasks");
    uint32_t i = s->free_head;
    slot *t = &s->slots[i];
    s->free_head = t->next_free;
    uint32_t gen = t->gen;
    memset(t, 0, sizeof *t);
    t->gen = gen;
    snprintf(t->name, sizeof t->name, "%s", spec->name ? spec->name : "task");
    t->period = spec->period;
    t->base = tycho_clock_now(s->clock) + spec->delay;
    t->due = t->base;
    t->last_run = NAN;
    t->seq = s->next_seq++;
    t->fn = spec->fn;
    t->release = spec->release;
    t->ctx = spec->ctx;
    t->observer = spec->observer;
    t->used = true;
    t->next_free = NONE;
    t->prev = s->tail;
    t->next = NONE;
    if (s->tail != NONE) s->slots[s->tail].next = i;
    else s->head = i;
    s->tail = i;
    s->live++;
    heap_push(s, i);
    if (out) *out = make_id(s, i);
    return TYCHO_OK;
}

bool tycho_sched_cancel(tycho_sched *s, tycho_task_id id)
{
    uint32_t i = lookup(s, id);
    if (i == NONE || s->slots[i].cancel_pending) return false;
    if (s->slots[i].running) {
        s->slots[i].cancel_pending = true;
        s->live--;
        return true;
    }
    free_slot(s, i, TYCHO_TASK_CANCELLED);
    return true;
}

void tycho_sched_cancel_all(tycho_sched *s)
{
    /* Tasks registered by release hooks during this call survive it. */
    uint64_t last = s->next_seq;
    uint32_t i = s->head;
    while (i != NONE) {
        uint32_t next = s->slots[i].next;
        if (s->slots[i].seq >= last) break;
        tycho_sched_cancel(s, make_id(s, i));
        i = next;
    }
}

bool tycho_sched_is_live(const tycho_sched *s, tycho_task_id id)
{
    uint32_t i = lookup(s, id);
    return i != NONE && !s->slots[i].cancel_pending;
}

bool tycho_sched_task_info(const tycho_sched *s, tycho_task_id id, tycho_task_info *out)
{
    uint32_t i = lookup(s, id);
    if (i == NONE) return false;
    const slot *t = &s->slots[i];
    memcpy(out->name, t->name, sizeof out->name);
    out->period = t->period;
    out->next_due = t->due;
    out->last_run = t->last_run;
    out->runs = t->runs;
    out->missed = t->missed;
    out->seq = t->seq;
    out->state = t->running ? TYCHO_TASK_RUNNING : TYCHO_TASK_SCHEDULED;
    out->cancel_pending = t->cancel_pending;
    return true;
}

size_t tycho_sched_count(const tycho_sched *s) { return s->live; }

size_t tycho_sched_list(const tycho_sched *s, tycho_task_id *ids, size_t max)
{
    size_t n = 0;
    for (uint32_t i = s->head; i != NONE; i = s->slots[i].next) {
        if (s->slots[i].cancel_pending) continue;
        if (n < max) ids[n] = make_id(s, i);
        n++;
    }
    return n;
}

bool tycho_sched_peek(const tycho_sched *s, double *due, tycho_task_id *id)
{
    if (s->nheap == 0) return false;
    if (due) *due = s->heap[0].due;
    if (id) *id = make_id(s, s->heap[0].slot);
    return true;
}

/* --- running ------------------------------------------------------------ */

void tycho_run_opts_defaults(tycho_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->until_time = INFINITY;
    o->max_steps = -1;
}

const char *tycho_run_reason_name(tycho_run_reason r)
{
    switch (r) {
    case TYCHO_RUN_UNTIL_TIME:
        return "until_time";
    case TYCHO_RUN_UNTIL_FN:
        return "until_fn";
    case TYCHO_RUN_STOPPED:
        return "stopped";
    case TYCHO_RUN_ERROR:
        return "error";
    case TYCHO_RUN_PAUSED:
        return "paused";
    case TYCHO_RUN_MAX_STEPS:
        return "max_steps";
    case TYCHO_RUN_IDLE:
        return "idle";
    case TYCHO_RUN_BUSY:
        return "busy";
    }
    return "unknown";
}

void tycho_sched_stop(tycho_sched *s, tycho_run_reason why)
{
    if (s->running) s->stop_req = (int)why;
}

void tycho_sched_pause(tycho_sched *s) { s->paused = true; }
void tycho_sched_resume(tycho_sched *s) { s->paused = false; }
bool tycho_sched_paused(const tycho_sched *s) { return s->paused; }
bool tycho_sched_running(const tycho_sched *s) { return s->running; }
tycho_task_id tycho_sched_current(const tycho_sched *s) { return s->current; }

typedef struct {
    const tycho_run_opts *o;
    double wall0, sim0; /* pacing origin for real-time sim runs */
    bool waited;        /* wait_until waited (or served the console through wait) */
} pacer;

/* Brings the clock to t. Returns false if the wait was cut short (the loop
 * then re-checks stop/pause/until_fn before waiting again). */
static bool wait_until(tycho_sched *s, pacer *p, double t)
{
    tycho_clock *c = s->clock;
    double remaining;
    if (c->mode == TYCHO_CLOCK_WALL) {
        remaining = t - tycho_clock_now(c);
    } else if (p->o->realtime > 0) {
        remaining = p->wall0 + (t - p->sim0) / p->o->realtime - tycho_monotonic_seconds();
    } else {
        tycho_clock_advance_to(c, t, NULL);
        return true;
    }
    if (remaining > 0) {
        p->waited = true;
        if (p->o->wait) p->o->wait(p->o->wait_ctx, remaining);
        else tycho_sleep_seconds(remaining);
        double left = c->mode == TYCHO_CLOCK_WALL
                          ? t - tycho_clock_now(c)
                          : p->wall0 + (t - p->sim0) / p->o->realtime - tycho_monotonic_seconds();
        if (left > 0) return false;
    }
    if (c->mode == TYCHO_CLOCK_SIM) tycho_clock_advance_to(c, t, NULL);
    return true;
}

/* Next grid point of a periodic task after a run; skips whole periods that
 * are already in the past instead of running them in a burst. */
static void reschedule(tycho_sched *s, slot *t)
{
    double prev = t->due, now = tycho_clock_now(s->clock);
    t->k++;
    t->due = t->base + (double)t->k * t->period;
    if (t->due + TYCHO_SCHED_EPS < now) {
        double kk = ceil((now - t->base) / t->period);
        if (kk > (double)t->k && kk < 9e15) {
            t->missed += (uint64_t)kk - t->k;
            t->k = (uint64_t)kk;
            t->due = t->base + (double)t->k * t->period;
        }
    }
    /* A period far below the clock's resolution must still move forward. */
    if (!(t->due > prev)) t->due = nextafter(prev, INFINITY);
}

/* Runs the task due first; true if it was an observer. */
static bool run_top(tycho_sched *s)
{
    uint32_t i = s->heap[0].slot;
    heap_remove(s, i);
    slot *t = &s->slots[i];
    bool observer = t->observer;
    double now =
        tycho_clock_get_mode(s->clock) == TYCHO_CLOCK_SIM ? t->due : tycho_clock_now(s->clock);
    t->running = true;
    t->last_run = now;
    t->runs++;
    tycho_task_id id = make_id(s, i);
    s->current = id;
    int rc = t->fn(t->ctx, id, now);
    s->current = 0;
    t = &s->slots[i]; /* the callback may have grown the slot table */
    t->running = false;
    if (t->cancel_pending) free_slot(s, i, TYCHO_TASK_CANCELLED);
    else if (rc != 0) free_slot(s, i, TYCHO_TASK_FAILED);
    else if (t->period > 0) {
        reschedule(s, t);
        heap_push(s, i);
    } else free_slot(s, i, TYCHO_TASK_DONE);
    return observer;
}

tycho_run_reason tycho_sched_run(tycho_sched *s, const tycho_run_opts *opts, long long *steps)
{
    tycho_run_opts defaults;
    if (!opts) {
        tycho_run_opts_defaults(&defaults);
        opts = &defaults;
    }
    if (steps) *steps = 0;
    if (s->running) return TYCHO_RUN_BUSY;
    s->running = true;
    s->stop_req = -1;
    pacer p = {opts, tycho_monotonic_seconds(), tycho_clock_now(s->clock), false};
    long long n = 0;
    tycho_run_reason r;
    /* until_fn is asked again only when something may have changed its
     * answer: not right after an observer task */
    bool ask_until = true;
    for (;;) {
        if (s->stop_req >= 0) {
            r = (tycho_run_reason)s->stop_req;
            break;
        }
        if (s->paused && !opts->ignore_pause) {
            r = TYCHO_RUN_PAUSED;
            break;
        }
        if (opts->until_fn && ask_until && opts->until_fn(opts->until_ctx)) {
            r = s->stop_req >= 0 ? (tycho_run_reason)s->stop_req : TYCHO_RUN_UNTIL_FN;
            break;
        }
        if (opts->max_steps >= 0 && n >= opts->max_steps) {
            r = TYCHO_RUN_MAX_STEPS;
            break;
        }
        double due;
        bool any = tycho_sched_peek(s, &due, NULL);
        if (!any && !isfinite(opts->until_time)) {
            r = TYCHO_RUN_IDLE;
            break;
        }
        if (!any || due > opts->until_time + TYCHO_SCHED_EPS) {
            if (wait_until(s, &p, opts->until_time)) {
                r = TYCHO_RUN_UNTIL_TIME;
                break;
            }
            ask_until = true;
            continue;
        }
        p.waited = false;
        if (!wait_until(s, &p, due)) {
            ask_until = true;
            continue;
        }
        /* a wait may have served the console (a pause, a stop) */
        ask_until = !run_top(s) || p.waited;
        n++;
    }
    s->running = false;
    s->stop_req = -1;
    if (steps) *steps = n;
    return r;
}
