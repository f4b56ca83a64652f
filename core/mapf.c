/* Prioritized multi-robot route planning with a space-time A*: see mapf.h. */
#include "tycho/mapf.h"
#include "tycho/graph.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    int f, t, state;
} st_entry;

struct tycho_mapf {
    tycho_mapf_params p;
    tycho_graph *g; /* owned */
    int V, T;
    double snap; /* starts and goals snap to a vertex within this distance */
    int *nb;     /* neighbour buffer: max degree + 1 (a wait) */
    /* reservations of the robots planned so far, per (vertex, step) */
    uint8_t *occ;
    int32_t *came; /* vertex the occupant came from (itself when waiting) */
    int *goal_from, *last_res;
    /* search workspace */
    int32_t *parent;
    uint32_t *seen, gen;
    int *dist, *queue;
    st_entry *heap;
    size_t heap_n, heap_cap;
    /* result */
    int n;
    int *paths, *arrival, *order, *starts, *goals;
    int orders_tried;
};

void tycho_mapf_defaults(tycho_mapf_params *p)
{
    p->cell = 1.0;
    p->horizon = 0;
    p->max_orders = 64;
    p->time_limit_s = 10;
    p->connectivity = 4;
}

static size_t sidx(const tycho_mapf *m, int v, int t)
{
    return (size_t)v * (size_t)(m->T + 1) + (size_t)t;
}

void tycho_mapf_vertex_xy(const tycho_mapf *m, int v, double *x, double *y)
{
    *x = m->g->x[v];
    *y = m->g->y[v];
}

static bool check_params(const tycho_mapf_params *p, tycho_err *err)
{
    if (p->max_orders < 1 || !(p->time_limit_s > 0) || p->horizon < 0) {
        tycho_fail(err, TYCHO_EINVAL, "max_orders must be >= 1, time_limit_s > 0, horizon >= 0");
        return false;
    }
    return true;
}

tycho_mapf *tycho_mapf_new(const tycho_grid *g, const tycho_mapf_params *pp, tycho_err *err)
{
    tycho_mapf_params p;
    if (pp) p = *pp;
    else tycho_mapf_defaults(&p);
    if (!(p.cell >= tycho_grid_resolution(g))) {
        tycho_fail(err, TYCHO_EINVAL, "cell must be >= the costmap resolution");
        return NULL;
    }
    if (!check_params(&p, err)) return NULL;
    tycho_graph *graph = tycho_graph_grid(g, p.cell, p.connectivity, err);
    return graph ? tycho_mapf_new_graph(graph, &p, err) : NULL;
}

tycho_mapf *tycho_mapf_new_graph(tycho_graph *graph, const tycho_mapf_params *pp, tycho_err *err)
{
    tycho_mapf_params p;
    if (pp) p = *pp;
    else tycho_mapf_defaults(&p);
    if (!graph || graph->V < 1) {
        tycho_graph_free(graph);
        tycho_fail(err, TYCHO_EINVAL, "the graph has no vertex");
        return NULL;
    }
    if (!check_params(&p, err)) {
        tycho_graph_free(graph);
        return NULL;
    }
    tycho_mapf *m = calloc(1, sizeof *m);
    if (!m) {
        tycho_graph_free(graph);
        tycho_fail(err, TYCHO_ENOMEM, "out of memory");
        return NULL;
    }
    m->p = p;
    m->g = graph;
    m->V = graph->V;
    /* a lattice: the old rule (its width and height); else by vertex count */
    int auto_T = graph->gw ? 4 * (graph->gw + graph->gh) : 4 * graph->V;
    if (auto_T < 200) auto_T = 200;
    if (!graph->gw && auto_T > 4000) auto_T = 4000;
    m->T = p.horizon ? p.horizon : auto_T;
    m->p.horizon = m->T;
    /* starts and goals snap within a cell; on a sparse graph within the
     * longest edge (a point on a corridor is at most that far from a vertex) */
    m->snap = graph->gw ? graph->cell : 0;
    for (int k = 0; !graph->gw && k < graph->E; k++)
        if (graph->length[k] > m->snap) m->snap = graph->length[k];
    if (m->snap <= 0) m->snap = p.cell;
    size_t S = (size_t)m->V * (size_t)(m->T + 1);
    m->occ = calloc(S, 1);
    m->came = malloc(S * sizeof *m->came);
    m->parent = malloc(S * sizeof *m->parent);
    m->seen = calloc(S, sizeof *m->seen);
    m->goal_from = malloc((size_t)m->V * sizeof(int));
    m->last_res = malloc((size_t)m->V * sizeof(int));
    m->dist = malloc((size_t)m->V * sizeof(int));
    m->queue = malloc((size_t)m->V * sizeof(int));
    m->nb = malloc((size_t)(graph->max_degree + 1) * sizeof(int));
    if (!m->occ || !m->came || !m->parent || !m->seen || !m->goal_from || !m->last_res ||
        !m->dist || !m->queue || !m->nb) {
        tycho_mapf_free(m);
        tycho_fail(err, TYCHO_ENOMEM, "out of memory for the space-time search");
        return NULL;
    }
    return m;
}

