/* Lua bindings: tycho.picture(grid, {scale=}) or tycho.picture(heightfield, {scale=, map=})
 * and the picture userdata. */
#include "ltycho.h"
#include "tycho/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIC_MT "tycho.picture"

typedef struct {
    tycho_picture *p;
    double *xy; /* path scratch, kept between calls */
    size_t cap;
} lpic;

static lpic *check_box(lua_State *L, int idx)
{
    return TYCHO_L_CHECKBOX(L, idx, lpic, p, PIC_MT, "picture has been freed");
}

static const struct {
    const char *name;
    tycho_rgb c;
} NAMED[] = {
    {"red", {255, 0, 0}},      {"green", {0, 160, 0}},     {"blue", {0, 0, 255}},
    {"black", {0, 0, 0}},      {"white", {255, 255, 255}}, {"yellow", {255, 220, 0}},
    {"orange", {255, 140, 0}}, {"cyan", {0, 200, 220}},    {"magenta", {220, 0, 220}},
    {"grey", {128, 128, 128}}, {"gray", {128, 128, 128}},
};

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

static int color_error(lua_State *L, int argn)
{
    return luaL_error(L,
                      "bad field 'color' in argument #%d (\"#rrggbb\", a colour name or "
                      "{r, g, b} with 0..255 expected)",
                      argn);
}

/* The value on top of the stack as a colour ("#rrggbb", a name, {r, g, b}
 * or {r=, g=, b=}). */
static tycho_rgb to_color(lua_State *L, int argn)
{
    tycho_rgb c = {0, 0, 0};
    int t = lua_gettop(L);
    if (lua_type(L, t) == LUA_TSTRING) {
        const char *s = lua_tostring(L, t);
        if (s[0] == '#' && strlen(s) == 7) {
            int v[6];
            for (int i = 0; i < 6; i++)
                if ((v[i] = hexval(s[i + 1])) < 0) color_error(L, argn);
            c.r = (uint8_t)(v[0] * 16 + v[1]);
            c.g = (uint8_t)(v[2] * 16 + v[3]);
            c.b = (uint8_t)(v[4] * 16 + v[5]);
            return c;
        }
        for (size_t i = 0; i < sizeof NAMED / sizeof NAMED[0]; i++)
            if (!strcmp(s, NAMED[i].name)) return NAMED[i].c;
        color_error(L, argn);
    }
    if (lua_type(L, t) != LUA_TTABLE) color_error(L, argn);
    static const char *const keys[3] = {"r", "g", "b"};
    uint8_t out[3];
    for (int i = 0; i < 3; i++) {
        lua_rawgeti(L, t, i + 1);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            lua_getfield(L, t, keys[i]);
        }
        if (!tycho_isinteger(L, -1)) color_error(L, argn);
        lua_Integer v = lua_tointeger(L, -1);
        if (v < 0 || v > 255) color_error(L, argn);
        out[i] = (uint8_t)v;
        lua_pop(L, 1);
    }
    c.r = out[0], c.g = out[1], c.b = out[2];
    return c;
}

static tycho_rgb opt_color(lua_State *L, int idx, int argn, tycho_rgb def)
{
    if (lua_isnoneornil(L, idx)) return def;
    lua_getfield(L, idx, "color");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return def;
    }
    tycho_rgb c = to_color(L, argn);
    lua_pop(L, 1);
    return c;
}

static double opt_positive(lua_State *L, int idx, int argn, const char *key, double def, double max)
{
    double v = tycho_l_optfield_number(L, idx, argn, key, def);
    if (!(v >= 0 && v <= max))
        luaL_error(L, "bad field '%s' in argument #%d (pixels 0..%d expected)", key, argn,
                   (int)max);
    return v;
}

static const tycho_opt_field picture_fields[] = {
    TYCHO_OPT_INT("scale"), TYCHO_OPT_OF("map", TYCHO_OPT_ANY), {0}};
static const tycho_opt_field path_fields[] = {
    TYCHO_OPT_OF("color", TYCHO_OPT_ANY), TYCHO_OPT_NUM("width"), {0}};
