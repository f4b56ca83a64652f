/* libFuzzer target: the RPLIDAR stream parser, any bytes in chunks sized by
 * the input: revolutions that come out have finite ranges within what the
 * protocol can say. */
#include "tycho/lidarproto.h"

#include <math.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tycho_rplidar_parser p;
    tycho_rplidar_init(&p);
    size_t off = 0;
    while (off < size) {
        size_t chunk = 1 + data[off] % 200;
        if (chunk > size - off) chunk = size - off;
        size_t end = off + chunk;
        while (off < end) {
            bool got;
            tycho_scan360 s;
            off += tycho_rplidar_feed(&p, data + off, end - off, &s, &got);
            if (!got) continue;
            for (int i = 0; i < 360; i++)
                if (!isfinite(s.ranges[i]) || s.ranges[i] < 0 || s.ranges[i] > 65.536f) abort();
        }
    }
    return 0;
}
