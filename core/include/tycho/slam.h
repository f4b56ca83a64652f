/* 2D SLAM: local submaps, a pose graph, loop closure.
 *
 * The shape is Cartographer's (Hess, Kohler, Rapp and Andor, "Real-time loop
 * closure in 2D LIDAR SLAM", 2016), with this project's correlative matcher
 * (scan_match.h) and pose graph (pose_graph.h):
 *   - every scan becomes a node of the pose graph;
 *   - front end: the scan is matched against the current submap (a small
 *     log-odds grid in the frame of its first node, its "anchor"), starting
 *     from the odometry's guess, then inserted into it; two submaps are
 *     active and overlap by half, so the one matched against always holds
 *     enough scans. A submap is finished after submap_scans scans: its
 *     likelihood field is built once and its grid freed.
 *   - consecutive nodes are joined by an edge holding the front end's
 *     relative pose;
 *   - back end: nodes are matched against finished submaps near them (not
 *     the most recent ones) with a wider window and a stricter score; an
 *     accepted match is a loop-closure edge from the submap's anchor to the
 *     node, after which the graph is optimised (Huber-robust on loop edges)
 *     and the current pose follows.
 * The loop search runs in slices: each add_scan does at most
 * loop_matches_per_scan candidate matches, so a caller's control loop keeps
 * its rate. The map is re-rendered on request from every stored scan at
 * its optimised pose (tycho_slam_render). */
#ifndef TYCHO_SLAM_H
#define TYCHO_SLAM_H

#include "tycho/grid.h"
#include "tycho/pose_graph.h"
#include "tycho/scan.h"
#include "tycho/scan_match.h"

typedef struct {
    double resolution; /* m per submap and rendered-map cell, default 0.05 */
    double sigma;      /* m, likelihood field spread, default 0.05 */
    int submap_scans;  /* scans in a finished submap, default 40 */
    int field_every;   /* rebuild the front end's likelihood field every n scans, default 1 */
    tycho_match_params local; /* front-end match (window 0.15 m, 6 deg) */
    /* A front-end match that lands at its window's edge (within a tenth of
     * it) or scores under local.min_score is searched again over this
     * wider window round the same guess, with the same prior: poor
     * odometry (a log's CSAIL robot: 8.7 deg off per scan) then still
     * matches, where a window that wide everywhere let a corridor slide
     * (the ACES log: 5 m). 0 (default): never. */
    double wide_window_xy, wide_window_yaw;
    double loop_window_xy;      /* m, loop-closure search half-width, default 0.3 */
    double loop_window_yaw;     /* rad, default 5 deg */
    double loop_min_score;      /* mean likelihood per beam to accept a closure, default 0.85 */
    double loop_max_rms;        /* m, refine on: a closure whose refined beams miss the
                                 * submap's walls by more (root mean square) is set aside,
                                 * default 0.02 */
    double loop_max_shift;      /* m, refine on: a closure whose refinement moved the search's
                                 * match by more is set aside, default 0.03 */
    double loop_pin_beams;      /* refine on: a closure's direction pinned by fewer beams (its
                                 * refinement's information) weighs proportionally less than
                                 * loop_sigma_xy says, default 20 (along a bare corridor: ~0) */
    double loop_radius;         /* m, try submaps whose anchor is this near the node, default 3 */
    int loop_every;             /* search closures for every n-th node, default 5 */
    int loop_candidates;        /* the nearest submaps tried for one node, at most; default 0:
                                 * every one in reach (a bare corridor's right closure may be
                                 * the ninth nearest) */
    int loop_queue_max;         /* nodes waiting for the search, at most: a node queued onto a
                                 * full queue pushes out the oldest waiting (stats.loop_dropped),
                                 * so the search's lag and finish()'s drain stay bounded whatever
                                 * the scan rate; default 64 */
    int loop_matches_per_scan;  /* loop candidate matches per add_scan (the slice), default 2; 0:
                                 * none there, the caller budgets them (tycho_slam_search_loops) */
    int loop_closures_per_node; /* closures (to different submaps) one node may get, default 1 */
    int loop_min_separation;    /* scans between a submap's last scan and a node matched against it,
                                 * default 40: nearer ones repeat the front end's own matches */
    int optimize_every; /* scans between optimisations while closures are pending, default 10 */
    int optimize_lag;   /* > 0: optimise on a background thread, the result taken this many scans
                           later (waiting then if it is not done: the same results on any machine);
                           0 (default): inline, in the add_scan that found the closures */
    double edge_sigma_xy, edge_sigma_yaw; /* consecutive-node edges, default 0.02 m, 0.5 deg */
    double loop_sigma_xy, loop_sigma_yaw; /* loop-closure edges, default 0.05 m, 1 deg */
    double huber;                         /* loop edges' Huber threshold in sigmas, default 3 */
    double prior_per_m, prior_per_rad;    /* the front end's odometry prior is divided by
                                             1 + prior_per_m * metres + prior_per_rad * radians moved
                                             since the last scan; default 0, 0 */
    double loop_reject;      /* a closure the optimised graph misses by more sigmas is set aside
                                (the worst first, re-optimising between), default 0: never */
    int optimize_iterations; /* Gauss-Newton steps per optimisation, default 10 */
    bool loop_closure;       /* default true; false: front end only (for comparison) */
    bool refine; /* the front end's match refined against the mean hit of each cell of the
                    submap (pointmap.h: finer than a cell), default false: the front end
                    gets better than the loop closures (matched on cells, not refined),
                    and on a short loop closing it then makes the trajectory worse */
} tycho_slam_params;

