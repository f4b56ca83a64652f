/* Dijkstra searches on the planner workspace: distance fields from one or
 * more sources, and "nearest cell satisfying a predicate". Both use the
 * planners' motion model (8-connected, no corner cutting) and discard a
 * snapshot made by tycho_planner_prepare (prepare again afterwards). */
#include "planner_internal.h"

#include <math.h>
#include <stdio.h>

void tycho_dijkstra_opts_defaults(tycho_dijkstra_opts *o)
{
    o->blocked_cost = TYCHO_COST_INSCRIBED;
    o->allow_unknown = false;
    o->costaware = false;
    o->weight = 1.0;
    o->max_distance = INFINITY;
}

int tycho_pred_cost_range(void *ud, int cx, int cy, uint8_t cost)
{
    const tycho_cost_range *r = ud;
    return cost >= r->min_cost && cost <= r->max_cost;
}

int tycho_pred_unknown(void *ud, int cx, int cy, uint8_t cost)
{
    return cost == TYCHO_COST_UNKNOWN;
}

static tycho_status check_opts(const tycho_dijkstra_opts *o, tycho_err *err)
{
    if (!(o->weight >= 0) || !isfinite(o->weight))
        return tycho_fail(err, TYCHO_EINVAL, "weight must be finite and >= 0");
    if (!(o->max_distance >= 0)) return tycho_fail(err, TYCHO_EINVAL, "max_distance must be >= 0");
    return TYCHO_OK;
}

/* Cost of stepping into a cell of raw cost c along a step of length base. */
static inline double step_cost(const tycho_dijkstra_opts *o, double base, int c)
{
    return o->costaware ? base * (1.0 + o->weight * c / 252.0) : base;
}

static const int DX[8] = {1, -1, 0, 0, 1, -1, 1, -1};
static const int DY[8] = {0, 0, 1, -1, 1, 1, -1, -1};

/* Relaxes the up to 8 moves out of n (cell x, y). Blocked targets are
 * relaxed only when `into_blocked` (nearest search); diagonals always need
 * both orthogonal neighbours passable. */
static bool relax_all(tycho_planner *p, pl_heapv *hv, size_t n, int x, int y, double g,
                      const tycho_dijkstra_opts *o, bool into_blocked)
{
    const uint8_t *enc = p->enc;
    const ptrdiff_t pw = p->pw;
    const ptrdiff_t off[8] = {1, -1, pw, -pw, pw + 1, pw - 1, -pw + 1, -pw - 1};
    bool orth[4];
    for (int d = 0; d < 4; d++) orth[d] = enc[(ptrdiff_t)n + off[d]] != 0;
    for (int d = 0; d < 8; d++) {
        int mx = x + DX[d], my = y + DY[d];
        if (!tycho_grid_in_bounds_wh(p->w, p->h, mx, my)) continue;
        if (d >= 4 && !(orth[DX[d] > 0 ? 0 : 1] && orth[DY[d] > 0 ? 2 : 3])) continue;
        size_t m = (size_t)((ptrdiff_t)n + off[d]);
        bool passable = enc[m] != 0;
        if (!passable && !into_blocked) continue;
        int c = p->raw[(size_t)my * (size_t)p->w + (size_t)mx];
        double ng = g + step_cost(o, d >= 4 ? SQRT2 : 1.0, c);
        if (ng > o->max_distance) continue;
        pl_node *r = &p->nodes[m];
        if (r->stamp >= p->gen_open && (r->stamp == p->gen_closed || ng >= r->g.gd)) continue;
        r->stamp = p->gen_open;
        r->parent = (uint32_t)n;
        r->g.gd = ng;
        if (!pl_push(p, hv, pl_dkey(ng), (uint32_t)m)) return false;
    }
    return true;
}