static const tycho_opt_field point_fields[] = {TYCHO_OPT_OF("color", TYCHO_OPT_ANY),
                                               TYCHO_OPT_NUM("radius"),
                                               TYCHO_OPT_STR("shape"),
                                               TYCHO_OPT_NUM("width"),
                                               {0}};
static const tycho_opt_field pose_fields[] = {
    TYCHO_OPT_OF("color", TYCHO_OPT_ANY), TYCHO_OPT_NUM("length"), TYCHO_OPT_NUM("width"), {0}};
static const tycho_opt_field annotate_fields[] = {TYCHO_OPT_STR("title"),
                                                  TYCHO_OPT_TAB("legend"),
                                                  TYCHO_OPT_BOOL("scale_bar"),
                                                  TYCHO_OPT_BOOL("axes"),
                                                  {0}};
static const tycho_opt_field legend_item_fields[] = {
    TYCHO_OPT_STR("label"), TYCHO_OPT_STR("symbol"), TYCHO_OPT_OF("color", TYCHO_OPT_ANY), {0}};
static const tycho_opt_spec annotate_spec = {"picture:annotate", annotate_fields};
static const tycho_opt_spec legend_item_spec = {"picture:annotate legend item", legend_item_fields};
static const tycho_opt_spec picture_spec = {"picture", picture_fields};
static const tycho_opt_spec path_spec = {"picture:path", path_fields};
static const tycho_opt_spec point_spec = {"picture:point", point_fields};
static const tycho_opt_spec pose_spec = {"picture:pose", pose_fields};

static void check_opts(lua_State *L, int idx, const tycho_opt_spec *spec)
{
    tycho_l_checkopts(L, idx, idx, spec);
}

/* tycho.picture(grid, {scale = 1}), tycho.picture(heightfield, {scale = 1, map = terrain_map}) */
static int l_picture(lua_State *L)
{
    tycho_heightfield *hf = tycho_l_testheightfield(L, 1);
    tycho_grid *g = hf ? NULL : tycho_l_checkgrid(L, 1);
    check_opts(L, 2, &picture_spec);
    tycho_terrain *map = NULL;
    if (hf && lua_istable(L, 2)) {
        lua_getfield(L, 2, "map");
        if (!lua_isnil(L, -1) && !(map = tycho_l_testterrainmap(L, -1)))
            return luaL_error(L, "bad field 'map' in argument #2 (tycho.terrain_map expected)");
        lua_pop(L, 1);
    }
    lua_Integer scale = tycho_l_optfield_integer(L, 2, 2, "scale", 1);
    if (scale < 1 || scale > TYCHO_PICTURE_MAX_SCALE)
        return luaL_error(L, "bad field 'scale' in argument #2 (pixels per cell 1..%d expected)",
                          TYCHO_PICTURE_MAX_SCALE);
    lpic *b = tycho_newuserdata(L, sizeof *b);
    memset(b, 0, sizeof *b);
    luaL_getmetatable(L, PIC_MT);
    lua_setmetatable(L, -2);
    tycho_err err = {0};
    b->p = hf ? tycho_picture_heights(hf, map, (int)scale, &err)
              : tycho_picture_new(g, (int)scale, &err);
    if (!b->p) return tycho_l_error(L, &err);
    return 1;
}

/* One path point at the top of the stack: {x=, y=} or {x, y}. */
static bool point_xy(lua_State *L, double *x, double *y)
{
    int t = lua_gettop(L);
    if (!lua_istable(L, t) && !lua_isuserdata(L, t)) return false;
    lua_getfield(L, t, "x");
    lua_getfield(L, t, "y");
    if (lua_isnil(L, -2) && lua_isnil(L, -1) && lua_istable(L, t)) {
        lua_pop(L, 2);
        lua_rawgeti(L, t, 1);
        lua_rawgeti(L, t, 2);
    }
    bool ok = lua_type(L, -2) == LUA_TNUMBER && lua_type(L, -1) == LUA_TNUMBER;
    *x = lua_tonumber(L, -2);
    *y = lua_tonumber(L, -1);
    lua_settop(L, t);
    return ok;
}

