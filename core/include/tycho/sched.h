/* One clock and one timer queue for the whole runtime (DESIGN principle 3).
 *
 * The clock is either simulated (starts at 0, moves only when told: the
 * scheduler jumps it to each due time, so a simulated mission runs as fast as
 * the CPU allows and is deterministic) or wall (CLOCK_MONOTONIC seconds since
 * the clock was created).
 *
 * The scheduler keeps periodic and one-shot tasks in a binary heap ordered by
 * (due time, registration number): tasks due at the same instant run in the
 * order they were registered, so the run sequence is a pure function of the
 * registrations. A periodic task's due times lie on the grid
 * first_due + k * period (computed, not accumulated, so no drift); a task that
 * falls more than one grid step behind (wall clock, slow task) skips the
 * missed steps instead of running in a burst, and counts them.
 *
 * Tasks are C callbacks; the Lua binding registers one dispatcher that calls
 * the Lua function. The core never sleeps except in tycho_sched_run when the
 * clock is wall or the run is paced in real time. */
#ifndef TYCHO_SCHED_H
#define TYCHO_SCHED_H

#include "tycho/common.h"

/* --- clock -------------------------------------------------------------- */

typedef enum { TYCHO_CLOCK_SIM = 0, TYCHO_CLOCK_WALL = 1 } tycho_clock_mode;

typedef struct tycho_clock tycho_clock;

tycho_clock *tycho_clock_new(tycho_clock_mode mode, tycho_err *err);
void tycho_clock_free(tycho_clock *c);
tycho_clock_mode tycho_clock_get_mode(const tycho_clock *c);
/* Seconds: sim time, or wall seconds since tycho_clock_new. */
double tycho_clock_now(const tycho_clock *c);
/* Sim clocks only; dt must be finite and >= 0 (EINVAL otherwise, and for wall clocks). */
tycho_status tycho_clock_advance(tycho_clock *c, double dt, tycho_err *err);
/* Sim clocks only: now = max(now, t). Time never runs backwards. */
tycho_status tycho_clock_advance_to(tycho_clock *c, double t, tycho_err *err);

/* CLOCK_MONOTONIC in seconds (arbitrary origin), and a plain sleep. */
double tycho_monotonic_seconds(void);
void tycho_sleep_seconds(double s);

/* --- scheduler ---------------------------------------------------------- */

typedef struct tycho_sched tycho_sched;

/* Handle of a registered task: slot index + generation, so a stale handle
 * never reaches a task that later reused the slot. 0 is never a valid id. */
typedef uint64_t tycho_task_id;

#define TYCHO_TASK_NAME_MAX 48

/* Runs the task. `now` is the clock time (the due time for a sim clock).
 * Return 0 on success; non-zero marks the task failed and removes it. */
typedef int (*tycho_task_fn)(void *ctx, tycho_task_id id, double now);

typedef enum {
    TYCHO_TASK_DONE = 1,      /* one-shot task ran */
    TYCHO_TASK_CANCELLED = 2, /* tycho_sched_cancel / cancel_all / sched_free */
    TYCHO_TASK_FAILED = 3     /* the callback returned non-zero */
} tycho_task_end;

/* Called once when the scheduler drops a task, so its owner can release what
 * the task holds (the binding drops the Lua function). Never called while the
 * task's own callback is still running: a task cancelled from inside its run
 * is released when the run returns. */
typedef void (*tycho_task_release_fn)(void *ctx, tycho_task_id id, tycho_task_end why);

typedef struct {
    const char *name; /* copied (truncated to TYCHO_TASK_NAME_MAX-1); NULL = "task" */
    double period;    /* > 0: periodic; 0: one-shot */
    double delay;     /* first run at now + delay (>= 0); for periodic tasks, the phase */
    tycho_task_fn fn;
    tycho_task_release_fn release; /* optional */
    void *ctx;
    /* The task only looks (a recorder, a viewer's feeder): it changes
     * nothing a run's until_fn asks about, so the run does not ask again
     * right after it (a Lua until_fn costs a protected call per task). */
    bool observer;
} tycho_task_spec;

typedef enum { TYCHO_TASK_SCHEDULED = 0, TYCHO_TASK_RUNNING = 1 } tycho_task_state;

