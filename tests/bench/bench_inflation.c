/* Inflation of a 1000x1000 grid (0.05 m, inflation_radius 0.5 m) with an
 * indoor-like obstacle layout: rooms with 2-cell walls and doors, furniture
 * blocks and scattered clutter. Target: <= 20 ms per full inflation. */
#include "check.h"
#include "clock.h"
#include "result.h"
#include "tycho/edt.h"
#include "tycho/image.h"
#include "tycho/inflation.h"
#include "tycho/mapio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint32_t rng = 12345;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void rect(uint8_t *c, int w, int h, int x0, int y0, int rw, int rh, uint8_t v)
{
    for (int y = y0; y < y0 + rh; y++)
        for (int x = x0; x < x0 + rw; x++)
            if (x >= 0 && y >= 0 && x < w && y < h) c[(size_t)y * w + x] = v;
}

static void indoor_map(uint8_t *c, int w, int h)
{
    memset(c, 0, (size_t)w * h);
    const int room = 80;
    for (int k = 0; k <= w / room; k++) {
        rect(c, w, h, k * room, 0, 2, h, 254);
        rect(c, w, h, 0, k * room, w, 2, 254);
    }
    /* doors */
    for (int ry = 0; ry < h / room + 1; ry++)
        for (int rx = 0; rx < w / room + 1; rx++) {
            rect(c, w, h, rx * room, ry * room + 30, 2, 20, 0);
            rect(c, w, h, rx * room + 30, ry * room, 20, 2, 0);
        }
    /* furniture */
    for (int i = 0; i < 400; i++)
        rect(c, w, h, (int)(rnd() % w), (int)(rnd() % h), 4 + (int)(rnd() % 20),
             4 + (int)(rnd() % 12), 254);
    /* clutter */
    for (int i = 0; i < 4000; i++) rect(c, w, h, (int)(rnd() % w), (int)(rnd() % h), 1, 1, 254);
    /* an unexplored corner */
    rect(c, w, h, 800, 800, 200, 200, 255);
}

int main(void)
{
    const int w = 1000, h = 1000, runs = 50;
    uint8_t *src = malloc((size_t)w * h), *dst = malloc((size_t)w * h);
    indoor_map(src, w, h);
    size_t lethal = 0;
    for (size_t i = 0; i < (size_t)w * h; i++) lethal += src[i] == 254;

    tycho_inflation_params p;
    tycho_inflation_defaults(&p);
    p.inscribed_radius = 0.2;
    p.inflation_radius = 0.5;
    p.cost_scaling_factor = 3.0;
    tycho_inflation *ws = tycho_inflation_new();
    tycho_err err = {0};
    if (tycho_inflate_cells(ws, src, dst, w, h, 0.05, &p, &err) != TYCHO_OK) {
        fprintf(stderr, "inflate: %s\n", err.msg);
        return 1;
    }
    double best = 1e9, total = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now();
        tycho_inflate_cells(ws, src, dst, w, h, 0.05, &p, NULL);
        double t = bench_now() - t0;
        total += t;
        if (t < best) best = t;
    }
    size_t inflated = 0;
    for (size_t i = 0; i < (size_t)w * h; i++) inflated += dst[i] > 0 && dst[i] < 253;
    double mean_ms = total / runs * 1e3;
    printf("inflate %dx%d @ 0.05 m, inflation_radius 0.5 m, inscribed 0.2 m, %.1f%% lethal "
           "(%.1f%% inflated): %.2f ms mean, %.2f ms best over %d runs (target <= 20 ms) %s\n",
           w, h, 100.0 * lethal / ((double)w * h), 100.0 * inflated / ((double)w * h), mean_ms,
           best * 1e3, runs, mean_ms <= 20 ? "PASS" : "FAIL");
    bench_result("inflation.mean_ms", mean_ms, "ms", "<=", 20,
                 "`bench_inflation`: 1000×1000, 0.5 m at 0.05 m");

    /* in place, as a costmap update would run it */
    total = 0;
    for (int r = 0; r < runs; r++) {
        memcpy(dst, src, (size_t)w * h);
        double t0 = bench_now();
        tycho_inflate_cells(ws, dst, dst, w, h, 0.05, &p, NULL);
        total += bench_now() - t0;
    }
    printf("inflate in place, same grid: %.2f ms mean over %d runs\n", total / runs * 1e3, runs);

    /* real data: the basement map's top-left 1000x1000 cells */
    char path[4096];
    tycho_image img;
    if (tycho_image_load(test_data(path, sizeof path, "raycast/basement_hallways_5cm.png"), &img,
                         &err) == TYCHO_OK) {
        tycho_map_meta meta;
        tycho_map_meta_defaults(&meta);
        meta.resolution = 0.05;
        tycho_grid *map = tycho_map_from_image(&img, &meta, &err);
        tycho_grid *crop = map ? tycho_grid_crop(map, 0, 0, w, h, &err) : NULL;
        if (crop) {
            tycho_grid *out = tycho_grid_copy(crop, NULL);
            tycho_inflate(ws, crop, out, &p, NULL);
            total = 0;
            for (int r = 0; r < runs; r++) {
                double t0 = bench_now();
                tycho_inflate(ws, crop, out, &p, NULL);
                total += bench_now() - t0;
            }
            tycho_grid_stats st;
            tycho_grid_stats_compute(crop, &st);
            printf("inflate basement_hallways_5cm crop %dx%d (%.1f%% lethal), same parameters: "
                   "%.2f ms mean over %d runs\n",
                   w, h, 100.0 * st.lethal / ((double)w * h), total / runs * 1e3, runs);
            tycho_grid_free(out);
        }
        tycho_grid_free(crop);
        tycho_grid_free(map);
        tycho_image_free(&img);
    } else {
        fprintf(stderr, "skipping the basement map: %s\n", err.msg);
    }

    /* the full (unbounded) distance transform alone, for reference */
    tycho_edt *e = tycho_edt_new();
    int32_t *out = malloc((size_t)w * h * sizeof *out);
    uint8_t sites[256];
    tycho_edt_sites_range(sites, 254, 254);
    tycho_edt_compute(e, src, w, h, sites, 0, out, NULL);
    total = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now();
        tycho_edt_compute(e, src, w, h, sites, 0, out, NULL);
        total += bench_now() - t0;
    }
    printf("exact EDT %dx%d, unbounded: %.2f ms mean over %d runs\n", w, h, total / runs * 1e3,
           runs);
    free(out);
    tycho_edt_free(e);
    tycho_inflation_free(ws);
    free(src);
    free(dst);
    return 0;
}