/* pic:path(points, {color = "#ff0000", width = 2}); points is an array of
 * {x=, y=} (or {x, y}), or anything with __len and __index giving those. */
static int l_path(lua_State *L)
{
    lpic *b = check_box(L, 1);
    size_t n;
    if (luaL_callmeta(L, 2, "__len")) { /* proxies and path userdata */
        if (lua_type(L, -1) != LUA_TNUMBER) return luaL_argerror(L, 2, "__len must give a number");
        lua_Number len = lua_tonumber(L, -1);
        lua_pop(L, 1);
        if (!(len >= 0 && len < 1e9)) return luaL_argerror(L, 2, "bad point count");
        n = (size_t)len;
    } else if (lua_istable(L, 2)) n = lua_rawlen(L, 2);
    else return luaL_argerror(L, 2, "array of points {x=, y=} expected");
    check_opts(L, 3, &path_spec);
    tycho_rgb c = opt_color(L, 3, 3, (tycho_rgb){255, 0, 0});
    double width = opt_positive(L, 3, 3, "width", 2, 1000);
    if (n > b->cap) {
        double *xy = realloc(b->xy, n * 2 * sizeof *xy);
        if (!xy) return luaL_error(L, "out of memory for a %d-point path", (int)n);
        b->xy = xy;
        b->cap = n;
    }
    for (size_t i = 0; i < n; i++) {
        lua_pushinteger(L, (lua_Integer)i + 1);
        lua_gettable(L, 2);
        if (!point_xy(L, &b->xy[2 * i], &b->xy[2 * i + 1])) {
            char msg[80];
            snprintf(msg, sizeof msg, "point %d is not {x=, y=} with numbers", (int)i + 1);
            return luaL_argerror(L, 2, msg);
        }
        lua_pop(L, 1);
    }
    tycho_picture_path(b->p, b->xy, n, c, width);
    lua_settop(L, 1);
    return 1;
}

/* pic:point(x, y, {color = "#0000ff", radius = 3, shape = "dot"|"circle"|"cross", width = 1}) */
static int l_point(lua_State *L)
{
    lpic *b = check_box(L, 1);
    double x = luaL_checknumber(L, 2), y = luaL_checknumber(L, 3);
    check_opts(L, 4, &point_spec);
    tycho_rgb c = opt_color(L, 4, 4, (tycho_rgb){0, 0, 255});
    double radius = opt_positive(L, 4, 4, "radius", 3, 10000);
    double width = opt_positive(L, 4, 4, "width", 1, 1000);
    tycho_marker m = TYCHO_MARKER_DOT;
    if (!lua_isnoneornil(L, 4)) {
        lua_getfield(L, 4, "shape");
        if (!lua_isnil(L, -1)) {
            const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
            if (!strcmp(s, "dot")) m = TYCHO_MARKER_DOT;
            else if (!strcmp(s, "circle")) m = TYCHO_MARKER_CIRCLE;
            else if (!strcmp(s, "cross")) m = TYCHO_MARKER_CROSS;
            else
                return luaL_error(L, "bad field 'shape' in argument #4 (\"dot\", \"circle\" or "
                                     "\"cross\" expected)");
        }
        lua_pop(L, 1);
    }
    tycho_picture_marker(b->p, x, y, m, radius, width, c);
    lua_settop(L, 1);
    return 1;
}

/* pic:pose(x, y, yaw, {color = "#00a000", length = 15, width = 2}) */
static int l_pose(lua_State *L)
{
    lpic *b = check_box(L, 1);
    double x = luaL_checknumber(L, 2), y = luaL_checknumber(L, 3), yaw = luaL_checknumber(L, 4);
    check_opts(L, 5, &pose_spec);
    tycho_rgb c = opt_color(L, 5, 5, (tycho_rgb){0, 160, 0});
    double length = opt_positive(L, 5, 5, "length", 15, 10000);
    double width = opt_positive(L, 5, 5, "width", 2, 1000);
    tycho_picture_pose(b->p, x, y, yaw, length, width, c);
    lua_settop(L, 1);
    return 1;
}

