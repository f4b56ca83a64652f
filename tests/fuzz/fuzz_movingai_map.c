/* libFuzzer target: MovingAI .map parsing. Inputs whose first byte is odd
 * get a valid small header prepended, so the fuzzer spends half its time in
 * the cell rows rather than rediscovering "type octile". A parsed map must
 * have the size its header claims and only free or lethal cells; a failure
 * must leave nothing behind and name the input with a line number. */
#include "tycho/movingai.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char HEADER[] = "type octile\nheight 4\nwidth 5\nmap\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t pre = (size && (data[0] & 1)) ? sizeof HEADER - 1 : 0;
    char *buf = malloc(pre + size + 1);
    if (!buf) return 0;
    memcpy(buf, HEADER, pre);
    if (size) memcpy(buf + pre, data, size);
    tycho_err err = {0};
    tycho_grid *g = tycho_movingai_parse_map(buf, pre + size, "fuzz.map", &err);
    if (g) {
        int w = tycho_grid_width(g), h = tycho_grid_height(g);
        if (w <= 0 || h <= 0) abort();
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int c = tycho_grid_get(g, x, y);
                if (c != 0 && c != 254) abort();
            }
        tycho_grid_free(g);
    } else if (!strstr(err.msg, "fuzz.map")) {
        abort();
    }
    free(buf);
    return 0;
}
