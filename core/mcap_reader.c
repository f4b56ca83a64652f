/* MCAP reader: loads the whole file and checks it record by record, the
 * chunks decompressed and their CRCs, message indexes, chunk indexes,
 * statistics and summary offsets cross-checked against what the data
 * section really holds. It is the test oracle for our writer and the way
 * tycho reads its own recordings back; it does not recover truncated files. */
#include "tycho/mcap.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <zlib.h>
#include <zstd.h>

#include "mcap_internal.h"

#define MAX_CHUNK (512ull << 20)

typedef struct {
    uint16_t channel;
    uint64_t time, offset;
} seen_message;

typedef struct {
    uint64_t offset, length, start_time, end_time, compressed, uncompressed;
    uint64_t index_offsets[TYCHO_MCAP_MAX_CHANNELS]; /* per channel slot, 0: none */
    int matched;                                     /* a chunk index named it */
} seen_chunk;

typedef struct {
    const char *path;
    tycho_err *err;
    tycho_mcap_info *info;
    tycho_mcap_message_fn on_message;
    void *ud;
    int stopped;
    const uint8_t *file;
    size_t size;
    unsigned flags;
    int16_t slot[65536]; /* channel id -> info->channels index, -1 none */
    char (*schema_names)[128];
    size_t nschema_names;
    seen_message *msgs; /* of the chunk being checked */
    size_t nmsgs, msgs_cap;
    seen_chunk *chunks;
    size_t nchunks, chunks_cap;
    uint8_t *plain; /* decompressed chunk */
    size_t plain_cap;
} reader;

#define FAIL(r, off, ...) fail_at((r), (off), __VA_ARGS__)

__attribute__((format(printf, 3, 4))) static tycho_status fail_at(reader *r, uint64_t off,
                                                                  const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tycho_fail(r->err, TYCHO_EPARSE, "%s: offset %llu: %s", r->path, (unsigned long long)off,
                      msg);
}

/* A bounded cursor over a record's content. */
typedef struct {
    const uint8_t *p;
    size_t len, at;
    int bad;
} cursor;

static uint64_t take(cursor *c, int bytes)
{
    if (c->bad || c->len - c->at < (size_t)bytes) {
        c->bad = 1;
        return 0;
    }
    uint64_t v = mcap_get_le(c->p + c->at, bytes);
    c->at += (size_t)bytes;
    return v;
}

/* A uint32-prefixed string into out (truncated to fit). */
static void take_str(cursor *c, char *out, size_t outlen)
{
    uint64_t n = take(c, 4);
    if (c->bad || c->len - c->at < n) {
        c->bad = 1;
        if (outlen) out[0] = 0;
        return;
    }
    size_t k = n < outlen - 1 ? (size_t)n : outlen - 1;
    memcpy(out, c->p + c->at, k);
    out[k] = 0;
    c->at += (size_t)n;
}

static const uint8_t *take_bytes(cursor *c, uint64_t n)
{
    if (c->bad || c->len - c->at < n) {
        c->bad = 1;
        return NULL;
    }
    const uint8_t *p = c->p + c->at;
    c->at += (size_t)n;
    return p;
}

static tycho_status on_schema(reader *r, cursor *c, uint64_t off)
{
    uint64_t id = take(c, 2);
    char name[128];
    take_str(c, name, sizeof name);
    char encoding[64];
    take_str(c, encoding, sizeof encoding);
    uint64_t n = take(c, 4);
    take_bytes(c, n);
    if (c->bad) return FAIL(r, off, "schema record too short");
    if (id == 0) return FAIL(r, off, "schema id 0 is reserved");
    if (id >= r->nschema_names) {
        char(*names)[128] = realloc(r->schema_names, (id + 1) * sizeof *names);
        if (!names) return tycho_fail(r->err, TYCHO_ENOMEM, "mcap: out of memory");
        for (size_t i = r->nschema_names; i <= id; i++) names[i][0] = 0;
        r->schema_names = names;
        r->nschema_names = id + 1;
    }
    if (!r->schema_names[id][0]) r->info->schemas++;
    memcpy(r->schema_names[id], name, sizeof name);
    return TYCHO_OK;
}