static const struct {
    const char *name;
    tycho_legend_symbol symbol;
} SYMBOLS[] = {{"dot", TYCHO_LEGEND_DOT},     {"circle", TYCHO_LEGEND_CIRCLE},
               {"cross", TYCHO_LEGEND_CROSS}, {"line", TYCHO_LEGEND_LINE},
               {"arrow", TYCHO_LEGEND_ARROW}, {"cell", TYCHO_LEGEND_CELL}};

/* pic:annotate{title =, legend = {{label =, symbol =, color =}, ...},
 *              scale_bar = true, axes = true} -> pic (a panel added below the map) */
static int l_annotate(lua_State *L)
{
    lpic *b = check_box(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    check_opts(L, 2, &annotate_spec);
    tycho_annotation a = {.scale_bar = true, .axes = true};
    lua_getfield(L, 2, "title");
    a.title = lua_tostring(L, -1); /* kept alive by the options table */
    lua_pop(L, 1);
    a.scale_bar = tycho_l_optfield_boolean(L, 2, 2, "scale_bar", 1);
    a.axes = tycho_l_optfield_boolean(L, 2, 2, "axes", 1);
    tycho_legend_item items[TYCHO_LEGEND_MAX];
    lua_getfield(L, 2, "legend");
    int legend = lua_gettop(L);
    if (!lua_isnil(L, legend)) {
        int n = (int)lua_rawlen(L, legend);
        if (n > TYCHO_LEGEND_MAX)
            return luaL_error(L, "bad field 'legend' in argument #2 (at most %d items, got %d)",
                              TYCHO_LEGEND_MAX, n);
        for (int i = 0; i < n; i++) {
            lua_rawgeti(L, legend, i + 1);
            int it = lua_gettop(L);
            if (!lua_istable(L, it))
                return luaL_error(L, "bad field 'legend[%d]' in argument #2 (table expected)",
                                  i + 1);
            tycho_l_checkopts(L, it, 2, &legend_item_spec);
            lua_getfield(L, it, "label");
            if (!lua_isstring(L, -1))
                return luaL_error(
                    L, "bad field 'legend[%d].label' in argument #2 (string expected)", i + 1);
            items[i].label = lua_tostring(L, -1); /* kept alive by the legend table */
            lua_getfield(L, it, "symbol");
            const char *sym = luaL_optstring(L, -1, "dot");
            bool found = false;
            for (size_t k = 0; k < sizeof SYMBOLS / sizeof SYMBOLS[0]; k++)
                if (!strcmp(sym, SYMBOLS[k].name))
                    items[i].symbol = SYMBOLS[k].symbol, found = true;
            if (!found)
                return luaL_error(
                    L,
                    "bad field 'legend[%d].symbol' in argument #2 (\"dot\", "
                    "\"circle\", \"cross\", \"line\", \"arrow\" or \"cell\" expected)",
                    i + 1);
            items[i].color = opt_color(L, it, 2, (tycho_rgb){0, 0, 255});
            lua_settop(L, legend);
        }
        a.items = items;
        a.n_items = n;
    }
    tycho_err err = {0};
    if (tycho_picture_annotate(b->p, &a, &err) != TYCHO_OK) return tycho_l_error(L, &err);
    lua_settop(L, 1);
    return 1;
}

/* pic:save(path) -> true, or nil, message (like io.open) */
static int l_save(lua_State *L)
{
    lpic *b = check_box(L, 1);
    const char *path = luaL_checkstring(L, 2);
    tycho_err err = {0};
    if (tycho_picture_save_png(b->p, path, &err) != TYCHO_OK) return tycho_l_fail(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}

/* pic:pixel(px, py) -> r, g, b (nil outside); px, py count from the top-left, 0-based */
static int l_pixel(lua_State *L)
{
    lpic *b = check_box(L, 1);
    int px = (int)luaL_checkinteger(L, 2), py = (int)luaL_checkinteger(L, 3);
    tycho_rgb c;
    if (!tycho_picture_pixel(b->p, px, py, &c)) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushinteger(L, c.r);
    lua_pushinteger(L, c.g);
    lua_pushinteger(L, c.b);
    return 3;
}

/* pic:world_to_pixel(x, y) -> px, py (continuous; floor them for the pixel) */
static int l_world_to_pixel(lua_State *L)
{
    lpic *b = check_box(L, 1);
    double px, py;
    tycho_picture_world_to_pixel(b->p, luaL_checknumber(L, 2), luaL_checknumber(L, 3), &px, &py);
    lua_pushnumber(L, px);
    lua_pushnumber(L, py);
    return 2;
}

static int l_index(lua_State *L)
{
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    if (!lua_isnil(L, -1)) return 1;
    lpic *b = check_box(L, 1);
    const char *k = lua_tostring(L, 2);
    const tycho_image *img = tycho_picture_image(b->p);
    if (!k) return 0;
    if (!strcmp(k, "width")) lua_pushinteger(L, img->width);
    else if (!strcmp(k, "height")) lua_pushinteger(L, img->height);
    else if (!strcmp(k, "scale")) lua_pushinteger(L, tycho_picture_scale(b->p));
    else return 0;
    return 1;
}

static int l_tostring(lua_State *L)
{
    lpic *b = luaL_checkudata(L, 1, PIC_MT);
    if (!b->p) {
        lua_pushliteral(L, "tycho.picture (freed)");
        return 1;
    }
    const tycho_image *img = tycho_picture_image(b->p);
    char buf[96];
    snprintf(buf, sizeof buf, "tycho.picture %dx%d px, %d px/cell", img->width, img->height,
             tycho_picture_scale(b->p));
    lua_pushstring(L, buf);
    return 1;
}

static int l_gc(lua_State *L)
{
    lpic *b = luaL_checkudata(L, 1, PIC_MT);
    tycho_picture_free(b->p);
    free(b->xy);
    b->p = NULL;
    b->xy = NULL;
    b->cap = 0;
    return 0;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
-- pictures --------------------------------------------------------------------------

---@class tycho.picture
local picture = {}
---A picture of an occupancy grid, or of a height field shaded (with what a terrain map knew laid over).
---@param g tycho.grid|tycho.heightfield
---@param o? {scale?: integer, map?: tycho.terrain_map}
---@return tycho.picture
function tycho.picture(g, o) end
---@param points tycho.xy[]
---@param o? {color?: string, width?: number}
function picture:path(points, o) end
---@param o? {color?: string, radius?: number, shape?: "dot"|"circle"|"cross", width?: number}
function picture:point(x, y, o) end
---@param o? {color?: string, length?: number, width?: number}
function picture:pose(x, y, yaw, o) end
---Adds a panel under the map: the title, a scale bar (1, 2 or 5 x 10^k m),
---the world's x and y axes, and a legend of symbols (at most 64) with their
---labels (text by cairo). The map's pixels and world_to_pixel are unchanged.
---@param o {title?: string, legend?: {label: string, symbol?: "dot"|"circle"|"cross"|"line"|"arrow"|"cell", color?: string|integer[]}[], scale_bar?: boolean, axes?: boolean}
---@return tycho.picture self
function picture:annotate(o) end
---@return true|nil ok, string? err
function picture:save(path) end
---@return integer? r, integer g, integer b
function picture:pixel(px, py) end
---@return number px, number py
function picture:world_to_pixel(x, y) end
*/
// clang-format on

static const luaL_Reg pic_methods[] = {
    {"path", l_path},
    {"point", l_point},
    {"pose", l_pose},
    {"annotate", l_annotate},
    {"save", l_save},
    {"pixel", l_pixel},
    {"world_to_pixel", l_world_to_pixel},
    {NULL, NULL},
};

void tycho_l_open_render(lua_State *L, int module, int methods)
{
    (void)methods;
    tycho_l_newclass(L, &(tycho_l_class){PIC_MT, pic_methods, l_index, l_gc, l_tostring, NULL});
    lua_pop(L, 1);
    lua_pushcfunction(L, l_picture);
    lua_setfield(L, module, "picture");
    tycho_l_register_opts(L, &picture_spec);
    tycho_l_register_opts(L, &path_spec);
    tycho_l_register_opts(L, &point_spec);
    tycho_l_register_opts(L, &pose_spec);
    tycho_l_register_opts(L, &annotate_spec);
}
