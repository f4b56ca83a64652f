/* libFuzzer target: the console protocol frame reader (what the attach
 * socket and TCP listener parse from clients). Any byte stream, in chunks
 * sized by the input: frames that come out are within the limit, of a valid
 * type, and re-encode to the bytes they came from. */
#include "tycho/frame.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tycho_frame_reader r;
    tycho_frame_reader_init(&r, 512);
    size_t off = 0;
    int failed = 0;
    while (off < size && !failed) {
        size_t chunk = 1 + data[off] % 97;
        if (chunk > size - off) chunk = size - off;
        if (tycho_frame_reader_feed(&r, data + off, chunk, NULL) != TYCHO_OK) abort();
        off += chunk;
        for (;;) {
            char t;
            const uint8_t *p;
            size_t len;
            int rc = tycho_frame_next(&r, &t, &p, &len, NULL);
            if (rc < 0) {
                failed = 1;
                break;
            }
            if (rc == 0) break;
            if (len > 512 || t < 'A' || t > 'Z') abort();
            uint8_t h[TYCHO_FRAME_HEADER];
            tycho_frame_header(h, t, (uint32_t)len);
            if (memcmp(h, p - TYCHO_FRAME_HEADER, TYCHO_FRAME_HEADER) != 0) abort();
        }
    }
    tycho_frame_reader_free(&r);
    return 0;
}
