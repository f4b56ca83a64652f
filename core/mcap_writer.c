/* MCAP writer (https://mcap.dev/spec): messages collect in a chunk buffer;
 * a full chunk is zstd-compressed and written with its message indexes; the
 * summary (schemas, channels, statistics, chunk indexes), its offsets and the
 * footer are written on close. The data section CRC runs over every byte
 * written before the Data End record. */
#define _GNU_SOURCE /* sync_file_range (Linux) */
#include "tycho/mcap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "mcap_internal.h"

typedef struct {
    uint16_t channel;
    uint64_t time, offset; /* offset of the message record in the uncompressed chunk */
} index_entry;

typedef struct {
    uint64_t start_time, end_time, offset, length, index_length, compressed, uncompressed;
    mcap_buf index_offsets; /* the chunk index's Map<uint16, uint64>, entries only */
    char compression[8];
} chunk_index;

struct tycho_mcap_writer {
    FILE *fp;
    char path[4096], part[4112];
    tycho_mcap_options opt;
    uint64_t pos;      /* bytes written */
    uint32_t data_crc; /* of everything written so far (the data section) */

    mcap_buf chunk; /* uncompressed records of the open chunk */
    uint64_t chunk_start, chunk_end;
    index_entry *entries;
    size_t nentries, entries_cap;
    mcap_buf compressed;
    mcap_buf scratch; /* records written straight to the file */

    mcap_buf schemas, channels; /* their records again, for the summary */
    uint16_t nschemas, nchannels;
    uint64_t *channel_counts; /* per channel id, index id-1 */
    chunk_index *chunks;
    size_t nchunks, chunks_cap;
    uint64_t messages, first_time, last_time;
    int failed;        /* a write failed: close reports it */
    ZSTD_CCtx *zctx;   /* kept from chunk to chunk: a new context per chunk costs its tables */
    mcap_queue *queue; /* threaded: the thread that writes */
    int closing;       /* tycho_mcap_close_start was called: the thread finishes the file */
    uint64_t synced;   /* bytes handed to the disk's writeback (start_writeback) */
    mcap_buf payload;  /* not threaded: the reserved payload */
};

void tycho_mcap_options_defaults(tycho_mcap_options *o)
{
    o->chunk_size = 1u << 20;
    o->compress = 1;
    /* level 1: bench_record's file came out no larger than at level 3
     * (3.16 against 3.28 MB) and compressing took about half the time */
    o->zstd_level = 1;
    o->threaded = 0;
    o->queue_limit = (size_t)64 << 20;
}

static tycho_status put_file(tycho_mcap_writer *w, const void *data, size_t n, tycho_err *err)
{
    if (n && fwrite(data, 1, n, w->fp) != n) {
        w->failed = 1;
        return tycho_fail(err, TYCHO_EIO, "%s: write failed: %s", w->part, strerror(errno));
    }
    w->data_crc = (uint32_t)crc32(w->data_crc, data, (uInt)n);
    w->pos += n;
    return TYCHO_OK;
}

static tycho_status put_scratch(tycho_mcap_writer *w, tycho_err *err)
{
    if (w->scratch.oom) return tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory");
    tycho_status st = put_file(w, w->scratch.p, w->scratch.len, err);
    w->scratch.len = 0;
    return st;
}

