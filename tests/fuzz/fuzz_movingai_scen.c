/* libFuzzer target: MovingAI .scen parsing. Inputs whose first byte is odd
 * get a "version 1" line prepended so the fuzzer reaches the query lines.
 * Parsed queries must lie inside their own map size and carry a finite,
 * non-negative optimal length; a failure must leave nothing behind and name
 * the input. */
#include "tycho/movingai.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char HEADER[] = "version 1\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t pre = (size && (data[0] & 1)) ? sizeof HEADER - 1 : 0;
    char *buf = malloc(pre + size + 1);
    if (!buf) return 0;
    memcpy(buf, HEADER, pre);
    if (size) memcpy(buf + pre, data, size);
    tycho_err err = {0};
    tycho_movingai_scen sc = {0};
    if (tycho_movingai_parse_scen(buf, pre + size, "fuzz.scen", &sc, &err) == TYCHO_OK) {
        for (size_t i = 0; i < sc.count; i++) {
            const tycho_movingai_query *q = &sc.items[i];
            if (q->start.x < 0 || q->start.x >= q->width || q->start.y < 0 ||
                q->start.y >= q->height || q->goal.x < 0 || q->goal.x >= q->width ||
                q->goal.y < 0 || q->goal.y >= q->height)
                abort();
            if (!isfinite(q->optimal) || q->optimal < 0) abort();
        }
        tycho_movingai_scen_free(&sc);
    } else if (sc.items || sc.count || !strstr(err.msg, "fuzz.scen")) {
        abort();
    }
    free(buf);
    return 0;
}
