/* Distance transform and Nav2 inflation against brute force. */
#include "check.h"
#include "tycho/edt.h"
#include "tycho/inflation.h"

#include <stdint.h>
#include <string.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}
static double rnd01(void) { return rnd() / 2097152.0 / 1024.0; } /* [0, 1) */

/* Brute force squared distance from (x, y) to the nearest site, or -1. */
static int64_t brute_d2(const uint8_t *c, int w, int h, const uint8_t sites[256], int x, int y)
{
    int64_t best = -1;
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++)
            if (sites[c[(size_t)j * w + i]]) {
                int64_t d = (int64_t)(i - x) * (i - x) + (int64_t)(j - y) * (j - y);
                if (best < 0 || d < best) best = d;
            }
    return best;
}

static void random_cells(uint8_t *c, int n, double density)
{
    static const uint8_t others[] = {0, 0, 0, 0, 0, 17, 100, 200, 252, 253, 255, 255};
    for (int i = 0; i < n; i++)
        c[i] = rnd01() < density ? TYCHO_COST_LETHAL : others[rnd() % sizeof others];
}

static void test_edt_brute(void)
{
    static const int sizes[][2] = {{1, 1}, {1, 17}, {23, 1}, {7, 5}, {37, 23}, {64, 64}, {90, 41}};
    static const double dens[] = {0.0, 0.002, 0.02, 0.1, 0.5, 1.0};
    static const int bounds[] = {0, 1, 3, 10};
    tycho_edt *e = tycho_edt_new();
    uint8_t sites[256];
    tycho_edt_sites_range(sites, 254, 254);
    int bad = 0, cases = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (size_t di = 0; di < sizeof dens / sizeof *dens; di++)
            for (size_t bi = 0; bi < sizeof bounds / sizeof *bounds; bi++) {
                int w = sizes[si][0], h = sizes[si][1], md = bounds[bi];
                uint8_t *c = malloc((size_t)w * h);
                int32_t *out = malloc((size_t)w * h * sizeof *out);
                random_cells(c, w * h, dens[di]);
                CHECK(tycho_edt_compute(e, c, w, h, sites, md, out, NULL) == TYCHO_OK);
                int64_t lim = md > 0 ? (int64_t)md * md : INT64_MAX;
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        int64_t b = brute_d2(c, w, h, sites, x, y);
                        int64_t want = (b < 0 || b > lim) ? TYCHO_EDT_FAR : b;
                        if (out[(size_t)y * w + x] != want) {
                            if (bad < 5)
                                fprintf(stderr,
                                        "edt %dx%d dens %.3f max %d at (%d,%d): %d want %lld\n", w,
                                        h, dens[di], md, x, y, out[(size_t)y * w + x],
                                        (long long)want);
                            bad++;
                        }
                    }
                cases++;
                free(c);
                free(out);
            }
    CHECK_MSG(bad == 0, "%d wrong distances over %d grids", bad, cases);

    /* a site table with a range (costs >= 200) */
    uint8_t c[] = {0, 200, 0, 0, 0, 0, 199, 255, 0};
    int32_t out[9];
    tycho_edt_sites_range(sites, 200, 255);
    CHECK(tycho_edt_compute(e, c, 9, 1, sites, 0, out, NULL) == TYCHO_OK);
    int32_t want[] = {1, 0, 1, 4, 9, 4, 1, 0, 1};
    CHECK(memcmp(out, want, sizeof want) == 0);
    CHECK(tycho_edt_compute(e, c, 0, 1, sites, 0, out, NULL) == TYCHO_EINVAL);
    tycho_edt_free(e);
}

/* Nav2's rules written out independently of the implementation. */
static uint8_t nav2_cost(double d, double res, const tycho_inflation_params *p)
{
    if (d == 0) return 254;
    if (d * res <= p->inscribed_radius) return 253;
    return (uint8_t)(252 * exp(-1.0 * p->cost_scaling_factor * (d * res - p->inscribed_radius)));
}

static void brute_inflate(const uint8_t *src, uint8_t *dst, int w, int h, double res,
                          const tycho_inflation_params *p)
{
    uint8_t sites[256];
    memset(sites, 0, sizeof sites);
    sites[254] = 1;
    if (p->inflate_around_unknown) sites[255] = 1;
    double cr = ceil(p->inflation_radius / res);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            dst[i] = src[i];
            if (cr <= 0) continue;
            int64_t d2 = brute_d2(src, w, h, sites, x, y);
            if (d2 < 0) continue;
            double d = sqrt((double)d2);
            if (d > cr) continue;
            uint8_t cost = nav2_cost(d, res, p), old = src[i];
            if (old == 255 && (p->inflate_unknown ? cost > 0 : cost >= 253)) dst[i] = cost;
            else dst[i] = old > cost ? old : cost;
        }
}