void tycho_slam_params_defaults(tycho_slam_params *p);
/* Checks every field's range; the message names the field. */
tycho_status tycho_slam_params_validate(const tycho_slam_params *p, tycho_err *err);

typedef struct {
    tycho_pose2 pose;  /* corrected pose of this scan (world frame) */
    double score;      /* front-end match score (0 when not matched) */
    bool matched;      /* the front end moved the pose off the odometry's guess */
    bool degenerate;   /* the scan did not pin the translation (corridor): heading only */
    bool still;        /* the odometry had not moved: its step taken, no match */
    int loop_closures; /* closures found during this call */
    /* the front-end match's uncertainty (tycho_match_result: m along the
     * direction the scan pins least, rad in heading); NAN when the scan was
     * not matched (the first, a still robot, a poor match) */
    double sigma_xy, sigma_yaw;
} tycho_slam_step;

typedef struct {
    int nodes, submaps, finished_submaps;
    int scans_matched, scans_degenerate, scans_poor;
    int scans_still;   /* taken at the odometry's step: the robot had not moved */
    int scans_wide;    /* front-end matches searched again over the wide window */
    int scans_refined; /* front-end matches refined against the submap's hit means */
    int loops_refined; /* loop closures refined against the finished submap's hit means */
    int loops_loose; /* closures set aside: refined, their beams missed by more than loop_max_rms */
    int loops_shifted; /* closures set aside: the refinement moved the match by over loop_max_shift
                        */
    int loop_candidates; /* loop-closure matches tried */
    int loop_closures;   /* accepted */
    int loop_rejected;   /* accepted, then set aside by the optimisation (loop_reject) */
    int loop_dropped;    /* queued nodes pushed out unsearched (loop_queue_max) */
    int loop_searched;   /* nodes whose search ran to its end */
    int max_lag_scans;   /* most scans added between a node's queueing and its search's end */
    int optimizations;
    double last_optimization_ms, max_optimization_ms;
    double max_wait_ms; /* longest an add_scan waited for the background optimisation */
    size_t bytes;       /* memory held (scans, submaps, fields, graph) */
} tycho_slam_stats;

typedef struct tycho_slam tycho_slam;

tycho_slam *tycho_slam_new(const tycho_slam_params *p, tycho_err *err);
void tycho_slam_free(tycho_slam *s);

/* Adds a scan taken at the LiDAR's odometry pose. The scan is copied. */
tycho_status tycho_slam_add_scan(tycho_slam *s, const tycho_scan *scan, tycho_pose2 odom,
                                 tycho_slam_step *out, tycho_err *err);

/* Runs up to `matches` loop-closure candidate matches from the queue (and
 * the optimisation when closures are pending), as add_scan does with
 * loop_matches_per_scan: for a caller that budgets the search by time (a
 * log replayed: matches per second of log, whatever its scan rate). Adds
 * the closures found to *closed (may be NULL). */
tycho_status tycho_slam_search_loops(tycho_slam *s, int matches, int *closed, tycho_err *err);

/* The latest scan's corrected pose ((0,0,0) before the first scan), and
 * the correction of an odometry pose taken since: latest ⊕ (odom_latest⁻¹ ⊕ odom). */
tycho_pose2 tycho_slam_pose(const tycho_slam *s);
tycho_pose2 tycho_slam_correct(const tycho_slam *s, tycho_pose2 odom);

int tycho_slam_nodes(const tycho_slam *s);
tycho_pose2 tycho_slam_node_pose(const tycho_slam *s, int i);
void tycho_slam_get_stats(const tycho_slam *s, tycho_slam_stats *st);

/* When node i's loop-closure search ended: the number of nodes there were
 * then (its lag is that less i + 1, in scans), or one of these. */
#define TYCHO_SLAM_NOT_QUEUED (-1) /* not queued (loop_every, or no loop closure) */
#define TYCHO_SLAM_DROPPED (-2)    /* pushed out of a full queue (loop_queue_max) */
#define TYCHO_SLAM_WAITING (-3)    /* still queued */
int tycho_slam_node_searched_at(const tycho_slam *s, int i);

/* Renders every scan at its optimised pose into a new grid (log-odds,
 * resolution of the params), grown to fit. */
tycho_grid *tycho_slam_render(const tycho_slam *s, tycho_err *err);
/* The same at a coarser cell size (resolution of the params up to 10 m): a
 * picture of a 250 m building at 5 cm is 24 M cells. */
tycho_grid *tycho_slam_render_at(const tycho_slam *s, double resolution, tycho_err *err);

/* Runs the loop-closure search for every node still queued (at most
 * loop_queue_max x loop_candidates matches) and optimises (the end of a
 * log or mission; not sliced). Frees the front end's scratch (rebuilt if
 * more scans are added). */
tycho_status tycho_slam_finish(tycho_slam *s, tycho_err *err);

/* A loop closure's translation information, {xx, xy, yy} in the frame of
 * its pose (yaw), from its refinement's information (tycho_refine_result.info,
 * in the submap's frame): each principal direction info_xy when pin_beams
 * or more beams pin it, proportionally less when fewer do. Exposed for its
 * test. */
void tycho_closure_information(const double info[3], double yaw, double info_xy, double pin_beams,
                               double out[3]);

#endif
