/* The few Lua C API differences between Lua 5.4 and LuaJIT 2.1 (5.1 API plus
 * some 5.2 additions), so every binding compiles unchanged against both. */
#ifndef TYCHO_LUA_COMPAT_H
#define TYCHO_LUA_COMPAT_H

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#if LUA_VERSION_NUM < 502
#define TYCHO_LUAJIT 1
#define lua_rawlen lua_objlen
static inline void *tycho_newuserdata(lua_State *L, size_t n) { return lua_newuserdata(L, n); }
static inline int tycho_isinteger(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TNUMBER) return 0;
    lua_Number n = lua_tonumber(L, idx);
    return n == (lua_Number)(lua_Integer)n;
}
#else
#define TYCHO_LUAJIT 0
static inline void *tycho_newuserdata(lua_State *L, size_t n) { return lua_newuserdatauv(L, n, 1); }
#define tycho_isinteger lua_isinteger
#endif

#endif
