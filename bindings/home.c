/* Where the runtime finds its own files (see home.h). */
#define _GNU_SOURCE /* dladdr */
#include "home.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef TYCHO_INSTALL_BINDIR
#define TYCHO_INSTALL_BINDIR "bin"
#endif
#ifndef TYCHO_INSTALL_CMODDIR
#define TYCHO_INSTALL_CMODDIR "lib/lua/5.4"
#endif
#ifndef TYCHO_INSTALL_LUADIR
#define TYCHO_INSTALL_LUADIR "share/lua/5.4/tycho"
#endif
#ifndef TYCHO_INSTALL_PLUGINDIR
#define TYCHO_INSTALL_PLUGINDIR "lib/tycho/plugins"
#endif
#ifndef TYCHO_INSTALL_DATADIR
#define TYCHO_INSTALL_DATADIR "share/tycho"
#endif

/* cmake writes this file beside the executable and tycho.so in a build
 * tree; it is never installed */
#define SOURCE_MARKER "tycho-source-tree"

const tycho_install_dirs *tycho_install_dirs_default(void)
{
    static const tycho_install_dirs dirs = {TYCHO_INSTALL_BINDIR, TYCHO_INSTALL_CMODDIR,
                                            TYCHO_INSTALL_LUADIR, TYCHO_INSTALL_PLUGINDIR,
                                            TYCHO_INSTALL_DATADIR};
    return &dirs;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* snprintf into a home field; a path too long for it is an error, never a
 * silently cut path */
static int join(char *out, const char *a, const char *b)
{
    int n = snprintf(out, TYCHO_HOME_PATH_MAX, "%s%s%s", a, b && *b ? "/" : "", b ? b : "");
    return n >= 0 && n < TYCHO_HOME_PATH_MAX ? 0 : -1;
}

static int set_installed(tycho_home *h, const tycho_install_dirs *d, const char *prefix)
{
    snprintf(h->layout, sizeof h->layout, "installed");
    h->lua_dir2[0] = '\0';
    if (join(h->lua_dir, prefix, d->luadir) || join(h->plugin_dir, prefix, d->plugindir) ||
        join(h->data_dir, prefix, d->datadir))
        return -1;
    return 0;
}

static int set_source(tycho_home *h, const char *src, const char *build_dir)
{
    snprintf(h->layout, sizeof h->layout, "source");
    if (join(h->lua_dir, src, "behaviors") || join(h->lua_dir2, src, "bindings") ||
        join(h->data_dir, src, NULL))
        return -1;
    return build_dir ? join(h->plugin_dir, build_dir, "drivers")
                     : join(h->plugin_dir, src, "build/drivers");
}

/* The prefix an object in `dir` was installed under, if `dir` is
 * PREFIX/suffix; suffix is relative (an absolute one, given to cmake, names
 * no prefix). */
static int prefix_of(const char *dir, const char *suffix, char *prefix, size_t len)
{
    if (!suffix || !*suffix || suffix[0] == '/') return -1;
    size_t nd = strlen(dir), ns = strlen(suffix);
    if (nd <= ns + 1 || dir[nd - ns - 1] != '/' || strcmp(dir + nd - ns, suffix) != 0) return -1;
    if (nd - ns - 1 >= len) return -1;
    memcpy(prefix, dir, nd - ns - 1);
    prefix[nd - ns - 1] = '\0';
    if (!prefix[0]) snprintf(prefix, len, "/");
    return 0;
}

/* The source tree named by a build tree's marker file in `dir`, if any. */
static int read_marker(const char *dir, char *src, size_t len)
{
    char path[TYCHO_HOME_PATH_MAX];
    if (join(path, dir, SOURCE_MARKER)) return -1;
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int ok = fgets(src, (int)len, f) != NULL;
    fclose(f);
    if (!ok) return -1;
    src[strcspn(src, "\r\n")] = '\0';
    return src[0] ? 0 : -1;
}

static int fail(tycho_home *h, const char *fmt, const char *a)
{
    snprintf(h->layout, sizeof h->layout, "none");
    h->lua_dir[0] = h->lua_dir2[0] = h->plugin_dir[0] = h->data_dir[0] = '\0';
    snprintf(h->problem, sizeof h->problem, fmt, a ? a : "");
    return -1;
}

int tycho_home_resolve(tycho_home *h, const tycho_install_dirs *d, const char *env_home,
                       const char *object_path)
{
    h->problem[0] = '\0';
    char path[TYCHO_HOME_PATH_MAX], other[TYCHO_HOME_PATH_MAX];
    if (env_home && *env_home) {
        if (join(path, env_home, "behaviors") == 0 && is_dir(path)) {
            /* a source tree: its build beside the running object when that
             * is one of its build trees, else SRC/build */
            const char *build = NULL;
            if (object_path && join(other, object_path, NULL) == 0) {
                char *slash = strrchr(other, '/');
                char marked[TYCHO_HOME_PATH_MAX];
                if (slash) {
                    *slash = '\0';
                    if (read_marker(other, marked, sizeof marked) == 0) build = other;
                }
            }
            return set_source(h, env_home, build) ? fail(h, "TYCHO_HOME is too long", NULL) : 0;
        }
        if (join(path, env_home, d->luadir) == 0 && is_dir(path))
            return set_installed(h, d, env_home) ? fail(h, "TYCHO_HOME is too long", NULL) : 0;
        return fail(h,
                    "TYCHO_HOME=%s holds neither behaviors/ (a source tree) nor an installed tycho",
                    env_home);
    }
    if (!object_path || !*object_path)
        return fail(h, "the running program's own file is unknown; set TYCHO_HOME", NULL);
    if (join(path, object_path, NULL)) return fail(h, "path too long: %s", object_path);
    char *slash = strrchr(path, '/');
    if (!slash) return fail(h, "not an absolute path: %s", object_path);
    *slash = '\0';
    if (!path[0]) snprintf(path, sizeof path, "/");
    const char *suffixes[] = {d->bindir, d->cmoddir};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        char prefix[TYCHO_HOME_PATH_MAX];
        if (prefix_of(path, suffixes[i], prefix, sizeof prefix) != 0) continue;
        if (join(other, prefix, d->luadir) == 0 && is_dir(other))
            return set_installed(h, d, prefix);
    }
    if (read_marker(path, other, sizeof other) == 0) {
        char behaviors[TYCHO_HOME_PATH_MAX];
        if (join(behaviors, other, "behaviors") == 0 && is_dir(behaviors)) {
            char src[TYCHO_HOME_PATH_MAX];
            memcpy(src, other, sizeof src);
            return set_source(h, src, path);
        }
        return fail(h, "the source tree named beside the executable (%s) is gone; set TYCHO_HOME",
                    other);
    }
    return fail(h, "no installed tycho around %s; set TYCHO_HOME", object_path);
}

