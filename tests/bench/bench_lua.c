/* Cost of calling a cheap tycho primitive from Lua (grid:get), net of the
 * loop itself. Target: <= 100 ns per call on Lua 5.4. */
#include "clock.h"
#include "result.h"
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <time.h>

int luaopen_tycho(lua_State *L);

static double run(lua_State *L, const char *code, long n)
{
    if (luaL_loadstring(L, code) != LUA_OK) {
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
        return -1;
    }
    lua_pushinteger(L, n);
    double t0 = bench_now();
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
        return -1;
    }
    return bench_now() - t0;
}

int main(void)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    lua_pushcfunction(L, luaopen_tycho);
    lua_call(L, 0, 1);
    lua_setglobal(L, "tycho");
    const long n = 20 * 1000 * 1000;
    const char *setup = "G = tycho.grid.new{width=64, height=64, fill=0}";
    luaL_dostring(L, setup);
    const char *base = "local n = ...; local g = G; local s = 0\n"
                       "for i = 1, n do s = s + (i % 64) end";
    const char *call = "local n = ...; local g = G; local s = 0\n"
                       "for i = 1, n do s = s + g:get(i % 64, 7) end";
    const char *field = "local n = ...; local g = G; local s = 0\n"
                        "for i = 1, n do s = s + g.width end";
    run(L, call, n / 10); /* warm-up */
    double tb = run(L, base, n), tc = run(L, call, n), tf = run(L, field, n);
    double per_call = (tc - tb) / n * 1e9, per_field = (tf - tb) / n * 1e9;
    printf("lua grid:get(cx, cy): %.1f ns/call net of loop (%.1f ns gross) over %ld calls, %s "
           "(target <= 100 ns) %s\n",
           per_call, tc / n * 1e9, n, LUA_VERSION_NUM >= 502 ? LUA_VERSION : "LuaJIT",
           per_call <= 100 ? "PASS" : "FAIL");
    printf("lua grid.width field read: %.1f ns/read net of loop over %ld reads\n", per_field, n);
    bench_result("lua.grid_get", per_call, "ns/call", "<=", 100,
                 "`bench_lua`: `grid:get` from Lua");
    lua_close(L);
    return 0;
}
