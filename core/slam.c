/* 2D SLAM with submaps and loop closure: see slam.h. The front end,
 * submaps and the public API; the loop-closure search and the
 * optimisation are in slam_backend.c. */
#include "slam_internal.h"

#include <math.h>
#include <string.h>

/* Submap cells at creation (8 m at 5 cm); the grid grows with the scans. */
#define SUBMAP_CELLS 160
/* The odometry moved less than this since the last scan: standing still. */
#define STILL_M 1e-3
#define STILL_RAD 1e-3
/* Cost at or above which a submap cell is a wall for the likelihood field. */
#define WALL_COST 254
/* A wide search's match replaces the window's only when it scores this much
 * better (mean likelihood per beam): the wide window has more poses to find
 * a chance fit among (the ACES log's corridors). */
#define WIDE_MARGIN 0.05

#include "slam_internal.h"

void tycho_slam_params_defaults(tycho_slam_params *p)
{
    p->resolution = 0.05;
    p->sigma = 0.05;
    p->submap_scans = 40;
    p->field_every = 1;
    tycho_match_params_defaults(&p->local);
    p->local.plateau_centre = true;
    p->wide_window_xy = 0;
    p->wide_window_yaw = 0;
    p->loop_window_xy = 0.3;
    p->loop_window_yaw = 5.0 * M_PI / 180.0;
    p->loop_min_score = 0.85;
    p->loop_max_rms = 0.02;
    p->loop_max_shift = 0.03;
    p->loop_pin_beams = 20;
    p->loop_radius = 3.0;
    p->loop_every = 5;
    p->loop_candidates = 0;
    p->loop_queue_max = 64;
    p->loop_matches_per_scan = 2;
    p->loop_closures_per_node = 1;
    p->loop_min_separation = 40;
    p->optimize_every = 10;
    p->edge_sigma_xy = 0.02;
    p->edge_sigma_yaw = 0.5 * M_PI / 180.0;
    p->loop_sigma_xy = 0.05;
    p->loop_sigma_yaw = 1.0 * M_PI / 180.0;
    p->huber = 3.0;
    p->loop_reject = 0;
    p->optimize_lag = 0;
    p->prior_per_m = 0;
    p->prior_per_rad = 0;
    p->optimize_iterations = 10;
    p->refine = false;
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
    NEED(in_range(p->wide_window_xy, 0, 5), "slam: wide_window_xy must be in [0, 5] m");
    NEED(in_range(p->wide_window_yaw, 0, M_PI), "slam: wide_window_yaw must be in [0, pi] rad");
    NEED(in_range(p->loop_window_xy, 0, 5), "slam: loop_window_xy must be in [0, 5] m");
    NEED(in_range(p->loop_window_yaw, 0, M_PI), "slam: loop_window_yaw must be in [0, pi] rad");
    NEED(in_range(p->loop_min_score, 0, 1), "slam: loop_min_score must be in [0, 1]");
    NEED(in_range(p->loop_max_rms, 0, 1), "slam: loop_max_rms must be in [0, 1] m");
    NEED(in_range(p->loop_max_shift, 0, 10), "slam: loop_max_shift must be in [0, 10] m");
    NEED(in_range(p->loop_pin_beams, 1e-3, 1e5), "slam: loop_pin_beams must be in [0.001, 100000]");
    NEED(in_range(p->loop_radius, 0, 1000), "slam: loop_radius must be in [0, 1000] m");
    NEED(p->loop_every >= 1 && p->loop_every <= 100000, "slam: loop_every must be in 1..100000");
    NEED(p->loop_candidates >= 0 && p->loop_candidates <= 10000,
         "slam: loop_candidates must be in 0..10000 (0: every one in reach)");
    NEED(p->loop_queue_max >= 1 && p->loop_queue_max <= 100000,
         "slam: loop_queue_max must be in 1..100000");
    NEED(p->loop_matches_per_scan >= 0 && p->loop_matches_per_scan <= 1000,
         "slam: loop_matches_per_scan must be in 0..1000 (0: only tycho_slam_search_loops)");
    NEED(p->loop_closures_per_node >= 1 && p->loop_closures_per_node <= 1000,
         "slam: loop_closures_per_node must be in 1..1000");
    NEED(p->loop_min_separation >= 0 && p->loop_min_separation <= 1000000,
         "slam: loop_min_separation must be in 0..1000000");
    NEED(p->optimize_every >= 1 && p->optimize_every <= 100000,
         "slam: optimize_every must be in 1..100000");
    NEED(in_range(p->edge_sigma_xy, 1e-6, 100) && in_range(p->edge_sigma_yaw, 1e-6, 10),
         "slam: edge_sigma_xy and edge_sigma_yaw must be > 0");
    NEED(in_range(p->loop_sigma_xy, 1e-6, 100) && in_range(p->loop_sigma_yaw, 1e-6, 10),
         "slam: loop_sigma_xy and loop_sigma_yaw must be > 0");
    NEED(in_range(p->huber, 0, 1000), "slam: huber must be in [0, 1000] (0: none)");
    NEED(in_range(p->loop_reject, 0, 1000), "slam: loop_reject must be in [0, 1000] (0: never)");
    NEED(p->optimize_lag >= 0 && p->optimize_lag <= 100000,
         "slam: optimize_lag must be in 0..100000 (0: optimise inline)");
    NEED(in_range(p->prior_per_m, 0, 1000) && in_range(p->prior_per_rad, 0, 1000),
         "slam: prior_per_m and prior_per_rad must be in [0, 1000]");
    NEED(in_range(p->local.prior_xy, 0, 100), "slam: prior_xy must be in [0, 100]");
    NEED(in_range(p->local.prior_yaw, 0, 100), "slam: prior_yaw must be in [0, 100]");
    NEED(p->local.refine_steps >= 0 && p->local.refine_steps <= 4,
         "slam: refine_steps must be in 0..4");
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
    s->ncand = -1;
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
    if (s->worker_running) {
        pthread_join(s->worker, NULL);
        tycho_pose_graph_free(s->job.g);
        free((int *)s->job.loops);
    }
    for (int i = 0; i < s->n; i++) tycho_scan_free(&s->nodes[i].scan);
    for (int i = 0; i < s->nsub; i++) {
        tycho_grid_free(s->subs[i].grid);
        tycho_pointmap_free(s->subs[i].points);
        tycho_matcher_free(s->subs[i].matcher);
    }
    free(s->nodes);
    free(s->subs);
    free(s->queue);
    free(s->cand);
    free(s->cand_dist);
    free(s->loops);
    tycho_pose_graph_free(s->graph);
    tycho_matcher_free(s->front);
    tycho_inserter_free(s->ins);
    free(s);
}

