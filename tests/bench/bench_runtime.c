/* Runtime benchmark (issue 4): hot reload of the mission's state machine
 * file, measured from the moment the new file is in place (saved by rename,
 * as editors do) until the new definition is swapped in, through inotify
 * (tycho.watch), build and validation; and the watchdog's overhead on a
 * behaviour step (a tight Lua loop inside a task: no budget vs the default
 * CPU-time budget vs an instruction-count budget).
 * Targets: reload <= 20 ms from the save; watchdog overhead <= 5 %.
 * Scripts come from TYCHO_SOURCE_DIR (set by the bench target) or the cwd.
 * The RESULT lines follow tests/bench/result.h. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>

int luaopen_tycho(lua_State *L);

static const char SCRIPT[] =
    "local src = ...\n"
    "package.path = src .. '/behaviors/?.lua;' .. package.path\n"
    "local tycho = require 'tycho'\n"
    "local tasks, fsm, Reloader = require 'tasks', require 'fsm', require 'reload'\n"
    "-- the mission's states file, copied to a temporary place\n"
    "local f = assert(io.open(src .. '/behaviors/heat_seek_states.lua')) local text = f:read('*a') "
    "f:close()\n"
    "local path = os.tmpname() .. '_states.lua'\n"
    "local function save(t) local g = assert(io.open(path .. '.new', 'w')) g:write(t) g:close() "
    "assert(os.rename(path .. '.new', path)) end\n"
    "save(text)\n"
    "local r = Reloader.new { path = path, ctx = { bb = {}, P = {} } }\n"
    "local sched = tycho.scheduler.new { clock = tycho.clock.new { mode = 'sim' } }\n"
    "local m = fsm.new(assert(r:build()), {}, { runner = tasks.new(sched, { rate = 5 }) })\n"
    "r:attach(m) r:watch()\n"
    "local worst, sum, n = 0, 0, 50\n"
    "for i = 1, n do\n"
    "  save(text .. '\\n-- edit ' .. i .. '\\n')\n"
    "  local t0 = tycho.clock.monotonic()\n"
    "  while not r:check() do end\n"
    "  local ms = (tycho.clock.monotonic() - t0) * 1e3\n"
    "  sum = sum + ms if ms > worst then worst = ms end\n"
    "end\n"
    "r:close() os.remove(path)\n"
    "print(('hot reload of heat_seek_states.lua from save to swap: %.2f ms mean, %.2f ms worst "
    "over %d saves (target <= 20 ms) %s'):format(sum / n, worst, n, worst <= 20 and 'PASS' or "
    "'FAIL'))\n"
    "print(('RESULT runtime.reload_worst_ms %.6g ms <=20 `bench_runtime`: hot reload of "
    "`heat_seek_states.lua`, from the save (rename) to the swap, worst of %d'):format(worst, n))\n"
    "-- watchdog overhead\n"
    "local function run(budget, budget_s)\n"
    "  local s = tycho.scheduler.new { clock = tycho.clock.new { mode = 'sim' } }\n"
    "  local rr = tasks.new(s, { rate = 10, budget = budget, budget_s = budget_s })\n"
    "  local dt\n"
    "  rr:spawn('work', function() local t0 = tycho.clock.monotonic() local x = 0 for i = 1, 2e7 "
    "do x = x + i % 7 end dt = tycho.clock.monotonic() - t0 end)\n"
    "  s:run { until_time = 0.2 }\n"
    "  return dt\n"
    "end\n"
    "local a, b, c = math.huge, math.huge, math.huge\n"
    "for _ = 1, 3 do a = math.min(a, run(false, false)) b = math.min(b, run(nil, nil)) c = "
    "math.min(c, run(1e9)) end\n"
    "local ob, oc = (b / a - 1) * 100, (c / a - 1) * 100\n"
    "print(('watchdog overhead on a behaviour step (2e7-iteration loop in a task): none %.1f ms, "
    "default CPU-time budget %.1f ms (%+.1f %%), instruction-count budget %.1f ms (%+.1f %%) "
    "(target <= 5 %%) %s'):format(a * 1e3, b * 1e3, ob, c * 1e3, oc, ob <= 5 and 'PASS' or "
    "'FAIL'))\n"
    "print(('RESULT runtime.watchdog_overhead_pct %.6g %% <=5 `bench_runtime`: watchdog on a "
    "behaviour step (2e7-iteration loop in a task), default CPU-time budget'):format(ob))\n"
    "return worst <= 20 and ob <= 5\n";

int main(void)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, luaopen_tycho);
    lua_setfield(L, -2, "tycho");
    lua_pop(L, 2);
    const char *src = getenv("TYCHO_SOURCE_DIR");
    if (luaL_loadstring(L, SCRIPT) != LUA_OK) {
        fprintf(stderr, "bench_runtime: %s\n", lua_tostring(L, -1));
        return 1;
    }
    lua_pushstring(L, src ? src : ".");
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        fprintf(stderr, "bench_runtime: %s\n", lua_tostring(L, -1));
        return 1;
    }
    int ok = lua_toboolean(L, -1);
    lua_close(L);
    return ok ? 0 : 1;
}
