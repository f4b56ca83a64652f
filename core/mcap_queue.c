/* The threaded MCAP writer's queue: the caller puts each message (or the
 * inputs of a message encoded later) into a job and goes on; a thread of
 * the writer's own encodes, frames, compresses, checksums and writes them
 * in the order they came, so the file is the one an unthreaded writer
 * makes.
 *
 * Jobs are laid end to end in blocks of about 256 KiB, built in place by
 * the caller (tycho_mcap_reserve, then commit) and handed over a block at a
 * time, the thread woken for every four: no allocation per message (a
 * malloc'd job freed on the other thread, and a wake-up per message, cost
 * more than the message). Blocks come back to the caller for reuse. The
 * bytes handed over are bounded: past the limit the caller waits for the
 * thread, so a slow disk costs time, never unbounded memory or a lost
 * message. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mcap_internal.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef struct block {
    struct block *next;
    size_t len, cap;
    _Alignas(8) uint8_t data[];
} block;

/* The thread is woken when this much waits for it (or the queue is full,
 * or a drain or the close asks): each wake-up of a sleeping thread cost the
 * loop about 35 us here (a futex call, a cross-CPU interrupt on a VM), once
 * per block when every block woke it. */
enum { BLOCK_BYTES = 256 << 10, FREE_BLOCKS_KEPT = 8, WAKE_BYTES = 4 * BLOCK_BYTES };

/* Small jobs (STAGED_JOB_MAX bytes or less, heads included: a frame, an
 * IMU sample, a raw odometry sample, 35,000 of them a mission) gather in
 * a stage of the caller's own, in its caches, and go into the open block
 * a stage at a time past them (tycho_mcap_copy). Written straight into a
 * block, each new cache line of it was first fetched from the writer's
 * core, which had last read it. Larger copies (tycho_mcap_copy) go past
 * the caches already. */
enum { STAGE_BYTES = TYCHO_MCAP_STAGE_BYTES, STAGED_JOB_MAX = 256 };

struct mcap_queue {
    tycho_mcap_writer *w;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t wake; /* the thread: a block came, or stop */
    pthread_cond_t room; /* the caller: a block was written, or the thread went idle */
    block *head, *tail;  /* handed to the thread (under mu) */
    block *spare;        /* written blocks for reuse (under mu) */
    int nspare;
    size_t queued, limit; /* bytes handed over and not yet written */
    int busy, stop;
    int failed; /* under mu: a write failed, error holds why */
    tycho_err error;
    uint64_t waits;
    /* set by mcap_queue_finish: run on the thread after the last block */
    tycho_status (*last)(void *ctx, int failed, tycho_err *err);
    void *last_ctx;
    block *open; /* the caller's block, not yet handed over (the caller's alone) */
    /* the caller's alone: staged bytes (stage.n) are the open block's next
     * ones (there is room for them in it); in_stage: the last reservation is */
    tycho_mcap_staged stage;
    int in_stage;
};

static void free_blocks(block *b)
{
    while (b) {
        block *next = b->next;
        free(b);
        b = next;
    }
}

/* Writes a block's jobs; 0, or -1 with err when a write failed. */
static int write_block(mcap_queue *q, const block *b, tycho_err *err)
{
    return mcap_write_jobs(q->w, b->data, b->len, err) == TYCHO_OK ? 0 : -1;
}

/* Every page of [p, p + n) made present and writable. One madvise asks the
 * kernel to fill them all at once (Linux 5.14 and later); a page at a time
 * by writing (a fault each) otherwise. Written a page at a time, the 512
 * pages of the spare blocks took this project's VM about 6 ms, and in one
 * run in three the robot's loop, starting the mission beside it, stalled
 * some 4 ms (its schemas going in took 5.9 ms instead of 1.7). */
static void prefault(uint8_t *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
    long page = sysconf(_SC_PAGESIZE);
    if (page > 0) {
        uintptr_t mask = (uintptr_t)page - 1;
        uintptr_t from = ((uintptr_t)p + mask) & ~mask, to = ((uintptr_t)p + n) & ~mask;
        if (to > from && madvise((void *)from, to - from, MADV_POPULATE_WRITE) == 0) {
            memset(p, 0, from - (uintptr_t)p); /* the partial pages at the ends */
            memset((void *)to, 0, (uintptr_t)p + n - to);
            return;
        }
    }
#endif
    memset(p, 0, n);
}

