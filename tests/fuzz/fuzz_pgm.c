/* libFuzzer target: PGM decoding (P2/P5) and the image -> grid conversion.
 * Inputs that do not start with a PGM magic are given one, so the fuzzer
 * spends its time in the PGM parser. */
#include "tycho/mapio.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size + 2);
    if (!buf) return 0;
    size_t n = size;
    if (size >= 2 && data[0] == 'P' && (data[1] == '2' || data[1] == '5')) {
        memcpy(buf, data, size);
    } else {
        buf[0] = 'P';
        buf[1] = (size && (data[0] & 1)) ? '2' : '5';
        memcpy(buf + 2, data, size);
        n = size + 2;
    }
    tycho_image img;
    tycho_err err;
    if (tycho_image_load_mem(buf, n, "fuzz.pgm", &img, &err) == TYCHO_OK) {
        if (img.channels != 1 || !img.pixels || img.width <= 0 || img.height <= 0) abort();
        tycho_map_meta m;
        tycho_map_meta_defaults(&m);
        for (int mode = TYCHO_MAP_TRINARY; mode <= TYCHO_MAP_RAW; mode++) {
            m.mode = (tycho_map_mode)mode;
            m.negate = mode == TYCHO_MAP_SCALE;
            tycho_grid *g = tycho_map_from_image(&img, &m, &err);
            if (!g) abort(); /* a decoded image always converts */
            tycho_grid_free(g);
        }
        tycho_image_free(&img);
    } else if (img.pixels || !err.msg[0] || !strstr(err.msg, "fuzz.pgm")) {
        abort(); /* failures leave nothing behind and name the input */
    }
    free(buf);
    return 0;
}