static int in_executable;

void tycho_home_in_executable(void) { in_executable = 1; }

/* The absolute file of the code running this: the executable, or the
 * shared object (tycho.so) this function was loaded from. */
static int own_file(char *out, int executable)
{
    if (!executable) {
        Dl_info info;
        /* the main program's dli_fname is argv[0], not a usable path */
        if (dladdr((void *)own_file, &info) && info.dli_fname && strchr(info.dli_fname, '/') &&
            realpath(info.dli_fname, out))
            return 0;
    }
    return realpath("/proc/self/exe", out) ? 0 : -1;
}

const tycho_home *tycho_home_get(void)
{
    static tycho_home home;
    static int resolved;
    if (resolved) return &home;
    resolved = 1;
    const char *env = getenv("TYCHO_HOME");
    char self[PATH_MAX > TYCHO_HOME_PATH_MAX ? PATH_MAX : TYCHO_HOME_PATH_MAX];
    int have = own_file(self, in_executable) == 0;
    if (tycho_home_resolve(&home, tycho_install_dirs_default(), env, have ? self : NULL) == 0 ||
        (env && *env))
        return &home;
    /* code of ours linked into another program (a benchmark): its executable
     * may still sit in a build tree */
    if (!in_executable && own_file(self, 1) == 0)
        tycho_home_resolve(&home, tycho_install_dirs_default(), NULL, self);
    return &home;
}

/* --- the two names of a runtime module --------------------------------------- */

#define PREFIX "tycho."
#define PREFIX_LEN (sizeof PREFIX - 1)

/* The runtime file for a short module name ("fsm", "terrain.world") in the
 * home's Lua folders; pushes the file name and returns 1, or returns 0. */
static int push_home_file(lua_State *L, const char *name)
{
    const tycho_home *h = tycho_home_get();
    const char *dirs[] = {h->lua_dir, h->lua_dir2};
    const char *rel = luaL_gsub(L, name, ".", "/");
    for (size_t i = 0; i < 2; i++) {
        if (!dirs[i][0]) continue;
        const char *forms[] = {"%s/%s.lua", "%s/%s/init.lua"};
        for (size_t k = 0; k < 2; k++) {
            const char *file = lua_pushfstring(L, forms[k], dirs[i], rel);
            FILE *f = fopen(file, "r");
            if (f) {
                fclose(f);
                lua_remove(L, -2); /* rel */
                return 1;
            }
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1); /* rel */
    return 0;
}

/* The file of `name` on package.path, pushed, or 0 (nothing pushed). */
static int push_path_file(lua_State *L, const char *name)
{
    lua_getglobal(L, "package");
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        return 0;
    }
    lua_getfield(L, -1, "searchpath");
    lua_getfield(L, -2, "path");
    if (!lua_isfunction(L, -2) || !lua_isstring(L, -1)) {
        lua_pop(L, 3);
        return 0;
    }
    lua_pushstring(L, name);
    lua_insert(L, -2);
    lua_call(L, 2, 1);
    lua_remove(L, -2); /* package */
    if (lua_isstring(L, -1)) return 1;
    lua_pop(L, 1);
    return 0;
}

