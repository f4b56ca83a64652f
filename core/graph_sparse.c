/* The sparse route graph: the skeleton of the free space, cut into
 * vertices at junctions, dead ends and every `spacing` metres along the
 * corridors. See tycho/graph.h.
 *
 * 1. Free cells: cost < 253 in the (inflated) costmap, so the robot's
 *    centre may be anywhere on them.
 * 2. Skeleton by Zhang-Suen thinning (two sub-iterations that peel border
 *    cells while keeping 8-connectivity), then short spurs (the thinning's
 *    whiskers at corners) are cut.
 * 3. Key cells: skeleton cells with other than two skeleton neighbours.
 *    Key cells closer than spacing / 2 form one vertex (a junction is often
 *    a small knot of cells), placed at their mean.
 * 4. Every chain of ordinary cells between two key vertices becomes a run
 *    of edges with a vertex every `spacing` metres; an edge's length is the
 *    chain's length, its width twice the smallest clearance on it (from an
 *    exact distance transform to the non-free cells). */
#include "tycho/edt.h"
#include "tycho/graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int DX[8] = {0, 1, 1, 1, 0, -1, -1, -1}; /* P2..P9, clockwise from north */
static const int DY[8] = {1, 1, 0, -1, -1, -1, 0, 1};

typedef struct {
    int w, h;
    uint8_t *sk;   /* skeleton */
    int32_t *d2;   /* squared clearance, cells */
    int *key;      /* vertex of a key cell, -1 otherwise */
    int *chain;    /* cells of the chain being traced */
    double *along; /* and their distance from its start, m */
    uint8_t *seen;
    double res;
    tycho_pose2 origin;
    const tycho_grid *cm;
} work;

static int at(const work *k, int x, int y)
{
    return x >= 0 && y >= 0 && x < k->w && y < k->h ? k->sk[y * k->w + x] : 0;
}

static int degree(const work *k, int x, int y)
{
    int n = 0;
    for (int i = 0; i < 8; i++) n += at(k, x + DX[i], y + DY[i]);
    return n;
}

/* One Zhang-Suen sub-iteration; returns how many cells it removed. */
static int thin_pass(work *k, int second, uint8_t *mark)
{
    int removed = 0;
    memset(mark, 0, (size_t)k->w * (size_t)k->h);
    for (int y = 0; y < k->h; y++)
        for (int x = 0; x < k->w; x++) {
            if (!k->sk[y * k->w + x]) continue;
            int p[8], b = 0, a = 0;
            for (int i = 0; i < 8; i++) b += p[i] = at(k, x + DX[i], y + DY[i]);
            if (b < 2 || b > 6) continue;
            for (int i = 0; i < 8; i++) a += !p[i] && p[(i + 1) % 8];
            if (a != 1) continue;
            /* P2 P4 P6 / P4 P6 P8 (first), P2 P4 P8 / P2 P6 P8 (second) */
            if (!second && (p[0] && p[2] && p[4])) continue;
            if (!second && (p[2] && p[4] && p[6])) continue;
            if (second && (p[0] && p[2] && p[6])) continue;
            if (second && (p[0] && p[4] && p[6])) continue;
            mark[y * k->w + x] = 1;
        }
    for (size_t i = 0; i < (size_t)k->w * (size_t)k->h; i++)
        if (mark[i]) {
            k->sk[i] = 0;
            removed++;
        }
    return removed;
}

/* Cuts dead-end branches shorter than `len` cells (thinning whiskers). */
static void prune(work *k, int len)
{
    int *path = malloc(sizeof(int) * (size_t)(len + 1));
    if (!path) return;
    for (int y = 0; y < k->h; y++)
        for (int x = 0; x < k->w; x++) {
            if (!k->sk[y * k->w + x] || degree(k, x, y) != 1) continue;
            int n = 0, cx = x, cy = y, px = -1, py = -1, junction = 0;
            while (n <= len) {
                path[n++] = cy * k->w + cx;
                int nx = -1, ny = -1, deg = degree(k, cx, cy);
                if (n > 1 && deg >= 3) {
                    junction = 1;
                    n--; /* keep the junction cell */
                    break;
                }
                for (int i = 0; i < 8; i++) {
                    int qx = cx + DX[i], qy = cy + DY[i];
                    if (at(k, qx, qy) && !(qx == px && qy == py)) {
                        nx = qx;
                        ny = qy;
                        break;
                    }
                }
                if (nx < 0) break;
                px = cx;
                py = cy;
                cx = nx;
                cy = ny;
            }
            if (junction && n <= len)
                for (int i = 0; i < n; i++) k->sk[path[i]] = 0;
        }
    free(path);
}

