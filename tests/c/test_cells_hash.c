/* The cells' hash (tycho/cells_hash.h), the grid's fingerprint built on it
 * (tycho_grid_fingerprint) and the 4 KB gather that hashes a grid's rows as
 * a recording copies them (tycho_mcap_stage with a hook):
 *  - bytes fed in pieces of any length hash as the same bytes in one run;
 *  - a run that differs from another of its length in one byte, anywhere
 *    (the eight chains, their 64-byte steps and the tail), hashes otherwise;
 *  - runs of other lengths (zeros) or other seeds hash otherwise;
 *  - a grid's fingerprint changes with a cell in its known box, its place
 *    and resolution, and a cell becoming known outside the box, and not
 *    with an unknown cell written unknown again;
 *  - staged pieces reach the destination whole and in order, and the hook
 *    sees every byte once, in 4 KB pieces but the last. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tycho/cells_hash.h"
#include "tycho/grid.h"
#include "tycho/mcap.h"
#include "tycho/rng.h"

static uint64_t hash_run(uint64_t seed, const uint8_t *p, size_t n)
{
    tycho_cells_hash ch;
    tycho_cells_hash_init(&ch, seed);
    tycho_cells_hash_add(&ch, p, n);
    return tycho_cells_hash_end(&ch);
}

static void pieces_hash_as_one_run(void)
{
    enum { N = 5000 };
    static uint8_t bytes[N];
    tycho_rng rng;
    tycho_rng_seed(&rng, 7);
    for (size_t i = 0; i < N; i++) bytes[i] = (uint8_t)tycho_rng_u64(&rng);
    int bad = 0;
    for (int trial = 0; trial < 400 && !bad; trial++) {
        size_t n = (size_t)(tycho_rng_u64(&rng) % N);
        uint64_t whole = hash_run(3, bytes, n);
        tycho_cells_hash ch;
        tycho_cells_hash_init(&ch, 3);
        for (size_t at = 0; at < n;) { /* pieces of 0 to 300 bytes, now and then 4 KB */
            size_t take = (size_t)(tycho_rng_u64(&rng) % 301);
            if (trial % 7 == 0) take = 4096;
            if (take > n - at) take = n - at;
            tycho_cells_hash_add(&ch, bytes + at, take);
            at += take;
        }
        bad = !CHECKED(tycho_cells_hash_end(&ch) == whole, "a split run hashed otherwise");
    }
}

static void one_byte_changes_it(void)
{
    static const size_t sizes[] = {1, 7, 8, 9, 63, 64, 65, 130, 1000};
    uint8_t run[1000], other[1000];
    tycho_rng rng;
    tycho_rng_seed(&rng, 11);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        for (size_t i = 0; i < n; i++) run[i] = (uint8_t)tycho_rng_u64(&rng);
        uint64_t h = hash_run(1, run, n);
        int same = 0;
        for (size_t i = 0; i < n; i++)
            for (int bit = 0; bit < 8; bit++) {
                memcpy(other, run, n);
                other[i] ^= (uint8_t)(1u << bit);
                same += hash_run(1, other, n) == h;
            }
        CHECK_MSG(same == 0, "%d one-bit changes of a %zu-byte run kept its hash", same, n);
    }
}

static void lengths_and_seeds_count(void)
{
    static const uint8_t zeros[200] = {0};
    int same = 0;
    for (size_t a = 0; a < 200; a++)
        for (size_t b = a + 1; b < 200; b++) same += hash_run(0, zeros, a) == hash_run(0, zeros, b);
    CHECK_MSG(same == 0, "%d pairs of runs of zeros of other lengths hashed the same", same);
    CHECK(hash_run(1, zeros, 64) != hash_run(2, zeros, 64));
    CHECK(hash_run(5, zeros, 0) == hash_run(5, zeros, 0));
}

