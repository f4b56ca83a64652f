/* MCAP writer and reader: round trips with and without compression over
 * several chunks, the reader's checks against corrupted files, misuse. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check.h"
#include "tycho/mcap.h"

typedef struct {
    int n;
    int bad_order; /* a message out of the order written */
    int bad_payload;
} seen;

/* Message k carries "{\"k\":K}" on channel 1 + k % 3, at time 1000 + 10 k ns. */
static int on_message(void *ud, const tycho_mcap_channel_info *ch, uint64_t t, const uint8_t *data,
                      size_t len)
{
    seen *s = ud;
    char want[32];
    int k = s->n++;
    snprintf(want, sizeof want, "{\"k\":%d}", k);
    if (t != 1000 + 10 * (uint64_t)k || ch->id != 1 + k % 3) s->bad_order++;
    if (len != strlen(want) || memcmp(data, want, len) != 0) s->bad_payload++;
    return 0;
}

static const char *write_file(const char *path, int compress, size_t chunk_size, int nmsg)
{
    tycho_err err = {0};
    tycho_mcap_options opt;
    tycho_mcap_options_defaults(&opt);
    opt.compress = compress;
    opt.chunk_size = chunk_size;
    tycho_mcap_writer *w = tycho_mcap_open(path, &opt, NULL, &err);
    if (!CHECKED(w != NULL, err.msg)) return NULL;
    const char *schema = "{\"type\":\"object\",\"properties\":{\"k\":{\"type\":\"integer\"}}}";
    uint16_t s1 = tycho_mcap_add_schema(w, "test.K", "jsonschema", schema, strlen(schema), &err);
    CHECK(s1 == 1);
    CHECK(tycho_mcap_add_channel(w, s1, "/a", "json", &err) == 1);
    CHECK(tycho_mcap_add_channel(w, s1, "/b", "json", &err) == 2);
    CHECK(tycho_mcap_add_channel(w, 0, "/c", "json", &err) == 3);
    CHECK(tycho_mcap_add_channel(w, 7, "/d", "json", &err) == 0 && err.code == TYCHO_EINVAL);
    CHECK(tycho_mcap_write(w, 9, 0, 0, "x", 1, &err) == TYCHO_EINVAL);
    for (int k = 0; k < nmsg; k++) {
        char buf[32];
        int n = snprintf(buf, sizeof buf, "{\"k\":%d}", k);
        uint64_t t = 1000 + 10 * (uint64_t)k;
        if (tycho_mcap_write(w, (uint16_t)(1 + k % 3), t, t, buf, (size_t)n, &err) != TYCHO_OK) {
            CHECKED(0, err.msg);
            tycho_mcap_abort(w);
            return NULL;
        }
    }
    char part[600];
    snprintf(part, sizeof part, "%s.part", path);
    CHECK(access(part, F_OK) == 0); /* the recording is written beside, under .part */
    CHECKED(tycho_mcap_close(w, &err) == TYCHO_OK, err.msg);
    CHECK(access(part, F_OK) != 0);
    return path;
}