tycho_mcap_writer *tycho_mcap_open(const char *path, const tycho_mcap_options *opt,
                                   const char *library, tycho_err *err)
{
    if (!path || !*path || strlen(path) >= 4096) {
        tycho_fail(err, TYCHO_EINVAL, "mcap: bad path");
        return NULL;
    }
    tycho_mcap_writer *w = calloc(1, sizeof *w);
    if (!w) {
        tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory");
        return NULL;
    }
    if (opt) w->opt = *opt;
    else tycho_mcap_options_defaults(&w->opt);
    if (w->opt.chunk_size < 1024) w->opt.chunk_size = 1024;
    snprintf(w->path, sizeof w->path, "%s", path);
    snprintf(w->part, sizeof w->part, "%s.part", path);
    w->fp = fopen(w->part, "wb");
    if (!w->fp) {
        tycho_fail(err, TYCHO_EIO, "%s: cannot create: %s", w->part, strerror(errno));
        free(w);
        return NULL;
    }
    w->data_crc = (uint32_t)crc32(0, Z_NULL, 0);
    mcap_put(&w->scratch, MCAP_MAGIC, MCAP_MAGIC_LEN);
    size_t at = mcap_begin_record(&w->scratch, MCAP_OP_HEADER);
    mcap_put_str(&w->scratch, ""); /* profile: none of the well-known ones */
    mcap_put_str(&w->scratch, library ? library : "tycho " TYCHO_VERSION);
    mcap_end_record(&w->scratch, at);
    if (put_scratch(w, err) != TYCHO_OK) {
        tycho_mcap_abort(w);
        return NULL;
    }
    /* The chunk's buffer at its full size from the start (and a message
     * more), not grown as it fills. Grown on a threaded writer's thread, it
     * was a block of the caller's thread's heap (the schemas go in first),
     * and glibc kept that heap locked while its realloc copied it: the
     * robot's loop, asking for memory meanwhile, waited 1 to 4 ms at a
     * mission's start. */
    if (!tycho_text_reserve(&w->chunk, w->opt.chunk_size + ((size_t)64 << 10))) {
        tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory");
        tycho_mcap_abort(w);
        return NULL;
    }
    if (w->opt.threaded && !(w->queue = mcap_queue_start(w, w->opt.queue_limit, err))) {
        tycho_mcap_abort(w);
        return NULL;
    }
    return w;
}

/* Threaded: the thread finishes the queue and leaves the writer to the
 * caller (schemas and channels are added, the file closed, on the
 * caller's thread). */
static tycho_status drain(tycho_mcap_writer *w, tycho_err *err)
{
    if (w->closing) return tycho_fail(err, TYCHO_EINVAL, "mcap: the recording is closing");
    return w->queue ? mcap_queue_drain(w->queue, err) : TYCHO_OK;
}

uint16_t tycho_mcap_add_schema(tycho_mcap_writer *w, const char *name, const char *encoding,
                               const void *data, size_t len, tycho_err *err)
{
    if (!name || !*name || !encoding || len > UINT32_MAX) {
        tycho_fail(err, TYCHO_EINVAL, "mcap: a schema needs a name, an encoding and data");
        return 0;
    }
    if (w->nschemas == UINT16_MAX) {
        tycho_fail(err, TYCHO_ERANGE, "mcap: too many schemas");
        return 0;
    }
    if (drain(w, err) != TYCHO_OK) return 0;
    uint16_t id = (uint16_t)(w->nschemas + 1);
    /* the record goes into the open chunk (before any message that uses it)
     * and again into the summary */
    mcap_buf *bufs[2] = {&w->chunk, &w->schemas};
    for (int i = 0; i < 2; i++) {
        size_t at = mcap_begin_record(bufs[i], MCAP_OP_SCHEMA);
        mcap_put_u16(bufs[i], id);
        mcap_put_str(bufs[i], name);
        mcap_put_str(bufs[i], encoding);
        mcap_put_u32(bufs[i], (uint32_t)len);
        mcap_put(bufs[i], data, len);
        mcap_end_record(bufs[i], at);
    }
    if (w->chunk.oom || w->schemas.oom) {
        tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory");
        return 0;
    }
    w->nschemas = id;
    return id;
}

