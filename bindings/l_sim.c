/* Lua bindings: the simulator (tycho.sim.load, tycho.sim.new and the sim
 * userdata's methods).
 *
 * A world file is a Lua chunk returning a table; it runs in a sandbox whose
 * only globals are math, string and table (copies) plus the pure base
 * functions (pairs, ipairs, next, select, type, tonumber, tostring, error,
 * assert, unpack), with an instruction budget, and every field is checked
 * (unknown fields are errors, to catch typos). Errors name the file and the
 * field: "maps/w.lua: heat_sources[2].temp must be a number (got string)". */
#include "ltycho.h"
#include "tycho/mapio.h"
#include "tycho/sim.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#if TYCHO_LUAJIT
#include <luajit.h>
#endif

#define SIM_MT "tycho.sim"
#define DEG (M_PI / 180.0)
/* A world file gets this many VM instructions (far more than any real one needs). */
#define WORLD_BUDGET 20000000

typedef struct {
    tycho_sim *s;
    char *map_path;   /* into paths[], "" for tycho.sim.new */
    char paths[];     /* world path \0 map path \0 */
} lsim;

/* --- parsing a config table ---------------------------------------------- */

typedef struct {
    lua_State *L;
    const char *file; /* world file, or NULL: errors then blame argument #2 of 'new' */
} pctx;

static int perr(pctx *c, const char *fmt, ...)
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

#define F(type, member, name, kind, req) {name, offsetof(type, member), kind, req}
#define CFG(member, name, kind) F(tycho_sim_config, member, name, kind, false)
#define CAM(member) F(tycho_sim_camera, member, #member, 'n', false)

static const fdesc start_f[] = {F(tycho_pose2, x, "x", 'n', true), F(tycho_pose2, y, "y", 'n', true),
                                F(tycho_pose2, yaw, "yaw", 'n', false), {0}};
static const fdesc source_f[] = {
    F(tycho_heat_source, x, "x", 'n', true), F(tycho_heat_source, y, "y", 'n', true),
    F(tycho_heat_source, temp, "temp", 'n', true), F(tycho_heat_source, radius, "radius", 'n', false),
    F(tycho_heat_source, height, "height", 'n', false), {0}};
static const fdesc ramp_f[] = {
    F(tycho_ramp, x0, "x0", 'n', true), F(tycho_ramp, y0, "y0", 'n', true),
    F(tycho_ramp, x1, "x1", 'n', true), F(tycho_ramp, y1, "y1", 'n', true),
    F(tycho_ramp, pitch, "pitch", 'n', true), F(tycho_ramp, dir, "dir", 'n', false), {0}};
static const fdesc robot_f[] = {CFG(robot.max_v, "max_v", 'n'), CFG(robot.max_w, "max_w", 'n'),
                                CFG(robot.radius, "radius", 'n'), CFG(robot.tick, "tick", 'n'), {0}};
static const fdesc odom_f[] = {CFG(robot.odom_noise_v, "noise_v", 'n'),
                               CFG(robot.odom_noise_w, "noise_w", 'n'), {0}};
static const fdesc lidar_f[] = {
    CFG(lidar.beams, "beams", 'i'), CFG(lidar.angle_min, "angle_min", 'n'),
    CFG(lidar.angle_increment, "angle_increment", 'n'), CFG(lidar.range_min, "range_min", 'n'),
    CFG(lidar.range_max, "range_max", 'n'), CFG(lidar.rate, "rate", 'n'),
    CFG(lidar.noise, "noise", 'n'), CFG(lidar.x, "x", 'n'), CFG(lidar.y, "y", 'n'), {0}};
static const fdesc imu_f[] = {CFG(imu.rate, "rate", 'n'), CFG(imu.transition, "transition", 'n'),
                              CFG(imu.noise, "noise", 'n'), CFG(imu.rate_noise, "rate_noise", 'n'),
                              {0}};
static const fdesc launcher_f[] = {
    CFG(launcher.spin_up, "spin_up", 'n'), CFG(launcher.reload, "reload", 'n'),
    CFG(launcher.balls, "balls", 'i'), CFG(launcher.range, "range", 'n'),
    CFG(launcher.angle, "angle", 'n'), {0}};
