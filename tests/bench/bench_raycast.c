/* Ray casting and scan insertion on real map data.
 *
 * 1. basement_hallways_5cm.png (1200x1200, 0.05 m): uniform random start
 *    anywhere on the map (occupied cells included), uniform angle, max range
 *    500 cells; ns/ray over 2M rays after warm-up, for the ray map
 *    (distance-field accelerated: one ray per call, and all of them in one
 *    tycho_raymap_cast_many call) and the plain exact traversal; every
 *    answer is compared between the three. Target <= 100 ns/ray.
 * 2. 360-beam scan insertion (range_max 3.5 m) into a 400x400 grid at
 *    0.05 m, ranges cast against a 400x400 crop of the same map from random
 *    free poses. Target <= 50 us/scan. */
#include "check.h"
#include "clock.h"
#include "drive.h"
#include "result.h"
#include "tycho/image.h"
#include "tycho/mapio.h"
#include "tycho/raycast.h"
#include "tycho/scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t rng = 0x853c49e6748fea9bull;
static double rnd01(void) { return drive_rnd01(&rng); }

static tycho_grid *load_map(const char *rel)
{
    char path[4096];
    test_data(path, sizeof path, rel);
    tycho_image img;
    tycho_err err = {0};
    if (tycho_image_load(path, &img, &err) != TYCHO_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return NULL;
    }
    tycho_map_meta meta;
    tycho_map_meta_defaults(&meta);
    meta.resolution = 0.05;
    tycho_grid *g = tycho_map_from_image(&img, &meta, &err);
    tycho_image_free(&img);
    if (!g) fprintf(stderr, "%s\n", err.msg);
    return g;
}

/* Best of `passes` timings: the machine is shared, and the least disturbed
 * pass is the closest to what the code costs. */
enum { PASSES = 3 };

