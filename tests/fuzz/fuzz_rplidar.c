/* libFuzzer target: the RPLIDAR stream parser (scan360_stream.h: any bytes
 * in chunks sized by the input, ranges finite and within 65.536 m). */
#include "scan360_stream.h"

static size_t feed(void *p, const uint8_t *data, size_t n, tycho_scan360 *out, bool *got)
{
    return tycho_rplidar_feed(p, data, n, out, got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tycho_rplidar_parser p;
    tycho_rplidar_init(&p);
    return fuzz_scan360_stream(data, size, &p, feed, 65.536f);
}
