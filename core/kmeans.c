/* k-means++ / Lloyd clustering of 2D points (see kmeans.h). */
#include "tycho/kmeans.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct tycho_kmeans {
    int cap_n, cap_k;
    /* kept result */
    int k, iters;
    double inertia;
    bool converged, satisfied;
    double *cent, *radii;
    int *assign, *counts;
    /* one run's scratch */
    double *r_cent, *r_sums, *d2;
    int *r_assign, *r_counts;
};

void tycho_kmeans_defaults(tycho_kmeans_params *p)
{
    p->seed = 1;
    p->max_iter = 100;
    p->n_init = 4;
}

tycho_kmeans *tycho_kmeans_new(tycho_err *err)
{
    tycho_kmeans *km = calloc(1, sizeof *km);
    if (!km) tycho_fail(err, TYCHO_ENOMEM, "kmeans: out of memory");
    return km;
}

static void free_arrays(tycho_kmeans *km)
{
    free(km->cent);
    free(km->radii);
    free(km->assign);
    free(km->counts);
    free(km->r_cent);
    free(km->r_sums);
    free(km->d2);
    free(km->r_assign);
    free(km->r_counts);
}

void tycho_kmeans_free(tycho_kmeans *km)
{
    if (!km) return;
    free_arrays(km);
    free(km);
}

static bool grow(void **p, size_t bytes)
{
    void *q = realloc(*p, bytes ? bytes : 1);
    if (!q) return false;
    *p = q;
    return true;
}

static tycho_status reserve(tycho_kmeans *km, int n, int k, tycho_err *err)
{
    if (n > km->cap_n) {
        size_t sn = (size_t)n;
        if (!grow((void **)&km->assign, sn * sizeof(int)) ||
            !grow((void **)&km->r_assign, sn * sizeof(int)) ||
            !grow((void **)&km->d2, sn * sizeof(double)))
            return tycho_fail(err, TYCHO_ENOMEM, "kmeans: out of memory for %d points", n);
        km->cap_n = n;
    }
    if (k > km->cap_k) {
        size_t sk = (size_t)k;
        if (!grow((void **)&km->cent, 2 * sk * sizeof(double)) ||
            !grow((void **)&km->r_cent, 2 * sk * sizeof(double)) ||
            !grow((void **)&km->r_sums, 2 * sk * sizeof(double)) ||
            !grow((void **)&km->radii, sk * sizeof(double)) ||
            !grow((void **)&km->counts, sk * sizeof(int)) ||
            !grow((void **)&km->r_counts, sk * sizeof(int)))
            return tycho_fail(err, TYCHO_ENOMEM, "kmeans: out of memory for %d clusters", k);
        km->cap_k = k;
    }
    return TYCHO_OK;
}

/* splitmix64: tiny, fast, and good enough to pick seeds. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s) /* [0, 1) */ { return (double)(rng_next(s) >> 11) * 0x1p-53; }

static double dist2(const double *a, const double *b)
{
    double dx = a[0] - b[0], dy = a[1] - b[1];
    return dx * dx + dy * dy;
}

/* k-means++ seeding into r_cent; returns the number of centres placed,
 * fewer than k when every point already sits on a centre. */
static int seed_centres(tycho_kmeans *km, const double *xy, int n, int k, uint64_t *rng)
{
    int first = (int)(rng_unit(rng) * n);
    if (first >= n) first = n - 1;
    km->r_cent[0] = xy[2 * first];
    km->r_cent[1] = xy[2 * first + 1];
    for (int i = 0; i < n; i++) km->d2[i] = dist2(xy + 2 * i, km->r_cent);
    int c = 1;
    for (; c < k; c++) {
        double total = 0;
        for (int i = 0; i < n; i++) total += km->d2[i];
        if (!(total > 0)) break;
        double r = rng_unit(rng) * total, acc = 0;
        int pick = -1;
        for (int i = 0; i < n; i++) {
            if (km->d2[i] <= 0) continue;
            pick = i; /* the last positive one, if rounding leaves r unreached */
            acc += km->d2[i];
            if (acc > r) break;
        }
        double *ce = km->r_cent + 2 * c;
        ce[0] = xy[2 * pick];
        ce[1] = xy[2 * pick + 1];
        for (int i = 0; i < n; i++) {
            double d = dist2(xy + 2 * i, ce);
            if (d < km->d2[i]) km->d2[i] = d;
        }
    }
    return c;
}

