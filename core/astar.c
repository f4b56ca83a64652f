/* The planner workspace (snapshot, generations, open list), the query
 * front end, and A*: uniform 8-/4-connected and cost-aware. */
#include "planner_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void tycho_plan_opts_defaults(tycho_plan_opts *o)
{
    o->algorithm = TYCHO_PLAN_ASTAR;
    o->blocked_cost = TYCHO_COST_INSCRIBED;
    o->allow_unknown = false;
    o->weight = 1.0;
    o->shorten = false;
}

static const char *const ALGO_NAMES[] = {"astar", "astar4", "jps", "costaware"};

bool tycho_plan_algorithm_parse(const char *name, tycho_plan_algorithm *out)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(name, ALGO_NAMES[i])) {
            *out = (tycho_plan_algorithm)i;
            return true;
        }
    return false;
}

const char *tycho_plan_algorithm_name(tycho_plan_algorithm a)
{
    return (unsigned)a < 4 ? ALGO_NAMES[a] : "?";
}

/* --- workspace ------------------------------------------------------------------ */

tycho_planner *tycho_planner_new(void)
{
    tycho_planner *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->mult_weight = NAN;
    p->gen_open = 0;
    p->gen_closed = 1;
    return p;
}

void tycho_planner_free(tycho_planner *p)
{
    if (!p) return;
    free(p->enc);
    free(p->raw);
    free(p->nodes);
    free(p->heap_mem);
    free(p->rowbits);
    free(p->colbits);
    free(p);
}

size_t tycho_planner_expanded(const tycho_planner *p) { return p->expanded; }

static bool heap_realloc(tycho_planner *p, size_t used)
{
    size_t nc = p->heap_cap ? p->heap_cap * 2 : 4096;
    /* 64-byte aligned, offset by 3 entries so each group of 4 children
     * (indices 4i+1..4i+4) fills exactly one cache line */
    size_t bytes = (nc + 4) * sizeof(pl_entry);
    bytes = (bytes + 63) & ~(size_t)63;
    pl_entry *m = aligned_alloc(64, bytes);
    if (!m) return false;
    if (used) memcpy(m + 3, p->heap, used * sizeof *m);
    free(p->heap_mem);
    p->heap_mem = m;
    p->heap = m + 3;
    p->heap_cap = nc;
    return true;
}

pl_heapv pl_heap_grown(tycho_planner *p, pl_heapv v)
{
    if (heap_realloc(p, v.n)) {
        v.h = p->heap;
        v.cap = p->heap_cap;
    }
    return v;
}

void pl_begin(tycho_planner *p)
{
    p->expanded = 0;
    if (p->gen_closed >= 0xfffffff0u) {
        /* generations wrapped: the only time records are cleared */
        memset(p->nodes, 0, p->cap * sizeof *p->nodes);
        p->gen_open = 0;
        p->gen_closed = 1;
    }
    p->gen_open += 2;
    p->gen_closed += 2;
}

