/* Lua binding: devices through driver plugins (drivers/loader.h).
 *
 *   local dev, err = tycho.device.open(kind, driver, settings)
 *       kind: "range_scanner" | "thermal_camera" | "imu" | "diff_base" | "launcher"
 *       settings: {name = value} checked against the driver's schema
 *   dev:read() -> sample | nil (nothing new) | nil, "error"   -- never waits
 *   dev:write("velocity", v, w) | ("arm") | ("fire", n) | ("disarm") | ("safe_stop") -> true | nil,
 * "error" dev:close();  dev.kind, dev.driver;  tycho.device.path()
 *
 * Device errors come back as values (and the driver's thread goes on or
 * stops by itself); nothing here raises for a device problem, only for a
 * programming error (a bad argument). */
#include "home.h"
#include "largs.h"
#include "loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEVICE_MT "tycho.device"

typedef struct {
    tycho_device *d;
} ldev;

static const char *plugin_path(void)
{
    const char *p = getenv("TYCHO_DRIVER_PATH");
    return p && *p ? p : tycho_home_get()->plugin_dir;
}

static tycho_device *check_dev(lua_State *L)
{
    return TYCHO_L_CHECKBOX(L, 1, ldev, d, DEVICE_MT, "device is closed")->d;
}

static int l_open(lua_State *L)
{
    const char *kind_name = luaL_checkstring(L, 1);
    const char *driver = luaL_checkstring(L, 2);
    int kind = tycho_device_kind_parse(kind_name);
    if (kind < 0) {
        /* the kinds the loader knows, in its words */
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        for (int k = 1; strcmp(tycho_device_kind_name((tycho_device_kind)k), "?") != 0; k++) {
            if (k > 1) luaL_addstring(&b, ", ");
            luaL_addstring(&b, tycho_device_kind_name((tycho_device_kind)k));
        }
        luaL_addstring(&b, " expected");
        luaL_pushresult(&b);
        return luaL_argerror(L, 1, lua_tostring(L, -1));
    }
    if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
    lua_settop(L, 3);
    tycho_setting s[32];
    int n = 0;
    lua_newtable(L); /* index 4: converted values, kept alive until open returns */
    if (lua_istable(L, 3)) {
        lua_pushnil(L);
        while (lua_next(L, 3)) { /* key at -2, value at -1 */
            if (lua_type(L, -2) != LUA_TSTRING)
                luaL_argerror(L, 3, "setting names must be strings");
            if (n == 32) luaL_argerror(L, 3, "at most 32 settings");
            const char *v;
            int t = lua_type(L, -1);
            if (t == LUA_TBOOLEAN) v = lua_toboolean(L, -1) ? "true" : "false";
            else if (t == LUA_TSTRING) v = lua_tostring(L, -1); /* alive: the table holds it */
            else if (t == LUA_TNUMBER) {
                double x = lua_tonumber(L, -1);
                char buf[64];
                if (x == (double)(long long)x && x > -1e15 && x < 1e15)
                    snprintf(buf, sizeof buf, "%lld", (long long)x);
                else snprintf(buf, sizeof buf, "%.17g", x);
                lua_pushstring(L, buf);
                v = lua_tostring(L, -1);
                lua_rawseti(L, 4, (int)lua_rawlen(L, 4) + 1);
            } else {
                return luaL_argerror(
                    L, 3,
                    lua_pushfstring(L, "setting '%s': string, number or boolean expected",
                                    lua_tostring(L, -2)));
            }
            s[n].name = lua_tostring(L, -2);
            s[n].value = v;
            n++;
            lua_pop(L, 1); /* the value; the key stays for lua_next */
        }
    }
    ldev *b = tycho_newuserdata(L, sizeof *b);
    b->d = NULL;
    luaL_getmetatable(L, DEVICE_MT);
    lua_setmetatable(L, -2);
    tycho_err err = {0};
    b->d = tycho_device_open(plugin_path(), driver, (tycho_device_kind)kind, s, n, &err);
    if (!b->d) {
        return tycho_l_fail(L, &err);
    }
    return 1;
}

