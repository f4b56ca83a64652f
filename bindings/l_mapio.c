/* Lua bindings: ROS map_server map files and 8-bit images.
 *   tycho.map.load(yaml_path)               -> grid, meta
 *   tycho.map.save(grid, yaml_path [, fmt]) -> true   (fmt "pgm" default, or "png")
 *   tycho.map.parse_yaml(yaml_path)         -> meta
 *   tycho.image.load(path)                  -> width, height, channels
 * meta = {image=, resolution=, origin={x=, y=, yaw=, [1]=x, [2]=y, [3]=yaw},
 *         negate=bool, occupied_thresh=, free_thresh=, mode="trinary"|"scale"|"raw"}
 * Core failures raise Lua errors carrying the core message ("x.yaml:3: ..."). */
#include "ltycho.h"
#include "tycho/atomic_file.h"
#include "tycho/mapio.h"

#include <string.h>

static void set_number(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static void push_meta(lua_State *L, const tycho_map_meta *m)
{
    static const char *const modes[] = {"trinary", "scale", "raw"};
    lua_createtable(L, 0, 7);
    lua_pushstring(L, m->image);
    lua_setfield(L, -2, "image");
    set_number(L, "resolution", m->resolution);
    /* both o.x and o[1]: grid.origin uses names, map_server YAML a list */
    lua_createtable(L, 3, 3);
    set_number(L, "x", m->origin.x);
    set_number(L, "y", m->origin.y);
    set_number(L, "yaw", m->origin.yaw);
    lua_pushnumber(L, m->origin.x);
    lua_rawseti(L, -2, 1);
    lua_pushnumber(L, m->origin.y);
    lua_rawseti(L, -2, 2);
    lua_pushnumber(L, m->origin.yaw);
    lua_rawseti(L, -2, 3);
    lua_setfield(L, -2, "origin");
    lua_pushboolean(L, m->negate);
    lua_setfield(L, -2, "negate");
    set_number(L, "occupied_thresh", m->occupied_thresh);
    set_number(L, "free_thresh", m->free_thresh);
    lua_pushstring(L, modes[m->mode]);
    lua_setfield(L, -2, "mode");
}

static int l_map_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    tycho_map_meta m;
    tycho_err err = {0};
    tycho_grid *g = tycho_map_load(path, &m, &err);
    if (!g) return tycho_l_fail(L, &err);
    tycho_l_pushgrid(L, g);
    push_meta(L, &m);
    return 2;
}

static int l_map_save(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    const char *path = luaL_checkstring(L, 2);
    const char *fmt = luaL_optstring(L, 3, "pgm");
    luaL_argcheck(L, !strcmp(fmt, "pgm") || !strcmp(fmt, "png"), 3, "\"pgm\" or \"png\" expected");
    tycho_err err = {0};
    /* a file that cannot be written is the environment's failure: nil, message */
    if (tycho_map_save(g, path, fmt, &err) != TYCHO_OK) return tycho_l_fail(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_map_parse_yaml(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    tycho_map_meta m;
    tycho_err err = {0};
    if (tycho_map_parse_yaml(path, &m, &err) != TYCHO_OK) return tycho_l_fail(L, &err);
    push_meta(L, &m);
    return 1;
}

static int l_image_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    tycho_image img;
    tycho_err err = {0};
    if (tycho_image_load(path, &img, &err) != TYCHO_OK) return tycho_l_fail(L, &err);
    lua_pushinteger(L, img.width);
    lua_pushinteger(L, img.height);
    lua_pushinteger(L, img.channels);
    tycho_image_free(&img);
    return 3;
}

/* module[name], created if absent, so areas can share a namespace. */
static int sub_table(lua_State *L, int module, const char *name)
{
    lua_getfield(L, module, name);
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, module, name);
    }
    return lua_gettop(L);
}

/* tycho.write_atomic(path, data) -> true | nil, message. The file is
 * either the old one or the complete new one, whatever happens (temp file
 * beside it, fsync, rename): parameter files survive a power cut. */
static int l_write_atomic(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    size_t n;
    const char *data = luaL_checklstring(L, 2, &n);
    tycho_err err = {0};
    if (tycho_atomic_write(path, data, n, &err) != TYCHO_OK) {
        return tycho_l_fail(L, &err);
    }
    lua_pushboolean(L, 1);
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
-- map files -------------------------------------------------------------------------

tycho.map = {}
---Loads a ROS map_server YAML (+ PGM/PNG) with Nav2's semantics; nil and the
---message (file:line) when the file is missing or malformed.
---@return tycho.grid|nil grid, table|string meta_or_error
function tycho.map.load(yaml_path) end
---Writes the grid as map_server YAML + image (atomically). A file that cannot
---be written returns nil and the reason; a bad argument raises.
---@param fmt? "pgm"|"png"
---@return true|nil ok, string? err
function tycho.map.save(g, yaml_path, fmt) end
---The map YAML's fields; nil and the message (file:line) when it is missing or malformed.
---@return table|nil meta, string? err
function tycho.map.parse_yaml(yaml_path) end
tycho.image = {}
---nil and the message when the file is missing or not an image.
---@return integer|nil width, integer|string height_or_error, integer channels
function tycho.image.load(path) end
---Writes a file atomically (temp file, fsync, rename).
---@return true|nil ok, string? err
function tycho.write_atomic(path, data) end
*/
// clang-format on

void tycho_l_open_mapio(lua_State *L, int module, int methods)
{
    (void)methods;
    lua_pushcfunction(L, l_write_atomic);
    lua_setfield(L, module, "write_atomic");
    int map = sub_table(L, module, "map");
    lua_pushcfunction(L, l_map_load);
    lua_setfield(L, map, "load");
    lua_pushcfunction(L, l_map_save);
    lua_setfield(L, map, "save");
    lua_pushcfunction(L, l_map_parse_yaml);
    lua_setfield(L, map, "parse_yaml");
    int image = sub_table(L, module, "image");
    lua_pushcfunction(L, l_image_load);
    lua_setfield(L, image, "load");
    lua_pop(L, 2);
}
