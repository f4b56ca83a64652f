/* Exact Euclidean distance transform of a cost grid.
 *
 * Distances are measured between cell centres, in cells, from every cell to
 * the nearest "site" cell (an obstacle: which costs count is given by a
 * 256-entry table). The algorithm is the separable one of Felzenszwalb and
 * Huttenlocher (lower envelope of parabolas), done in exact integer
 * arithmetic, O(width*height). The results are squared distances, so they are
 * exact integers (dx*dx + dy*dy of the nearest site).
 *
 * A bound `max_dist` (cells) lets callers that only care about a radius (the
 * inflation layer, ray-casting clearance) skip work: any cell farther than
 * max_dist from every site reads TYCHO_EDT_FAR. Every value <= max_dist^2 is
 * exact.
 *
 * The workspace keeps its buffers between calls: after the first call on a
 * given grid size no memory is allocated. */
#ifndef TYCHO_EDT_H
#define TYCHO_EDT_H

#include "tycho/common.h"

#define TYCHO_EDT_FAR INT32_MAX
/* Largest bound: keeps every reported squared distance inside int32. */
#define TYCHO_EDT_MAX_DIST 46340

typedef struct tycho_edt tycho_edt;

tycho_edt *tycho_edt_new(void);
void tycho_edt_free(tycho_edt *e);

/* Fills a site table: sites[c] = 1 for costs c with lo <= c <= hi. */
void tycho_edt_sites_range(uint8_t sites[256], int lo, int hi);

/* First pass (vertical distances) over a width x height row-major cost array.
 * max_dist <= 0 means TYCHO_EDT_MAX_DIST. Rows are then read with
 * tycho_edt_row. Fails on bad sizes or out of memory. */
tycho_status tycho_edt_prepare(tycho_edt *e, const uint8_t *cells, int width, int height,
                               const uint8_t sites[256], int max_dist, tycho_err *err);

/* Squared distances of row y (width values, TYCHO_EDT_FAR beyond max_dist),
 * valid until the next call on this workspace; NULL when the whole row is
 * farther than max_dist from every site (the common case far from obstacles,
 * so callers can skip it). */
const int32_t *tycho_edt_row(tycho_edt *e, int y);

/* Both passes into out (width*height values). */
tycho_status tycho_edt_compute(tycho_edt *e, const uint8_t *cells, int width, int height,
                               const uint8_t sites[256], int max_dist, int32_t *out,
                               tycho_err *err);

#endif