const tycho_graph *tycho_mapf_graph(const tycho_mapf *m) { return m->g; }

static void clear_result(tycho_mapf *m)
{
    free(m->paths);
    free(m->arrival);
    free(m->order);
    free(m->starts);
    free(m->goals);
    m->paths = m->arrival = m->order = m->starts = m->goals = NULL;
    m->n = 0;
}

void tycho_mapf_free(tycho_mapf *m)
{
    if (!m) return;
    clear_result(m);
    tycho_graph_free(m->g);
    free(m->nb);
    free(m->occ);
    free(m->came);
    free(m->parent);
    free(m->seen);
    free(m->goal_from);
    free(m->last_res);
    free(m->dist);
    free(m->queue);
    free(m->heap);
    free(m);
}

int tycho_mapf_vertex_count(const tycho_mapf *m) { return m->V; }

int tycho_mapf_graph_size(const tycho_mapf *m, int *w, int *h)
{
    *w = m->g->gw;
    *h = m->g->gh;
    return m->V;
}

int tycho_mapf_vertex_at(const tycho_mapf *m, double x, double y)
{
    /* goals in a file are rarely exactly on a vertex */
    return tycho_graph_nearest(m->g, x, y, m->snap);
}

bool tycho_mapf_adjacent(const tycho_mapf *m, int a, int b)
{
    return tycho_graph_adjacent(m->g, a, b);
}

/* Neighbours of v, into m->nb; returns the count. */
static int neighbours(const tycho_mapf *m, int v)
{
    const tycho_graph *g = m->g;
    int k = 0;
    for (int e = g->off[v]; e < g->off[v + 1]; e++) m->nb[k++] = g->adj[e];
    return k;
}

/* Static breadth-first distances to goal (INT_MAX = unreachable). */
static void bfs(tycho_mapf *m, int goal)
{
    for (int v = 0; v < m->V; v++) m->dist[v] = INT32_MAX;
    int head = 0, tail = 0;
    m->dist[goal] = 0;
    m->queue[tail++] = goal;
    while (head < tail) {
        int v = m->queue[head++];
        int k = neighbours(m, v);
        for (int i = 0; i < k; i++)
            if (m->dist[m->nb[i]] == INT32_MAX) {
                m->dist[m->nb[i]] = m->dist[v] + 1;
                m->queue[tail++] = m->nb[i];
            }
    }
}

static bool less(st_entry a, st_entry b) { return a.f < b.f || (a.f == b.f && a.t > b.t); }

static bool push(tycho_mapf *m, st_entry e)
{
    if (m->heap_n == m->heap_cap) {
        size_t cap = m->heap_cap ? 2 * m->heap_cap : 4096;
        st_entry *h = realloc(m->heap, cap * sizeof *h);
        if (!h) return false;
        m->heap = h;
        m->heap_cap = cap;
    }
    size_t i = m->heap_n++;
    while (i > 0 && less(e, m->heap[(i - 1) / 2])) {
        m->heap[i] = m->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    m->heap[i] = e;
    return true;
}

static st_entry pop(tycho_mapf *m)
{
    st_entry top = m->heap[0], e = m->heap[--m->heap_n];
    size_t i = 0, n = m->heap_n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && less(m->heap[c + 1], m->heap[c])) c++;
        if (!less(m->heap[c], e)) break;
        m->heap[i] = m->heap[c];
        i = c;
    }
    if (n) m->heap[i] = e;
    return top;
}