static tycho_status on_channel(reader *r, cursor *c, uint64_t off)
{
    tycho_mcap_channel_info ch = {0};
    ch.id = (uint16_t)take(c, 2);
    uint64_t schema = take(c, 2);
    take_str(c, ch.topic, sizeof ch.topic);
    take_str(c, ch.message_encoding, sizeof ch.message_encoding);
    take_bytes(c, take(c, 4)); /* metadata */
    if (c->bad) return FAIL(r, off, "channel record too short");
    if (schema && (schema >= r->nschema_names || !r->schema_names[schema][0]))
        return FAIL(r, off, "channel '%s' names schema %u before it was written", ch.topic,
                    (unsigned)schema);
    if (schema) snprintf(ch.schema_name, sizeof ch.schema_name, "%s", r->schema_names[schema]);
    if (r->slot[ch.id] >= 0) return TYCHO_OK; /* repeated (in another chunk, or the summary) */
    if (r->info->nchannels == TYCHO_MCAP_MAX_CHANNELS)
        return FAIL(r, off, "more than %d channels", TYCHO_MCAP_MAX_CHANNELS);
    r->slot[ch.id] = (int16_t)r->info->nchannels;
    r->info->channels[r->info->nchannels++] = ch;
    return TYCHO_OK;
}

static tycho_status on_message(reader *r, cursor *c, uint64_t off, uint64_t offset_in_chunk)
{
    uint16_t id = (uint16_t)take(c, 2);
    take(c, 4); /* sequence */
    uint64_t log_time = take(c, 8);
    take(c, 8); /* publish time */
    if (c->bad) return FAIL(r, off, "message record too short");
    if (r->slot[id] < 0)
        return FAIL(r, off, "message on channel %u before its channel record", (unsigned)id);
    tycho_mcap_info *info = r->info;
    tycho_mcap_channel_info *ch = &info->channels[r->slot[id]];
    if (info->messages == 0 || log_time < info->start_time) info->start_time = log_time;
    if (info->messages == 0 || log_time > info->end_time) info->end_time = log_time;
    info->messages++;
    ch->messages++;
    if (r->nmsgs == r->msgs_cap) {
        size_t cap = r->msgs_cap ? r->msgs_cap * 2 : 1024;
        seen_message *m = realloc(r->msgs, cap * sizeof *m);
        if (!m) return tycho_fail(r->err, TYCHO_ENOMEM, "mcap: out of memory");
        r->msgs = m;
        r->msgs_cap = cap;
    }
    r->msgs[r->nmsgs++] = (seen_message){id, log_time, offset_in_chunk};
    if (r->on_message && !r->stopped)
        r->stopped = r->on_message(r->ud, ch, log_time, c->p + c->at, c->len - c->at);
    return TYCHO_OK;
}

/* The records inside a decompressed chunk: schemas, channels, messages. */
static tycho_status walk_chunk_records(reader *r, const uint8_t *p, size_t len, uint64_t chunk_off)
{
    size_t at = 0;
    while (at < len) {
        if (len - at < 9) return FAIL(r, chunk_off, "chunk: record header cut at byte %zu", at);
        uint8_t op = p[at];
        uint64_t n = mcap_get_le(p + at + 1, 8);
        if (n > len - at - 9)
            return FAIL(r, chunk_off, "chunk: record at byte %zu runs past the chunk", at);
        cursor c = {p + at + 9, (size_t)n, 0, 0};
        tycho_status st = TYCHO_OK;
        if (op == MCAP_OP_SCHEMA) st = on_schema(r, &c, chunk_off);
        else if (op == MCAP_OP_CHANNEL) st = on_channel(r, &c, chunk_off);
        else if (op == MCAP_OP_MESSAGE) st = on_message(r, &c, chunk_off, at);
        else return FAIL(r, chunk_off, "chunk: record opcode 0x%02x may not be in a chunk", op);
        if (st != TYCHO_OK) return st;
        at += 9 + (size_t)n;
    }
    return TYCHO_OK;
}