/* The blocks the caller will fill first, made and written once here: a
 * page's first write is a page fault, and on this project's VM a fault
 * cost 11 to 15 us; a mission's first blocks were some 300 of them on the
 * robot's loop. Made on the writer's thread while the mission starts. */
static void make_spares(mcap_queue *q)
{
    for (int i = 0; i < FREE_BLOCKS_KEPT; i++) {
        block *b = malloc(sizeof *b + BLOCK_BYTES);
        if (!b) return;
        prefault(b->data, BLOCK_BYTES);
        b->len = 0;
        b->cap = BLOCK_BYTES;
        pthread_mutex_lock(&q->mu);
        int kept = q->nspare < FREE_BLOCKS_KEPT && !q->stop;
        if (kept) {
            b->next = q->spare;
            q->spare = b;
            q->nspare++;
        }
        pthread_mutex_unlock(&q->mu);
        if (!kept) {
            free(b);
            return;
        }
    }
}

static void *run(void *arg)
{
    mcap_queue *q = arg;
    make_spares(q);
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (!q->head && !q->stop) {
            q->busy = 0;
            pthread_cond_broadcast(&q->room);
            pthread_cond_wait(&q->wake, &q->mu);
        }
        if (!q->head) break;
        block *b = q->head;
        q->head = b->next;
        if (!q->head) q->tail = NULL;
        q->busy = 1;
        int failed = q->failed;
        pthread_mutex_unlock(&q->mu);

        tycho_err err = {0};
        /* after a failure the file is lost: blocks are only taken back */
        int now_failed = !failed && write_block(q, b, &err) != 0;

        pthread_mutex_lock(&q->mu);
        if (now_failed && !q->failed) {
            q->failed = 1;
            q->error = err;
        }
        q->queued -= b->cap;
        if (q->nspare < FREE_BLOCKS_KEPT && b->cap == BLOCK_BYTES) {
            b->next = q->spare;
            q->spare = b;
            q->nspare++;
        } else {
            free(b);
        }
        pthread_cond_broadcast(&q->room);
    }
    if (q->last) {
        /* the end of the file: the caller has stopped writing, it is the
         * thread's alone until the join */
        pthread_mutex_unlock(&q->mu);
        tycho_err err = {0};
        tycho_status st = q->last(q->last_ctx, q->failed, &err);
        pthread_mutex_lock(&q->mu);
        if (st != TYCHO_OK && !q->failed) {
            q->failed = 1;
            q->error = err;
        }
    }
    q->busy = 0;
    /* nothing more comes: the spare blocks are freed here, beside the
     * caller (a dozen unmappings were 0.4 to 0.7 ms of its close) */
    block *spare = q->spare;
    q->spare = NULL;
    q->nspare = 0;
    pthread_cond_broadcast(&q->room);
    pthread_mutex_unlock(&q->mu);
    free_blocks(spare);
    return NULL;
}

mcap_queue *mcap_queue_start(tycho_mcap_writer *w, size_t limit, tycho_err *err)
{
    mcap_queue *q = calloc(1, sizeof *q);
    if (!q) {
        tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory");
        return NULL;
    }
    q->w = w;
    q->limit = limit < BLOCK_BYTES * 2 ? BLOCK_BYTES * 2 : limit;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->wake, NULL);
    pthread_cond_init(&q->room, NULL);
    if (pthread_create(&q->thread, NULL, run, q) != 0) {
        pthread_mutex_destroy(&q->mu);
        pthread_cond_destroy(&q->wake);
        pthread_cond_destroy(&q->room);
        free(q);
        tycho_fail(err, TYCHO_EIO, "mcap: cannot start the writer thread");
        return NULL;
    }
    return q;
}

static tycho_status failure(const mcap_queue *q, tycho_err *err)
{
    if (err) *err = q->error;
    return q->error.code ? q->error.code : TYCHO_EIO;
}

/* The staged jobs into the open block. */
static void flush_stage(mcap_queue *q)
{
    if (!q->stage.n) return;
    block *b = q->open;
    q->stage.dst = b->data + b->len;
    b->len += q->stage.n;
    tycho_mcap_stage_flush(&q->stage);
}