static int start_submap(tycho_slam *s, int anchor, tycho_err *err)
{
    if (room_for(&s->subs, s->nsub, &s->subcap, sizeof *s->subs, 16, err) != TYCHO_OK) return -1;
    double half = SUBMAP_CELLS * s->p.resolution / 2;
    tycho_grid *g = tycho_grid_new(SUBMAP_CELLS, SUBMAP_CELLS, s->p.resolution,
                                   (tycho_pose2){-half, -half, 0}, TYCHO_COST_UNKNOWN, err);
    if (!g) return -1;
    tycho_pointmap *pm = NULL;
    if (s->p.refine && !(pm = tycho_pointmap_new(s->p.resolution))) {
        tycho_grid_free(g);
        tycho_fail(err, TYCHO_ENOMEM, "slam: out of memory");
        return -1;
    }
    s->subs[s->nsub] = (submap){.grid = g, .points = pm, .anchor = anchor};
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
    if (tycho_matcher_shrink(m->matcher, err) != TYCHO_OK) return err ? err->code : TYCHO_ENOMEM;
    tycho_grid_free(m->grid);
    m->grid = NULL;
    /* the loop closures found on its field are refined against its hits'
     * means, as the front end's matches are: kept as a hash of the cells
     * with hits (a few tens of kB) */
    if (m->points && tycho_pointmap_compact(m->points, err) != TYCHO_OK)
        return err ? err->code : TYCHO_ENOMEM;
    m->bytes = tycho_matcher_bytes(m->matcher) + tycho_pointmap_bytes(m->points);
    s->st.finished_submaps++;
    return TYCHO_OK;
}

