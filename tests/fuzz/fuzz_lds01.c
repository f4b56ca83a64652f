/* libFuzzer target: the LDS-01 stream parser, any bytes in chunks sized by
 * the input, in each checksum mode: revolutions that come out hold at most
 * 60 packets and finite ranges within the protocol's 0..65.535 m. */
#include "tycho/lidarproto.h"

#include <math.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    tycho_lds01_parser p;
    tycho_lds01_init(&p, (tycho_checksum_mode)(data[0] % 3));
    size_t off = 1;
    while (off < size) {
        size_t chunk = 1 + data[off] % 200;
        if (chunk > size - off) chunk = size - off;
        size_t end = off + chunk;
        while (off < end) {
            bool got;
            static tycho_lds01_scan s;
            off += tycho_lds01_feed(&p, data + off, end - off, &s, &got);
            if (!got) continue;
            if (s.packets < 1 || s.packets > 60) abort();
            for (int i = 0; i < TYCHO_LDS01_BEAMS; i++)
                if (!isfinite(s.ranges[i]) || s.ranges[i] < 0 || s.ranges[i] > 65.535f) abort();
        }
    }
    return 0;
}
