/* The body the fuzz targets of the 360-beam stream parsers share (LDS02,
 * RPLIDAR: the one shape of parser, tycho_scan360 out): any bytes, fed in
 * chunks whose sizes the input picks; every revolution that comes out must
 * hold finite ranges within what the protocol can say. */
#ifndef TYCHO_FUZZ_SCAN360_STREAM_H
#define TYCHO_FUZZ_SCAN360_STREAM_H

#include "chunks.h"
#include "tycho/lidarproto.h"

#include <math.h>
#include <stdlib.h>

/* A parser's feed with its state behind a plain pointer. */
typedef size_t (*scan360_feed)(void *parser, const uint8_t *data, size_t n, tycho_scan360 *out,
                               bool *got);

typedef struct {
    void *parser;
    scan360_feed feed;
    float max_range;
} scan360_fuzz;

static size_t scan360_take(void *ctx, const uint8_t *p, size_t n)
{
    scan360_fuzz *f = ctx;
    bool got;
    tycho_scan360 s;
    size_t used = f->feed(f->parser, p, n, &s, &got);
    if (got)
        for (int i = 0; i < 360; i++)
            if (!isfinite(s.ranges[i]) || s.ranges[i] < 0 || s.ranges[i] > f->max_range) abort();
    return used;
}

static int fuzz_scan360_stream(const uint8_t *data, size_t size, void *parser, scan360_feed feed,
                               float max_range)
{
    scan360_fuzz f = {parser, feed, max_range};
    fuzz_feed_in_chunks(data, size, 200, scan360_take, &f);
    return 0;
}

#endif
