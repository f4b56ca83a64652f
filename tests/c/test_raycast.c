/* Ray casting against a slow sampling reference, the accelerated ray map
 * against the plain traversal (bit for bit), scans, and scan insertion. */
#include "check.h"
#include "tycho/raycast.h"
#include "tycho/scan.h"

#include <string.h>

static uint64_t rng_state = 0x243f6a8885a308d3ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}
static double rnd01(void) { return rnd() / 2097152.0 / 1024.0; }
static double rnd_in(double a, double b) { return a + (b - a) * rnd01(); }

static tycho_grid *random_grid(int w, int h, double res, tycho_pose2 o, double lethal,
                               double unknown)
{
    tycho_grid *g = tycho_grid_new(w, h, res, o, 0, NULL);
    uint8_t *c = tycho_grid_cells(g);
    for (int i = 0; i < w * h; i++) {
        double u = rnd01();
        c[i] = u < lethal ? 254 : (u < lethal + unknown ? 255 : (uint8_t)(rnd() % 200));
    }
    return g;
}

static bool blocks(uint8_t c, const tycho_ray_opts *o)
{
    return c == 255 ? o->unknown_blocked : c >= o->threshold;
}

/* Length of the ray part t in [t0, t1] inside cell (cx, cy) (map frame). */
static double len_in_cell(double ox, double oy, double dx, double dy, double t0, double t1, int cx,
                          int cy)
{
    double lo = t0, hi = t1;
    const double o[2] = {ox, oy}, d[2] = {dx, dy}, c[2] = {cx, cy};
    for (int a = 0; a < 2; a++) {
        if (d[a] == 0) {
            if (o[a] < c[a] || o[a] > c[a] + 1) return 0;
            continue;
        }
        double u = (c[a] - o[a]) / d[a], v = (c[a] + 1 - o[a]) / d[a];
        if (u > v) {
            double s = u;
            u = v;
            v = s;
        }
        lo = u > lo ? u : lo;
        hi = v < hi ? v : hi;
    }
    return hi > lo ? hi - lo : 0;
}

/* The reference: walk the ray in tiny steps (map frame, cells). */
static double ref_cast(const tycho_grid *g, double ox, double oy, double ang, double max_t,
                       const tycho_ray_opts *o, double step)
{
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    const uint8_t *c = tycho_grid_cells_const(g);
    double dx = cos(ang), dy = sin(ang);
    bool was_inside = false;
    for (long k = 0;; k++) {
        double t = k * step;
        if (t > max_t) return INFINITY;
        int cx = (int)floor(ox + t * dx), cy = (int)floor(oy + t * dy);
        bool inside = cx >= 0 && cy >= 0 && cx < w && cy < h;
        if (!inside) {
            if (o->unknown_blocked) return t;
            if (was_inside) return INFINITY;
            continue;
        }
        was_inside = true;
        if (blocks(c[(size_t)cy * w + cx], o)) return t;
    }
}

