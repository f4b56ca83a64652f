/* k-means: recovery of known blobs, choosing k, determinism, degenerate input. */
#include "check.h"
#include "tycho/kmeans.h"

#include <math.h>
#include <string.h>

static uint64_t lcg = 12345;
static double urand(void)
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return ((lcg >> 11) + 0.5) * 0x1p-53;
}
static double gauss(void) { return sqrt(-2 * log(urand())) * cos(2 * M_PI * urand()); }

/* n points per centre, sigma noise, in centre order */
static int blobs(double *xy, const double *centres, int nc, int per, double sigma)
{
    int n = 0;
    for (int c = 0; c < nc; c++)
        for (int i = 0; i < per; i++, n++) {
            xy[2 * n] = centres[2 * c] + sigma * gauss();
            xy[2 * n + 1] = centres[2 * c + 1] + sigma * gauss();
        }
    return n;
}

static int nearest(const double *cent, int k, double x, double y)
{
    int b = 0;
    for (int c = 1; c < k; c++)
        if (hypot(cent[2 * c] - x, cent[2 * c + 1] - y) <
            hypot(cent[2 * b] - x, cent[2 * b + 1] - y))
            b = c;
    return b;
}

static void test_blobs(void)
{
    double centres[] = {0, 0, 3, 0, 0, 3, 3.5, 3.2, -2, 6};
    double xy[2 * 250];
    int n = blobs(xy, centres, 5, 50, 0.2);
    tycho_kmeans *km = tycho_kmeans_new(NULL);
    tycho_err err = {0};
    CHECK(tycho_kmeans_fit(km, xy, n, 5, NULL, &err) == TYCHO_OK);
    CHECK(tycho_kmeans_k(km) == 5);
    CHECK(tycho_kmeans_converged(km));
    const double *cent = tycho_kmeans_centroids(km);
    const int *as = tycho_kmeans_assignments(km);
    const int *cnt = tycho_kmeans_counts(km);
    /* each true centre has its own recovered centroid, within 0.1 m */
    int used = 0;
    for (int c = 0; c < 5; c++) {
        int j = nearest(cent, 5, centres[2 * c], centres[2 * c + 1]);
        used |= 1 << j;
        CHECK_NEAR(cent[2 * j], centres[2 * c], 0.1);
        CHECK_NEAR(cent[2 * j + 1], centres[2 * c + 1], 0.1);
        CHECK(cnt[j] == 50);
        /* every member of blob c went to cluster j */
        int bad = 0;
        for (int i = 50 * c; i < 50 * (c + 1); i++) bad += as[i] != j;
        CHECK(bad == 0);
    }
    CHECK(used == 31);
    /* inertia is the sum of squared distances, and converged centroids are
     * their members' means */
    double inertia = 0, sx[5] = {0}, sy[5] = {0};
    for (int i = 0; i < n; i++) {
        double dx = xy[2 * i] - cent[2 * as[i]], dy = xy[2 * i + 1] - cent[2 * as[i] + 1];
        inertia += dx * dx + dy * dy;
        sx[as[i]] += xy[2 * i];
        sy[as[i]] += xy[2 * i + 1];
    }
    CHECK_NEAR(tycho_kmeans_inertia(km), inertia, 1e-9);
    CHECK_NEAR(inertia / n, 2 * 0.04, 0.02); /* ~2 sigma^2 per point */
    for (int c = 0; c < 5; c++) {
        CHECK_NEAR(cent[2 * c], sx[c] / cnt[c], 1e-12);
        CHECK_NEAR(cent[2 * c + 1], sy[c] / cnt[c], 1e-12);
    }
    const double *rad = tycho_kmeans_radii(km);
    for (int c = 0; c < 5; c++) CHECK(rad[c] > 0.2 && rad[c] < 1.0);

    /* deterministic: same seed, bit-identical; workspace reuse in between */
    double save_c[10];
    int save_a[250];
    memcpy(save_c, cent, sizeof save_c);
    memcpy(save_a, as, sizeof save_a);
    double inertia0 = tycho_kmeans_inertia(km);
    double small[] = {0, 0, 1, 1};
    CHECK(tycho_kmeans_fit(km, small, 2, 2, NULL, &err) == TYCHO_OK);
    CHECK(tycho_kmeans_fit(km, xy, n, 5, NULL, &err) == TYCHO_OK);
    CHECK(memcmp(save_c, tycho_kmeans_centroids(km), sizeof save_c) == 0);
    CHECK(memcmp(save_a, tycho_kmeans_assignments(km), sizeof save_a) == 0);
    CHECK(tycho_kmeans_inertia(km) == inertia0);
    /* other seeds, one run each, still find the same partition here */
    tycho_kmeans_params p;
    tycho_kmeans_defaults(&p);
    p.n_init = 1;
    int agree = 0;
    for (uint64_t s = 2; s < 12; s++) {
        p.seed = s;
        CHECK(tycho_kmeans_fit(km, xy, n, 5, &p, &err) == TYCHO_OK);
        agree += fabs(tycho_kmeans_inertia(km) - inertia0) < 1e-9;
    }
    CHECK_MSG(agree >= 8, "%d of 10 single runs found the best partition", agree);
    tycho_kmeans_free(km);
}

