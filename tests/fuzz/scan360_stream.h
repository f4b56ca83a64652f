/* The body the fuzz targets of the 360-beam stream parsers share (LDS02,
 * RPLIDAR: the one shape of parser, tycho_scan360 out): any bytes, fed in
 * chunks whose sizes the input picks; every revolution that comes out must
 * hold finite ranges within what the protocol can say. */
#ifndef TYCHO_FUZZ_SCAN360_STREAM_H
#define TYCHO_FUZZ_SCAN360_STREAM_H

#include "tycho/lidarproto.h"

#include <math.h>
#include <stdlib.h>

/* A parser's feed with its state behind a plain pointer. */
typedef size_t (*scan360_feed)(void *parser, const uint8_t *data, size_t n, tycho_scan360 *out,
                               bool *got);

static int fuzz_scan360_stream(const uint8_t *data, size_t size, void *parser, scan360_feed feed,
                               float max_range)
{
    size_t off = 0;
    while (off < size) {
        size_t chunk = 1 + data[off] % 200;
        if (chunk > size - off) chunk = size - off;
        size_t end = off + chunk;
        while (off < end) {
            bool got;
            tycho_scan360 s;
            off += feed(parser, data + off, end - off, &s, &got);
            if (!got) continue;
            for (int i = 0; i < 360; i++)
                if (!isfinite(s.ranges[i]) || s.ranges[i] < 0 || s.ranges[i] > max_range) abort();
        }
    }
    return 0;
}

#endif
