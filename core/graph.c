/* Route graphs: storage, lookup, the builder, and grid graphs (the sparse
 * graph is graph_sparse.c). See tycho/graph.h. */
#include "tycho/graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tycho_graph_builder_vertex(tycho_graph_builder *b, double x, double y)
{
    if (b->V == b->vcap) {
        int cap = b->vcap ? 2 * b->vcap : 256;
        double *nx = realloc(b->x, sizeof(double) * (size_t)cap);
        if (!nx) return -1;
        b->x = nx;
        double *ny = realloc(b->y, sizeof(double) * (size_t)cap);
        if (!ny) return -1;
        b->y = ny;
        b->vcap = cap;
    }
    b->x[b->V] = x;
    b->y[b->V] = y;
    return b->V++;
}

bool tycho_graph_builder_edge(tycho_graph_builder *b, int a, int c, double length, double width)
{
    if (a == c || a < 0 || c < 0) return true; /* nothing to join */
    if (b->E == b->ecap) {
        int cap = b->ecap ? 2 * b->ecap : 512;
        int *na = realloc(b->ea, sizeof(int) * (size_t)cap);
        if (!na) return false;
        b->ea = na;
        int *nb = realloc(b->eb, sizeof(int) * (size_t)cap);
        if (!nb) return false;
        b->eb = nb;
        double *nl = realloc(b->elen, sizeof(double) * (size_t)cap);
        if (!nl) return false;
        b->elen = nl;
        double *nw = realloc(b->ewid, sizeof(double) * (size_t)cap);
        if (!nw) return false;
        b->ewid = nw;
        b->ecap = cap;
    }
    b->ea[b->E] = a;
    b->eb[b->E] = c;
    b->elen[b->E] = length;
    b->ewid[b->E] = width;
    b->E++;
    return true;
}

void tycho_graph_builder_free(tycho_graph_builder *b)
{
    free(b->x);
    free(b->y);
    free(b->ea);
    free(b->eb);
    free(b->elen);
    free(b->ewid);
    memset(b, 0, sizeof *b);
}

tycho_graph *tycho_graph_builder_pack(tycho_graph_builder *b, tycho_err *err)
{
    tycho_graph *g = calloc(1, sizeof *g);
    size_t V = (size_t)b->V, E2 = 2 * (size_t)b->E;
    if (!g || !(g->off = calloc(V + 1, sizeof(int))) ||
        !(g->adj = malloc((E2 ? E2 : 1) * sizeof(int))) ||
        !(g->length = malloc((E2 ? E2 : 1) * sizeof(double))) ||
        !(g->width = malloc((E2 ? E2 : 1) * sizeof(double)))) {
        tycho_graph_free(g);
        tycho_graph_builder_free(b);
        tycho_fail(err, TYCHO_ENOMEM, "graph: out of memory");
        return NULL;
    }
    g->V = b->V;
    g->E = (int)E2;
    g->x = b->x;
    g->y = b->y;
    b->x = b->y = NULL;
    for (int e = 0; e < b->E; e++) {
        g->off[b->ea[e] + 1]++;
        g->off[b->eb[e] + 1]++;
    }
    for (size_t v = 0; v < V; v++) {
        int deg = g->off[v + 1];
        if (deg > g->max_degree) g->max_degree = deg;
        g->off[v + 1] += g->off[v];
    }
    int *fill = calloc(V ? V : 1, sizeof(int));
    if (!fill) {
        tycho_graph_free(g);
        tycho_graph_builder_free(b);
        tycho_fail(err, TYCHO_ENOMEM, "graph: out of memory");
        return NULL;
    }
    for (int e = 0; e < b->E; e++) {
        int ends[2] = {b->ea[e], b->eb[e]};
        for (int s = 0; s < 2; s++) {
            int v = ends[s], k = g->off[v] + fill[v]++;
            g->adj[k] = ends[1 - s];
            g->length[k] = b->elen[e];
            g->width[k] = b->ewid[e];
        }
    }
    free(fill);
    tycho_graph_builder_free(b);
    return g;
}

void tycho_graph_free(tycho_graph *g)
{
    if (!g) return;
    free(g->x);
    free(g->y);
    free(g->off);
    free(g->adj);
    free(g->length);
    free(g->width);
    free(g->lattice);
    free(g);
}

int tycho_graph_nearest(const tycho_graph *g, double x, double y, double max_dist)
{
    int best = -1;
    double bd = max_dist * max_dist * (1 + 1e-9);
    for (int v = 0; v < g->V; v++) {
        double d = (g->x[v] - x) * (g->x[v] - x) + (g->y[v] - y) * (g->y[v] - y);
        if (d <= bd) bd = d, best = v;
    }
    return best;
}

