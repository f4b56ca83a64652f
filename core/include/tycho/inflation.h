/* Obstacle inflation with the semantics of Nav2's costmap inflation layer
 * (nav2_costmap_2d InflationLayer): 254 on lethal cells, 253 within the
 * inscribed radius, 252 * exp(-cost_scaling_factor * (d - inscribed_radius))
 * out to the inflation radius, combined with the existing costs by max.
 * The exact rules (rounding, radii comparisons, unknown cells) are written
 * down at the top of core/inflation.c.
 *
 * Distances come from an exact Euclidean distance transform (tycho/edt.h),
 * so every cell gets the cost of its truly nearest lethal cell. */
#ifndef TYCHO_INFLATION_H
#define TYCHO_INFLATION_H

#include "tycho/grid.h"

typedef struct {
    double inscribed_radius;    /* metres, >= 0, default 0 */
    double inflation_radius;    /* metres, >= 0, default 0.55 (Nav2) */
    double cost_scaling_factor; /* 1/metres, >= 0, default 10 (Nav2) */
    bool inflate_unknown; /* unknown cells near obstacles take the inflated cost; default false */
    bool inflate_around_unknown; /* unknown cells are obstacles too; default false */
} tycho_inflation_params;

/* Largest inflation radius in cells (bounds the cost table). */
#define TYCHO_INFLATION_MAX_CELLS 4096

void tycho_inflation_defaults(tycho_inflation_params *p);
/* Checks the parameters (finite, >= 0, radius within TYCHO_INFLATION_MAX_CELLS
 * cells at this resolution); the message names the bad field. */
tycho_status tycho_inflation_check(const tycho_inflation_params *p, double resolution,
                                   tycho_err *err);

/* Nav2's computeCost: the cost of a cell whose centre is `distance_cells`
 * cell lengths from the nearest lethal cell's centre. */
uint8_t tycho_inflation_cost(const tycho_inflation_params *p, double resolution,
                             double distance_cells);

/* Reusable workspace: keeps the distance transform buffers and the cost
 * table, so inflating the same size again allocates nothing. */
typedef struct tycho_inflation tycho_inflation;
tycho_inflation *tycho_inflation_new(void);
void tycho_inflation_free(tycho_inflation *ws);

/* Inflates a width x height cost array. dst may be the same array as src
 * (in place). */
tycho_status tycho_inflate_cells(tycho_inflation *ws, const uint8_t *src, uint8_t *dst, int width,
                                 int height, double resolution, const tycho_inflation_params *p,
                                 tycho_err *err);

/* Grid form: dst must have src's width, height and resolution; dst may be
 * src. Only dst's cost layer is written (an inflated grid is a costmap, its
 * log-odds layer, if any, is left as it was). */
tycho_status tycho_inflate(tycho_inflation *ws, const tycho_grid *src, tycho_grid *dst,
                           const tycho_inflation_params *p, tycho_err *err);

#endif