/* Nearest centre for every point (ties: lower index); returns how many
 * assignments changed. d2 gets each point's squared distance. */
static int assign_all(tycho_kmeans *km, const double *xy, int n, int k)
{
    int changed = 0;
    for (int i = 0; i < n; i++) {
        const double *p = xy + 2 * i;
        int best = 0;
        double bd = dist2(p, km->r_cent);
        for (int c = 1; c < k; c++) {
            double d = dist2(p, km->r_cent + 2 * c);
            if (d < bd) {
                bd = d;
                best = c;
            }
        }
        if (km->r_assign[i] != best) changed++;
        km->r_assign[i] = best;
        km->d2[i] = bd;
    }
    return changed;
}

/* Returns true when an empty cluster was re-seeded (the centroids then are
 * not yet the means of their members). */
static bool update_centroids(tycho_kmeans *km, const double *xy, int n, int k)
{
    bool reseeded = false;
    memset(km->r_sums, 0, sizeof(double) * 2 * (size_t)k);
    memset(km->r_counts, 0, sizeof(int) * (size_t)k);
    for (int i = 0; i < n; i++) {
        int c = km->r_assign[i];
        km->r_sums[2 * c] += xy[2 * i];
        km->r_sums[2 * c + 1] += xy[2 * i + 1];
        km->r_counts[c]++;
    }
    for (int c = 0; c < k; c++) {
        if (km->r_counts[c] > 0) {
            km->r_cent[2 * c] = km->r_sums[2 * c] / km->r_counts[c];
            km->r_cent[2 * c + 1] = km->r_sums[2 * c + 1] / km->r_counts[c];
            continue;
        }
        /* empty: take the worst-fitting point of a cluster that can spare it */
        int far = -1;
        double fd = 0;
        for (int i = 0; i < n; i++)
            if (km->r_counts[km->r_assign[i]] > 1 && km->d2[i] > fd) {
                fd = km->d2[i];
                far = i;
            }
        if (far < 0) continue;
        km->r_counts[km->r_assign[far]]--;
        km->r_counts[c] = 1;
        km->r_assign[far] = c;
        km->d2[far] = 0;
        km->r_cent[2 * c] = xy[2 * far];
        km->r_cent[2 * c + 1] = xy[2 * far + 1];
        reseeded = true;
    }
    return reseeded;
}

/* One seeded run; returns the number of clusters and fills the run arrays. */
static int run_once(tycho_kmeans *km, const double *xy, int n, int k, int max_iter, uint64_t *rng,
                    int *iters, bool *converged)
{
    int kk = seed_centres(km, xy, n, k, rng);
    for (int i = 0; i < n; i++) km->r_assign[i] = -1;
    assign_all(km, xy, n, kk);
    *iters = 0;
    *converged = false;
    while (*iters < max_iter) {
        bool reseeded = update_centroids(km, xy, n, kk);
        ++*iters;
        if (assign_all(km, xy, n, kk) == 0 && !reseeded) {
            *converged = true;
            break;
        }
    }
    return kk;
}

static tycho_status check_input(const double *xy, int n, const tycho_kmeans_params *p,
                                tycho_err *err)
{
    if (n < 1 || !xy) return tycho_fail(err, TYCHO_EINVAL, "kmeans: no points");
    for (int i = 0; i < 2 * n; i++)
        if (!isfinite(xy[i]))
            return tycho_fail(err, TYCHO_EINVAL, "kmeans: point %d is not finite", i / 2 + 1);
    if (p->max_iter < 1) return tycho_fail(err, TYCHO_EINVAL, "kmeans: max_iter must be >= 1");
    if (p->n_init < 1) return tycho_fail(err, TYCHO_EINVAL, "kmeans: n_init must be >= 1");
    return TYCHO_OK;
}

