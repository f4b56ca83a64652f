/* Lua bindings: the simulator's configuration tables (world files and
 * tycho.sim.new's argument) read into a tycho_sim_config, every field
 * checked, errors naming the file and the field (see l_sim.c). */
#include "l_sim.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

int tycho_l_sim_error(pctx *c, const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->file) return luaL_error(c->L, "%s: %s", c->file, msg);
    return luaL_error(c->L, "bad argument #2 to 'new' (%s)", msg);
}

/* A numeric field of a C struct: 'n' double, 'i' int; `req` must be given. */
typedef struct {
    const char *name;
    size_t off;
    char kind;
    bool req;
} fdesc;

#define F(type, member, name, kind, req)                                                           \
    {                                                                                              \
        name, offsetof(type, member), kind, req                                                    \
    }
#define CFG(member, name, kind) F(tycho_sim_config, member, name, kind, false)
#define CAM(member) F(tycho_sim_camera, member, #member, 'n', false)

static const fdesc start_f[] = {F(tycho_pose2, x, "x", 'n', true),
                                F(tycho_pose2, y, "y", 'n', true),
                                F(tycho_pose2, yaw, "yaw", 'n', false),
                                {0}};
static const fdesc source_f[] = {F(tycho_heat_source, x, "x", 'n', true),
                                 F(tycho_heat_source, y, "y", 'n', true),
                                 F(tycho_heat_source, temp, "temp", 'n', true),
                                 F(tycho_heat_source, radius, "radius", 'n', false),
                                 F(tycho_heat_source, height, "height", 'n', false),
                                 {0}};
static const fdesc ramp_f[] = {F(tycho_ramp, x0, "x0", 'n', true),
                               F(tycho_ramp, y0, "y0", 'n', true),
                               F(tycho_ramp, x1, "x1", 'n', true),
                               F(tycho_ramp, y1, "y1", 'n', true),
                               F(tycho_ramp, pitch, "pitch", 'n', true),
                               F(tycho_ramp, dir, "dir", 'n', false),
                               {0}};
static const fdesc robot_f[] = {CFG(robot.max_v, "max_v", 'n'),   CFG(robot.max_w, "max_w", 'n'),
                                CFG(robot.radius, "radius", 'n'), CFG(robot.tick, "tick", 'n'),
                                CFG(robot.errors, "errors", 'e'), {0}};
static const fdesc odom_f[] = {CFG(robot.odom_noise_v, "noise_v", 'n'),
                               CFG(robot.odom_noise_w, "noise_w", 'n'),
                               CFG(robot.wheel_base, "wheel_base", 'n'),
                               CFG(robot.wheel_radius_error_left, "wheel_radius_error_left", 'n'),
                               CFG(robot.wheel_radius_error_right, "wheel_radius_error_right", 'n'),
                               CFG(robot.wheel_base_error, "wheel_base_error", 'n'),
                               CFG(robot.encoder_ticks_per_m, "encoder_ticks_per_m", 'n'),
                               CFG(robot.slip_ramp, "slip_ramp", 'n'),
                               CFG(robot.slip_contact, "slip_contact", 'n'),
                               {0}};
static const fdesc lidar_f[] = {CFG(lidar.beams, "beams", 'i'),
                                CFG(lidar.angle_min, "angle_min", 'n'),
                                CFG(lidar.angle_increment, "angle_increment", 'n'),
                                CFG(lidar.range_min, "range_min", 'n'),
                                CFG(lidar.range_max, "range_max", 'n'),
                                CFG(lidar.rate, "rate", 'n'),
                                CFG(lidar.noise, "noise", 'n'),
                                CFG(lidar.x, "x", 'n'),
                                CFG(lidar.y, "y", 'n'),
                                {0}};
static const fdesc imu_f[] = {CFG(imu.rate, "rate", 'n'),
                              CFG(imu.transition, "transition", 'n'),
                              CFG(imu.noise, "noise", 'n'),
                              CFG(imu.rate_noise, "rate_noise", 'n'),
                              CFG(imu.gyro_bias, "gyro_bias", 'n'),
                              CFG(imu.gyro_scale, "gyro_scale", 'n'),
                              {0}};
static const fdesc launcher_f[] = {
    CFG(launcher.spin_up, "spin_up", 'n'), CFG(launcher.reload, "reload", 'n'),
    CFG(launcher.balls, "balls", 'i'),     CFG(launcher.range, "range", 'n'),
    CFG(launcher.angle, "angle", 'n'),     {0}};
