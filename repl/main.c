/* The tycho executable: `tycho run script.lua [args]`, --help, --version. */
#include <lauxlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bindings/compat.h"
#include "../bindings/home.h"
#include "tycho/common.h"

int luaopen_tycho(lua_State *L);

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tycho <command> [options]\n"
            "\n"
            "commands:\n"
            "  run SCRIPT [ARGS...]   run a Lua script with the tycho module preloaded;\n"
            "                         ARGS are in the global table `arg` (arg[0] = SCRIPT)\n"
            "  repl [--world W]       interactive console (line editing, history, completion),\n"
            "                         optionally beside the simulator on world W\n"
            "  attach [SOCKET]        the console of a running tycho (Unix socket, or\n"
            "                         --tcp HOST:PORT --token-file F); -e CODE runs and exits\n"
            "  replay FILE.mcap       serve a recording (--record) to Foxglove / Lichtblick\n"
            "                         (--viz [HOST:]PORT, --speed X, --loop, --info)\n"
            "\n"
            "options:\n"
            "  -h, --help             show this help\n"
            "  -V, --version          show the version\n"
            "\n"
            "Scripts use `local tycho = require \"tycho\"`; the runtime's Lua files (behaviours,\n"
            "missions: `require \"tycho.fsm\"`) are found from where this executable lies, or\n"
            "TYCHO_HOME (a source tree or an install prefix). man tycho for more.\n");
}

static int traceback(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg) msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* Make `require "tycho"` work inside the executable without a tycho.so on disk. */
static void preload_tycho(lua_State *L)
{
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, luaopen_tycho);
    lua_setfield(L, -2, "tycho");
    lua_pop(L, 2);
}

/* A script may require modules beside it, then the runtime's own (found
 * from where this executable lies, or TYCHO_HOME: bindings/home.h) under
 * their short names ("fsm") and, through the searchers, as "tycho.fsm". */
static void set_lua_path(lua_State *L, const char *script)
{
    const tycho_home *home = tycho_home_get();
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", script);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "path");
    int old_path = lua_gettop(L), parts = 1;
    lua_pushfstring(L, "%s/?.lua;", dir);
    const char *runtime_dirs[] = {home->lua_dir, home->lua_dir2};
    for (int i = 0; i < 2; i++) {
        if (!runtime_dirs[i][0]) continue;
        lua_pushfstring(L, "%s/?.lua;", runtime_dirs[i]);
        parts++;
    }
    lua_pushvalue(L, old_path);
    lua_concat(L, parts + 1);
    lua_setfield(L, -3, "path");
    lua_pop(L, 2);
    tycho_home_install_searchers(L);
}

/* Memory limit for the Lua state (Lua 5.4; LuaJIT's 64-bit GC owns its
 * allocator). An allocation past the limit fails, Lua raises "not enough
 * memory" in the code that asked, the behaviour task fails, the robot goes
 * to safe stop, and the runtime (which frees the garbage) carries on.
 * TYCHO_MEM_LIMIT_MB sets it (default 512; 0 = none). */
#if !TYCHO_LUAJIT
typedef struct {
    size_t used, limit, peak;
} mem_budget;

static mem_budget budget;

static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    mem_budget *b = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        b->used -= old;
        return NULL;
    }
    if (b->limit && nsize > old && b->used - old + nsize > b->limit) return NULL;
    void *p = realloc(ptr, nsize);
    if (!p) return NULL;
    b->used = b->used - old + nsize;
    if (b->used > b->peak) b->peak = b->used;
    return p;
}

static int panic(lua_State *L)
{
    fprintf(stderr, "tycho: unprotected Lua error: %s\n", lua_tostring(L, -1));
    return 0; /* Lua aborts */
}
#endif

static lua_State *new_state(void)
{
#if TYCHO_LUAJIT
    return luaL_newstate();
#else
    const char *env = getenv("TYCHO_MEM_LIMIT_MB");
    double mb = env ? atof(env) : 512;
    budget.limit = mb > 0 ? (size_t)(mb * 1024 * 1024) : 0;
    lua_State *L = lua_newstate(limited_alloc, &budget);
    if (L) lua_atpanic(L, panic);
    return L;
#endif
}

/* Lua 5.4's generational collector. Nearly all that the behaviours
 * allocate dies young (messages, poses, a tick's small tables), and the
 * incremental collector went over the whole heap for it again and again:
 * the small-maze mission runs 1.5 % faster, and recording it costs half as
 * much. A major collection goes over the whole heap at once (about 1 ms
 * for a mission's 1.3 MB of live Lua data). TYCHO_GC=incremental keeps
 * Lua's default; LuaJIT has one collector. */