uint16_t tycho_mcap_add_channel(tycho_mcap_writer *w, uint16_t schema_id, const char *topic,
                                const char *message_encoding, tycho_err *err)
{
    if (!topic || !*topic || !message_encoding || !*message_encoding) {
        tycho_fail(err, TYCHO_EINVAL, "mcap: a channel needs a topic and a message encoding");
        return 0;
    }
    if (schema_id > w->nschemas) {
        tycho_fail(err, TYCHO_EINVAL, "mcap: channel '%s': no schema %u", topic,
                   (unsigned)schema_id);
        return 0;
    }
    if (w->nchannels == UINT16_MAX) {
        tycho_fail(err, TYCHO_ERANGE, "mcap: too many channels");
        return 0;
    }
    if (drain(w, err) != TYCHO_OK) return 0;
    uint64_t *counts = realloc(w->channel_counts, (w->nchannels + 1u) * sizeof *counts);
    if (!counts) {
        tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory");
        return 0;
    }
    w->channel_counts = counts;
    uint16_t id = (uint16_t)(w->nchannels + 1);
    counts[id - 1] = 0;
    mcap_buf *bufs[2] = {&w->chunk, &w->channels};
    for (int i = 0; i < 2; i++) {
        size_t at = mcap_begin_record(bufs[i], MCAP_OP_CHANNEL);
        mcap_put_u16(bufs[i], id);
        mcap_put_u16(bufs[i], schema_id);
        mcap_put_str(bufs[i], topic);
        mcap_put_str(bufs[i], message_encoding);
        mcap_put_u32(bufs[i], 0); /* metadata: empty map */
        mcap_end_record(bufs[i], at);
    }
    if (w->chunk.oom || w->channels.oom) {
        tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory");
        return 0;
    }
    w->nchannels = id;
    return id;
}

static int by_channel_then_order(const void *a, const void *b)
{
    const index_entry *x = a, *y = b;
    if (x->channel != y->channel) return x->channel < y->channel ? -1 : 1;
    /* stable: entries were appended in offset order */
    return x->offset < y->offset ? -1 : (x->offset > y->offset);
}

/* Starts writing what the file has so far to the disk, without waiting
 * for it (Linux), after each chunk: the sync at close then has only the
 * last chunk and the summary left. Synced at once, a recording's megabytes
 * held the mission's own file syncs behind them. A failed flush here is
 * reported at close. */
static void start_writeback(tycho_mcap_writer *w)
{
#ifdef SYNC_FILE_RANGE_WRITE
    if (fflush(w->fp) != 0) {
        w->failed = 1; /* close reports it */
        return;
    }
    if (w->pos > w->synced)
        sync_file_range(fileno(w->fp), (off_t)w->synced, (off_t)(w->pos - w->synced),
                        SYNC_FILE_RANGE_WRITE);
    w->synced = w->pos;
#else
    (void)w;
#endif
}

/* Writes the open chunk (compressed when that is smaller) and its message
 * indexes, and remembers its chunk index. */
