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

/* Open-list entry, ordered by key alone so the heap compares one integer.
 * Uniform planners pack (f, h) into the key: f in the high bits, h in the
 * low ones, so among equal f the smaller h (= larger g, the deeper node)
 * comes first, the tie-breaking that keeps A* from flooding open areas.
 * Cost-aware planners use the bits of a non-negative double, which order
 * like the values. */
typedef struct {
    uint64_t key;
    uint32_t node;
    uint32_t unused;
} pl_entry;

struct tycho_planner {
    /* snapshot */
    int w, h;         /* grid size */
    int pw;           /* padded row length: w + 2 */
    size_t ncells;    /* (w + 2) * (h + 2) */
    size_t cap;       /* allocated padded cells */
    uint8_t *enc;     /* 0 blocked, cost + 1 for costs 0..253, 255 for allowed unknown */
    uint8_t *raw;     /* copy of the grid's costs (unpadded), for messages */
    int blocked_cost; /* passability the snapshot was made with */
    bool allow_unknown;
    tycho_plan_opts opts;
    bool prepared;
    bool length_only;   /* set by tycho_planner_distance: no cells written */
    double mult[256];   /* cost-aware multiplier by enc value */
    double mult_weight; /* weight mult[] was built for (NAN: not built) */

    /* JPS bit lines (see jps.c): each array holds three planes of
     * `plane` words: passable cells, then the stop lines of the two scan
     * directions along it */
    uint64_t *rowbits, *colbits;
    size_t rw, cw;   /* words per bit row / bit column */
    size_t plane;    /* words per plane (the larger of rows and columns) */
    size_t bits_cap; /* allocated words (each array) */
    bool bits_ready;

    /* search */
    pl_node *nodes;
    uint32_t gen_open, gen_closed;
    pl_entry *heap_mem; /* allocation; heap = heap_mem + 3 keeps child groups aligned */
    pl_entry *heap;
    size_t heap_cap;
    size_t expanded;
    unsigned key_shift; /* uniform keys: (f << key_shift) | (h >> h_shift) */
    unsigned h_shift;
};

/* --- open list: 4-ary min-heap, lazy deletion (stale entries are skipped
 * when popped, which beats decrease-key on grids) ---------------------------- */

/* A search keeps its open list in a local pl_heapv (pointer, size,
 * capacity) so the compiler holds them in registers instead of reloading
 * them through the workspace after every store into the node records. */
typedef struct {
    pl_entry *h;
    size_t n, cap;
    bool hole; /* root consumed by the expansion, not yet replaced (pl_hold) */
} pl_heapv;

static inline pl_heapv pl_hv(tycho_planner *p)
{
    pl_heapv v = {p->heap, 0, p->heap_cap, false};
    return v;
}

/* Doubles the open list; on failure cap stays == n. */
pl_heapv pl_heap_grown(tycho_planner *p, pl_heapv v);

/* Moves entry e down from slot i to its place (heap of n entries). */
static inline void pl_sift_down(pl_entry *h, size_t n, size_t i, pl_entry e)
{
    for (;;) {
        size_t c = 4 * i + 1;
        size_t best;
        if (c + 3 < n) {
            /* full group of 4: branch-free minimum (cmov), since the
             * comparisons are unpredictable */
            size_t b01 = h[c + 1].key < h[c].key ? c + 1 : c;
            size_t b23 = h[c + 3].key < h[c + 2].key ? c + 3 : c + 2;
            best = h[b23].key < h[b01].key ? b23 : b01;
        } else {
            if (c >= n) break;
            best = c;
            for (size_t k = c + 1; k < n; k++)
                if (h[k].key < h[best].key) best = k;
        }
        if (h[best].key >= e.key) break;
        h[i] = h[best];
        i = best;
    }
    h[i] = e;
}

