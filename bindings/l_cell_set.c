/* tycho.cell_set{resolution =}: a set of world cells (core/cell_set.c) for
 * the thermal sweep's "which wall cells has a camera looked at". */
#include "ltycho.h"
#include "tycho/cell_set.h"

#include <math.h>

#define CELL_SET_MT "tycho.cell_set"

typedef struct {
    tycho_cell_set *s;
} lcellset;

static tycho_cell_set *check_set(lua_State *L, int idx)
{
    return TYCHO_L_CHECKBOX(L, idx, lcellset, s, CELL_SET_MT, "cell set is closed")->s;
}

static const tycho_opt_field set_fields[] = {TYCHO_OPT_NUM_POS("resolution"), {0}};
static const tycho_opt_spec set_spec = {"cell_set", set_fields};

/* tycho.cell_set{resolution = m} */
static int l_new(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    tycho_l_checkopts(L, 1, 1, &set_spec);
    lua_getfield(L, 1, "resolution");
    if (lua_isnil(L, -1))
        return luaL_error(L, "bad argument #1 to 'cell_set' (resolution required)");
    double res = lua_tonumber(L, -1);
    lua_pop(L, 1);
    lcellset *b = tycho_newuserdata(L, sizeof *b);
    b->s = NULL;
    luaL_setmetatable(L, CELL_SET_MT);
    tycho_err err = {0};
    b->s = tycho_cell_set_new(res, &err);
    if (!b->s) return tycho_l_error(L, &err);
    return 1;
}

static double check_finite(lua_State *L, int idx)
{
    double v = luaL_checknumber(L, idx);
    luaL_argcheck(L, isfinite(v), idx, "must be finite");
    return v;
}

/* set:has(x, y) -> boolean */
static int l_has(lua_State *L)
{
    tycho_cell_set *s = check_set(L, 1);
    lua_pushboolean(L, tycho_cell_set_has(s, check_finite(L, 2), check_finite(L, 3)));
    return 1;
}

/* set:add(x, y) -> true when new */
static int l_add(lua_State *L)
{
    tycho_cell_set *s = check_set(L, 1);
    int r = tycho_cell_set_add(s, check_finite(L, 2), check_finite(L, 3));
    if (r < 0) return luaL_error(L, "cell set: out of memory");
    lua_pushboolean(L, r);
    return 1;
}

/* set:observe(pose, scan, cam_yaw, fov, max_range) -> cells added */
static int l_observe(lua_State *L)
{
    tycho_cell_set *s = check_set(L, 1);
    tycho_pose2 pose = tycho_l_checkpose(L, 2, 2, "pose", true);
    const tycho_scan *scan = tycho_l_checkscan(L, 3);
    double cam_yaw = check_finite(L, 4), fov = luaL_checknumber(L, 5);
    double max_range = luaL_checknumber(L, 6);
    luaL_argcheck(L, fov > 0 && fov <= 2 * M_PI, 5, "fov must be in (0, 2 pi]");
    luaL_argcheck(L, max_range > 0, 6, "max_range must be > 0");
    size_t added = 0;
    tycho_err err = {0};
    if (tycho_cell_set_observe(s, pose, scan, cam_yaw, fov, max_range, &added, &err) != TYCHO_OK)
        return tycho_l_error(L, &err);
    lua_pushinteger(L, (lua_Integer)added);
    return 1;
}

static int l_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)tycho_cell_set_count(check_set(L, 1)));
    return 1;
}

static int l_gc(lua_State *L)
{
    lcellset *b = luaL_checkudata(L, 1, CELL_SET_MT);
    tycho_cell_set_free(b->s);
    b->s = NULL;
    return 0;
}

static int l_tostring(lua_State *L)
{
    lcellset *b = luaL_checkudata(L, 1, CELL_SET_MT);
    if (!b->s) lua_pushliteral(L, "tycho.cell_set (closed)");
    else
        lua_pushfstring(L, "tycho.cell_set (%d cells at %f m)", (int)tycho_cell_set_count(b->s),
                        tycho_cell_set_resolution(b->s));
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---A set of world cells (core/cell_set.c): the thermal sweep's cells a
---camera has looked at. A point is the cell floor(x/res + 0.5), floor(y/res + 0.5).
---@class tycho.cell_set
local cell_set = {}
---@param o {resolution: number}
---@return tycho.cell_set
function tycho.cell_set(o) end
---@param x number
---@param y number
---@return boolean
function cell_set:has(x, y) end
---@param x number
---@param y number
---@return boolean added
function cell_set:add(x, y) end
---Adds the cells round the end of every beam of `scan` (taken at `pose`)
---within fov/2 of the camera axis cam_yaw (robot frame) and max_range.
---@param pose table {x=, y=, yaw=}
---@param scan tycho.scan
---@param cam_yaw number
---@param fov number
---@param max_range number
---@return integer added
function cell_set:observe(pose, scan, cam_yaw, fov, max_range) end
*/
// clang-format on

void tycho_l_open_cell_set(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg fns[] = {
        {"has", l_has}, {"add", l_add}, {"observe", l_observe}, {NULL, NULL}};
    static const luaL_Reg meta[] = {{"__len", l_len}, {NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){CELL_SET_MT, fns, NULL, l_gc, l_tostring, meta});
    lua_pop(L, 1);
    lua_pushcfunction(L, l_new);
    lua_setfield(L, module, "cell_set");
    tycho_l_register_opts(L, &set_spec);
}
