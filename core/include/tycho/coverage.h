/* How much of a ground-truth map another map has discovered (mission
 * scoring: "fraction of reachable free cells mapped"). */
#ifndef TYCHO_COVERAGE_H
#define TYCHO_COVERAGE_H

#include "tycho/grid.h"

/* Floods the truth grid's free cells (cost < 253, 4-connected) from the cell
 * under world point (x, y); each reached cell counts as mapped when `map`
 * holds a known value (not 255) at the cell's centre. The grids may differ
 * in resolution and origin. Fails if (x, y) is not on a free truth cell. */
tycho_status tycho_grid_coverage(const tycho_grid *truth, const tycho_grid *map, double x, double y,
                                 size_t *reachable, size_t *mapped, tycho_err *err);

#endif
