/* Paths: storage, extraction from search records, line of sight and
 * line-of-sight shortening. */
#include "planner_internal.h"

#include <math.h>
#include <stdlib.h>

void tycho_path_init(tycho_path *p)
{
    p->cells = NULL;
    p->count = p->capacity = 0;
    p->cost = p->length = 0;
}

void tycho_path_release(tycho_path *p)
{
    free(p->cells);
    tycho_path_init(p);
}

tycho_status tycho_path_reserve(tycho_path *p, size_t n, tycho_err *err)
{
    if (n <= p->capacity) return TYCHO_OK;
    size_t nc = p->capacity ? p->capacity : 64;
    while (nc < n) nc *= 2;
    tycho_cell *c = realloc(p->cells, nc * sizeof *c);
    if (!c) return tycho_fail(err, TYCHO_ENOMEM, "out of memory for a path of %zu cells", n);
    p->cells = c;
    p->capacity = nc;
    return TYCHO_OK;
}

tycho_status tycho_path_copy(tycho_path *dst, const tycho_path *src, tycho_err *err)
{
    tycho_status st = tycho_path_reserve(dst, src->count, err);
    if (st != TYCHO_OK) return st;
    if (src->count) memcpy(dst->cells, src->cells, src->count * sizeof *src->cells);
    dst->count = src->count;
    dst->cost = src->cost;
    dst->length = src->length;
    return TYCHO_OK;
}

double tycho_path_geometric_length(const tycho_path *p)
{
    double len = 0;
    for (size_t i = 1; i < p->count; i++) {
        double dx = p->cells[i].x - p->cells[i - 1].x, dy = p->cells[i].y - p->cells[i - 1].y;
        len += sqrt(dx * dx + dy * dy);
    }
    return len;
}

static inline int iabs(int v) { return v < 0 ? -v : v; }
static inline int isign(int v) { return (v > 0) - (v < 0); }

tycho_status pl_extract_path(tycho_planner *p, size_t start, size_t goal, bool jumps,
                             tycho_path *out, tycho_err *err)
{
    const pl_node *nd = p->nodes;
    /* first pass: count cells and steps */
    size_t count = 1, nstraight = 0, ndiag = 0;
    const size_t pw = (size_t)p->pw;
    for (size_t i = goal; i != start;) {
        size_t par = nd[i].parent & PARENT_MASK;
        if (jumps) {
            /* a jump: its diagonal part, then its straight part */
            int x0, y0, x1, y1;
            pl_coords(p, i, &x1, &y1);
            pl_coords(p, par, &x0, &y0);
            int dx = iabs(x1 - x0), dy = iabs(y1 - y0);
            int mn = dx < dy ? dx : dy, mx = dx > dy ? dx : dy;
            count += (size_t)mx;
            ndiag += (size_t)mn;
            nstraight += (size_t)(mx - mn);
        } else {
            /* a step to a neighbour: straight when the index moved by 1 or
             * a row */
            size_t d = i > par ? i - par : par - i;
            if (d == 1 || d == pw) nstraight++;
            else ndiag++;
            count++;
        }
        i = par;
    }
    out->length = (double)nstraight + SQRT2 * (double)ndiag;
    out->cost = out->length;
    if (p->length_only) { /* tycho_planner_distance: no cells wanted */
        out->count = count;
        return TYCHO_OK;
    }
    tycho_status st = tycho_path_reserve(out, count, err);
    if (st != TYCHO_OK) {
        out->count = 0;
        return st;
    }
    /* second pass: fill from the goal backwards. The cells between jump
     * points: diagonal first from the parent, then straight, which is how
     * jps.c walked; backwards that is the straight part first */
    size_t k = count;
    int x, y;
    pl_coords(p, goal, &x, &y);
    out->cells[--k] = (tycho_cell){x, y};
    for (size_t i = goal; i != start;) {
        size_t par = nd[i].parent & PARENT_MASK;
        int px, py;
        pl_coords(p, par, &px, &py);
        if (!jumps) {
            x = px;
            y = py;
            out->cells[--k] = (tycho_cell){x, y};
            i = par;
            continue;
        }
        int ddx = x - px, ddy = y - py;
        int nd_ = iabs(ddx) < iabs(ddy) ? iabs(ddx) : iabs(ddy);
        int sx = isign(ddx), sy = isign(ddy);
        int straight = (iabs(ddx) > iabs(ddy) ? iabs(ddx) : iabs(ddy)) - nd_;
        int lx = iabs(ddx) > iabs(ddy) ? sx : 0, ly = iabs(ddx) > iabs(ddy) ? 0 : sy;
        for (int s = 0; s < straight; s++) {
            x -= lx;
            y -= ly;
            out->cells[--k] = (tycho_cell){x, y};
        }
        for (int s = 0; s < nd_; s++) {
            x -= sx;
            y -= sy;
            out->cells[--k] = (tycho_cell){x, y};
        }
        i = par;
    }
    out->count = count;
    return TYCHO_OK;
}

/* --- line of sight ------------------------------------------------------------ */

