/* 2D SLAM with submaps and loop closure: see slam.h. */
#include "tycho/slam.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Submap cells at creation (8 m at 5 cm); the grid grows with the scans. */
#define SUBMAP_CELLS 160
/* Cost at or above which a submap cell is a wall for the likelihood field. */
#define WALL_COST 254

typedef struct {
    tycho_grid *grid;       /* log-odds grid in the anchor's frame; NULL once finished */
    tycho_matcher *matcher; /* likelihood field, built when finished */
    int anchor;             /* node whose pose is the submap's frame */
    int scans;
    double sum_x, sum_y; /* of the scan positions in the anchor frame: the submap's centre */
    size_t bytes;
} submap;

typedef struct {
    tycho_scan scan;
    tycho_pose2 odom;
    int submap; /* the submap the front end matched it against */
} node_scan;

struct tycho_slam {
    tycho_slam_params p;
    tycho_pose_graph *graph;
    node_scan *nodes;
    int n, cap;
    submap *subs;
    int nsub, subcap;
    int cur, next;   /* active submaps: matched against / being started; -1 none */
    int front_sub;   /* the submap the front matcher's field was built from (-1 none) */
    int front_stale; /* scans inserted into it since */
    tycho_matcher *front;
    tycho_inserter *ins;
    int *queue; /* nodes waiting for the loop-closure search (ring) */
    int qhead, qlen, qcap;
    int qsub;           /* next submap to try for the queue's head */
    int pending;        /* closures added since the last optimisation */
    int last_optimized; /* node count at the last optimisation */
    tycho_slam_stats st;
};

void tycho_slam_params_defaults(tycho_slam_params *p)
{
    p->resolution = 0.05;
    p->sigma = 0.05;
    p->submap_scans = 40;
    p->field_every = 1;
    tycho_match_params_defaults(&p->local);
    p->local.plateau_centre = true;
    p->loop_window_xy = 0.3;
    p->loop_window_yaw = 5.0 * M_PI / 180.0;
    p->loop_min_score = 0.85;
    p->loop_radius = 3.0;
    p->loop_every = 5;
    p->loop_matches_per_scan = 2;
    p->loop_min_separation = 40;
    p->optimize_every = 10;
    p->edge_sigma_xy = 0.02;
    p->edge_sigma_yaw = 0.5 * M_PI / 180.0;
    p->loop_sigma_xy = 0.05;
    p->loop_sigma_yaw = 1.0 * M_PI / 180.0;
    p->huber = 3.0;
    p->optimize_iterations = 10;
    p->loop_closure = true;
}

static bool in_range(double v, double lo, double hi) { return isfinite(v) && v >= lo && v <= hi; }

