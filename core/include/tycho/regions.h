/* Regions of a grid: flood fill from a seed, connected-component labelling,
 * and sealing (turning a region or a line of cells lethal, e.g. to wall off a
 * ramp or a drop the sensors cannot see).
 *
 * A cell MATCHES when min_cost <= cost <= max_cost (default 0..252: every
 * known cell a robot's footprint may overlap, i.e. not inscribed, lethal or
 * unknown). Regions are 4- or 8-connected (default 8). Sealing writes
 * TYCHO_COST_LETHAL through tycho_grid_set, so a log-odds layer, if any,
 * follows. Counts of sealed cells are cells that CHANGED to lethal. */
#ifndef TYCHO_REGIONS_H
#define TYCHO_REGIONS_H

#include "tycho/grid.h"

typedef struct {
    int min_cost, max_cost; /* 0..255, min <= max; default 0..252 */
    int connectivity;       /* 4 or 8, default 8 */
} tycho_region_params;

void tycho_region_defaults(tycho_region_params *p);
/* The message names the bad field. */
tycho_status tycho_region_check(const tycho_region_params *p, tycho_err *err);

/* --- flood fill ---------------------------------------------------------- */

/* Reusable flood-fill workspace (a visited map cleared region by region, and
 * the cell list), so repeated fills allocate nothing once warmed up. */
typedef struct tycho_regions tycho_regions;
tycho_regions *tycho_regions_new(void);
void tycho_regions_free(tycho_regions *ws);

/* Fills from (cx, cy). A seed outside the grid or not matching gives an
 * empty region (count 0, TYCHO_OK). p may be NULL for the defaults. */
tycho_status tycho_flood_fill(tycho_regions *ws, const tycho_grid *g, int cx, int cy,
                              const tycho_region_params *p, size_t *count, tycho_err *err);
/* Cells of the last fill, in breadth-first order from the seed. */
const tycho_cell *tycho_regions_cells(const tycho_regions *ws, size_t *n);
/* Writes `value` into every cell of the last fill (through tycho_grid_set);
 * returns how many cells changed. g must be the grid that was filled. */
size_t tycho_regions_set(const tycho_regions *ws, tycho_grid *g, uint8_t value);
/* Flood fill, then every cell of the region becomes lethal. */
tycho_status tycho_seal_region(tycho_regions *ws, tycho_grid *g, int cx, int cy,
                               const tycho_region_params *p, size_t *sealed, tycho_err *err);

/* --- lines ---------------------------------------------------------------- */

/* Visits every cell the segment between two points in continuous map
 * coordinates (cells; cell (i, j) spans [i, i+1) x [j, j+1)) passes
 * through, clipped to a w x h grid: a supercover line, so consecutive cells
 * share an edge (a corner crossing visits both side cells). Such a line
 * blocks 4- and 8-connected fills alike. */
typedef void (*tycho_cell_visit)(void *ctx, int cx, int cy);
void tycho_supercover(double mx0, double my0, double mx1, double my1, int w, int h,
                      tycho_cell_visit visit, void *ctx);

/* Seals the line between the centres of two cells (or two world points),
 * widened to `thickness` cells (1..256: a square of that side stamped on every
 * line cell). Cells outside the grid are skipped. */
tycho_status tycho_seal_line(tycho_grid *g, tycho_cell a, tycho_cell b, int thickness,
                             size_t *sealed, tycho_err *err);
tycho_status tycho_seal_line_world(tycho_grid *g, double x0, double y0, double x1, double y1,
                                   int thickness, size_t *sealed, tycho_err *err);
/* The same with any cost: cells below `cost` (and unknown ones) are raised
 * to it, higher ones kept. A soft keep-out (a known ramp: passable at a
 * price) is a cost under the inscribed band. */
tycho_status tycho_stamp_line_world(tycho_grid *g, double x0, double y0, double x1, double y1,
                                    int thickness, uint8_t cost, size_t *sealed, tycho_err *err);

/* --- connected components -------------------------------------------------- */

/* Labels: 0 for cells that do not match, 1..count for the components,
 * numbered in the order their first cell appears in row-major order from
 * cell (0, 0). Reusable: buffers are kept for the next labelling. */
typedef struct tycho_labels tycho_labels;
tycho_labels *tycho_labels_new(void);
void tycho_labels_free(tycho_labels *l);
tycho_status tycho_components(tycho_labels *l, const tycho_grid *g, const tycho_region_params *p,
                              size_t *count, tycho_err *err);
size_t tycho_labels_count(const tycho_labels *l);
/* Label of a cell; 0 when outside the labelled grid or not matching. */
int32_t tycho_labels_get(const tycho_labels *l, int cx, int cy);
/* Cells in component k (1..count); 0 for any other k. */
size_t tycho_labels_size(const tycho_labels *l, int32_t k);
/* The label array (row-major, width*height) and its size. */
const int32_t *tycho_labels_data(const tycho_labels *l, int *width, int *height);

/* --- wall faces ------------------------------------------------------------
 * The obstacle cells a robot can look at: cost >= threshold (and not unknown
 * 255) with a 4-neighbour whose cost is <= free_max. A face is such a cell
 * and one such neighbour: a wall one cell thick with free space on both
 * sides has two faces (a camera on one side does not see the other). In
 * row-major order of the cells, and for each cell in the order +x, -x, +y,
 * -y, fn(ud, cx, cy, nx, ny) gets the cell and the direction (nx, ny) of the
 * neighbour. Returns how many faces there are. */
typedef void (*tycho_face_fn)(void *ud, int cx, int cy, int nx, int ny);
size_t tycho_wall_faces(const tycho_grid *g, int threshold, int free_max, tycho_face_fn fn,
                        void *ud);

#endif