static void test_hand_cases(void)
{
    tycho_pose2 o = {0, 0, 0};
    tycho_grid *g = tycho_grid_new(10, 10, 0.1, o, 0, NULL);
    for (int y = 0; y < 10; y++) tycho_grid_set(g, 5, y, 254); /* wall x in [0.5, 0.6) */
    tycho_grid_set(g, 5, 9, 0);                                /* a gap at the top */
    tycho_grid_set(g, 2, 2, 100);
    tycho_grid_set(g, 3, 7, 255);
    tycho_ray_opts ro;
    tycho_ray_opts_defaults(&ro);
    CHECK(ro.threshold == 254 && !ro.unknown_blocked);

    CHECK_NEAR(tycho_raycast(g, 0.25, 0.55, 0, 5, NULL), 0.25, 1e-12);
    CHECK_NEAR(tycho_raycast(g, 0.95, 0.55, M_PI, 5, NULL), 0.35, 1e-12); /* from the right */
    CHECK(isinf(tycho_raycast(g, 0.25, 0.55, M_PI, 5, NULL)));            /* leaves the grid */
    CHECK(isinf(tycho_raycast(g, 0.25, 0.95, 0, 5, NULL)));               /* through the gap */
    CHECK(tycho_raycast(g, 0.55, 0.55, 1.0, 5, NULL) == 0);               /* starts in the wall */
    CHECK(isinf(tycho_raycast(g, 0.25, 0.55, 0, 0.2, NULL)));             /* beyond max_range */
    CHECK_NEAR(tycho_raycast(g, 0.25, 0.55, 0, 0.25, NULL), 0.25, 1e-12); /* at max_range: a hit */
    CHECK(isinf(tycho_raycast(g, 0.25, 0.55, 0, -1, NULL)));
    CHECK(isnan(tycho_raycast(g, NAN, 0.55, 0, 1, NULL)));
    /* 45 degrees from (0.05, 0.05): enters the wall where x = 0.5 */
    CHECK_NEAR(tycho_raycast(g, 0.05, 0.05, M_PI / 4, 5, NULL), 0.45 * M_SQRT2, 1e-12);

    /* threshold */
    CHECK(isinf(tycho_raycast(g, 0.05, 0.25, 0, 0.4, NULL)));
    ro.threshold = 100;
    CHECK_NEAR(tycho_raycast(g, 0.05, 0.25, 0, 0.4, &ro), 0.15, 1e-12);
    ro.threshold = 254;

    /* unknown: free by default, blocked on request; the outside counts as unknown */
    CHECK(isinf(tycho_raycast(g, 0.35, 0.05, M_PI / 2, 0.65, NULL)));
    ro.unknown_blocked = true;
    CHECK_NEAR(tycho_raycast(g, 0.35, 0.05, M_PI / 2, 5, &ro), 0.65, 1e-12);
    CHECK_NEAR(tycho_raycast(g, 0.25, 0.55, M_PI, 5, &ro), 0.25, 1e-12); /* hits the edge */
    CHECK(tycho_raycast(g, -1, 0.55, 0, 5, &ro) == 0);                   /* starts outside */
    ro.unknown_blocked = false;
    CHECK_NEAR(tycho_raycast(g, -1, 0.55, 0, 5, NULL), 1.5, 1e-12); /* enters, then hits */
    CHECK(isinf(tycho_raycast(g, -1, 0.55, 0, 1.4, NULL)));
    CHECK(isinf(tycho_raycast(g, -1, 0.55, M_PI, 50, NULL))); /* never enters */
    CHECK(isinf(tycho_raycast(g, -1, 2, 0, 50, NULL)));       /* passes by */
    tycho_grid_set(g, 0, 5, 254);
    CHECK_NEAR(tycho_raycast(g, -1, 0.55, 0, 5, NULL), 1.0, 1e-12); /* edge cell blocked */
    tycho_grid_set(g, 0, 5, 0);

    /* exact corner crossing: the diagonal from (0.3, 0.3) through the
     * lattice points; ties step along x first, so (4, 3) is visited, (3, 4)
     * is not */
    tycho_grid *d = tycho_grid_new(10, 10, 1.0, o, 0, NULL);
    tycho_grid_set(d, 3, 4, 254);
    CHECK(isinf(tycho_raycast(d, 0.0, 0.0, M_PI / 4, 20, NULL)));
    tycho_grid_set(d, 4, 3, 254);
    CHECK_NEAR(tycho_raycast(d, 0.0, 0.0, M_PI / 4, 20, NULL), 4 * M_SQRT2, 1e-9);

    /* a rotated grid: map +x is world +y */
    tycho_pose2 r = {1, 1, M_PI / 2};
    tycho_grid *rg = tycho_grid_new(10, 10, 0.1, r, 0, NULL);
    for (int y = 0; y < 10; y++) tycho_grid_set(rg, 7, y, 254); /* map x = 0.7: world y = 1.7 */
    CHECK_NEAR(tycho_raycast(rg, 0.5, 1.2, M_PI / 2, 5, NULL), 0.5, 1e-9);
    CHECK(isinf(tycho_raycast(rg, 0.5, 1.2, -M_PI / 2, 5, NULL)));
    tycho_grid_free(rg);
    tycho_grid_free(d);
    tycho_grid_free(g);
}

