/* Road roughness and parametric obstacles (core/roughness.c): the surface's
 * variance against the spectrum's integral, reproducibility, the blur, ISO
 * classes, and each obstacle's shape. */
#include "check.h"
#include "tycho/roughness.h"

#include <math.h>
#include <string.h>

static double variance(const tycho_heightfield *f)
{
    double s = 0, s2 = 0;
    size_t n = (size_t)f->w * f->h;
    for (size_t i = 0; i < n; i++) s += f->z[i], s2 += (double)f->z[i] * f->z[i];
    double m = s / n;
    return s2 / n - m * m;
}

static void test_variance(void)
{
    /* 40 m square at 0.1 m: bands over [0.05, 5] 1/m (wavelengths 20 m .. 0.2 m) */
    tycho_roughness_params p;
    tycho_roughness_defaults(&p);
    p.n_min = 0.05;
    p.n_max = 5;
    double want = tycho_roughness_variance(&p);
    /* Gd(n0) n0^2 (1/n_min - 1/n_max) for W = 2 */
    CHECK(fabs(want - 256e-6 * 0.01 * (1 / 0.05 - 1 / 5.0)) < 1e-12);
    double worst = 0;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        tycho_heightfield *f = tycho_heightfield_new(400, 400, 0.1, 0, 0, NULL);
        p.seed = seed;
        CHECK(tycho_roughness_apply(f, &p, NULL) == TYCHO_OK);
        double got = variance(f);
        worst = fmax(worst, fabs(got / want - 1));
        tycho_heightfield_free(f);
    }
    /* Tolerance 15 %: each row and column has its own phases, so 800
     * independent profiles average the sampling error of a single one;
     * what remains is the longest waves (20 m over a 40 m field: only two
     * periods each), whose sample variance still moves by ~10 %. */
    CHECK_MSG(worst < 0.15, "variance off the spectrum's integral by %.1f %%", worst * 100);
}

static void test_seed_blur_class(void)
{
    tycho_roughness_params p;
    tycho_roughness_defaults(&p);
    tycho_heightfield *a = tycho_heightfield_new(100, 100, 0.1, 0, 0, NULL),
                      *b = tycho_heightfield_new(100, 100, 0.1, 0, 0, NULL);
    tycho_roughness_apply(a, &p, NULL);
    tycho_roughness_apply(b, &p, NULL);
    CHECK(memcmp(a->z, b->z, sizeof(float) * 100 * 100) == 0); /* same seed, same ground */
    double raw = variance(a);
    tycho_heightfield *c = tycho_heightfield_new(100, 100, 0.1, 0, 0, NULL);
    p.blur_sigma = 0.3;
    tycho_roughness_apply(c, &p, NULL);
    CHECK(variance(c) < 0.8 * raw); /* smoothing takes the short waves out */
    double gd;
    CHECK(tycho_roughness_class('A', &gd, NULL) == TYCHO_OK && fabs(gd - 16e-6) < 1e-15);
    CHECK(tycho_roughness_class('C', &gd, NULL) == TYCHO_OK && fabs(gd - 256e-6) < 1e-15);
    tycho_err err = {0};
    CHECK(tycho_roughness_class('Z', &gd, &err) == TYCHO_EINVAL && strstr(err.msg, "A..H"));
    p.bands = 0;
    CHECK(tycho_roughness_apply(c, &p, &err) == TYCHO_EINVAL);
    tycho_heightfield_free(a);
    tycho_heightfield_free(b);
    tycho_heightfield_free(c);
}

static void test_obstacles(void)
{
    tycho_heightfield *f = tycho_heightfield_new(200, 100, 0.1, 0, 0, NULL); /* 20 x 10 m */
    tycho_ground_stairs(f, 2, 2, 8, 4, 0.5, 0.1); /* x 2..4: 0.1, 0.2, 0.3, 0.4 */
    CHECK(fabsf(tycho_heightfield_at(f, 2.25, 5) - 0.1f) < 1e-6 &&
          fabsf(tycho_heightfield_at(f, 3.85, 5) - 0.4f) < 1e-6);
    CHECK(tycho_heightfield_at(f, 1.95, 5) == 0 && tycho_heightfield_at(f, 4.05, 5) == 0);
    tycho_ground_prisms(f, 6, 2, 8, 8, 1.0, 0.2); /* ridges at x = 6.5, 7.5 */
    CHECK(fabsf(tycho_heightfield_at(f, 6.45, 5) - 0.18f) < 1e-5 &&
          tycho_heightfield_at(f, 6.05, 5) < 0.03f);
    tycho_ground_bump(f, 10, 2, 8, 0.3, 0.05);
    CHECK(fabsf(tycho_heightfield_at(f, 10.05, 5) - (0.05f + sqrtf(0.09f - 0.0025f))) < 1e-5);
    tycho_ground_bell(f, 14, 5, 1.0, -0.3); /* a pit */
    tycho_ground_bell(f, 17, 5, 1.0, 0.4);  /* a mound */
    CHECK(tycho_heightfield_at(f, 14.05, 5.05) < -0.29f &&
          tycho_heightfield_at(f, 17.05, 5.05) > 0.39f);
    CHECK(tycho_heightfield_at(f, 15.2, 5.05) == 0); /* outside the pit */
    tycho_ground_gravel(f, 0, 8.5, 20, 10, 50, 0.1, 0.05, 3);
    int stones = 0;
    for (int cx = 0; cx < 200; cx++) stones += tycho_heightfield_at(f, cx * 0.1 + 0.05, 9.25) > 0;
    CHECK(stones > 0 && f->zmax >= 0.4f);
    tycho_heightfield_free(f);
}

int main(void)
{
    test_variance();
    test_seed_blur_class();
    test_obstacles();
    return check_summary("roughness");
}