static tycho_status flush_chunk(tycho_mcap_writer *w, tycho_err *err)
{
    if (w->chunk.len == 0) return TYCHO_OK;
    if (w->chunk.oom) return tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory");
    if (w->nchunks == w->chunks_cap) {
        size_t cap = w->chunks_cap ? w->chunks_cap * 2 : 64;
        chunk_index *c = realloc(w->chunks, cap * sizeof *c);
        if (!c) return tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory");
        w->chunks = c;
        w->chunks_cap = cap;
    }
    chunk_index *ci = &w->chunks[w->nchunks];
    memset(ci, 0, sizeof *ci);

    const uint8_t *records = (const uint8_t *)w->chunk.p;
    size_t records_len = w->chunk.len;
    const char *compression = "";
    if (w->opt.compress) {
        size_t bound = ZSTD_compressBound(w->chunk.len);
        w->compressed.len = 0;
        if (!tycho_text_reserve(&w->compressed, bound))
            return tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory");
        if (!w->zctx && !(w->zctx = ZSTD_createCCtx()))
            return tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory for zstd");
        size_t n = ZSTD_compressCCtx(w->zctx, w->compressed.p, bound, w->chunk.p, w->chunk.len,
                                     w->opt.zstd_level);
        if (ZSTD_isError(n))
            return tycho_fail(err, TYCHO_EIO, "mcap: zstd: %s", ZSTD_getErrorName(n));
        if (n < w->chunk.len) { /* incompressible data stays as it is */
            records = (const uint8_t *)w->compressed.p;
            records_len = n;
            compression = "zstd";
        }
    }
    uint32_t crc =
        (uint32_t)crc32(crc32(0, Z_NULL, 0), (const Bytef *)w->chunk.p, (uInt)w->chunk.len);

    /* a chunk of schemas and channels only has no message times */
    if (w->nentries == 0) w->chunk_start = w->chunk_end = 0;
    ci->start_time = w->chunk_start;
    ci->end_time = w->chunk_end;
    ci->offset = w->pos;
    ci->compressed = records_len;
    ci->uncompressed = w->chunk.len;
    snprintf(ci->compression, sizeof ci->compression, "%s", compression);

    mcap_buf *s = &w->scratch;
    s->len = 0;
    size_t at = mcap_begin_record(s, MCAP_OP_CHUNK);
    mcap_put_u64(s, w->chunk_start);
    mcap_put_u64(s, w->chunk_end);
    mcap_put_u64(s, w->chunk.len);
    mcap_put_u32(s, crc);
    mcap_put_str(s, compression);
    mcap_put_u64(s, records_len);
    /* the header now, the records straight from their buffer (no copy) */
    uint64_t record_len = s->len - at - 9 + records_len;
    for (int i = 0; i < 8; i++) s->p[at + 1 + (size_t)i] = (uint8_t)(record_len >> (8 * i));
    if (put_scratch(w, err) != TYCHO_OK) return TYCHO_EIO;
    if (put_file(w, records, records_len, err) != TYCHO_OK) return TYCHO_EIO;
    ci->length = w->pos - ci->offset;

    /* one Message Index record per channel, entries in time order */
    if (w->nentries) /* a chunk of schemas and channels alone has none (and no array) */
        qsort(w->entries, w->nentries, sizeof *w->entries, by_channel_then_order);
    uint64_t index_start = w->pos;
    for (size_t i = 0; i < w->nentries;) {
        size_t j = i;
        while (j < w->nentries && w->entries[j].channel == w->entries[i].channel) j++;
        mcap_put_u16(&ci->index_offsets, w->entries[i].channel);
        mcap_put_u64(&ci->index_offsets, w->pos + s->len);
        size_t rat = mcap_begin_record(s, MCAP_OP_MESSAGE_INDEX);
        mcap_put_u16(s, w->entries[i].channel);
        mcap_put_u32(s, (uint32_t)((j - i) * 16));
        for (size_t k = i; k < j; k++) {
            mcap_put_u64(s, w->entries[k].time);
            mcap_put_u64(s, w->entries[k].offset);
        }
        mcap_end_record(s, rat);
        i = j;
    }
    if (ci->index_offsets.oom) return tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory");
    if (put_scratch(w, err) != TYCHO_OK) return TYCHO_EIO;
    ci->index_length = w->pos - index_start;
    w->nchunks++;
    w->chunk.len = 0;
    w->nentries = 0;
    start_writeback(w);
    return TYCHO_OK;
}

static tycho_status check_channel(const tycho_mcap_writer *w, uint16_t channel_id, tycho_err *err)
{
    if (w->closing) return tycho_fail(err, TYCHO_EINVAL, "mcap: the recording is closing");
    if (channel_id == 0 || channel_id > w->nchannels)
        return tycho_fail(err, TYCHO_EINVAL, "mcap: no channel %u", (unsigned)channel_id);
    return TYCHO_OK;
}

tycho_status tycho_mcap_write(tycho_mcap_writer *w, uint16_t channel_id, uint64_t log_time,
                              uint64_t publish_time, const void *data, size_t len, tycho_err *err)
{
    if (check_channel(w, channel_id, err) != TYCHO_OK) return TYCHO_EINVAL;
    /* the queue keeps one time: our callers give the same for both */
    if (w->queue && log_time == publish_time) {
        void *p = mcap_queue_reserve(w->queue, len, err);
        if (!p) return err ? err->code : TYCHO_EIO;
        if (len) memcpy(p, data, len);
        return mcap_queue_commit(w->queue, channel_id, log_time, NULL, len, err);
    }
    if (drain(w, err) != TYCHO_OK) return TYCHO_EIO;
    return mcap_write_now(w, channel_id, log_time, publish_time, data, len, err);
}