static void test_against_reference(void)
{
    const double step = 2e-3;
    int n = 0, hits = 0, grazing = 0, bad = 0;
    for (int gi = 0; gi < 12; gi++) {
        int w = 10 + (int)(rnd() % 40), h = 10 + (int)(rnd() % 40);
        double res = gi % 3 == 0 ? 1.0 : 0.05;
        tycho_pose2 o = {rnd_in(-2, 2), rnd_in(-2, 2), gi % 4 == 3 ? rnd_in(-3, 3) : 0};
        double dens[] = {0.01, 0.05, 0.2};
        tycho_grid *g = random_grid(w, h, res, o, dens[gi % 3], 0.1);
        tycho_ray_opts ro;
        tycho_ray_opts_defaults(&ro);
        ro.unknown_blocked = gi % 2;
        if (gi % 5 == 4) ro.threshold = 150;
        for (int k = 0; k < 250; k++) {
            /* map-frame origin, some outside the grid */
            double mx = rnd_in(-3, w + 3), my = rnd_in(-3, h + 3), ang = rnd_in(-M_PI, M_PI);
            double max_cells = rnd_in(0, 40);
            double wx, wy, c = cos(o.yaw), s = sin(o.yaw);
            wx = o.x + (c * mx - s * my) * res;
            wy = o.y + (s * mx + c * my) * res;
            double got = tycho_raycast(g, wx, wy, ang + o.yaw, max_cells * res, &ro) / res;
            double want = ref_cast(g, mx, my, ang, max_cells, &ro, step);
            n++;
            if (isfinite(got)) hits++;
            bool ok;
            if (isinf(got) && isinf(want)) ok = true;
            else if (isfinite(got) && isfinite(want))
                ok = want >= got - 1e-6 && want - got <= step + 1e-6;
            else ok = false;
            if (!ok && isfinite(got)) {
                /* grazing: the cell the traversal stopped in is crossed over
                 * less than a sampling step, so the reference can miss it */
                double dx = cos(ang), dy = sin(ang), t = got + 1e-9;
                int cx = (int)floor(mx + t * dx), cy = (int)floor(my + t * dy);
                if (len_in_cell(mx, my, dx, dy, got, got + 10, cx, cy) < step * 1.01) {
                    grazing++;
                    ok = true;
                }
            }
            if (!ok) {
                if (bad < 5)
                    fprintf(stderr,
                            "grid %d ray %d: from (%.6f, %.6f) angle %.6f max %.3f: got %.9g want "
                            "%.9g\n",
                            gi, k, mx, my, ang, max_cells, got, want);
                bad++;
            }
        }
        tycho_grid_free(g);
    }
    printf("reference: %d rays, %d hits, %d grazing\n", n, hits, grazing);
    CHECK_MSG(bad == 0, "%d of %d rays disagree with the reference", bad, n);
    CHECK(hits > n / 4);       /* the test exercises hits ... */
    CHECK(hits < n - n / 10);  /* ... and misses */
    CHECK(grazing <= n / 100); /* grazing is rare */
}

