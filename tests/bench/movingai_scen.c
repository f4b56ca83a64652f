/* Writes a MovingAI scenario file (version 1) for a map that has none here,
 * the way the benchmark's own files are made: queries grouped in buckets of
 * optimal length (bucket b holds lengths in [4b, 4b + 4)), up to 10 queries
 * a bucket, start and goal drawn at random from one connected region.
 *
 *   movingai_scen MAP.map OUT.scen [SEED] [PER_BUCKET]
 *
 * The optimal length of each query is the cost of tycho's A* (8-connected,
 * sqrt2 diagonals, no corner cutting: the benchmark's rules), checked against
 * a Dijkstra distance field from the start; a disagreement stops the tool.
 * Coordinates are written in MovingAI's convention (y down, row 0 = first
 * line of the map), so any benchmark tool reads the file. Seeded and
 * deterministic: the same map and seed give the same file.
 *
 * Used once to make tests/data/movingai/<map>.scen for the maps that came
 * without one (tests/data/README.md); the benchmarks read the files. */
#include "tycho/movingai.h"
#include "tycho/planner.h"
#include "tycho/rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUCKET_LEN 4.0
#define MAX_STARTS 4000

static int usage(void)
{
    fputs("usage: movingai_scen MAP.map OUT.scen [SEED] [PER_BUCKET]\n"
          "writes a MovingAI version 1 scenario file: up to PER_BUCKET (default 10) queries\n"
          "per 4-cell bucket of optimal length, seeded (default seed 1)\n",
          stderr);
    return 2;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5) return usage();
    unsigned long long seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    int per_bucket = argc > 4 ? atoi(argv[4]) : 10;
    if (per_bucket < 1) return usage();

    tycho_err err = {0};
    tycho_grid *g = tycho_movingai_load_map(argv[1], &err);
    if (!g) {
        fprintf(stderr, "movingai_scen: %s\n", err.msg);
        return 1;
    }
    const int w = tycho_grid_width(g), h = tycho_grid_height(g);
    const size_t n = (size_t)w * (size_t)h;
    size_t nfree = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) nfree += tycho_grid_get(g, x, y) < 253;
    int *free_cells = malloc(nfree * sizeof *free_cells);
    float *dist = malloc(n * sizeof *dist);
    size_t nbuckets = (size_t)((double)nfree * 1.5 / BUCKET_LEN) + 2; /* > any path */
    int *filled = calloc(nbuckets, sizeof *filled);
    size_t *cand = malloc(nbuckets * sizeof *cand), *seen = malloc(nbuckets * sizeof *seen);
    FILE *out = fopen(argv[2], "w");
    /* two workspaces: a distance field replaces the A* snapshot of the one it runs on */
    tycho_planner *pl = tycho_planner_new(), *dj = tycho_planner_new();
    if (!free_cells || !dist || !filled || !cand || !seen || !out || !pl || !dj || nfree == 0) {
        fprintf(stderr, "movingai_scen: %s\n",
                !out ? "cannot write the output" : "out of memory or no free cell");
        return 1;
    }
    size_t k = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (tycho_grid_get(g, x, y) < 253) free_cells[k++] = y * w + x;

    tycho_plan_opts po;
    tycho_plan_opts_defaults(&po);
    po.algorithm = TYCHO_PLAN_ASTAR;
    tycho_dijkstra_opts dopt;
    tycho_dijkstra_opts_defaults(&dopt);
    if (tycho_planner_prepare(pl, g, &po, &err) != TYCHO_OK) {
        fprintf(stderr, "movingai_scen: %s\n", err.msg);
        return 1;
    }
    tycho_rng rng;
    tycho_rng_seed(&rng, seed);
    tycho_path path;
    tycho_path_init(&path);
    fprintf(out, "version 1\n");
    size_t written = 0;
    /* a start serves every bucket it can still fill; stop when a run of
     * starts adds nothing (the far buckets exist only from a few places) */
    int idle = 0;
    for (int s = 0; s < MAX_STARTS && idle < 200; s++) {
        int sc = free_cells[tycho_rng_u64(&rng) % nfree];
        tycho_cell start = {sc % w, sc / w};
        if (tycho_distance_field(dj, g, &start, 1, &dopt, dist, &err) != TYCHO_OK) {
            fprintf(stderr, "movingai_scen: %s\n", err.msg);
            return 1;
        }
        /* one pass: a uniformly random cell of each bucket still open
         * (reservoir sampling, one slot a bucket) */
        memset(seen, 0, nbuckets * sizeof *seen);
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(dist[i]) || dist[i] <= 0) continue;
            size_t b = (size_t)(dist[i] / BUCKET_LEN);
            if (b >= nbuckets || filled[b] >= per_bucket) continue;
            if (tycho_rng_u64(&rng) % ++seen[b] == 0) cand[b] = i;
        }
        bool added = false;
        for (size_t b = 0; b < nbuckets; b++) {
            if (!seen[b]) continue;
            size_t gi = cand[b];
            tycho_cell goal = {(int)(gi % (size_t)w), (int)(gi / (size_t)w)};
            if (tycho_planner_find(pl, start, goal, &path, &err) != TYCHO_OK) {
                fprintf(stderr, "movingai_scen: A* found no path where Dijkstra did: %s\n",
                        err.msg);
                return 1;
            }
            if (fabs(path.cost - dist[gi]) > 1e-3 + 1e-5 * path.cost) {
                fprintf(stderr, "movingai_scen: A* %.6f and Dijkstra %.6f disagree\n", path.cost,
                        (double)dist[gi]);
                return 1;
            }
            size_t bucket = (size_t)(path.cost / BUCKET_LEN); /* the exact cost decides */
            if (bucket >= nbuckets || filled[bucket] >= per_bucket) continue;
            /* MovingAI's y grows downwards: file row = h - 1 - tycho row */
            fprintf(out, "%zu\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.8f\n", bucket, base_name(argv[1]), w,
                    h, start.x, h - 1 - start.y, goal.x, h - 1 - goal.y, path.cost);
            filled[bucket]++;
            written++;
            added = true;
        }
        idle = added ? 0 : idle + 1;
    }
    if (fclose(out) != 0) {
        fprintf(stderr, "movingai_scen: cannot write %s\n", argv[2]);
        return 1;
    }
    fprintf(stderr, "movingai_scen: %zu queries for %s (%dx%d, %zu free cells, seed %llu)\n",
            written, base_name(argv[1]), w, h, nfree, seed);
    tycho_path_release(&path);
    tycho_planner_free(pl);
    tycho_planner_free(dj);
    free(cand);
    free(seen);
    free(filled);
    free(dist);
    free(free_cells);
    tycho_grid_free(g);
    return 0;
}