/* `thermal` (all cameras) has every camera field but the yaw */
static const fdesc camera_f[] = {CAM(yaw), CAM(x), CAM(y), CAM(z), CAM(fov_h), CAM(fov_v),
                                 CAM(rate), CAM(noise), CAM(quantum), {0}};

/* Reads the fields of the table at t into base; any other key is an error
 * (catches typos). `path` names the table in messages ("lidar", "ramps[2]"). */
static void read_fields(pctx *c, int t, const char *path, const fdesc *f, void *base)
{
    lua_State *L = c->L;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            perr(c, "%s has a key of type %s (only named fields allowed)", path,
                 luaL_typename(L, -1));
        const char *k = lua_tostring(L, -1);
        const fdesc *d = f;
        while (d->name && strcmp(d->name, k) != 0) d++;
        if (!d->name) perr(c, "unknown field '%s.%s'", path, k);
    }
    for (; f->name; f++) {
        lua_getfield(L, t, f->name);
        if (lua_isnil(L, -1)) {
            if (f->req) perr(c, "%s.%s is required", path, f->name);
        } else if (lua_type(L, -1) != LUA_TNUMBER) {
            perr(c, "%s.%s must be a number (got %s)", path, f->name, luaL_typename(L, -1));
        } else if (f->kind == 'i') {
            lua_Number v = lua_tonumber(L, -1);
            if (!tycho_isinteger(L, -1) || v < -2147483647.0 || v > 2147483647.0)
                perr(c, "%s.%s must be an integer", path, f->name);
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
    if (!lua_isnil(L, -1)) perr(c, "%s must be a table (got %s)", key, luaL_typename(L, -1));
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
static int array(pctx *c, int t, const char *key, int max, const fdesc *f, void *base,
                 size_t size, const void *init)
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
            perr(c, "%s must be an array (found a key of type %s)", key, luaL_typename(L, -1));
    }
    if (count != n) perr(c, "%s must be an array without holes", key);
    if (n > max) perr(c, "%s: at most %d entries (got %d)", key, max, n);
    char path[64];
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s[%d]", key, i + 1);
        lua_rawgeti(L, a, i + 1);
        if (!lua_istable(L, -1)) perr(c, "%s must be a table (got %s)", path, luaL_typename(L, -1));
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
static void parse_config(pctx *c, int t, tycho_sim_config *cfg, bool is_file)
{
    static const char *const top[] = {"map", "name", "description", "start", "heat_sources",
                                      "ramps", "ambient", "seed", "robot", "odom", "lidar",
                                      "thermal", "cameras", "imu", "launcher", NULL};
    lua_State *L = c->L;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        int i = 0;
        while (k && top[i] && strcmp(top[i], k) != 0) i++;
        if (!k || !top[i])
            perr(c, "unknown field '%s'", k ? k : luaL_typename(L, -1));
    }
    static const char *const strings[] = {"name", "description", NULL};
    for (int i = 0; strings[i]; i++) {
        lua_getfield(L, t, strings[i]);
        if (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING)
            perr(c, "%s must be a string (got %s)", strings[i], luaL_typename(L, -1));
        lua_pop(L, 1);
    }
    tycho_sim_config_defaults(cfg);
    if (!subtable(c, t, "start")) {
        if (is_file) perr(c, "start is required ({x=, y=, yaw=})");
    } else {
        read_fields(c, lua_gettop(L), "start", start_f, &cfg->start);
        lua_pop(L, 1);
    }
    lua_getfield(L, t, "ambient");
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TNUMBER)
            perr(c, "ambient must be a number (got %s)", luaL_typename(L, -1));
        cfg->ambient = lua_tonumber(L, -1);
    }
    lua_getfield(L, t, "seed");
    if (!lua_isnil(L, -1)) {
        if (!tycho_isinteger(L, -1) || lua_tonumber(L, -1) < 0)
            perr(c, "seed must be an integer >= 0 (got %s)", luaL_typename(L, -1));
        cfg->seed = (uint64_t)lua_tointeger(L, -1);
    }
    lua_pop(L, 2);

    tycho_heat_source def;
    tycho_heat_source_defaults(&def);
    tycho_heat_source *src = tycho_newuserdata(L, TYCHO_SIM_MAX_SOURCES * sizeof *src);
    cfg->n_sources = array(c, t, "heat_sources", TYCHO_SIM_MAX_SOURCES, source_f, src,
                           sizeof *src, &def);
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
        if (!lua_isnil(L, -1)) perr(c, "thermal.yaw: set each camera's yaw in cameras[i].yaw");
        lua_pop(L, 1);
        for (int i = 0; i < TYCHO_SIM_MAX_CAMERAS; i++)
            read_fields(c, s, "thermal", camera_f, &cfg->cameras[i]);
        lua_pop(L, 1);
    }
    int n = array(c, t, "cameras", TYCHO_SIM_MAX_CAMERAS, camera_f, cfg->cameras,
                  sizeof cfg->cameras[0], NULL);
    if (n >= 0) cfg->n_cameras = n;

    tycho_err err = {0};
    if (tycho_sim_config_validate(cfg, &err) != TYCHO_OK) perr(c, "%s", err.msg);
}

