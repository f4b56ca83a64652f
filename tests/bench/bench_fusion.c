/* Costs of the heat-seeking helpers on mission-size inputs: thermal + LiDAR
 * fusion (360-beam scan, 8x8 frame), the follower step (a 25 m planner path
 * at 5 cm spacing) from C and from Lua, the path-ahead grid check, the pitch
 * detector, and k-means on a mission's worth of heat detections.
 *
 * The budgets are this machine's share of a 50 Hz control tick, not
 * reference numbers: fusion runs 2 cameras x 10 Hz, the follower and pitch
 * detector every tick, k-means once per mission phase. */
#include "clock.h"
#include "result.h"
#include "tycho/diffdrive.h"
#include "tycho/follower.h"
#include "tycho/fusion.h"
#include "tycho/grid.h"
#include "tycho/kmeans.h"
#include "tycho/pitch.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

int luaopen_tycho(lua_State *L);

static void report(const char *key, const char *what, double value, const char *unit,
                   const char *cond, double target)
{
    printf("%s: %.3f %s %s (target <= %g %s) %s\n", what, value, unit, cond, target, unit,
           value <= target ? "PASS" : "FAIL");
    char name[64], desc[320];
    snprintf(name, sizeof name, "fusion.%s", key);
    snprintf(desc, sizeof desc, "`bench_fusion`: %s, %s", what, cond);
    bench_result(name, value, unit, "<=", target, desc);
}

static volatile double sink;

static void bench_fusion(void)
{
    /* a 4x3 m room seen from inside: ranges from the walls, a few no-returns */
    float ranges[360];
    for (int i = 0; i < 360; i++) {
        double a = -M_PI + i * M_PI / 180;
        double rx = cos(a) > 0 ? 2.5 / cos(a) : -1.5 / cos(a);
        double ry = sin(a) > 0 ? 1.2 / sin(a) : -1.8 / sin(a);
        double r = fmin(fabs(rx), fabs(ry));
        ranges[i] = (i % 37 == 0 || r > 3.5) ? INFINITY : (float)r;
    }
    tycho_scan_ref scan = {-M_PI, M_PI / 180, 360, ranges};
    float frame[64];
    for (int i = 0; i < 64; i++) frame[i] = 22.0f + (i % 7) * 0.1f;
    frame[19] = frame[20] = frame[27] = 38.0f;
    tycho_thermal_camera cam;
    tycho_thermal_camera_defaults(&cam);
    cam.mount_yaw = 30 * M_PI / 180;
    tycho_fusion_params p;
    tycho_fusion_defaults(&p);
    tycho_fusion_result r;
    const int n = 200000;
    for (int i = 0; i < 1000; i++)
        tycho_fusion_locate((tycho_pose2){0, 0, 0}, &scan, &cam, frame, &p, &r, NULL);
    double t0 = bench_now();
    for (int i = 0; i < n; i++) {
        tycho_pose2 pose = {i * 1e-6, 0, 0.001 * (i % 100)};
        tycho_fusion_locate(pose, &scan, &cam, frame, &p, &r, NULL);
        sink += r.x;
    }
    double us = (bench_now() - t0) / n * 1e6;
    char cond[128];
    snprintf(cond, sizeof cond, "per call, 360 beams + 8x8 frame, narrow, mean over %d calls", n);
    report("locate_us", "fusion locate", us, "us", cond, 10);
}

/* A 25 m zig-zag path sampled every 5 cm, like a grid planner's output. */
static int make_path(double *xy, int cap)
{
    int n = 0;
    double x = 0, y = 0;
    for (int leg = 0; leg < 10 && n < cap; leg++) {
        double dx = (leg % 2 == 0) ? 0.05 : 0,
               dy = (leg % 2 == 0) ? 0 : ((leg / 2) % 2 ? -0.05 : 0.05);
        for (int k = 0; k < 50 && n < cap; k++, n++) {
            xy[2 * n] = x;
            xy[2 * n + 1] = y;
            x += dx;
            y += dy;
        }
    }
    return n;
}

static void bench_follower(void)
{
    static double path[2 * 500];
    int n = make_path(path, 500);
    tycho_follower *f = tycho_follower_new(NULL, NULL);
    long steps = 0;
    double t_total = 0;
    for (int rep = 0; rep < 20; rep++) {
        tycho_follower_set_path(f, path, n, NAN, NULL);
        tycho_follower_reset(f);
        tycho_pose2 pose = {0, 0.02, 0};
        tycho_follow_cmd cmd;
        double t0 = bench_now();
        for (int i = 0; i < 20000; i++) {
            tycho_follower_step(f, pose, 0.02, 1.0, &cmd, NULL);
            if (cmd.status == TYCHO_FOLLOW_ARRIVED) break;
            pose = tycho_unicycle_step(pose, cmd.v, cmd.w, 0.02);
            steps++;
        }
        t_total += bench_now() - t0; /* includes the kinematic step, a few ns */
    }
    char cond[160];
    snprintf(cond, sizeof cond, "per step, %d-point 25 m path, closed loop at 50 Hz, %ld steps", n,
             steps);
    report("follower_c_us", "follower step (C)", t_total / steps * 1e6, "us", cond, 2);

    /* path ahead check: 1.8 m lookahead on a 0.05 m grid */
    tycho_pose2 o = {-1, -3, 0};
    tycho_grid *g = tycho_grid_new(400, 400, 0.05, o, 0, NULL);
    tycho_path_block b;
    const int m = 200000;
    double t0 = bench_now();
    for (int i = 0; i < m; i++) {
        tycho_path_check_blocked(g, path + 2 * (i % 400), 100, 1.8, 254, false, &b, NULL);
        sink += b.distance;
    }
    report("path_blocked_us", "path_blocked", (bench_now() - t0) / m * 1e6, "us",
           "per check, 1.8 m lookahead (36 path segments) over a free 400x400 grid at 0.05 m", 5);
    tycho_grid_free(g);
    tycho_follower_free(f);
}