static void round_trip(int compress)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tycho_test_mcap_%d_%d.mcap", P_tmpdir, (int)getpid(), compress);
    int nmsg = 5000;
    if (!write_file(path, compress, 4096, nmsg)) return;
    tycho_mcap_info info;
    tycho_err err = {0};
    seen s = {0};
    if (!CHECKED(tycho_mcap_read(path, &info, on_message, &s, &err) == TYCHO_OK, err.msg)) return;
    CHECK(info.messages == (uint64_t)nmsg);
    CHECK(s.n == nmsg && s.bad_order == 0 && s.bad_payload == 0);
    CHECK(info.chunks > 5); /* 4 KiB chunks: many */
    CHECK(info.nchannels == 3 && info.schemas == 1);
    CHECK(!strcmp(info.channels[0].topic, "/a") && !strcmp(info.channels[0].schema_name, "test.K"));
    CHECK(info.channels[2].schema_name[0] == 0);
    CHECK(info.channels[0].messages + info.channels[1].messages + info.channels[2].messages ==
          (uint64_t)nmsg);
    CHECK(info.start_time == 1000 && info.end_time == 1000 + 10 * (uint64_t)(nmsg - 1));
    CHECK(!strncmp(info.library, "tycho", 5));
    if (compress)
        CHECK_MSG(info.compressed_bytes * 3 < info.uncompressed_bytes, "%llu of %llu",
                  (unsigned long long)info.compressed_bytes,
                  (unsigned long long)info.uncompressed_bytes);
    else CHECK(info.compressed_bytes == info.uncompressed_bytes);

    /* corruptions the reader must catch, each on a fresh copy */
    FILE *fp = fopen(path, "rb");
    if (!CHECKED(fp != NULL, path)) return;
    static unsigned char orig[1 << 20];
    size_t size = fread(orig, 1, sizeof orig, fp);
    fclose(fp);
    CHECK(size > 100 && size < sizeof orig);
    struct {
        size_t at;
        const char *expect;
    } cases[] = {
        {0, "no MCAP magic"},
        {size - 1, "closing magic"},
        {size - 8 - 4, "summary section CRC"}, /* the footer's CRC itself */
        {200, compress ? "chunk" : "CRC"},     /* inside the first chunk's records */
    };
    char bad[600];
    snprintf(bad, sizeof bad, "%s.bad", path);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fp = fopen(bad, "wb");
        if (!fp) break;
        unsigned char saved = orig[cases[i].at];
        orig[cases[i].at] ^= 0x5a;
        fwrite(orig, 1, size, fp);
        fclose(fp);
        orig[cases[i].at] = saved;
        tycho_err e = {0};
        CHECK(tycho_mcap_read(bad, &info, NULL, NULL, &e) == TYCHO_EPARSE);
        CHECK_MSG(strstr(e.msg, cases[i].expect) != NULL, "case %zu: %s", i, e.msg);
        CHECK_MSG(strstr(e.msg, "offset") != NULL, "%s", e.msg);
    }
    /* a chunk that claims a terabyte: refused before anything is allocated */
    {
        size_t hdr = 8 + 9 + (size_t)(orig[9] | orig[10] << 8); /* magic, header record */
        size_t field = hdr + 9 + 16; /* chunk: start, end, uncompressed size */
        unsigned char saved[8];
        memcpy(saved, orig + field, 8);
        memset(orig + field, 0, 8);
        orig[field + 5] = 1; /* 2^40 */
        fp = fopen(bad, "wb");
        if (fp) {
            fwrite(orig, 1, size, fp);
            fclose(fp);
            tycho_err e = {0};
            CHECK(tycho_mcap_read(bad, &info, NULL, NULL, &e) == TYCHO_EPARSE);
            CHECK_MSG(strstr(e.msg, "more than") != NULL, "%s", e.msg);
        }
        memcpy(orig + field, saved, 8);
    }
    /* cut short: a recording that never closed is refused, unless cut_ok,
     * when every whole record before the cut is read (the messages of the
     * chunks that were written, each chunk checked) and the cut reported */
    tycho_mcap_info whole;
    CHECK(tycho_mcap_read(path, &whole, NULL, NULL, NULL) == TYCHO_OK);
    CHECK(tycho_mcap_read_flags(path, TYCHO_MCAP_READ_CUT, &info, NULL, NULL, NULL) == TYCHO_OK);
    CHECK(!info.cut && info.messages == whole.messages);
    uint64_t last_messages = 0;
    int cuts_read = 0;
    for (int k = 1; k <= 8; k++) {
        fp = fopen(bad, "wb");
        if (!fp) break;
        fwrite(orig, 1, size * k / 9, fp);
        fclose(fp);
        tycho_err e = {0};
        CHECK(tycho_mcap_read(bad, &info, NULL, NULL, &e) == TYCHO_EPARSE);
        CHECK_MSG(strstr(e.msg, "closing magic") != NULL, "%s", e.msg);
        if (tycho_mcap_read_flags(bad, TYCHO_MCAP_READ_CUT, &info, NULL, NULL, &e) != TYCHO_OK) {
            CHECK_MSG(0, "cut at %ld/9: %s", (long)k, e.msg);
            continue;
        }
        cuts_read++;
        CHECK(info.cut && info.cut_offset <= (uint64_t)size * k / 9);
        CHECK(info.messages <= whole.messages && info.messages >= last_messages);
        last_messages = info.messages;
    }
    CHECK(cuts_read == 8);
    CHECK(last_messages > 0 && last_messages < whole.messages);
    /* a damaged chunk before the cut is still an error */
    fp = fopen(bad, "wb");
    if (fp) {
        unsigned char *copy = malloc(size);
        if (copy) {
            memcpy(copy, orig, size);
            copy[size / 2] ^= 0x5a; /* inside some chunk's compressed bytes */
            fwrite(copy, 1, size * 8 / 9, fp);
            free(copy);
        }
        fclose(fp);
        tycho_err e = {0};
        CHECK(tycho_mcap_read_flags(bad, TYCHO_MCAP_READ_CUT, &info, NULL, NULL, &e) ==
              TYCHO_EPARSE);
    }
    remove(bad);
    remove(path);
}

