/* 2D pose graph optimisation: see pose_graph.h. */
#include "tycho/pose_graph.h"

#include <suitesparse/cs.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int from, to;
    tycho_pose2 z;
    double ixx, ixy, iyy; /* translation information, in the frame of z */
    double info_yaw, huber;
    double on; /* 1, or 0 for an edge set aside (its block stays, zero: same pattern) */
} graph_edge;

struct tycho_pose_graph {
    tycho_pose2 *nodes;
    int n, cap;
    graph_edge *edges;
    int ne, ecap;
};

tycho_pose2 tycho_pose2_compose(tycho_pose2 a, tycho_pose2 b)
{
    double c = cos(a.yaw), s = sin(a.yaw);
    return (tycho_pose2){a.x + c * b.x - s * b.y, a.y + s * b.x + c * b.y,
                         tycho_angle_wrap(a.yaw + b.yaw)};
}

tycho_pose2 tycho_pose2_between(tycho_pose2 a, tycho_pose2 c)
{
    double co = cos(a.yaw), s = sin(a.yaw), dx = c.x - a.x, dy = c.y - a.y;
    return (tycho_pose2){co * dx + s * dy, -s * dx + co * dy, tycho_angle_wrap(c.yaw - a.yaw)};
}

tycho_pose_graph *tycho_pose_graph_new(void) { return calloc(1, sizeof(tycho_pose_graph)); }

tycho_pose_graph *tycho_pose_graph_copy(const tycho_pose_graph *g)
{
    tycho_pose_graph *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->nodes = malloc((size_t)(g->n ? g->n : 1) * sizeof *c->nodes);
    c->edges = malloc((size_t)(g->ne ? g->ne : 1) * sizeof *c->edges);
    if (!c->nodes || !c->edges) {
        tycho_pose_graph_free(c);
        return NULL;
    }
    memcpy(c->nodes, g->nodes, (size_t)g->n * sizeof *c->nodes);
    memcpy(c->edges, g->edges, (size_t)g->ne * sizeof *c->edges);
    c->n = c->cap = g->n;
    c->ne = c->ecap = g->ne;
    return c;
}

void tycho_pose_graph_free(tycho_pose_graph *g)
{
    if (!g) return;
    free(g->nodes);
    free(g->edges);
    free(g);
}

int tycho_pose_graph_add_node(tycho_pose_graph *g, tycho_pose2 pose)
{
    if (g->n == g->cap) {
        int cap = g->cap ? 2 * g->cap : 64;
        tycho_pose2 *p = realloc(g->nodes, (size_t)cap * sizeof *p);
        if (!p) return -1;
        g->nodes = p;
        g->cap = cap;
    }
    g->nodes[g->n] = pose;
    return g->n++;
}

tycho_status tycho_pose_graph_add_edge(tycho_pose_graph *g, int from, int to, tycho_pose2 z,
                                       double info_xy, double info_yaw, double huber,
                                       tycho_err *err)
{
    if (!(isfinite(info_xy) && info_xy > 0))
        return tycho_fail(err, TYCHO_EINVAL, "pose graph: edge information must be finite and > 0");
    const double info_t[3] = {info_xy, 0, info_xy};
    return tycho_pose_graph_add_edge_full(g, from, to, z, info_t, info_yaw, huber, err);
}

tycho_status tycho_pose_graph_add_edge_full(tycho_pose_graph *g, int from, int to, tycho_pose2 z,
                                            const double info_t[3], double info_yaw, double huber,
                                            tycho_err *err)
{
    if (from < 0 || from >= g->n || to < 0 || to >= g->n || from == to)
        return tycho_fail(err, TYCHO_EINVAL,
                          "pose graph: edge %d -> %d: nodes must be distinct, in 0..%d", from, to,
                          g->n - 1);
    double a = info_t[0], b = info_t[1], d = info_t[2];
    /* positive semi-definite, not zero: a corridor's closure may know
     * nothing along it, but something across */
    if (!(isfinite(a) && isfinite(b) && isfinite(d) && a >= 0 && d >= 0 && a + d > 0 &&
          a * d - b * b >= -1e-9 * (a + d) * (a + d) && isfinite(info_yaw) && info_yaw > 0))
        return tycho_fail(err, TYCHO_EINVAL,
                          "pose graph: edge information must be finite, positive semi-definite "
                          "and not zero (yaw > 0)");
    if (!(isfinite(z.x) && isfinite(z.y) && isfinite(z.yaw)))
        return tycho_fail(err, TYCHO_EINVAL, "pose graph: edge measurement must be finite");
    if (g->ne == g->ecap) {
        int cap = g->ecap ? 2 * g->ecap : 64;
        graph_edge *e = realloc(g->edges, (size_t)cap * sizeof *e);
        if (!e) return tycho_fail(err, TYCHO_ENOMEM, "pose graph: out of memory");
        g->edges = e;
        g->ecap = cap;
    }
    g->edges[g->ne++] = (graph_edge){from, to, z, a, b, d, info_yaw, huber, 1.0};
    return TYCHO_OK;
}