tycho_status pl_snapshot(tycho_planner *p, const tycho_grid *g, int blocked_cost,
                         bool allow_unknown, tycho_err *err)
{
    if (blocked_cost < 1 || blocked_cost > TYCHO_COST_LETHAL)
        return tycho_fail(err, TYCHO_EINVAL, "blocked_cost must be 1..254 (got %d)", blocked_cost);
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    size_t ncells = (size_t)(w + 2) * (size_t)(h + 2);
    size_t n = (size_t)w * (size_t)h;
    p->prepared = false;
    if (ncells > PARENT_MASK) /* parent fields keep 29 bits of index */
        return tycho_fail(err, TYCHO_EINVAL, "grid %dx%d is too large for the planner", w, h);
    if (ncells > p->cap) {
        /* grow once to the largest grid seen; stamps must start at zero */
        uint8_t *enc = malloc(ncells);
        /* raw needs only w * h bytes, but it is sized like the padded
         * arrays so that `cap` bounds both: a later grid with fewer padded
         * cells can still have more unpadded ones (200x1, then 20x20) */
        uint8_t *raw = malloc(ncells);
        pl_node *nodes = calloc(ncells, sizeof *nodes);
        if (!enc || !raw || !nodes) {
            free(enc);
            free(raw);
            free(nodes);
            return tycho_fail(err, TYCHO_ENOMEM, "out of memory for a %dx%d planner workspace", w,
                              h);
        }
        free(p->enc);
        free(p->raw);
        free(p->nodes);
        p->enc = enc;
        p->raw = raw;
        p->nodes = nodes;
        p->cap = ncells;
        p->gen_open = 0;
        p->gen_closed = 1;
    }
    if (p->heap_cap == 0 && !heap_realloc(p, 0))
        return tycho_fail(err, TYCHO_ENOMEM, "out of memory for the open list");
    p->w = w;
    p->h = h;
    p->pw = w + 2;
    p->ncells = ncells;
    p->blocked_cost = blocked_cost;
    p->allow_unknown = allow_unknown;
    /* Key layout for uniform searches. Every g is at most the cost of a
     * simple path plus one jump, (ncells + w + h) diagonal steps, and h at
     * most (w + h) diagonal steps; f gets the bits that bound needs and h
     * fills the rest (shifted down if it does not fit: ties then break a
     * little coarser, never wrongly). */
    uint64_t hmax = (uint64_t)(w + h) * UNIT_D;
    uint64_t fmax = (uint64_t)(ncells + (size_t)w + (size_t)h) * UNIT_D + hmax;
    unsigned fbits = 64u - (unsigned)__builtin_clzll(fmax);
    unsigned hbits = 64u - (unsigned)__builtin_clzll(hmax);
    p->key_shift = 64u - fbits;
    p->h_shift = hbits > p->key_shift ? hbits - p->key_shift : 0;

    uint8_t lut[256];
    for (int c = 0; c < 256; c++) lut[c] = c < blocked_cost ? (uint8_t)(c + 1) : 0;
    lut[TYCHO_COST_UNKNOWN] = allow_unknown ? 255 : 0;
    const uint8_t *cells = tycho_grid_cells_const(g);
    memcpy(p->raw, cells, n);
    size_t pw = (size_t)p->pw;
    memset(p->enc, 0, pw);
    memset(p->enc + (size_t)(h + 1) * pw, 0, pw);
    for (int y = 0; y < h; y++) {
        uint8_t *row = p->enc + (size_t)(y + 1) * pw;
        const uint8_t *src = cells + (size_t)y * (size_t)w;
        row[0] = 0;
        row[w + 1] = 0;
        for (int x = 0; x < w; x++) row[x + 1] = lut[src[x]];
    }
    p->bits_ready = false;
    p->prepared = true;
    return TYCHO_OK;
}

void pl_build_mult(tycho_planner *p, double weight)
{
    if (p->mult_weight == weight) return;
    p->mult[0] = 0; /* blocked: never used */
    for (int e = 1; e < 255; e++) p->mult[e] = 1.0 + weight * (double)(e - 1) / 252.0;
    p->mult[255] = 1.0 + weight * 255.0 / 252.0;
    p->mult_weight = weight;
}

void pl_describe_blocked(uint8_t cost, char *buf, size_t n)
{
    snprintf(buf, n, "(cost %d%s)", cost, cost == TYCHO_COST_UNKNOWN ? ", unknown" : "");
}

static tycho_status check_one(const tycho_planner *p, const char *what, tycho_cell c,
                              tycho_err *err)
{
    if (!tycho_grid_in_bounds_wh(p->w, p->h, c.x, c.y))
        return tycho_fail(err, TYCHO_ENOPATH, "%s (%d,%d) is outside the %dx%d grid", what,
                          (int)c.x, (int)c.y, p->w, p->h);
    if (!p->enc[pl_index(p, c.x, c.y)]) {
        char why[32];
        pl_describe_blocked(p->raw[(size_t)c.y * (size_t)p->w + (size_t)c.x], why, sizeof why);
        return tycho_fail(err, TYCHO_ENOPATH, "%s (%d,%d) is blocked %s", what, (int)c.x, (int)c.y,
                          why);
    }
    return TYCHO_OK;
}

tycho_status pl_check_endpoints(const tycho_planner *p, tycho_cell s, tycho_cell t, tycho_err *err)
{
    tycho_status st = check_one(p, "start", s, err);
    if (st == TYCHO_OK) st = check_one(p, "goal", t, err);
    return st;
}

