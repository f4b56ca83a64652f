/* The fuzzer's bytes fed to a stream parser in chunks whose sizes the input
 * picks (1 + its byte at the chunk's start % max_chunk), the way a serial
 * port hands them over. feed(ctx, p, n) takes what it can of a chunk and
 * returns how many bytes it took (at least one); it is called until the
 * chunk is used up. */
#ifndef TYCHO_FUZZ_CHUNKS_H
#define TYCHO_FUZZ_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

typedef size_t (*fuzz_feed_fn)(void *ctx, const uint8_t *p, size_t n);

static void fuzz_feed_in_chunks(const uint8_t *data, size_t size, size_t max_chunk,
                                fuzz_feed_fn feed, void *ctx)
{
    size_t off = 0;
    while (off < size) {
        size_t chunk = 1 + data[off] % max_chunk;
        if (chunk > size - off) chunk = size - off;
        for (size_t end = off + chunk; off < end;) off += feed(ctx, data + off, end - off);
    }
}

#endif
