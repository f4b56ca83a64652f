/* MovingAI grid benchmark formats (movingai.com/benchmarks/formats.html).
 *
 * .map:  "type octile", "height H", "width W" (either order), "map", then H
 *        rows of W characters. Cells:
 *          '.' 'G'      passable ground          -> cost 0
 *          'S'          swamp: passable          -> cost 0
 *          '@' 'O' 'T'  out of bounds, tree      -> cost 254 (lethal)
 *          'W'          water: blocked           -> cost 254
 *        (MovingAI calls water traversable only from water; our planners
 *        have no terrain classes, so it is simply blocked. No benchmark map
 *        here uses S or W.) The grid has resolution 1.0 and origin (0, 0, 0).
 *
 * Row order. MovingAI's y grows downwards (row 0 is the first line of the
 * file, the top of the picture); tycho's row 0 is the bottom (grid.h,
 * REP-103). The loaders flip: MovingAI (x, y) is tycho cell
 * (x, H - 1 - y), for the map and for every scenario start and goal. The map
 * then looks the same in world coordinates as in the file, and path lengths
 * are unchanged (the flip is a reflection).
 *
 * .scen: "version 1" (or "version 1.0"), then one line per query, fields
 *        separated by tabs (any run of blanks is accepted):
 *        bucket  map  width  height  sx  sy  gx  gy  optimal_length
 *        Coordinates are flipped with the line's own height. The optimal
 *        length is 8-connected with sqrt2 diagonals, no corner cutting.
 *
 * Errors are TYCHO_EIO (cannot read) or TYCHO_EPARSE with "name:line: what".
 * Nothing is returned on error (no partial grids or scenarios). */
#ifndef TYCHO_MOVINGAI_H
#define TYCHO_MOVINGAI_H

#include "tycho/common.h"
#include "tycho/grid.h"

/* Largest accepted map side; also bounded by the grid's cell limit. */
#define TYCHO_MOVINGAI_MAX_SIDE 65536

tycho_grid *tycho_movingai_load_map(const char *path, tycho_err *err);
/* From memory; name is used in error messages. */
tycho_grid *tycho_movingai_parse_map(const char *data, size_t len, const char *name,
                                     tycho_err *err);

typedef struct {
    int bucket;
    int width, height;      /* the map size the scenario was made for */
    tycho_cell start, goal; /* tycho grid cells (flipped, see above) */
    double optimal;         /* optimal length in cells */
    char map[64];           /* map name as written (truncated) */
} tycho_movingai_query;

typedef struct {
    tycho_movingai_query *items;
    size_t count;
} tycho_movingai_scen;

tycho_status tycho_movingai_load_scen(const char *path, tycho_movingai_scen *out, tycho_err *err);
tycho_status tycho_movingai_parse_scen(const char *data, size_t len, const char *name,
                                       tycho_movingai_scen *out, tycho_err *err);
void tycho_movingai_scen_free(tycho_movingai_scen *s);

#endif
