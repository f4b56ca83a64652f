/* Console protocol frames (core/frame.c): any chunking, limits, bad types. */
#include "check.h"
#include "tycho/frame.h"

#include <string.h>

static size_t put(uint8_t *buf, char type, const char *payload)
{
    size_t n = strlen(payload);
    tycho_frame_header(buf, type, (uint32_t)n);
    memcpy(buf + TYCHO_FRAME_HEADER, payload, n);
    return TYCHO_FRAME_HEADER + n;
}

static void test_chunked_stream(void)
{
    uint8_t stream[256];
    size_t n = put(stream, 'E', "1 + 1");
    n += put(stream + n, 'P', "tycho> ");
    n += put(stream + n, 'Q', "");
    /* every split of the stream into 1-byte feeds gives the same frames */
    tycho_frame_reader r;
    tycho_frame_reader_init(&r, 1024);
    const char *want_type = "EPQ";
    const char *want_payload[] = {"1 + 1", "tycho> ", ""};
    int got = 0;
    for (size_t i = 0; i < n; i++) {
        CHECK(tycho_frame_reader_feed(&r, stream + i, 1, NULL) == TYCHO_OK);
        char t;
        const uint8_t *p;
        size_t len;
        int rc;
        while ((rc = tycho_frame_next(&r, &t, &p, &len, NULL)) == 1) {
            CHECK(got < 3);
            if (got >= 3) break;
            CHECK(t == want_type[got]);
            CHECK(len == strlen(want_payload[got]) && !memcmp(p, want_payload[got], len));
            got++;
        }
        CHECK(rc == 0 || rc == 1);
    }
    CHECK(got == 3);
    tycho_frame_reader_free(&r);
}

static void test_oversized_refused_from_header(void)
{
    tycho_frame_reader r;
    tycho_frame_reader_init(&r, 16);
    uint8_t h[TYCHO_FRAME_HEADER];
    tycho_frame_header(h, 'E', 17);
    tycho_frame_reader_feed(&r, h, sizeof h, NULL); /* no body needed to refuse it */
    char t;
    const uint8_t *p;
    size_t len;
    tycho_err err = {0};
    CHECK(tycho_frame_next(&r, &t, &p, &len, &err) == -1);
    CHECK(strstr(err.msg, "oversized frame: 17 bytes (limit 16)") != NULL);
    /* and the connection stays failed */
    CHECK(tycho_frame_next(&r, &t, &p, &len, NULL) == -1);
    tycho_frame_reader_free(&r);

    /* exactly at the limit is fine */
    tycho_frame_reader_init(&r, 5);
    uint8_t buf[32];
    size_t n = put(buf, 'O', "12345");
    tycho_frame_reader_feed(&r, buf, n, NULL);
    CHECK(tycho_frame_next(&r, &t, &p, &len, NULL) == 1 && len == 5);
    tycho_frame_reader_free(&r);
}

static void test_bad_type(void)
{
    tycho_frame_reader r;
    tycho_frame_reader_init(&r, 64);
    const uint8_t garbage[] = {0, 0, 0, 1, 'e', 'x'};
    tycho_frame_reader_feed(&r, garbage, sizeof garbage, NULL);
    char t;
    const uint8_t *p;
    size_t len;
    tycho_err err = {0};
    CHECK(tycho_frame_next(&r, &t, &p, &len, &err) == -1);
    CHECK(strstr(err.msg, "type byte 0x65") != NULL);
    tycho_frame_reader_free(&r);
}

int main(void)
{
    test_chunked_stream();
    test_oversized_refused_from_header();
    test_bad_type();
    return check_summary("frame");
}