static tycho_status on_chunk(reader *r, cursor *c, uint64_t off, uint64_t record_len)
{
    seen_chunk ch = {.offset = off, .length = record_len};
    ch.start_time = take(c, 8);
    ch.end_time = take(c, 8);
    ch.uncompressed = take(c, 8);
    uint32_t crc = (uint32_t)take(c, 4);
    char compression[16];
    take_str(c, compression, sizeof compression);
    ch.compressed = take(c, 8);
    const uint8_t *records = take_bytes(c, ch.compressed);
    if (c->bad) return FAIL(r, off, "chunk record too short");
    /* a chunk holds at most a few hundred MiB (the writer's chunk size, 2^28
     * at most, plus one message); a larger claim is a damaged or hostile file,
     * refused before anything is allocated for it */
    if (ch.uncompressed > MAX_CHUNK)
        return FAIL(r, off, "chunk of %llu bytes (more than %llu)",
                    (unsigned long long)ch.uncompressed, (unsigned long long)MAX_CHUNK);
    const uint8_t *plain = records;
    if (!strcmp(compression, "zstd")) {
        unsigned long long frame = ZSTD_getFrameContentSize(records, ch.compressed);
        if (frame != ZSTD_CONTENTSIZE_UNKNOWN && frame != ch.uncompressed)
            return FAIL(r, off, "chunk: the zstd frame holds %llu bytes, the chunk says %llu",
                        frame, (unsigned long long)ch.uncompressed);
        if (r->plain_cap < ch.uncompressed) {
            uint8_t *p = realloc(r->plain, ch.uncompressed ? ch.uncompressed : 1);
            if (!p) return tycho_fail(r->err, TYCHO_ENOMEM, "mcap: out of memory");
            r->plain = p;
            r->plain_cap = ch.uncompressed;
        }
        size_t n = ZSTD_decompress(r->plain, ch.uncompressed, records, ch.compressed);
        if (ZSTD_isError(n)) return FAIL(r, off, "chunk: zstd: %s", ZSTD_getErrorName(n));
        if (n != ch.uncompressed)
            return FAIL(r, off, "chunk: %zu bytes decompressed, %llu declared", n,
                        (unsigned long long)ch.uncompressed);
        plain = r->plain;
    } else if (compression[0]) {
        return FAIL(r, off, "chunk: compression '%s' not supported (zstd or none)", compression);
    } else if (ch.compressed != ch.uncompressed) {
        return FAIL(r, off, "uncompressed chunk: sizes differ");
    }
    if (crc != 0 && crc32(crc32(0, Z_NULL, 0), plain, (uInt)ch.uncompressed) != crc)
        return FAIL(r, off, "chunk CRC mismatch");
    r->nmsgs = 0;
    tycho_status st = walk_chunk_records(r, plain, (size_t)ch.uncompressed, off);
    if (st != TYCHO_OK) return st;
    for (size_t i = 0; i < r->nmsgs; i++)
        if (r->msgs[i].time < ch.start_time || r->msgs[i].time > ch.end_time)
            return FAIL(r, off, "chunk: a message's time lies outside the chunk's time range");
    if (r->chunks_cap == r->nchunks) {
        size_t cap = r->chunks_cap ? r->chunks_cap * 2 : 64;
        seen_chunk *cs = realloc(r->chunks, cap * sizeof *cs);
        if (!cs) return tycho_fail(r->err, TYCHO_ENOMEM, "mcap: out of memory");
        r->chunks = cs;
        r->chunks_cap = cap;
    }
    r->chunks[r->nchunks++] = ch;
    r->info->chunks++;
    r->info->compressed_bytes += ch.compressed;
    r->info->uncompressed_bytes += ch.uncompressed;
    return TYCHO_OK;
}

/* A Message Index after a chunk: every entry must name a message of that
 * channel with that time; together they must cover the chunk's messages. */