/* On an 8-connected lattice: the other diagonal of the square a diagonal
 * move from -> to cuts across, as its two corner vertices (or -1). */
static bool other_diagonal(const tycho_mapf *m, int from, int to, int *c1, int *c2)
{
    const tycho_graph *g = m->g;
    if (!g->lattice) return false;
    long fi = lround(g->x[from] / g->cell) - g->ix0, fj = lround(g->y[from] / g->cell) - g->iy0;
    long ti = lround(g->x[to] / g->cell) - g->ix0, tj = lround(g->y[to] / g->cell) - g->iy0;
    if (fi == ti || fj == tj) return false;
    *c1 = g->lattice[fj * g->gw + ti];
    *c2 = g->lattice[tj * g->gw + fi];
    return *c1 >= 0 && *c2 >= 0;
}

static bool free_at(const tycho_mapf *m, int from, int to, int t1)
{
    if (m->occ[sidx(m, to, t1)] || t1 >= m->goal_from[to]) return false;
    /* no swapping: nobody moved to -> from during the same step */
    if (from != to && m->occ[sidx(m, from, t1)] && m->came[sidx(m, from, t1)] == to) return false;
    /* no crossing: nobody took the other diagonal of the same square */
    int c1, c2;
    if (from != to && other_diagonal(m, from, to, &c1, &c2)) {
        if (m->occ[sidx(m, c1, t1)] && m->came[sidx(m, c1, t1)] == c2) return false;
        if (m->occ[sidx(m, c2, t1)] && m->came[sidx(m, c2, t1)] == c1) return false;
    }
    return true;
}

/* Space-time A* for one robot; fills path[0..arrival]; returns arrival or -1. */
static int search(tycho_mapf *m, int start, int goal, int *path)
{
    if (++m->gen == 0) {
        memset(m->seen, 0, (size_t)m->V * (size_t)(m->T + 1) * sizeof *m->seen);
        m->gen = 1;
    }
    m->heap_n = 0;
    if (m->occ[sidx(m, start, 0)]) return -1;
    size_t s0 = sidx(m, start, 0);
    m->seen[s0] = m->gen;
    m->parent[s0] = -1;
    if (!push(m, (st_entry){m->dist[start], 0, (int)s0})) return -1;
    while (m->heap_n) {
        st_entry e = pop(m);
        int v = e.state / (m->T + 1), t = e.state % (m->T + 1);
        if (v == goal && t > m->last_res[goal]) {
            for (int s = e.state, k = t; k >= 0; k--) {
                path[k] = s / (m->T + 1);
                s = m->parent[s];
            }
            return t;
        }
        if (t == m->T) continue;
        int k = neighbours(m, v);
        m->nb[k++] = v; /* wait */
        for (int i = 0; i < k; i++) {
            int u = m->nb[i];
            if (m->dist[u] == INT32_MAX || !free_at(m, v, u, t + 1)) continue;
            size_t s = sidx(m, u, t + 1);
            if (m->seen[s] == m->gen) continue;
            m->seen[s] = m->gen;
            m->parent[s] = e.state;
            if (!push(m, (st_entry){t + 1 + m->dist[u], t + 1, (int)s})) return -1;
        }
    }
    return -1;
}

static void reserve(tycho_mapf *m, const int *path, int arrival)
{
    for (int t = 0; t <= arrival; t++) {
        int v = path[t];
        size_t s = sidx(m, v, t);
        m->occ[s] = 1;
        m->came[s] = t ? path[t - 1] : v;
        if (t > m->last_res[v]) m->last_res[v] = t;
    }
    m->goal_from[path[arrival]] = arrival;
}