tycho_status tycho_slam_params_validate(const tycho_slam_params *p, tycho_err *err)
{
#define NEED(cond, ...)                                                                            \
    if (!(cond)) return tycho_fail(err, TYCHO_EINVAL, __VA_ARGS__)
    NEED(in_range(p->resolution, 0.005, 1), "slam: resolution must be in [0.005, 1] m");
    NEED(in_range(p->sigma, 0.005, 1), "slam: sigma must be in [0.005, 1] m");
    NEED(p->submap_scans >= 2 && p->submap_scans <= 100000,
         "slam: submap_scans must be in 2..100000");
    NEED(p->field_every >= 1 && p->field_every <= 1000, "slam: field_every must be in 1..1000");
    NEED(in_range(p->local.window_xy, 0, 5), "slam: window_xy must be in [0, 5] m");
    NEED(in_range(p->local.window_yaw, 0, M_PI), "slam: window_yaw must be in [0, pi] rad");
    NEED(in_range(p->loop_window_xy, 0, 5), "slam: loop_window_xy must be in [0, 5] m");
    NEED(in_range(p->loop_window_yaw, 0, M_PI), "slam: loop_window_yaw must be in [0, pi] rad");
    NEED(in_range(p->loop_min_score, 0, 1), "slam: loop_min_score must be in [0, 1]");
    NEED(in_range(p->loop_radius, 0, 1000), "slam: loop_radius must be in [0, 1000] m");
    NEED(p->loop_every >= 1 && p->loop_every <= 100000, "slam: loop_every must be in 1..100000");
    NEED(p->loop_matches_per_scan >= 1 && p->loop_matches_per_scan <= 1000,
         "slam: loop_matches_per_scan must be in 1..1000");
    NEED(p->loop_min_separation >= 0 && p->loop_min_separation <= 1000000,
         "slam: loop_min_separation must be in 0..1000000");
    NEED(p->optimize_every >= 1 && p->optimize_every <= 100000,
         "slam: optimize_every must be in 1..100000");
    NEED(in_range(p->edge_sigma_xy, 1e-6, 100) && in_range(p->edge_sigma_yaw, 1e-6, 10),
         "slam: edge_sigma_xy and edge_sigma_yaw must be > 0");
    NEED(in_range(p->loop_sigma_xy, 1e-6, 100) && in_range(p->loop_sigma_yaw, 1e-6, 10),
         "slam: loop_sigma_xy and loop_sigma_yaw must be > 0");
    NEED(in_range(p->huber, 0, 1000), "slam: huber must be in [0, 1000] (0: none)");
    NEED(p->optimize_iterations >= 1 && p->optimize_iterations <= 1000,
         "slam: optimize_iterations must be in 1..1000");
#undef NEED
    return TYCHO_OK;
}

tycho_slam *tycho_slam_new(const tycho_slam_params *p, tycho_err *err)
{
    tycho_slam_params defaults;
    if (!p) {
        tycho_slam_params_defaults(&defaults);
        p = &defaults;
    }
    if (tycho_slam_params_validate(p, err) != TYCHO_OK) return NULL;
    tycho_slam *s = calloc(1, sizeof *s);
    if (!s) goto oom;
    s->p = *p;
    s->cur = s->next = s->front_sub = -1;
    s->graph = tycho_pose_graph_new();
    s->front = tycho_matcher_new();
    s->ins = tycho_inserter_new();
    if (!s->graph || !s->front || !s->ins) goto oom;
    return s;
oom:
    tycho_slam_free(s);
    tycho_fail(err, TYCHO_ENOMEM, "slam: out of memory");
    return NULL;
}