static void push_floats(lua_State *L, const float *v, int n, const char *field)
{
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushnumber(L, v[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, field);
}

static void push_sample(lua_State *L, const tycho_sample *s)
{
    lua_createtable(L, 0, 12);
    set_num(L, "t", s->t);
    set_num(L, "seq", (double)s->seq);
    switch (s->kind) {
    case TYCHO_DEVICE_RANGE_SCANNER:
        set_num(L, "angle_min", s->u.scan.angle_min);
        set_num(L, "angle_increment", s->u.scan.angle_increment);
        set_num(L, "range_min", s->u.scan.range_min);
        set_num(L, "range_max", s->u.scan.range_max);
        push_floats(L, s->u.scan.ranges,
                    s->u.scan.count < 0                         ? 0
                    : s->u.scan.count > TYCHO_SAMPLE_MAX_RANGES ? TYCHO_SAMPLE_MAX_RANGES
                                                                : s->u.scan.count,
                    "ranges");
        break;
    case TYCHO_DEVICE_THERMAL_CAMERA:
        push_floats(L, s->u.thermal.pixels, 64, "pixels");
        set_num(L, "thermistor", s->u.thermal.thermistor);
        break;
    case TYCHO_DEVICE_IMU:
        set_num(L, "ax", s->u.imu.ax);
        set_num(L, "ay", s->u.imu.ay);
        set_num(L, "az", s->u.imu.az);
        set_num(L, "gx", s->u.imu.gx);
        set_num(L, "gy", s->u.imu.gy);
        set_num(L, "gz", s->u.imu.gz);
        set_num(L, "roll", s->u.imu.roll);
        set_num(L, "pitch", s->u.imu.pitch);
        break;
    case TYCHO_DEVICE_DIFF_BASE:
        set_num(L, "x", s->u.base.x);
        set_num(L, "y", s->u.base.y);
        set_num(L, "yaw", s->u.base.yaw);
        set_num(L, "v", s->u.base.v);
        set_num(L, "w", s->u.base.w);
        set_num(L, "roll", s->u.base.roll);
        set_num(L, "pitch", s->u.base.pitch);
        set_num(L, "gyro_z", s->u.base.gyro_z);
        break;
    case TYCHO_DEVICE_LAUNCHER:
        set_int(L, "fired", s->u.launcher.fired);
        set_bool(L, "running", s->u.launcher.running);
        break;
    }
    if (s->status[0]) {
        lua_pushstring(L, s->status);
        lua_setfield(L, -2, "status");
    }
}

static int l_read(lua_State *L)
{
    tycho_device *d = check_dev(L);
    tycho_sample *s = lua_newuserdata(L, sizeof *s); /* big: not on the C stack */
    tycho_err err = {0};
    int r = tycho_device_read(d, s, &err);
    if (r < 0) {
        return tycho_l_fail(L, &err);
    }
    if (r == 0) return 0;
    push_sample(L, s);
    return 1;
}

static int l_write(lua_State *L)
{
    tycho_device *d = check_dev(L);
    static const char *const names[] = {"velocity", "arm", "disarm", "fire", "safe_stop", NULL};
    static const tycho_command_type types[] = {TYCHO_CMD_VELOCITY, TYCHO_CMD_ARM, TYCHO_CMD_DISARM,
                                               TYCHO_CMD_FIRE, TYCHO_CMD_SAFE_STOP};
    tycho_command c;
    memset(&c, 0, sizeof c);
    c.type = types[luaL_checkoption(L, 2, NULL, names)];
    if (c.type == TYCHO_CMD_VELOCITY) {
        c.v = luaL_checknumber(L, 3);
        c.w = luaL_checknumber(L, 4);
    } else if (c.type == TYCHO_CMD_FIRE) {
        c.count = (int)luaL_optinteger(L, 3, 1);
    }
    tycho_err err = {0};
    if (tycho_device_write(d, &c, &err) != TYCHO_OK) {
        return tycho_l_fail(L, &err);
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int l_close(lua_State *L)
{
    ldev *b = luaL_checkudata(L, 1, DEVICE_MT);
    tycho_device_close(b->d);
    b->d = NULL;
    return 0;
}

static int l_index(lua_State *L)
{
    tycho_device *d = check_dev(L);
    const char *k = luaL_checkstring(L, 2);
    if (!strcmp(k, "kind")) lua_pushstring(L, tycho_device_kind_name(tycho_device_driver(d)->kind));
    else if (!strcmp(k, "driver")) lua_pushstring(L, tycho_device_driver(d)->name);
    else {
        lua_pushvalue(L, 2);
        lua_rawget(L, lua_upvalueindex(1));
    }
    return 1;
}

static int l_tostring(lua_State *L)
{
    ldev *b = luaL_checkudata(L, 1, DEVICE_MT);
    if (!b->d) lua_pushliteral(L, "tycho.device (closed)");
    else
        lua_pushfstring(L, "tycho.device %s (%s)", tycho_device_driver(b->d)->name,
                        tycho_device_kind_name(tycho_device_driver(b->d)->kind));
    return 1;
}

static int l_path(lua_State *L)
{
    lua_pushstring(L, plugin_path());
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
-- devices (driver plugins) --------------------------------------------------------------------

---A device opened through a driver plugin (drivers/include/tycho/driver.h).
---@class tycho.device
---@field kind "range_scanner"|"thermal_camera"|"imu"|"diff_base"|"launcher"
---@field driver string
local device = {}
tycho.device = {}
---Opens a device: the driver's settings are checked against its schema.
---@param kind "range_scanner"|"thermal_camera"|"imu"|"diff_base"|"launcher"
---@param driver string   e.g. "tb3_base", "amg8833", "launcher_gpio"
---@param settings? table<string, string|number|boolean>
---@return tycho.device|nil device, string? err
function tycho.device.open(kind, driver, settings) end
---The plugin path (TYCHO_DRIVER_PATH, else the plugins folder of tycho.home()).
---@return string
function tycho.device.path() end
---The latest sample if there is a new one (never waits).
---@return table|nil sample, string? err
function device:read() end
---@param command "velocity"|"arm"|"fire"|"disarm"|"safe_stop"
---@return true|nil ok, string? err
function device:write(command, a, b) end
function device:close() end
*/
// clang-format on

void tycho_l_open_device(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg meth[] = {
        {"read", l_read}, {"write", l_write}, {"close", l_close}, {NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){DEVICE_MT, meth, l_index, l_close, l_tostring, NULL});
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {{"open", l_open}, {"path", l_path}, {NULL, NULL}};
    lua_newtable(L);
    luaL_setfuncs(L, fns, 0);
    lua_setfield(L, module, "device");
}