static void fit_k(tycho_kmeans *km, const double *xy, int n, int k, const tycho_kmeans_params *p)
{
    uint64_t rng = p->seed;
    km->inertia = INFINITY;
    for (int r = 0; r < p->n_init; r++) {
        int iters;
        bool conv;
        int kk = run_once(km, xy, n, k, p->max_iter, &rng, &iters, &conv);
        double inertia = 0;
        for (int i = 0; i < n; i++) inertia += km->d2[i];
        if (!(inertia < km->inertia)) continue; /* ties keep the earlier run */
        km->inertia = inertia;
        km->k = kk;
        km->iters = iters;
        km->converged = conv;
        memcpy(km->cent, km->r_cent, sizeof(double) * 2 * (size_t)kk);
        memcpy(km->assign, km->r_assign, sizeof(int) * (size_t)n);
        if (inertia == 0) break; /* cannot do better */
    }
    memset(km->counts, 0, sizeof(int) * (size_t)km->k);
    for (int c = 0; c < km->k; c++) km->radii[c] = 0;
    for (int i = 0; i < n; i++) {
        int c = km->assign[i];
        km->counts[c]++;
        double d = sqrt(dist2(xy + 2 * i, km->cent + 2 * c));
        if (d > km->radii[c]) km->radii[c] = d;
    }
}

tycho_status tycho_kmeans_fit(tycho_kmeans *km, const double *xy, int n, int k,
                              const tycho_kmeans_params *p, tycho_err *err)
{
    tycho_kmeans_params d;
    if (!p) {
        tycho_kmeans_defaults(&d);
        p = &d;
    }
    if (k < 1) return tycho_fail(err, TYCHO_EINVAL, "kmeans: k must be >= 1 (got %d)", k);
    tycho_status st = check_input(xy, n, p, err);
    if (st != TYCHO_OK) return st;
    if (k > n) k = n;
    if ((st = reserve(km, n, k, err)) != TYCHO_OK) return st;
    fit_k(km, xy, n, k, p);
    km->satisfied = true;
    return TYCHO_OK;
}

tycho_status tycho_kmeans_fit_auto(tycho_kmeans *km, const double *xy, int n, int k_max,
                                   double radius, const tycho_kmeans_params *p, tycho_err *err)
{
    tycho_kmeans_params d;
    if (!p) {
        tycho_kmeans_defaults(&d);
        p = &d;
    }
    if (k_max < 1)
        return tycho_fail(err, TYCHO_EINVAL, "kmeans: k_max must be >= 1 (got %d)", k_max);
    if (!(radius >= 0) || isinf(radius))
        return tycho_fail(err, TYCHO_EINVAL, "kmeans: radius must be >= 0 and finite");
    tycho_status st = check_input(xy, n, p, err);
    if (st != TYCHO_OK) return st;
    if (k_max > n) k_max = n;
    if ((st = reserve(km, n, k_max, err)) != TYCHO_OK) return st;
    for (int k = 1; k <= k_max; k++) {
        fit_k(km, xy, n, k, p);
        double worst = 0;
        for (int c = 0; c < km->k; c++) worst = fmax(worst, km->radii[c]);
        km->satisfied = worst <= radius;
        /* fewer clusters than asked: the points ran out, more k cannot help */
        if (km->satisfied || km->k < k) break;
    }
    return TYCHO_OK;
}

int tycho_kmeans_k(const tycho_kmeans *km) { return km->k; }
const double *tycho_kmeans_centroids(const tycho_kmeans *km) { return km->cent; }
const int *tycho_kmeans_assignments(const tycho_kmeans *km) { return km->assign; }
const int *tycho_kmeans_counts(const tycho_kmeans *km) { return km->counts; }
const double *tycho_kmeans_radii(const tycho_kmeans *km) { return km->radii; }
double tycho_kmeans_inertia(const tycho_kmeans *km) { return km->inertia; }
int tycho_kmeans_iterations(const tycho_kmeans *km) { return km->iters; }
bool tycho_kmeans_converged(const tycho_kmeans *km) { return km->converged; }
bool tycho_kmeans_satisfied(const tycho_kmeans *km) { return km->satisfied; }