/* Hands the caller's block to the thread, waiting while the queue is full. */
static tycho_status hand_over(mcap_queue *q, tycho_err *err)
{
    flush_stage(q);
    block *b = q->open;
    if (b && b->len == 0) return TYCHO_OK;
    q->open = NULL;
    pthread_mutex_lock(&q->mu);
    while (b && !q->failed && q->queued > 0 && q->queued + b->cap > q->limit) {
        q->waits++;
        pthread_cond_signal(&q->wake);
        pthread_cond_wait(&q->room, &q->mu);
    }
    if (q->failed) {
        tycho_status st = failure(q, err);
        pthread_mutex_unlock(&q->mu);
        free(b);
        return st;
    }
    if (b) {
        b->next = NULL;
        if (q->tail) q->tail->next = b;
        else q->head = b;
        q->tail = b;
        q->queued += b->cap;
        if (q->queued >= WAKE_BYTES || q->queued + BLOCK_BYTES > q->limit)
            pthread_cond_signal(&q->wake);
    }
    pthread_mutex_unlock(&q->mu);
    return TYCHO_OK;
}

/* A block with room for `need` more bytes: the open one, grown if a job
 * is larger than a block, else a spare one or a new one. */
static block *open_block(mcap_queue *q, size_t need)
{
    block *b = q->open;
    if (b && b->len + need <= b->cap) return b;
    if (b && b->len > 0 && hand_over(q, NULL) != TYCHO_OK) return NULL;
    b = q->open; /* an empty open block (too small for need) */
    if (!b) {
        pthread_mutex_lock(&q->mu);
        if (q->spare) {
            b = q->spare;
            q->spare = b->next;
            q->nspare--;
        }
        pthread_mutex_unlock(&q->mu);
    }
    if (!b || b->cap < need) {
        size_t cap = need > BLOCK_BYTES ? need : BLOCK_BYTES;
        block *nb = realloc(b, sizeof *nb + cap);
        if (!nb) {
            free(b);
            q->open = NULL;
            return NULL;
        }
        b = nb;
        b->cap = cap;
    }
    b->len = 0;
    b->next = NULL;
    q->open = b;
    return b;
}

void *mcap_queue_reserve(mcap_queue *q, size_t len, tycho_err *err)
{
    size_t need = sizeof(mcap_job_head) + mcap_aligned8(len);
    int small = need <= STAGED_JOB_MAX;
    if (!small || q->stage.n + need > STAGE_BYTES) flush_stage(q);
    q->in_stage = 0;
    /* room for the staged jobs too (a block handed over takes them along) */
    block *b = open_block(q, q->stage.n + need);
    if (!b) {
        pthread_mutex_lock(&q->mu);
        int failed = q->failed;
        pthread_mutex_unlock(&q->mu);
        if (failed) failure(q, err);
        else tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory queueing a message");
        return NULL;
    }
    q->in_stage = small;
    if (small) return q->stage.buf + q->stage.n + sizeof(mcap_job_head);
    return b->data + b->len + sizeof(mcap_job_head);
}

tycho_status mcap_queue_commit(mcap_queue *q, uint16_t channel, uint64_t time,
                               tycho_mcap_encode_fn encode, size_t len, tycho_err *err)
{
    block *b = q->open;
    size_t need = sizeof(mcap_job_head) + mcap_aligned8(len);
    int in_stage = q->in_stage;
    q->in_stage = 0;
    if (!b || b->len + q->stage.n + need > b->cap ||
        (in_stage && (need > STAGED_JOB_MAX || q->stage.n + need > STAGE_BYTES)))
        return tycho_fail(err, TYCHO_EINVAL, "mcap: commit without a reservation");
    if (in_stage) {
        *(mcap_job_head *)(q->stage.buf + q->stage.n) = (mcap_job_head){encode, time, len, channel};
        q->stage.n += need;
    } else {
        *(mcap_job_head *)(b->data + b->len) = (mcap_job_head){encode, time, len, channel};
        b->len += need;
    }
    if (b->len + q->stage.n >= BLOCK_BYTES) return hand_over(q, err);
    return TYCHO_OK;
}