static void bench_rays(tycho_grid *g)
{
    const int n = 2000000, warm = 200000;
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    double res = tycho_grid_resolution(g), max_range = 500 * res;
    tycho_grid_stats st;
    tycho_grid_stats_compute(g, &st);
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    double *a = malloc((size_t)n * sizeof *a), *r_one = malloc((size_t)n * sizeof *r_one);
    double *r_many = malloc((size_t)n * sizeof *r_many);
    for (int i = 0; i < n; i++) {
        x[i] = rnd01() * w * res;
        y[i] = rnd01() * h * res;
        a[i] = (rnd01() * 2 - 1) * M_PI;
    }
    double t0 = bench_now();
    tycho_raymap *m = tycho_raymap_new(g, NULL, NULL);
    double t_build = bench_now() - t0;

    double sink = 0;
    for (int i = 0; i < warm; i++) sink += tycho_raymap_cast(m, x[i], y[i], a[i], max_range);
    double t_one = INFINITY, c_one = INFINITY, t_many = INFINITY, c_many = INFINITY;
    for (int pass = 0; pass < PASSES; pass++) {
        t0 = bench_now();
        double c0 = bench_cpu_now();
        for (int i = 0; i < n; i++) r_one[i] = tycho_raymap_cast(m, x[i], y[i], a[i], max_range);
        double t = bench_now() - t0, c = bench_cpu_now() - c0;
        t_one = t < t_one ? t : t_one;
        c_one = c < c_one ? c : c_one;
        t0 = bench_now();
        c0 = bench_cpu_now();
        tycho_raymap_cast_many(m, n, x, y, a, max_range, r_many);
        t = bench_now() - t0;
        c = bench_cpu_now() - c0;
        t_many = t < t_many ? t : t_many;
        c_many = c < c_many ? c : c_many;
    }
    double sum = 0;
    long hits = 0, batch_mismatch = 0;
    for (int i = 0; i < n; i++) {
        if (isfinite(r_one[i])) {
            sum += r_one[i];
            hits++;
        }
        batch_mismatch += !(r_many[i] == r_one[i]);
    }
    double ns = t_one / n * 1e9, ns_many = t_many / n * 1e9;
    printf(
        "raycast basement_hallways_5cm %dx%d (%.1f%% occupied), ray map: %.1f ns/ray, best of %d "
        "passes over %d rays (CPU %.1f ns), uniform start/angle, max range 500 cells, %.1f%% hits, "
        "mean hit range %.2f m (target <= 100 ns CPU) %s\n",
        w, h, 100.0 * st.lethal / ((double)w * h), ns, PASSES, n, c_one / n * 1e9, 100.0 * hits / n,
        sum / (hits ? hits : 1), c_one / n * 1e9 <= 100 ? "PASS" : "FAIL");
    printf(
        "raycast ray map, the same rays in one tycho_raymap_cast_many call: %.1f ns/ray (CPU %.1f "
        "ns); differences from one-ray calls: %ld of %d (target <= 100 ns CPU, 0 differences) %s\n",
        ns_many, c_many / n * 1e9, batch_mismatch, n,
        c_many / n * 1e9 <= 100 && batch_mismatch == 0 ? "PASS" : "FAIL");
    printf("raycast ray map build (four quadrant gap fields of %d cells each): %.1f ms\n", w * h,
           t_build * 1e3);
    bench_result("raycast.build_ms", t_build * 1e3, "ms", NULL, 0,
                 "`bench_raycast`: ray map build, basement 1200×1200 (four quadrant jump fields)");

    /* The plain traversal over the first quarter of the rays, each answer
     * compared with the ray map's: bit-identical is the ray map's promise. */
    const int np = n / 4;
    for (int i = 0; i < warm / 4; i++) sink += tycho_raycast(g, x[i], y[i], a[i], max_range, NULL);
    long mismatch = 0;
    t0 = bench_now();
    for (int i = 0; i < np; i++) {
        double r = tycho_raycast(g, x[i], y[i], a[i], max_range, NULL);
        mismatch += !(r == r_one[i]);
    }
    double t_plain = bench_now() - t0;
    printf("raycast basement, plain exact traversal (no precomputation): %.1f ns/ray mean over %d "
           "rays; ray map vs traversal mismatches: %ld of %d (every ray compared)\n",
           t_plain / np * 1e9, np, mismatch, np);
    /* CPU time in the table: this one-thread loop's wall time on a shared
     * machine mostly measures the other tenants */
    bench_result("raycast.map_ns", c_one / n * 1e9, "ns/ray", "<=", 100,
                 "`bench_raycast`: ray map, basement 1200×1200, uniform start/angle, 500-cell max, "
                 "one ray per call (CPU time)");
    bench_result("raycast.map_many_ns", c_many / n * 1e9, "ns/ray", "<=", 100,
                 "`bench_raycast`: ray map, the same 2 M rays in one `tycho_raymap_cast_many` call "
                 "(CPU time)");
    bench_result("raycast.plain_ns", t_plain / np * 1e9, "ns/ray", NULL, 0,
                 "`bench_raycast`: plain exact traversal (no precomputation), same rays");
    bench_result("raycast.mismatches", (double)(mismatch + batch_mismatch), "rays", "<=", 0,
                 "`bench_raycast`: rays whose ray-map answer differs from the plain traversal "
                 "(500 k compared) or from the one-ray call (2 M compared)");
    if (sink == 42) printf("%f\n", sink); /* keep the warm-up */
    tycho_raymap_free(m);
    free(x);
    free(y);
    free(a);
    free(r_one);
    free(r_many);
}

