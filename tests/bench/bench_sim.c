/* Simulator speed: one LiDAR scan (360 beams, the sim's ray map), one
 * thermal frame, and whole-mission throughput (sim seconds per wall second)
 * from C and through the Lua binding, on the mission-size maze
 * (maps/maze_small.yaml) and a large map (the warehouse in tests/data, 40 x 40 m). */
#include "check.h"
#include "clock.h"
#include "result.h"
#include "tycho/mapio.h"
#include "tycho/sim.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

int luaopen_tycho(lua_State *L);

static tycho_pose2 free_pose(const tycho_sim *s, tycho_rng *rng)
{
    const tycho_grid *g = tycho_sim_truth(s);
    tycho_pose2 o = tycho_grid_origin(g);
    double w = tycho_grid_width(g) * tycho_grid_resolution(g);
    double h = tycho_grid_height(g) * tycho_grid_resolution(g);
    for (;;) {
        tycho_pose2 p = {o.x + w * tycho_rng_uniform(rng), o.y + h * tycho_rng_uniform(rng),
                         2 * M_PI * tycho_rng_uniform(rng)};
        if (!tycho_sim_collides(s, p.x, p.y)) return p;
    }
}

/* The free cell nearest the map centre with a robot's clearance around it. */
static tycho_pose2 free_start(const tycho_grid *g)
{
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    int k = (int)ceil(0.12 / tycho_grid_resolution(g));
    tycho_pose2 p = {0, 0, 0};
    for (int r = 0; r < w + h; r++)
        for (int cy = h / 2 - r; cy <= h / 2 + r; cy++)
            for (int cx = w / 2 - r; cx <= w / 2 + r; cx++) {
                bool ok = true;
                for (int dy = -k; dy <= k && ok; dy++)
                    for (int dx = -k; dx <= k && ok; dx++)
                        ok = tycho_grid_in_bounds(g, cx + dx, cy + dy) &&
                             tycho_grid_get(g, cx + dx, cy + dy) < TYCHO_COST_LETHAL;
                if (ok) {
                    tycho_grid_cell_to_world(g, cx, cy, &p.x, &p.y);
                    return p;
                }
            }
    return p;
}

static void bench_sensors(const char *name, const char *yaml)
{
    tycho_err err = {0};
    tycho_grid *g = tycho_map_load(yaml, NULL, &err);
    if (!g) {
        printf("sim %s: cannot load %s: %s\n", name, yaml, err.msg);
        return;
    }
    tycho_pose2 start = free_start(g);
    tycho_heat_source src[5];
    for (int i = 0; i < 5; i++) {
        tycho_heat_source_defaults(&src[i]);
        src[i].x = start.x + 0.3 * (i + 1);
        src[i].y = start.y + 0.2 * i;
    }
    tycho_sim_config c;
    tycho_sim_config_defaults(&c);
    c.start = start;
    c.sources = src;
    c.n_sources = 5;
    double t0 = bench_now();
    tycho_sim *s = tycho_sim_new(g, &c, &err);
    double t_new = bench_now() - t0;
    if (!s) {
        printf("sim %s: %s\n", name, err.msg);
        tycho_grid_free(g);
        return;
    }
    tycho_rng rng;
    tycho_rng_seed(&rng, 1);
    enum { N = 2000 };
    static tycho_pose2 poses[N];
    for (int i = 0; i < N; i++) poses[i] = free_pose(s, &rng);
    const tycho_raymap *rm = tycho_sim_raymap(s);
    double res = tycho_grid_resolution(g);
    float ranges[360], temps[64];
    double sink = 0;
    t0 = bench_now();
    for (int i = 0; i < N; i++) {
        tycho_sim_lidar_cast(rm, poses[i], &c.lidar, &rng, ranges);
        sink += ranges[i % 360];
    }
    double scan_us = (bench_now() - t0) / N * 1e6;
    t0 = bench_now();
    for (int i = 0; i < N; i++) {
        tycho_sim_thermal_render(rm, res, poses[i], &c.cameras[0], src, 5, 22.0, &rng, temps);
        sink += temps[i % 64];
    }
    double cam_us = (bench_now() - t0) / N * 1e6;
    printf("sim %s (%dx%d @ %.3f m): sim_new %.1f ms (grid copy + ray map)\n", name,
           tycho_grid_width(g), tycho_grid_height(g), res, t_new * 1e3);
    printf("sim %s: lidar scan 360 beams, range 3.5 m, noise 0.01: %.1f us/scan mean over %d "
           "random free poses (target <= 50 us) %s\n",
           name, scan_us, N, scan_us <= 50 ? "PASS" : "FAIL");
    printf("sim %s: thermal frame 8x8, 5 sources near the robot: %.1f us/frame mean over %d "
           "poses (target <= 50 us) %s  [sink %g]\n",
           name, cam_us, N, cam_us <= 50 ? "PASS" : "FAIL", sink > 0 ? 1.0 : 0.0);
    char key[64], what[160];
    snprintf(key, sizeof key, "sim.%s.scan_us", name);
    snprintf(what, sizeof what, "`bench_sim`: 360-beam LiDAR scan, %s", name);
    bench_result(key, scan_us, "us/scan", "<=", 50, what);
    snprintf(key, sizeof key, "sim.%s.thermal_us", name);
    snprintf(what, sizeof what, "`bench_sim`: 8×8 thermal frame, %s", name);
    bench_result(key, cam_us, "us/frame", "<=", 50, what);
    tycho_sim_free(s);
    tycho_grid_free(g);
}