static void empty_recording(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tycho_test_mcap_empty_%d.mcap", P_tmpdir, (int)getpid());
    tycho_err err = {0};
    tycho_mcap_writer *w = tycho_mcap_open(path, NULL, NULL, &err);
    if (!CHECKED(w != NULL, err.msg)) return;
    CHECKED(tycho_mcap_close(w, &err) == TYCHO_OK, err.msg);
    tycho_mcap_info info;
    CHECKED(tycho_mcap_read(path, &info, NULL, NULL, &err) == TYCHO_OK, err.msg);
    CHECK(info.messages == 0 && info.chunks == 0);
    remove(path);
    /* a schema and a channel, never a message: their chunk has no index
     * entries (UBSan caught the sort of none) */
    if (!CHECKED((w = tycho_mcap_open(path, NULL, NULL, &err)) != NULL, err.msg)) return;
    CHECK(tycho_mcap_add_schema(w, "test.K", "jsonschema", "{}", 2, &err) == 1);
    CHECK(tycho_mcap_add_channel(w, 1, "/a", "json", &err) == 1);
    CHECKED(tycho_mcap_close(w, &err) == TYCHO_OK, err.msg);
    CHECKED(tycho_mcap_read(path, &info, NULL, NULL, &err) == TYCHO_OK, err.msg);
    CHECK(info.messages == 0 && info.nchannels == 1);
    remove(path);
}

/* Abort removes a file not finished, and leaves one whose close was
 * started (the thread finishes it first): a recording is never lost half
 * way, nor left half written. */
static void aborted(void)
{
    char path[512], part[530];
    snprintf(path, sizeof path, "%s/tycho_test_mcap_abort_%d.mcap", P_tmpdir, (int)getpid());
    snprintf(part, sizeof part, "%s.part", path);
    tycho_mcap_options o;
    tycho_mcap_options_defaults(&o);
    o.threaded = 1;
    for (int started = 0; started < 2; started++) {
        tycho_err err = {0};
        tycho_mcap_writer *w = tycho_mcap_open(path, &o, NULL, &err);
        if (!CHECKED(w != NULL, err.msg)) return;
        CHECK(tycho_mcap_add_schema(w, "test.K", "jsonschema", "{}", 2, &err) == 1);
        CHECK(tycho_mcap_add_channel(w, 1, "/a", "json", &err) == 1);
        CHECK(tycho_mcap_write(w, 1, 5, 5, "{}", 2, &err) == TYCHO_OK);
        if (started) tycho_mcap_close_start(w);
        tycho_mcap_abort(w);
        tycho_mcap_info info;
        int read = tycho_mcap_read(path, &info, NULL, NULL, &err) == TYCHO_OK;
        CHECK_MSG(read == started, "close started %d: the file %s", started,
                  read ? "is there" : "is not");
        if (started) CHECK(info.messages == 1);
        CHECK(access(part, F_OK) != 0);
        remove(path);
    }
}