typedef struct {
    char name[TYCHO_TASK_NAME_MAX];
    double period, next_due, last_run;
    uint64_t runs, missed; /* missed: grid steps skipped because the task ran late */
    uint64_t seq;          /* registration number (ties at equal due times) */
    tycho_task_state state;
    bool cancel_pending; /* cancelled while running: released when it returns */
} tycho_task_info;

/* The scheduler borrows the clock; it must outlive the scheduler. */
tycho_sched *tycho_sched_new(tycho_clock *clock, tycho_err *err);
/* Releases every remaining task (release hook with TYCHO_TASK_CANCELLED). */
void tycho_sched_free(tycho_sched *s);
tycho_clock *tycho_sched_clock(const tycho_sched *s);

/* Allocates only when the slot table grows (registration, never per tick). */
tycho_status tycho_sched_add(tycho_sched *s, const tycho_task_spec *spec, tycho_task_id *out,
                             tycho_err *err);
/* True if the task was live (scheduled or running) and is now cancelled. */
bool tycho_sched_cancel(tycho_sched *s, tycho_task_id id);
void tycho_sched_cancel_all(tycho_sched *s);
bool tycho_sched_is_live(const tycho_sched *s, tycho_task_id id);
bool tycho_sched_task_info(const tycho_sched *s, tycho_task_id id, tycho_task_info *out);
/* Live tasks (not cancel-pending). */
size_t tycho_sched_count(const tycho_sched *s);
/* Writes up to max live task ids in registration order; returns the total. */
size_t tycho_sched_list(const tycho_sched *s, tycho_task_id *ids, size_t max);
/* Earliest due task; false if none. */
bool tycho_sched_peek(const tycho_sched *s, double *due, tycho_task_id *id);

/* --- running ------------------------------------------------------------ */

typedef enum {
    TYCHO_RUN_UNTIL_TIME = 0, /* the next task is due after until_time */
    TYCHO_RUN_UNTIL_FN,       /* until_fn returned non-zero */
    TYCHO_RUN_STOPPED,        /* tycho_sched_stop */
    TYCHO_RUN_ERROR,          /* tycho_sched_stop(s, TYCHO_RUN_ERROR), e.g. stop on task error */
    TYCHO_RUN_PAUSED,         /* the scheduler is (or became) paused */
    TYCHO_RUN_MAX_STEPS,      /* max_steps tasks ran */
    TYCHO_RUN_IDLE,           /* no tasks left and no until_time */
    TYCHO_RUN_BUSY            /* tycho_sched_run called from inside a task */
} tycho_run_reason;

/* Tasks due within this margin of until_time still run, so
 * until_time = 0.3 includes a task due at 3 * 0.1 = 0.30000000000000004. */
#define TYCHO_SCHED_EPS 1e-9

typedef struct {
    double until_time;   /* INFINITY: none. Sim clock ends at max(now, until_time). */
    long long max_steps; /* < 0: none */
    /* Sim clock only: 0 jumps instantly to each due time; r > 0 paces the run
     * so sim time advances r times as fast as wall time. Wall clocks always
     * wait for real. */
    double realtime;
    /* Checked before the first task and after each task; non-zero stops the run. */
    int (*until_fn)(void *ctx);
    void *until_ctx;
    /* How to wait (wall seconds) in real time; NULL = tycho_sleep_seconds. It
     * may return early (e.g. a console has input); the loop re-checks. */
    void (*wait)(void *ctx, double seconds);
    void *wait_ctx;
    bool ignore_pause; /* step/tick run even while paused */
} tycho_run_opts;

void tycho_run_opts_defaults(tycho_run_opts *o);
/* Runs due tasks in (due, registration) order until one of the reasons above.
 * *steps (optional) receives the number of task runs. */
tycho_run_reason tycho_sched_run(tycho_sched *s, const tycho_run_opts *o, long long *steps);
const char *tycho_run_reason_name(tycho_run_reason r);

/* From inside a task (or an until_fn): end the current run after this task
 * with reason why. Outside a run it has no effect (each run starts afresh). */
void tycho_sched_stop(tycho_sched *s, tycho_run_reason why);
void tycho_sched_pause(tycho_sched *s);
void tycho_sched_resume(tycho_sched *s);
bool tycho_sched_paused(const tycho_sched *s);
bool tycho_sched_running(const tycho_sched *s);
/* The task whose callback is running now (0 if none). */
tycho_task_id tycho_sched_current(const tycho_sched *s);

#endif
