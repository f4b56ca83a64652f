/* libFuzzer target: the MCAP reader (tycho.mcap.read, the recordings a
 * person hands back to tycho). Any bytes: the reader returns OK or a parse
 * error, never reads out of bounds; what it accepts has consistent counts,
 * read whole or as a recording cut short. */
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
    /* whole files, and files cut short (the recovery a crashed run's .part gets) */
    for (unsigned flags = 0; flags <= TYCHO_MCAP_READ_CUT; flags += TYCHO_MCAP_READ_CUT) {
        n = 0;
        if (tycho_mcap_read_memory_flags(data, size, "fuzz", flags, &info, count, &n, &err) ==
            TYCHO_OK) {
            uint64_t per_channel = 0;
            for (int i = 0; i < info.nchannels; i++) per_channel += info.channels[i].messages;
            if (n != info.messages || per_channel != info.messages) abort();
            if (info.cut && (!flags || info.cut_offset > size)) abort();
        }
    }
    return 0;
}
