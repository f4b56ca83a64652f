/* The planner workspace (snapshot, generations, open list), the query
 * front end, and A*: uniform 8-/4-connected and cost-aware. */
#include "planner_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void tycho_plan_opts_default(tycho_plan_opts *o)
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

bool pl_heap_grow(tycho_planner *p)
{
    size_t nc = p->heap_cap ? p->heap_cap * 2 : 4096;
    /* 64-byte aligned, offset by 3 entries so each group of 4 children
     * (indices 4i+1..4i+4) fills exactly one cache line */
    size_t bytes = (nc + 4) * sizeof(pl_entry);
    bytes = (bytes + 63) & ~(size_t)63;
    pl_entry *m = aligned_alloc(64, bytes);
    if (!m) return false;
    if (p->heap_n) memcpy(m + 3, p->heap, p->heap_n * sizeof *m);
    free(p->heap_mem);
    p->heap_mem = m;
    p->heap = m + 3;
    p->heap_cap = nc;
    return true;
}

void pl_begin(tycho_planner *p)
{
    p->heap_n = 0;
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
        return tycho_fail(err, TYCHO_EINVAL, "blocked_cost must be 1..254 (got %d)",
                          blocked_cost);
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    size_t ncells = (size_t)(w + 2) * (size_t)(h + 2);
    size_t n = (size_t)w * (size_t)h;
    p->prepared = false;
    if (ncells > PARENT_MASK) /* parent fields keep 29 bits of index */
        return tycho_fail(err, TYCHO_EINVAL, "grid %dx%d is too large for the planner", w, h);
    if (ncells > p->cap) {
        /* grow once to the largest grid seen; stamps must start at zero */
        uint8_t *enc = malloc(ncells);
        uint8_t *raw = malloc(n ? n : 1);
        pl_node *nodes = calloc(ncells, sizeof *nodes);
        if (!enc || !raw || !nodes) {
            free(enc);
            free(raw);
            free(nodes);
            return tycho_fail(err, TYCHO_ENOMEM, "out of memory for a %dx%d planner workspace",
                              w, h);
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
    if (p->heap_cap == 0 && !pl_heap_grow(p))
        return tycho_fail(err, TYCHO_ENOMEM, "out of memory for the open list");
    p->w = w;
    p->h = h;
    p->pw = w + 2;
    p->ncells = ncells;
    p->blocked_cost = blocked_cost;
    p->allow_unknown = allow_unknown;

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
        return tycho_fail(err, TYCHO_ENOPATH, "%s (%d,%d) is blocked %s", what, (int)c.x,
                          (int)c.y, why);
    }
    return TYCHO_OK;
}

tycho_status pl_check_endpoints(const tycho_planner *p, tycho_cell s, tycho_cell t,
                                tycho_err *err)
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

tycho_status tycho_planner_prepare(tycho_planner *p, const tycho_grid *g,
                                   const tycho_plan_opts *o, tycho_err *err)
{
    tycho_plan_opts d;
    if (!o) {
        tycho_plan_opts_default(&d);
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

tycho_status tycho_planner_find_with(tycho_planner *p, tycho_plan_algorithm algo,
                                     double weight, tycho_cell start, tycho_cell goal,
                                     tycho_path *out, tycho_err *err)
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
    case TYCHO_PLAN_ASTAR: return pl_astar_uniform(p, s, t, false, out, err);
    case TYCHO_PLAN_ASTAR4: return pl_astar_uniform(p, s, t, true, out, err);
    case TYCHO_PLAN_JPS: return pl_jps(p, s, t, out, err);
    case TYCHO_PLAN_COSTAWARE: return pl_astar_costaware(p, s, t, weight, out, err);
    }
    return tycho_fail(err, TYCHO_EINVAL, "unknown planner algorithm %d", (int)algo);
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
        tycho_plan_opts_default(&d);
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

/* Relaxes edge n -> m (cell mx, my) with tentative cost ng. False only when
 * the open list cannot grow. */
static inline bool relax_uniform(tycho_planner *p, pl_node *nd, size_t m, int mx, int my,
                                 uint64_t ng, size_t n, int tx, int ty, bool four)
{
    pl_node *r = &nd[m];
    if (r->stamp >= p->gen_open && (r->stamp == p->gen_closed || ng >= r->g.gi)) return true;
    r->stamp = p->gen_open;
    r->parent = (uint32_t)n;
    r->g.gi = ng;
    uint64_t hh = four ? manhattan(mx, my, tx, ty) : octile(mx, my, tx, ty);
    return pl_push(p, ng + hh, pl_tie_int(ng), (uint32_t)m);
}

static tycho_status oom_open(tycho_err *err)
{
    return tycho_fail(err, TYCHO_ENOMEM, "out of memory growing the open list");
}

/* One function for both connectivities; `four` is a constant at each call
 * site after inlining, so each variant gets its own tight loop. */
static inline tycho_status astar_uniform(tycho_planner *p, size_t s, size_t t, bool four,
                                         tycho_path *out, tycho_err *err)
{
    pl_begin(p);
    const uint8_t *enc = p->enc;
    pl_node *nd = p->nodes;
    const size_t pw = (size_t)p->pw;
    const uint32_t closed = p->gen_closed;
    int tx, ty, sx, sy;
    pl_coords(p, t, &tx, &ty);
    pl_coords(p, s, &sx, &sy);
    nd[s].stamp = p->gen_open;
    nd[s].parent = (uint32_t)s;
    nd[s].g.gi = 0;
    if (!pl_push(p, four ? manhattan(sx, sy, tx, ty) : octile(sx, sy, tx, ty), pl_tie_int(0),
                 (uint32_t)s))
        return oom_open(err);
    while (p->heap_n) {
        pl_entry e = pl_pop(p);
        size_t n = e.node;
        pl_node *cur = &nd[n];
        if (cur->stamp == closed) continue; /* stale duplicate */
        cur->stamp = closed;
        p->expanded++;
        if (n == t) return pl_extract_path(p, s, t, false, out, err);
        const uint64_t g = cur->g.gi;
        int x, y;
        pl_coords(p, n, &x, &y);
        const bool E = enc[n + 1], W = enc[n - 1], N = enc[n + pw], S = enc[n - pw];
        bool ok = true;
        const uint64_t gs = g + UNIT_S;
        if (E) ok &= relax_uniform(p, nd, n + 1, x + 1, y, gs, n, tx, ty, four);
        if (W) ok &= relax_uniform(p, nd, n - 1, x - 1, y, gs, n, tx, ty, four);
        if (N) ok &= relax_uniform(p, nd, n + pw, x, y + 1, gs, n, tx, ty, four);
        if (S) ok &= relax_uniform(p, nd, n - pw, x, y - 1, gs, n, tx, ty, four);
        if (!four) {
            const uint64_t gd = g + UNIT_D;
            if (N && E && enc[n + pw + 1])
                ok &= relax_uniform(p, nd, n + pw + 1, x + 1, y + 1, gd, n, tx, ty, false);
            if (N && W && enc[n + pw - 1])
                ok &= relax_uniform(p, nd, n + pw - 1, x - 1, y + 1, gd, n, tx, ty, false);
            if (S && E && enc[n - pw + 1])
                ok &= relax_uniform(p, nd, n - pw + 1, x + 1, y - 1, gd, n, tx, ty, false);
            if (S && W && enc[n - pw - 1])
                ok &= relax_uniform(p, nd, n - pw - 1, x - 1, y - 1, gd, n, tx, ty, false);
        }
        if (!ok) return oom_open(err);
    }
    return pl_no_path(p, err);
}

tycho_status pl_astar_uniform(tycho_planner *p, size_t s, size_t t, bool four,
                              tycho_path *out, tycho_err *err)
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

static inline bool relax_cost(tycho_planner *p, pl_node *nd, size_t m, int mx, int my,
                              double ng, size_t n, int tx, int ty)
{
    pl_node *r = &nd[m];
    if (r->stamp >= p->gen_open && (r->stamp == p->gen_closed || ng >= r->g.gd)) return true;
    r->stamp = p->gen_open;
    r->parent = (uint32_t)n;
    r->g.gd = ng;
    return pl_push(p, pl_dkey(ng + octile_d(mx, my, tx, ty)), pl_tie_double(ng), (uint32_t)m);
}

tycho_status pl_astar_costaware(tycho_planner *p, size_t s, size_t t, double weight,
                                tycho_path *out, tycho_err *err)
{
    pl_build_mult(p, weight);
    pl_begin(p);
    const uint8_t *enc = p->enc;
    const double *mult = p->mult;
    pl_node *nd = p->nodes;
    const size_t pw = (size_t)p->pw;
    const uint32_t closed = p->gen_closed;
    int tx, ty, sx, sy;
    pl_coords(p, t, &tx, &ty);
    pl_coords(p, s, &sx, &sy);
    nd[s].stamp = p->gen_open;
    nd[s].parent = (uint32_t)s;
    nd[s].g.gd = 0;
    if (!pl_push(p, pl_dkey(octile_d(sx, sy, tx, ty)), pl_tie_double(0), (uint32_t)s))
        return oom_open(err);
    while (p->heap_n) {
        pl_entry e = pl_pop(p);
        size_t n = e.node;
        pl_node *cur = &nd[n];
        if (cur->stamp == closed) continue;
        cur->stamp = closed;
        p->expanded++;
        if (n == t) {
            tycho_status st = pl_extract_path(p, s, t, false, out, err);
            out->cost = cur->g.gd;
            return st;
        }
        const double g = cur->g.gd;
        int x, y;
        pl_coords(p, n, &x, &y);
        const uint8_t E = enc[n + 1], W = enc[n - 1], N = enc[n + pw], S = enc[n - pw];
        bool ok = true;
        if (E) ok &= relax_cost(p, nd, n + 1, x + 1, y, g + mult[E], n, tx, ty);
        if (W) ok &= relax_cost(p, nd, n - 1, x - 1, y, g + mult[W], n, tx, ty);
        if (N) ok &= relax_cost(p, nd, n + pw, x, y + 1, g + mult[N], n, tx, ty);
        if (S) ok &= relax_cost(p, nd, n - pw, x, y - 1, g + mult[S], n, tx, ty);
        uint8_t c;
        if (N && E && (c = enc[n + pw + 1]))
            ok &= relax_cost(p, nd, n + pw + 1, x + 1, y + 1, g + SQRT2 * mult[c], n, tx, ty);
        if (N && W && (c = enc[n + pw - 1]))
            ok &= relax_cost(p, nd, n + pw - 1, x - 1, y + 1, g + SQRT2 * mult[c], n, tx, ty);
        if (S && E && (c = enc[n - pw + 1]))
            ok &= relax_cost(p, nd, n - pw + 1, x + 1, y - 1, g + SQRT2 * mult[c], n, tx, ty);
        if (S && W && (c = enc[n - pw - 1]))
            ok &= relax_cost(p, nd, n - pw - 1, x - 1, y - 1, g + SQRT2 * mult[c], n, tx, ty);
        if (!ok) return oom_open(err);
    }
    return pl_no_path(p, err);
}