tycho_status mcap_queue_drain(mcap_queue *q, tycho_err *err)
{
    tycho_status st = hand_over(q, err);
    if (st != TYCHO_OK) return st;
    pthread_mutex_lock(&q->mu);
    /* an idle thread with nothing queued is left asleep: a schema or a
     * channel added drains the queue, and each wake-up costs a system call */
    if (q->head) pthread_cond_signal(&q->wake);
    while (!q->failed && (q->head || q->busy)) pthread_cond_wait(&q->room, &q->mu);
    st = q->failed ? failure(q, err) : TYCHO_OK;
    pthread_mutex_unlock(&q->mu);
    return st;
}

/* Hands the open block over and tells the thread to stop after the last
 * one, then to run last (if given; told whether a write failed); a failure
 * to hand over is kept for the join. Once only: later calls do nothing. */
static void request_stop(mcap_queue *q, tycho_status (*last)(void *, int, tycho_err *), void *ctx)
{
    if (q->stop) return; /* the caller's flag: only the caller sets it */
    tycho_err err = {0};
    tycho_status st = hand_over(q, &err);
    pthread_mutex_lock(&q->mu);
    if (st != TYCHO_OK && !q->failed) {
        q->failed = 1;
        q->error = err;
    }
    q->last = last;
    q->last_ctx = ctx;
    q->stop = 1;
    pthread_cond_signal(&q->wake);
    pthread_mutex_unlock(&q->mu);
}

void mcap_queue_finish(mcap_queue *q, tycho_status (*last)(void *ctx, int failed, tycho_err *err),
                       void *ctx)
{
    request_stop(q, last, ctx);
}

tycho_status mcap_queue_stop(mcap_queue *q, tycho_err *err)
{
    request_stop(q, NULL, NULL);
    pthread_join(q->thread, NULL);
    tycho_status st = TYCHO_OK;
    if (st == TYCHO_OK && q->failed) st = failure(q, err);
    free_blocks(q->head);
    free_blocks(q->spare);
    free(q->open);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->wake);
    pthread_cond_destroy(&q->room);
    free(q);
    return st;
}

uint64_t mcap_queue_waits(const mcap_queue *q) { return q->waits; }

/* A reservation's bytes are written by the caller and read by the thread
 * (another core): a large copy goes past the caller's caches (x86-64:
 * non-temporal stores), leaving the robot loop's own data there; ~20 MB of
 * queued messages a mission had evicted it. */
void tycho_mcap_copy(void *dst, const void *src, size_t n)
{
#ifdef __SSE2__
    if (n >= 256) {
        uint8_t *d = dst;
        const uint8_t *s = src;
        size_t head = (64 - ((uintptr_t)d & 63)) & 63; /* whole lines from here */
        memcpy(d, s, head);
        d += head, s += head, n -= head;
        for (; n >= 64; n -= 64, d += 64, s += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)s);
            __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
            __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
            _mm_stream_si128((__m128i *)d, a);
            _mm_stream_si128((__m128i *)(d + 16), b);
            _mm_stream_si128((__m128i *)(d + 32), c);
            _mm_stream_si128((__m128i *)(d + 48), e);
        }
        memcpy(d, s, n);
        _mm_sfence(); /* in memory before the block is handed over */
        return;
    }
#endif
    memcpy(dst, src, n);
}

void tycho_mcap_stage_flush(tycho_mcap_staged *st)
{
    if (st->seen) st->seen(st->ctx, st->buf, st->n);
    tycho_mcap_copy(st->dst, st->buf, st->n);
    st->dst += st->n;
    st->n = 0;
}

void tycho_mcap_stage(tycho_mcap_staged *st, const void *p, size_t n)
{
    const uint8_t *s = p;
    if (!st->seen && n >= sizeof st->buf) { /* nothing to see: straight into place */
        tycho_mcap_stage_flush(st);
        tycho_mcap_copy(st->dst, s, n);
        st->dst += n;
        return;
    }
    while (n > 0) {
        size_t take = sizeof st->buf - st->n < n ? sizeof st->buf - st->n : n;
        memcpy(st->buf + st->n, s, take);
        st->n += take, s += take, n -= take;
        if (st->n == sizeof st->buf) tycho_mcap_stage_flush(st);
    }
}