static void misuse(void)
{
    tycho_err err = {0};
    CHECK(tycho_mcap_open("/nonexistent-dir/x.mcap", NULL, NULL, &err) == NULL &&
          err.code == TYCHO_EIO);
    CHECK(strstr(err.msg, "/nonexistent-dir/x.mcap.part") != NULL);
    tycho_mcap_info info;
    CHECK(tycho_mcap_read("/nonexistent-dir/x.mcap", &info, NULL, NULL, &err) == TYCHO_EIO);
}

/* An encoder: the payload is an int k; "{\"e\":K}", or nothing for k % 7 == 0
 * (having begun to write: what it wrote must be dropped, for the encoder
 * writes into the chunk itself). */
static int encode_k(const void *payload, size_t len, tycho_text *out)
{
    int k;
    if (len != sizeof k) return 0;
    memcpy(&k, payload, sizeof k);
    if (k % 7 == 0) {
        tycho_text_put(out, "{\"half", 6);
        return 0;
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "{\"e\":%d}", k);
    tycho_text_put(out, buf, (size_t)n);
    return 1;
}

/* Writes messages plain, encoded and reserved in place, small ones (the
 * queue stages them) among larger ones (copied into its blocks straight)
 * and one larger than a block, a reservation given up now and then;
 * schemas and a channel added half way. Returns the file's bytes
 * (malloc'd) or NULL. */
