/* Private to the planner files: the workspace layout, the open list and small
 * helpers shared by astar.c, jps.c, dijkstra.c and path.c. */
#ifndef TYCHO_PLANNER_INTERNAL_H
#define TYCHO_PLANNER_INTERNAL_H

#include "tycho/planner.h"

#include <stdint.h>
#include <string.h>

/* Uniform planners count cost in integers: a straight step is UNIT_S, a
 * diagonal UNIT_D. 8119/5741 is a Pell convergent of sqrt(2) (error 1e-8
 * relative), so equal-length paths get bit-identical keys (exact
 * tie-breaking, which matters for speed) while distinct lengths keep their
 * order: near-equal path lengths a + b*sqrt2 differ by far more than the
 * accumulated rounding. Reported costs are recomputed exactly from step
 * counts. Largest g: 1.5 * 2^28 cells * 8119 < 2^42, so uint64 is plenty. */
#define UNIT_S 5741u
#define UNIT_D 8119u
#define SQRT2 1.41421356237309504880

/* Search record per padded cell. `stamp` says whether the record belongs to
 * the current query (generation stamps: nothing is cleared between queries). */
typedef struct {
    uint32_t stamp;  /* gen_open / gen_closed of the query that wrote it */
    uint32_t parent; /* padded index; JPS keeps its arrival direction in bits 29..31 */
    union {
        uint64_t gi; /* uniform planners */
        double gd;   /* cost-aware planners and Dijkstra */
    } g;
} pl_node;

#define PARENT_MASK 0x1fffffffu

/* Open-list entry: ordered by key, then by tie (smaller first). Keys are
 * integer costs, or non-negative doubles whose bit patterns order the same. */
typedef struct {
    uint64_t key;
    uint32_t tie;
    uint32_t node;
} pl_entry;

struct tycho_planner {
    /* snapshot */
    int w, h;            /* grid size */
    int pw;              /* padded row length: w + 2 */
    size_t ncells;       /* (w + 2) * (h + 2) */
    size_t cap;          /* allocated padded cells */
    uint8_t *enc;        /* 0 blocked, cost + 1 for costs 0..253, 255 for allowed unknown */
    uint8_t *raw;        /* copy of the grid's costs (unpadded), for messages */
    int blocked_cost;    /* passability the snapshot was made with */
    bool allow_unknown;
    tycho_plan_opts opts;
    bool prepared;
    double mult[256];    /* cost-aware multiplier by enc value */
    double mult_weight;  /* weight mult[] was built for (NAN: not built) */

    /* JPS bit lines (see jps.c) */
    uint64_t *rowbits, *colbits;
    size_t rw, cw;       /* words per bit row / bit column */
    size_t bits_cap;     /* allocated words (each array) */
    bool bits_ready;

    /* search */
    pl_node *nodes;
    uint32_t gen_open, gen_closed;
    pl_entry *heap_mem;  /* allocation; heap = heap_mem + 3 keeps child groups aligned */
    pl_entry *heap;
    size_t heap_n, heap_cap;
    size_t expanded;
};

/* --- open list: 4-ary min-heap, lazy deletion (stale entries are skipped
 * when popped, which beats decrease-key on grids) ---------------------------- */

static inline bool pl_less(const pl_entry *a, const pl_entry *b)
{
    return a->key < b->key || (a->key == b->key && a->tie < b->tie);
}

bool pl_heap_grow(tycho_planner *p);

static inline bool pl_push(tycho_planner *p, uint64_t key, uint32_t tie, uint32_t node)
{
    if (p->heap_n == p->heap_cap && !pl_heap_grow(p)) return false;
    pl_entry e = {key, tie, node};
    pl_entry *h = p->heap;
    size_t i = p->heap_n++;
    while (i > 0) {
        size_t up = (i - 1) >> 2;
        if (!pl_less(&e, &h[up])) break;
        h[i] = h[up];
        i = up;
    }
    h[i] = e;
    return true;
}

static inline pl_entry pl_pop(tycho_planner *p)
{
    pl_entry *h = p->heap;
    pl_entry top = h[0];
    size_t n = --p->heap_n;
    if (n == 0) return top;
    pl_entry e = h[n];
    size_t i = 0;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n) break;
        size_t best = c;
        size_t end = c + 4 < n ? c + 4 : n;
        for (size_t k = c + 1; k < end; k++)
            if (pl_less(&h[k], &h[best])) best = k;
        if (!pl_less(&h[best], &e)) break;
        h[i] = h[best];
        i = best;
    }
    h[i] = e;
    return top;
}

static inline uint64_t pl_dkey(double d)
{
    uint64_t k;
    memcpy(&k, &d, sizeof k); /* d >= 0: IEEE bits order like the values */
    return k;
}

/* Larger g first among equal keys. */
static inline uint32_t pl_tie_int(uint64_t g)
{
    uint64_t q = g >> 8;
    return q > 0xffffffffu ? 0 : 0xffffffffu - (uint32_t)q;
}

static inline uint32_t pl_tie_double(double g)
{
    double q = g * 1024.0;
    return q >= 4294967295.0 ? 0 : 0xffffffffu - (uint32_t)q;
}

/* --- snapshot helpers ----------------------------------------------------- */

static inline size_t pl_index(const tycho_planner *p, int x, int y)
{
    return (size_t)(y + 1) * (size_t)p->pw + (size_t)(x + 1);
}

static inline void pl_coords(const tycho_planner *p, size_t i, int *x, int *y)
{
    size_t yy = i / (size_t)p->pw;
    *y = (int)yy - 1;
    *x = (int)(i - yy * (size_t)p->pw) - 1;
}

/* Starts a new query: fresh generation, empty open list. */
void pl_begin(tycho_planner *p);

/* Builds the snapshot for g under the given passability options. */
tycho_status pl_snapshot(tycho_planner *p, const tycho_grid *g, int blocked_cost,
                         bool allow_unknown, tycho_err *err);
void pl_build_mult(tycho_planner *p, double weight);

/* Validates start/goal on the snapshot, with the messages from planner.h. */
tycho_status pl_check_endpoints(const tycho_planner *p, tycho_cell s, tycho_cell t,
                                tycho_err *err);
/* Why a cell (in the grid) is blocked, e.g. "(cost 254)" or "(cost 255, unknown)". */
void pl_describe_blocked(uint8_t cost, char *buf, size_t n);

/* Writes the parent chain ending at goal (start's parent is itself) into out,
 * start first. For JPS, parents are jump points and the cells between are
 * filled in (diagonal first, then straight). */
tycho_status pl_extract_path(tycho_planner *p, size_t start, size_t goal, bool jumps,
                             tycho_path *out, tycho_err *err);

tycho_status pl_astar_uniform(tycho_planner *p, size_t s, size_t t, bool four,
                              tycho_path *out, tycho_err *err);
tycho_status pl_astar_costaware(tycho_planner *p, size_t s, size_t t, double weight,
                                tycho_path *out, tycho_err *err);
tycho_status pl_jps(tycho_planner *p, size_t s, size_t t, tycho_path *out, tycho_err *err);
tycho_status pl_no_path(const tycho_planner *p, tycho_err *err);

#endif