void tycho_slam_free(tycho_slam *s)
{
    if (!s) return;
    for (int i = 0; i < s->n; i++) tycho_scan_free(&s->nodes[i].scan);
    for (int i = 0; i < s->nsub; i++) {
        tycho_grid_free(s->subs[i].grid);
        tycho_matcher_free(s->subs[i].matcher);
    }
    free(s->nodes);
    free(s->subs);
    free(s->queue);
    tycho_pose_graph_free(s->graph);
    tycho_matcher_free(s->front);
    tycho_inserter_free(s->ins);
    free(s);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static tycho_pose2 node_pose(const tycho_slam *s, int i)
{
    return tycho_pose_graph_node(s->graph, i);
}

static int start_submap(tycho_slam *s, int anchor, tycho_err *err)
{
    if (s->nsub == s->subcap) {
        int cap = s->subcap ? 2 * s->subcap : 16;
        submap *m = realloc(s->subs, (size_t)cap * sizeof *m);
        if (!m) return tycho_fail(err, TYCHO_ENOMEM, "slam: out of memory"), -1;
        s->subs = m;
        s->subcap = cap;
    }
    double half = SUBMAP_CELLS * s->p.resolution / 2;
    tycho_grid *g = tycho_grid_new(SUBMAP_CELLS, SUBMAP_CELLS, s->p.resolution,
                                   (tycho_pose2){-half, -half, 0}, TYCHO_COST_UNKNOWN, err);
    if (!g) return -1;
    s->subs[s->nsub] = (submap){.grid = g, .anchor = anchor};
    s->st.submaps = s->nsub + 1;
    return s->nsub++;
}

/* The submap's walls and a margin round them, where its likelihood field is
 * not ~0: the grid grew to the scans' reach (a 20 m LiDAR: 800 x 800 cells),
 * and a finished submap keeps its field for every loop search to come. NULL
 * when nothing needs cropping (or no wall at all: the whole grid is kept). */
static tycho_grid *crop_to_walls(const tycho_grid *g, double sigma, tycho_err *err)
{
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    const uint8_t *c = tycho_grid_cells_const(g);
    int x0 = w, y0 = h, x1 = -1, y1 = -1;
    for (int y = 0; y < h; y++) {
        const uint8_t *row = c + (size_t)y * w;
        for (int x = 0; x < w; x++) {
            if (row[x] < WALL_COST || row[x] == TYCHO_COST_UNKNOWN) continue;
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
            if (y < y0) y0 = y;
            if (y > y1) y1 = y;
        }
    }
    if (x1 < 0) return NULL;
    /* 5 sigma: the field there is exp(-12.5), under 4e-6 of a wall's */
    int margin = (int)ceil(5 * sigma / tycho_grid_resolution(g)) + 2;
    x0 -= margin, y0 -= margin, x1 += margin, y1 += margin;
    if (x0 <= 0 && y0 <= 0 && x1 >= w - 1 && y1 >= h - 1) return NULL;
    return tycho_grid_crop(g, x0, y0, x1 - x0 + 1, y1 - y0 + 1, err);
}

/* A finished submap keeps only its likelihood field (for loop closure). */
static tycho_status finish_submap(tycho_slam *s, int i, tycho_err *err)
{
    submap *m = &s->subs[i];
    m->matcher = tycho_matcher_new();
    if (!m->matcher) return tycho_fail(err, TYCHO_ENOMEM, "slam: out of memory");
    tycho_err crop_err;
    tycho_grid *walls = crop_to_walls(m->grid, s->p.sigma, &crop_err);
    tycho_status st =
        tycho_matcher_set_map(m->matcher, walls ? walls : m->grid, WALL_COST, s->p.sigma, err);
    tycho_grid_free(walls);
    if (st != TYCHO_OK) return err ? err->code : TYCHO_EINVAL;
    tycho_matcher_shrink(m->matcher);
    m->bytes = tycho_matcher_bytes(m->matcher);
    tycho_grid_free(m->grid);
    m->grid = NULL;
    s->st.finished_submaps++;
    return TYCHO_OK;
}

static tycho_status insert_into(tycho_slam *s, int sub, int node, tycho_err *err)
{
    submap *m = &s->subs[sub];
    tycho_pose2 local = tycho_pose2_between(node_pose(s, m->anchor), node_pose(s, node));
    tycho_insert_opts o;
    tycho_insert_opts_defaults(&o);
    tycho_status st =
        tycho_scan_insert(s->ins, m->grid, local, &s->nodes[node].scan, &o, NULL, err);
    if (st != TYCHO_OK) return st;
    m->scans++;
    m->sum_x += local.x;
    m->sum_y += local.y;
    return TYCHO_OK;
}

static tycho_status copy_scan(tycho_scan *dst, const tycho_scan *src, tycho_err *err)
{
    tycho_status st = tycho_scan_init(dst, src->count, src->angle_min, src->angle_increment,
                                      src->range_min, src->range_max, err);
    if (st == TYCHO_OK) memcpy(dst->ranges, src->ranges, (size_t)src->count * sizeof *src->ranges);
    return st;
}

static tycho_status queue_push(tycho_slam *s, int node, tycho_err *err)
{
    if (s->qlen == s->qcap) {
        int cap = s->qcap ? 2 * s->qcap : 64;
        int *q = malloc((size_t)cap * sizeof *q);
        if (!q) return tycho_fail(err, TYCHO_ENOMEM, "slam: out of memory");
        for (int k = 0; k < s->qlen; k++) q[k] = s->queue[(s->qhead + k) % s->qcap];
        free(s->queue);
        s->queue = q;
        s->qcap = cap;
        s->qhead = 0;
    }
    s->queue[(s->qhead + s->qlen) % s->qcap] = node;
    s->qlen++;
    return TYCHO_OK;
}

static void queue_pop(tycho_slam *s)
{
    s->qhead = (s->qhead + 1) % s->qcap;
    s->qlen--;
    s->qsub = 0;
}

static tycho_status optimize(tycho_slam *s, tycho_err *err)
{
    double t0 = now_ms();
    tycho_graph_result r;
    tycho_status st = tycho_pose_graph_optimize(s->graph, s->p.optimize_iterations, &r, err);
    double ms = now_ms() - t0;
    s->st.optimizations++;
    s->pending = 0;
    s->last_optimized = s->n;
    s->st.last_optimization_ms = ms;
    if (ms > s->st.max_optimization_ms) s->st.max_optimization_ms = ms;
    return st;
}

/* The next finished submap at or after s->qsub worth matching node k
 * against: old enough not to share scans with k's own submaps, and near. */
static int next_candidate(const tycho_slam *s, int k)
{
    tycho_pose2 pk = node_pose(s, k);
    for (int i = s->qsub; i < s->nsub; i++) {
        const submap *m = &s->subs[i];
        if (!m->matcher || i >= s->nodes[k].submap - 1 ||
            k - (m->anchor + m->scans) < s->p.loop_min_separation)
            continue;
        tycho_pose2 c = tycho_pose2_compose(
            node_pose(s, m->anchor), (tycho_pose2){m->sum_x / m->scans, m->sum_y / m->scans, 0});
        if (hypot(c.x - pk.x, c.y - pk.y) <= s->p.loop_radius) return i;
    }
    return -1;
}

/* Tries one loop-closure candidate for the queue's head; true when a match was run. */
static tycho_status loop_slice(tycho_slam *s, bool *ran, int *closed, tycho_err *err)
{
    *ran = false;
    while (s->qlen > 0) {
        int k = s->queue[s->qhead];
        int i = next_candidate(s, k);
        if (i < 0) {
            queue_pop(s);
            continue;
        }
        s->qsub = i + 1;
        submap *m = &s->subs[i];
        tycho_match_params mp = s->p.local;
        mp.window_xy = s->p.loop_window_xy;
        mp.window_yaw = s->p.loop_window_yaw;
        mp.refine_steps = 2;
        tycho_pose2 guess = tycho_pose2_between(node_pose(s, m->anchor), node_pose(s, k));
        tycho_match_result r;
        tycho_status st = tycho_matcher_match(m->matcher, &s->nodes[k].scan, guess, &mp, &r, err);
        if (st != TYCHO_OK) return st;
        *ran = true;
        s->st.loop_candidates++;
        if (r.ok && !r.degenerate && r.score >= s->p.loop_min_score) {
            st = tycho_pose_graph_add_edge(
                s->graph, m->anchor, k, r.pose, 1 / (s->p.loop_sigma_xy * s->p.loop_sigma_xy),
                1 / (s->p.loop_sigma_yaw * s->p.loop_sigma_yaw), s->p.huber, err);
            if (st != TYCHO_OK) return st;
            s->st.loop_closures++;
            s->pending++;
            (*closed)++;
            queue_pop(s); /* one closure per node is enough */
            return TYCHO_OK;
        }
        return TYCHO_OK;
    }
    return TYCHO_OK;
}

/* Front end: where the scan is, from the odometry's guess and the current submap. */
static tycho_pose2 match_front(tycho_slam *s, const tycho_scan *scan, tycho_pose2 guess,
                               tycho_slam_step *out, tycho_status *st, tycho_err *err)
{
    submap *m = &s->subs[s->cur];
    *st = TYCHO_OK;
    if (m->scans == 0) return guess;
    /* the field is rebuilt when the submap changed or every
     * field_every scans: one more scan moves a 20-40-scan submap little, and
     * the rebuild is most of a scan's cost */
    if (s->front_sub != s->cur || s->front_stale >= s->p.field_every) {
        *st = tycho_matcher_set_map(s->front, m->grid, WALL_COST, s->p.sigma, err);
        if (*st != TYCHO_OK) return guess;
        s->front_sub = s->cur;
        s->front_stale = 0;
    }
    tycho_pose2 anchor = node_pose(s, m->anchor);
    tycho_match_result r;
    *st = tycho_matcher_match(s->front, scan, tycho_pose2_between(anchor, guess), &s->p.local, &r,
                              err);
    if (*st != TYCHO_OK) return guess;
    out->score = r.score;
    if (!r.ok) {
        s->st.scans_poor++;
        return guess;
    }
    tycho_pose2 found = tycho_pose2_compose(anchor, r.pose);
    if (r.degenerate) {
        /* the walls alongside still pin the heading */
        s->st.scans_degenerate++;
        out->degenerate = true;
        guess.yaw = found.yaw;
        return guess;
    }
    s->st.scans_matched++;
    out->matched = true;
    return found;
}

tycho_status tycho_slam_add_scan(tycho_slam *s, const tycho_scan *scan, tycho_pose2 odom,
                                 tycho_slam_step *out, tycho_err *err)
{
    if (!s || !scan || !scan->ranges || scan->count < 1)
        return tycho_fail(err, TYCHO_EINVAL, "slam: no scan");
    if (!(isfinite(odom.x) && isfinite(odom.y) && isfinite(odom.yaw)))
        return tycho_fail(err, TYCHO_EINVAL, "slam: odometry pose must be finite");
    tycho_slam_step step = {.pose = odom};
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 256;
        node_scan *nn = realloc(s->nodes, (size_t)cap * sizeof *nn);
        if (!nn) return tycho_fail(err, TYCHO_ENOMEM, "slam: out of memory");
        s->nodes = nn;
        s->cap = cap;
    }
    tycho_status st = TYCHO_OK;
    tycho_pose2 pose = odom;
    if (s->n > 0) {
        tycho_pose2 last = node_pose(s, s->n - 1);
        tycho_pose2 guess =
            tycho_pose2_compose(last, tycho_pose2_between(s->nodes[s->n - 1].odom, odom));
        pose = match_front(s, scan, guess, &step, &st, err);
        if (st != TYCHO_OK) return st;
    }
    node_scan *ns = &s->nodes[s->n];
    if ((st = copy_scan(&ns->scan, scan, err)) != TYCHO_OK) return st;
    int k = tycho_pose_graph_add_node(s->graph, pose);
    if (k < 0) {
        tycho_scan_free(&ns->scan);
        return tycho_fail(err, TYCHO_ENOMEM, "slam: out of memory");
    }
    ns->odom = odom;
    s->n++;
    s->st.nodes = s->n;
    if (k > 0) {
        tycho_pose2 z = tycho_pose2_between(node_pose(s, k - 1), pose);
        st = tycho_pose_graph_add_edge(s->graph, k - 1, k, z,
                                       1 / (s->p.edge_sigma_xy * s->p.edge_sigma_xy),
                                       1 / (s->p.edge_sigma_yaw * s->p.edge_sigma_yaw), 0, err);
        if (st != TYCHO_OK) return st;
    }
    /* submaps: the matched-against one and, from half-way, the next */
    if (s->cur < 0 && (s->cur = start_submap(s, k, err)) < 0) return err ? err->code : TYCHO_ENOMEM;
    ns->submap = s->cur;
    if (s->next < 0 && s->subs[s->cur].scans >= s->p.submap_scans / 2 &&
        (s->next = start_submap(s, k, err)) < 0)
        return err ? err->code : TYCHO_ENOMEM;
    if ((st = insert_into(s, s->cur, k, err)) != TYCHO_OK) return st;
    if (s->next >= 0 && (st = insert_into(s, s->next, k, err)) != TYCHO_OK) return st;
    s->front_stale++;
    if (s->subs[s->cur].scans >= s->p.submap_scans) {
        if ((st = finish_submap(s, s->cur, err)) != TYCHO_OK) return st;
        s->cur = s->next;
        s->next = -1;
    }
    /* back end, one slice */
    if (s->p.loop_closure) {
        if (k % s->p.loop_every == 0 && (st = queue_push(s, k, err)) != TYCHO_OK) return st;
        for (int t = 0; t < s->p.loop_matches_per_scan; t++) {
            bool ran;
            if ((st = loop_slice(s, &ran, &step.loop_closures, err)) != TYCHO_OK) return st;
            if (!ran) break;
        }
        if (s->pending && s->n - s->last_optimized >= s->p.optimize_every &&
            (st = optimize(s, err)) != TYCHO_OK)
            return st;
    }
    step.pose = node_pose(s, k);
    if (out) *out = step;
    return TYCHO_OK;
}

