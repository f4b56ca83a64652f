/* libFuzzer target: the LDS-01 stream parser, any bytes in chunks sized by
 * the input (chunks.h), in each checksum mode: revolutions that come out
 * hold at most 60 packets and finite ranges within the protocol's
 * 0..65.535 m. */
#include "chunks.h"
#include "tycho/lidarproto.h"

#include <math.h>
#include <stdlib.h>

static size_t take(void *parser, const uint8_t *p, size_t n)
{
    bool got;
    static tycho_lds01_scan s;
    size_t used = tycho_lds01_feed(parser, p, n, &s, &got);
    if (!got) return used;
    if (s.packets < 1 || s.packets > 60) abort();
    for (int i = 0; i < TYCHO_LDS01_BEAMS; i++)
        if (!isfinite(s.ranges[i]) || s.ranges[i] < 0 || s.ranges[i] > 65.535f) abort();
    return used;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    tycho_lds01_parser p;
    tycho_lds01_init(&p, (tycho_checksum_mode)(data[0] % 3));
    fuzz_feed_in_chunks(data + 1, size - 1, 200, take, &p);
    return 0;
}
