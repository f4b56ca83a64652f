/* MCAP recording (https://mcap.dev/spec, format version 0): a writer that
 * streams messages into zstd-compressed chunks, each followed by its message
 * indexes, and closes the file with a summary section (schemas, channels,
 * statistics, chunk indexes), summary offsets and the footer; and a reader
 * that walks a whole file checking every record, CRC and index entry.
 *
 * The writer writes PATH.part and renames it to PATH on close, so PATH is
 * always a complete, indexed file (a run that dies leaves only the .part,
 * which MCAP readers can still recover message by message). */
#ifndef TYCHO_MCAP_H
#define TYCHO_MCAP_H

#include <stdint.h>

#include "tycho/common.h"
#include "tycho/text.h"

typedef struct tycho_mcap_writer tycho_mcap_writer;

typedef struct {
    size_t
        chunk_size; /* uncompressed bytes a chunk collects before it is written (default 1 MiB) */
    int compress;   /* 1: zstd chunks (default), 0: uncompressed */
    int zstd_level; /* default 1 */
    /* 1: messages are queued and encoded, compressed and written by a
     * thread of the writer's own, so the caller only copies them (default
     * 0). The file is the same byte for byte either way. */
    int threaded;
    /* threaded: bytes the queue may hold before a write waits for the
     * thread (default 64 MiB): memory stays bounded when the disk is slow */
    size_t queue_limit;
} tycho_mcap_options;

void tycho_mcap_options_defaults(tycho_mcap_options *o);

/* opt may be NULL (defaults). Returns NULL with err set on failure. */
tycho_mcap_writer *tycho_mcap_open(const char *path, const tycho_mcap_options *opt,
                                   const char *library, tycho_err *err);
/* A schema (encoding "jsonschema" for JSON messages); returns its id (>= 1) or 0 with err set. */
uint16_t tycho_mcap_add_schema(tycho_mcap_writer *w, const char *name, const char *encoding,
                               const void *data, size_t len, tycho_err *err);
/* A channel on a topic (schema_id 0: no schema); returns its id (>= 1) or 0 with err set. */
uint16_t tycho_mcap_add_channel(tycho_mcap_writer *w, uint16_t schema_id, const char *topic,
                                const char *message_encoding, tycho_err *err);
/* Times are nanoseconds. */
tycho_status tycho_mcap_write(tycho_mcap_writer *w, uint16_t channel_id, uint64_t log_time,
                              uint64_t publish_time, const void *data, size_t len, tycho_err *err);
/* Bytes written to the file so far (chunks are written when full). */
/* A message encoded later: encode(payload, len, out) appends the message
 * to out and returns 1, or returns 0 when there is nothing to write (what
 * it appended is then dropped). out is the open chunk: it holds the
 * records before this one, so the encoder writes after out->len only. On a
 * threaded writer it runs on the writer's thread from a copy of the
 * payload (so it must touch nothing else that the caller may change);
 * otherwise at once. */
typedef int (*tycho_mcap_encode_fn)(const void *payload, size_t len, tycho_text *out);
tycho_status tycho_mcap_write_encoded(tycho_mcap_writer *w, uint16_t channel_id, uint64_t log_time,
                                      tycho_mcap_encode_fn encode, const void *payload, size_t len,
                                      tycho_err *err);
/* The same without a copy: room for a payload of len bytes (8-aligned,
 * valid until the next call on w), filled by the caller and then
 * committed. A reservation never committed (the caller gave up half way)
 * is simply reused by the next. NULL with err when the writer failed. */
void *tycho_mcap_reserve(tycho_mcap_writer *w, size_t len, tycho_err *err);
/* memcpy into a reservation: a large copy goes past the caller's caches
 * (x86-64: non-temporal stores; only the writer's thread reads it). */
void tycho_mcap_copy(void *dst, const void *src, size_t n);
/* Pieces gathered 4 KB at a time in the caller's caches before they are
 * copied into a reservation past them (a scene's hundreds of 190-byte
 * primitives, a grid's rows): set dst and n = 0 (seen and ctx too, or
 * NULL), stage the pieces, flush at the end. The stage is filled to the
 * byte before it is copied, and seen (when set) is shown each 4 KB first,
 * there in the caches (a grid's rows are hashed on the way). */
enum { TYCHO_MCAP_STAGE_BYTES = 4096 };
typedef struct {
    uint8_t *dst;
    size_t n;
    void (*seen)(void *ctx, const void *p, size_t n);
    void *ctx;
    _Alignas(16) uint8_t buf[TYCHO_MCAP_STAGE_BYTES];
} tycho_mcap_staged;
void tycho_mcap_stage(tycho_mcap_staged *st, const void *p, size_t n);
void tycho_mcap_stage_flush(tycho_mcap_staged *st);
tycho_status tycho_mcap_commit(tycho_mcap_writer *w, uint16_t channel_id, uint64_t log_time,
                               tycho_mcap_encode_fn encode, size_t len, tycho_err *err);
