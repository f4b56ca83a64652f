/* Console protocol frames: see tycho/frame.h. */
#include "tycho/frame.h"

#include <stdlib.h>
#include <string.h>

void tycho_frame_reader_init(tycho_frame_reader *r, size_t limit)
{
    memset(r, 0, sizeof *r);
    r->limit = limit;
}

void tycho_frame_reader_free(tycho_frame_reader *r)
{
    free(r->buf);
    memset(r, 0, sizeof *r);
}

tycho_status tycho_frame_reader_feed(tycho_frame_reader *r, const void *data, size_t n,
                                     tycho_err *err)
{
    if (n == 0) return TYCHO_OK;
    if (r->start > 0) { /* keep unread bytes at the front so the buffer stays small */
        memmove(r->buf, r->buf + r->start, r->len);
        r->start = 0;
    }
    if (r->len + n > r->cap) {
        size_t cap = r->cap ? r->cap : 4096;
        while (cap < r->len + n) cap *= 2;
        uint8_t *b = realloc(r->buf, cap);
        if (!b) return tycho_fail(err, TYCHO_ENOMEM, "frame reader: out of memory");
        r->buf = b;
        r->cap = cap;
    }
    memcpy(r->buf + r->len, data, n);
    r->len += n;
    return TYCHO_OK;
}

int tycho_frame_next(tycho_frame_reader *r, char *type, const uint8_t **payload, size_t *len,
                     tycho_err *err)
{
    if (r->failed) {
        tycho_fail(err, TYCHO_EPARSE, "connection already failed");
        return -1;
    }
    if (r->len < TYCHO_FRAME_HEADER) return 0;
    const uint8_t *h = r->buf + r->start;
    uint32_t n = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
    if (h[4] < 'A' || h[4] > 'Z') {
        r->failed = true;
        tycho_fail(err, TYCHO_EPARSE, "malformed frame: type byte 0x%02x is not 'A'..'Z'", h[4]);
        return -1;
    }
    /* checked on the header alone: an oversized frame is refused before
     * its body is buffered */
    if (n > r->limit) {
        r->failed = true;
        tycho_fail(err, TYCHO_ERANGE, "oversized frame: %u bytes (limit %zu)", n, r->limit);
        return -1;
    }
    if (r->len - TYCHO_FRAME_HEADER < n) return 0;
    *type = (char)h[4];
    *payload = h + TYCHO_FRAME_HEADER;
    *len = n;
    r->start += TYCHO_FRAME_HEADER + n;
    r->len -= TYCHO_FRAME_HEADER + n;
    return 1;
}

void tycho_frame_header(uint8_t out[TYCHO_FRAME_HEADER], char type, uint32_t len)
{
    out[0] = (uint8_t)(len >> 24);
    out[1] = (uint8_t)(len >> 16);
    out[2] = (uint8_t)(len >> 8);
    out[3] = (uint8_t)len;
    out[4] = (uint8_t)type;
}