tycho_status tycho_slam_finish(tycho_slam *s, tycho_err *err)
{
    int closed = 0;
    bool ran;
    /* the last scan too, whatever loop_every says: the end pose is the one a log or mission reports
     */
    int last = s->n - 1;
    if (s->p.loop_closure && last > 0 && last % s->p.loop_every != 0) {
        tycho_status st = queue_push(s, last, err);
        if (st != TYCHO_OK) return st;
    }
    while (s->p.loop_closure && s->qlen > 0) {
        tycho_status st = loop_slice(s, &ran, &closed, err);
        if (st != TYCHO_OK) return st;
    }
    return s->pending ? optimize(s, err) : TYCHO_OK;
}

tycho_pose2 tycho_slam_pose(const tycho_slam *s)
{
    return s->n ? node_pose(s, s->n - 1) : (tycho_pose2){0, 0, 0};
}

tycho_pose2 tycho_slam_correct(const tycho_slam *s, tycho_pose2 odom)
{
    if (!s->n) return odom;
    return tycho_pose2_compose(node_pose(s, s->n - 1),
                               tycho_pose2_between(s->nodes[s->n - 1].odom, odom));
}

int tycho_slam_nodes(const tycho_slam *s) { return s->n; }

tycho_pose2 tycho_slam_node_pose(const tycho_slam *s, int i) { return node_pose(s, i); }