static unsigned char *write_mixed(const char *path, int threaded, size_t queue_limit, int batched,
                                  long *size, uint64_t *waits)
{
    tycho_mcap_batch batch = {0};
    tycho_err err = {0};
    tycho_mcap_options opt;
    tycho_mcap_options_defaults(&opt);
    opt.chunk_size = 8192;
    opt.threaded = threaded;
    opt.queue_limit = queue_limit;
    tycho_mcap_writer *w = tycho_mcap_open(path, &opt, NULL, &err);
    if (!CHECKED(w != NULL, err.msg)) return NULL;
    CHECK(tycho_mcap_add_schema(w, "test.K", "jsonschema", "{}", 2, &err) == 1);
    CHECK(tycho_mcap_add_channel(w, 1, "/a", "json", &err) == 1);
    static char big[600000]; /* larger than a queue block */
    for (size_t i = 0; i < sizeof big; i++) big[i] = (char)('a' + i % 26);
    for (int k = 0; k < 20000; k++) {
        uint64_t t = 1000 + 10 * (uint64_t)k;
        /* batched: runs of 50 messages gathered and queued as one job, the
         * batch queued before any message written otherwise */
        int in_batch = batched && k >= 2000 && k < 6000 && (k / 50) % 2 == 1;
        if (batch.len && (!in_batch || k % 50 == 0 || k % 97 == 5 || k % 101 == 7))
            CHECKED(tycho_mcap_write_batch(w, &batch, &err) == TYCHO_OK, err.msg);
        if (in_batch && k % 97 != 5 && k % 101 != 7) {
            char buf[48];
            int n = snprintf(buf, sizeof buf, "{\"k\":%d,\"pad\":\"%0*d\"}", k, k % 23, 0);
            void *p = k % 3 == 0 ? tycho_mcap_batch_add(&batch, 1, t, NULL, (size_t)n)
                                 : tycho_mcap_batch_add(&batch, 1, t, encode_k, sizeof k);
            if (!CHECKED(p != NULL, "batch_add")) break;
            if (k % 3 == 0) memcpy(p, buf, (size_t)n);
            else memcpy(p, &k, sizeof k);
            continue;
        }
        if (k % 97 == 5) { /* a larger message between small ones: 200 B to 3.2 KB */
            size_t n = k == 5005 ? sizeof big : 200 + (size_t)(k * 37) % 3000;
            CHECKED(tycho_mcap_write(w, 1, t - 1, t - 1, big, n, &err) == TYCHO_OK, err.msg);
        }
        if (k % 101 == 7) CHECK(tycho_mcap_reserve(w, (size_t)(k % 300), &err) != NULL);
        if (k == 10000) CHECK(tycho_mcap_add_channel(w, 1, "/late", "json", &err) == 2);
        uint16_t ch = k >= 10000 && k % 2 ? 2 : 1;
        tycho_status st;
        if (k % 3 == 0) {
            char buf[48];
            int n = snprintf(buf, sizeof buf, "{\"k\":%d,\"pad\":\"%0*d\"}", k, k % 23, 0);
            st = tycho_mcap_write(w, ch, t, t, buf, (size_t)n, &err);
        } else if (k % 3 == 1) {
            st = tycho_mcap_write_encoded(w, ch, t, encode_k, &k, sizeof k, &err);
        } else {
            int *p = tycho_mcap_reserve(w, sizeof *p, &err);
            if (!CHECKED(p != NULL, err.msg)) break;
            *p = k;
            st = tycho_mcap_commit(w, ch, t, encode_k, sizeof *p, &err);
        }
        if (!CHECKED(st == TYCHO_OK, err.msg)) break;
    }
    CHECK(tycho_mcap_write(w, 9, 0, 0, "x", 1, &err) == TYCHO_EINVAL);
    if (batched) { /* an unknown channel in a batch: nothing of it is queued */
        CHECK(tycho_mcap_batch_add(&batch, 1, 1u << 30, NULL, 2) != NULL);
        CHECK(tycho_mcap_batch_add(&batch, 9, 1u << 30, NULL, 2) != NULL);
        CHECK(tycho_mcap_write_batch(w, &batch, &err) == TYCHO_EINVAL && batch.len == 0);
    }
    tycho_mcap_batch_free(&batch);
    *waits = tycho_mcap_queue_waits(w);
    if (threaded) {
        /* the thread finishes the file on its own; nothing more is taken */
        tycho_mcap_close_start(w);
        tycho_err late = {0};
        CHECK(tycho_mcap_write(w, 1, 1u << 30, 1u << 30, "{}", 2, &late) == TYCHO_EINVAL);
        CHECK_MSG(strstr(late.msg, "closing") != NULL, "%s", late.msg);
        CHECK(tycho_mcap_reserve(w, 8, &late) == NULL);
        CHECK(tycho_mcap_add_channel(w, 1, "/later", "json", &late) == 0);
    }
    CHECKED(tycho_mcap_close(w, &err) == TYCHO_OK, err.msg);
    FILE *fp = fopen(path, "rb");
    if (!CHECKED(fp != NULL, path)) return NULL;
    unsigned char *bytes = malloc(1 << 22);
    *size = (long)fread(bytes, 1, 1 << 22, fp);
    fclose(fp);
    remove(path);
    return bytes;
}

/* A threaded writer makes the file an unthreaded one makes, byte for byte,
 * with a queue so small that the caller has to wait for the thread; and
 * messages queued in batches (tycho_mcap_batch) make the same file as
 * the same messages written one by one, threaded or not. */
