/* Lua binding: the few operating-system facts the runtime's Lua needs.
 *
 *   tycho.sys.pid(), tycho.sys.uid()
 *   tycho.sys.runtime_dir() -> path   per-user directory for sockets, mode 0700:
 *       $XDG_RUNTIME_DIR/tycho, else /tmp/tycho-<uid>; created if missing and
 *       refused if another user owns it or others may write to it
 *   tycho.sys.list_dir(path) -> {names}  (sorted; folders end in "/")
 *   tycho.sys.alive(pid) -> bool
 *   tycho.sys.nofile([n]) -> soft, hard   the descriptor limit (RLIMIT_NOFILE);
 *       with n, the soft limit is raised to min(n, hard) first
 *   tycho.sys.catch_signals()   SIGINT and SIGTERM are noted instead of killing
 *       the process (the mission stops safely and says why); a second one
 *       while the first is pending ends the process at once, as the signal
 *       would have. SIGPIPE and SIGXFSZ are ignored: a closed pipe or a full
 *       file system becomes a write error (EPIPE, EFBIG) the code reports.
 *   tycho.sys.signal_pending() -> "SIGTERM", 15 | nil
 *   tycho.sys.mkdir(path) -> true | nil, message   like mkdir -p (mode 0755) */
#include "ltycho.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static int l_pid(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)getpid());
    return 1;
}
static int l_uid(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)geteuid());
    return 1;
}

static int l_alive(lua_State *L)
{
    lua_Integer pid = luaL_checkinteger(L, 1);
    luaL_argcheck(L, pid > 0, 1, "pid must be > 0");
    lua_pushboolean(L, kill((pid_t)pid, 0) == 0 || errno == EPERM);
    return 1;
}

static int l_nofile(lua_State *L)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return luaL_error(L, "getrlimit: %s", strerror(errno));
    if (!lua_isnoneornil(L, 1)) {
        lua_Integer n = luaL_checkinteger(L, 1);
        luaL_argcheck(L, n > 0, 1, "descriptor count must be > 0");
        rlim_t want = (rlim_t)n;
        if (rl.rlim_max != RLIM_INFINITY && want > rl.rlim_max) want = rl.rlim_max;
        if (want > rl.rlim_cur) {
            rl.rlim_cur = want;
            if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
                return luaL_error(L, "setrlimit: %s", strerror(errno));
        }
    }
    lua_pushinteger(L, rl.rlim_cur == RLIM_INFINITY ? -1 : (lua_Integer)rl.rlim_cur);
    lua_pushinteger(L, rl.rlim_max == RLIM_INFINITY ? -1 : (lua_Integer)rl.rlim_max);
    return 2;
}

/* --- signals ----------------------------------------------------------------- */

static volatile sig_atomic_t pending_signal;

static void on_signal(int sig)
{
    if (pending_signal) {
        /* the second one: nobody is listening any more, end as the signal would */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    pending_signal = sig;
}

static int l_catch_signals(lua_State *L)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a wait in poll() returns at once */
    if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0)
        return luaL_error(L, "sigaction: %s", strerror(errno));
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_signal_pending(lua_State *L)
{
    int sig = pending_signal;
    if (!sig) return 0;
    lua_pushstring(L, sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal");
    lua_pushinteger(L, sig);
    return 2;
}

/* --- folders ------------------------------------------------------------------ */

static int l_mkdir(lua_State *L)
{
    size_t n;
    const char *path = luaL_checklstring(L, 1, &n);
    luaL_argcheck(L, n > 0 && n < 4096, 1, "path empty or too long");
    char buf[4096];
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0') continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
            lua_pushnil(L);
            lua_pushfstring(L, "%s: %s", buf, strerror(errno));
            return 2;
        }
        *p = c;
        if (c == '\0') break;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: not a directory", path);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int l_runtime_dir(lua_State *L)
{
    char path[4096];
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && xdg[0] == '/') snprintf(path, sizeof path, "%s/tycho", xdg);
    else snprintf(path, sizeof path, "/tmp/tycho-%d", (int)geteuid());
    if (mkdir(path, 0700) < 0 && errno != EEXIST) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    struct stat st;
    /* lstat: a symlink planted in /tmp by someone else must not redirect us */
    if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 077)) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: not a private folder of ours (want owner uid %d, mode 700)", path,
                        (int)geteuid());
        return 2;
    }
    lua_pushstring(L, path);
    return 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int l_list_dir(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    DIR *d = opendir(path);
    if (!d) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 10000) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        int is_dir = e->d_type == DT_DIR;
        if (e->d_type == DT_UNKNOWN || e->d_type == DT_LNK) {
            char full[4096];
            struct stat st;
            snprintf(full, sizeof full, "%s/%s", path, e->d_name);
            is_dir = stat(full, &st) == 0 && S_ISDIR(st.st_mode);
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) break;
            names = nn;
        }
        size_t len = strlen(e->d_name);
        names[n] = malloc(len + 2);
        if (!names[n]) break;
        memcpy(names[n], e->d_name, len);
        names[n][len] = is_dir ? '/' : '\0';
        names[n][len + 1] = '\0';
        n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, names[i]);
        lua_rawseti(L, -2, (int)i + 1);
        free(names[i]);
    }
    free(names);
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
tycho.sys = {}
---@return integer
function tycho.sys.pid() end
---@return integer
function tycho.sys.uid() end
---@return boolean
function tycho.sys.alive(pid) end
---@return string|nil dir, string? err
function tycho.sys.runtime_dir() end
---@return string[]|nil names, string? err
function tycho.sys.list_dir(path) end
---The descriptor limit; with n, the soft limit is raised to min(n, hard) first.
---@return integer soft, integer hard
function tycho.sys.nofile(n) end
---SIGINT/SIGTERM noted instead of fatal (a second one while pending is fatal);
---SIGPIPE and SIGXFSZ ignored (writes fail with EPIPE/EFBIG instead).
function tycho.sys.catch_signals() end
---@return string|nil name, integer? number  "SIGTERM", 15 once one arrived
function tycho.sys.signal_pending() end
---Creates a folder and its parents (mode 0755), like mkdir -p.
---@return true|nil ok, string? err
function tycho.sys.mkdir(path) end
*/
// clang-format on

void tycho_l_open_sys(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg fns[] = {{"pid", l_pid},
                                   {"uid", l_uid},
                                   {"alive", l_alive},
                                   {"runtime_dir", l_runtime_dir},
                                   {"list_dir", l_list_dir},
                                   {"nofile", l_nofile},
                                   {"catch_signals", l_catch_signals},
                                   {"signal_pending", l_signal_pending},
                                   {"mkdir", l_mkdir},
                                   {NULL, NULL}};
    lua_newtable(L);
    luaL_setfuncs(L, fns, 0);
    lua_setfield(L, module, "sys");
}
