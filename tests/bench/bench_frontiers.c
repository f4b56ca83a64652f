/* Frontier detection on a half-explored 400x400 building (0.05 m cells, 20 x
 * 20 m). Target: <= 5 ms per search.
 *
 * The map is what a robot would have built: a ground-truth floor of 8 x 8
 * rooms with doors and furniture, explored by driving through half of the
 * rooms with a 4 m, 720-beam range sensor (free along each beam, lethal where
 * it hits), then inflated like a Nav2 global costmap (inscribed 0.15 m,
 * inflation 0.45 m). The robot stands at the end of its drive. Measured
 * through the C API and through grid:frontiers from Lua. */
#include "result.h"
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "ltycho.h"
#include "tycho/frontiers.h"
#include "tycho/inflation.h"

#define N 400
#define ROOM 50
#define ROOMS (N / ROOM)
#define DOOR 16
#define RES 0.05
#define TARGET_MS 5.0

int luaopen_tycho(lua_State *L);

/* CPU time of this thread: the machine is shared, so wall time alone can
 * mislead; both are printed. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint32_t rng = 2024;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static uint8_t truth[N * N];

static void rect(int x0, int y0, int x1, int y1, uint8_t v)
{
    for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < N; y++)
        for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < N; x++) truth[y * N + x] = v;
}

/* Door between room (rx, ry) and its neighbour in direction d (0 +x, 1 +y). */
static void open_door(int rx, int ry, int d)
{
    int mid = ROOM / 2 - DOOR / 2;
    if (d == 0)
        rect((rx + 1) * ROOM - 1, ry * ROOM + mid, (rx + 1) * ROOM, ry * ROOM + mid + DOOR - 1, 0);
    else rect(rx * ROOM + mid, (ry + 1) * ROOM - 1, rx * ROOM + mid + DOOR - 1, (ry + 1) * ROOM, 0);
}

static bool door[ROOMS][ROOMS][2];
static bool visited[ROOMS][ROOMS];
static double path[4096][2]; /* cells */
static int npath;

static void waypoint(double x, double y)
{
    /* samples every 8 cells along the segment from the last waypoint */
    if (npath == 0) {
        path[npath][0] = x, path[npath][1] = y, npath++;
        return;
    }
    double px = path[npath - 1][0], py = path[npath - 1][1];
    int steps = (int)ceil(hypot(x - px, y - py) / 8.0);
    for (int i = 1; i <= steps && npath < 4096; i++) {
        path[npath][0] = px + (x - px) * i / steps;
        path[npath][1] = py + (y - py) * i / steps;
        npath++;
    }
}

static double centre(int r) { return r * ROOM + ROOM / 2.0; }

