/* Lua bindings: the simulator (tycho.sim.load, tycho.sim.new and the sim
 * userdata's methods).
 *
 * A world file is a Lua chunk returning a table; it runs in the data
 * sandbox (tycho.load_data, l_sandbox.c: copies of the safe libraries, the
 * pure base functions, instruction, CPU-time and memory budgets), and every field is checked
 * (unknown fields are errors, to catch typos). Errors name the file and the
 * field: "maps/w.lua: heat_sources[2].temp must be a number (got string)". */
#include "l_sim.h"
#include "tycho/mapio.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Creates the sim userdata (box first, so a failed push cannot leak the
 * sim), then the sim itself; frees `truth` (a map we loaded) either way. */
static int push_sim(lua_State *L, pctx *c, const tycho_grid *truth, tycho_grid *owned,
                    const tycho_sim_config *cfg, const char *world, const char *map)
{
    size_t lw = strlen(world), lm = strlen(map);
    lsim *box = tycho_newuserdata(L, sizeof *box + lw + lm + 2);
    box->s = NULL;
    box->tap = NULL;
    box->view = NULL;
    box->log = NULL;
    box->cmd_v = box->cmd_w = 0;
    tycho_odom_history_init(&box->odom);
    memcpy(box->paths, world, lw + 1);
    box->map_path = box->paths + lw + 1;
    memcpy(box->map_path, map, lm + 1);
    luaL_getmetatable(L, SIM_MT);
    lua_setmetatable(L, -2);
    tycho_err err = {0};
    box->s = tycho_sim_new(truth, cfg, &err);
    tycho_grid_free(owned);
    if (!box->s) tycho_l_sim_error(c, "%s", err.msg);
    tycho_odom_history_push(&box->odom, tycho_sim_time(box->s), tycho_sim_odom(box->s));
    return 1;
}

/* tycho.sim.new(grid, config) */
static int l_sim_new(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    pctx c = {L, NULL};
    lua_getfield(L, 2, "map");
    if (!lua_isnil(L, -1))
        tycho_l_sim_error(&c, "map is for world files; pass the grid as argument #1");
    lua_pop(L, 1);
    tycho_sim_config cfg;
    tycho_l_sim_parse_config(&c, 2, &cfg, false);
    return push_sim(L, &c, g, NULL, &cfg, "", "");
}

/* Runs the world file in the data sandbox (tycho.load_data: private copies
 * of the safe libraries, instruction, CPU-time and memory budgets); leaves
 * the returned table on the stack. */
static void run_world(lua_State *L, const char *path)
{
    tycho_load_opts o;
    tycho_load_opts_init(&o);
    if (!tycho_l_load_data(L, path, &o)) lua_error(L);
    if (!lua_istable(L, -1))
        luaL_error(L, "%s: must return a table (got %s)", path, luaL_typename(L, -1));
}

/* Sections whose fields an override merges into (others are replaced). */
static bool merged_section(const char *k)
{
    static const char *const m[] = {"start",   "robot", "odom",     "lidar",
                                    "thermal", "imu",   "launcher", NULL};
    for (int i = 0; m[i]; i++)
        if (strcmp(k, m[i]) == 0) return true;
    return false;
}

/* tycho.sim.load(world_path [, overrides]) */
static int l_sim_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    run_world(L, path);
    int w = lua_gettop(L);
    if (!lua_isnil(L, 2)) {
        lua_pushnil(L);
        while (lua_next(L, 2)) {
            if (lua_type(L, -2) == LUA_TSTRING && lua_istable(L, -1) &&
                merged_section(lua_tostring(L, -2))) {
                lua_pushvalue(L, -2);
                lua_gettable(L, w);
                if (lua_istable(L, -1)) {
                    int dst = lua_gettop(L), src = dst - 1;
                    lua_pushnil(L);
                    while (lua_next(L, src)) {
                        lua_pushvalue(L, -2);
                        lua_insert(L, -2);
                        lua_settable(L, dst);
                    }
                    lua_pop(L, 2);
                    continue;
                }
                lua_pop(L, 1);
            }
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_settable(L, w);
        }
    }
    pctx c = {L, path};
    lua_getfield(L, w, "map");
    if (lua_type(L, -1) != LUA_TSTRING)
        tycho_l_sim_error(&c, "map must be a string naming a map_server YAML file (got %s)",
                          luaL_typename(L, -1));
    const char *map = lua_tostring(L, -1);
    const char *slash = strrchr(path, '/');
    if (map[0] != '/' && slash) {
        lua_pushlstring(L, path, (size_t)(slash - path + 1));
        lua_pushvalue(L, -2);
        lua_concat(L, 2);
        lua_replace(L, -2);
        map = lua_tostring(L, -1);
    }
    int map_idx = lua_gettop(L);
    tycho_sim_config cfg;
    tycho_l_sim_parse_config(&c, w, &cfg, true);
    map = lua_tostring(L, map_idx);
    tycho_err err = {0};
    tycho_grid *g = tycho_map_load(map, NULL, &err);
    if (!g) return tycho_l_sim_error(&c, "map '%s': %s", map, err.msg);
    return push_sim(L, &c, g, g, &cfg, path, map);
}