/* `thermal` (all cameras) has every camera field but the yaw */
static const fdesc camera_f[] = {CAM(yaw),   CAM(x),    CAM(y),     CAM(z),       CAM(fov_h),
                                 CAM(fov_v), CAM(rate), CAM(noise), CAM(quantum), {0}};

/* Reads the fields of the table at t into base; any other key is an error
 * (catches typos). `path` names the table in messages ("lidar", "ramps[2]"). */
static void read_fields(pctx *c, int t, const char *path, const fdesc *f, void *base)
{
    lua_State *L = c->L;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            tycho_l_sim_error(c, "%s has a key of type %s (only named fields allowed)", path,
                              luaL_typename(L, -1));
        const char *k = lua_tostring(L, -1);
        const fdesc *d = f;
        while (d->name && strcmp(d->name, k) != 0) d++;
        if (!d->name) tycho_l_sim_error(c, "unknown field '%s.%s'", path, k);
    }
    for (; f->name; f++) {
        lua_getfield(L, t, f->name);
        if (lua_isnil(L, -1)) {
            if (f->req) tycho_l_sim_error(c, "%s.%s is required", path, f->name);
        } else if (f->kind == 'e') { /* the error preset, by name */
            const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
            if (v && !strcmp(v, "none")) *(int *)((char *)base + f->off) = TYCHO_SIM_ERRORS_NONE;
            else if (v && !strcmp(v, "turtlebot3"))
                *(int *)((char *)base + f->off) = TYCHO_SIM_ERRORS_TURTLEBOT3;
            else
                tycho_l_sim_error(c, "%s.%s must be \"none\" or \"turtlebot3\" (got %s)", path,
                                  f->name, v ? v : luaL_typename(L, -1));
        } else if (lua_type(L, -1) != LUA_TNUMBER) {
            tycho_l_sim_error(c, "%s.%s must be a number (got %s)", path, f->name,
                              luaL_typename(L, -1));
        } else if (f->kind == 'i') {
            lua_Number v = lua_tonumber(L, -1);
            if (v != floor(v) || !isfinite(v))
                tycho_l_sim_error(c, "%s.%s must be an integer (got %g)", path, f->name, (double)v);
            if (v < -2147483647.0 || v > 2147483647.0)
                tycho_l_sim_error(c, "%s.%s = %g is out of range", path, f->name, (double)v);
            *(int *)((char *)base + f->off) = (int)lua_tointeger(L, -1);
        } else {
            *(double *)((char *)base + f->off) = lua_tonumber(L, -1);
        }
        lua_pop(L, 1);
    }
}

/* Pushes t[key] and returns its index if it is a table; pops it and
 * returns 0 if nil; raises for anything else. */
static int subtable(pctx *c, int t, const char *key)
{
    lua_State *L = c->L;
    lua_getfield(L, t, key);
    if (lua_istable(L, -1)) return lua_gettop(L);
    if (!lua_isnil(L, -1))
        tycho_l_sim_error(c, "%s must be a table (got %s)", key, luaL_typename(L, -1));
    lua_pop(L, 1);
    return 0;
}

static void section(pctx *c, int t, const char *key, const fdesc *f, void *base)
{
    int s = subtable(c, t, key);
    if (!s) return;
    read_fields(c, s, key, f, base);
    lua_pop(c->L, 1);
}

/* Reads the array t[key] of tables into n structs of `size` bytes at base
 * (each first set to *init when given); returns the count. */
static int array(pctx *c, int t, const char *key, int max, const fdesc *f, void *base, size_t size,
                 const void *init)
{
    lua_State *L = c->L;
    int a = subtable(c, t, key);
    if (!a) return -1;
    int n = (int)lua_rawlen(L, a), count = 0;
    lua_pushnil(L);
    while (lua_next(L, a)) {
        lua_pop(L, 1);
        count++;
        if (lua_type(L, -1) != LUA_TNUMBER)
            tycho_l_sim_error(c, "%s must be an array (found a key of type %s)", key,
                              luaL_typename(L, -1));
    }
    if (count != n) tycho_l_sim_error(c, "%s must be an array without holes", key);
    if (n > max) tycho_l_sim_error(c, "%s: at most %d entries (got %d)", key, max, n);
    char path[64];
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s[%d]", key, i + 1);
        lua_rawgeti(L, a, i + 1);
        if (!lua_istable(L, -1))
            tycho_l_sim_error(c, "%s must be a table (got %s)", path, luaL_typename(L, -1));
        void *e = (char *)base + (size_t)i * size;
        if (init) memcpy(e, init, size);
        read_fields(c, lua_gettop(L), path, f, e);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return n;
}