/* The box (x0, y0)-(x1, y1) of what a scan taken at `pose` touches: its
 * returns, and range_max along the beams with none (inserting clears them
 * that far). The inserter's own growth takes the sensor's square of
 * +-range_max: a 20 m LiDAR's submaps then grew to 800 x 800 cells whatever
 * the walls' distance, and a half-turn scanner's to twice its box. */
static void beams_box(const tycho_scan *scan, tycho_pose2 pose, double box[4])
{
    box[0] = box[2] = pose.x;
    box[1] = box[3] = pose.y;
    for (int i = 0; i < scan->count; i++) {
        double r = scan->ranges[i];
        if (!(isfinite(r) && r >= scan->range_min && r < scan->range_max)) r = scan->range_max;
        double a = pose.yaw + tycho_scan_angle(scan, i);
        double x = pose.x + r * cos(a), y = pose.y + r * sin(a);
        if (x < box[0]) box[0] = x;
        if (y < box[1]) box[1] = y;
        if (x > box[2]) box[2] = x;
        if (y > box[3]) box[3] = y;
    }
}

static tycho_status grow_to_box(tycho_grid *g, const double box[4], tycho_err *err)
{
    tycho_status st = tycho_grid_grow_to(g, box[0], box[1], 1, err);
    return st == TYCHO_OK ? tycho_grid_grow_to(g, box[2], box[3], 1, err) : st;
}

/* Inserts a scan into g at pose, the grid grown to the beams' box first. */
static tycho_status insert_scan(tycho_inserter *ins, tycho_grid *g, tycho_pose2 pose,
                                const tycho_scan *scan, tycho_err *err)
{
    double box[4];
    beams_box(scan, pose, box);
    tycho_status st = grow_to_box(g, box, err);
    if (st != TYCHO_OK) return st;
    tycho_insert_opts o;
    tycho_insert_opts_defaults(&o);
    o.grow = false;
    return tycho_scan_insert(ins, g, pose, scan, &o, NULL, err);
}