/* --- the sim userdata ---------------------------------------------------- */

lsim *tycho_l_checksimbox(lua_State *L)
{
    /* every caller is a sim method (the scan ones' upvalue 1 is scan.new:
     * they go the slow way) */
    return TYCHO_L_CHECKSELF(L, lsim, s, SIM_MT, "sim is not initialised");
}

static lsim *checkbox(lua_State *L) { return tycho_l_checksimbox(L); }

static tycho_sim *checksim(lua_State *L) { return checkbox(L)->s; }

static void setnum(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

/* sim:step(dt): the odometry of the step goes into the history (and to
 * the tap, when recording) */
static int l_step(lua_State *L)
{
    lsim *b = checkbox(L);
    double dt = luaL_checknumber(L, 2);
    tycho_err err = {0};
    if (tycho_sim_step(b->s, dt, &err) != TYCHO_OK) return luaL_argerror(L, 2, err.msg);
    tycho_odom_history_push(&b->odom, tycho_sim_time(b->s), tycho_sim_odom(b->s));
    if (b->tap) tycho_l_sim_tap_odom(b);
    if (b->view) tycho_l_sim_view_step(b);
    lua_pushnumber(L, tycho_sim_time(b->s));
    return 1;
}

/* sim:odom_at(t) -> x, y, yaw: the odometry pose at t (the last few
 * seconds, interpolated; see tycho/odom_history.h) */
static int l_odom_at(lua_State *L)
{
    lsim *b = checkbox(L);
    double t = luaL_checknumber(L, 2);
    tycho_pose2 p;
    if (!tycho_odom_history_at(&b->odom, t, &p)) p = tycho_sim_odom(b->s);
    return tycho_l_push_xyyaw(L, p);
}

static int l_set_cmd(lua_State *L)
{
    lsim *b = checkbox(L);
    tycho_sim *s = b->s;
    double v = luaL_checknumber(L, 2), w = luaL_checknumber(L, 3);
    b->cmd_v = v, b->cmd_w = w; /* as given: a recording keeps what was asked */
    tycho_sim_set_cmd(s, v, w);
    tycho_sim_get_cmd(s, &v, &w);
    lua_pushnumber(L, v);
    lua_pushnumber(L, w);
    return 2;
}

/* sim:command() -> v, w: the last velocity command as given to set_cmd
 * (before the sim's limits), what a recording keeps */
static int l_command(lua_State *L)
{
    lsim *b = checkbox(L);
    lua_pushnumber(L, b->cmd_v);
    lua_pushnumber(L, b->cmd_w);
    return 2;
}

static int l_pose(lua_State *L) { return tycho_l_push_xyyaw(L, tycho_sim_pose(checksim(L))); }
static int l_odom(lua_State *L) { return tycho_l_push_xyyaw(L, tycho_sim_odom(checksim(L))); }

/* sim:errors() -> the odometry and IMU errors as resolved (the preset's
 * draws filled in): {preset=, wheel_base=, wheel_radius_error_left=, ...} */
static int l_errors(lua_State *L)
{
    tycho_sim_robot r;
    tycho_sim_imu imu;
    tycho_sim_errors(checksim(L), &r, &imu);
    lua_createtable(L, 0, 11);
    lua_pushstring(L, r.errors == TYCHO_SIM_ERRORS_TURTLEBOT3 ? "turtlebot3" : "none");
    lua_setfield(L, -2, "preset");
    const struct {
        const char *k;
        double v;
    } f[] = {{"wheel_base", r.wheel_base},
             {"wheel_radius_error_left", r.wheel_radius_error_left},
             {"wheel_radius_error_right", r.wheel_radius_error_right},
             {"wheel_base_error", r.wheel_base_error},
             {"encoder_ticks_per_m", r.encoder_ticks_per_m},
             {"slip_ramp", r.slip_ramp},
             {"slip_contact", r.slip_contact},
             {"gyro_bias", imu.gyro_bias},
             {"gyro_scale", imu.gyro_scale},
             {"noise_v", r.odom_noise_v},
             {"noise_w", r.odom_noise_w}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        lua_pushnumber(L, f[i].v);
        lua_setfield(L, -2, f[i].k);
    }
    return 1;
}

static int l_velocity(lua_State *L)
{
    double v, w;
    tycho_sim_velocity(checksim(L), &v, &w);
    lua_pushnumber(L, v);
    lua_pushnumber(L, w);
    return 2;
}

static int l_teleport(lua_State *L)
{
    tycho_sim *s = checksim(L);
    tycho_pose2 p = {luaL_checknumber(L, 2), luaL_checknumber(L, 3), luaL_optnumber(L, 4, 0)};
    tycho_err err = {0};
    if (tycho_sim_teleport(s, p, &err) != TYCHO_OK) return luaL_argerror(L, 2, err.msg);
    return 0;
}

/* A scan: the tycho.scan userdata of the raycast area when the module has
 * it (made through its public constructor tycho.scan.new, kept as upvalue
 * 1, so grid:insert_scan and tycho.fusion take it as is), else a plain
 * table with the ranges at 1..n plus the LaserScan fields. Returns the scan
 * and its stamp. */
static int push_scan(lua_State *L, const tycho_sim_scan *sc)
{
    const tycho_scan *s = sc->scan;
    bool userdata = lua_isfunction(L, lua_upvalueindex(1));
    if (userdata) lua_pushvalue(L, lua_upvalueindex(1));
    lua_createtable(L, s->count, 6);
    for (int i = 0; i < s->count; i++) {
        lua_pushnumber(L, s->ranges[i]);
        lua_rawseti(L, -2, i + 1);
    }
    setnum(L, "angle_min", s->angle_min);
    setnum(L, "angle_increment", s->angle_increment);
    setnum(L, "range_min", s->range_min);
    setnum(L, "range_max", s->range_max);
    if (userdata) {
        lua_pushvalue(L, -1);
        lua_call(L, 2, 1); /* tycho.scan.new(params, ranges) */
    } else {
        setnum(L, "stamp", sc->stamp);
        setnum(L, "seq", (double)sc->seq);
    }
    lua_pushnumber(L, sc->stamp);
    return 2;
}

static int l_scan(lua_State *L)
{
    lsim *b = checkbox(L);
    tycho_sim_scan sc;
    if (!tycho_sim_take_scan(b->s, &sc)) {
        lua_pushnil(L);
        return 1;
    }
    if (b->tap) tycho_l_sim_tap_scan(b, &sc);
    if (b->view) tycho_l_sim_view_scan(b, &sc);
    return push_scan(L, &sc);
}

static int l_last_scan(lua_State *L)
{
    tycho_sim_scan sc;
    tycho_sim_last_scan(checksim(L), &sc);
    return push_scan(L, &sc);
}

/* Stamp and sample number of the newest scan (without taking it). */
static int l_scan_info(lua_State *L)
{
    tycho_sim_scan sc;
    tycho_sim_last_scan(checksim(L), &sc);
    lua_pushnumber(L, sc.stamp);
    lua_pushnumber(L, (double)sc.seq);
    return 2;
}

static int push_frame(lua_State *L, const tycho_sim_frame *f, int cam)
{
    lua_createtable(L, TYCHO_THERMAL_PIXELS, 3);
    for (int i = 0; i < TYCHO_THERMAL_PIXELS; i++) {
        lua_pushnumber(L, f->temps[i]);
        lua_rawseti(L, -2, i + 1);
    }
    setnum(L, "stamp", f->stamp);
    setnum(L, "seq", (double)f->seq);
    lua_pushinteger(L, cam);
    lua_setfield(L, -2, "camera");
    lua_pushnumber(L, f->stamp);
    return 2;
}

static int check_camera(lua_State *L, tycho_sim *s)
{
    lua_Integer i = luaL_checkinteger(L, 2);
    int n = tycho_sim_config_get(s)->n_cameras;
    if (i < 1 || i > n) luaL_argerror(L, 2, lua_pushfstring(L, "camera 1..%d expected", n));
    return (int)i;
}

static int l_thermal(lua_State *L)
{
    lsim *b = checkbox(L);
    int i = check_camera(L, b->s);
    tycho_sim_frame f;
    if (!tycho_sim_take_thermal(b->s, i - 1, &f)) {
        lua_pushnil(L);
        return 1;
    }
    if (b->tap) tycho_l_sim_tap_thermal(b, i, &f);
    if (b->view) tycho_l_sim_view_thermal(b, i, &f);
    return push_frame(L, &f, i);
}

static int l_last_thermal(lua_State *L)
{
    tycho_sim *s = checksim(L);
    int i = check_camera(L, s);
    tycho_sim_frame f;
    tycho_sim_last_thermal(s, i - 1, &f);
    return push_frame(L, &f, i);
}

static int l_imu(lua_State *L)
{
    tycho_sim_imu_sample m;
    tycho_sim_imu_read(checksim(L), &m);
    lua_pushnumber(L, m.pitch);
    lua_pushnumber(L, m.roll);
    lua_pushnumber(L, m.yaw_rate);
    lua_pushnumber(L, m.stamp);
    return 4;
}

static int l_launcher_spin(lua_State *L)
{
    tycho_sim *s = checksim(L);
    luaL_checktype(L, 2, LUA_TBOOLEAN);
    tycho_sim_launcher_spin(s, lua_toboolean(L, 2));
    return 0;
}

static void push_launch(lua_State *L, const tycho_sim_launch *l)
{
    lua_createtable(L, 0, 9);
    setnum(L, "t", l->t);
    setnum(L, "x", l->pose.x);
    setnum(L, "y", l->pose.y);
    setnum(L, "yaw", l->pose.yaw);
    if (l->engaged >= 0) lua_pushinteger(L, l->engaged + 1);
    else lua_pushboolean(L, 0);
    lua_setfield(L, -2, "engaged");
    if (l->nearest >= 0) {
        lua_pushinteger(L, l->nearest + 1);
        lua_setfield(L, -2, "nearest");
        setnum(L, "distance", l->distance);
        setnum(L, "bearing_error", l->bearing_err);
    }
    lua_pushstring(L, l->reason);
    lua_setfield(L, -2, "reason");
}

static int l_launcher_feed(lua_State *L)
{
    tycho_sim_launch l;
    tycho_launch_status st = tycho_sim_launcher_feed(checksim(L), &l);
    if (st != TYCHO_LAUNCH_FIRED) {
        lua_pushnil(L);
        lua_pushstring(L, l.reason);
        lua_pushstring(L, tycho_launch_status_name(st));
        return 3;
    }
    push_launch(L, &l);
    return 1;
}

static int l_launcher(lua_State *L)
{
    tycho_sim *s = checksim(L);
    double left = tycho_sim_launcher_spin_left(s);
    lua_createtable(L, 0, 4);
    lua_pushboolean(L, isfinite(left));
    lua_setfield(L, -2, "spinning");
    lua_pushboolean(L, left == 0);
    lua_setfield(L, -2, "ready");
    setnum(L, "spin_left", left);
    lua_pushinteger(L, tycho_sim_launcher_balls(s));
    lua_setfield(L, -2, "balls");
    return 1;
}

static int l_judge(lua_State *L)
{
    tycho_sim *s = checksim(L);
    const tycho_sim_config *c = tycho_sim_config_get(s);
    tycho_sim_launch l;
    tycho_sim_judge(tycho_sim_raymap(s), tycho_grid_resolution(tycho_sim_truth(s)), c->sources,
                    c->n_sources, &c->launcher, tycho_sim_pose(s), &l);
    l.t = tycho_sim_time(s);
    push_launch(L, &l);
    return 1;
}

static int l_launches(lua_State *L)
{
    int n;
    const tycho_sim_launch *all = tycho_sim_launches(checksim(L), &n);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        push_launch(L, &all[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int l_engaged(lua_State *L)
{
    tycho_sim *s = checksim(L);
    int n = tycho_sim_config_get(s)->n_sources;
    const bool *e = tycho_sim_engaged(s);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushboolean(L, e[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* A copy: the sim keeps its own truth, so nothing done to the grid affects
 * the simulation and the grid outlives the sim. */
static int l_truth(lua_State *L)
{
    tycho_err err = {0};
    tycho_grid *g = tycho_grid_copy(tycho_sim_truth(checksim(L)), &err);
    if (!g) return tycho_l_error(L, &err);
    tycho_l_pushgrid(L, g);
    return 1;
}

static int l_world(lua_State *L)
{
    lsim *b = checkbox(L);
    const tycho_sim_config *c = tycho_sim_config_get(b->s);
    lua_createtable(L, 0, 8);
    if (b->paths[0]) {
        lua_pushstring(L, b->paths);
        lua_setfield(L, -2, "path");
        lua_pushstring(L, b->map_path);
        lua_setfield(L, -2, "map");
    }
    lua_createtable(L, 0, 3);
    setnum(L, "x", c->start.x);
    setnum(L, "y", c->start.y);
    setnum(L, "yaw", c->start.yaw);
    lua_setfield(L, -2, "start");
    lua_createtable(L, c->n_sources, 0);
    for (int i = 0; i < c->n_sources; i++) {
        const tycho_heat_source *h = &c->sources[i];
        lua_createtable(L, 0, 5);
        setnum(L, "x", h->x);
        setnum(L, "y", h->y);
        setnum(L, "temp", h->temp);
        setnum(L, "radius", h->radius);
        setnum(L, "height", h->height);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "heat_sources");
    lua_createtable(L, c->n_ramps, 0);
    for (int i = 0; i < c->n_ramps; i++) {
        const tycho_ramp *r = &c->ramps[i];
        lua_createtable(L, 0, 6);
        setnum(L, "x0", r->x0);
        setnum(L, "y0", r->y0);
        setnum(L, "x1", r->x1);
        setnum(L, "y1", r->y1);
        setnum(L, "pitch", r->pitch);
        if (!isnan(r->dir)) setnum(L, "dir", r->dir);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "ramps");
    setnum(L, "ambient", c->ambient);
    lua_pushinteger(L, (lua_Integer)c->seed);
    lua_setfield(L, -2, "seed");
    lua_createtable(L, c->n_cameras, 0);
    for (int i = 0; i < c->n_cameras; i++) {
        const tycho_sim_camera *k = &c->cameras[i];
        lua_createtable(L, 0, 9);
        setnum(L, "yaw", k->yaw);
        setnum(L, "x", k->x);
        setnum(L, "y", k->y);
        setnum(L, "z", k->z);
        setnum(L, "fov_h", k->fov_h);
        setnum(L, "fov_v", k->fov_v);
        setnum(L, "rate", k->rate);
        setnum(L, "noise", k->noise);
        setnum(L, "quantum", k->quantum);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "cameras");
    const tycho_sim_lidar *l = &c->lidar;
    lua_createtable(L, 0, 9);
    lua_pushinteger(L, l->beams);
    lua_setfield(L, -2, "beams");
    setnum(L, "angle_min", l->angle_min);
    setnum(L, "angle_increment", l->angle_increment);
    setnum(L, "range_min", l->range_min);
    setnum(L, "range_max", l->range_max);
    setnum(L, "rate", l->rate);
    setnum(L, "noise", l->noise);
    setnum(L, "x", l->x);
    setnum(L, "y", l->y);
    lua_setfield(L, -2, "lidar");
    lua_createtable(L, 0, 4);
    setnum(L, "radius", c->robot.radius);
    setnum(L, "max_v", c->robot.max_v);
    setnum(L, "max_w", c->robot.max_w);
    setnum(L, "tick", c->robot.tick);
    lua_setfield(L, -2, "robot");
    lua_createtable(L, 0, 5);
    setnum(L, "spin_up", c->launcher.spin_up);
    setnum(L, "reload", c->launcher.reload);
    lua_pushinteger(L, c->launcher.balls);
    lua_setfield(L, -2, "balls");
    setnum(L, "range", c->launcher.range);
    setnum(L, "angle", c->launcher.angle);
    lua_setfield(L, -2, "launcher");
    lua_createtable(L, 0, 4);
    setnum(L, "rate", c->imu.rate);
    setnum(L, "transition", c->imu.transition);
    setnum(L, "noise", c->imu.noise);
    setnum(L, "rate_noise", c->imu.rate_noise);
    lua_setfield(L, -2, "imu");
    return 1;
}

static int l_gc(lua_State *L)
{
    lsim *b = luaL_checkudata(L, 1, SIM_MT);
    tycho_l_sim_untap(L, b);
    tycho_l_sim_untap_frames(L, b);
    tycho_l_sim_log_free(b);
    tycho_sim_free(b->s);
    b->s = NULL;
    return 0;
}

static int l_tostring(lua_State *L)
{
    lsim *b = luaL_checkudata(L, 1, SIM_MT);
    if (!b->s) {
        lua_pushliteral(L, "tycho.sim (freed)");
        return 1;
    }
    const tycho_sim_config *c = tycho_sim_config_get(b->s);
    tycho_pose2 p = tycho_sim_pose(b->s);
    int engaged = 0;
    for (int i = 0; i < c->n_sources; i++) engaged += tycho_sim_engaged(b->s)[i];
    char buf[256];
    snprintf(buf, sizeof buf,
             "tycho.sim%s%s: t=%.2f s, pose (%.3f, %.3f, %.3f), %d/%d sources engaged, "
             "%d balls left, %d collisions",
             b->paths[0] ? " " : "", b->paths, tycho_sim_time(b->s), p.x, p.y, p.yaw, engaged,
             c->n_sources, tycho_sim_launcher_balls(b->s), tycho_sim_collisions(b->s));
    lua_pushstring(L, buf);
    return 1;
}

/* __index: methods first, then the read-only fields time, collisions,
 * in_contact. */
static int l_index(lua_State *L)
{
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    if (!lua_isnil(L, -1)) return 1;
    const char *k = lua_tostring(L, 2);
    lsim *b = luaL_checkudata(L, 1, SIM_MT);
    if (!k || !b->s) return 1;
    if (strcmp(k, "time") == 0) lua_pushnumber(L, tycho_sim_time(b->s));
    else if (strcmp(k, "collisions") == 0) lua_pushinteger(L, tycho_sim_collisions(b->s));
    else if (strcmp(k, "in_contact") == 0) lua_pushboolean(L, tycho_sim_in_contact(b->s));
    else lua_pushnil(L);
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
-- simulator ---------------------------------------------------------------------------

---The deterministic simulator: a robot with LiDAR, two thermal cameras, IMU and launcher in a world.
---@class tycho.sim
---@field time number
---@field collisions integer
local sim = {}
tycho.sim = {}
---Loads a world file (a sandboxed Lua table; every field checked).
---@return tycho.sim
function tycho.sim.load(world_path, overrides) end
---@return tycho.sim
function tycho.sim.new(g, config) end
function sim:step(dt) end
---Velocity command (m/s, rad/s).
function sim:set_cmd(v, w) end
---The last velocity command as given to set_cmd (before the sim's limits).
---@return number v, number w
function sim:command() end
---@return number x, number y, number yaw
function sim:pose() end
---@return number x, number y, number yaw
function sim:odom() end
---The odometry pose at t, interpolated over the last 64 steps.
---@param t number
---@return number x, number y, number yaw
function sim:odom_at(t) end
---Records every odometry step, scan and thermal frame to a recording's writer
---from C (robot_replay.lua's tap, without a Lua call per sample).
---@param writer tycho.mcap_writer
---@param clock tycho.clock the mission's clock: the messages' log time
---@param channels table {odom = id, scan = id, thermal = {id1, id2}}
---@param templates table {odom =, scan =, thermal =} tycho.viz.template
function sim:tap(writer, clock, channels, templates) end
---Stops the tap.
---@return integer messages, string? err
function sim:untap() end
---Writes the viewer's /tf, /imu and /cmd_vel (robot_channels.lua's templates)
---to a recording's writer after each step a period past the last ones; with
---images, each thermal frame taken (sim:thermal) a period past its camera's
---last image goes as a colour-mapped image too, and each scan taken (sim:scan)
---scan_period past the last one as the LaserScan of the scan channel.
---@param writer tycho.mcap_writer
---@param clock tycho.clock the mission's clock: the messages' log time and stamp
---@param channels table {tf = id, imu = id, cmd = id}
---@param templates table {tf =, imu =, cmd =} tycho.viz.template (4, 3 and 2 numbers)
---@param period number seconds
---@param last? number the time of the last frames sent (by the feeder)
---@param images? {thermal?: integer[], period?: number, lo?: number, hi?: number, last?: number[], scan?: integer, scan_period?: number, scan_last?: number}
function sim:tap_frames(writer, clock, channels, templates, period, last, images) end
---Stops the viewer frames.
---@return integer messages, string? err, number? last the time of the last frames, number[] images_last, number? scan_last
function sim:untap_frames() end
---The odometry and IMU errors as resolved at creation (robot.errors preset
---draws filled in): preset, wheel_base, wheel_radius_error_left/right,
---wheel_base_error, encoder_ticks_per_m, slip_ramp, slip_contact, gyro_bias
---(rad/s), gyro_scale, noise_v, noise_w.
---@return table
function sim:errors() end
---@return number v, number w
function sim:velocity() end
function sim:teleport(x, y, yaw) end
---@return tycho.scan
function sim:scan() end
---@return tycho.scan|nil scan, number? stamp
function sim:last_scan() end
---@return number stamp, integer sample
function sim:scan_info() end
---@return table frames
function sim:thermal() end
---@return table|nil frames
function sim:last_thermal() end
---@return table imu {roll=, pitch=, yaw_rate=, ...}
function sim:imu() end
function sim:launcher_spin(on) end
---@return boolean fired, string? reason
function sim:launcher_feed() end
---@return table state
function sim:launcher() end
---@return table verdict
function sim:judge() end
---@return table[]
function sim:launches() end
---@return integer engaged, integer total
function sim:engaged() end
---A copy of the true map.
---@return tycho.grid
function sim:truth() end
---@return table world
function sim:world() end
*/
// clang-format on

static const luaL_Reg sim_methods[] = {
    {"step", l_step},
    {"set_cmd", l_set_cmd},
    {"command", l_command},
    {"pose", l_pose},
    {"odom", l_odom},
    {"odom_at", l_odom_at},
    {"tap", tycho_l_sim_tap},
    {"untap", tycho_l_sim_untap_method},
    {"tap_frames", tycho_l_sim_tap_frames},
    {"untap_frames", tycho_l_sim_untap_frames_method},
    {"errors", l_errors},
    {"velocity", l_velocity},
    {"teleport", l_teleport},
    {"scan_info", l_scan_info},
    {"thermal", l_thermal},
    {"last_thermal", l_last_thermal},
    {"imu", l_imu},
    {"launcher_spin", l_launcher_spin},
    {"launcher_feed", l_launcher_feed},
    {"launcher", l_launcher},
    {"judge", l_judge},
    {"launches", l_launches},
    {"engaged", l_engaged},
    {"truth", l_truth},
    {"world", l_world},
    {NULL, NULL},
};

void tycho_l_open_sim(lua_State *L, int module, int methods)
{
    (void)methods; /* sims are not grids: their methods live in their own table */
    tycho_l_sim_view_register(L);
    tycho_l_newclass(L, &(tycho_l_class){SIM_MT, sim_methods, l_index, l_gc, l_tostring, NULL});
    lua_getfield(L, -1, "methods");
    /* the scan methods keep tycho.scan.new (opened before us) if present */
    static const luaL_Reg scan_fns[] = {{"scan", l_scan}, {"last_scan", l_last_scan}, {NULL, NULL}};
    for (const luaL_Reg *r = scan_fns; r->name; r++) {
        lua_getfield(L, module, "scan");
        if (lua_istable(L, -1)) lua_getfield(L, -1, "new");
        else lua_pushnil(L);
        lua_remove(L, -2);
        lua_pushcclosure(L, r->func, 1);
        lua_setfield(L, -2, r->name);
    }
    lua_pop(L, 2);

    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, l_sim_load);
    lua_setfield(L, -2, "load");
    lua_pushcfunction(L, l_sim_new);
    lua_setfield(L, -2, "new");
    lua_setfield(L, module, "sim");
}
