/* tycho_hil: a Lua module for the hardware-in-the-loop bridge (test only).
 * It gives a Lua script the devices' far ends, so the simulator can stand
 * behind the real drivers:
 *
 *   local hil = require "tycho_hil"
 *   local board = hil.opencr()          -- an OpenCR on a pty, wheels and IMU set from outside
 *   board.path; board:command() -> v, w, torque_on
 *   board:wheels(ticks_l, ticks_r); board:imu(roll, pitch, yaw, gyro_z); board:close()
 *   local lds = hil.lds01()             -- an LDS-01 on a pty
 *   lds.path; lds:send(ranges) -> true | false (not spinning, or the pty is full); lds:close()
 *       ranges: 360 numbers, beam i at i degrees counter-clockwise, m (0 or inf: no return) */
#define _GNU_SOURCE /* posix_openpt, ptsname */
#include "compat.h"
#include "opencr_sim.h"
#include "tycho/lidarproto.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BOARD_MT "tycho_hil.opencr"
#define LDS_MT "tycho_hil.lds01"

typedef struct {
    opencr o;
    bool running;
    char path[128];
} lboard;

typedef struct {
    int master;
    bool spinning;
    long sent, dropped;
    char path[128];
} llds;

static lboard *check_board(lua_State *L)
{
    lboard *b = luaL_checkudata(L, 1, BOARD_MT);
    if (!b->running) luaL_argerror(L, 1, "board closed");
    return b;
}

static int l_opencr(lua_State *L)
{
    lboard *b = tycho_newuserdata(L, sizeof *b);
    memset(b, 0, sizeof *b);
    luaL_getmetatable(L, BOARD_MT);
    lua_setmetatable(L, -2);
    snprintf(b->path, sizeof b->path, "%s", start_board(&b->o));
    b->o.external = true;
    opencr_set_imu(&b->o, 0, 0, 0, 0);
    b->running = true;
    return 1;
}

static int l_board_command(lua_State *L)
{
    double v, w;
    bool torque;
    opencr_command(&check_board(L)->o, &v, &w, &torque);
    lua_pushnumber(L, v);
    lua_pushnumber(L, w);
    lua_pushboolean(L, torque);
    return 3;
}

static int l_board_wheels(lua_State *L)
{
    opencr_set_wheels(&check_board(L)->o, luaL_checknumber(L, 2), luaL_checknumber(L, 3));
    return 0;
}

static int l_board_imu(lua_State *L)
{
    opencr_set_imu(&check_board(L)->o, luaL_checknumber(L, 2), luaL_checknumber(L, 3),
                   luaL_checknumber(L, 4), luaL_checknumber(L, 5));
    return 0;
}

static int l_board_close(lua_State *L)
{
    lboard *b = luaL_checkudata(L, 1, BOARD_MT);
    if (b->running) stop_board(&b->o);
    b->running = false;
    return 0;
}

static int l_board_index(lua_State *L)
{
    const char *k = luaL_checkstring(L, 2);
    if (!strcmp(k, "path")) {
        lua_pushstring(L, ((lboard *)luaL_checkudata(L, 1, BOARD_MT))->path);
        return 1;
    }
    luaL_getmetatable(L, BOARD_MT);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, k);
    return 1;
}

static int l_lds01(lua_State *L)
{
    llds *d = tycho_newuserdata(L, sizeof *d);
    memset(d, 0, sizeof *d);
    d->master = -1;
    luaL_getmetatable(L, LDS_MT);
    lua_setmetatable(L, -2);
    d->master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
    if (d->master < 0 || grantpt(d->master) < 0 || unlockpt(d->master) < 0)
        return luaL_error(L, "lds01: no pseudo-terminal: %s", strerror(errno));
    snprintf(d->path, sizeof d->path, "%s", ptsname(d->master));
    return 1;
}

static llds *check_lds(lua_State *L)
{
    llds *d = luaL_checkudata(L, 1, LDS_MT);
    if (d->master < 0) luaL_argerror(L, 1, "lds01 closed");
    return d;
}

/* Reads the driver's commands: 'b' starts the motor, 'e' stops it. */
static void commands(llds *d)
{
    uint8_t cmd[64];
    ssize_t n;
    while ((n = read(d->master, cmd, sizeof cmd)) > 0)
        for (ssize_t i = 0; i < n; i++) {
            if (cmd[i] == 'b') d->spinning = true;
            if (cmd[i] == 'e') d->spinning = false;
        }
}

static int l_lds_send(lua_State *L)
{
    llds *d = check_lds(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    commands(d);
    if (!d->spinning) {
        lua_pushboolean(L, 0);
        return 1;
    }
    float r[TYCHO_LDS01_BEAMS];
    for (int i = 0; i < TYCHO_LDS01_BEAMS; i++) {
        lua_rawgeti(L, 2, i + 1);
        double v = lua_tonumber(L, -1);
        lua_pop(L, 1);
        r[i] = (isfinite(v) && v > 0 && v < 65.0) ? (float)v : 0.0f;
    }
    static uint8_t rev[TYCHO_LDS01_PACKETS * TYCHO_LDS01_PACKET];
    tycho_lds01_encode(r, 300, rev);
    /* all or nothing: a revolution that does not fit the pty's buffer is
     * dropped whole, as a sensor whose reader stalls would lose it */
    size_t off = 0;
    while (off < sizeof rev) {
        ssize_t w = write(d->master, rev + off, sizeof rev - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    if (off == sizeof rev) d->sent++;
    else d->dropped++;
    lua_pushboolean(L, off == sizeof rev);
    return 1;
}

static int l_lds_close(lua_State *L)
{
    llds *d = luaL_checkudata(L, 1, LDS_MT);
    if (d->master >= 0) close(d->master);
    d->master = -1;
    return 0;
}

static int l_lds_index(lua_State *L)
{
    llds *d = luaL_checkudata(L, 1, LDS_MT);
    const char *k = luaL_checkstring(L, 2);
    if (!strcmp(k, "path")) lua_pushstring(L, d->path);
    else if (!strcmp(k, "sent")) lua_pushinteger(L, d->sent);
    else if (!strcmp(k, "dropped")) lua_pushinteger(L, d->dropped);
    else if (!strcmp(k, "spinning")) lua_pushboolean(L, d->spinning);
    else {
        luaL_getmetatable(L, LDS_MT);
        lua_getfield(L, -1, "methods");
        lua_getfield(L, -1, k);
    }
    return 1;
}

static void new_class(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction index,
                      lua_CFunction gc)
{
    luaL_newmetatable(L, name);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_setfield(L, -2, "methods");
    lua_pushcfunction(L, index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
}

int luaopen_tycho_hil(lua_State *L)
{
    static const luaL_Reg board[] = {{"command", l_board_command},
                                     {"wheels", l_board_wheels},
                                     {"imu", l_board_imu},
                                     {"close", l_board_close},
                                     {NULL, NULL}};
    new_class(L, BOARD_MT, board, l_board_index, l_board_close);
    static const luaL_Reg lds[] = {{"send", l_lds_send}, {"close", l_lds_close}, {NULL, NULL}};
    new_class(L, LDS_MT, lds, l_lds_index, l_lds_close);
    static const luaL_Reg fns[] = {{"opencr", l_opencr}, {"lds01", l_lds01}, {NULL, NULL}};
    lua_newtable(L);
    luaL_setfuncs(L, fns, 0);
    return 1;
}
