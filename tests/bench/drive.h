/* A robot driving through a map for the benchmarks that cast, insert and
 * match scans along a drive (bench_raycast, bench_scan_match): a seeded
 * xorshift generator (the same poses every run), a start on a free cell
 * and 5 cm a step (a 10 Hz scanner at 0.5 m/s), turning at random when
 * something is within 0.3 m ahead, kept 75 cells (range_max + 1 cell at
 * 5 cm) from the edge of the W x W grid. */
#ifndef TYCHO_BENCH_DRIVE_H
#define TYCHO_BENCH_DRIVE_H

#include "tycho/grid.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/* Uniform in [0, 1) from the generator's state (xorshift64). */
static inline double drive_rnd01(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (*state >> 11) * (1.0 / 9007199254740992.0);
}

/* A free cell at random, facing +x. */
static inline tycho_pose2 drive_start(const tycho_grid *truth, int W, uint64_t *rng)
{
    tycho_pose2 o = tycho_grid_origin(truth), p;
    int cx, cy;
    do {
        p.x = o.x + (75 + drive_rnd01(rng) * (W - 150)) * 0.05;
        p.y = o.y + (75 + drive_rnd01(rng) * (W - 150)) * 0.05;
        p.yaw = 0;
        tycho_grid_world_to_cell(truth, p.x, p.y, &cx, &cy);
    } while (tycho_grid_get(truth, cx, cy) != 0);
    return p;
}

/* The pose 5 cm on. */
static inline tycho_pose2 drive_next(const tycho_grid *truth, tycho_pose2 p, int W, uint64_t *rng)
{
    for (;;) {
        bool ok = true;
        for (double d = 0; d <= 0.3 && ok; d += 0.05) {
            int cx, cy;
            tycho_grid_world_to_cell(truth, p.x + (0.05 + d) * cos(p.yaw),
                                     p.y + (0.05 + d) * sin(p.yaw), &cx, &cy);
            ok = tycho_grid_get(truth, cx, cy) == 0 && cx >= 75 && cy >= 75 && cx < W - 75 &&
                 cy < W - 75;
        }
        if (ok) break;
        p.yaw = (drive_rnd01(rng) * 2 - 1) * M_PI;
    }
    p.x += 0.05 * cos(p.yaw);
    p.y += 0.05 * sin(p.yaw);
    p.yaw += (drive_rnd01(rng) - 0.5) * 0.1;
    return p;
}

#endif