/* The ray map must give exactly what the plain traversal gives. */
static void test_raymap_exact(void)
{
    long n = 0, bad = 0, hits = 0;
    for (int gi = 0; gi < 8; gi++) {
        int w = 120 + (int)(rnd() % 100), h = 90 + (int)(rnd() % 100);
        tycho_pose2 o = {rnd_in(-5, 5), rnd_in(-5, 5), gi >= 6 ? rnd_in(-3, 3) : 0};
        double res = gi % 2 ? 0.05 : 1.0;
        tycho_grid *g = random_grid(w, h, res, o, gi < 4 ? 0.002 : 0.0005, 0.0);
        /* walls with doors, so there is open space to jump through */
        for (int x = 0; x < w; x++)
            if (x % 40 > 6) tycho_grid_set(g, x, h / 2, 254);
        for (int y = 0; y < h; y++)
            if (y % 30 > 4) tycho_grid_set(g, w / 3, y, gi % 3 == 0 ? 255 : 254);
        tycho_ray_opts ro;
        tycho_ray_opts_defaults(&ro);
        ro.unknown_blocked = gi % 3 == 0;
        if (gi == 5) ro.threshold = 199; /* random_grid's free costs reach 199 */
        tycho_err err = {0};
        tycho_raymap *m = tycho_raymap_new(g, &ro, &err);
        CHECK(m != NULL);
        if (!m) break;
        double c = cos(o.yaw), s = sin(o.yaw);
        for (int k = 0; k < 40000; k++) {
            double mx, my, ang;
            switch (k % 4) {
            case 0: /* anywhere, any angle */
                mx = rnd_in(-10, w + 10);
                my = rnd_in(-10, h + 10);
                ang = rnd_in(-M_PI, M_PI);
                break;
            case 1: /* lattice points and axis/diagonal angles: the tie cases */
                mx = (double)(rnd() % (unsigned)w);
                my = (double)(rnd() % (unsigned)h);
                ang = (int)(rnd() % 16) * M_PI / 8;
                break;
            case 2: /* cell centres, slopes through lattice points */
                mx = (rnd() % (unsigned)w) + 0.5;
                my = (rnd() % (unsigned)h) + 0.5;
                ang = atan2((double)(rnd() % 5) - 2, (double)(rnd() % 5) - 2);
                break;
            default:
                mx = rnd_in(0, w);
                my = rnd_in(0, h);
                ang = rnd_in(-M_PI, M_PI);
            }
            double wx = o.x + (c * mx - s * my) * res, wy = o.y + (s * mx + c * my) * res;
            double maxr = (k % 7 == 0) ? INFINITY : rnd_in(0, 400) * res;
            double a = tycho_raycast(g, wx, wy, ang + o.yaw, maxr, &ro);
            double b = tycho_raymap_cast(m, wx, wy, ang + o.yaw, maxr);
            n++;
            hits += isfinite(a);
            if (!(a == b || (isnan(a) && isnan(b)))) {
                if (bad < 5)
                    fprintf(
                        stderr,
                        "raymap grid %d ray %d (%.17g, %.17g, %.17g) max %.17g: %.17g vs %.17g\n",
                        gi, k, mx, my, ang, maxr, a, b);
                bad++;
            }
        }
        /* the batch call gives the same values, ray for ray, including
         * the ones a lane takes over from a ray that ended at once */
        {
            enum { NB = 3001 };
            static double bx[NB], by[NB], ba[NB], br[NB];
            double maxr = gi % 2 ? 250 * res : INFINITY;
            for (int k = 0; k < NB; k++) {
                double mx = rnd_in(-10, w + 10), my = rnd_in(-10, h + 10);
                if (k % 5 == 0) { /* lattice points, axis and diagonal angles */
                    mx = (double)(rnd() % (unsigned)w);
                    my = (double)(rnd() % (unsigned)h);
                }
                bx[k] = o.x + (c * mx - s * my) * res;
                by[k] = o.y + (s * mx + c * my) * res;
                ba[k] = k % 5 == 0 ? (int)(rnd() % 16) * M_PI / 8 + o.yaw : rnd_in(-M_PI, M_PI);
            }
            bx[7] = NAN;
            ba[11] = INFINITY;
            tycho_raymap_cast_many(m, NB, bx, by, ba, maxr, br);
            long batch_bad = 0;
            for (int k = 0; k < NB; k++) {
                double a = tycho_raycast(g, bx[k], by[k], ba[k], maxr, &ro);
                if (!(a == br[k] || (isnan(a) && isnan(br[k])))) batch_bad++;
            }
            CHECK(isnan(br[7]) && isnan(br[11]));
            CHECK_MSG(batch_bad == 0, "grid %d: %ld of %d batch rays differ from the traversal", gi,
                      batch_bad, NB);
            tycho_raymap_cast_many(m, 5, bx, by, ba, -1, br);
            CHECK(isnan(br[0]) == 0 && isinf(br[0]) && isnan(br[2]) == 0);
        }
        /* after changing the grid, update() catches up */
        tycho_grid_set(g, w / 2, h / 4, 254);
        CHECK(tycho_raymap_update(m, g, NULL) == TYCHO_OK);
        double wx, wy;
        tycho_grid_cell_to_world(g, w / 2 - 3, h / 4, &wx, &wy);
        CHECK(tycho_raymap_cast(m, wx, wy, o.yaw, 10 * res) ==
              tycho_raycast(g, wx, wy, o.yaw, 10 * res, &ro));
        CHECK(isfinite(tycho_raymap_cast(m, wx, wy, o.yaw, 10 * res)));
        tycho_raymap_free(m);
        tycho_grid_free(g);
    }
    printf("ray map: %ld rays, %ld hits, all identical: %s\n", n, hits, bad ? "no" : "yes");
    CHECK_MSG(bad == 0, "%ld of %ld rays differ between the ray map and the traversal", bad, n);
    CHECK(hits > n / 4 && hits < n - n / 10);
}