tycho_status pl_no_path(const tycho_planner *p, tycho_err *err)
{
    return tycho_fail(err, TYCHO_ENOPATH, "no path: goal unreachable after expanding %zu cells",
                      p->expanded);
}

tycho_status tycho_planner_prepare(tycho_planner *p, const tycho_grid *g, const tycho_plan_opts *o,
                                   tycho_err *err)
{
    tycho_plan_opts d;
    if (!o) {
        tycho_plan_opts_defaults(&d);
        o = &d;
    }
    if ((unsigned)o->algorithm > TYCHO_PLAN_COSTAWARE)
        return tycho_fail(err, TYCHO_EINVAL, "unknown planner algorithm %d", (int)o->algorithm);
    if (!(o->weight >= 0) || !isfinite(o->weight))
        return tycho_fail(err, TYCHO_EINVAL, "weight must be finite and >= 0");
    tycho_status st = pl_snapshot(p, g, o->blocked_cost, o->allow_unknown, err);
    if (st != TYCHO_OK) return st;
    p->opts = *o;
    return TYCHO_OK;
}

tycho_status tycho_planner_find_with(tycho_planner *p, tycho_plan_algorithm algo, double weight,
                                     tycho_cell start, tycho_cell goal, tycho_path *out,
                                     tycho_err *err)
{
    if (!p->prepared)
        return tycho_fail(err, TYCHO_EINVAL, "planner has no map: call prepare first");
    if (!(weight >= 0) || !isfinite(weight))
        return tycho_fail(err, TYCHO_EINVAL, "weight must be finite and >= 0");
    tycho_status st = pl_check_endpoints(p, start, goal, err);
    if (st != TYCHO_OK) {
        out->count = 0;
        return st;
    }
    size_t s = pl_index(p, start.x, start.y), t = pl_index(p, goal.x, goal.y);
    switch (algo) {
    case TYCHO_PLAN_ASTAR:
        return pl_astar_uniform(p, s, t, false, out, err);
    case TYCHO_PLAN_ASTAR4:
        return pl_astar_uniform(p, s, t, true, out, err);
    case TYCHO_PLAN_JPS:
        return pl_jps(p, s, t, out, err);
    case TYCHO_PLAN_COSTAWARE:
        return pl_astar_costaware(p, s, t, weight, out, err);
    }
    return tycho_fail(err, TYCHO_EINVAL, "unknown planner algorithm %d", (int)algo);
}

tycho_status tycho_planner_distance(tycho_planner *p, tycho_plan_algorithm algo, double weight,
                                    tycho_cell start, tycho_cell goal, double *cost, tycho_err *err)
{
    tycho_path none;
    tycho_path_init(&none);
    p->length_only = true;
    tycho_status st = tycho_planner_find_with(p, algo, weight, start, goal, &none, err);
    p->length_only = false;
    *cost = st == TYCHO_OK ? none.cost : INFINITY;
    tycho_path_release(&none); /* nothing was allocated; kept for symmetry */
    return st;
}

tycho_status tycho_planner_find(tycho_planner *p, tycho_cell start, tycho_cell goal,
                                tycho_path *out, tycho_err *err)
{
    return tycho_planner_find_with(p, p->opts.algorithm, p->opts.weight, start, goal, out, err);
}

tycho_status tycho_planner_plan(tycho_planner *p, const tycho_grid *g, tycho_cell start,
                                tycho_cell goal, const tycho_plan_opts *o, tycho_path *out,
                                tycho_err *err)
{
    tycho_plan_opts d;
    if (!o) {
        tycho_plan_opts_defaults(&d);
        o = &d;
    }
    tycho_status st = tycho_planner_prepare(p, g, o, err);
    if (st == TYCHO_OK) st = tycho_planner_find(p, start, goal, out, err);
    if (st == TYCHO_OK && o->shorten) st = tycho_path_shorten(out, g, o, err);
    return st;
}

/* --- uniform A* ------------------------------------------------------------------ */