static void grid_fingerprint(void)
{
    tycho_grid *g =
        tycho_grid_new(300, 200, 0.05, (tycho_pose2){-1, -2, 0}, TYCHO_COST_UNKNOWN, NULL);
    if (!CHECKED(g != NULL, "a grid")) return;
    uint64_t empty = tycho_grid_fingerprint(g);
    CHECK(tycho_grid_fingerprint(g) == empty);
    for (int y = 40; y < 120; y++)
        for (int x = 50; x < 250; x++) tycho_grid_set(g, x, y, (uint8_t)((x * 7 + y) % 100));
    uint64_t known = tycho_grid_fingerprint(g);
    CHECK(known != empty);
    tycho_grid_set(g, 5, 5, TYCHO_COST_UNKNOWN); /* unknown already: nothing a viewer sees */
    CHECK(tycho_grid_fingerprint(g) == known);
    /* a cell in the box, each corner among them, changed and changed back */
    static const int cells[][2] = {{50, 40}, {249, 40}, {50, 119}, {249, 119}, {140, 77}, {51, 40}};
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
        int x = cells[i][0], y = cells[i][1];
        uint8_t was = tycho_grid_cells(g)[(size_t)y * 300 + x];
        tycho_grid_set(g, x, y, (uint8_t)(was + 1));
        CHECK_MSG(tycho_grid_fingerprint(g) != known, "cell (%d, %d) changed", x, y);
        tycho_grid_set(g, x, y, was);
        CHECK_MSG(tycho_grid_fingerprint(g) == known, "cell (%d, %d) changed back", x, y);
    }
    tycho_grid_set(g, 10, 150, 0); /* known outside the box: the box grows */
    CHECK(tycho_grid_fingerprint(g) != known);
    tycho_grid_set(g, 10, 150, TYCHO_COST_UNKNOWN);
    CHECK(tycho_grid_fingerprint(g) == known);
    tycho_grid *moved =
        tycho_grid_new(300, 200, 0.05, (tycho_pose2){-1, -1.95, 0}, TYCHO_COST_UNKNOWN, NULL);
    tycho_grid *finer =
        tycho_grid_new(300, 200, 0.04, (tycho_pose2){-1, -2, 0}, TYCHO_COST_UNKNOWN, NULL);
    if (CHECKED(moved && finer, "two more grids")) {
        memcpy(tycho_grid_cells(moved), tycho_grid_cells(g), 300 * 200);
        memcpy(tycho_grid_cells(finer), tycho_grid_cells(g), 300 * 200);
        CHECK(tycho_grid_fingerprint(moved) != known);
        CHECK(tycho_grid_fingerprint(finer) != known);
    }
    tycho_grid_free(moved);
    tycho_grid_free(finer);
    tycho_grid_free(g);
}

typedef struct {
    size_t seen, pieces, short_pieces;
    tycho_cells_hash hash;
} watcher;

static void watch(void *ctx, const void *p, size_t n)
{
    watcher *w = ctx;
    w->seen += n;
    w->pieces++;
    w->short_pieces += n != TYCHO_MCAP_STAGE_BYTES;
    tycho_cells_hash_add(&w->hash, p, n);
}

static void stage_with_a_hook(void)
{
    enum { N = 60000 };
    static uint8_t src[N], dst[N + 16];
    tycho_rng rng;
    tycho_rng_seed(&rng, 5);
    for (size_t i = 0; i < N; i++) src[i] = (uint8_t)tycho_rng_u64(&rng);
    for (int hooked = 0; hooked < 2; hooked++) {
        memset(dst, 0xAA, sizeof dst);
        watcher w = {0};
        tycho_cells_hash_init(&w.hash, 9);
        static tycho_mcap_staged st; /* 4 KB: not on the stack */
        st.dst = dst;
        st.n = 0;
        st.seen = hooked ? watch : NULL;
        st.ctx = &w;
        size_t at = 0;
        while (at < N) { /* rows of a grid, scene pieces, and pieces larger than the stage */
            size_t take = (size_t)(tycho_rng_u64(&rng) % 700) + 1;
            if (tycho_rng_u64(&rng) % 20 == 0) take = 5000 + (size_t)(tycho_rng_u64(&rng) % 5000);
            if (take > N - at) take = N - at;
            tycho_mcap_stage(&st, src + at, take);
            at += take;
        }
        tycho_mcap_stage_flush(&st);
        CHECK_MSG(memcmp(dst, src, N) == 0, "staged bytes (hook %d) arrived as given", hooked);
        CHECK(st.dst == dst + N && dst[N] == 0xAA);
        if (hooked) {
            CHECK_MSG(w.seen == N, "the hook saw %zu of %d bytes", w.seen, N);
            CHECK_MSG(w.short_pieces == 1 && w.pieces == N / TYCHO_MCAP_STAGE_BYTES + 1,
                      "%zu pieces, %zu short", w.pieces, w.short_pieces);
            CHECK(tycho_cells_hash_end(&w.hash) == hash_run(9, src, N));
        }
    }
}

int main(void)
{
    pieces_hash_as_one_run();
    one_byte_changes_it();
    lengths_and_seeds_count();
    grid_fingerprint();
    stage_with_a_hook();
    return check_summary("test_cells_hash");
}
