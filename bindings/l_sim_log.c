/* The simulator's samples for a recording, kept as they come and written
 * in one go. The tap of raw samples (l_sim_tap.c) and the viewer's frames
 * (l_sim_view.c) take what a message needs at the step, the scan or the
 * frame (the clock's time, the numbers, the ranges or pixels) into this
 * log; the log writes them, in the order they came, when anything else is
 * about to go into the recording (its writer calls back: tycho_l_writer_hold),
 * when it is full, and when a tap stops.
 *
 * Why: written one at a time, the four to six messages of each control
 * step ran the writer's code cold every time, between the mission's own
 * steps: callgrind counted some 1.3 million instruction-cache misses a
 * small-maze mission for them, most of what a recording cost the robot's
 * loop beyond its slower topics. Written in runs of a dozen steps, that
 * code stays in the caches for the run. The file is the same, byte for
 * byte: the same messages in the same order. */
#include "l_sim.h"

#include <stdlib.h>
#include <string.h>

/* A run is written when this much is held (about twenty control steps of
 * a mission with two cameras and a LiDAR; a recording's other messages,
 * a second apart, usually come first). */
enum { LOG_BYTES = 64 << 10, MAX_WRITERS = 2 };

struct sim_log {
    uint8_t *p;
    size_t len, cap;
    tycho_l_writer *held[MAX_WRITERS]; /* the writers this log holds back */
    int nheld;
};

static size_t aligned8(size_t n) { return (n + 7) & ~(size_t)7; }

static void flush_held(void *ctx) { tycho_l_sim_log_flush(ctx); }

/* The writer is told to call back before it takes anything else. */
static void hold(lsim *b, tycho_l_writer *w)
{
    sim_log *log = b->log;
    for (int i = 0; i < log->nheld; i++)
        if (log->held[i] == w) return;
    if (log->nheld == MAX_WRITERS) tycho_l_sim_log_flush(b); /* a third writer: rare */
    tycho_l_writer_hold(w, flush_held, b);
    log->held[log->nheld++] = w;
}

/* Room for more bytes: what is held is written first when the log is
 * full; a larger entry grows it. false: out of memory. */
static bool room(lsim *b, size_t need)
{
    sim_log *log = b->log;
    if (log->len + need <= LOG_BYTES && log->len + need <= log->cap) return true;
    if (log->len > 0 && log->len + need > LOG_BYTES) tycho_l_sim_log_flush(b);
    if (log->len + need <= log->cap) return true;
    size_t cap = log->len + need > LOG_BYTES ? log->len + need : LOG_BYTES;
    uint8_t *p = realloc(log->p, cap);
    if (!p) return false;
    log->p = p;
    log->cap = cap;
    return true;
}

tycho_l_sim_entry *tycho_l_sim_log_add(lsim *b, tycho_l_sim_hook *h, int kind, double t,
                                       size_t count)
{
    if (!b->log && !(b->log = calloc(1, sizeof *b->log))) {
        tycho_fail(&h->err, TYCHO_ENOMEM, "%s: out of memory", h->who);
        h->failed = true;
        return NULL;
    }
    size_t bytes = sizeof(tycho_l_sim_entry) + aligned8(count * sizeof(float));
    if (!room(b, bytes)) {
        tycho_fail(&h->err, TYCHO_ENOMEM, "%s: out of memory", h->who);
        h->failed = true;
        return NULL;
    }
    hold(b, h->writer);
    sim_log *log = b->log;
    tycho_l_sim_entry *e = (tycho_l_sim_entry *)(log->p + log->len);
    log->len += bytes;
    e->kind = (uint8_t)kind;
    e->camera = 0;
    e->bytes = (uint32_t)bytes;
    e->count = (uint32_t)count;
    e->t = t;
    return e;
}

void tycho_l_sim_log_flush(lsim *b)
{
    sim_log *log = b->log;
    if (!log) return;
    /* the holds end first: the writes below go into the same writers */
    for (int i = 0; i < log->nheld; i++) tycho_l_writer_unhold(log->held[i], b);
    log->nheld = 0;
    for (size_t at = 0; at < log->len;) {
        const tycho_l_sim_entry *e = (const tycho_l_sim_entry *)(log->p + at);
        if (e->kind < SIM_LOG_FRAMES) tycho_l_sim_tap_write(b, e);
        else tycho_l_sim_view_write(b, e);
        at += e->bytes;
    }
    log->len = 0;
}

void tycho_l_sim_log_free(lsim *b)
{
    if (!b->log) return;
    tycho_l_sim_log_flush(b);
    free(b->log->p);
    free(b->log);
    b->log = NULL;
}