static tycho_status insert_into(tycho_slam *s, int sub, int node, tycho_err *err)
{
    submap *m = &s->subs[sub];
    tycho_pose2 local = tycho_pose2_between(node_pose(s, m->anchor), node_pose(s, node));
    tycho_status st = insert_scan(s->ins, m->grid, local, &s->nodes[node].scan, err);
    if (st == TYCHO_OK && m->points)
        st = tycho_pointmap_add_scan(m->points, &s->nodes[node].scan, local, err);
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

/* The match's heading within a tenth of its window's edge: the best pose
 * may lie outside it. (Not its position: along a corridor a match slides to
 * the edge of any window, and the wider one let it slide further.) */
static bool at_window_edge(const tycho_match_result *r, tycho_pose2 guess,
                           const tycho_match_params *mp)
{
    if (!r->ok) return false;
    return fabs(tycho_angle_wrap(r->pose.yaw - guess.yaw)) >= 0.9 * mp->window_yaw;
}

/* Front end: where the scan is, from the odometry's guess and the current submap. */
static tycho_pose2 match_front(tycho_slam *s, const tycho_scan *scan, tycho_pose2 guess,
                               tycho_pose2 moved, tycho_slam_step *out, tycho_status *st,
                               tycho_err *err)
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
    /* the odometry's prior weakens as the step it measured grows: its
     * error grows with the distance and the turn */
    tycho_match_params mp = s->p.local;
    double k = 1.0 / (1.0 + s->p.prior_per_m * hypot(moved.x, moved.y) +
                      s->p.prior_per_rad * fabs(moved.yaw));
    mp.prior_xy *= k;
    mp.prior_yaw *= k;
    tycho_pose2 local_guess = tycho_pose2_between(anchor, guess);
    *st = tycho_matcher_match(s->front, scan, local_guess, &mp, &r, err);
    if (*st != TYCHO_OK) return guess;
    if ((s->p.wide_window_xy > mp.window_xy || s->p.wide_window_yaw > mp.window_yaw) &&
        (!r.ok || at_window_edge(&r, local_guess, &mp))) {
        tycho_match_params wide = mp;
        wide.window_xy = fmax(mp.window_xy, s->p.wide_window_xy);
        wide.window_yaw = fmax(mp.window_yaw, s->p.wide_window_yaw);
        tycho_match_result w;
        *st = tycho_matcher_match(s->front, scan, local_guess, &wide, &w, err);
        if (*st != TYCHO_OK) return guess;
        s->st.scans_wide++;
        if (w.ok && (!r.ok || w.score > r.score + WIDE_MARGIN)) r = w;
    }
    out->score = r.score;
    if (r.ok) {
        out->sigma_xy = r.sigma_xy;
        out->sigma_yaw = r.sigma_yaw;
    }
    if (!r.ok) {
        s->st.scans_poor++;
        return guess;
    }
    if (m->points) {
        /* finer than a cell: the match on cells sits anywhere on a plateau
         * up to half a cell wide (pointmap.h) */
        tycho_refine_params rp;
        tycho_refine_params_defaults(&rp);
        tycho_refine_result f;
        if (tycho_pointmap_refine(m->points, scan, r.pose, &rp, &f, NULL) == TYCHO_OK && f.ok) {
            r.pose = f.pose;
            s->st.scans_refined++;
        }
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
    tycho_slam_step step = {.pose = odom, .sigma_xy = NAN, .sigma_yaw = NAN};
    if (s->worker_running && s->n >= s->worker_apply_at) {
        tycho_status done = slam_apply_background(s, err);
        if (done != TYCHO_OK) return done;
    }
    tycho_status st = room_for(&s->nodes, s->n, &s->cap, sizeof *s->nodes, 256, err);
    if (st != TYCHO_OK) return st;
    tycho_pose2 pose = odom;
    if (s->n > 0) {
        tycho_pose2 last = node_pose(s, s->n - 1);
        tycho_pose2 moved = tycho_pose2_between(s->nodes[s->n - 1].odom, odom);
        tycho_pose2 guess = tycho_pose2_compose(last, moved);
        if (fabs(moved.x) < STILL_M && fabs(moved.y) < STILL_M && fabs(moved.yaw) < STILL_RAD) {
            /* standing still: the odometry's step is exact, and a match
             * could only add the scans' noise (1-2 cm and 0.7 degrees seen
             * matching a scan against a submap of one scan from the same
             * place, at the start of a run: the whole map then kept that
             * turn). Cartographer's motion filter drops such scans. */
            pose = guess;
            step.still = true;
            s->st.scans_still++;
        } else {
            pose = match_front(s, scan, guess, moved, &step, &st, err);
            if (st != TYCHO_OK) return st;
        }
    }
    node_scan *ns = &s->nodes[s->n];
    if ((st = copy_scan(&ns->scan, scan, err)) != TYCHO_OK) return st;
    int k = tycho_pose_graph_add_node(s->graph, pose);
    if (k < 0) {
        tycho_scan_free(&ns->scan);
        return tycho_fail(err, TYCHO_ENOMEM, "slam: out of memory");
    }
    ns->odom = odom;
    ns->searched_at = TYCHO_SLAM_NOT_QUEUED;
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
        if (k % s->p.loop_every == 0 && (st = slam_queue_push(s, k, err)) != TYCHO_OK) return st;
        st = tycho_slam_search_loops(s, s->p.loop_matches_per_scan, &step.loop_closures, err);
        if (st != TYCHO_OK) return st;
    }
    step.pose = node_pose(s, k);
    if (out) *out = step;
    return TYCHO_OK;
}

tycho_status tycho_slam_search_loops(tycho_slam *s, int matches, int *closed, tycho_err *err)
{
    if (!s->p.loop_closure || s->n == 0) return TYCHO_OK;
    int found = 0;
    tycho_status st = TYCHO_OK;
    for (int t = 0; t < matches; t++) {
        bool ran;
        if ((st = slam_loop_slice(s, &ran, &found, err)) != TYCHO_OK) return st;
        if (!ran) break;
    }
    if (closed) *closed += found;
    if (s->pending && !s->worker_running && s->n - s->last_optimized >= s->p.optimize_every)
        st = s->p.optimize_lag > 0 ? slam_start_background(s, err) : slam_optimize(s, err);
    return st;
}