int tycho_pose_graph_nodes(const tycho_pose_graph *g) { return g->n; }
int tycho_pose_graph_edges(const tycho_pose_graph *g) { return g->ne; }
tycho_pose2 tycho_pose_graph_node(const tycho_pose_graph *g, int i) { return g->nodes[i]; }
void tycho_pose_graph_set_node(tycho_pose_graph *g, int i, tycho_pose2 pose) { g->nodes[i] = pose; }

static void edge_error(const tycho_pose_graph *g, const graph_edge *e, double err3[3], double A[9],
                       double B[9]);

/* The edge's squared Mahalanobis norm of an error. */
static double edge_chi2(const graph_edge *ed, const double e[3])
{
    return ed->ixx * e[0] * e[0] + 2 * ed->ixy * e[0] * e[1] + ed->iyy * e[1] * e[1] +
           ed->info_yaw * e[2] * e[2];
}

double tycho_pose_graph_edge_chi2(const tycho_pose_graph *g, int k)
{
    if (k < 0 || k >= g->ne) return NAN;
    const graph_edge *ed = &g->edges[k];
    double e[3], A[9], B[9];
    edge_error(g, ed, e, A, B);
    return edge_chi2(ed, e);
}

void tycho_pose_graph_set_edge_active(tycho_pose_graph *g, int k, bool active)
{
    if (k >= 0 && k < g->ne) g->edges[k].on = active ? 1.0 : 0.0;
}

bool tycho_pose_graph_edge_active(const tycho_pose_graph *g, int k)
{
    return k >= 0 && k < g->ne && g->edges[k].on > 0;
}

/* Error of edge e at the current nodes, and its Jacobians A (d e / d
 * node from) and B (d e / d node to), 3 x 3 row-major:
 *   e_t   = Rz^T (Ri^T (tj - ti) - tz),  e_yaw = wrap(yj - yi - yz). */
static void edge_error(const tycho_pose_graph *g, const graph_edge *e, double err3[3], double A[9],
                       double B[9])
{
    tycho_pose2 xi = g->nodes[e->from], xj = g->nodes[e->to];
    double ci = cos(xi.yaw), si = sin(xi.yaw), cz = cos(e->z.yaw), sz = sin(e->z.yaw);
    double dx = xj.x - xi.x, dy = xj.y - xi.y;
    double lx = ci * dx + si * dy - e->z.x, ly = -si * dx + ci * dy - e->z.y; /* Ri^T d - tz */
    err3[0] = cz * lx + sz * ly;
    err3[1] = -sz * lx + cz * ly;
    err3[2] = tycho_angle_wrap(xj.yaw - xi.yaw - e->z.yaw);
    /* M = Rz^T Ri^T: rows (cz ci - sz si, cz si + sz ci), (-sz ci - cz si, -sz si + cz ci) */
    double c = cos(xi.yaw + e->z.yaw), s = sin(xi.yaw + e->z.yaw);
    double m00 = c, m01 = s, m10 = -s, m11 = c;
    /* d(Ri^T d)/d yi = (-si dx + ci dy, -ci dx - si dy); rotated by Rz^T */
    double rx = -si * dx + ci * dy, ry = -ci * dx - si * dy;
    double jx = cz * rx + sz * ry, jy = -sz * rx + cz * ry;
    double a[9] = {-m00, -m01, jx, -m10, -m11, jy, 0, 0, -1};
    double b[9] = {m00, m01, 0, m10, m11, 0, 0, 0, 1};
    memcpy(A, a, sizeof a);
    memcpy(B, b, sizeof b);
}

/* The Huber weight of an error with squared Mahalanobis norm chi2. */
static double robust_weight(double chi2, double huber)
{
    if (huber <= 0) return 1;
    double r = sqrt(chi2);
    return r <= huber ? 1 : huber / r;
}

static double total_chi2(const tycho_pose_graph *g)
{
    double sum = 0, e[3], A[9], B[9];
    for (int k = 0; k < g->ne; k++) {
        const graph_edge *ed = &g->edges[k];
        edge_error(g, ed, e, A, B);
        sum += ed->on * edge_chi2(ed, e);
    }
    return sum;
}

/* Adds the 3 x 3 block P^T W Q (W symmetric, row-major) at block (bi, bj) of H. */
static int add_block(cs_di *T, int bi, int bj, const double P[9], const double W[9],
                     const double Q[9])
{
    double WQ[9];
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < 3; c++)
            WQ[k * 3 + c] = W[k * 3] * Q[c] + W[k * 3 + 1] * Q[3 + c] + W[k * 3 + 2] * Q[6 + c];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double v = 0;
            for (int k = 0; k < 3; k++) v += P[k * 3 + r] * WQ[k * 3 + c];
            /* zeros too: the pattern must not change between iterations (the
             * symbolic factorisation is reused) */
            if (!cs_di_entry(T, 3 * bi + r, 3 * bj + c, v)) return 0;
        }
    return 1;
}