static inline bool cell_passable(const uint8_t *cells, int w, int h, int x, int y,
                                 const tycho_plan_opts *o, int *cost)
{
    if (!tycho_grid_in_bounds_wh(w, h, x, y)) return false;
    int c = cells[(size_t)y * (size_t)w + (size_t)x];
    *cost = c;
    if (c == TYCHO_COST_UNKNOWN) return o->allow_unknown;
    return c < o->blocked_cost && c < TYCHO_COST_LETHAL;
}

/* Walks every cell the segment between the centres of a and b passes
 * through (a supercover). Where it passes exactly through a grid vertex, the
 * two cells beside the vertex are checked too: that is the no-corner-cutting
 * rule. Returns the highest cost crossed, or -1 if a cell is blocked. */
static int segment_max_cost(const uint8_t *cells, int w, int h, tycho_cell a, tycho_cell b,
                            const tycho_plan_opts *o)
{
    int x = a.x, y = a.y, c = 0, worst = 0;
    if (!cell_passable(cells, w, h, x, y, o, &c)) return -1;
    worst = c;
    const int64_t nx = iabs(b.x - a.x), ny = iabs(b.y - a.y);
    const int sx = isign(b.x - a.x), sy = isign(b.y - a.y);
    int64_t ix = 0, iy = 0;
    while (ix < nx || iy < ny) {
        /* compares the x and y distances to the next vertical and horizontal
         * cell borders, scaled to integers */
        int64_t d = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx;
        if (d == 0) {
            if (!cell_passable(cells, w, h, x + sx, y, o, &c)) return -1;
            if (c > worst) worst = c;
            if (!cell_passable(cells, w, h, x, y + sy, o, &c)) return -1;
            if (c > worst) worst = c;
            x += sx;
            y += sy;
            ix++;
            iy++;
        } else if (d < 0) {
            x += sx;
            ix++;
        } else {
            y += sy;
            iy++;
        }
        if (!cell_passable(cells, w, h, x, y, o, &c)) return -1;
        if (c > worst) worst = c;
    }
    return worst;
}

bool tycho_line_of_sight(const tycho_grid *g, tycho_cell a, tycho_cell b, const tycho_plan_opts *o)
{
    tycho_plan_opts d;
    if (!o) {
        tycho_plan_opts_defaults(&d);
        o = &d;
    }
    return segment_max_cost(tycho_grid_cells_const(g), tycho_grid_width(g), tycho_grid_height(g), a,
                            b, o) >= 0;
}

static double seg_len(tycho_cell a, tycho_cell b)
{
    double dx = b.x - a.x, dy = b.y - a.y;
    return sqrt(dx * dx + dy * dy);
}

tycho_status tycho_path_shorten(tycho_path *p, const tycho_grid *g, const tycho_plan_opts *o,
                                tycho_err *err)
{
    tycho_plan_opts d;
    if (!o) {
        tycho_plan_opts_defaults(&d);
        o = &d;
    }
    if (o->blocked_cost < 1 || o->blocked_cost > TYCHO_COST_LETHAL)
        return tycho_fail(err, TYCHO_EINVAL, "blocked_cost must be 1..254 (got %d)",
                          o->blocked_cost);
    if (p->count < 2) {
        p->length = 0;
        if (o->algorithm != TYCHO_PLAN_COSTAWARE) p->cost = 0;
        return TYCHO_OK;
    }
    const uint8_t *cells = tycho_grid_cells_const(g);
    const int w = tycho_grid_width(g), h = tycho_grid_height(g);
    const bool costaware = o->algorithm == TYCHO_PLAN_COSTAWARE;
    tycho_cell *c = p->cells;
    const size_t n = p->count;
    size_t kept = 1; /* c[0..kept) are the output waypoints; c[0] stays */
    size_t i = 0;
    double length = 0, cost = 0;
    while (i < n - 1) {
        /* furthest j reachable in a straight line; j = i + 1 always is for a
         * valid path, but an invalid input path still makes progress */
        size_t best = i + 1;
        int best_cost = segment_max_cost(cells, w, h, c[i], c[i + 1], o);
        int run_max = tycho_grid_get(g, c[i].x, c[i].y);
        int next = tycho_grid_get(g, c[i + 1].x, c[i + 1].y);
        if (next > run_max) run_max = next;
        for (size_t j = i + 2; j < n; j++) {
            int cj = tycho_grid_get(g, c[j].x, c[j].y);
            if (cj > run_max) run_max = cj;
            int m = segment_max_cost(cells, w, h, c[i], c[j], o);
            if (m < 0 || (costaware && m > run_max)) break;
            best = j;
            best_cost = m;
        }
        double len = seg_len(c[i], c[best]);
        length += len;
        if (best_cost < 0) best_cost = TYCHO_COST_UNKNOWN; /* input crossed a blocked cell */
        cost += len * (1.0 + o->weight * best_cost / 252.0);
        c[kept++] = c[best];
        i = best;
    }
    p->count = kept;
    p->length = length;
    p->cost = costaware ? cost : length;
    return TYCHO_OK;
}
