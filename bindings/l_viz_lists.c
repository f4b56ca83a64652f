/* tycho.viz's lists kept in C, for lists a feeder sends whole again and
 * again while they gain a few entries at a time (the other encoders are
 * l_viz.c; a recording's writer reads both lists, l_mcap.c):
 *
 *   tycho.viz.pose_list([tolerance]) -> poses (list:add(x, y [, yaw]), #list), thinned
 *                                       within tolerance metres as they come
 *   tycho.viz.text_window(max)       -> the newest texts joined with "," (w:add(s),
 *                                       w:text(), #w) */
#include <math.h>

#include "ltycho.h"
#include "tycho/text_window.h"
#include "tycho/trail.h"

/* A pose list (tycho.viz.pose_list): x, y, yaw triples kept in C, for a
 * list that grows (a driven trail) and is sent whole again and again: a
 * message copies it instead of reading a Lua table of tables each time.
 * Given a tolerance, it is thinned as it grows (tycho/trail.h): the trail
 * of a 300 s mission was 800 points sent every second, 200 within 1 cm. */
#define POSE_LIST_MT "tycho.viz_pose_list"
typedef tycho_trail pose_list;

const tycho_trail *tycho_l_test_pose_list(lua_State *L, int idx)
{
    return luaL_testudata(L, idx, POSE_LIST_MT);
}

static int l_pose_list(lua_State *L)
{
    double tolerance = luaL_optnumber(L, 1, 0);
    luaL_argcheck(L, isfinite(tolerance) && tolerance >= 0, 1,
                  "tolerance: a finite number >= 0 (metres) expected");
    pose_list *pl = tycho_newuserdata(L, sizeof *pl);
    tycho_trail_init(pl, tolerance);
    luaL_getmetatable(L, POSE_LIST_MT);
    lua_setmetatable(L, -2);
    return 1;
}

static int pose_list_add(lua_State *L)
{
    pose_list *pl = luaL_checkudata(L, 1, POSE_LIST_MT);
    double x = luaL_checknumber(L, 2), y = luaL_checknumber(L, 3), yaw = luaL_optnumber(L, 4, 0);
    luaL_argcheck(L, isfinite(x), 2, "finite number expected");
    luaL_argcheck(L, isfinite(y), 3, "finite number expected");
    luaL_argcheck(L, isfinite(yaw), 4, "finite number expected");
    if (tycho_trail_add(pl, x, y, yaw) != TYCHO_OK)
        return luaL_error(L, "pose_list: out of memory");
    return 0;
}

static int pose_list_len(lua_State *L)
{
    pose_list *pl = luaL_checkudata(L, 1, POSE_LIST_MT);
    lua_pushinteger(L, (lua_Integer)pl->n);
    return 1;
}

static int pose_list_free(lua_State *L)
{
    tycho_trail_free(luaL_checkudata(L, 1, POSE_LIST_MT));
    return 0;
}

/* A text window (tycho.viz.text_window): the newest texts of a stream
 * kept joined with "," in C (tycho/text_window.h), for a list sent whole
 * again and again that gains a few texts each time (a scene's detection
 * spheres): a recording's writer:join copies it as one piece, where a Lua
 * list of 200 strings was gathered string by string twice over. */
#define TEXT_WINDOW_MT "tycho.viz_text_window"

static int l_text_window(lua_State *L)
{
    lua_Integer max = luaL_checkinteger(L, 1);
    luaL_argcheck(L, max >= 1 && max <= 1000000, 1, "max: 1 to 1000000 texts expected");
    tycho_text_window *w = tycho_newuserdata(L, sizeof *w);
    tycho_text_window_init(w, (size_t)max);
    luaL_getmetatable(L, TEXT_WINDOW_MT);
    lua_setmetatable(L, -2);
    return 1;
}

static int text_window_add(lua_State *L)
{
    tycho_text_window *w = luaL_checkudata(L, 1, TEXT_WINDOW_MT);
    size_t n;
    const char *s = luaL_checklstring(L, 2, &n);
    tycho_err err = {0};
    if (tycho_text_window_add(w, s, n, &err) != TYCHO_OK) return luaL_error(L, "%s", err.msg);
    return 0;
}

static int text_window_text(lua_State *L)
{
    size_t n;
    const char *s = tycho_text_window_text(luaL_checkudata(L, 1, TEXT_WINDOW_MT), &n);
    lua_pushlstring(L, s, n);
    return 1;
}

static int text_window_len(lua_State *L)
{
    tycho_text_window *w = luaL_checkudata(L, 1, TEXT_WINDOW_MT);
    lua_pushinteger(L, (lua_Integer)w->count);
    return 1;
}

static int text_window_free(lua_State *L)
{
    tycho_text_window_free(luaL_checkudata(L, 1, TEXT_WINDOW_MT));
    return 0;
}

const char *tycho_l_test_text_window(lua_State *L, int idx, size_t *len)
{
    tycho_text_window *w = luaL_testudata(L, idx, TEXT_WINDOW_MT);
    return w ? tycho_text_window_text(w, len) : NULL;
}

void tycho_l_open_viz_lists(lua_State *L, int viz)
{
    static const luaL_Reg pose_list_methods[] = {{"add", pose_list_add}, {NULL, NULL}};
    static const luaL_Reg pose_list_meta[] = {{"__len", pose_list_len}, {NULL, NULL}};
    static const tycho_l_class pose_list_class = {
        POSE_LIST_MT, pose_list_methods, NULL, pose_list_free, NULL, pose_list_meta};
    tycho_l_newclass(L, &pose_list_class);
    lua_pop(L, 1);
    static const luaL_Reg text_window_methods[] = {
        {"add", text_window_add}, {"text", text_window_text}, {NULL, NULL}};
    static const luaL_Reg text_window_meta[] = {{"__len", text_window_len}, {NULL, NULL}};
    static const tycho_l_class text_window_class = {
        TEXT_WINDOW_MT, text_window_methods, NULL, text_window_free, NULL, text_window_meta};
    tycho_l_newclass(L, &text_window_class);
    lua_pop(L, 1);
    lua_pushcfunction(L, l_pose_list);
    lua_setfield(L, viz, "pose_list");
    lua_pushcfunction(L, l_text_window);
    lua_setfield(L, viz, "text_window");
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---A list of poses kept in C (add(x, y [, yaw]), #list), for a list that grows and is sent
---whole again and again (a driven trail): tycho.viz.poses and a recording copy it instead
---of reading a Lua table of points each time. With a tolerance (metres, default 0: every
---point kept) a point is dropped while it and those dropped before it stay within the
---tolerance of the line from the last point kept to the newest; the newest is always last.
---@param tolerance? number
---@return tycho.viz_pose_list
function tycho.viz.pose_list(tolerance) end
---@class tycho.viz_pose_list
local viz_pose_list = {}
---Appends a pose (finite numbers; yaw 0 when left out).
function viz_pose_list:add(x, y, yaw) end
---The newest texts of a stream (at most max) kept joined with "," in C (add(s), text(),
---#window), for a list sent whole again and again that gains a few texts each time: a
---recording's writer:join copies it as one piece. Adding past max drops the oldest.
---@param max integer
---@return tycho.viz_text_window
function tycho.viz.text_window(max) end
---@class tycho.viz_text_window
local viz_text_window = {}
---Appends a text (the oldest goes when there are max).
function viz_text_window:add(s) end
---The texts joined with ",", oldest first ("" when empty).
---@return string
function viz_text_window:text() end
*/
// clang-format on