static void reset_reservations(tycho_mapf *m, int n)
{
    memset(m->occ, 0, (size_t)m->V * (size_t)(m->T + 1));
    for (int v = 0; v < m->V; v++) {
        m->goal_from[v] = INT32_MAX;
        m->last_res[v] = -1;
    }
    /* robots not planned yet still stand on their starts at step 0 */
    for (int i = 0; i < n; i++)
        m->occ[sidx(m, m->starts[i], 0)] = 1, m->came[sidx(m, m->starts[i], 0)] = m->starts[i];
}

static bool order_seen(const int *tried, int ntried, const int *order, int n)
{
    for (int k = 0; k < ntried; k++)
        if (!memcmp(tried + (size_t)k * n, order, (size_t)n * sizeof *order)) return true;
    return false;
}

tycho_status tycho_mapf_plan(tycho_mapf *m, int n, const double *sxy, const double *gxy,
                             tycho_err *err)
{
    clear_result(m);
    if (n < 1) return tycho_fail(err, TYCHO_EINVAL, "no robots");
    m->n = n;
    m->paths = malloc((size_t)n * (size_t)(m->T + 1) * sizeof(int));
    m->arrival = malloc((size_t)n * sizeof(int));
    m->order = malloc((size_t)n * sizeof(int));
    m->starts = malloc((size_t)n * sizeof(int));
    m->goals = malloc((size_t)n * sizeof(int));
    int *tried = malloc((size_t)m->p.max_orders * (size_t)n * sizeof(int));
    if (!m->paths || !m->arrival || !m->order || !m->starts || !m->goals || !tried) {
        free(tried);
        clear_result(m);
        return tycho_fail(err, TYCHO_ENOMEM, "out of memory");
    }
    tycho_status st = TYCHO_OK;
    for (int i = 0; i < n && st == TYCHO_OK; i++) {
        m->starts[i] = tycho_mapf_vertex_at(m, sxy[2 * i], sxy[2 * i + 1]);
        m->goals[i] = tycho_mapf_vertex_at(m, gxy[2 * i], gxy[2 * i + 1]);
        if (m->starts[i] < 0)
            st = tycho_fail(err, TYCHO_EINVAL,
                            "robot %d: start (%.2f, %.2f) is not on the graph (wall or outside)", i,
                            sxy[2 * i], sxy[2 * i + 1]);
        else if (m->goals[i] < 0)
            st = tycho_fail(err, TYCHO_EINVAL,
                            "robot %d: goal (%.2f, %.2f) is not on the graph (wall or outside)", i,
                            gxy[2 * i], gxy[2 * i + 1]);
        for (int j = 0; j < i && st == TYCHO_OK; j++) {
            if (m->starts[j] == m->starts[i])
                st = tycho_fail(err, TYCHO_EINVAL,
                                "robot %d: shares its start vertex with robot %d", i, j);
            else if (m->goals[j] == m->goals[i])
                st = tycho_fail(err, TYCHO_EINVAL, "robot %d: shares its goal vertex with robot %d",
                                i, j);
        }
    }
    for (int i = 0; i < n && st == TYCHO_OK; i++) {
        bfs(m, m->goals[i]);
        if (m->dist[m->starts[i]] == INT32_MAX)
            st = tycho_fail(err, TYCHO_ENOPATH, "robot %d: goal unreachable from its start", i);
    }
    if (st != TYCHO_OK) {
        free(tried);
        clear_result(m);
        return st;
    }
    struct timespec t0, tn;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < n; i++) m->order[i] = i;
    m->orders_tried = 0;
    int failed = -1;
    for (;;) {
        memcpy(tried + (size_t)m->orders_tried * n, m->order, (size_t)n * sizeof(int));
        m->orders_tried++;
        reset_reservations(m, n);
        failed = -1;
        for (int k = 0; k < n; k++) {
            int r = m->order[k];
            m->occ[sidx(m, m->starts[r], 0)] = 0; /* its own start */
            bfs(m, m->goals[r]);
            int *path = m->paths + (size_t)r * (size_t)(m->T + 1);
            int a = search(m, m->starts[r], m->goals[r], path);
            if (a < 0) {
                failed = k;
                break;
            }
            m->arrival[r] = a;
            reserve(m, path, a);
        }
        if (failed < 0) break;
        clock_gettime(CLOCK_MONOTONIC, &tn);
        double el = (double)(tn.tv_sec - t0.tv_sec) + (double)(tn.tv_nsec - t0.tv_nsec) * 1e-9;
        /* the failed robot first; if that order was tried, the next untried rotation */
        int r = m->order[failed];
        memmove(m->order + 1, m->order, (size_t)failed * sizeof(int));
        m->order[0] = r;
        for (int rot = 0; rot < n && order_seen(tried, m->orders_tried, m->order, n); rot++) {
            int first = m->order[0];
            memmove(m->order, m->order + 1, (size_t)(n - 1) * sizeof(int));
            m->order[n - 1] = first;
        }
        if (m->orders_tried >= m->p.max_orders || el > m->p.time_limit_s ||
            order_seen(tried, m->orders_tried, m->order, n)) {
            free(tried);
            st = tycho_fail(err, TYCHO_ENOPATH,
                            "robot %d: no route found (tried %d priority orders in %.1f s)", r,
                            m->orders_tried, el);
            clear_result(m);
            return st;
        }
    }
    free(tried);
    return TYCHO_OK;
}