static inline bool pl_push(tycho_planner *p, pl_heapv *v, uint64_t key, uint32_t node)
{
    pl_entry e = {key, node, 0};
    if (v->hole) {
        /* the entry being expanded is still at the root: the first
         * successor takes its place. Successors have keys close to the
         * minimum, so this sift ends near the top: far cheaper than a full
         * pop plus a push */
        v->hole = false;
        pl_sift_down(v->h, v->n, 0, e);
        return true;
    }
    if (v->n == v->cap) {
        *v = pl_heap_grown(p, *v);
        if (v->n == v->cap) return false;
    }
    pl_entry *h = v->h;
    size_t i = v->n++;
    while (i > 0) {
        size_t up = (i - 1) >> 2;
        if (key >= h[up].key) break;
        h[i] = h[up];
        i = up;
    }
    h[i] = e;
    return true;
}

/* Removes the root. */
static inline void pl_drop_top(pl_heapv *v)
{
    size_t n = --v->n;
    if (n) pl_sift_down(v->h, n, 0, v->h[n]);
}

static inline pl_entry pl_pop(pl_heapv *v)
{
    pl_entry top = v->h[0];
    pl_drop_top(v);
    return top;
}

/* Expanding with the root left in place: pl_hold() after reading the root,
 * push the successors, then pl_release(). */
static inline void pl_hold(pl_heapv *v) { v->hole = true; }
static inline void pl_release(pl_heapv *v)
{
    if (v->hole) {
        v->hole = false;
        pl_drop_top(v);
    }
}

static inline uint64_t pl_dkey(double d)
{
    uint64_t k;
    memcpy(&k, &d, sizeof k); /* d >= 0: IEEE bits order like the values */
    return k;
}

static inline uint64_t pl_ukey(const tycho_planner *p, uint64_t g, uint64_t h)
{
    return ((g + h) << p->key_shift) | (h >> p->h_shift);
}

/* --- snapshot helpers ----------------------------------------------------- */

static inline size_t pl_index(const tycho_planner *p, int x, int y)
{
    return (size_t)(y + 1) * (size_t)p->pw + (size_t)(x + 1);
}

static inline void pl_coords(const tycho_planner *p, size_t i, int *x, int *y)
{
    /* padded indices fit 29 bits: a 32-bit divide is much cheaper */
    uint32_t yy = (uint32_t)i / (uint32_t)p->pw;
    *y = (int)yy - 1;
    *x = (int)((uint32_t)i - yy * (uint32_t)p->pw) - 1;
}

/* Starts a new query: fresh generation, empty open list. */
void pl_begin(tycho_planner *p);

/* Builds the snapshot for g under the given passability options. */
tycho_status pl_snapshot(tycho_planner *p, const tycho_grid *g, int blocked_cost,
                         bool allow_unknown, tycho_err *err);
void pl_build_mult(tycho_planner *p, double weight);

/* Validates start/goal on the snapshot, with the messages from planner.h. */
tycho_status pl_check_endpoints(const tycho_planner *p, tycho_cell s, tycho_cell t, tycho_err *err);
/* Why a cell (in the grid) is blocked, e.g. "(cost 254)" or "(cost 255, unknown)". */
void pl_describe_blocked(uint8_t cost, char *buf, size_t n);

/* Writes the parent chain ending at goal (start's parent is itself) into out,
 * start first. For JPS, parents are jump points and the cells between are
 * filled in (diagonal first, then straight). */
tycho_status pl_extract_path(tycho_planner *p, size_t start, size_t goal, bool jumps,
                             tycho_path *out, tycho_err *err);

tycho_status pl_astar_uniform(tycho_planner *p, size_t s, size_t t, bool four, tycho_path *out,
                              tycho_err *err);
tycho_status pl_astar_costaware(tycho_planner *p, size_t s, size_t t, double weight,
                                tycho_path *out, tycho_err *err);
tycho_status pl_jps(tycho_planner *p, size_t s, size_t t, tycho_path *out, tycho_err *err);
tycho_status pl_no_path(const tycho_planner *p, tycho_err *err);

#endif