static void cell_xy(const work *k, int x, int y, double *wx, double *wy)
{
    tycho_grid_cell_to_world(k->cm, x, y, wx, wy);
}

static double clearance(const work *k, int i)
{
    return k->d2[i] == TYCHO_EDT_FAR ? 1e9 : sqrt((double)k->d2[i]) * k->res;
}

/* Follows a chain from key cell (x0, y0) through (x1, y1) to the next key
 * cell, then cuts it into n = round(length / spacing) equal edges, so
 * vertices along a corridor are evenly spaced (never a stub at its end). */
static bool trace(work *k, tycho_graph_builder *b, int x0, int y0, int x1, int y1, double spacing)
{
    int from = k->key[y0 * k->w + x0];
    int px = x0, py = y0, cx = x1, cy = y1, n = 0, end = -1;
    double total = 0;
    k->chain[n] = y0 * k->w + x0;
    k->along[n++] = 0;
    for (;;) {
        int i = cy * k->w + cx;
        total += hypot(cx - px, cy - py) * k->res;
        k->chain[n] = i;
        k->along[n++] = total;
        if (k->key[i] >= 0) {
            end = k->key[i];
            break;
        }
        k->seen[i] = 1;
        int key_next = -1, plain_next = -1;
        for (int d = 0; d < 8; d++) {
            int qx = cx + DX[d], qy = cy + DY[d];
            if (!at(k, qx, qy) || (qx == px && qy == py)) continue;
            int q = qy * k->w + qx;
            if (k->key[q] >= 0) {
                if (k->key[q] != from || total > spacing) key_next = q;
            } else if (!k->seen[q] && plain_next < 0) {
                plain_next = q;
            }
        }
        int next = key_next >= 0 ? key_next : plain_next;
        if (next < 0) break; /* ran into its own trace: a loop closed on itself */
        px = cx;
        py = cy;
        cx = next % k->w;
        cy = next / k->w;
    }
    if (end < 0 || (end == from && total < spacing)) return true;
    int pieces = (int)lround(total / spacing);
    if (pieces < 1) pieces = 1;
    int last = from, c = 1;
    for (int j = 1; j <= pieces; j++) {
        double upto = total * j / pieces;
        double minc = 1e9;
        while (c < n - 1 && k->along[c] < upto - 1e-9) {
            double cl = clearance(k, k->chain[c]);
            if (cl < minc) minc = cl;
            c++;
        }
        int v = end;
        if (j < pieces) {
            double wx, wy;
            cell_xy(k, k->chain[c] % k->w, k->chain[c] / k->w, &wx, &wy);
            if ((v = tycho_graph_builder_vertex(b, wx, wy)) < 0) return false;
        }
        double cl = clearance(k, k->chain[c]);
        if (cl < minc) minc = cl;
        if (!tycho_graph_builder_edge(b, last, v, total / pieces, 2 * minc)) return false;
        last = v;
    }
    return true;
}