static void test_auto_k(void)
{
    double centres[] = {1, 1, 4, 1, 2.5, 4};
    double xy[2 * 120];
    int n = blobs(xy, centres, 3, 40, 0.15);
    tycho_kmeans *km = tycho_kmeans_new(NULL);
    tycho_err err = {0};
    CHECK(tycho_kmeans_fit_auto(km, xy, n, 8, 0.8, NULL, &err) == TYCHO_OK);
    CHECK(tycho_kmeans_k(km) == 3);
    CHECK(tycho_kmeans_satisfied(km));
    for (int c = 0; c < 3; c++) CHECK(tycho_kmeans_radii(km)[c] <= 0.8);
    /* the chosen k's result is exactly the fixed-k fit with the same seed */
    double c3[6];
    memcpy(c3, tycho_kmeans_centroids(km), sizeof c3);
    CHECK(tycho_kmeans_fit(km, xy, n, 3, NULL, &err) == TYCHO_OK);
    CHECK(memcmp(c3, tycho_kmeans_centroids(km), sizeof c3) == 0);
    /* one blob -> k = 1 */
    CHECK(tycho_kmeans_fit_auto(km, xy, 40, 8, 0.8, NULL, &err) == TYCHO_OK);
    CHECK(tycho_kmeans_k(km) == 1);
    CHECK_NEAR(tycho_kmeans_centroids(km)[0], 1, 0.1);
    /* a radius nothing meets: k_max, unsatisfied */
    CHECK(tycho_kmeans_fit_auto(km, xy, n, 4, 0.01, NULL, &err) == TYCHO_OK);
    CHECK(tycho_kmeans_k(km) == 4);
    CHECK(!tycho_kmeans_satisfied(km));
    tycho_kmeans_free(km);
}

static void test_degenerate(void)
{
    tycho_kmeans *km = tycho_kmeans_new(NULL);
    tycho_err err = {0};
    double three[] = {0, 0, 1, 0, 0, 2};
    /* fewer points than k: one cluster per point */
    CHECK(tycho_kmeans_fit(km, three, 3, 5, NULL, &err) == TYCHO_OK);
    CHECK(tycho_kmeans_k(km) == 3);
    CHECK(tycho_kmeans_inertia(km) == 0);
    const int *as = tycho_kmeans_assignments(km);
    CHECK(as[0] != as[1] && as[1] != as[2] && as[0] != as[2]);
    /* identical points: a single cluster whatever k */
    double same[20];
    for (int i = 0; i < 10; i++) same[2 * i] = 1.5, same[2 * i + 1] = -2;
    CHECK(tycho_kmeans_fit(km, same, 10, 3, NULL, &err) == TYCHO_OK);
    CHECK(tycho_kmeans_k(km) == 1);
    CHECK(tycho_kmeans_counts(km)[0] == 10);
    CHECK(tycho_kmeans_centroids(km)[0] == 1.5 && tycho_kmeans_centroids(km)[1] == -2);
    CHECK(tycho_kmeans_radii(km)[0] == 0);
    CHECK(tycho_kmeans_fit_auto(km, same, 10, 5, 0.0, NULL, &err) == TYCHO_OK);
    CHECK(tycho_kmeans_k(km) == 1 && tycho_kmeans_satisfied(km));
    /* two distinct places, repeated: k = 2 even when asking for 4 */
    double two[16];
    for (int i = 0; i < 8; i++) two[2 * i] = (i & 1) ? 5 : 0, two[2 * i + 1] = 0;
    CHECK(tycho_kmeans_fit(km, two, 8, 4, NULL, &err) == TYCHO_OK);
    CHECK(tycho_kmeans_k(km) == 2);
    CHECK(tycho_kmeans_counts(km)[0] == 4 && tycho_kmeans_counts(km)[1] == 4);
    /* a single point */
    CHECK(tycho_kmeans_fit(km, three, 1, 1, NULL, &err) == TYCHO_OK);
    CHECK(tycho_kmeans_k(km) == 1 && tycho_kmeans_iterations(km) >= 1);

    CHECK(tycho_kmeans_fit(km, three, 3, 0, NULL, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "k must be") != NULL);
    CHECK(tycho_kmeans_fit(km, three, 0, 1, NULL, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "no points") != NULL);
    double bad[] = {0, 0, NAN, 1};
    CHECK(tycho_kmeans_fit(km, bad, 2, 1, NULL, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "point 2") != NULL);
    CHECK(tycho_kmeans_fit_auto(km, three, 3, 0, 1.0, NULL, &err) == TYCHO_EINVAL);
    CHECK(tycho_kmeans_fit_auto(km, three, 3, 2, -1.0, NULL, &err) == TYCHO_EINVAL);
    CHECK(tycho_kmeans_fit_auto(km, three, 3, 2, NAN, NULL, &err) == TYCHO_EINVAL);
    tycho_kmeans_params p;
    tycho_kmeans_defaults(&p);
    p.max_iter = 0;
    CHECK(tycho_kmeans_fit(km, three, 3, 1, &p, &err) == TYCHO_EINVAL);
    /* a capped run reports it did not converge */
    double centres[] = {0, 0, 1, 0, 2, 0, 3, 0};
    double xy[2 * 400];
    int n = blobs(xy, centres, 4, 100, 0.6); /* heavily overlapping */
    p.max_iter = 1;
    p.n_init = 1;
    CHECK(tycho_kmeans_fit(km, xy, n, 4, &p, &err) == TYCHO_OK);
    CHECK(tycho_kmeans_iterations(km) == 1 && !tycho_kmeans_converged(km));
    tycho_kmeans_free(km);
}

int main(void)
{
    test_blobs();
    test_auto_k();
    test_degenerate();
    return check_summary("test_kmeans");
}