/* A wanderer driven from C: forward until the front of the scan is near,
 * then turn; all sensors at their default rates, step 50 ms. */
static void bench_mission_c(const char *yaml)
{
    tycho_err err = {0};
    tycho_grid *g = tycho_map_load(yaml, NULL, &err);
    if (!g) return;
    tycho_heat_source src[4];
    for (int i = 0; i < 4; i++) {
        tycho_heat_source_defaults(&src[i]);
        src[i].x = 0.6 + 1.0 * i;
        src[i].y = 0.5 + 0.7 * i;
    }
    tycho_ramp ramp = {3.6, 0.3, 4.4, 1.0, 0.2, NAN};
    tycho_sim_config c;
    tycho_sim_config_defaults(&c);
    c.start = (tycho_pose2){0.5, 0.5, 0};
    c.sources = src;
    c.n_sources = 4;
    c.ramps = &ramp;
    c.n_ramps = 1;
    c.robot.odom_noise_v = c.robot.odom_noise_w = 0.01;
    tycho_sim *s = tycho_sim_new(g, &c, &err);
    if (!s) {
        printf("sim mission: %s\n", err.msg);
        tycho_grid_free(g);
        return;
    }
    const double sim_s = 600, dt = 0.05;
    double turn = 0;
    int scans = 0;
    double t0 = bench_now();
    for (int i = 0; i < (int)(sim_s / dt); i++) {
        tycho_sim_scan sc;
        if (tycho_sim_take_scan(s, &sc)) {
            scans++;
            double front = INFINITY;
            for (int k = -20; k <= 20; k++) front = fmin(front, sc.scan->ranges[(k + 360) % 360]);
            turn = front < 0.45 ? 1.5 : 0;
        }
        tycho_sim_frame f;
        tycho_sim_take_thermal(s, 0, &f);
        tycho_sim_take_thermal(s, 1, &f);
        tycho_sim_set_cmd(s, turn != 0 ? 0.0 : 0.2, turn);
        tycho_sim_step(s, dt, NULL);
    }
    double wall = bench_now() - t0;
    tycho_pose2 p = tycho_sim_pose(s);
    bench_result("sim.mission_c_x", sim_s / wall, "x_real_time", ">=", 100,
                 "`bench_sim`: simulator stepped from C, maze_small, all sensors");
    printf(
        "sim mission from C (maze_small, 4 sources, 1 ramp, all sensors, step 50 ms): %.0f sim s "
        "in %.3f wall s = %.0fx real time (target >= 100x) %s  [%d scans, %d collisions, end "
        "(%.2f, %.2f)]\n",
        sim_s, wall, sim_s / wall, sim_s / wall >= 100 ? "PASS" : "FAIL", scans,
        tycho_sim_collisions(s), p.x, p.y);
    tycho_sim_free(s);
    tycho_grid_free(g);
}

/* The same kind of loop in Lua through the binding (scans as tycho.scan
 * userdata, thermal frames as tables). */
static void bench_mission_lua(const char *world)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    lua_pushcfunction(L, luaopen_tycho);
    lua_call(L, 0, 1);
    lua_setglobal(L, "tycho");
    const char *code =
        "local world = ...\n"
        "local sim = tycho.sim.load(world)\n"
        "local turn, n = 0, 0\n"
        "for i = 1, 600 / 0.05 do\n"
        "  local scan = sim:scan()\n"
        "  if scan then\n"
        "    n = n + 1\n"
        "    local front = math.huge\n"
        "    for k = -20, 20 do front = math.min(front, scan:range((k + 360) % 360 + 1)) end\n"
        "    turn = front < 0.45 and 1.5 or 0\n"
        "  end\n"
        "  sim:thermal(1); sim:thermal(2); sim:imu()\n"
        "  sim:set_cmd(turn ~= 0 and 0 or 0.2, turn)\n"
        "  sim:step(0.05)\n"
        "end\n"
        "return n, sim.collisions\n";
    if (luaL_loadstring(L, code) != LUA_OK) {
        printf("sim lua: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return;
    }
    lua_pushstring(L, world);
    double t0 = bench_now();
    if (lua_pcall(L, 1, 2, 0) != LUA_OK) {
        printf("sim lua: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return;
    }
    double wall = bench_now() - t0;
    printf("sim mission from Lua (%s, %s, step 50 ms, scan+thermal+imu each step): 600 sim s in "
           "%.3f wall s = %.0fx real time (target >= 100x) %s  [%d scans]\n",
           "tests/data/worlds/basic.lua", LUA_VERSION_NUM >= 502 ? LUA_VERSION : "LuaJIT", wall,
           600 / wall, 600 / wall >= 100 ? "PASS" : "FAIL", (int)lua_tointeger(L, -2));
    bench_result("sim.mission_lua_x", 600 / wall, "x_real_time", ">=", 100,
                 "`bench_sim`: simulator stepped from Lua, every sensor each step");
    lua_close(L);
}

int main(void)
{
    char maze[1024], ware[1024], world[1024];
    source_path(maze, sizeof maze, "maps/maze_small.yaml");
    test_data(ware, sizeof ware, "warehouse/map.yaml");
    source_path(world, sizeof world, "tests/data/worlds/basic.lua");
    bench_sensors("maze_small", maze);
    bench_sensors("warehouse", ware);
    bench_mission_c(maze);
    bench_mission_lua(world);
    return 0;
}