tycho_status tycho_mcap_write_encoded(tycho_mcap_writer *w, uint16_t channel_id, uint64_t log_time,
                                      tycho_mcap_encode_fn encode, const void *payload, size_t len,
                                      tycho_err *err)
{
    void *p = tycho_mcap_reserve(w, len, err);
    if (!p) return err ? err->code : TYCHO_EIO;
    if (len) memcpy(p, payload, len);
    return tycho_mcap_commit(w, channel_id, log_time, encode, len, err);
}

void *tycho_mcap_reserve(tycho_mcap_writer *w, size_t len, tycho_err *err)
{
    if (w->closing) {
        tycho_fail(err, TYCHO_EINVAL, "mcap: the recording is closing");
        return NULL;
    }
    if (w->queue) return mcap_queue_reserve(w->queue, len, err);
    w->payload.len = 0;
    if (!tycho_text_reserve(&w->payload, len ? len : 1)) {
        w->payload.oom = 0; /* the next may be smaller */
        tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory for a message");
        return NULL;
    }
    return w->payload.p;
}

tycho_status tycho_mcap_commit(tycho_mcap_writer *w, uint16_t channel_id, uint64_t log_time,
                               tycho_mcap_encode_fn encode, size_t len, tycho_err *err)
{
    if (check_channel(w, channel_id, err) != TYCHO_OK) return TYCHO_EINVAL;
    if (w->queue) return mcap_queue_commit(w->queue, channel_id, log_time, encode, len, err);
    if (!encode) return mcap_write_now(w, channel_id, log_time, log_time, w->payload.p, len, err);
    return mcap_encode_now(w, channel_id, log_time, encode, w->payload.p, len, err);
}

/* A message record begun in the open chunk (its length filled in by
 * end_message); returns where it starts. */
static size_t begin_message(tycho_mcap_writer *w, uint16_t channel_id, uint64_t log_time,
                            uint64_t publish_time)
{
    size_t at = mcap_begin_record(&w->chunk, MCAP_OP_MESSAGE);
    mcap_put_u16(&w->chunk, channel_id);
    mcap_put_u32(&w->chunk, (uint32_t)w->channel_counts[channel_id - 1]); /* sequence */
    mcap_put_u64(&w->chunk, log_time);
    mcap_put_u64(&w->chunk, publish_time);
    return at;
}

/* The message begun at `at` ends where the chunk does: its length, its
 * index entry, the times and counts; a full chunk is written. */
static tycho_status end_message(tycho_mcap_writer *w, size_t at, uint16_t channel_id,
                                uint64_t log_time, tycho_err *err)
{
    mcap_end_record(&w->chunk, at);
    if (w->chunk.oom) return tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory");
    if (w->nentries == w->entries_cap) {
        size_t cap = w->entries_cap ? w->entries_cap * 2 : 1024;
        index_entry *e = realloc(w->entries, cap * sizeof *e);
        if (!e) return tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory");
        w->entries = e;
        w->entries_cap = cap;
    }
    int has_messages = w->nentries > 0;
    w->entries[w->nentries++] = (index_entry){channel_id, log_time, at};
    if (!has_messages || log_time < w->chunk_start) w->chunk_start = log_time;
    if (!has_messages || log_time > w->chunk_end) w->chunk_end = log_time;
    if (w->messages == 0 || log_time < w->first_time) w->first_time = log_time;
    if (w->messages == 0 || log_time > w->last_time) w->last_time = log_time;
    w->messages++;
    w->channel_counts[channel_id - 1]++;
    if (w->chunk.len >= w->opt.chunk_size) return flush_chunk(w, err);
    return TYCHO_OK;
}

/* The encoder writes the message straight into the chunk, behind its
 * record's head (the file's bytes are the same as encoding it elsewhere
 * and copying it in: 37 MB of JSON a small-maze mission went through a
 * scratch buffer first). Nothing to write: the head is taken back. */
