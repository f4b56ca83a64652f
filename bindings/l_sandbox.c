/* One loader for every Lua data file (simulator worlds, terrain worlds,
 * fleet files, robot configs): tycho.load_data(path [, opts]).
 *
 *   local value, err = tycho.load_data("maps/maze_small.lua")
 *   -- opts: {budget_s = 1, instructions = 5e7, memory_mb = 64, globals = {name = value}}
 *
 * The file must be Lua text (a precompiled chunk is refused). It runs with
 * a private environment: fresh copies of math, string, table and utf8, the
 * pure base functions (pairs, ipairs, next, select, type, tonumber,
 * tostring, error, assert, unpack, rawequal, rawlen, rawget, rawset) and
 * opts.globals; no os, io, require, load, pcall, setmetatable or
 * getmetatable, so it reaches nothing outside, cannot change the host's
 * libraries and cannot catch its own errors. It runs on a coroutine of its
 * own under three limits: an instruction count, a CPU-time deadline that
 * C functions see too (budget.h: a backtracking pattern is stopped), and
 * a memory limit (Lua 5.4: the state's allocator is wrapped for the
 * duration of the load). Returns the chunk's value, or nil and a message
 * that names the file: "path:line: ..." as Lua reports it, "path: ran too
 * long (...)", "path: ran out of memory (...)", "path: error object is a
 * table value".
 *
 * Under LuaJIT the chunk runs interpreted (count hooks do not fire in
 * compiled traces) with an erroring hook, and there is no memory limit. */
#include "budget.h"
#include "ltycho.h"

#include <string.h>
#if TYCHO_LUAJIT
#include <luajit.h>
#endif

#define HOOK_EVERY 1000 /* instructions between two looks at the budget */
#define MAX_LOADS 8     /* loads in progress at once (a loader calling a loader) */

typedef struct {
    lua_State *co;
    long long instructions_left;
    int stopped; /* the hook stopped it */
} load_state;

static load_state loads[MAX_LOADS];
static int n_loads;

static load_state *find_load(lua_State *co)
{
    for (int i = n_loads - 1; i >= 0; i--)
        if (loads[i].co == co) return &loads[i];
    return NULL;
}

static void budget_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    load_state *s = find_load(L);
    if (!s) return;
    s->instructions_left -= HOOK_EVERY;
    if (s->instructions_left > 0 && !tycho_budget_expired(L)) return;
    s->stopped = 1;
#if !TYCHO_LUAJIT
    if (lua_isyieldable(L)) {
        lua_yield(L, 0);
        return;
    }
#endif
    /* not yieldable (inside a C call such as a gsub callback): an error,
     * which nothing in the sandbox can catch (no pcall there) */
    luaL_error(L, "ran too long");
}

#if !TYCHO_LUAJIT
typedef struct {
    lua_Alloc f;
    void *ud;
    long long used, limit; /* net bytes allocated during the load */
} mem_guard;

static void *guarded_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    mem_guard *g = ud;
    long long old = ptr ? (long long)osize : 0;
    if (nsize > (size_t)old && g->used + ((long long)nsize - old) > g->limit) return NULL;
    void *p = g->f(g->ud, ptr, osize, nsize);
    if (p || nsize == 0) g->used += (long long)nsize - old;
    return p;
}
#endif

/* env[name] = a shallow copy of the global library `name` */
static void copy_library(lua_State *L, int env, const char *name)
{
    lua_getglobal(L, name);
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    int lib = lua_gettop(L);
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, lib)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
    }
    lua_setfield(L, env, name);
    lua_pop(L, 1);
}