static void test_scan_cast(void)
{
    tycho_err err = {0};
    tycho_scan s;
    CHECK(tycho_scan_init(&s, 0, 0, 0.1, 0, 1, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "count") != NULL);
    CHECK(tycho_scan_init(&s, 10, 0, 0.1, 2, 1, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "range_max") != NULL);
    CHECK(tycho_scan_init(&s, 10, NAN, 0.1, 0, 1, &err) == TYCHO_EINVAL);
    CHECK(strstr(err.msg, "angle_min") != NULL);

    tycho_pose2 o = {-2, -2, 0.3};
    tycho_grid *g = random_grid(80, 80, 0.05, o, 0.03, 0.05);
    CHECK(tycho_scan_init(&s, 360, -M_PI, 2 * M_PI / 360, 0.12, 1.5, NULL) == TYCHO_OK);
    tycho_pose2 pose = {0.1, -0.2, 0.7};
    tycho_scan_cast(g, pose, &s, NULL);
    tycho_raymap *m = tycho_raymap_new(g, NULL, NULL);
    tycho_scan s2;
    tycho_scan_init(&s2, 360, -M_PI, 2 * M_PI / 360, 0.12, 1.5, NULL);
    tycho_raymap_scan(m, pose, &s2);
    int bad = 0, finite = 0;
    for (int i = 0; i < 360; i++) {
        double r = tycho_raycast(g, pose.x, pose.y, pose.yaw + tycho_scan_angle(&s, i), 1.5, NULL);
        float want = (r >= 0.12 && r <= 1.5) ? (float)r : INFINITY;
        if (s.ranges[i] != want || s2.ranges[i] != want) bad++;
        finite += isfinite(want);
    }
    CHECK(bad == 0);
    CHECK(finite > 100);
    /* a sensor inside an obstacle: 0 < range_min, so no returns */
    int cx, cy;
    tycho_grid_world_to_cell(g, pose.x, pose.y, &cx, &cy);
    tycho_grid_set(g, cx, cy, 254);
    tycho_scan_cast(g, pose, &s, NULL);
    bad = 0;
    for (int i = 0; i < 360; i++) bad += !isinf(s.ranges[i]);
    CHECK(bad == 0);
    tycho_raymap_free(m);
    tycho_scan_free(&s);
    tycho_scan_free(&s2);
    tycho_grid_free(g);
}

/* Reference insertion: sample each beam finely and collect the cells.
 * `lethal` is the truth grid's share of obstacles; a scan with every beam
 * valid and long (open space) is inserted with the disk round the sensor
 * filled at once, the other with every beam walked from the sensor. */
