/* Occupancy grid: a 2D array of Nav2 cost values with a world frame, plus an
 * optional log-odds layer for mapping from range sensors.
 *
 * Frame: cell (cx, cy) covers [cx, cx+1) x [cy, cy+1) in map units of
 * `resolution` metres, rotated by origin.yaw and placed at origin.x/y (the
 * outer corner of cell (0,0)), exactly as ROS map_server's `origin`. Row 0 is
 * the bottom row (smallest y). Storage is row-major: index = cy*width + cx.
 *
 * Cost layer: 0 free, 1..252 inflated cost, 253 inscribed, 254 lethal, 255
 * unknown. The log-odds layer (allocated on first use) holds the mapping
 * belief; each update re-derives the cell's cost from it. */
#ifndef TYCHO_GRID_H
#define TYCHO_GRID_H

#include "tycho/common.h"

typedef struct tycho_grid tycho_grid;

/* Log-odds sensor model, given as probabilities like most mapping stacks. */
typedef struct {
    double p_hit;       /* P(occupied | beam ended here), default 0.7 */
    double p_miss;      /* P(occupied | beam passed through), default 0.4 */
    double p_min;       /* clamp low, default 0.12 */
    double p_max;       /* clamp high, default 0.97 */
    double occ_thresh;  /* p >= this -> lethal (254), default 0.65 (Nav2) */
    double free_thresh; /* p <= this -> free (0), default 0.25 (Nav2) */
} tycho_logodds_params;

typedef struct {
    size_t free;      /* cost 0 */
    size_t inflated;  /* 1..252 */
    size_t inscribed; /* 253 */
    size_t lethal;    /* 254 */
    size_t unknown;   /* 255 */
} tycho_grid_stats;

void tycho_logodds_defaults(tycho_logodds_params *p);

/* New grid filled with `fill`. Fails on non-positive sizes or resolution,
 * or more than 2^28 cells. */
tycho_grid *tycho_grid_new(int width, int height, double resolution, tycho_pose2 origin,
                           uint8_t fill, tycho_err *err);
void tycho_grid_free(tycho_grid *g);
tycho_grid *tycho_grid_copy(const tycho_grid *g, tycho_err *err);
/* A new grid holding cells [cx0, cx0+w) x [cy0, cy0+h), clipped to the grid;
 * its origin is moved so every kept cell stays at the same world place. */
tycho_grid *tycho_grid_crop(const tycho_grid *g, int cx0, int cy0, int w, int h, tycho_err *err);
/* Copies src's costs into dst with src cell (0, 0) at dst cell (cx, cy),
 * clipped to dst (a contact sheet of maps, a map pasted into a larger one);
 * cells only, resolutions and origins are not checked. Returns the number
 * of cells copied. */
long tycho_grid_paste(tycho_grid *dst, const tycho_grid *src, int cx, int cy);

int tycho_grid_width(const tycho_grid *g);
int tycho_grid_height(const tycho_grid *g);
double tycho_grid_resolution(const tycho_grid *g);
tycho_pose2 tycho_grid_origin(const tycho_grid *g);
/* The cost layer (width*height bytes). Valid until the grid grows or is freed. */
uint8_t *tycho_grid_cells(tycho_grid *g);
const uint8_t *tycho_grid_cells_const(const tycho_grid *g);

static inline bool tycho_grid_in_bounds_wh(int w, int h, int cx, int cy)
{
    return (unsigned)cx < (unsigned)w && (unsigned)cy < (unsigned)h;
}
bool tycho_grid_in_bounds(const tycho_grid *g, int cx, int cy);
/* Cost at a cell; TYCHO_COST_UNKNOWN outside the grid. */
uint8_t tycho_grid_get(const tycho_grid *g, int cx, int cy);
/* Sets the cost (and resets the cell's log-odds to match). False if outside. */
bool tycho_grid_set(tycho_grid *g, int cx, int cy, uint8_t cost);
void tycho_grid_fill(tycho_grid *g, uint8_t cost);

/* World point -> continuous map coordinates in cells (no bounds check). */
void tycho_grid_world_to_map(const tycho_grid *g, double x, double y, double *mx, double *my);
/* World point -> cell; returns false when the cell is outside the grid
 * (the cell is still written so callers can grow towards it). */
bool tycho_grid_world_to_cell(const tycho_grid *g, double x, double y, int *cx, int *cy);
/* Centre of a cell in world coordinates. */
void tycho_grid_cell_to_world(const tycho_grid *g, int cx, int cy, double *x, double *y);

void tycho_grid_stats_compute(const tycho_grid *g, tycho_grid_stats *s);
/* The smallest box holding every cell that is not unknown: box = {cx0, cy0,
 * cx1, cy1}, inclusive. False (box untouched) when every cell is unknown. */
bool tycho_grid_known_box(const tycho_grid *g, int box[4]);
/* The same over a row-major block of cells (a copy of a grid's). */
bool tycho_cells_known_box(const uint8_t *cells, int width, int height, int box[4]);
/* A hash of what a viewer is shown of the grid (tycho/cells_hash.h): the
 * box round its known cells, the cells in it, its place and resolution.
 * Equal for a grid unchanged since; a live viewer is sent a map again only
 * when it differs. */
uint64_t tycho_grid_fingerprint(const tycho_grid *g);
/* The fingerprint's start for a box of g (box = {cx0, cy0, cx1, cy1}): its
 * size, place and resolution hashed; the box's rows, in order, are to be
 * added (a recording adds them as it copies them). */
struct tycho_cells_hash;
void tycho_grid_box_hash_start(const tycho_grid *g, const int box[4], struct tycho_cells_hash *ch);

/* Grows the grid (cells keep their world place; new cells unknown) so that the
 * world point lies at least `margin` cells inside. Growth happens in chunks so
 * repeated small growth stays cheap. Invalidates pointers from
 * tycho_grid_cells/tycho_grid_logodds. */
tycho_status tycho_grid_grow_to(tycho_grid *g, double x, double y, int margin, tycho_err *err);

/* --- log-odds layer ------------------------------------------------------ */
void tycho_grid_set_logodds_params(tycho_grid *g, const tycho_logodds_params *p);
void tycho_grid_get_logodds_params(const tycho_grid *g, tycho_logodds_params *p);
/* The log-odds layer, allocated (from the cost layer) on first call;
 * NULL only when allocation fails. */
float *tycho_grid_logodds(tycho_grid *g);
/* Frees the log-odds layer (four bytes a cell) of a grid whose mapping is
 * done: the costs stay, and a later tycho_grid_logodds starts again from
 * them (a cost keeps a cell's class, not its exact log-odds). */
void tycho_grid_drop_logodds(tycho_grid *g);
/* Applies one hit or miss observation to an in-bounds cell. */
void tycho_grid_observe(tycho_grid *g, int cx, int cy, bool hit);

/* Precomputed log-odds increments, for hot loops (scan insertion). */
typedef struct {
    float hit, miss, min, max, occ, free_;
} tycho_logodds_lut;
void tycho_grid_logodds_lut(const tycho_grid *g, tycho_logodds_lut *lut);
static inline uint8_t tycho_logodds_to_cost(const tycho_logodds_lut *lut, float l)
{
    if (l >= lut->occ) return TYCHO_COST_LETHAL;
    if (l <= lut->free_) return TYCHO_COST_FREE;
    return TYCHO_COST_UNKNOWN;
}

#endif