/* Builds the sandbox's environment on L's stack; globals at index `extra` (0: none). */
static void push_env(lua_State *L, int extra)
{
    lua_newtable(L);
    int env = lua_gettop(L);
    static const char *const libs[] = {"math", "string", "table", "utf8", NULL};
    for (int i = 0; libs[i]; i++) copy_library(L, env, libs[i]);
    static const char *const base[] = {"pairs",    "ipairs",   "next",   "select",   "type",
                                       "tonumber", "tostring", "error",  "assert",   "rawequal",
                                       "rawlen",   "rawget",   "rawset", "_VERSION", NULL};
    for (int i = 0; base[i]; i++) {
        lua_getglobal(L, base[i]);
        lua_setfield(L, env, base[i]);
    }
    lua_getfield(L, env, "table");
    if (lua_istable(L, -1)) lua_getfield(L, -1, "unpack");
    else lua_pushnil(L);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_getglobal(L, "unpack");
    }
    lua_setfield(L, env, "unpack");
    lua_pop(L, 1);
    if (extra) {
        lua_pushnil(L);
        while (lua_next(L, extra)) {
            if (lua_type(L, -2) != LUA_TSTRING)
                luaL_error(L, "load_data: globals: names must be strings");
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, env);
        }
    }
}

/* Pushes the message for a failed chunk (error value on top of co). */
static void push_failure(lua_State *L, lua_State *co, const char *path, const char *short_src,
                         int status, const load_state *s, const tycho_load_opts *o)
{
    if (s->stopped || (status == LUA_YIELD)) {
        lua_pushfstring(L, "%s: ran too long (more than %d million instructions or %f s of CPU)",
                        path, (int)(o->instructions / 1000000), o->budget_s);
        return;
    }
    if (status == LUA_ERRMEM) {
        lua_pushfstring(L, "%s: ran out of memory (more than %d MiB)", path, (int)o->memory_mb);
        return;
    }
    if (lua_type(co, -1) != LUA_TSTRING) {
        lua_pushfstring(L, "%s: error object is a %s value", path, luaL_typename(co, -1));
        return;
    }
    const char *msg = lua_tostring(co, -1);
    size_t n = strlen(short_src);
    if (strncmp(msg, short_src, n) == 0 && msg[n] == ':')
        lua_pushstring(L, msg); /* has file:line */
    else lua_pushfstring(L, "%s: %s", path, msg);
}

int tycho_l_load_data(lua_State *L, const char *path, const tycho_load_opts *o)
{
    luaL_checkstack(L, 8, "load_data");
    int extra = o->globals_idx;
#if TYCHO_LUAJIT
    /* LuaJIT: on the caller's thread (running code on another, suspended
     * one through lua_pcall crashed it); the hook is set there and restored */
    lua_State *co = L;
    int co_idx = 0;
    lua_Hook old_hook = lua_gethook(L);
    int old_mask = lua_gethookmask(L), old_count = lua_gethookcount(L);
#else
    lua_State *co = lua_newthread(L); /* anchored on L's stack until we return */
    int co_idx = lua_gettop(L);
#endif
    int status = luaL_loadfilex(co, path, "t");
    if (status != LUA_OK) {
        const char *msg = lua_tostring(co, -1);
        if (msg && (strstr(msg, "attempt to load a binary chunk") ||
                    strstr(msg, "wrong mode"))) /* 5.4, LuaJIT */
            lua_pushfstring(L, "%s: a precompiled (binary) chunk; Lua text is expected", path);
        else lua_pushstring(L, msg ? msg : "cannot load");
        if (co_idx) lua_remove(L, co_idx);
        else lua_remove(L, -2); /* the loader's message on L itself */
        return 0;
    }
    lua_Debug ar;
    lua_pushvalue(co, -1);
    lua_getinfo(co, ">S", &ar);
    char short_src[LUA_IDSIZE];
    memcpy(short_src, ar.short_src, sizeof short_src);
    push_env(L, extra);
    if (co != L) lua_xmove(L, co, 1);
#if TYCHO_LUAJIT
    lua_setfenv(co, -2);
    luaJIT_setmode(co, -1, LUAJIT_MODE_ALLFUNC | LUAJIT_MODE_OFF);
#else
    lua_setupvalue(co, -2, 1); /* _ENV */
#endif
    if (n_loads >= MAX_LOADS) {
        lua_pushfstring(L, "%s: too many loads in progress", path);
        if (co_idx) lua_remove(L, co_idx);
        else lua_remove(L, -2); /* the chunk */
        return 0;
    }
    load_state *s = &loads[n_loads++];
    s->co = co;
    s->instructions_left = (long long)o->instructions;
    s->stopped = 0;
    int pushed = tycho_budget_push(co, o->budget_s) == 0;
    lua_sethook(co, budget_hook, LUA_MASKCOUNT, HOOK_EVERY);
#if TYCHO_LUAJIT
    status = lua_pcall(co, 0, 1, 0);
    lua_sethook(co, old_hook, old_mask, old_count);
#else
    mem_guard g;
    g.f = lua_getallocf(L, &g.ud);
    g.used = 0;
    g.limit = (long long)(o->memory_mb * 1024 * 1024);
    lua_setallocf(L, guarded_alloc, &g);
    int nres = 0;
    status = lua_resume(co, L, 0, &nres);
    lua_setallocf(L, g.f, g.ud);
#endif
#if !TYCHO_LUAJIT
    lua_sethook(co, NULL, 0, 0);
#endif
    if (pushed) tycho_budget_pop(co);
    load_state copy = *s;
    n_loads--;
    int ok = status == LUA_OK && !copy.stopped;
    if (ok) {
#if !TYCHO_LUAJIT
        if (nres == 0) lua_pushnil(co);
        else if (nres > 1) lua_pop(co, nres - 1);
#endif
        if (co != L) lua_xmove(co, L, 1);
    } else {
        push_failure(L, co, path, short_src, status, &copy, o);
        if (co == L) lua_remove(L, -2); /* the error value under the message */
    }
    if (co_idx) lua_remove(L, co_idx);
    return ok;
}