static void test_insert_against_reference(int size, double lethal, int beams, double rmax,
                                          bool open, bool holes)
{
    tycho_pose2 o = {-2, -2, 0};
    tycho_grid *truth = random_grid(size, size, 0.05, o, lethal, 0.0);
    tycho_scan s;
    tycho_scan_init(&s, beams, -M_PI, 2 * M_PI / beams, 0.0, rmax, NULL);
    tycho_pose2 pose = {0.03, 0.07, 0.2};
    int pcx, pcy;
    tycho_grid_world_to_cell(truth, pose.x, pose.y, &pcx, &pcy);
    /* the sensor's surroundings free (an open room round it, or one cell) */
    int clear = open ? 20 : 0;
    for (int y = pcy - clear; y <= pcy + clear; y++)
        for (int x = pcx - clear; x <= pcx + clear; x++) tycho_grid_set(truth, x, y, 0);
    tycho_scan_cast(truth, pose, &s, NULL);
    if (holes) {
        s.ranges[5] = NAN; /* ignored */
        s.ranges[6] = -1;  /* ignored (< range_min) */
        /* a LiDAR's dropped returns: single beams, and a run of them */
        for (int k = 40; k < beams; k += 7) s.ranges[k] = NAN;
        for (int k = beams / 2; k < beams / 2 + 5; k++) s.ranges[k] = NAN;
    }

    tycho_grid *g = tycho_grid_new(size, size, 0.05, o, 255, NULL);
    tycho_inserter *ws = tycho_inserter_new();
    size_t updated = 0;
    CHECK(tycho_scan_insert(ws, g, pose, &s, NULL, &updated, NULL) == TYCHO_OK);
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    const float *lo = tycho_grid_logodds(g);
    tycho_logodds_lut lut;
    tycho_grid_logodds_lut(g, &lut);

    /* expected: 1 = miss, 2 = hit (hit wins), per cell, from fine sampling */
    uint8_t *want = calloc((size_t)w * h, 1);
    double mx, my;
    tycho_grid_world_to_map(g, pose.x, pose.y, &mx, &my);
    for (int k = 0; k < s.count; k++) {
        double r = s.ranges[k];
        if (isnan(r) || r < 0) continue;
        bool hit = r < rmax;
        double len = (hit ? r : rmax) / 0.05, a = pose.yaw + tycho_scan_angle(&s, k);
        double dx = cos(a), dy = sin(a);
        for (double t = 0; t < len; t += 1e-3) {
            int cx = (int)floor(mx + t * dx), cy = (int)floor(my + t * dy);
            if (cx >= 0 && cy >= 0 && cx < w && cy < h && !want[cy * w + cx]) want[cy * w + cx] = 1;
        }
        if (hit) {
            int cx = (int)floor(mx + (len + 1e-3) * dx), cy = (int)floor(my + (len + 1e-3) * dy);
            want[cy * w + cx] = 2;
        }
    }
    int bad = 0, misses = 0, hits = 0;
    size_t n_upd = 0;
    for (int i = 0; i < w * h; i++) {
        int got = lo[i] == 0 ? 0 : (lo[i] == lut.miss ? 1 : (lo[i] == lut.hit ? 2 : 3));
        n_upd += got != 0;
        misses += got == 1;
        hits += got == 2;
        if (got != want[i]) {
            /* tolerated: sampling missed a corner the traversal clips */
            int cx = i % w, cy = i / w;
            bool graze = false;
            for (int k = 0; k < s.count && !graze; k++) {
                double a = pose.yaw + tycho_scan_angle(&s, k);
                double L = len_in_cell(mx, my, cos(a), sin(a), 0, rmax / 0.05, cx, cy);
                graze = L > 0 && L < 2e-3;
            }
            if (!graze && bad++ < 5)
                fprintf(stderr, "insert cell (%d,%d): got %d want %d (lo %f)\n", cx, cy, got,
                        want[i], lo[i]);
        }
    }
    CHECK_MSG(bad == 0, "%d cells differ from the sampled reference", bad);
    CHECK(n_upd == updated);
    printf("insertion: %d hit cells, %d miss cells\n", hits, misses);
    CHECK_MSG(hits > 15 || beams < 100, "hits %d", hits);
    CHECK_MSG(misses > 400, "misses %d", misses);
    if (open && beams >= 360) CHECK_MSG(misses > 2000, "open-space scan: %d miss cells", misses);
    /* every hit lands in a cell that is an obstacle in the truth grid */
    int wrong_hits = 0;
    for (int i = 0; i < w * h; i++)
        if (lo[i] == lut.hit) {
            double wx, wy;
            tycho_grid_cell_to_world(g, i % w, i / w, &wx, &wy);
            int tx, ty;
            tycho_grid_world_to_cell(truth, wx, wy, &tx, &ty);
            wrong_hits += tycho_grid_get(truth, tx, ty) != 254;
        }
    CHECK(wrong_hits == 0);
    /* the cost layer follows the log-odds: one hit (0.85) is lethal */
    int cx, cy;
    tycho_grid_world_to_cell(g, pose.x, pose.y, &cx, &cy);
    CHECK(tycho_grid_get(g, cx, cy) == 255); /* one miss: p = 0.4, still unknown */
    free(want);
    tycho_inserter_free(ws);
    tycho_scan_free(&s);
    tycho_grid_free(truth);
    tycho_grid_free(g);
}

/* The disk round the sensor filled at once and each walk started at its
 * edge gives the very cells of walking every beam from the sensor, also
 * where the beams pass exactly through cell corners: a sensor on the grid's
 * points (a walk accumulating its crossings in floating point parted there
 * from the walk from the sensor, one cell in a corner or at a beam's end,
 * for 120-286 of these 961 poses). */