static void test_inflation_brute(void)
{
    static const double res_v[] = {0.05, 0.1, 0.025};
    static const double ins_v[] = {0.0, 0.1, 0.17};
    static const double rad_v[] = {0.0, 0.05, 0.3, 0.55, 1.0};
    static const double csf_v[] = {0.0, 1.0, 3.0, 10.0, 50.0};
    static const double dens[] = {0.0, 0.01, 0.05, 0.3};
    tycho_inflation *ws = tycho_inflation_new();
    int bad = 0, cases = 0;
    for (int it = 0; it < 160; it++) {
        int w = 1 + (int)(rnd() % 60), h = 1 + (int)(rnd() % 45);
        tycho_inflation_params p;
        tycho_inflation_defaults(&p);
        double res = res_v[rnd() % 3];
        p.inscribed_radius = ins_v[rnd() % 3];
        p.inflation_radius = rad_v[rnd() % 5];
        p.cost_scaling_factor = csf_v[rnd() % 5];
        p.inflate_unknown = rnd() & 1;
        p.inflate_around_unknown = (rnd() % 4) == 0;
        size_t n = (size_t)w * h;
        uint8_t *src = malloc(n), *dst = malloc(n), *want = malloc(n), *inplace = malloc(n);
        random_cells(src, (int)n, dens[rnd() % 4]);
        brute_inflate(src, want, w, h, res, &p);
        CHECK(tycho_inflate_cells(ws, src, dst, w, h, res, &p, NULL) == TYCHO_OK);
        memcpy(inplace, src, n);
        CHECK(tycho_inflate_cells(ws, inplace, inplace, w, h, res, &p, NULL) == TYCHO_OK);
        for (size_t i = 0; i < n; i++)
            if (dst[i] != want[i] || inplace[i] != want[i]) {
                if (bad < 5)
                    fprintf(
                        stderr,
                        "inflate %dx%d res %.3f ins %.2f rad %.2f csf %.1f iu %d iau %d cell %zu: "
                        "src %d got %d/%d want %d\n",
                        w, h, res, p.inscribed_radius, p.inflation_radius, p.cost_scaling_factor,
                        p.inflate_unknown, p.inflate_around_unknown, i, src[i], dst[i], inplace[i],
                        want[i]);
                bad++;
            }
        cases++;
        free(src);
        free(dst);
        free(want);
        free(inplace);
    }
    CHECK_MSG(bad == 0, "%d wrong cells over %d grids", bad, cases);
    tycho_inflation_free(ws);
}