static int choose_collector(lua_State *L)
{
#if LUA_VERSION_NUM >= 504
    const char *env = getenv("TYCHO_GC");
    if (!env || !*env || strcmp(env, "generational") == 0) {
        lua_gc(L, LUA_GCGEN, 0, 0);
    } else if (strcmp(env, "incremental") != 0) {
        fprintf(stderr, "tycho: TYCHO_GC=%s: 'generational' or 'incremental' expected\n", env);
        return -1;
    }
#else
    (void)L;
#endif
    return 0;
}

static int run_script(int argc, char **argv)
{
    const char *script = argv[0];
    lua_State *L = new_state();
    if (!L) {
        fprintf(stderr, "tycho: cannot create a Lua state (out of memory)\n");
        return 1;
    }
    if (choose_collector(L) != 0) {
        lua_close(L);
        return 2;
    }
    luaL_openlibs(L);
    preload_tycho(L);
    set_lua_path(L, script);
    lua_createtable(L, argc, 1);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i);
    }
    lua_setglobal(L, "arg");

    lua_pushcfunction(L, traceback);
    int handler = lua_gettop(L);
    int rc = luaL_loadfile(L, script);
    if (rc == LUA_OK) {
        for (int i = 1; i < argc; i++) lua_pushstring(L, argv[i]);
        rc = lua_pcall(L, argc - 1, 1, handler);
    }
    int status = 0;
    if (rc != LUA_OK) {
        fprintf(stderr, "tycho: %s\n", lua_tostring(L, -1));
        status = 1;
    } else if (lua_type(L, -1) == LUA_TNUMBER) {
        status = (int)lua_tointeger(L, -1); /* a script may return its exit code */
    } else if (lua_type(L, -1) == LUA_TBOOLEAN) {
        status = lua_toboolean(L, -1) ? 0 : 1;
    }
    lua_close(L);
    return status;
}

/* glibc serves a block of 128 kB or more with its own mapping, returned to
 * the system when freed, but raises that threshold to the size of any such
 * block freed: a map's grids and fields (megabytes each, rebuilt and
 * resized as the robot maps) then come from the heap, whose freed middle is
 * never returned, and the resident memory stays at its highest (SLAM on the
 * Intel log: 59 MB resident for 40 MB in use). A fixed threshold keeps big
 * blocks mapped. TYCHO_MMAP_THRESHOLD_KB overrides it (0: glibc's own). */
static void fix_mmap_threshold(void)
{
#ifdef __GLIBC__
    const char *env = getenv("TYCHO_MMAP_THRESHOLD_KB");
    long kb = env ? atol(env) : 256;
    if (kb > 0) mallopt(M_MMAP_THRESHOLD, (int)(kb * 1024));
    /* A fixed threshold also fixes the heap's trim threshold at 128 kB: the
     * heap's top was given back and taken again all mission long (66 brk
     * calls, 13 ms of a 0.9 s small-maze run; 82 and 22 ms recording it,
     * the pages zeroed again each time). Up to 8 MB free at the top is kept,
     * and the heap grows by 1 MB more than asked. */
    mallopt(M_TRIM_THRESHOLD, 8 << 20);
    mallopt(M_TOP_PAD, 1 << 20);
#endif
}

int main(int argc, char **argv)
{
    fix_mmap_threshold();
    tycho_home_in_executable();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
        printf("tycho %s (%s)\n", TYCHO_VERSION, TYCHO_LUAJIT ? "LuaJIT" : LUA_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "run")) {
        if (argc < 3) {
            fprintf(stderr, "tycho run: missing SCRIPT (see tycho --help)\n");
            return 2;
        }
        return run_script(argc - 2, argv + 2);
    }
    if (!strcmp(cmd, "repl") || !strcmp(cmd, "attach") || !strcmp(cmd, "replay")) {
        /* the console and its remote client are runtime scripts of their own */
        const tycho_home *home = tycho_home_get();
        if (!home->lua_dir[0]) {
            fprintf(stderr, "tycho %s: cannot find the runtime's Lua files: %s\n", cmd,
                    home->problem);
            return 2;
        }
        char script[TYCHO_HOME_PATH_MAX + 32];
        snprintf(script, sizeof script, "%s/%s_main.lua", home->lua_dir, cmd);
        argv[1] = script;
        return run_script(argc - 1, argv + 1);
    }
    fprintf(stderr, "tycho: unknown command '%s' (see tycho --help)\n", cmd);
    return 2;
}