bool tycho_graph_adjacent(const tycho_graph *g, int a, int b)
{
    if (a < 0 || b < 0 || a >= g->V || b >= g->V) return false;
    for (int k = g->off[a]; k < g->off[a + 1]; k++)
        if (g->adj[k] == b) return true;
    return false;
}

/* Every costmap cell under the segment below 253 (sampled at half a cell);
 * and the narrowest clearance is not computed here (grid edges report the
 * cell size as their width). */
static bool segment_free(const tycho_grid *g, double x0, double y0, double x1, double y1)
{
    double len = hypot(x1 - x0, y1 - y0), step = tycho_grid_resolution(g) * 0.5;
    int n = (int)ceil(len / step);
    for (int i = 0; i <= n; i++) {
        double u = n ? (double)i / n : 0;
        int cx, cy;
        tycho_grid_world_to_cell(g, x0 + u * (x1 - x0), y0 + u * (y1 - y0), &cx, &cy);
        if (!tycho_grid_in_bounds(g, cx, cy) || tycho_grid_get(g, cx, cy) >= 253) return false;
    }
    return true;
}

tycho_graph *tycho_graph_grid(const tycho_grid *cm, double cell, int connectivity, tycho_err *err)
{
    if (!cm || !(cell > 0) || (connectivity != 4 && connectivity != 8)) {
        tycho_fail(err, TYCHO_EINVAL,
                   "grid graph: a costmap, cell > 0 and connectivity 4 or 8 expected");
        return NULL;
    }
    double wx0, wy0, wx1, wy1;
    tycho_grid_cell_to_world(cm, 0, 0, &wx0, &wy0);
    tycho_grid_cell_to_world(cm, tycho_grid_width(cm) - 1, tycho_grid_height(cm) - 1, &wx1, &wy1);
    long ix0 = (long)ceil(fmin(wx0, wx1) / cell - 1e-9),
         iy0 = (long)ceil(fmin(wy0, wy1) / cell - 1e-9);
    long gw = (long)floor(fmax(wx0, wx1) / cell + 1e-9) - ix0 + 1;
    long gh = (long)floor(fmax(wy0, wy1) / cell + 1e-9) - iy0 + 1;
    if (gw < 1 || gh < 1 || gw * gh > 4000000) {
        tycho_fail(err, TYCHO_EINVAL, "grid graph would have no vertex or more than 4e6");
        return NULL;
    }
    int *lattice = malloc(sizeof(int) * (size_t)(gw * gh));
    tycho_graph_builder b = {0};
    if (!lattice) {
        tycho_fail(err, TYCHO_ENOMEM, "grid graph: out of memory");
        return NULL;
    }
    for (long j = 0; j < gh; j++)
        for (long i = 0; i < gw; i++) {
            double x = (double)(ix0 + i) * cell, y = (double)(iy0 + j) * cell;
            int v = -1;
            if (segment_free(cm, x, y, x, y) && (v = tycho_graph_builder_vertex(&b, x, y)) < 0)
                goto oom;
            lattice[j * gw + i] = v;
        }
    /* right, up, and for 8: up-right and up-left (each edge once) */
    static const int di[4] = {1, 0, 1, -1}, dj[4] = {0, 1, 1, 1};
    int dirs = connectivity == 8 ? 4 : 2;
    for (long j = 0; j < gh; j++)
        for (long i = 0; i < gw; i++) {
            int a = lattice[j * gw + i];
            if (a < 0) continue;
            for (int d = 0; d < dirs; d++) {
                long ni = i + di[d], nj = j + dj[d];
                if (ni < 0 || ni >= gw || nj >= gh) continue;
                int c = lattice[nj * gw + ni];
                if (c < 0 || !segment_free(cm, b.x[a], b.y[a], b.x[c], b.y[c])) continue;
                double len = d < 2 ? cell : cell * M_SQRT2;
                if (!tycho_graph_builder_edge(&b, a, c, len, cell)) goto oom;
            }
        }
    tycho_graph *g = tycho_graph_builder_pack(&b, err);
    if (!g) {
        free(lattice);
        return NULL;
    }
    g->gw = (int)gw;
    g->gh = (int)gh;
    g->ix0 = ix0;
    g->iy0 = iy0;
    g->cell = cell;
    g->lattice = lattice;
    return g;
oom:
    free(lattice);
    tycho_graph_builder_free(&b);
    tycho_fail(err, TYCHO_ENOMEM, "grid graph: out of memory");
    return NULL;
}