static int rooms_left;
/* Depth-first drive through the rooms, stopping once half are visited. */
static void drive(int rx, int ry)
{
    visited[rx][ry] = true;
    rooms_left--;
    static const int dx[4] = {1, 0, -1, 0}, dy[4] = {0, 1, 0, -1};
    int order[4] = {0, 1, 2, 3};
    for (int i = 3; i > 0; i--) {
        int j = (int)(rnd() % (uint32_t)(i + 1)), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (int k = 0; k < 4 && rooms_left > 0; k++) {
        int d = order[k], nx = rx + dx[d], ny = ry + dy[d];
        if (nx < 0 || ny < 0 || nx >= ROOMS || ny >= ROOMS || visited[nx][ny]) continue;
        bool open = d == 0   ? door[rx][ry][0]
                    : d == 1 ? door[rx][ry][1]
                    : d == 2 ? door[nx][ny][0]
                             : door[nx][ny][1];
        if (!open) continue;
        waypoint(d % 2 ? centre(rx) : (rx + (d == 0)) * ROOM,
                 d % 2 ? (ry + (d == 1)) * ROOM : centre(ry));
        waypoint(centre(nx), centre(ny));
        drive(nx, ny);
        if (rooms_left > 0) { /* come back through the same door */
            waypoint(d % 2 ? centre(rx) : (rx + (d == 0)) * ROOM,
                     d % 2 ? (ry + (d == 1)) * ROOM : centre(ry));
            waypoint(centre(rx), centre(ry));
        }
    }
}

static void build_truth(void)
{
    memset(truth, 0, sizeof truth);
    for (int k = 0; k <= ROOMS; k++) { /* 2-cell walls on the room lines */
        rect(k * ROOM - 1, 0, k * ROOM, N - 1, 254);
        rect(0, k * ROOM - 1, N - 1, k * ROOM, 254);
    }
    /* doors: a random spanning tree (every room reachable) plus extra doors */
    static bool in_tree[ROOMS][ROOMS];
    in_tree[0][0] = true;
    for (int added = 1; added < ROOMS * ROOMS;) {
        int rx = (int)(rnd() % ROOMS), ry = (int)(rnd() % ROOMS), d = (int)(rnd() % 2);
        int nx = rx + (d == 0), ny = ry + (d == 1);
        if (nx >= ROOMS || ny >= ROOMS || in_tree[rx][ry] == in_tree[nx][ny]) continue;
        in_tree[rx][ry] = in_tree[nx][ny] = true;
        door[rx][ry][d] = true;
        added++;
    }
    for (int e = 0; e < 20; e++) {
        int rx = (int)(rnd() % (ROOMS - 1)), ry = (int)(rnd() % (ROOMS - 1));
        door[rx][ry][rnd() % 2] = true;
    }
    for (int rx = 0; rx < ROOMS; rx++)
        for (int ry = 0; ry < ROOMS; ry++) {
            for (int d = 0; d < 2; d++)
                if (door[rx][ry][d]) open_door(rx, ry, d);
            /* furniture in the corners, clear of the centre lines */
            for (int f = 0; f < 3; f++) {
                int qx = rnd() % 2, qy = rnd() % 2, w = 4 + (int)(rnd() % 8),
                    h = 4 + (int)(rnd() % 8);
                int x0 = rx * ROOM + 3 + (int)(rnd() % 6) + qx * (ROOM - 6 - w - 6);
                int y0 = ry * ROOM + 3 + (int)(rnd() % 6) + qy * (ROOM - 6 - h - 6);
                rect(x0, y0, x0 + w - 1, y0 + h - 1, 254);
            }
        }
}

/* One range-sensor sweep from (x, y) in cells into the mapped cost layer. */
static void scan(uint8_t *map, double x, double y)
{
    const int beams = 720;
    const double range = 4.0 / RES;
    for (int b = 0; b < beams; b++) {
        double a = 2 * M_PI * b / beams, c = cos(a), s = sin(a);
        for (double r = 0; r <= range; r += 0.5) {
            int cx = (int)floor(x + c * r), cy = (int)floor(y + s * r);
            if (cx < 0 || cy < 0 || cx >= N || cy >= N) break;
            if (truth[cy * N + cx] == 254) {
                map[cy * N + cx] = 254;
                break;
            }
            map[cy * N + cx] = 0;
        }
    }
}

int main(void)
{
    build_truth();
    rooms_left = ROOMS * ROOMS * 3 / 8; /* about half the floor ends up known */
    waypoint(centre(0), centre(0));
    drive(0, 0);

    tycho_pose2 o = {0, 0, 0};
    tycho_err err = {0};
    tycho_grid *g = tycho_grid_new(N, N, RES, o, TYCHO_COST_UNKNOWN, &err);
    if (!g) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    uint8_t *map = tycho_grid_cells(g);
    for (int i = 0; i < npath; i++) scan(map, path[i][0], path[i][1]);
    tycho_inflation_params ip;
    tycho_inflation_defaults(&ip);
    ip.inscribed_radius = 0.15;
    ip.inflation_radius = 0.45;
    tycho_inflation *iws = tycho_inflation_new();
    if (!iws || tycho_inflate(iws, g, g, &ip, &err) != TYCHO_OK) {
        fprintf(stderr, "inflate: %s\n", err.msg);
        return 1;
    }
    tycho_inflation_free(iws);
    tycho_grid_stats st;
    tycho_grid_stats_compute(g, &st);
    double known = 1.0 - (double)st.unknown / (N * N);
    double rx = path[npath - 1][0] * RES, ry = path[npath - 1][1] * RES;

    tycho_frontier_search *s = tycho_frontier_search_new();
    tycho_frontier_params p;
    tycho_frontier_defaults(&p);
    if (tycho_frontier_search_run(s, g, rx, ry, &p, &err) != TYCHO_OK) { /* warm-up */
        fprintf(stderr, "frontiers: %s\n", err.msg);
        return 1;
    }
    size_t nf = tycho_frontier_search_count(s);
    const int runs = 200;
    double worst = 0, t0 = bench_now(), c0 = cpu_now();
    for (int i = 0; i < runs; i++) {
        double t = bench_now();
        tycho_frontier_search_run(s, g, rx, ry, &p, NULL);
        t = bench_now() - t;
        if (t > worst) worst = t;
    }
    double mean_ms = (bench_now() - t0) / runs * 1e3, cpu_ms = (cpu_now() - c0) / runs * 1e3;
    const tycho_frontier *best = tycho_frontier_search_get(s, 0);
    printf("frontiers rooms400 (%dx%d @ %.2f m, %.0f%% known, %d path samples, %zu frontiers, "
           "best %d cells at %.2f m): %.3f ms/search mean (%.3f ms CPU), %.3f ms worst over %d "
           "searches (target <= %.0f ms) %s\n",
           N, N, RES, known * 100, npath, nf, best ? best->size : 0, best ? best->distance : 0,
           mean_ms, cpu_ms, worst * 1e3, runs, TARGET_MS, mean_ms <= TARGET_MS ? "PASS" : "FAIL");
    bench_result("frontiers.search_ms", mean_ms, "ms", "<=", TARGET_MS,
                 "`bench_frontiers`: 400×400 half-explored, one search");

    /* the same through Lua: grid:frontiers builds the result tables too */
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    lua_pushcfunction(L, luaopen_tycho);
    lua_call(L, 0, 1);
    lua_setglobal(L, "tycho");
    tycho_grid *gc = tycho_grid_copy(g, &err);
    tycho_l_pushgrid(L, gc);
    lua_setglobal(L, "G");
    char code[256];
    snprintf(
        code, sizeof code,
        "local n, x, y = ... local r for i = 1, n do r = G:frontiers{robot = {x = x, y = y}} end "
        "return #r");
    if (luaL_loadstring(L, code) != LUA_OK) {
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
        return 1;
    }
    lua_pushinteger(L, runs);
    lua_pushnumber(L, rx);
    lua_pushnumber(L, ry);
    t0 = bench_now(), c0 = cpu_now();
    if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
        return 1;
    }
    double lua_ms = (bench_now() - t0) / runs * 1e3;
    cpu_ms = (cpu_now() - c0) / runs * 1e3;
    printf("frontiers rooms400 via Lua grid:frontiers (%d frontiers returned): %.3f ms/call mean "
           "(%.3f ms CPU) over %d calls (target <= %.0f ms) %s\n",
           (int)lua_tointeger(L, -1), lua_ms, cpu_ms, runs, TARGET_MS,
           lua_ms <= TARGET_MS ? "PASS" : "FAIL");
    bench_result("frontiers.lua_ms", lua_ms, "ms", "<=", TARGET_MS,
                 "`bench_frontiers`: the same through Lua (`grid:frontiers`, result tables built)");
    lua_close(L);
    tycho_frontier_search_free(s);
    tycho_grid_free(g);
    return 0;
}
