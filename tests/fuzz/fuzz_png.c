/* libFuzzer target: PNG decoding through libpng and the image -> grid
 * conversion in every mode. Mutated chunks would almost always fail their
 * CRC, so we recompute every chunk CRC before decoding; that lets the fuzzer
 * reach the chunk parsers and inflate. Huge declared images are skipped to
 * keep executions fast (the size limits themselves are unit-tested). */
#include "tycho/mapio.h"

#include <stdlib.h>
#include <string.h>

static uint32_t crc_table[256];

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
        crc_table[i] = c;
    }
}

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!crc_table[1]) crc_init();
    /* always a PNG signature, then the input (minus its own signature) */
    size_t skip = (size >= 8 && memcmp(data, sig, 8) == 0) ? 8 : 0;
    size_t n = size - skip + 8;
    uint8_t *buf = malloc(n);
    if (!buf) return 0;
    memcpy(buf, sig, 8);
    memcpy(buf + 8, data + skip, size - skip);
    for (size_t pos = 8; pos + 12 <= n;) {
        uint32_t len = get32(buf + pos);
        if (len > n - pos - 12) break;
        uint32_t c = crc32_of(buf + pos + 4, (size_t)len + 4);
        buf[pos + 8 + len] = (uint8_t)(c >> 24);
        buf[pos + 9 + len] = (uint8_t)(c >> 16);
        buf[pos + 10 + len] = (uint8_t)(c >> 8);
        buf[pos + 11 + len] = (uint8_t)c;
        pos += (size_t)len + 12;
    }
    if (n >= 24 && (uint64_t)get32(buf + 16) * get32(buf + 20) > (1u << 22)) {
        free(buf);
        return 0;
    }
    tycho_image img;
    tycho_err err;
    if (tycho_image_load_mem(buf, n, "fuzz.png", &img, &err) == TYCHO_OK) {
        if (img.channels < 1 || img.channels > 4 || !img.pixels) abort();
        tycho_map_meta m;
        tycho_map_meta_defaults(&m);
        for (int mode = TYCHO_MAP_TRINARY; mode <= TYCHO_MAP_RAW; mode++) {
            m.mode = (tycho_map_mode)mode;
            tycho_grid *g = tycho_map_from_image(&img, &m, &err);
            if (!g) abort();
            tycho_grid_free(g);
        }
        tycho_image_free(&img);
    } else if (img.pixels || !strstr(err.msg, "fuzz.png")) {
        abort();
    }
    free(buf);
    return 0;
}
