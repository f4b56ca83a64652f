/* What core/slam.c (the front end, submaps, the public API) and
 * core/slam_backend.c (the loop-closure search and the pose graph's
 * optimisation, inline or on a thread) share: the SLAM's state. Internal
 * to libtycho. */
#ifndef TYCHO_SLAM_INTERNAL_H
#define TYCHO_SLAM_INTERNAL_H

#include "tycho/pointmap.h"
#include "tycho/slam.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    tycho_grid *grid;       /* log-odds grid in the anchor's frame; NULL once finished */
    tycho_pointmap *points; /* its hits' means (p.refine), the same frame; NULL once finished */
    tycho_matcher *matcher; /* likelihood field, built when finished */
    int anchor;             /* node whose pose is the submap's frame */
    int scans;
    double sum_x, sum_y; /* of the scan positions in the anchor frame: the submap's centre */
    size_t bytes;
} submap;

/* One optimisation: the graph (the SLAM's own, or a copy for the
 * background thread), the loop-closure edges it may set aside, and what came
 * of it. */
typedef struct {
    tycho_pose_graph *g;
    const int *loops;
    int nloops;
    int iterations;
    double reject;
    int rejected;        /* out: closures set aside */
    double ms;           /* out */
    tycho_status status; /* out */
    tycho_err err;       /* out */
} optimization;

typedef struct {
    tycho_scan scan;
    tycho_pose2 odom;
    int submap;      /* the submap the front end matched it against */
    int searched_at; /* nodes there were when its loop search ended (TYCHO_SLAM_NOT_QUEUED,
                        TYCHO_SLAM_DROPPED) */
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
    int *cand;         /* the queue head's candidate submaps, nearest first */
    double *cand_dist; /* and their distances */
    int candcap;
    int ncand;   /* how many (-1: not chosen yet) */
    int qpos;    /* the next of them to try */
    int qclosed; /* closures found for the queue's head so far */
    int pending; /* closures added since the last optimisation */
    int *loops;  /* the graph's edge index of every loop closure */
    int nloops, loopcap;
    /* the background optimisation (optimize_lag > 0) */
    pthread_t worker;
    bool worker_running;
    int worker_nodes;    /* nodes in the copy it optimises */
    int worker_apply_at; /* its result is taken when the graph has this many nodes */
    optimization job;
    int last_optimized; /* node count at the last optimisation */
    tycho_slam_stats st;
};

static inline double slam_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static inline tycho_pose2 node_pose(const tycho_slam *s, int i)
{
    return tycho_pose_graph_node(s->graph, i);
}

/* Room for one more element in the growing array *arr (n used, *cap
 * allocated, elements of `size` bytes; doubles from `first`). */
static inline tycho_status room_for(void *arr, int n, int *cap, size_t size, int first,
                                    tycho_err *err)
{
    if (n < *cap) return TYCHO_OK;
    int grown = *cap ? 2 * *cap : first;
    void *p = realloc(*(void **)arr, (size_t)grown * size);
    if (!p) return tycho_fail(err, TYCHO_ENOMEM, "slam: out of memory");
    *(void **)arr = p;
    *cap = grown;
    return TYCHO_OK;
}

/* slam_backend.c: the loop-closure queue, one slice of its search, and the
 * optimisation (here and now, or started on a thread and applied
 * optimize_lag scans later). */
tycho_status slam_queue_push(tycho_slam *s, int node, tycho_err *err);
tycho_status slam_loop_slice(tycho_slam *s, bool *ran, int *closed, tycho_err *err);
tycho_status slam_optimize(tycho_slam *s, tycho_err *err);
tycho_status slam_start_background(tycho_slam *s, tycho_err *err);
tycho_status slam_apply_background(tycho_slam *s, tycho_err *err);

#endif
