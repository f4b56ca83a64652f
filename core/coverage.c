#include "tycho/coverage.h"

#include <stdlib.h>
#include <string.h>

tycho_status tycho_grid_coverage(const tycho_grid *truth, const tycho_grid *map, double x, double y,
                                 size_t *reachable, size_t *mapped, tycho_err *err)
{
    int w = tycho_grid_width(truth), h = tycho_grid_height(truth);
    const uint8_t *t = tycho_grid_cells_const(truth);
    int cx, cy;
    if (!tycho_grid_world_to_cell(truth, x, y, &cx, &cy) ||
        t[(size_t)cy * w + cx] >= TYCHO_COST_INSCRIBED)
        return tycho_fail(err, TYCHO_EINVAL, "coverage: (%.2f, %.2f) is not a free truth cell", x,
                          y);
    size_t n = (size_t)w * h;
    /* scoring runs once per mission, so a plain allocation is fine here */
    int32_t *queue = malloc(n * sizeof *queue);
    uint8_t *seen = calloc(n, 1);
    if (!queue || !seen) {
        free(queue);
        free(seen);
        return tycho_fail(err, TYCHO_ENOMEM, "coverage: out of memory");
    }
    size_t head = 0, tail = 0, found = 0;
    queue[tail++] = cy * w + cx;
    seen[cy * w + cx] = 1;
    while (head < tail) {
        int32_t i = queue[head++];
        int ix = i % w, iy = i / w;
        double wx, wy;
        tycho_grid_cell_to_world(truth, ix, iy, &wx, &wy);
        int mx, my;
        if (tycho_grid_world_to_cell(map, wx, wy, &mx, &my) &&
            tycho_grid_get(map, mx, my) != TYCHO_COST_UNKNOWN)
            found++;
        static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
        for (int k = 0; k < 4; k++) {
            int nx = ix + dx[k], ny = iy + dy[k];
            if (!tycho_grid_in_bounds_wh(w, h, nx, ny)) continue;
            int32_t j = ny * w + nx;
            if (seen[j] || t[j] >= TYCHO_COST_INSCRIBED) continue;
            seen[j] = 1;
            queue[tail++] = j;
        }
    }
    *reachable = tail;
    *mapped = found;
    free(queue);
    free(seen);
    return TYCHO_OK;
}