static inline uint64_t octile(int x, int y, int tx, int ty)
{
    unsigned dx = (unsigned)abs(x - tx), dy = (unsigned)abs(y - ty);
    unsigned mn = dx < dy ? dx : dy, mx = dx ^ dy ^ mn;
    return (uint64_t)UNIT_D * mn + (uint64_t)UNIT_S * (mx - mn);
}

static inline uint64_t manhattan(int x, int y, int tx, int ty)
{
    return (uint64_t)UNIT_S * (unsigned)(abs(x - tx) + abs(y - ty));
}

static tycho_status oom_open(tycho_err *err)
{
    return tycho_fail(err, TYCHO_ENOMEM, "out of memory growing the open list");
}

/* One function for both connectivities; `four` is a constant at each call
 * site after inlining, so each variant gets its own tight loop. Everything
 * the loop touches is in locals (see pl_heapv). */
static inline tycho_status astar_uniform(tycho_planner *p, size_t s, size_t t, bool four,
                                         tycho_path *out, tycho_err *err)
{
    pl_begin(p);
    const uint8_t *restrict enc = p->enc;
    pl_node *restrict nd = p->nodes;
    const size_t pw = (size_t)p->pw;
    const uint32_t open = p->gen_open, closed = p->gen_closed;
    const unsigned ks = p->key_shift, hs = p->h_shift;
    pl_heapv hv = pl_hv(p);
    size_t expanded = 0;
    int tx, ty, sx, sy;
    pl_coords(p, t, &tx, &ty);
    pl_coords(p, s, &sx, &sy);
    nd[s].stamp = open;
    nd[s].parent = (uint32_t)s;
    nd[s].g.gi = 0;
    uint64_t h0 = four ? manhattan(sx, sy, tx, ty) : octile(sx, sy, tx, ty);
    if (!pl_push(p, &hv, (h0 << ks) | (h0 >> hs), (uint32_t)s)) return oom_open(err);
    bool ok = true;

/* relaxes n -> m = n + OFF, cell (x + DX, y + DY), step cost COST */
#define RELAX(OFF, DX, DY, COST)                                                                   \
    do {                                                                                           \
        size_t m_ = n + (OFF);                                                                     \
        pl_node *r_ = &nd[m_];                                                                     \
        uint64_t ng_ = g + (COST);                                                                 \
        if (r_->stamp >= open && (r_->stamp == closed || ng_ >= r_->g.gi)) break;                  \
        r_->stamp = open;                                                                          \
        r_->parent = (uint32_t)n;                                                                  \
        r_->g.gi = ng_;                                                                            \
        uint64_t h_ =                                                                              \
            four ? manhattan(x + (DX), y + (DY), tx, ty) : octile(x + (DX), y + (DY), tx, ty);     \
        ok &= pl_push(p, &hv, ((ng_ + h_) << ks) | (h_ >> hs), (uint32_t)m_);                      \
    } while (0)

    while (hv.n) {
        const size_t n = hv.h[0].node;
        pl_node *cur = &nd[n];
        if (cur->stamp == closed) { /* stale duplicate */
            pl_drop_top(&hv);
            continue;
        }
        cur->stamp = closed;
        expanded++;
        if (n == t) {
            p->expanded = expanded;
            return pl_extract_path(p, s, t, false, out, err);
        }
        pl_hold(&hv);
        const uint64_t g = cur->g.gi;
        int x, y;
        pl_coords(p, n, &x, &y);
        const bool E = enc[n + 1], W = enc[n - 1], N = enc[n + pw], S = enc[n - pw];
        if (E) RELAX(1, 1, 0, UNIT_S);
        if (W) RELAX(-1, -1, 0, UNIT_S);
        if (N) RELAX(pw, 0, 1, UNIT_S);
        if (S) RELAX(-pw, 0, -1, UNIT_S);
        if (!four) {
            if (N && E && enc[n + pw + 1]) RELAX(pw + 1, 1, 1, UNIT_D);
            if (N && W && enc[n + pw - 1]) RELAX(pw - 1, -1, 1, UNIT_D);
            if (S && E && enc[n - pw + 1]) RELAX(-pw + 1, 1, -1, UNIT_D);
            if (S && W && enc[n - pw - 1]) RELAX(-pw - 1, -1, -1, UNIT_D);
        }
        pl_release(&hv);
        if (!ok) return oom_open(err);
    }
#undef RELAX
    p->expanded = expanded;
    return pl_no_path(p, err);
}