/* Reads the config table at `t` into *cfg; sources and ramps go into
 * userdata buffers left on the stack (so a Lua error frees them). */
void tycho_l_sim_parse_config(pctx *c, int t, tycho_sim_config *cfg, bool is_file)
{
    static const char *const top[] = {
        "map",   "name", "description", "start",   "heat_sources", "ramps", "ambient",  "seed",
        "robot", "odom", "lidar",       "thermal", "cameras",      "imu",   "launcher", NULL};
    lua_State *L = c->L;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        int i = 0;
        while (k && top[i] && strcmp(top[i], k) != 0) i++;
        if (!k || !top[i]) tycho_l_sim_error(c, "unknown field '%s'", k ? k : luaL_typename(L, -1));
    }
    static const char *const strings[] = {"name", "description", NULL};
    for (int i = 0; strings[i]; i++) {
        lua_getfield(L, t, strings[i]);
        if (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING)
            tycho_l_sim_error(c, "%s must be a string (got %s)", strings[i], luaL_typename(L, -1));
        lua_pop(L, 1);
    }
    tycho_sim_config_defaults(cfg);
    if (!subtable(c, t, "start")) {
        if (is_file) tycho_l_sim_error(c, "start is required ({x=, y=, yaw=})");
    } else {
        read_fields(c, lua_gettop(L), "start", start_f, &cfg->start);
        lua_pop(L, 1);
    }
    lua_getfield(L, t, "ambient");
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TNUMBER)
            tycho_l_sim_error(c, "ambient must be a number (got %s)", luaL_typename(L, -1));
        cfg->ambient = lua_tonumber(L, -1);
    }
    lua_getfield(L, t, "seed");
    if (!lua_isnil(L, -1)) {
        if (!tycho_isinteger(L, -1) || lua_tonumber(L, -1) < 0)
            tycho_l_sim_error(c, "seed must be an integer >= 0 (got %s)", luaL_typename(L, -1));
        cfg->seed = (uint64_t)lua_tointeger(L, -1);
    }
    lua_pop(L, 2);

    tycho_heat_source def;
    tycho_heat_source_defaults(&def);
    tycho_heat_source *src = tycho_newuserdata(L, TYCHO_SIM_MAX_SOURCES * sizeof *src);
    cfg->n_sources =
        array(c, t, "heat_sources", TYCHO_SIM_MAX_SOURCES, source_f, src, sizeof *src, &def);
    if (cfg->n_sources < 0) cfg->n_sources = 0;
    cfg->sources = src;
    tycho_ramp *ramps = tycho_newuserdata(L, TYCHO_SIM_MAX_RAMPS * sizeof *ramps);
    tycho_ramp rdef = {0, 0, 0, 0, 0, NAN};
    cfg->n_ramps = array(c, t, "ramps", TYCHO_SIM_MAX_RAMPS, ramp_f, ramps, sizeof *ramps, &rdef);
    if (cfg->n_ramps < 0) cfg->n_ramps = 0;
    cfg->ramps = ramps;

    section(c, t, "robot", robot_f, cfg);
    section(c, t, "odom", odom_f, cfg);
    section(c, t, "lidar", lidar_f, cfg);
    section(c, t, "imu", imu_f, cfg);
    section(c, t, "launcher", launcher_f, cfg);
    /* `thermal` sets every camera; then `cameras[i]` sets camera i, and
     * their number (cameras = {} means none) */
    int s = subtable(c, t, "thermal");
    if (s) {
        lua_getfield(L, s, "yaw");
        if (!lua_isnil(L, -1))
            tycho_l_sim_error(c, "thermal.yaw: set each camera's yaw in cameras[i].yaw");
        lua_pop(L, 1);
        for (int i = 0; i < TYCHO_SIM_MAX_CAMERAS; i++)
            read_fields(c, s, "thermal", camera_f, &cfg->cameras[i]);
        lua_pop(L, 1);
    }
    int n = array(c, t, "cameras", TYCHO_SIM_MAX_CAMERAS, camera_f, cfg->cameras,
                  sizeof cfg->cameras[0], NULL);
    if (n >= 0) cfg->n_cameras = n;

    tycho_err err = {0};
    if (tycho_sim_config_validate(cfg, &err) != TYCHO_OK) tycho_l_sim_error(c, "%s", err.msg);
}