static tycho_status on_message_index(reader *r, cursor *c, uint64_t off, size_t *covered)
{
    if (r->nchunks == 0) return FAIL(r, off, "message index before any chunk");
    seen_chunk *ch = &r->chunks[r->nchunks - 1];
    uint16_t id = (uint16_t)take(c, 2);
    uint64_t n = take(c, 4);
    if (c->bad || n % 16 || n > c->len - c->at)
        return FAIL(r, off, "message index record malformed");
    if (r->slot[id] < 0) return FAIL(r, off, "message index for unknown channel %u", (unsigned)id);
    ch->index_offsets[r->slot[id]] = off;
    for (uint64_t k = 0; k < n / 16; k++) {
        uint64_t t = take(c, 8), o = take(c, 8);
        size_t lo = 0, hi = r->nmsgs; /* messages are in offset order */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (r->msgs[mid].offset < o) lo = mid + 1;
            else hi = mid;
        }
        if (lo == r->nmsgs || r->msgs[lo].offset != o || r->msgs[lo].channel != id ||
            r->msgs[lo].time != t)
            return FAIL(r, off,
                        "message index entry %llu (channel %u, offset %llu) names no such message",
                        (unsigned long long)k, (unsigned)id, (unsigned long long)o);
        (*covered)++;
    }
    return TYCHO_OK;
}

static const seen_chunk *chunk_at(const reader *r, uint64_t offset)
{
    for (size_t i = 0; i < r->nchunks; i++)
        if (r->chunks[i].offset == offset) return &r->chunks[i];
    return NULL;
}

static tycho_status on_chunk_index(reader *r, cursor *c, uint64_t off)
{
    uint64_t start = take(c, 8), end = take(c, 8), chunk_off = take(c, 8), chunk_len = take(c, 8);
    uint64_t map_len = take(c, 4);
    const uint8_t *map = take_bytes(c, map_len);
    take(c, 8); /* message index length */
    char compression[16];
    take_str(c, compression, sizeof compression);
    uint64_t compressed = take(c, 8), uncompressed = take(c, 8);
    if (c->bad || map_len % 10) return FAIL(r, off, "chunk index record malformed");
    seen_chunk *ch = (seen_chunk *)chunk_at(r, chunk_off);
    if (!ch)
        return FAIL(r, off, "chunk index points at %llu, where no chunk starts",
                    (unsigned long long)chunk_off);
    if (ch->length != chunk_len || ch->start_time != start || ch->end_time != end ||
        ch->compressed != compressed || ch->uncompressed != uncompressed)
        return FAIL(r, off, "chunk index disagrees with the chunk at %llu",
                    (unsigned long long)chunk_off);
    for (uint64_t k = 0; k < map_len / 10; k++) {
        uint16_t id = (uint16_t)mcap_get_le(map + k * 10, 2);
        uint64_t at = mcap_get_le(map + k * 10 + 2, 8);
        if (r->slot[id] < 0 || ch->index_offsets[r->slot[id]] != at)
            return FAIL(r, off, "chunk index: message index of channel %u is not at %llu",
                        (unsigned)id, (unsigned long long)at);
    }
    ch->matched = 1;
    return TYCHO_OK;
}

static tycho_status on_statistics(reader *r, cursor *c, uint64_t off)
{
    uint64_t messages = take(c, 8);
    take(c, 2);
    uint64_t channels = take(c, 4);
    take(c, 4);
    take(c, 4);
    uint64_t chunks = take(c, 4);
    take(c, 8);
    take(c, 8);
    uint64_t map_len = take(c, 4);
    const uint8_t *map = take_bytes(c, map_len);
    if (c->bad || map_len % 10) return FAIL(r, off, "statistics record malformed");
    if (messages != r->info->messages || chunks != r->info->chunks ||
        channels != (uint64_t)r->info->nchannels)
        return FAIL(r, off,
                    "statistics (%llu messages, %llu chunks, %llu channels) disagree with the data "
                    "(%llu, %llu, %d)",
                    (unsigned long long)messages, (unsigned long long)chunks,
                    (unsigned long long)channels, (unsigned long long)r->info->messages,
                    (unsigned long long)r->info->chunks, r->info->nchannels);
    for (uint64_t k = 0; k < map_len / 10; k++) {
        uint16_t id = (uint16_t)mcap_get_le(map + k * 10, 2);
        uint64_t n = mcap_get_le(map + k * 10 + 2, 8);
        if (r->slot[id] < 0 || r->info->channels[r->slot[id]].messages != n)
            return FAIL(r, off, "statistics: channel %u count %llu disagrees with the data",
                        (unsigned)id, (unsigned long long)n);
    }
    return TYCHO_OK;
}

