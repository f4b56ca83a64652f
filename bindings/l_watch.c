/* Lua binding: file watching for hot reload (Linux inotify).
 *
 *   local w = tycho.watch{"behaviors/heat_seek_states.lua", ...}
 *   w:poll() -> {paths changed since the last poll}   (never blocks)
 *   w:close()
 *
 * The folders are watched, not the files: editors save by writing a new
 * file and renaming it over the old one (a new inode a file watch would
 * miss), so a file counts as changed when a write to it is closed or a file
 * is moved or created under its name. Paths come back as given. */
#include "ltycho.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#define WATCH_MT "tycho.watch"
#define MAX_FILES 64

typedef struct {
    int fd;
    int n;
    int wd[MAX_FILES];     /* folder watch of file i */
    char *path[MAX_FILES]; /* as given */
    char *base[MAX_FILES]; /* its file name */
} watcher;

static watcher *check_watch(lua_State *L)
{
    watcher *w = luaL_checkudata(L, 1, WATCH_MT);
    if (w->fd < 0) luaL_argerror(L, 1, "watcher is closed");
    return w;
}

static void close_watch(watcher *w)
{
    if (w->fd >= 0) close(w->fd);
    w->fd = -1;
    for (int i = 0; i < w->n; i++) {
        free(w->path[i]);
        free(w->base[i]);
    }
    w->n = 0;
}

static int l_new(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int n = (int)lua_rawlen(L, 1);
    luaL_argcheck(L, n >= 1 && n <= MAX_FILES, 1, "1 to 64 paths expected");
    watcher *w = tycho_newuserdata(L, sizeof *w);
    memset(w, 0, sizeof *w);
    w->fd = -1;
    luaL_getmetatable(L, WATCH_MT);
    lua_setmetatable(L, -2);
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->fd < 0) return luaL_error(L, "tycho.watch: inotify: %s", strerror(errno));
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 1, i + 1);
        const char *p = lua_tostring(L, -1);
        if (!p)
            return luaL_error(L, "bad argument #1 to 'watch' (path expected at index %d)", i + 1);
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", p);
        char *slash = strrchr(dir, '/');
        const char *base = slash ? slash + 1 : p;
        if (slash) *slash = 0;
        else snprintf(dir, sizeof dir, ".");
        if (!*base) return luaL_error(L, "bad argument #1 to 'watch' ('%s' is a folder)", p);
        int wd =
            inotify_add_watch(w->fd, dir[0] ? dir : "/", IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE);
        if (wd < 0)
            return luaL_error(L, "tycho.watch: cannot watch '%s': %s", dir, strerror(errno));
        w->wd[w->n] = wd;
        w->path[w->n] = strdup(p);
        w->base[w->n] = strdup(base);
        w->n++;
        lua_pop(L, 1);
    }
    return 1;
}

static int l_poll(lua_State *L)
{
    watcher *w = check_watch(L);
    int changed[MAX_FILES] = {0};
    char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t len = read(w->fd, buf, sizeof buf);
        if (len <= 0) break; /* EAGAIN: nothing more */
        for (char *p = buf; p < buf + len;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;
            for (int i = 0; i < w->n; i++)
                if (ev->wd == w->wd[i] && ev->len && !strcmp(ev->name, w->base[i])) changed[i] = 1;
            p += sizeof *ev + ev->len;
        }
    }
    lua_newtable(L);
    int k = 0;
    for (int i = 0; i < w->n; i++) {
        if (!changed[i]) continue;
        lua_pushstring(L, w->path[i]);
        lua_rawseti(L, -2, ++k);
    }
    return 1;
}

static int l_close(lua_State *L)
{
    close_watch(luaL_checkudata(L, 1, WATCH_MT));
    return 0;
}

static int l_tostring(lua_State *L)
{
    watcher *w = luaL_checkudata(L, 1, WATCH_MT);
    lua_pushfstring(L, "watch (%d file%s%s)", w->n, w->n == 1 ? "" : "s",
                    w->fd < 0 ? ", closed" : "");
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---@class tycho.watch
local watch = {}
---Watches files (inotify on their folders) for hot reload.
---@param paths string[]
---@return tycho.watch
function tycho.watch(paths) end
---@return string[] changed
function watch:poll() end
function watch:close() end
*/
// clang-format on

void tycho_l_open_watch(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg meth[] = {{"poll", l_poll}, {"close", l_close}, {NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){WATCH_MT, meth, NULL, l_close, l_tostring, NULL});
    lua_pop(L, 1);
    lua_pushcfunction(L, l_new);
    lua_setfield(L, module, "watch");
}
