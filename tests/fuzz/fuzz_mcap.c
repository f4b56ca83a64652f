/* libFuzzer target: the MCAP reader (tycho.mcap.read, the recordings a
 * person hands back to tycho). Any bytes: the reader returns OK or a parse
 * error, never reads out of bounds; what it accepts has consistent counts. */
#include "tycho/mcap.h"

#include <stdlib.h>

static int count(void *ud, const tycho_mcap_channel_info *ch, uint64_t t, const uint8_t *data,
                 size_t len)
{
    (void)ch;
    (void)t;
    (void)data;
    (void)len;
    (*(uint64_t *)ud)++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static tycho_mcap_info info;
    uint64_t n = 0;
    tycho_err err;
    if (tycho_mcap_read_memory(data, size, "fuzz", &info, count, &n, &err) == TYCHO_OK) {
        uint64_t per_channel = 0;
        for (int i = 0; i < info.nchannels; i++) per_channel += info.channels[i].messages;
        if (n != info.messages || per_channel != info.messages) abort();
    }
    return 0;
}