tycho_status mcap_encode_now(tycho_mcap_writer *w, uint16_t channel_id, uint64_t log_time,
                             tycho_mcap_encode_fn encode, const void *payload, size_t len,
                             tycho_err *err)
{
    if (w->failed) return tycho_fail(err, TYCHO_EIO, "%s: an earlier write failed", w->part);
    size_t at = begin_message(w, channel_id, log_time, log_time);
    if (!encode(payload, len, &w->chunk)) {
        w->chunk.len = at;
        return TYCHO_OK;
    }
    if (w->chunk.oom) {
        w->failed = 1;
        return tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory encoding a message");
    }
    return end_message(w, at, channel_id, log_time, err);
}

tycho_status mcap_write_now(tycho_mcap_writer *w, uint16_t channel_id, uint64_t log_time,
                            uint64_t publish_time, const void *data, size_t len, tycho_err *err)
{
    if (w->failed) return tycho_fail(err, TYCHO_EIO, "%s: an earlier write failed", w->part);
    size_t at = begin_message(w, channel_id, log_time, publish_time);
    mcap_put(&w->chunk, data, len);
    return end_message(w, at, channel_id, log_time, err);
}

tycho_status mcap_write_jobs(tycho_mcap_writer *w, const uint8_t *p, size_t len, tycho_err *err)
{
    for (size_t at = 0; at < len;) {
        const mcap_job_head *j = (const mcap_job_head *)(p + at);
        const uint8_t *payload = (const uint8_t *)(j + 1);
        tycho_status st =
            j->channel == 0 ? mcap_write_jobs(w, payload, j->len, err)
            : j->encode ? mcap_encode_now(w, j->channel, j->time, j->encode, payload, j->len, err)
                        : mcap_write_now(w, j->channel, j->time, j->time, payload, j->len, err);
        if (st != TYCHO_OK) return st;
        at += sizeof *j + mcap_aligned8(j->len);
    }
    return TYCHO_OK;
}

void *tycho_mcap_batch_add(tycho_mcap_batch *b, uint16_t channel_id, uint64_t log_time,
                           tycho_mcap_encode_fn encode, size_t len)
{
    size_t need = sizeof(mcap_job_head) + mcap_aligned8(len);
    if (b->len + need > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + need) cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) return NULL;
        b->p = p;
        b->cap = cap;
    }
    mcap_job_head *j = (mcap_job_head *)(b->p + b->len);
    *j = (mcap_job_head){encode, log_time, len, channel_id};
    b->len += need;
    return j + 1;
}

void tycho_mcap_batch_free(tycho_mcap_batch *b)
{
    free(b->p);
    *b = (tycho_mcap_batch){0};
}

tycho_status tycho_mcap_write_batch(tycho_mcap_writer *w, tycho_mcap_batch *b, tycho_err *err)
{
    size_t len = b->len;
    b->len = 0;
    if (len == 0) return TYCHO_OK;
    for (size_t at = 0; at < len;) { /* the channels checked here, as a commit checks them */
        const mcap_job_head *j = (const mcap_job_head *)(b->p + at);
        if (check_channel(w, j->channel, err) != TYCHO_OK) return TYCHO_EINVAL;
        at += sizeof *j + mcap_aligned8(j->len);
    }
    if (!w->queue) return mcap_write_jobs(w, b->p, len, err); /* closing: check_channel said */
    void *p = tycho_mcap_reserve(w, len, err);
    if (!p) return err ? err->code : TYCHO_EIO;
    tycho_mcap_copy(p, b->p, len);
    return mcap_queue_commit(w->queue, 0, 0, NULL, len, err);
}

uint64_t tycho_mcap_bytes(tycho_mcap_writer *w)
{
    if (w->closing) return 0; /* the thread's until the close */
    drain(w, NULL);
    return w->pos;
}

uint64_t tycho_mcap_queue_waits(const tycho_mcap_writer *w)
{
    return w->queue ? mcap_queue_waits(w->queue) : 0;
}

/* Summary section + summary offsets + footer, in memory, so the summary CRC
 * (from the summary's first byte through the footer's summary_offset_start)
 * is computed over exactly what is written. */