/* One Gauss-Newton step: builds H dx = -b and solves it by sparse
 * Cholesky. *S is the symbolic factorisation (fill-reducing ordering and
 * elimination tree), computed on the first step and reused: the pattern of
 * H is the same while the edges are. Returns the largest node move, or a
 * negative value on failure. */
static double gauss_newton_step(tycho_pose_graph *g, double *rhs, double *work, cs_dis **S)
{
    int dim = 3 * g->n;
    cs_di *T = cs_di_spalloc(dim, dim, 36 * g->ne + 3 * dim, 1, 1);
    if (!T) return -1;
    memset(rhs, 0, (size_t)dim * sizeof *rhs);
    int ok = 1;
    for (int k = 0; k < g->ne && ok; k++) {
        const graph_edge *ed = &g->edges[k];
        double e[3], A[9], B[9];
        edge_error(g, ed, e, A, B);
        double rw = ed->on * robust_weight(edge_chi2(ed, e), ed->huber);
        double W[9] = {rw * ed->ixx,     rw * ed->ixy, 0, rw * ed->ixy, rw * ed->iyy, 0, 0, 0,
                       rw * ed->info_yaw};
        double We[3] = {W[0] * e[0] + W[1] * e[1], W[3] * e[0] + W[4] * e[1], W[8] * e[2]};
        int i = ed->from, j = ed->to;
        ok = add_block(T, i, i, A, W, A) && add_block(T, i, j, A, W, B) &&
             add_block(T, j, i, B, W, A) && add_block(T, j, j, B, W, B);
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++) {
                rhs[3 * i + c] -= A[r * 3 + c] * We[r];
                rhs[3 * j + c] -= B[r * 3 + c] * We[r];
            }
    }
    /* hold node 0: a stiff prior on it (the gauge freedom of the map's frame) */
    for (int c = 0; c < 3 && ok; c++) ok = cs_di_entry(T, c, c, 1e9);
    for (int c = 0; c < 3; c++) rhs[c] = 0;
    cs_di *H = ok ? cs_di_compress(T) : NULL;
    cs_di_spfree(T);
    if (!H) return -1;
    /* cs_compress keeps duplicates; the factorisation wants them summed */
    ok = cs_di_dupl(H);
    if (ok && !*S) ok = (*S = cs_di_schol(1, H)) != NULL;
    cs_din *N = ok ? cs_di_chol(H, *S) : NULL;
    cs_di_spfree(H);
    if (!N) return -1;
    /* x = P^T L^-T L^-1 P b */
    cs_di_ipvec((*S)->pinv, rhs, work, dim);
    cs_di_lsolve(N->L, work);
    cs_di_ltsolve(N->L, work);
    cs_di_pvec((*S)->pinv, work, rhs, dim);
    cs_di_nfree(N);
    double max_step = 0;
    for (int n = 0; n < g->n; n++) {
        tycho_pose2 *p = &g->nodes[n];
        p->x += rhs[3 * n];
        p->y += rhs[3 * n + 1];
        p->yaw = tycho_angle_wrap(p->yaw + rhs[3 * n + 2]);
        double step = fmax(hypot(rhs[3 * n], rhs[3 * n + 1]), fabs(rhs[3 * n + 2]));
        if (step > max_step) max_step = step;
    }
    return max_step;
}

tycho_status tycho_pose_graph_optimize(tycho_pose_graph *g, int max_iterations,
                                       tycho_graph_result *out, tycho_err *err)
{
    tycho_graph_result r = {0, 0, 0, 0};
    r.chi2_before = total_chi2(g);
    if (g->n < 2 || g->ne == 0) {
        r.chi2_after = r.chi2_before;
        if (out) *out = r;
        return TYCHO_OK;
    }
    double *rhs = malloc((size_t)6 * g->n * sizeof *rhs);
    if (!rhs) return tycho_fail(err, TYCHO_ENOMEM, "pose graph: out of memory");
    cs_dis *S = NULL;
    tycho_status st = TYCHO_OK;
    for (int it = 0; it < max_iterations; it++) {
        double step = gauss_newton_step(g, rhs, rhs + 3 * g->n, &S);
        if (step < 0) {
            st = tycho_fail(err, TYCHO_EINVAL,
                            "pose graph: the normal equations are singular or out of memory (%d "
                            "nodes, %d edges)",
                            g->n, g->ne);
            break;
        }
        r.iterations = it + 1;
        r.max_step = step;
        if (step < 1e-5) break;
    }
    cs_di_sfree(S);
    free(rhs);
    r.chi2_after = total_chi2(g);
    if (out) *out = r;
    return st;
}