static void test_insert_near_disk_same_cells(void)
{
    tycho_pose2 o = {0, 0, 0};
    tycho_scan s;
    tycho_scan_init(&s, 360, -M_PI, M_PI / 180, 0.0, 4.0, NULL); /* all INFINITY */
    tycho_inserter *ws = tycho_inserter_new();
    tycho_insert_opts walk_all, fill;
    tycho_insert_opts_defaults(&fill);
    tycho_insert_opts_defaults(&walk_all);
    walk_all.fill_near = false;
    const double yaws[3] = {0, M_PI / 2, M_PI / 4};
    int differ = 0, poses = 0;
    size_t cells = 0;
    for (int yi = 0; yi < 3; yi++)
        for (int kx = 85; kx <= 115; kx += 3)
            for (int ky = 85; ky <= 115; ky += 3) {
                tycho_pose2 p = {kx * 0.05, ky * 0.05, yaws[yi]};
                tycho_grid *a = tycho_grid_new(200, 200, 0.05, o, 255, NULL);
                tycho_grid *b = tycho_grid_new(200, 200, 0.05, o, 255, NULL);
                size_t ua = 0, ub = 0;
                CHECK(tycho_scan_insert(ws, a, p, &s, &fill, &ua, NULL) == TYCHO_OK);
                CHECK(tycho_scan_insert(ws, b, p, &s, &walk_all, &ub, NULL) == TYCHO_OK);
                bool same = ua == ub && tycho_grid_width(a) == tycho_grid_width(b) &&
                            tycho_grid_height(a) == tycho_grid_height(b) &&
                            memcmp(tycho_grid_cells(a), tycho_grid_cells(b),
                                   (size_t)tycho_grid_width(a) * tycho_grid_height(a)) == 0 &&
                            memcmp(tycho_grid_logodds(a), tycho_grid_logodds(b),
                                   sizeof(float) * tycho_grid_width(a) * tycho_grid_height(a)) == 0;
                if (!same && differ++ < 3)
                    fprintf(stderr, "pose (%.2f, %.2f, %.2f): %zu vs %zu cells\n", p.x, p.y, p.yaw,
                            ua, ub);
                cells += ua;
                poses++;
                tycho_grid_free(a);
                tycho_grid_free(b);
            }
    printf("insertion with and without the near disk: %d of %d poses on grid points differ "
           "(%zu cells a scan)\n",
           differ, poses, cells / (size_t)poses);
    CHECK_MSG(differ == 0, "%d of %d poses differ", differ, poses);
    CHECK(cells / (size_t)poses > 15000);
    tycho_inserter_free(ws);
    tycho_scan_free(&s);
}