void tycho_slam_get_stats(const tycho_slam *s, tycho_slam_stats *st)
{
    *st = s->st;
    size_t bytes =
        sizeof *s + (size_t)s->cap * sizeof *s->nodes + (size_t)s->subcap * sizeof *s->subs;
    for (int i = 0; i < s->n; i++) bytes += (size_t)s->nodes[i].scan.count * sizeof(float);
    for (int i = 0; i < s->nsub; i++)
        bytes += s->subs[i].grid ? (size_t)tycho_grid_width(s->subs[i].grid) *
                                       tycho_grid_height(s->subs[i].grid) * 5
                                 : s->subs[i].bytes;
    bytes += (size_t)tycho_pose_graph_nodes(s->graph) * sizeof(tycho_pose2) +
             (size_t)tycho_pose_graph_edges(s->graph) * 64;
    st->bytes = bytes;
}

tycho_grid *tycho_slam_render(const tycho_slam *s, tycho_err *err)
{
    tycho_pose2 o = s->n ? node_pose(s, 0) : (tycho_pose2){0, 0, 0};
    double half = SUBMAP_CELLS * s->p.resolution / 2;
    tycho_grid *g =
        tycho_grid_new(SUBMAP_CELLS, SUBMAP_CELLS, s->p.resolution,
                       (tycho_pose2){o.x - half, o.y - half, 0}, TYCHO_COST_UNKNOWN, err);
    if (!g) return NULL;
    tycho_insert_opts opts;
    tycho_insert_opts_defaults(&opts);
    for (int i = 0; i < s->n; i++) {
        if (tycho_scan_insert(s->ins, g, node_pose(s, i), &s->nodes[i].scan, &opts, NULL, err) !=
            TYCHO_OK) {
            tycho_grid_free(g);
            return NULL;
        }
    }
    return g;
}