tycho_status pl_astar_uniform(tycho_planner *p, size_t s, size_t t, bool four, tycho_path *out,
                              tycho_err *err)
{
    return four ? astar_uniform(p, s, t, true, out, err) : astar_uniform(p, s, t, false, out, err);
}

/* --- cost-aware A* ---------------------------------------------------------------- */

static inline double octile_d(int x, int y, int tx, int ty)
{
    int dx = abs(x - tx), dy = abs(y - ty);
    int mn = dx < dy ? dx : dy, mx = dx ^ dy ^ mn;
    return SQRT2 * mn + (mx - mn);
}

tycho_status pl_astar_costaware(tycho_planner *p, size_t s, size_t t, double weight,
                                tycho_path *out, tycho_err *err)
{
    pl_build_mult(p, weight);
    pl_begin(p);
    const uint8_t *restrict enc = p->enc;
    const double *mult = p->mult;
    pl_node *restrict nd = p->nodes;
    const size_t pw = (size_t)p->pw;
    const uint32_t open = p->gen_open, closed = p->gen_closed;
    pl_heapv hv = pl_hv(p);
    size_t expanded = 0;
    int tx, ty, sx, sy;
    pl_coords(p, t, &tx, &ty);
    pl_coords(p, s, &sx, &sy);
    nd[s].stamp = open;
    nd[s].parent = (uint32_t)s;
    nd[s].g.gd = 0;
    if (!pl_push(p, &hv, pl_dkey(octile_d(sx, sy, tx, ty)), (uint32_t)s)) return oom_open(err);
    bool ok = true;

#define RELAX(OFF, DX, DY, COST)                                                                   \
    do {                                                                                           \
        size_t m_ = n + (OFF);                                                                     \
        pl_node *r_ = &nd[m_];                                                                     \
        double ng_ = g + (COST);                                                                   \
        if (r_->stamp >= open && (r_->stamp == closed || ng_ >= r_->g.gd)) break;                  \
        r_->stamp = open;                                                                          \
        r_->parent = (uint32_t)n;                                                                  \
        r_->g.gd = ng_;                                                                            \
        ok &= pl_push(p, &hv, pl_dkey(ng_ + octile_d(x + (DX), y + (DY), tx, ty)), (uint32_t)m_);  \
    } while (0)

    while (hv.n) {
        const size_t n = hv.h[0].node;
        pl_node *cur = &nd[n];
        if (cur->stamp == closed) {
            pl_drop_top(&hv);
            continue;
        }
        cur->stamp = closed;
        expanded++;
        if (n == t) {
            p->expanded = expanded;
            tycho_status st = pl_extract_path(p, s, t, false, out, err);
            out->cost = cur->g.gd;
            return st;
        }
        pl_hold(&hv);
        const double g = cur->g.gd;
        int x, y;
        pl_coords(p, n, &x, &y);
        const uint8_t E = enc[n + 1], W = enc[n - 1], N = enc[n + pw], S = enc[n - pw];
        if (E) RELAX(1, 1, 0, mult[E]);
        if (W) RELAX(-1, -1, 0, mult[W]);
        if (N) RELAX(pw, 0, 1, mult[N]);
        if (S) RELAX(-pw, 0, -1, mult[S]);
        uint8_t c;
        if (N && E && (c = enc[n + pw + 1])) RELAX(pw + 1, 1, 1, SQRT2 * mult[c]);
        if (N && W && (c = enc[n + pw - 1])) RELAX(pw - 1, -1, 1, SQRT2 * mult[c]);
        if (S && E && (c = enc[n - pw + 1])) RELAX(-pw + 1, 1, -1, SQRT2 * mult[c]);
        if (S && W && (c = enc[n - pw - 1])) RELAX(-pw - 1, -1, -1, SQRT2 * mult[c]);
        pl_release(&hv);
        if (!ok) return oom_open(err);
    }
#undef RELAX
    p->expanded = expanded;
    return pl_no_path(p, err);
}