static void threaded_same_file(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tycho_test_mcap_thr_%d.mcap", P_tmpdir, (int)getpid());
    long size0 = 0, size1 = 0, size2 = 0;
    uint64_t waits0 = 0, waits1 = 0, waits2 = 0;
    long size3 = 0, size4 = 0;
    uint64_t waits3 = 0, waits4 = 0;
    unsigned char *plain = write_mixed(path, 0, 0, 0, &size0, &waits0);
    unsigned char *threaded = write_mixed(path, 1, (size_t)64 << 20, 0, &size1, &waits1);
    unsigned char *tight = write_mixed(path, 1, 1, 0, &size2, &waits2); /* the smallest queue */
    unsigned char *batched = write_mixed(path, 1, (size_t)64 << 20, 1, &size3, &waits3);
    unsigned char *batched0 = write_mixed(path, 0, 0, 1, &size4, &waits4);
    if (plain && threaded && tight && batched && batched0) {
        CHECK(size0 > 10000 && size0 < (1 << 22));
        CHECK(size1 == size0 && memcmp(plain, threaded, (size_t)size0) == 0);
        CHECK(size2 == size0 && memcmp(plain, tight, (size_t)size0) == 0);
        CHECK(size3 == size0 && memcmp(plain, batched, (size_t)size0) == 0);
        CHECK(size4 == size0 && memcmp(plain, batched0, (size_t)size0) == 0);
        tycho_mcap_info info;
        tycho_err err = {0};
        CHECKED(tycho_mcap_read_memory(plain, (size_t)size0, "mixed", &info, NULL, NULL, &err) ==
                    TYCHO_OK,
                err.msg);
        /* every k % 7 == 0 encoded one (k % 3 != 0) is left out */
        int expect = 0;
        for (int k = 0; k < 20000; k++) expect += !(k % 3 != 0 && k % 7 == 0) + (k % 97 == 5);
        CHECK_MSG(info.messages == (uint64_t)expect, "%llu of %d",
                  (unsigned long long)info.messages, expect);
        CHECK(info.nchannels == 2);
    }
    CHECK(waits0 == 0);
    free(plain);
    free(threaded);
    free(tight);
    free(batched);
    free(batched0);
}

/* A disk that fills up (a file size limit here): the write that fails,
 * or a later one on a threaded writer, reports it; close reports it and
 * leaves no file. */
static void full_disk(int threaded)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tycho_test_mcap_full_%d_%d.mcap", P_tmpdir, (int)getpid(),
             threaded);
    struct rlimit old, small = {64 << 10, 64 << 10};
    getrlimit(RLIMIT_FSIZE, &old);
    small.rlim_max = old.rlim_max;
    signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &small);
    tycho_err err = {0};
    tycho_mcap_options opt;
    tycho_mcap_options_defaults(&opt);
    opt.compress = 0;
    opt.chunk_size = 4096;
    opt.threaded = threaded;
    tycho_mcap_writer *w = tycho_mcap_open(path, &opt, NULL, &err);
    if (CHECKED(w != NULL, err.msg)) {
        CHECK(tycho_mcap_add_channel(w, 0, "/a", "json", &err) == 1);
        int failed_at = -1;
        char buf[256];
        memset(buf, 'x', sizeof buf);
        for (int k = 0; k < 100000 && failed_at < 0; k++)
            if (tycho_mcap_write(w, 1, (uint64_t)k, (uint64_t)k, buf, sizeof buf, &err) != TYCHO_OK)
                failed_at = k;
        CHECK_MSG(failed_at > 0, "failed at %d", failed_at);
        CHECK_MSG(strstr(err.msg, "write failed") != NULL, "%s", err.msg);
        /* after it, a message built in place is refused too (a reservation
         * that needs a new block, or the commit), with the disk's error */
        tycho_err rerr = {0};
        void *p = tycho_mcap_reserve(w, (size_t)1 << 20, &rerr);
        tycho_status st = TYCHO_OK;
        if (p) {
            memset(p, 'y', (size_t)1 << 20);
            st = tycho_mcap_commit(w, 1, 1u << 30, NULL, (size_t)1 << 20, &rerr);
        }
        CHECK_MSG(!p || st != TYCHO_OK, "reserve %p, commit %d", p, (int)st);
        CHECK_MSG(rerr.code != TYCHO_OK && rerr.msg[0], "%d %s", (int)rerr.code, rerr.msg);
        tycho_err cerr = {0};
        if (threaded) tycho_mcap_close_start(w); /* the thread meets the failure alone */
        CHECK(tycho_mcap_close(w, &cerr) != TYCHO_OK && cerr.msg[0]);
        char part[600];
        snprintf(part, sizeof part, "%s.part", path);
        CHECK(access(part, F_OK) != 0 && access(path, F_OK) != 0);
    }
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_DFL);
}

int main(void)
{
    round_trip(1);
    round_trip(0);
    threaded_same_file();
    full_disk(0);
    full_disk(1);
    empty_recording();
    aborted();
    misuse();
    return check_summary("test_mcap");
}
