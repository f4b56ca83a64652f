/* k-means clustering of 2D points (e.g. heat detections -> target
 * positions): k-means++ seeding from a seeded PRNG, Lloyd iterations to
 * convergence, best of n_init runs; plus choosing k from the data.
 *
 * Determinism: the same points, parameters and seed give bit-identical
 * results on the same platform. Assignment ties go to the lower cluster
 * index.
 *
 * Degenerate input: k > number of points, or many identical points, gives
 * fewer clusters than asked: seeding stops when every point already
 * coincides with a centre (there is nothing left to split), so the result
 * has min(k, distinct points) clusters (see tycho_kmeans_k). A cluster that
 * empties during Lloyd iterations is re-seeded with the point farthest from
 * its centroid. n == 0, k < 1 or a non-finite coordinate is EINVAL.
 *
 * Choosing k (tycho_kmeans_fit_auto): the smallest k in 1..k_max for which
 * every cluster's radius (largest member-to-centroid distance) is <= radius;
 * if none qualifies the k_max result is kept and tycho_kmeans_satisfied()
 * is false. A radius is a physical statement ("one heat source spreads its
 * detections over at most 0.5 m"), easier to set in the field than a
 * silhouette threshold, and it gives k = 1 for a single blob, which
 * silhouette cannot. */
#ifndef TYCHO_KMEANS_H
#define TYCHO_KMEANS_H

#include "tycho/common.h"

typedef struct {
    uint64_t seed; /* PRNG seed, default 1 */
    int max_iter;  /* Lloyd iterations per run, default 100 */
    int n_init;    /* runs with different seeding, best inertia kept; default 4 */
} tycho_kmeans_params;

typedef struct tycho_kmeans tycho_kmeans;

void tycho_kmeans_defaults(tycho_kmeans_params *p);

/* A reusable workspace; it grows to the largest problem seen. */
tycho_kmeans *tycho_kmeans_new(tycho_err *err);
void tycho_kmeans_free(tycho_kmeans *km);

/* Clusters xy[0..2n) (x0,y0,x1,y1,...) into (at most) k clusters.
 * NULL params = defaults. */
tycho_status tycho_kmeans_fit(tycho_kmeans *km, const double *xy, int n, int k,
                              const tycho_kmeans_params *p, tycho_err *err);
/* k chosen from the data (see above); radius >= 0, k_max >= 1. */
tycho_status tycho_kmeans_fit_auto(tycho_kmeans *km, const double *xy, int n, int k_max,
                                   double radius, const tycho_kmeans_params *p, tycho_err *err);

/* Results of the last successful fit; valid until the next fit. */
int tycho_kmeans_k(const tycho_kmeans *km);                   /* clusters found */
const double *tycho_kmeans_centroids(const tycho_kmeans *km); /* 2*k: x0,y0,... */
const int *tycho_kmeans_assignments(const tycho_kmeans *km);  /* n, 0-based cluster */
const int *tycho_kmeans_counts(const tycho_kmeans *km);       /* k members each */
const double *tycho_kmeans_radii(const tycho_kmeans *km);     /* k, max member distance */
double tycho_kmeans_inertia(const tycho_kmeans *km);          /* sum of squared distances */
int tycho_kmeans_iterations(const tycho_kmeans *km);          /* Lloyd iterations of the kept run */
bool tycho_kmeans_converged(const tycho_kmeans *km);          /* assignments stopped changing */
bool tycho_kmeans_satisfied(const tycho_kmeans *km);          /* fit_auto met the radius */

#endif