static void test_hand_cases(void)
{
    tycho_pose2 o = {0, 0, 0};
    tycho_grid *g = tycho_grid_new(21, 21, 0.05, o, 0, NULL);
    tycho_grid_set(g, 10, 10, 254);
    tycho_grid_set(g, 10, 19, 255); /* unknown, 9 cells above */
    tycho_grid_set(g, 11, 10, 255); /* unknown, next to the obstacle */
    tycho_grid_set(g, 13, 10, 255); /* unknown, 3 cells away */
    tycho_grid_set(g, 10, 14, 200); /* a higher existing cost wins */
    tycho_inflation_params p;
    tycho_inflation_defaults(&p);
    p.inscribed_radius = 0.1;
    p.inflation_radius = 0.3; /* ceil(0.3 / 0.05) = 6 cells */
    p.cost_scaling_factor = 10;
    tycho_inflation *ws = tycho_inflation_new();
    tycho_grid *d = tycho_grid_new(21, 21, 0.05, o, 0, NULL);
    CHECK(tycho_inflate(ws, g, d, &p, NULL) == TYCHO_OK);
    CHECK(tycho_grid_get(d, 10, 10) == 254);
    CHECK(tycho_grid_get(d, 9, 10) == 253);  /* d = 1 cell = 0.05 m */
    CHECK(tycho_grid_get(d, 10, 8) == 253);  /* d = 0.1 m = inscribed: inclusive */
    CHECK(tycho_grid_get(d, 8, 9) == 223);   /* d = sqrt(5) cells */
    CHECK(tycho_grid_get(d, 8, 8) == 166);   /* d = sqrt(8) */
    CHECK(tycho_grid_get(d, 7, 10) == 152);  /* d = 3: 252 exp(-0.5) = 152.8, truncated */
    CHECK(tycho_grid_get(d, 10, 6) == 92);   /* d = 4 */
    CHECK(tycho_grid_get(d, 10, 14) == 200); /* existing 200 > 92 */
    CHECK(tycho_grid_get(d, 4, 10) == 34);   /* d = 6 = cell radius: inclusive */
    CHECK(tycho_grid_get(d, 4, 9) == 0);     /* d = sqrt(37) > 6: untouched */
    CHECK(tycho_grid_get(d, 11, 10) == 253); /* unknown within inscribed -> 253 */
    CHECK(tycho_grid_get(d, 13, 10) == 255); /* unknown, cost 152 < 253: stays unknown */
    CHECK(tycho_grid_get(d, 10, 19) == 255); /* beyond the radius */
    CHECK(tycho_grid_get(g, 9, 10) == 0);    /* source untouched */

    p.inflate_unknown = true;
    CHECK(tycho_inflate(ws, g, d, &p, NULL) == TYCHO_OK);
    CHECK(tycho_grid_get(d, 13, 10) == 152); /* unknown takes the inflated cost */
    CHECK(tycho_grid_get(d, 10, 19) == 255);
    p.cost_scaling_factor = 100; /* d = 3: 252 exp(-5) = 1.7 -> 1; d = 4: 0 */
    tycho_grid_set(g, 14, 10, 255);
    CHECK(tycho_inflate(ws, g, d, &p, NULL) == TYCHO_OK);
    CHECK(tycho_grid_get(d, 13, 10) == 1);
    CHECK(tycho_grid_get(d, 14, 10) == 255); /* cost 0 leaves unknown alone */
    CHECK(tycho_grid_get(d, 6, 10) == 0);

    /* inflate_around_unknown: unknown cells become sources (and lethal) */
    p.cost_scaling_factor = 10;
    p.inflate_unknown = false;
    p.inflate_around_unknown = true;
    CHECK(tycho_inflate(ws, g, d, &p, NULL) == TYCHO_OK);
    CHECK(tycho_grid_get(d, 10, 19) == 254);
    CHECK(tycho_grid_get(d, 10, 18) == 253);
    CHECK(tycho_grid_get(d, 10, 16) == 152);

    /* zero cell radius: nothing happens; in place works */
    p.inflate_around_unknown = false;
    p.inflation_radius = 0;
    CHECK(tycho_inflate(ws, g, g, &p, NULL) == TYCHO_OK);
    CHECK(tycho_grid_get(g, 9, 10) == 0);
    p.inflation_radius = 0.3;
    CHECK(tycho_inflate(ws, g, g, &p, NULL) == TYCHO_OK);
    CHECK(tycho_grid_get(g, 9, 10) == 253);
    CHECK(tycho_grid_get(g, 10, 10) == 254);

    /* the Nav2 cellDistance quirk: 0.14 / 0.02 = 7.000000000000001 -> 8 cells */
    tycho_grid *q = tycho_grid_new(20, 1, 0.02, o, 0, NULL);
    tycho_grid_set(q, 0, 0, 254);
    p.inscribed_radius = 0;
    p.inflation_radius = 0.14;
    p.cost_scaling_factor = 1;
    CHECK(tycho_inflate(ws, q, q, &p, NULL) == TYCHO_OK);
    CHECK(tycho_grid_get(q, 8, 0) == (uint8_t)(252 * exp(-0.16)));
    CHECK(tycho_grid_get(q, 9, 0) == 0);

    /* errors */
    tycho_err err = {0};
    p.inflation_radius = -1;
    CHECK(tycho_inflate(ws, g, d, &p, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "inflation_radius") != NULL);
    p.inflation_radius = 0.3;
    p.cost_scaling_factor = NAN;
    CHECK(tycho_inflate(ws, g, d, &p, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "cost_scaling_factor") != NULL);
    p.cost_scaling_factor = 10;
    p.inflation_radius = 1000;
    CHECK(tycho_inflate(ws, g, d, &p, &err) == TYCHO_ERANGE);
    p.inflation_radius = 0.3;
    CHECK(tycho_inflate(ws, g, q, &p, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "20x1") != NULL);

    p.inscribed_radius = 0.1;
    CHECK(tycho_inflation_cost(&p, 0.05, 0) == 254);
    CHECK(tycho_inflation_cost(&p, 0.05, 2) == 253);
    CHECK(tycho_inflation_cost(&p, 0.05, 3) == 152);
    tycho_grid_free(q);
    tycho_grid_free(d);
    tycho_grid_free(g);
    tycho_inflation_free(ws);
}

/* One workspace over grids of changing sizes and radii gives the same result
 * as a fresh workspace each time (no stale buffers or tables). */
static void test_workspace_reuse(void)
{
    static const int sizes[][2] = {{50, 40}, {10, 90}, {120, 7}, {50, 40}, {3, 3}};
    static const double radii[] = {0.3, 0.55, 0.1, 2.0, 0.3};
    tycho_inflation *ws = tycho_inflation_new();
    int bad = 0;
    for (int k = 0; k < 5; k++) {
        int w = sizes[k][0], h = sizes[k][1];
        size_t n = (size_t)w * h;
        uint8_t *src = malloc(n), *a = malloc(n), *b = malloc(n);
        random_cells(src, (int)n, 0.02);
        tycho_inflation_params p;
        tycho_inflation_defaults(&p);
        p.inflation_radius = radii[k];
        tycho_inflation *fresh = tycho_inflation_new();
        CHECK(tycho_inflate_cells(ws, src, a, w, h, 0.05, &p, NULL) == TYCHO_OK);
        CHECK(tycho_inflate_cells(fresh, src, b, w, h, 0.05, &p, NULL) == TYCHO_OK);
        if (memcmp(a, b, n) != 0) bad++;
        tycho_inflation_free(fresh);
        free(src);
        free(a);
        free(b);
    }
    CHECK(bad == 0);
    tycho_inflation_free(ws);
}

int main(void)
{
    test_edt_brute();
    test_inflation_brute();
    test_hand_cases();
    test_workspace_reuse();
    return check_summary("test_inflation");
}