/* Messages gathered by the caller and queued together as one job: a
 * simulator's samples of a dozen control steps (bindings/l_sim_log.c)
 * cost the caller one reservation and one copy, and the writer's thread
 * writes them one by one, in order, as if each had been committed.
 * tycho_mcap_batch_add returns room for a message's payload (8-aligned;
 * encode as for tycho_mcap_commit), NULL when out of memory; the room is
 * valid until the next add. tycho_mcap_write_batch checks every channel
 * (nothing is queued when one is unknown), queues the messages and empties
 * the batch, which keeps its memory (tycho_mcap_batch_free). */
typedef struct {
    uint8_t *p;
    size_t len, cap;
} tycho_mcap_batch;
void *tycho_mcap_batch_add(tycho_mcap_batch *b, uint16_t channel_id, uint64_t log_time,
                           tycho_mcap_encode_fn encode, size_t len);
tycho_status tycho_mcap_write_batch(tycho_mcap_writer *w, tycho_mcap_batch *b, tycho_err *err);
void tycho_mcap_batch_free(tycho_mcap_batch *b);
/* Bytes written to the file so far (a threaded writer finishes its queue
 * first). */
uint64_t tycho_mcap_bytes(tycho_mcap_writer *w);
/* Threaded: how many times a write waited for the queue to have room. */
uint64_t tycho_mcap_queue_waits(const tycho_mcap_writer *w);
/* Writes the last chunk, the summary and the footer, renames into place and
 * frees w (also on failure, when the .part file is removed). */
tycho_status tycho_mcap_close(tycho_mcap_writer *w, tycho_err *err);
/* Threaded: starts closing and returns at once; the writer's thread writes
 * what is queued and finishes the file (syncing it to the disk takes a
 * while) as the caller goes on. Nothing may be written after it; close
 * then waits for the thread and reports. Unthreaded: does nothing. */
void tycho_mcap_close_start(tycho_mcap_writer *w);
/* Frees w and removes the .part file without finishing it. After
 * tycho_mcap_close_start the file is being finished already: abort waits
 * for the thread, and the finished file stays (a recording whose close
 * was started is never lost half way). */
void tycho_mcap_abort(tycho_mcap_writer *w);

/* --- reading --------------------------------------------------------------- */
#define TYCHO_MCAP_MAX_CHANNELS 256

typedef struct {
    uint16_t id;
    char topic[128];
    char schema_name[128];
    char message_encoding[32];
    uint64_t messages; /* counted in the chunks */
} tycho_mcap_channel_info;

typedef struct {
    char profile[64], library[64];
    uint64_t messages, chunks, schemas;
    uint64_t start_time, end_time;                 /* ns, of the messages */
    uint64_t compressed_bytes, uncompressed_bytes; /* of the chunks */
    int nchannels;
    tycho_mcap_channel_info channels[TYCHO_MCAP_MAX_CHANNELS];
    bool cut;            /* TYCHO_MCAP_READ_CUT: the file ended before its footer */
    uint64_t cut_offset; /* ... and the records up to this byte offset were read */
} tycho_mcap_info;

/* Called for every message, in file order; return nonzero to stop reading. */
typedef int (*tycho_mcap_message_fn)(void *ud, const tycho_mcap_channel_info *channel,
                                     uint64_t log_time, const uint8_t *data, size_t len);

/* Reads and checks the whole file: magic at both ends, every record's
 * bounds, chunk CRCs and decompression, data and summary section CRCs, the
 * message indexes against the messages, the chunk indexes and statistics
 * against the chunks. Errors name the byte offset ("rec.mcap: offset 1234:
 * chunk CRC mismatch"). on_message may be NULL. */
tycho_status tycho_mcap_read(const char *path, tycho_mcap_info *info,
                             tycho_mcap_message_fn on_message, void *ud, tycho_err *err);
/* The same checks on a file already in memory; `name` is used in messages. */
tycho_status tycho_mcap_read_memory(const uint8_t *data, size_t size, const char *name,
                                    tycho_mcap_info *info, tycho_mcap_message_fn on_message,
                                    void *ud, tycho_err *err);

/* Flags of tycho_mcap_read_flags. READ_CUT: a recording cut short (the
 * process died, the robot lost power: a .part file with no summary, no
 * footer and no closing magic, its last record perhaps half written) is
 * read up to its last whole record, every chunk read checked as usual, and
 * info->cut says so. A whole file is read and checked as by tycho_mcap_read. */
#define TYCHO_MCAP_READ_CUT 1u
tycho_status tycho_mcap_read_flags(const char *path, unsigned flags, tycho_mcap_info *info,
                                   tycho_mcap_message_fn on_message, void *ud, tycho_err *err);
tycho_status tycho_mcap_read_memory_flags(const uint8_t *data, size_t size, const char *name,
                                          unsigned flags, tycho_mcap_info *info,
                                          tycho_mcap_message_fn on_message, void *ud,
                                          tycho_err *err);

#endif