/* Creates the sim userdata (box first, so a failed push cannot leak the
 * sim), then the sim itself; frees `truth` (a map we loaded) either way. */
static int push_sim(lua_State *L, pctx *c, const tycho_grid *truth, tycho_grid *owned,
                    const tycho_sim_config *cfg, const char *world, const char *map)
{
    size_t lw = strlen(world), lm = strlen(map);
    lsim *box = tycho_newuserdata(L, sizeof *box + lw + lm + 2);
    box->s = NULL;
    memcpy(box->paths, world, lw + 1);
    box->map_path = box->paths + lw + 1;
    memcpy(box->map_path, map, lm + 1);
    luaL_getmetatable(L, SIM_MT);
    lua_setmetatable(L, -2);
    tycho_err err = {0};
    box->s = tycho_sim_new(truth, cfg, &err);
    tycho_grid_free(owned);
    if (!box->s) perr(c, "%s", err.msg);
    return 1;
}

/* tycho.sim.new(grid, config) */
static int l_sim_new(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    pctx c = {L, NULL};
    lua_getfield(L, 2, "map");
    if (!lua_isnil(L, -1)) perr(&c, "map is for world files; pass the grid as argument #1");
    lua_pop(L, 1);
    tycho_sim_config cfg;
    parse_config(&c, 2, &cfg, false);
    return push_sim(L, &c, g, NULL, &cfg, "", "");
}

static void budget_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    luaL_error(L, "world file ran too long (more than %d instructions)", WORLD_BUDGET);
}

/* Runs the world file in its sandbox; leaves the returned table on the stack. */
static void run_world(lua_State *L, const char *path)
{
    if (luaL_loadfilex(L, path, "t") != LUA_OK) lua_error(L);
    int chunk = lua_gettop(L);
    lua_newtable(L); /* the environment */
    static const char *const libs[] = {"math", "string", "table", NULL};
    for (int i = 0; libs[i]; i++) {
        lua_newtable(L);
        lua_getglobal(L, libs[i]);
        if (lua_istable(L, -1)) {
            lua_pushnil(L);
            while (lua_next(L, -2)) {
                lua_pushvalue(L, -2);
                lua_insert(L, -2);
                lua_rawset(L, -5);
            }
        }
        lua_pop(L, 1);
        lua_setfield(L, -2, libs[i]);
    }
    static const char *const base[] = {"pairs", "ipairs", "next", "select", "type", "tonumber",
                                       "tostring", "error", "assert", "unpack", NULL};
    for (int i = 0; base[i]; i++) {
        lua_getglobal(L, base[i]);
        if (lua_isnil(L, -1) && strcmp(base[i], "unpack") == 0) {
            lua_pop(L, 1);
            lua_getglobal(L, "table");
            if (lua_istable(L, -1)) lua_getfield(L, -1, "unpack");
            else lua_pushnil(L);
            lua_remove(L, -2);
        }
        lua_setfield(L, -2, base[i]);
    }
#if TYCHO_LUAJIT
    lua_setfenv(L, chunk);
    /* count hooks do not fire in compiled traces: interpret the world file */
    luaJIT_setmode(L, chunk, LUAJIT_MODE_ALLFUNC | LUAJIT_MODE_OFF);
#else
    lua_setupvalue(L, chunk, 1); /* _ENV */
#endif
    lua_Hook old = lua_gethook(L);
    int old_mask = lua_gethookmask(L), old_count = lua_gethookcount(L);
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, WORLD_BUDGET);
    int rc = lua_pcall(L, 0, 1, 0);
    lua_sethook(L, old, old_mask, old_count);
    if (rc != LUA_OK) {
        if (lua_type(L, -1) == LUA_TSTRING && !strstr(lua_tostring(L, -1), path))
            luaL_error(L, "%s: %s", path, lua_tostring(L, -1));
        lua_error(L);
    }
    if (!lua_istable(L, -1))
        luaL_error(L, "%s: must return a table (got %s)", path, luaL_typename(L, -1));
}