static void bench_follower_lua(void)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    lua_pushcfunction(L, luaopen_tycho);
    lua_call(L, 0, 1);
    lua_setglobal(L, "tycho");
    const char *code = "local path = {}\n"
                       "for i = 0, 499 do path[#path + 1] = { x = i * 0.05, y = 0 } end\n"
                       "local f = tycho.follower()\n"
                       "local step = tycho.diffdrive.step\n"
                       "local n = 0\n"
                       "local t0 = os.clock()\n"
                       "for rep = 1, 20 do\n"
                       "  f:set_path(path); f:reset()\n"
                       "  local pose = { x = 0, y = 0.02, yaw = 0 }\n"
                       "  for i = 1, 20000 do\n"
                       "    local v, w, st = f:step(pose, 0.02, 1.0)\n"
                       "    if st == 'arrived' then break end\n"
                       "    pose.x, pose.y, pose.yaw = step(pose, v, w, 0.02)\n"
                       "    n = n + 1\n"
                       "  end\n"
                       "end\n"
                       "return n\n";
    double t0 = bench_now();
    if (luaL_dostring(L, code) != 0) {
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
        lua_close(L);
        return;
    }
    double dt = bench_now() - t0;
    long n = (long)lua_tointeger(L, -1);
    char cond[160];
    snprintf(cond, sizeof cond,
             "per f:step + diffdrive.step from %s, 500-point path, %ld steps (incl. set_path)",
             LUA_VERSION_NUM >= 502 ? LUA_VERSION : "LuaJIT", n);
    report("follower_lua_us", "follower step (Lua)", dt / n * 1e6, "us", cond, 5);
    lua_close(L);
}

static void bench_pitch(void)
{
    tycho_pitch *d = tycho_pitch_new(NULL, NULL);
    tycho_pitch_state st;
    const int n = 2000000;
    double t0 = bench_now();
    for (int i = 0; i < n; i++) {
        tycho_pitch_push(d, i * 0.02, 0.01 * sin(i * 0.1), &st, NULL);
        sink += st.short_avg;
    }
    report("pitch_push_50hz_ns", "pitch push", (bench_now() - t0) / n * 1e9, "ns",
           "per sample at 50 Hz, 0.5 s window (25 samples)", 500);
    tycho_pitch_free(d);
    tycho_pitch_params p;
    tycho_pitch_defaults(&p);
    d = tycho_pitch_new(&p, NULL);
    t0 = bench_now();
    for (int i = 0; i < n; i++) {
        tycho_pitch_push(d, i * 0.001, 0.01 * sin(i * 0.1), &st, NULL);
        sink += st.short_avg;
    }
    report("pitch_push_1khz_ns", "pitch push", (bench_now() - t0) / n * 1e9, "ns",
           "per sample at 1 kHz, window capped at capacity 256", 2000);
    tycho_pitch_free(d);
}

static void bench_kmeans(void)
{
    /* 600 heat detections around 6 sources, 0.15 m scatter */
    static double xy[2 * 600];
    uint64_t s = 99;
    for (int i = 0; i < 600; i++) {
        int c = i % 6;
        for (int k = 0; k < 2; k++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            double u = ((s >> 11) + 0.5) * 0x1p-53;
            xy[2 * i + k] = (k ? (c / 3) * 3.0 : (c % 3) * 2.5) + 0.3 * (u - 0.5);
        }
    }
    tycho_kmeans *km = tycho_kmeans_new(NULL);
    const int reps = 200;
    double t0 = bench_now();
    for (int r = 0; r < reps; r++) tycho_kmeans_fit(km, xy, 600, 6, NULL, NULL);
    report("kmeans_fit_ms", "kmeans fit", (bench_now() - t0) / reps * 1e3, "ms",
           "600 points, k = 6, n_init 4", 5);
    t0 = bench_now();
    for (int r = 0; r < reps; r++) tycho_kmeans_fit_auto(km, xy, 600, 10, 0.5, NULL, NULL);
    char cond[96];
    snprintf(cond, sizeof cond, "600 points, k_max 10, radius 0.5 m (chose k = %d)",
             tycho_kmeans_k(km));
    report("kmeans_auto_ms", "kmeans fit_auto", (bench_now() - t0) / reps * 1e3, "ms", cond, 20);
    tycho_kmeans_free(km);
}

int main(void)
{
    bench_fusion();
    bench_follower();
    bench_follower_lua();
    bench_pitch();
    bench_kmeans();
    return 0;
}