tycho_status tycho_slam_finish(tycho_slam *s, tycho_err *err)
{
    if (s->worker_running) {
        tycho_status done = slam_apply_background(s, err);
        if (done != TYCHO_OK) return done;
    }
    int closed = 0;
    bool ran;
    /* the last scan too, whatever loop_every says: the end pose is the one a log or mission reports
     */
    int last = s->n - 1;
    if (s->p.loop_closure && last > 0 && last % s->p.loop_every != 0) {
        tycho_status st = slam_queue_push(s, last, err);
        if (st != TYCHO_OK) return st;
    }
    while (s->p.loop_closure && s->qlen > 0) {
        tycho_status st = slam_loop_slice(s, &ran, &closed, err);
        if (st != TYCHO_OK) return st;
    }
    /* the front end's field (two floats a cell of the current submap) is
     * scratch: freed here, rebuilt if scans follow */
    tycho_matcher *fresh = tycho_matcher_new();
    if (fresh) {
        tycho_matcher_free(s->front);
        s->front = fresh;
        s->front_sub = -1;
    }
    return s->pending ? slam_optimize(s, err) : TYCHO_OK;
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

int tycho_slam_node_searched_at(const tycho_slam *s, int i)
{
    return i >= 0 && i < s->n ? s->nodes[i].searched_at : TYCHO_SLAM_NOT_QUEUED;
}

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
    return tycho_slam_render_at(s, s->p.resolution, err);
}

tycho_grid *tycho_slam_render_at(const tycho_slam *s, double res, tycho_err *err)
{
    if (!(isfinite(res) && res >= s->p.resolution && res <= 10))
        return tycho_fail(err, TYCHO_EINVAL,
                          "slam: a map's resolution must be in [%g, 10] m (the SLAM's or coarser)",
                          s->p.resolution),
               NULL;
    /* sized once to every scan's box: growing scan by scan copied the grid
     * tens of times (1379 x 1379 cells for the Intel log) */
    tycho_pose2 o = s->n ? node_pose(s, 0) : (tycho_pose2){0, 0, 0};
    double box[4] = {o.x, o.y, o.x, o.y};
    for (int i = 0; i < s->n; i++) {
        double b[4];
        beams_box(&s->nodes[i].scan, node_pose(s, i), b);
        for (int k = 0; k < 2; k++) box[k] = fmin(box[k], b[k]);
        for (int k = 2; k < 4; k++) box[k] = fmax(box[k], b[k]);
    }
    double w = ceil((box[2] - box[0]) / res) + 3, h = ceil((box[3] - box[1]) / res) + 3;
    if (!(w * h <= 1 << 28))
        return tycho_fail(err, TYCHO_ERANGE, "slam: the map would be %.0f x %.0f cells", w, h),
               NULL;
    tycho_grid *g = tycho_grid_new(
        (int)w, (int)h, res, (tycho_pose2){box[0] - res, box[1] - res, 0}, TYCHO_COST_UNKNOWN, err);
    /* an inserter of its own: its stamps (a byte a cell) are freed with it,
     * not kept in the SLAM's at the whole map's size */
    tycho_inserter *ins = g ? tycho_inserter_new() : NULL;
    if (g && !ins) tycho_fail(err, TYCHO_ENOMEM, "slam: out of memory");
    for (int i = 0; ins && i < s->n; i++) {
        if (insert_scan(ins, g, node_pose(s, i), &s->nodes[i].scan, err) != TYCHO_OK) {
            tycho_inserter_free(ins);
            ins = NULL;
        }
    }
    if (!ins) {
        tycho_grid_free(g);
        return NULL;
    }
    tycho_inserter_free(ins);
    /* the map is done: its costs are what it is (a 250 m building's log-odds
     * were 95 MB) */
    tycho_grid_drop_logodds(g);
    return g;
}
