/* The synthetic world of the SLAM test and benchmark: a square corridor
 * loop, its walls notched, and a deterministic noise source. */
#ifndef TYCHO_TEST_SLAM_WORLD_H
#define TYCHO_TEST_SLAM_WORLD_H

#include "tycho/grid.h"
#include "tycho/raycast.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static inline double rnd01(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}
static inline double gauss(void)
{
    double u = rnd01() + 1e-12, v = rnd01();
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* The scan seen from `truth`, each range given Gaussian noise of sigma
 * metres (0: exact), from the test's deterministic noise source. */
static inline void noisy_scan(const tycho_grid *world, tycho_pose2 truth, tycho_scan *scan,
                              double sigma)
{
    tycho_scan_cast(world, truth, scan, NULL);
    if (sigma <= 0) return;
    for (int b = 0; b < scan->count; b++)
        if (isfinite(scan->ranges[b])) scan->ranges[b] += (float)(sigma * gauss());
}

/* A 12 x 12 m room with an 8 x 8 m block in the middle: a 2 m corridor
 * round it, its walls notched every metre or so (a bare corridor would be
 * degenerate along its length). */
static tycho_grid *square_world(void)
{
    double res = 0.05;
    int n = 12 / 0.05;
    tycho_grid *g = tycho_grid_new(n + 2, n + 2, res, (tycho_pose2){-0.05, -0.05, 0}, 0, NULL);
    for (int y = 0; y < n + 2; y++)
        for (int x = 0; x < n + 2; x++) {
            double wx = (x - 1 + 0.5) * res, wy = (y - 1 + 0.5) * res;
            bool outer = wx < 0 || wy < 0 || wx > 12 || wy > 12;
            bool inner = wx > 2 && wx < 10 && wy > 2 && wy < 10;
            if (outer || inner) tycho_grid_set(g, x, y, 254);
        }
    /* notches: boxes 0.2-0.4 m on both walls at irregular places */
    rng_state = 12345;
    for (int k = 0; k < 60; k++) {
        double t = rnd01() * 48; /* position along the loop */
        int side = (int)(t / 12);
        double u = fmod(t, 12);
        double size = 0.2 + 0.2 * rnd01();
        bool on_inner = rnd01() < 0.5;
        double cx, cy;
        double d =
            on_inner ? 2 - size / 2 : size / 2; /* distance from the outer wall of the box centre */
        if (u < 2.2 || u > 9.8) continue;       /* leave the corners clear */
        switch (side) {
        case 0:
            cx = u, cy = d;
            break;
        case 1:
            cx = 12 - d, cy = u;
            break;
        case 2:
            cx = 12 - u, cy = 12 - d;
            break;
        default:
            cx = d, cy = 12 - u;
            break;
        }
        for (double y = cy - size / 2; y <= cy + size / 2; y += res / 2)
            for (double x = cx - size / 2; x <= cx + size / 2; x += res / 2) {
                int gx, gy;
                if (tycho_grid_world_to_cell(g, x, y, &gx, &gy)) tycho_grid_set(g, gx, gy, 254);
            }
    }
    return g;
}

#endif
