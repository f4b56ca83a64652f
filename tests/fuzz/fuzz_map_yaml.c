/* libFuzzer target: map_server YAML parsing, then (when it parses) the image
 * conversion of a small fixed image with the parsed thresholds and mode. */
#include "tycho/mapio.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tycho_map_meta m;
    tycho_err err;
    tycho_status st =
        tycho_map_parse_yaml_mem((const char *)data, size, "maps/fuzz.yaml", &m, &err);
    if (st != TYCHO_OK) {
        if (!strstr(err.msg, "maps/fuzz.yaml")) abort();
        return 0;
    }
    /* a parsed meta is always valid */
    if (!(m.resolution > 0) || !isfinite(m.origin.x) || !isfinite(m.origin.y) ||
        !isfinite(m.origin.yaw) || !(m.free_thresh < m.occupied_thresh) || !m.image[0])
        abort();
    tycho_image img;
    if (tycho_image_init(&img, 16, 4, 4, NULL) != TYCHO_OK) return 0;
    for (int i = 0; i < 16 * 4 * 4; i++) img.pixels[i] = (uint8_t)(i * 17);
    tycho_grid *g = tycho_map_from_image(&img, &m, &err);
    if (!g) abort();
    tycho_grid_free(g);
    tycho_image_free(&img);
    return 0;
}