static tycho_status read_records(reader *r, bool closed)
{
    const uint8_t *f = r->file;
    /* before the closing magic; a file cut short has none */
    size_t end = closed ? r->size - MCAP_MAGIC_LEN : r->size;
    size_t at = MCAP_MAGIC_LEN;
    int in_summary = 0, saw_header = 0, saw_footer = 0;
    size_t covered = 0, chunk_msgs = 0;
    while (at < end) {
        if (saw_footer) return FAIL(r, at, "record after the footer");
        bool whole = end - at >= 9 && mcap_get_le(f + at + 1, 8) <= end - at - 9;
        if (!whole && !closed) break; /* the record the cut went through */
        if (end - at < 9) return FAIL(r, at, "record header cut short");
        uint8_t op = f[at];
        uint64_t n = mcap_get_le(f + at + 1, 8);
        if (n > end - at - 9)
            return FAIL(r, at, "record (opcode 0x%02x) runs past the end of the file", op);
        cursor c = {f + at + 9, (size_t)n, 0, 0};
        if (!saw_header && op != MCAP_OP_HEADER)
            return FAIL(r, at, "the first record is not a header");
        /* a chunk's message indexes follow it directly */
        if (op != MCAP_OP_MESSAGE_INDEX && chunk_msgs != covered)
            return FAIL(r, at, "the message indexes cover %zu of the chunk's %zu messages", covered,
                        chunk_msgs);
        tycho_status st = TYCHO_OK;
        switch (op) {
        case MCAP_OP_HEADER:
            if (saw_header) return FAIL(r, at, "second header");
            saw_header = 1;
            take_str(&c, r->info->profile, sizeof r->info->profile);
            take_str(&c, r->info->library, sizeof r->info->library);
            if (c.bad) return FAIL(r, at, "header record too short");
            break;
        case MCAP_OP_SCHEMA:
            st = on_schema(r, &c, at);
            break;
        case MCAP_OP_CHANNEL:
            st = on_channel(r, &c, at);
            break;
        case MCAP_OP_MESSAGE:
            if (in_summary) return FAIL(r, at, "message in the summary section");
            st = on_message(r, &c, at, 0);
            break;
        case MCAP_OP_CHUNK:
            if (in_summary) return FAIL(r, at, "chunk in the summary section");
            st = on_chunk(r, &c, at, 9 + n);
            covered = 0;
            chunk_msgs = r->nmsgs;
            break;
        case MCAP_OP_MESSAGE_INDEX:
            st = on_message_index(r, &c, at, &covered);
            break;
        case MCAP_OP_CHUNK_INDEX:
            st = on_chunk_index(r, &c, at);
            break;
        case MCAP_OP_STATISTICS:
            st = on_statistics(r, &c, at);
            break;
        case MCAP_OP_DATA_END: {
            uint32_t crc = (uint32_t)take(&c, 4);
            if (c.bad) return FAIL(r, at, "data end record too short");
            if (crc != 0 && crc32(crc32(0, Z_NULL, 0), f, (uInt)at) != crc)
                return FAIL(r, at, "data section CRC mismatch");
            in_summary = 1;
            break;
        }
        case MCAP_OP_SUMMARY_OFFSET: {
            uint8_t group = (uint8_t)take(&c, 1);
            uint64_t start = take(&c, 8), len = take(&c, 8);
            if (c.bad || start > end || len > end - start || (len && f[start] != group))
                return FAIL(r, at, "summary offset for opcode 0x%02x points at no such group",
                            group);
            break;
        }
        case MCAP_OP_FOOTER: {
            uint64_t summary_start = take(&c, 8);
            take(&c, 8);
            uint32_t crc = (uint32_t)take(&c, 4);
            if (c.bad) return FAIL(r, at, "footer record too short");
            if (summary_start > at) return FAIL(r, at, "footer: summary start beyond the footer");
            if (summary_start && crc != 0 &&
                crc32(crc32(0, Z_NULL, 0), f + summary_start, (uInt)(at + 25 - summary_start)) !=
                    crc)
                return FAIL(r, at, "summary section CRC mismatch");
            saw_footer = 1;
            break;
        }
        default:
            break; /* attachments, metadata and future records are skipped */
        }
        if (st != TYCHO_OK) return st;
        at += 9 + (size_t)n;
    }
    if (!closed) {
        if (saw_footer) return FAIL(r, at, "a footer but no closing magic");
        if (!saw_header) return FAIL(r, at, "cut short before its header");
        r->info->cut = true;
        r->info->cut_offset = at;
        return TYCHO_OK;
    }
    if (!saw_footer) return FAIL(r, at, "no footer");
    for (size_t i = 0; i < r->nchunks; i++)
        if (!r->chunks[i].matched)
            return FAIL(r, r->chunks[i].offset, "chunk has no chunk index in the summary");
    return TYCHO_OK;
}