static void build_summary(tycho_mcap_writer *w, mcap_buf *s, uint64_t summary_start)
{
    struct {
        uint8_t op;
        uint64_t start, length;
    } groups[4];
    int ngroups = 0;
#define GROUP_BEGIN(opcode)                                                                        \
    do {                                                                                           \
        groups[ngroups].op = (opcode);                                                             \
        groups[ngroups].start = summary_start + s->len;                                            \
    } while (0)
#define GROUP_END()                                                                                \
    do {                                                                                           \
        groups[ngroups].length = summary_start + s->len - groups[ngroups].start;                   \
        if (groups[ngroups].length) ngroups++;                                                     \
    } while (0)
    GROUP_BEGIN(MCAP_OP_SCHEMA);
    mcap_put(s, w->schemas.p, w->schemas.len);
    GROUP_END();
    GROUP_BEGIN(MCAP_OP_CHANNEL);
    mcap_put(s, w->channels.p, w->channels.len);
    GROUP_END();

    GROUP_BEGIN(MCAP_OP_STATISTICS);
    size_t at = mcap_begin_record(s, MCAP_OP_STATISTICS);
    mcap_put_u64(s, w->messages);
    mcap_put_u16(s, w->nschemas);
    mcap_put_u32(s, w->nchannels);
    mcap_put_u32(s, 0); /* attachments */
    mcap_put_u32(s, 0); /* metadata */
    mcap_put_u32(s, (uint32_t)w->nchunks);
    mcap_put_u64(s, w->first_time);
    mcap_put_u64(s, w->last_time);
    uint32_t nonzero = 0;
    for (uint16_t c = 0; c < w->nchannels; c++) nonzero += w->channel_counts[c] > 0;
    mcap_put_u32(s, nonzero * 10);
    for (uint16_t c = 0; c < w->nchannels; c++) {
        if (!w->channel_counts[c]) continue;
        mcap_put_u16(s, (uint16_t)(c + 1));
        mcap_put_u64(s, w->channel_counts[c]);
    }
    mcap_end_record(s, at);
    GROUP_END();

    GROUP_BEGIN(MCAP_OP_CHUNK_INDEX);
    for (size_t i = 0; i < w->nchunks; i++) {
        const chunk_index *ci = &w->chunks[i];
        at = mcap_begin_record(s, MCAP_OP_CHUNK_INDEX);
        mcap_put_u64(s, ci->start_time);
        mcap_put_u64(s, ci->end_time);
        mcap_put_u64(s, ci->offset);
        mcap_put_u64(s, ci->length);
        mcap_put_u32(s, (uint32_t)ci->index_offsets.len);
        mcap_put(s, ci->index_offsets.p, ci->index_offsets.len);
        mcap_put_u64(s, ci->index_length);
        mcap_put_str(s, ci->compression);
        mcap_put_u64(s, ci->compressed);
        mcap_put_u64(s, ci->uncompressed);
        mcap_end_record(s, at);
    }
    GROUP_END();
#undef GROUP_BEGIN
#undef GROUP_END

    uint64_t offsets_start = summary_start + s->len;
    for (int g = 0; g < ngroups; g++) {
        at = mcap_begin_record(s, MCAP_OP_SUMMARY_OFFSET);
        mcap_put_u8(s, groups[g].op);
        mcap_put_u64(s, groups[g].start);
        mcap_put_u64(s, groups[g].length);
        mcap_end_record(s, at);
    }
    mcap_put_u8(s, MCAP_OP_FOOTER);
    mcap_put_u64(s, 20);
    mcap_put_u64(s, summary_start);
    mcap_put_u64(s, offsets_start);
    if (s->oom) return;
    uint32_t crc = (uint32_t)crc32(crc32(0, Z_NULL, 0), (const Bytef *)s->p, (uInt)s->len);
    mcap_put_u32(s, crc);
    mcap_put(s, MCAP_MAGIC, MCAP_MAGIC_LEN);
}