/* Sections whose fields an override merges into (others are replaced). */
static bool merged_section(const char *k)
{
    static const char *const m[] = {"start", "robot", "odom", "lidar", "thermal", "imu",
                                    "launcher", NULL};
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
        perr(&c, "map must be a string naming a map_server YAML file (got %s)",
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
    parse_config(&c, w, &cfg, true);
    map = lua_tostring(L, map_idx);
    tycho_err err = {0};
    tycho_grid *g = tycho_map_load(map, NULL, &err);
    if (!g) return perr(&c, "map '%s': %s", map, err.msg);
    return push_sim(L, &c, g, g, &cfg, path, map);
}

/* --- the sim userdata ---------------------------------------------------- */

static lsim *checkbox(lua_State *L)
{
    lsim *b = luaL_checkudata(L, 1, SIM_MT);
    if (!b->s) luaL_argerror(L, 1, "sim is not initialised");
    return b;
}

static tycho_sim *checksim(lua_State *L) { return checkbox(L)->s; }

static void setnum(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static int l_step(lua_State *L)
{
    tycho_sim *s = checksim(L);
    double dt = luaL_checknumber(L, 2);
    tycho_err err = {0};
    if (tycho_sim_step(s, dt, &err) != TYCHO_OK) return luaL_argerror(L, 2, err.msg);
    lua_pushnumber(L, tycho_sim_time(s));
    return 1;
}

static int l_set_cmd(lua_State *L)
{
    tycho_sim *s = checksim(L);
    double v = luaL_checknumber(L, 2), w = luaL_checknumber(L, 3);
    tycho_sim_set_cmd(s, v, w);
    tycho_sim_get_cmd(s, &v, &w);
    lua_pushnumber(L, v);
    lua_pushnumber(L, w);
    return 2;
}

static int push_pose(lua_State *L, tycho_pose2 p)
{
    lua_pushnumber(L, p.x);
    lua_pushnumber(L, p.y);
    lua_pushnumber(L, p.yaw);
    return 3;
}

static int l_pose(lua_State *L) { return push_pose(L, tycho_sim_pose(checksim(L))); }
static int l_odom(lua_State *L) { return push_pose(L, tycho_sim_odom(checksim(L))); }

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
    tycho_sim_scan sc;
    if (!tycho_sim_take_scan(checksim(L), &sc)) {
        lua_pushnil(L);
        return 1;
    }
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
    tycho_sim *s = checksim(L);
    int i = check_camera(L, s);
    tycho_sim_frame f;
    if (!tycho_sim_take_thermal(s, i - 1, &f)) {
        lua_pushnil(L);
        return 1;
    }
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

static const luaL_Reg sim_methods[] = {
    {"step", l_step},
    {"set_cmd", l_set_cmd},
    {"pose", l_pose},
    {"odom", l_odom},
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
    luaL_newmetatable(L, SIM_MT);
    int mt = lua_gettop(L);
    lua_newtable(L);
    for (const luaL_Reg *r = sim_methods; r->name; r++) {
        lua_pushcfunction(L, r->func);
        lua_setfield(L, -2, r->name);
    }
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
    lua_pushvalue(L, -1);
    lua_setfield(L, mt, "methods");
    lua_pushcclosure(L, l_index, 1);
    lua_setfield(L, mt, "__index");
    lua_pushcfunction(L, l_gc);
    lua_setfield(L, mt, "__gc");
    lua_pushcfunction(L, l_tostring);
    lua_setfield(L, mt, "__tostring");
    lua_pop(L, 1);

    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, l_sim_load);
    lua_setfield(L, -2, "load");
    lua_pushcfunction(L, l_sim_new);
    lua_setfield(L, -2, "new");
    lua_setfield(L, module, "sim");
}