tycho_status tycho_mcap_read_memory(const uint8_t *data, size_t size, const char *name,
                                    tycho_mcap_info *info, tycho_mcap_message_fn on_msg, void *ud,
                                    tycho_err *err)
{
    return tycho_mcap_read_memory_flags(data, size, name, 0, info, on_msg, ud, err);
}

tycho_status tycho_mcap_read_memory_flags(const uint8_t *data, size_t size, const char *name,
                                          unsigned flags, tycho_mcap_info *info,
                                          tycho_mcap_message_fn on_msg, void *ud, tycho_err *err)
{
    memset(info, 0, sizeof *info);
    bool closed = size >= 2 * MCAP_MAGIC_LEN &&
                  memcmp(data + size - MCAP_MAGIC_LEN, MCAP_MAGIC, MCAP_MAGIC_LEN) == 0;
    bool cut_ok = (flags & TYCHO_MCAP_READ_CUT) != 0;
    if (!(closed || cut_ok) && size >= MCAP_MAGIC_LEN && size < 2 * MCAP_MAGIC_LEN + 9 + 29)
        return tycho_fail(err, TYCHO_EPARSE, "%s: too short for MCAP", name);
    if (size < MCAP_MAGIC_LEN) return tycho_fail(err, TYCHO_EPARSE, "%s: too short for MCAP", name);
    reader *r = calloc(1, sizeof *r);
    if (!r) return tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory");
    r->path = name;
    r->err = err;
    r->info = info;
    r->on_message = on_msg;
    r->ud = ud;
    r->file = data;
    r->size = size;
    r->flags = flags;
    memset(r->slot, 0xff, sizeof r->slot);
    tycho_status st;
    if (memcmp(data, MCAP_MAGIC, MCAP_MAGIC_LEN) != 0) st = FAIL(r, 0, "no MCAP magic");
    else if (!closed && !cut_ok)
        st = FAIL(r, size - MCAP_MAGIC_LEN, "no closing magic (unfinished recording?)");
    else st = read_records(r, closed);
    free(r->schema_names);
    free(r->msgs);
    free(r->chunks);
    free(r->plain);
    free(r);
    return st;
}

tycho_status tycho_mcap_read(const char *path, tycho_mcap_info *info, tycho_mcap_message_fn on_msg,
                             void *ud, tycho_err *err)
{
    return tycho_mcap_read_flags(path, 0, info, on_msg, ud, err);
}

tycho_status tycho_mcap_read_flags(const char *path, unsigned flags, tycho_mcap_info *info,
                                   tycho_mcap_message_fn on_msg, void *ud, tycho_err *err)
{
    memset(info, 0, sizeof *info);
    FILE *fp = fopen(path, "rb");
    if (!fp) return tycho_fail(err, TYCHO_EIO, "%s: %s", path, strerror(errno));
    tycho_status st = TYCHO_OK;
    long size = (fseek(fp, 0, SEEK_END) == 0) ? ftell(fp) : -1;
    rewind(fp);
    uint8_t *file = size > 0 ? malloc((size_t)size) : NULL;
    if (size < 0) st = tycho_fail(err, TYCHO_EIO, "%s: cannot tell its size", path);
    else if (size == 0) st = tycho_fail(err, TYCHO_EPARSE, "%s: empty file", path);
    else if (!file) st = tycho_fail(err, TYCHO_ENOMEM, "%s: out of memory", path);
    else if (fread(file, 1, (size_t)size, fp) != (size_t)size)
        st = tycho_fail(err, TYCHO_EIO, "%s: read failed", path);
    fclose(fp);
    if (st == TYCHO_OK)
        st = tycho_mcap_read_memory_flags(file, (size_t)size, path, flags, info, on_msg, ud, err);
    free(file);
    return st;
}