static void test_insert_rules(void)
{
    tycho_pose2 o = {0, 0, 0};
    tycho_grid *g = tycho_grid_new(100, 100, 0.1, o, 255, NULL);
    tycho_inserter *ws = tycho_inserter_new();
    tycho_logodds_lut lut;
    tycho_grid_logodds_lut(g, &lut);
    tycho_insert_opts io;
    tycho_insert_opts_defaults(&io);
    CHECK(io.clear_on_max_range && io.grow);
    io.grow = false;

    /* 3600 max-range beams: the sensor's cell is crossed by all, updated once */
    tycho_scan s;
    tycho_scan_init(&s, 3600, -M_PI, 2 * M_PI / 3600, 0, 2.0, NULL);
    tycho_pose2 pose = {5.05, 5.05, 0};
    CHECK(tycho_scan_insert(ws, g, pose, &s, &io, NULL, NULL) == TYCHO_OK);
    const float *lo = tycho_grid_logodds(g);
    CHECK(lo[50 * 100 + 50] == lut.miss);
    CHECK(lo[50 * 100 + 69] == lut.miss); /* 1.9 m along +x: cleared */
    CHECK(lo[50 * 100 + 71] == 0);        /* 2.1 m: beyond range_max */
    CHECK(tycho_scan_insert(ws, g, pose, &s, &io, NULL, NULL) == TYCHO_OK);
    CHECK_NEAR(lo[50 * 100 + 50], 2 * lut.miss, 1e-6); /* once per scan */
    CHECK(tycho_grid_get(g, 50, 50) == 255);           /* p = 0.31: not yet free */
    for (int k = 0; k < 3; k++) tycho_scan_insert(ws, g, pose, &s, &io, NULL, NULL);
    CHECK(tycho_grid_get(g, 50, 50) == 0);
    CHECK_NEAR(lo[50 * 100 + 50], lut.min > 5 * lut.miss ? lut.min : 5 * lut.miss, 1e-5);

    /* clear_on_max_range off: no-return beams change nothing */
    tycho_grid_fill(g, 255);
    io.clear_on_max_range = false;
    size_t upd = 99;
    CHECK(tycho_scan_insert(ws, g, pose, &s, &io, &upd, NULL) == TYCHO_OK);
    CHECK(upd == 0);
    io.clear_on_max_range = true;

    /* hit wins: beam 0 ends in cell (60, 50); beam 1 (slightly rotated,
     * longer) passes through that cell in the same scan */
    tycho_grid_fill(g, 255);
    tycho_scan two;
    tycho_scan_init(&two, 2, 0, 0.001, 0, 3.0, NULL);
    two.ranges[0] = 1.0f; /* from x = 5.05: ends at 6.05, cell 60 */
    two.ranges[1] = 2.0f;
    CHECK(tycho_scan_insert(ws, g, pose, &two, &io, &upd, NULL) == TYCHO_OK);
    CHECK(lo[50 * 100 + 60] == lut.hit);
    CHECK(tycho_grid_get(g, 60, 50) == 254);
    CHECK(lo[50 * 100 + 59] == lut.miss);
    CHECK(lo[50 * 100 + 70] == lut.hit || lo[51 * 100 + 70] == lut.hit);
    /* range exactly on a cell boundary: the hit goes to the far cell */
    tycho_grid_fill(g, 255);
    pose.x = 5.0;
    two.ranges[0] = 1.0f; /* ends at x = 6.0: the boundary of cell 60 */
    two.ranges[1] = INFINITY;
    CHECK(tycho_scan_insert(ws, g, pose, &two, &io, NULL, NULL) == TYCHO_OK);
    CHECK(lo[50 * 100 + 60] == lut.hit);
    CHECK(lo[50 * 100 + 59] == lut.miss);
    CHECK(lo[50 * 100 + 79] == lut.miss); /* the no-return beam cleared up to 3 m */
    CHECK(lo[50 * 100 + 80] == 0);

    /* no growth: a sensor outside the grid still clears the cells its
     * beams cross inside */
    tycho_grid_fill(g, 255);
    pose.x = -1.0;
    pose.y = 5.05;
    two.ranges[0] = 2.0f; /* ends at x = 1.0: cell 10 */
    CHECK(tycho_scan_insert(ws, g, pose, &two, &io, NULL, NULL) == TYCHO_OK);
    CHECK(tycho_grid_width(g) == 100);
    CHECK(lo[50 * 100 + 0] == lut.miss && lo[50 * 100 + 9] == lut.miss);
    CHECK(lo[50 * 100 + 10] == lut.hit);

    /* growth: once per scan, cells keep their world place */
    io.grow = true;
    tycho_grid_set(g, 99, 99, 254);
    pose.x = 9.5;
    pose.y = 9.5;
    two.ranges[0] = 1.0f;
    CHECK(tycho_scan_insert(ws, g, pose, &two, &io, NULL, NULL) == TYCHO_OK);
    CHECK(tycho_grid_width(g) >= 100 + 25 && tycho_grid_height(g) >= 100 + 25);
    int cx, cy;
    CHECK(tycho_grid_world_to_cell(g, 9.95, 9.95, &cx, &cy));
    CHECK(tycho_grid_get(g, cx, cy) == 254);
    CHECK(tycho_grid_world_to_cell(g, 10.55, 9.5, &cx, &cy));
    CHECK(tycho_grid_get(g, cx, cy) == 254); /* the hit, outside the old grid */
    lo = tycho_grid_logodds(g);
    CHECK(lo[(size_t)cy * tycho_grid_width(g) + cx] == lut.hit);

    /* errors */
    tycho_err err = {0};
    pose.x = NAN;
    CHECK(tycho_scan_insert(ws, g, pose, &two, &io, NULL, &err) == TYCHO_EINVAL);
    pose.x = 1e12;
    CHECK(tycho_scan_insert(ws, g, pose, &two, &io, NULL, &err) != TYCHO_OK);

    tycho_scan_free(&two);
    tycho_scan_free(&s);
    tycho_inserter_free(ws);
    tycho_grid_free(g);
}

int main(void)
{
    test_hand_cases();
    test_against_reference();
    test_raymap_exact();
    test_scan_cast();
    test_insert_against_reference(80, 0.04, 720, 1.2, false, true);
    /* open space round the sensor: the disk every beam covers is filled at
     * once (about 19 cells with every beam; 8 with a 6-degree hole) */
    test_insert_against_reference(140, 0.02, 360, 3.0, true, false);
    test_insert_against_reference(140, 0.02, 360, 3.0, true, true);
    /* sparse beams: the covered disk is small (a cell 5 cells out can fall
     * between two beams 10 degrees apart) */
    test_insert_against_reference(140, 0.02, 36, 3.0, true, false);
    test_insert_near_disk_same_cells();
    test_insert_rules();
    return check_summary("test_raycast");
}
