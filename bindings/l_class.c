/* The one way a binding defines a userdata class (after liolib.c's
 * createmeta): a metatable named after the class with __name, a `methods`
 * table (where the console's completion and the stub check look), __index,
 * __gc, __close and __tostring.
 *
 * Closing is generic: __close runs the class's free function, then swaps the
 * object's metatable for the class's "closed" metatable. Every later method
 * lookup or field read then raises "tycho.path is closed", a method reached
 * by another route fails its luaL_checkudata (the metatable is no longer the
 * class's), and __gc no longer runs, so a class's free function is called
 * once and never sees a closed object. Live objects pay nothing for this. */
#include "ltycho.h"

#include <string.h>

#define CLOSED_SUFFIX " (closed)"

static int closed_index(lua_State *L)
{
    return luaL_error(L, "%s is closed", lua_tostring(L, lua_upvalueindex(1)));
}

static int closed_tostring(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushliteral(L, CLOSED_SUFFIX);
    lua_concat(L, 2);
    return 1;
}

static int closed_noop(lua_State *L)
{
    (void)L;
    return 0;
}

/* upvalues: 1 the class's free function (or nil), 2 the closed metatable,
 * 3 the class name. Closing twice is allowed (a to-be-closed variable of an
 * object closed by hand); closing something else is misuse. */
static int generic_close(lua_State *L)
{
    if (lua_getmetatable(L, 1)) {
        int closed = lua_rawequal(L, -1, lua_upvalueindex(2));
        lua_pop(L, 1);
        if (closed) return 0;
    }
    luaL_checkudata(L, 1, lua_tostring(L, lua_upvalueindex(3)));
    if (!lua_isnil(L, lua_upvalueindex(1))) {
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_pushvalue(L, 1);
        lua_call(L, 1, 0);
    }
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_setmetatable(L, 1);
    return 0;
}

static int default_tostring(lua_State *L)
{
    lua_pushfstring(L, "%s: %p", lua_tostring(L, lua_upvalueindex(1)), lua_touserdata(L, 1));
    return 1;
}

/* The closed twin of class `name`, left on the stack. */
static void push_closed_metatable(lua_State *L, const char *name)
{
    lua_pushfstring(L, "%s" CLOSED_SUFFIX, name);
    luaL_newmetatable(L, lua_tostring(L, -1));
    lua_remove(L, -2);
    lua_pushfstring(L, "%s" CLOSED_SUFFIX, name);
    lua_setfield(L, -2, "__name");
    lua_pushstring(L, name);
    lua_pushcclosure(L, closed_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, name);
    lua_pushcclosure(L, closed_tostring, 1);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, closed_noop);
    lua_setfield(L, -2, "__close");
    lua_newtable(L);
    lua_setfield(L, -2, "methods");
}

void tycho_l_newclass(lua_State *L, const tycho_l_class *c)
{
    luaL_newmetatable(L, c->name); /* an earlier area may have made it (the grid) */
    int mt = lua_gettop(L);
    lua_pushstring(L, c->name);
    lua_setfield(L, mt, "__name"); /* LuaJIT's luaL_newmetatable does not */

    lua_getfield(L, mt, "methods");
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, mt, "methods");
    }
    /* each method has the metatable as upvalue 1: tycho_l_checkself */
    if (c->methods) {
        lua_pushvalue(L, mt);
        luaL_setfuncs(L, c->methods, 1);
    }
    if (c->index) lua_pushcclosure(L, c->index, 1);
    lua_setfield(L, mt, "__index"); /* the closure, or the methods table itself */

    if (c->free) {
        lua_pushcfunction(L, c->free);
        lua_setfield(L, mt, "__gc");
    }
    if (c->free) lua_pushcfunction(L, c->free);
    else lua_pushnil(L);
    push_closed_metatable(L, c->name);
    lua_pushstring(L, c->name);
    lua_pushcclosure(L, generic_close, 3);
    lua_setfield(L, mt, "__close");

    if (c->tostring) {
        lua_pushcfunction(L, c->tostring);
    } else {
        lua_pushstring(L, c->name);
        lua_pushcclosure(L, default_tostring, 1);
    }
    lua_setfield(L, mt, "__tostring");
    if (c->meta) luaL_setfuncs(L, c->meta, 0);

    lua_getfield(L, LUA_REGISTRYINDEX, TYCHO_CLASSES_REG);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, TYCHO_CLASSES_REG);
    }
    lua_pushvalue(L, mt);
    lua_setfield(L, -2, c->name);
    lua_settop(L, mt);
}

void *tycho_l_checkself(lua_State *L, const char *mt, size_t offset, const char *gone)
{
    char *box = lua_touserdata(L, 1);
    if (box && lua_getmetatable(L, 1)) {
        int mine = lua_rawequal(L, -1, lua_upvalueindex(1));
        lua_pop(L, 1);
        void *object;
        memcpy(&object, box + offset, sizeof object);
        if (mine && object) return box;
    }
    return tycho_l_checkalive(L, 1, mt, offset, gone); /* its error, or a class not ours */
}

void *tycho_l_checkalive(lua_State *L, int idx, const char *mt, size_t offset, const char *gone)
{
    char *box = luaL_checkudata(L, idx, mt);
    void *object;
    memcpy(&object, box + offset, sizeof object);
    if (!object) luaL_argerror(L, idx, gone);
    return box;
}