tycho_status tycho_distance_field(tycho_planner *p, const tycho_grid *g, const tycho_cell *sources,
                                  size_t n, const tycho_dijkstra_opts *o, float *out,
                                  tycho_err *err)
{
    tycho_dijkstra_opts d;
    if (!o) {
        tycho_dijkstra_opts_defaults(&d);
        o = &d;
    }
    tycho_status st = check_opts(o, err);
    if (st == TYCHO_OK) st = pl_snapshot(p, g, o->blocked_cost, o->allow_unknown, err);
    if (st != TYCHO_OK) return st;
    p->prepared = false; /* the snapshot's options are not a planner's */
    const int w = p->w, h = p->h;
    for (size_t i = 0; i < n; i++) {
        tycho_cell c = sources[i];
        if (!tycho_grid_in_bounds_wh(w, h, c.x, c.y))
            return tycho_fail(err, TYCHO_EINVAL, "source %zu (%d,%d) is outside the %dx%d grid",
                              i + 1, (int)c.x, (int)c.y, w, h);
        if (!p->enc[pl_index(p, c.x, c.y)]) {
            char why[32];
            pl_describe_blocked(p->raw[(size_t)c.y * (size_t)w + (size_t)c.x], why, sizeof why);
            return tycho_fail(err, TYCHO_EINVAL, "source %zu (%d,%d) is blocked %s", i + 1,
                              (int)c.x, (int)c.y, why);
        }
    }
    size_t cells = (size_t)w * (size_t)h;
    for (size_t i = 0; i < cells; i++) out[i] = INFINITY;
    pl_begin(p);
    pl_heapv hv = pl_hv(p);
    for (size_t i = 0; i < n; i++) {
        size_t s = pl_index(p, sources[i].x, sources[i].y);
        pl_node *r = &p->nodes[s];
        if (r->stamp >= p->gen_open) continue; /* duplicate source */
        r->stamp = p->gen_open;
        r->parent = (uint32_t)s;
        r->g.gd = 0;
        if (!pl_push(p, &hv, pl_dkey(0), (uint32_t)s))
            return tycho_fail(err, TYCHO_ENOMEM, "out of memory growing the open list");
    }
    while (hv.n) {
        size_t m = pl_pop(&hv).node;
        pl_node *cur = &p->nodes[m];
        if (cur->stamp == p->gen_closed) continue;
        cur->stamp = p->gen_closed;
        p->expanded++;
        int x, y;
        pl_coords(p, m, &x, &y);
        out[(size_t)y * (size_t)w + (size_t)x] = (float)cur->g.gd;
        if (!relax_all(p, &hv, m, x, y, cur->g.gd, o, false))
            return tycho_fail(err, TYCHO_ENOMEM, "out of memory growing the open list");
    }
    return TYCHO_OK;
}

tycho_status tycho_nearest(tycho_planner *p, const tycho_grid *g, tycho_cell start,
                           tycho_cell_pred pred, void *ud, const tycho_dijkstra_opts *o,
                           tycho_cell *found, double *distance, tycho_err *err)
{
    tycho_dijkstra_opts d;
    if (!o) {
        tycho_dijkstra_opts_defaults(&d);
        o = &d;
    }
    if (!pred) return tycho_fail(err, TYCHO_EINVAL, "nearest needs a predicate");
    tycho_status st = check_opts(o, err);
    if (st == TYCHO_OK) st = pl_snapshot(p, g, o->blocked_cost, o->allow_unknown, err);
    if (st != TYCHO_OK) return st;
    p->prepared = false;
    if (!tycho_grid_in_bounds_wh(p->w, p->h, start.x, start.y))
        return tycho_fail(err, TYCHO_EINVAL, "start (%d,%d) is outside the %dx%d grid",
                          (int)start.x, (int)start.y, p->w, p->h);
    pl_begin(p);
    pl_heapv hv = pl_hv(p);
    size_t s = pl_index(p, start.x, start.y);
    p->nodes[s].stamp = p->gen_open;
    p->nodes[s].parent = (uint32_t)s;
    p->nodes[s].g.gd = 0;
    if (!pl_push(p, &hv, pl_dkey(0), (uint32_t)s))
        return tycho_fail(err, TYCHO_ENOMEM, "out of memory growing the open list");
    while (hv.n) {
        size_t m = pl_pop(&hv).node;
        pl_node *cur = &p->nodes[m];
        if (cur->stamp == p->gen_closed) continue;
        cur->stamp = p->gen_closed;
        p->expanded++;
        int x, y;
        pl_coords(p, m, &x, &y);
        int r = pred(ud, x, y, p->raw[(size_t)y * (size_t)p->w + (size_t)x]);
        if (r < 0) return tycho_fail(err, TYCHO_EINVAL, "nearest: the predicate failed");
        if (r > 0) {
            found->x = x;
            found->y = y;
            if (distance) *distance = cur->g.gd;
            return TYCHO_OK;
        }
        if (m != s && !p->enc[m]) continue; /* may end on a blocked cell, not pass it */
        if (!relax_all(p, &hv, m, x, y, cur->g.gd, o, true))
            return tycho_fail(err, TYCHO_ENOMEM, "out of memory growing the open list");
    }
    return tycho_fail(err, TYCHO_ENOPATH, "no reachable cell matches (searched %zu cells%s)",
                      p->expanded, isfinite(o->max_distance) ? " within max_distance" : "");
}