int tycho_mapf_orders_tried(const tycho_mapf *m) { return m->orders_tried; }
const int *tycho_mapf_order(const tycho_mapf *m) { return m->order; }
int tycho_mapf_arrival(const tycho_mapf *m, int r)
{
    return m->paths && r >= 0 && r < m->n ? m->arrival[r] : -1;
}

int tycho_mapf_vertex_at_step(const tycho_mapf *m, int r, int t)
{
    if (!m->paths || r < 0 || r >= m->n || t < 0) return -1;
    if (t > m->arrival[r]) t = m->arrival[r];
    return m->paths[(size_t)r * (size_t)(m->T + 1) + (size_t)t];
}

int tycho_mapf_segments(const tycho_mapf *m, int r, tycho_mapf_segment *out, int cap)
{
    if (!m->paths || r < 0 || r >= m->n) return 0;
    const int *p = m->paths + (size_t)r * (size_t)(m->T + 1);
    int k = 0;
    for (int t = 0; t <= m->arrival[r]; t++) {
        if (t > 0 && p[t] == p[t - 1]) {
            if (k - 1 < cap) out[k - 1].leave = t;
            continue;
        }
        if (k < cap) {
            out[k].vertex = p[t];
            out[k].enter = out[k].leave = t;
            tycho_mapf_vertex_xy(m, p[t], &out[k].x, &out[k].y);
        }
        k++;
    }
    return k;
}

/* Segment index of robot r at step t. */
static int segment_of(const tycho_mapf *m, int r, int t)
{
    const int *p = m->paths + (size_t)r * (size_t)(m->T + 1);
    int k = 0;
    for (int s = 1; s <= t && s <= m->arrival[r]; s++)
        if (p[s] != p[s - 1]) k++;
    return k;
}

int tycho_mapf_preconditions(const tycho_mapf *m, int b, int seg, tycho_mapf_precondition *out,
                             int cap)
{
    if (!m->paths || b < 0 || b >= m->n || seg < 0) return 0;
    const int *pb = m->paths + (size_t)b * (size_t)(m->T + 1);
    int enter = -1, k = 0;
    for (int t = 0; t <= m->arrival[b]; t++) {
        if (t == 0 || pb[t] != pb[t - 1]) {
            if (k == seg) {
                enter = t;
                break;
            }
            k++;
        }
    }
    if (enter < 0) return 0;
    int v = pb[enter], count = 0;
    for (int a = 0; a < m->n; a++) {
        if (a == b) continue;
        const int *pa = m->paths + (size_t)a * (size_t)(m->T + 1);
        int last = -1;
        for (int t = 0; t < enter && t <= m->arrival[a]; t++)
            if (pa[t] == v) last = t;
        if (last < 0) continue;
        if (count < cap) out[count] = (tycho_mapf_precondition){a, segment_of(m, a, last)};
        count++;
    }
    return count;
}