/* "tycho.X" loads as the short name X, so both names share one instance */
static int alias_loader(lua_State *L)
{
    lua_getglobal(L, "require");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_call(L, 1, 1);
    return 1;
}

static int prefixed_searcher(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    if (strncmp(name, PREFIX, PREFIX_LEN) != 0 || !name[PREFIX_LEN]) return 0;
    /* only the runtime's own modules: a "tycho.something" of the user's is
     * left to the ordinary searchers */
    if (!push_home_file(L, name + PREFIX_LEN) && !push_path_file(L, name)) return 0;
    lua_pop(L, 1);
    lua_pushstring(L, name + PREFIX_LEN);
    lua_pushcclosure(L, alias_loader, 1);
    lua_pushliteral(L, ":tycho alias");
    return 2;
}

static int short_searcher(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    if (strncmp(name, PREFIX, PREFIX_LEN) == 0) return 0;
    if (!push_home_file(L, name)) {
        lua_pushfstring(L, PREFIX "%s", name);
        int found = push_path_file(L, lua_tostring(L, -1));
        lua_remove(L, found ? -2 : -1);
        if (!found) {
            const tycho_home *h = tycho_home_get();
            if (h->problem[0])
                lua_pushfstring(
                    L, "\n\tno runtime module '" PREFIX "%s' (the runtime's Lua files: %s)", name,
                    h->problem);
            else lua_pushfstring(L, "\n\tno runtime module '" PREFIX "%s' in %s", name, h->lua_dir);
            return 1;
        }
    }
    const char *file = lua_tostring(L, -1);
    if (luaL_loadfile(L, file) != LUA_OK)
        return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, file,
                          lua_tostring(L, -1));
    lua_insert(L, -2); /* loader, file */
    return 2;
}

void tycho_home_install_searchers(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "tycho.home.searchers");
    int done = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (done) return;
    lua_getglobal(L, "package");
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    lua_getfield(L, -1, TYCHO_LUAJIT ? "loaders" : "searchers");
    if (!lua_istable(L, -1)) {
        lua_pop(L, 2);
        return;
    }
    int t = lua_gettop(L);
    int n = (int)lua_rawlen(L, t);
    /* the alias goes before the file searchers (else tycho/X.lua on the path
     * would load a second instance of X); the short names after all of
     * them, so a module of the user's by the same name wins */
    for (int i = n; i >= 2; i--) {
        lua_rawgeti(L, t, i);
        lua_rawseti(L, t, i + 1);
    }
    lua_pushcfunction(L, prefixed_searcher);
    lua_rawseti(L, t, n >= 1 ? 2 : 1);
    lua_pushcfunction(L, short_searcher);
    lua_rawseti(L, t, n + 2);
    lua_pop(L, 2);
    lua_pushboolean(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "tycho.home.searchers");
}

/* tycho.home() -> {layout=, lua=, plugins=, data=, problem=} */
int tycho_l_home(lua_State *L)
{
    if (lua_gettop(L) > 0) return luaL_argerror(L, 1, "no arguments expected");
    const tycho_home *h = tycho_home_get();
    lua_createtable(L, 0, 5);
    lua_pushstring(L, h->layout);
    lua_setfield(L, -2, "layout");
    const char *keys[] = {"lua", "plugins", "data", "problem"};
    const char *vals[] = {h->lua_dir, h->plugin_dir, h->data_dir, h->problem};
    for (int i = 0; i < 4; i++) {
        if (!vals[i][0]) continue;
        lua_pushstring(L, vals[i]);
        lua_setfield(L, -2, keys[i]);
    }
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---Where the runtime's own files were found: from the executable's (or
---tycho.so's) own place, or TYCHO_HOME. layout is "installed", "source" or
---"none" (then problem says why); lua holds the runtime's Lua files, plugins
---the driver plugins, data the maps/ and robots/ folders.
---@return {layout: "installed"|"source"|"none", lua?: string, plugins?: string, data?: string, problem?: string}
function tycho.home() end
*/
// clang-format on
