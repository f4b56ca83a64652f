/* Shared by the MCAP writer and reader: record opcodes and a growable
 * little-endian byte buffer (MCAP integers are all little-endian). */
#ifndef TYCHO_MCAP_INTERNAL_H
#define TYCHO_MCAP_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tycho/text.h"

#define MCAP_MAGIC "\x89MCAP0\r\n"
#define MCAP_MAGIC_LEN 8

enum {
    MCAP_OP_HEADER = 0x01,
    MCAP_OP_FOOTER = 0x02,
    MCAP_OP_SCHEMA = 0x03,
    MCAP_OP_CHANNEL = 0x04,
    MCAP_OP_MESSAGE = 0x05,
    MCAP_OP_CHUNK = 0x06,
    MCAP_OP_MESSAGE_INDEX = 0x07,
    MCAP_OP_CHUNK_INDEX = 0x08,
    MCAP_OP_ATTACHMENT = 0x09,
    MCAP_OP_ATTACHMENT_INDEX = 0x0A,
    MCAP_OP_STATISTICS = 0x0B,
    MCAP_OP_METADATA = 0x0C,
    MCAP_OP_METADATA_INDEX = 0x0D,
    MCAP_OP_SUMMARY_OFFSET = 0x0E,
    MCAP_OP_DATA_END = 0x0F
};

/* The records are built in the text buffer of core/text.c (grown as
 * needed, oom set when it could not be): the encoders write a message's
 * JSON straight into the chunk it goes in. */
typedef tycho_text mcap_buf;

static inline void mcap_put(mcap_buf *b, const void *data, size_t n) { tycho_text_put(b, data, n); }

static inline void mcap_put_le(mcap_buf *b, uint64_t v, int bytes)
{
    uint8_t tmp[8];
    for (int i = 0; i < bytes; i++) tmp[i] = (uint8_t)(v >> (8 * i));
    mcap_put(b, tmp, (size_t)bytes);
}

static inline void mcap_put_u8(mcap_buf *b, uint8_t v) { mcap_put_le(b, v, 1); }
static inline void mcap_put_u16(mcap_buf *b, uint16_t v) { mcap_put_le(b, v, 2); }
static inline void mcap_put_u32(mcap_buf *b, uint32_t v) { mcap_put_le(b, v, 4); }
static inline void mcap_put_u64(mcap_buf *b, uint64_t v) { mcap_put_le(b, v, 8); }

/* MCAP String: uint32 length, then the bytes. */
static inline void mcap_put_str(mcap_buf *b, const char *s)
{
    size_t n = strlen(s);
    mcap_put_u32(b, (uint32_t)n);
    mcap_put(b, s, n);
}

/* Starts a record (opcode + a length filled in by mcap_end_record); returns where it starts. */
static inline size_t mcap_begin_record(mcap_buf *b, uint8_t op)
{
    size_t at = b->len;
    mcap_put_u8(b, op);
    mcap_put_u64(b, 0);
    return at;
}

static inline void mcap_end_record(mcap_buf *b, size_t at)
{
    if (b->oom) return;
    uint64_t n = b->len - at - 9;
    for (int i = 0; i < 8; i++) b->p[at + 1 + (size_t)i] = (uint8_t)(n >> (8 * i));
}

static inline uint64_t mcap_get_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The threaded writer's queue (mcap_queue.c): messages copied by the
 * caller, written by the queue's thread through mcap_write_now (and
 * mcap_encode_now for those encoded later), in the order they came. */
#include "tycho/mcap.h"

/* A job as the queue lays them end to end (and a batch, tycho_mcap_batch,
 * lays its messages): this head, then len payload bytes, padded to 8. A
 * job on channel 0 is a batch: its payload is jobs laid out the same way. */
typedef struct {
    tycho_mcap_encode_fn encode; /* NULL: the payload is the message */
    uint64_t time;
    uint64_t len; /* payload bytes after this head */
    uint16_t channel;
} mcap_job_head;
static inline size_t mcap_aligned8(size_t n) { return (n + 7) & ~(size_t)7; }
/* Writes the jobs of p[0, len) in order (a batch's inside them too). */
tycho_status mcap_write_jobs(tycho_mcap_writer *w, const uint8_t *p, size_t len, tycho_err *err);

typedef struct mcap_queue mcap_queue;
mcap_queue *mcap_queue_start(tycho_mcap_writer *w, size_t limit, tycho_err *err);
/* Room for a job's payload of len bytes in the caller's block; the job
 * exists once committed (encode NULL: the payload is the message). A
 * reservation not committed is overwritten by the next. */
void *mcap_queue_reserve(mcap_queue *q, size_t len, tycho_err *err);
tycho_status mcap_queue_commit(mcap_queue *q, uint16_t channel, uint64_t time,
                               tycho_mcap_encode_fn encode, size_t len, tycho_err *err);
/* Waits until the thread has written everything queued; its error, if a
 * write failed. The thread then leaves the writer alone until the next push. */
tycho_status mcap_queue_drain(mcap_queue *q, tycho_err *err);
/* Tells the thread to write what is queued, then run last(ctx, failed, err)
 * and stop, and returns at once (the caller must not write any more);
 * mcap_queue_stop then waits for it. last's error is the queue's. */
void mcap_queue_finish(mcap_queue *q, tycho_status (*last)(void *ctx, int failed, tycho_err *err),
                       void *ctx);
/* Drains, stops the thread and frees the queue; its error (or last's), if any. */
tycho_status mcap_queue_stop(mcap_queue *q, tycho_err *err);
uint64_t mcap_queue_waits(const mcap_queue *q);

tycho_status mcap_write_now(tycho_mcap_writer *w, uint16_t channel_id, uint64_t log_time,
                            uint64_t publish_time, const void *data, size_t len, tycho_err *err);
/* Encodes the message straight into the open chunk and writes it (when the
 * encoder has one). */
tycho_status mcap_encode_now(tycho_mcap_writer *w, uint16_t channel_id, uint64_t log_time,
                             tycho_mcap_encode_fn encode, const void *payload, size_t len,
                             tycho_err *err);

#endif