/* The buffers, once the file is finished (or given up): again harmless. */
static void release_buffers(tycho_mcap_writer *w)
{
    for (size_t i = 0; i < w->nchunks; i++) free(w->chunks[i].index_offsets.p);
    free(w->chunks);
    w->chunks = NULL;
    w->nchunks = w->chunks_cap = 0;
    mcap_buf *bufs[] = {&w->chunk,   &w->compressed, &w->scratch,
                        &w->schemas, &w->channels,   &w->payload};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
        free(bufs[i]->p);
        *bufs[i] = (mcap_buf){0};
    }
    free(w->entries);
    w->entries = NULL;
    w->nentries = w->entries_cap = 0;
    free(w->channel_counts);
    w->channel_counts = NULL;
    ZSTD_freeCCtx(w->zctx);
    w->zctx = NULL;
}

static void free_writer(tycho_mcap_writer *w)
{
    release_buffers(w);
    free(w);
}

void tycho_mcap_abort(tycho_mcap_writer *w)
{
    if (!w) return;
    if (w->queue) mcap_queue_stop(w->queue, NULL);
    w->queue = NULL;
    if (w->fp) fclose(w->fp);
    remove(w->part);
    free_writer(w);
}

/* The end of the file after its last message: the last chunk, the data
 * end, the summary and footer, flushed to the disk, closed and renamed into
 * place; on failure (or after an earlier one: failed) the .part file is
 * removed. On the writer's thread when it has one. */
static tycho_status finish_file(tycho_mcap_writer *w, int failed, tycho_err *err)
{
    tycho_status st = failed || w->failed
                          ? tycho_fail(err, TYCHO_EIO, "%s: an earlier write failed", w->part)
                          : flush_chunk(w, err);
    if (st == TYCHO_OK) {
        mcap_buf *s = &w->scratch;
        s->len = 0;
        size_t at = mcap_begin_record(s, MCAP_OP_DATA_END);
        mcap_put_u32(s, 0); /* placeholder, the CRC must not cover this record */
        mcap_end_record(s, at);
        uint32_t crc = w->data_crc;
        for (int i = 0; i < 4; i++) s->p[at + 9 + (size_t)i] = (uint8_t)(crc >> (8 * i));
        st = put_scratch(w, err);
    }
    if (st == TYCHO_OK) {
        mcap_buf summary = {0};
        build_summary(w, &summary, w->pos);
        st = summary.oom ? tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory")
                         : put_file(w, summary.p, summary.len, err);
        free(summary.p);
    }
    if (st == TYCHO_OK && (fflush(w->fp) != 0 || fsync(fileno(w->fp)) != 0))
        st = tycho_fail(err, TYCHO_EIO, "%s: flush failed: %s", w->part, strerror(errno));
    FILE *fp = w->fp;
    w->fp = NULL;
    if (fclose(fp) != 0 && st == TYCHO_OK)
        st = tycho_fail(err, TYCHO_EIO, "%s: close failed: %s", w->part, strerror(errno));
    else if (st == TYCHO_OK && rename(w->part, w->path) != 0)
        st = tycho_fail(err, TYCHO_EIO, "%s: rename to %s failed: %s", w->part, w->path,
                        strerror(errno));
    if (st != TYCHO_OK) remove(w->part);
    /* freed here, on the writer's thread when there is one, while the
     * robot's loop writes its own outputs: a dozen unmappings of a
     * mission's buffers took the loop 0.3 ms at the close */
    release_buffers(w);
    return st;
}

static tycho_status finish_on_thread(void *ctx, int failed, tycho_err *err)
{
    return finish_file(ctx, failed, err);
}

void tycho_mcap_close_start(tycho_mcap_writer *w)
{
    if (!w->queue || w->closing) return;
    w->closing = 1;
    mcap_queue_finish(w->queue, finish_on_thread, w);
}

tycho_status tycho_mcap_close(tycho_mcap_writer *w, tycho_err *err)
{
    tycho_status st;
    if (w->queue) {
        tycho_mcap_close_start(w);
        st = mcap_queue_stop(w->queue, err); /* finish_file's error, or an earlier one */
        w->queue = NULL;
    } else {
        st = finish_file(w, 0, err);
    }
    free_writer(w);
    return st;
}
