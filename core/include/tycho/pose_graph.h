/* A 2D pose graph and its least-squares optimiser.
 *
 * Nodes are planar poses; an edge (i, j, z, info) says "seen from node i,
 * node j is at z" with an information (1 / sigma^2 for x, y in the frame
 * of z, a 2 x 2 matrix where a direction is known less than the other,
 * and yaw). Optimisation is Gauss-Newton on the sum of
 * squared edge errors (Grisetti, Kuemmerle, Stachniss and Burgard, "A
 * tutorial on graph-based SLAM", 2010), each step's sparse normal
 * equations solved by a Cholesky factorisation from SuiteSparse's CXSparse
 * (fill-reducing AMD ordering). The first node is held fixed (the map's
 * frame). Edges marked robust use a Huber kernel, so that one wrong loop
 * closure bends the graph less than a right one straightens it. */
#ifndef TYCHO_POSE_GRAPH_H
#define TYCHO_POSE_GRAPH_H

#include "tycho/common.h"
#include "tycho/diffdrive.h" /* tycho_angle_wrap */

typedef struct tycho_pose_graph tycho_pose_graph;

typedef struct {
    int iterations;                 /* Gauss-Newton steps done */
    double chi2_before, chi2_after; /* weighted squared error */
    double max_step;                /* largest node move of the last step (m) */
} tycho_graph_result;

tycho_pose_graph *tycho_pose_graph_new(void);
void tycho_pose_graph_free(tycho_pose_graph *g);
/* A copy of g (its nodes and edges), or NULL when out of memory: what a
 * background optimisation works on while g takes new nodes. */
tycho_pose_graph *tycho_pose_graph_copy(const tycho_pose_graph *g);

/* Appends a node; returns its index, or -1 when out of memory. */
int tycho_pose_graph_add_node(tycho_pose_graph *g, tycho_pose2 pose);
/* Appends an edge; info_xy, info_yaw > 0 and finite; robust: Huber kernel
 * with a threshold of huber sigmas (<= 0: plain least squares). */
tycho_status tycho_pose_graph_add_edge(tycho_pose_graph *g, int from, int to, tycho_pose2 z,
                                       double info_xy, double info_yaw, double huber,
                                       tycho_err *err);
/* The same with a full translation information info_t = {xx, xy, yy} (in
 * the frame of z; symmetric, positive semi-definite, not zero): a match
 * along a corridor knows the pose across it well and along it little. */
tycho_status tycho_pose_graph_add_edge_full(tycho_pose_graph *g, int from, int to, tycho_pose2 z,
                                            const double info_t[3], double info_yaw, double huber,
                                            tycho_err *err);

/* Edge k's squared Mahalanobis error at the current nodes (NaN for no such
 * edge), and setting an edge aside (an inactive edge weighs nothing in the
 * optimisation; a loop closure found wrong is set aside, not removed). */
double tycho_pose_graph_edge_chi2(const tycho_pose_graph *g, int k);
void tycho_pose_graph_set_edge_active(tycho_pose_graph *g, int k, bool active);
bool tycho_pose_graph_edge_active(const tycho_pose_graph *g, int k);

int tycho_pose_graph_nodes(const tycho_pose_graph *g);
int tycho_pose_graph_edges(const tycho_pose_graph *g);
tycho_pose2 tycho_pose_graph_node(const tycho_pose_graph *g, int i);
void tycho_pose_graph_set_node(tycho_pose_graph *g, int i, tycho_pose2 pose);

/* Runs up to max_iterations Gauss-Newton steps (stops when no node moves
 * more than 1e-5 m / rad). Fails on out of memory or a singular system
 * (a node with no edge to the rest). */
tycho_status tycho_pose_graph_optimize(tycho_pose_graph *g, int max_iterations,
                                       tycho_graph_result *out, tycho_err *err);

/* Pose algebra: a (+) b, and the b with a (+) b = c. */
tycho_pose2 tycho_pose2_compose(tycho_pose2 a, tycho_pose2 b);
tycho_pose2 tycho_pose2_between(tycho_pose2 a, tycho_pose2 c);

#endif