tycho_graph *tycho_graph_sparse(const tycho_grid *cm, double spacing, tycho_err *err)
{
    if (!cm || !(spacing > 0)) {
        tycho_fail(err, TYCHO_EINVAL, "sparse graph: a costmap and spacing > 0 expected");
        return NULL;
    }
    work k = {0};
    k.w = tycho_grid_width(cm);
    k.h = tycho_grid_height(cm);
    k.res = tycho_grid_resolution(cm);
    k.cm = cm;
    size_t N = (size_t)k.w * (size_t)k.h;
    k.sk = malloc(N);
    k.d2 = malloc(N * sizeof *k.d2);
    k.key = malloc(N * sizeof *k.key);
    k.seen = calloc(N, 1);
    k.chain = malloc(N * sizeof *k.chain);
    k.along = malloc(N * sizeof *k.along);
    uint8_t *mark = malloc(N);
    tycho_edt *e = tycho_edt_new();
    tycho_graph_builder b = {0};
    tycho_graph *g = NULL;
    if (!k.sk || !k.d2 || !k.key || !k.seen || !k.chain || !k.along || !mark || !e) {
        tycho_fail(err, TYCHO_ENOMEM, "sparse graph: out of memory");
        goto done;
    }
    const uint8_t *cells = tycho_grid_cells_const(cm);
    for (size_t i = 0; i < N; i++) k.sk[i] = cells[i] < 253;
    uint8_t sites[256];
    tycho_edt_sites_range(sites, 254, 255); /* real obstacles: the width of the corridor itself */
    if (tycho_edt_compute(e, cells, k.w, k.h, sites, 0, k.d2, err) != TYCHO_OK) goto done;
    while (thin_pass(&k, 0, mark) + thin_pass(&k, 1, mark) > 0) {
    }
    prune(&k, (int)ceil(spacing * 0.75 / k.res));
    /* key cells, merged into vertices within spacing / 2 */
    for (size_t i = 0; i < N; i++) k.key[i] = -1;
    int R = (int)ceil(spacing * 0.5 / k.res);
    for (int y = 0; y < k.h; y++)
        for (int x = 0; x < k.w; x++) {
            if (!k.sk[y * k.w + x] || degree(&k, x, y) == 2 || k.key[y * k.w + x] >= 0) continue;
            /* gather the knot: key cells within R of this one, not yet taken */
            double sx = 0, sy = 0;
            int n = 0;
            int v = b.V;
            for (int qy = y - R; qy <= y + R; qy++)
                for (int qx = x - R; qx <= x + R; qx++) {
                    if (!at(&k, qx, qy) || k.key[qy * k.w + qx] >= 0 || degree(&k, qx, qy) == 2)
                        continue;
                    k.key[qy * k.w + qx] = v;
                    double wx, wy;
                    cell_xy(&k, qx, qy, &wx, &wy);
                    sx += wx;
                    sy += wy;
                    n++;
                }
            if (tycho_graph_builder_vertex(&b, sx / n, sy / n) < 0) {
                tycho_fail(err, TYCHO_ENOMEM, "sparse graph: out of memory");
                goto done;
            }
        }
    /* chains between them */
    for (int y = 0; y < k.h; y++)
        for (int x = 0; x < k.w; x++) {
            int v = k.key[y * k.w + x];
            if (v < 0) continue;
            for (int d = 0; d < 8; d++) {
                int qx = x + DX[d], qy = y + DY[d];
                if (!at(&k, qx, qy)) continue;
                int q = qy * k.w + qx;
                if (k.key[q] >= 0) {
                    if (k.key[q] > v) { /* two knots touching */
                        double len = hypot(b.x[v] - b.x[k.key[q]], b.y[v] - b.y[k.key[q]]);
                        if (!tycho_graph_builder_edge(&b, v, k.key[q], len, 2 * clearance(&k, q)))
                            goto oom;
                    }
                    continue;
                }
                if (k.seen[q]) continue;
                if (!trace(&k, &b, x, y, qx, qy, spacing)) goto oom;
            }
        }
    /* loops with no junction (a ring round an island): start anywhere */
    for (int y = 0; y < k.h; y++)
        for (int x = 0; x < k.w; x++) {
            int i = y * k.w + x;
            if (!k.sk[i] || k.seen[i] || k.key[i] >= 0) continue;
            double wx, wy;
            cell_xy(&k, x, y, &wx, &wy);
            int v = tycho_graph_builder_vertex(&b, wx, wy);
            if (v < 0) goto oom;
            k.key[i] = v;
            for (int d = 0; d < 8; d++)
                if (at(&k, x + DX[d], y + DY[d]) && !k.seen[(y + DY[d]) * k.w + x + DX[d]]) {
                    if (!trace(&k, &b, x, y, x + DX[d], y + DY[d], spacing)) goto oom;
                    break;
                }
        }
    g = tycho_graph_builder_pack(&b, err);
    goto done;
oom:
    tycho_fail(err, TYCHO_ENOMEM, "sparse graph: out of memory");
done:
    if (!g) tycho_graph_builder_free(&b);
    tycho_edt_free(e);
    free(mark);
    free(k.sk);
    free(k.d2);
    free(k.key);
    free(k.seen);
    free(k.chain);
    free(k.along);
    return g;
}