void tycho_load_opts_init(tycho_load_opts *o)
{
    o->budget_s = 1.0;
    o->instructions = 50e6;
    o->memory_mb = 64;
    o->globals_idx = 0;
}

static const tycho_opt_field load_data_fields[] = {TYCHO_OPT_NUM_POS("budget_s"),
                                                   TYCHO_OPT_NUM_POS("instructions"),
                                                   TYCHO_OPT_NUM_POS("memory_mb"),
                                                   TYCHO_OPT_TAB("globals"),
                                                   {0}};
static const tycho_opt_spec load_data_spec = {"load_data", load_data_fields};

/* tycho.load_data(path [, {budget_s =, instructions =, memory_mb =, globals =}]) */
static int l_load_data(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    tycho_load_opts o;
    tycho_load_opts_init(&o);
    if (!lua_isnoneornil(L, 2)) {
        tycho_l_checkopts(L, 2, 2, &load_data_spec);
        o.budget_s = tycho_l_optfield_number(L, 2, 2, "budget_s", o.budget_s);
        o.instructions = tycho_l_optfield_number(L, 2, 2, "instructions", o.instructions);
        o.memory_mb = tycho_l_optfield_number(L, 2, 2, "memory_mb", o.memory_mb);
        luaL_argcheck(L, o.budget_s > 0 && o.budget_s <= 3600, 2, "budget_s must be in (0, 3600]");
        luaL_argcheck(L, o.instructions >= 1000 && o.instructions <= 1e12, 2,
                      "instructions must be in [1e3, 1e12]");
        luaL_argcheck(L, o.memory_mb >= 1 && o.memory_mb <= 65536, 2,
                      "memory_mb must be in [1, 65536]");
        lua_getfield(L, 2, "globals");
        if (!lua_isnil(L, -1)) {
            luaL_argcheck(L, lua_istable(L, -1), 2, "globals must be a table");
            o.globals_idx = lua_gettop(L);
        } else {
            lua_pop(L, 1);
        }
    }
    if (tycho_l_load_data(L, path, &o)) return 1;
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---Runs a Lua data file (world, terrain world, fleet file, robot config) in the
---sandbox: private copies of math/string/table/utf8 and the pure base functions,
---an instruction count, a CPU-time budget (C functions included) and a memory limit.
---@param path string
---@param opts? {budget_s?: number, instructions?: number, memory_mb?: number, globals?: table}
---@return any value, string? err  the file's value, or nil and "path[:line]: message"
function tycho.load_data(path, opts) end
*/
// clang-format on

void tycho_l_open_sandbox(lua_State *L, int module, int methods)
{
    (void)methods;
    lua_pushcfunction(L, l_load_data);
    lua_setfield(L, module, "load_data");
    tycho_l_register_opts(L, &load_data_spec);
}
