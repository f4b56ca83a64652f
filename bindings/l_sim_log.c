/* The simulator's messages for a recording, gathered as they come and
 * queued in one go. The tap of raw samples (l_sim_tap.c) and the viewer's
 * frames (l_sim_view.c) add each message to a batch of the simulator's own
 * (tycho_mcap_batch: the message's job as the writer's queue would hold
 * it); the batch goes into the writer's queue as one job when anything
 * else is about to go into the recording (the writer calls back first:
 * tycho_l_writer_hold), when it holds LOG_BYTES, and when a tap stops.
 * The writer's thread writes its messages one by one, in order.
 *
 * Why: queued one at a time, the four to six messages of each control
 * step each paid a reservation and a commit, in the queue's code run cold
 * between the mission's own steps; the simulator's task spent some 70 M
 * cycles of a small-maze mission on them (the processor's counter, against
 * a plain run), now too few to measure. A batch of a dozen steps pays one
 * of each. The file is the same: the same messages in the same order. */
#include "l_sim.h"

#include <stdlib.h>

/* A batch is queued at this size (some twenty control steps of a mission
 * with two cameras and a LiDAR; the recording's other messages, a second
 * apart, usually come first). */
enum { LOG_BYTES = 64 << 10 };

struct sim_log {
    tycho_mcap_batch batch;
    tycho_l_writer *writer;  /* the batch's, held back while it has messages */
    long long pending[2];    /* messages in the batch: the tap's, the view's */
    tycho_l_sim_hook *by[2]; /* their hooks */
};

static void flush_held(void *ctx) { tycho_l_sim_log_flush(ctx); }

tycho_mcap_batch *tycho_l_sim_log_batch(lsim *b, tycho_l_sim_hook *h, int which)
{
    if (!b->log && !(b->log = calloc(1, sizeof *b->log))) {
        tycho_fail(&h->err, TYCHO_ENOMEM, "%s: out of memory", h->who);
        h->failed = true;
        return NULL;
    }
    sim_log *log = b->log;
    /* another writer (two recordings tapped in turn), or full: queued first */
    if (log->batch.len > 0 && (log->writer != h->writer || log->batch.len >= LOG_BYTES))
        tycho_l_sim_log_flush(b);
    if (log->batch.len == 0) {
        log->writer = h->writer;
        tycho_l_writer_hold(h->writer, flush_held, b);
    }
    log->by[which] = h;
    return &log->batch;
}

void tycho_l_sim_log_added(lsim *b, int which, tycho_status st, tycho_l_sim_hook *h)
{
    if (st == TYCHO_OK) b->log->pending[which]++;
    else tycho_l_sim_hook_wrote(h, st);
}

void tycho_l_sim_log_flush(lsim *b)
{
    sim_log *log = b->log;
    if (!log || log->batch.len == 0) return;
    /* the hold ends first: the batch goes into the same writer */
    tycho_l_writer_unhold(log->writer, b);
    tycho_err err = {0};
    tycho_status st = tycho_l_writer_write_batch(log->writer, &log->batch, &err);
    for (int i = 0; i < 2; i++) {
        tycho_l_sim_hook *h = log->by[i];
        if (!h || log->pending[i] == 0) continue;
        if (st == TYCHO_OK) {
            h->messages += log->pending[i];
        } else {
            h->write_err = err;
            tycho_l_sim_hook_wrote(h, st);
        }
        log->pending[i] = 0;
    }
}

void tycho_l_sim_log_free(lsim *b)
{
    if (!b->log) return;
    tycho_l_sim_log_flush(b);
    tycho_mcap_batch_free(&b->log->batch);
    free(b->log);
    b->log = NULL;
}