static void bench_insert(void)
{
    /* free_thresh 0.196 as in most map_server YAML files: the image's grey
     * (205) surroundings read as unknown, so the robot drives inside the
     * building; rays still pass through unknown (free by default). */
    char path[4096];
    test_data(path, sizeof path, "raycast/basement_hallways_5cm.png");
    tycho_image img;
    if (tycho_image_load(path, &img, NULL) != TYCHO_OK) return;
    tycho_map_meta meta;
    tycho_map_meta_defaults(&meta);
    meta.resolution = 0.05;
    meta.free_thresh = 0.196;
    tycho_grid *map = tycho_map_from_image(&img, &meta, NULL);
    tycho_image_free(&img);
    const int W = 400, bx = 600, by = 600;
    tycho_grid *truth = tycho_grid_crop(map, bx, by, W, W, NULL);
    tycho_pose2 o = tycho_grid_origin(truth);
    tycho_raymap *m = tycho_raymap_new(truth, NULL, NULL);

    const int scans = 3000;
    tycho_scan *sc = malloc(scans * sizeof *sc);
    tycho_pose2 *poses = malloc(scans * sizeof *poses);
    double range_sum = 0, t_cast = 0;
    long finite = 0;
    tycho_pose2 p = drive_start(truth, W, &rng);
    for (int k = 0; k < scans; k++) {
        p = drive_next(truth, p, W, &rng);
        poses[k] = p;
        tycho_scan_init(&sc[k], 360, -M_PI, 2 * M_PI / 360, 0.12, 3.5, NULL);
        double t0 = bench_now();
        tycho_raymap_scan(m, p, &sc[k]);
        t_cast += bench_now() - t0;
        for (int i = 0; i < 360; i++)
            if (isfinite(sc[k].ranges[i])) {
                range_sum += sc[k].ranges[i];
                finite++;
            }
    }
    tycho_grid *g = tycho_grid_new(W, W, 0.05, o, TYCHO_COST_UNKNOWN, NULL);
    tycho_inserter *ws = tycho_inserter_new();
    size_t upd, upd_total = 0;
    for (int k = 0; k < 100; k++) tycho_scan_insert(ws, g, poses[k], &sc[k], NULL, &upd, NULL);
    /* best of PASSES passes over the same scans (the grid keeps them all) */
    double t = INFINITY, c = INFINITY;
    for (int pass = 0; pass < PASSES; pass++) {
        size_t pass_upd = 0;
        double t0 = bench_now(), c0 = bench_cpu_now();
        for (int k = 0; k < scans; k++) {
            tycho_scan_insert(ws, g, poses[k], &sc[k], NULL, &upd, NULL);
            pass_upd += upd;
        }
        double tp = (bench_now() - t0) / scans * 1e6, cp = (bench_cpu_now() - c0) / scans * 1e6;
        if (tp < t) {
            t = tp;
            upd_total = pass_upd;
        }
        c = cp < c ? cp : c;
    }
    printf("scan insert 360 beams, range_max 3.5 m, into %dx%d @ 0.05 m (basement crop at %d,%d, "
           "robot driving 5 cm/scan; %.0f%% returns, mean %.2f m; %.0f cells updated/scan): "
           "%.1f us/scan mean over %d scans, best of %d passes (CPU %.1f us) (target <= 50 us CPU) "
           "%s\n",
           W, W, bx, by, 100.0 * finite / (360.0 * scans), range_sum / (finite ? finite : 1),
           (double)upd_total / scans, t, scans, PASSES, c, c <= 50 ? "PASS" : "FAIL");
    printf("scan cast 360 beams (ray map, range_max 3.5 m): %.1f us/scan mean over %d scans\n",
           t_cast / scans * 1e6, scans);
    bench_result("raycast.insert_us", c, "us/scan", "<=", 50,
                 "`bench_raycast`: 360-beam log-odds insertion, 400×400 (CPU time)");
    bench_result("raycast.scan_cast_us", t_cast / scans * 1e6, "us/scan", NULL, 0,
                 "`bench_raycast`: 360-beam scan cast on the ray map (`tycho_raymap_scan`)");
    double t0 = bench_now();
    for (int k = 0; k < 500; k++) tycho_scan_cast(truth, poses[k], &sc[k], NULL);
    printf("scan cast 360 beams (plain traversal): %.1f us/scan mean over 500 scans\n",
           (bench_now() - t0) / 500 * 1e6);

    for (int k = 0; k < scans; k++) tycho_scan_free(&sc[k]);
    free(sc);
    free(poses);
    tycho_inserter_free(ws);
    tycho_raymap_free(m);
    tycho_grid_free(g);
    tycho_grid_free(truth);
    tycho_grid_free(map);
}

int main(void)
{
    tycho_grid *map = load_map("raycast/basement_hallways_5cm.png");
    if (!map) return 1;
    bench_rays(map);
    bench_insert();
    tycho_grid_free(map);
    return 0;
}
