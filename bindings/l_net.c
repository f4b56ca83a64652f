/* Lua binding: sockets for the console protocol (attach).
 *
 *   local srv = tycho.net.listen_unix(path)        -- mode 0600
 *   local srv = tycho.net.listen_tcp(host, port)   -- port 0 picks one (srv:port())
 *   local c = srv:accept()                         -- nil when nobody is waiting
 *   local c = tycho.net.connect_unix(path) / tycho.net.connect_tcp(host, port)
 *   c:send(type, payload)       -- queues one frame; never blocks
 *   c:recv() -> {{type, payload}, ...} | nil, "closed" | nil, "oversized frame..."
 *   c:flush()                   -- writes what the socket takes now
 *   c:set_out_limit(bytes)      -- queued output allowed before send() refuses (default 4 MiB)
 *   local ready = tycho.net.wait({fd, ...}, timeout [, {write fds}])  -- ready[fd] = true
 *                               -- (nil, message if poll itself fails; any number of fds)
 *   tycho.net.equal(a, b)       -- constant-time string compare (auth tokens)
 *   tycho.net.read_secret(path) -- a token file; refused unless only its owner can read it
 *
 * Everything is non-blocking so the scheduler never waits on a client; a
 * peer that stops reading is dropped once its backlog passes a limit.
 *
 * Descriptor exhaustion: each server keeps one spare descriptor. When
 * accept() fails with EMFILE/ENFILE the spare is closed, the waiting
 * connection accepted and closed at once (so the listening socket stops
 * being readable instead of spinning the loop), and the spare reopened;
 * accept then returns nil, message, "emfile" for the caller to log. */
#define _GNU_SOURCE /* struct ucred (SO_PEERCRED) */
#include "largs.h"
#include "tycho/frame.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define SERVER_MT "tycho.net.server"
#define CONN_MT "tycho.net.conn"
#define DEFAULT_FRAME_LIMIT (64 * 1024)
#define MAX_BACKLOG (4 * 1024 * 1024)

typedef struct {
    int fd;
    int spare; /* a reserved descriptor (/dev/null), given up to drain EMFILE */
    int port;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
} server;

typedef struct {
    int fd;
    tycho_frame_reader in;
    char *out;
    size_t out_len, out_cap, out_limit;
    int uid; /* peer's user id on a Unix socket, -1 otherwise */
} conn;

/* Non-blocking, and closed on exec: a script's os.execute or io.popen must
 * not hand every client's socket to the child (O_CLOEXEC is a descriptor
 * flag, F_SETFD, not a status flag: F_SETFL would ignore it). */
static int set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) return -1;
    int fdfl = fcntl(fd, F_GETFD);
    return fdfl < 0 ? -1 : fcntl(fd, F_SETFD, fdfl | FD_CLOEXEC);
}

static int push_errno(lua_State *L, const char *what)
{
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", what, strerror(errno));
    return 2;
}

static conn *push_conn(lua_State *L, int fd)
{
    conn *c = tycho_newuserdata(L, sizeof *c);
    memset(c, 0, sizeof *c);
    c->fd = fd;
    c->uid = -1;
    c->out_limit = MAX_BACKLOG;
    tycho_frame_reader_init(&c->in, DEFAULT_FRAME_LIMIT);
    luaL_getmetatable(L, CONN_MT);
    lua_setmetatable(L, -2);
#ifdef SO_PEERCRED
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) c->uid = (int)cred.uid;
#endif
    return c;
}

/* Frames are small and answered at once: Nagle's algorithm would hold a
 * prompt frame back until the output frame before it is acknowledged
 * (a 40 ms delayed ACK per command over TCP). */
static void set_nodelay(int fd)
{
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static int open_spare(void) { return open("/dev/null", O_RDONLY | O_CLOEXEC); }

static server *push_server(lua_State *L, int fd, int port, const char *path)
{
    server *s = tycho_newuserdata(L, sizeof *s);
    s->fd = fd;
    s->spare = open_spare();
    s->port = port;
    memset(s->path, 0, sizeof s->path);
    if (path) memcpy(s->path, path, sizeof s->path);
    luaL_getmetatable(L, SERVER_MT);
    lua_setmetatable(L, -2);
    return s;
}

static int unix_address(lua_State *L, int argn, struct sockaddr_un *a)
{
    size_t n;
    const char *path = luaL_checklstring(L, argn, &n);
    luaL_argcheck(L, n > 0 && n < sizeof a->sun_path, argn, "socket path empty or too long");
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    memcpy(a->sun_path, path, n);
    return 1;
}

static int tcp_address(lua_State *L, struct sockaddr_in *a)
{
    const char *host = luaL_checkstring(L, 1);
    lua_Integer port = luaL_checkinteger(L, 2);
    luaL_argcheck(L, port >= 0 && port <= 65535, 2, "port must be in [0, 65535]");
    memset(a, 0, sizeof *a);
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)port);
    if (!strcmp(host, "localhost")) host = "127.0.0.1";
    if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
        return luaL_argerror(L, 1, "IPv4 address expected (e.g. 127.0.0.1 or 0.0.0.0)");
    return 1;
}

/* --- servers ----------------------------------------------------------------- */

static int l_listen_unix(lua_State *L)
{
    struct sockaddr_un a;
    unix_address(L, 1, &a);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return push_errno(L, "socket");
    /* a socket file left by a crashed run is removed, a live one is not */
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
        close(fd);
        lua_pushnil(L);
        lua_pushfstring(L, "%s: another tycho is listening there", a.sun_path);
        return 2;
    }
    if (errno == ECONNREFUSED) unlink(a.sun_path);
    close(fd);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return push_errno(L, "socket");
    mode_t old = umask(0177); /* created 0600: no window where others could connect */
    int rc = bind(fd, (struct sockaddr *)&a, sizeof a);
    umask(old);
    if (rc < 0 || listen(fd, 128) < 0 || set_nonblocking(fd) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return push_errno(L, a.sun_path);
    }
    push_server(L, fd, 0, a.sun_path);
    return 1;
}

static int l_listen_tcp(lua_State *L)
{
    struct sockaddr_in a;
    tcp_address(L, &a);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return push_errno(L, "socket");
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    socklen_t len = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 128) < 0 ||
        set_nonblocking(fd) < 0 || getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return push_errno(
            L, lua_pushfstring(L, "%s:%d", lua_tostring(L, 1), (int)lua_tointeger(L, 2)));
    }
    push_server(L, fd, ntohs(a.sin_port), NULL);
    return 1;
}

static server *check_server(lua_State *L)
{
    server *s = luaL_checkudata(L, 1, SERVER_MT);
    if (s->fd < 0) luaL_argerror(L, 1, "server is closed");
    return s;
}

/* srv:accept() -> conn | nil (nobody waiting) | nil, message, kind
 * kind "emfile": out of descriptors, the waiting connection was closed;
 * "error": anything else (the caller should back off for a moment). */
static int l_accept(lua_State *L)
{
    server *s = check_server(L);
    int fd = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        if (e == EAGAIN || e == EWOULDBLOCK || e == EINTR || e == ECONNABORTED) return 0;
        lua_pushnil(L);
        if (e == EMFILE || e == ENFILE) {
            if (s->spare >= 0) {
                close(s->spare);
                int victim = accept(s->fd, NULL, NULL);
                if (victim >= 0) close(victim);
                s->spare = open_spare();
            }
            lua_pushfstring(L, "accept: %s (a connection was refused)", strerror(e));
            lua_pushliteral(L, "emfile");
        } else {
            lua_pushfstring(L, "accept: %s", strerror(e));
            lua_pushliteral(L, "error");
        }
        return 3;
    }
    if (set_nonblocking(fd) < 0) {
        close(fd);
        return push_errno(L, "accept");
    }
    if (s->port) set_nodelay(fd);
    push_conn(L, fd);
    return 1;
}

static int l_server_close(lua_State *L)
{
    server *s = luaL_checkudata(L, 1, SERVER_MT);
    if (s->fd >= 0) {
        close(s->fd);
        if (s->path[0]) unlink(s->path);
    }
    if (s->fd >= 0 && s->spare >= 0) close(s->spare);
    s->fd = -1;
    s->spare = -1;
    return 0;
}

static int l_server_fd(lua_State *L)
{
    lua_pushinteger(L, check_server(L)->fd);
    return 1;
}
static int l_server_port(lua_State *L)
{
    lua_pushinteger(L, check_server(L)->port);
    return 1;
}

/* --- connections -------------------------------------------------------------- */

static int l_connect_unix(lua_State *L)
{
    struct sockaddr_un a;
    unix_address(L, 1, &a);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return push_errno(L, "socket");
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return push_errno(L, a.sun_path);
    }
    set_nonblocking(fd);
    push_conn(L, fd);
    return 1;
}

static int l_connect_tcp(lua_State *L)
{
    struct sockaddr_in a;
    tcp_address(L, &a);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return push_errno(L, "socket");
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return push_errno(
            L, lua_pushfstring(L, "%s:%d", lua_tostring(L, 1), (int)lua_tointeger(L, 2)));
    }
    set_nonblocking(fd);
    set_nodelay(fd);
    push_conn(L, fd);
    return 1;
}

static conn *check_conn(lua_State *L)
{
    conn *c = luaL_checkudata(L, 1, CONN_MT);
    if (c->fd < 0) luaL_argerror(L, 1, "connection is closed");
    return c;
}

static void close_conn(conn *c)
{
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    tycho_frame_reader_free(&c->in);
    free(c->out);
    c->out = NULL;
    c->out_len = c->out_cap = 0;
}

/* Writes what the socket takes now; -1 when the peer is gone. */
static int flush_out(conn *c)
{
    size_t done = 0;
    while (done < c->out_len) {
        ssize_t n = send(c->fd, c->out + done, c->out_len - done, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            return -1;
        }
        done += (size_t)n;
    }
    memmove(c->out, c->out + done, c->out_len - done);
    c->out_len -= done;
    return 0;
}

static int l_send(lua_State *L)
{
    conn *c = check_conn(L);
    size_t tlen, n;
    const char *type = luaL_checklstring(L, 2, &tlen);
    const char *payload = luaL_optlstring(L, 3, "", &n);
    luaL_argcheck(L, tlen == 1 && type[0] >= 'A' && type[0] <= 'Z', 2,
                  "frame type 'A'..'Z' expected");
    luaL_argcheck(L, n <= 0xffffffffu, 3, "payload too large");
    if (c->out_len + TYCHO_FRAME_HEADER + n > c->out_limit) {
        lua_pushnil(L);
        lua_pushfstring(L, "peer is not reading (backlog over %d KiB)", (int)(c->out_limit / 1024));
        return 2;
    }
    size_t need = c->out_len + TYCHO_FRAME_HEADER + n;
    if (need > c->out_cap) {
        size_t cap = c->out_cap ? c->out_cap : 4096;
        while (cap < need) cap *= 2;
        char *b = realloc(c->out, cap);
        if (!b) return luaL_error(L, "out of memory");
        c->out = b;
        c->out_cap = cap;
    }
    tycho_frame_header((uint8_t *)c->out + c->out_len, type[0], (uint32_t)n);
    memcpy(c->out + c->out_len + TYCHO_FRAME_HEADER, payload, n);
    c->out_len = need;
    if (flush_out(c) < 0) return push_errno(L, "send");
    lua_pushboolean(L, 1);
    return 1;
}

static int l_flush(lua_State *L)
{
    conn *c = check_conn(L);
    if (flush_out(c) < 0) return push_errno(L, "send");
    lua_pushinteger(L, (lua_Integer)c->out_len);
    return 1;
}

static int l_recv(lua_State *L)
{
    conn *c = check_conn(L);
    char buf[16384];
    int closed = 0;
    for (;;) {
        ssize_t n = recv(c->fd, buf, sizeof buf, 0);
        if (n == 0) {
            closed = 1;
            break;
        }
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) closed = 1;
            break;
        }
        tycho_err err = {0};
        if (tycho_frame_reader_feed(&c->in, buf, (size_t)n, &err) != TYCHO_OK)
            return tycho_l_error(L, &err);
        if (c->in.len > c->in.limit + TYCHO_FRAME_HEADER) break; /* parse before reading more */
    }
    lua_newtable(L);
    int count = 0;
    for (;;) {
        char type;
        const uint8_t *p;
        size_t len;
        tycho_err err = {0};
        int r = tycho_frame_next(&c->in, &type, &p, &len, &err);
        if (r < 0) {
            return tycho_l_fail(L, &err);
        }
        if (r == 0) break;
        lua_createtable(L, 2, 0);
        lua_pushlstring(L, &type, 1);
        lua_rawseti(L, -2, 1);
        lua_pushlstring(L, (const char *)p, len);
        lua_rawseti(L, -2, 2);
        lua_rawseti(L, -2, ++count);
    }
    if (closed && count == 0) {
        lua_pushnil(L);
        lua_pushliteral(L, "closed");
        return 2;
    }
    return 1;
}

static int l_conn_close(lua_State *L)
{
    close_conn(luaL_checkudata(L, 1, CONN_MT));
    return 0;
}

static int l_conn_fd(lua_State *L)
{
    lua_pushinteger(L, check_conn(L)->fd);
    return 1;
}

static int l_conn_backlog(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_conn(L)->out_len);
    return 1;
}

static int l_conn_peer_uid(lua_State *L)
{
    conn *c = check_conn(L);
    if (c->uid < 0) return 0;
    lua_pushinteger(L, c->uid);
    return 1;
}

static int l_conn_set_limit(lua_State *L)
{
    conn *c = check_conn(L);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_argcheck(L, n >= 16 && n <= 64 * 1024 * 1024, 2, "limit must be in [16, 64 MiB]");
    c->in.limit = (size_t)n;
    return 0;
}

static int l_conn_set_out_limit(lua_State *L)
{
    conn *c = check_conn(L);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_argcheck(L, n >= 1024 && n <= 256 * 1024 * 1024, 2, "limit must be in [1 KiB, 256 MiB]");
    c->out_limit = (size_t)n;
    return 0;
}

/* --- utilities ------------------------------------------------------------------ */

/* No cap of its own: poll takes as many descriptors as the process may
 * hold (a set too large for RLIMIT_NOFILE, or no memory, comes back as
 * nil, message, never as an error that would end the caller's loop). */
static int l_wait(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    double timeout = luaL_optnumber(L, 2, 0);
    luaL_argcheck(L, timeout >= 0 && timeout <= 3600, 2, "timeout must be in [0, 3600] s");
    if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
    size_t nr = lua_rawlen(L, 1);
    size_t nw = lua_istable(L, 3) ? lua_rawlen(L, 3) : 0;
    luaL_argcheck(L, nr + nw <= 1u << 24, 1, "too many descriptors");
    struct pollfd small[64];
    struct pollfd *pfd = small;
    if (nr + nw >
        sizeof small / sizeof small[0]) /* freed by the GC, even if a check below raises */
        pfd = tycho_newuserdata(L, (nr + nw) * sizeof *pfd);
    for (size_t i = 0; i < nr + nw; i++) {
        lua_rawgeti(L, i < nr ? 1 : 3, (lua_Integer)(i < nr ? i + 1 : i - nr + 1));
        if (!tycho_isinteger(L, -1) || lua_tointeger(L, -1) < 0 ||
            lua_tointeger(L, -1) > 0x7fffffff)
            luaL_argerror(L, i < nr ? 1 : 3, "file descriptors (integers >= 0) expected");
        pfd[i].fd = (int)lua_tointeger(L, -1);
        pfd[i].events = i < nr ? POLLIN : POLLOUT;
        pfd[i].revents = 0;
        lua_pop(L, 1);
    }
    int r = poll(pfd, (nfds_t)(nr + nw), (int)(timeout * 1000 + 0.5));
    if (r < 0 && errno != EINTR) return push_errno(L, "poll");
    lua_newtable(L);
    for (size_t i = 0; r > 0 && i < nr + nw; i++) {
        if (!pfd[i].revents) continue;
        lua_pushboolean(L, 1);
        lua_rawseti(L, -2, pfd[i].fd);
    }
    return 1;
}

/* Compares every byte whatever the first difference, so the time taken says
 * nothing about how much of a guessed token was right. */
static int l_equal(lua_State *L)
{
    size_t na, nb;
    const unsigned char *a = (const unsigned char *)luaL_checklstring(L, 1, &na);
    const unsigned char *b = (const unsigned char *)luaL_checklstring(L, 2, &nb);
    size_t n = na > nb ? na : nb;
    volatile unsigned diff = (unsigned)(na ^ nb);
    for (size_t i = 0; i < n; i++) diff |= (unsigned)((i < na ? a[i] : 0) ^ (i < nb ? b[i] : 0));
    lua_pushboolean(L, diff == 0);
    return 1;
}

static int l_read_secret(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    /* O_NONBLOCK: a FIFO given as the token file must not block start-up
     * (it is refused below, as anything but a regular file is) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return push_errno(L, path);
    struct stat st;
    char buf[4097];
    ssize_t n = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && !(st.st_mode & 077) && st.st_uid == geteuid())
        n = read(fd, buf, sizeof buf - 1);
    else if (fstat(fd, &st) == 0) {
        close(fd);
        char mode[8];
        snprintf(mode, sizeof mode, "%03o", (unsigned)(st.st_mode & 0777));
        lua_pushnil(L);
        lua_pushfstring(L,
                        "%s: token file must be a regular file of ours readable by its owner only "
                        "(chmod 600; its mode is %s)",
                        path, mode);
        return 2;
    }
    close(fd);
    if (n < 0) return push_errno(L, path);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ')) n--;
    if (n < 16) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: token too short (at least 16 characters)", path);
        return 2;
    }
    lua_pushlstring(L, buf, (size_t)n);
    return 1;
}

static int l_server_tostring(lua_State *L)
{
    server *s = luaL_checkudata(L, 1, SERVER_MT);
    if (s->fd < 0) lua_pushliteral(L, "tycho.net.server (closed)");
    else if (s->path[0]) lua_pushfstring(L, "tycho.net.server unix:%s", s->path);
    else lua_pushfstring(L, "tycho.net.server tcp port %d", s->port);
    return 1;
}

static int l_conn_tostring(lua_State *L)
{
    conn *c = luaL_checkudata(L, 1, CONN_MT);
    if (c->fd < 0) lua_pushliteral(L, "tycho.net.conn (closed)");
    else lua_pushfstring(L, "tycho.net.conn fd %d, %d bytes queued", c->fd, (int)c->out_len);
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---@class tycho.net.server
local server = {}
---@class tycho.net.conn
local conn = {}
---@class tycho.net
---@field frame_limit integer
tycho.net = {}
---@return tycho.net.server|nil server, string? err
function tycho.net.listen_unix(path) end
---@return tycho.net.server|nil server, string? err
function tycho.net.listen_tcp(host, port) end
---@return tycho.net.conn|nil conn, string? err
function tycho.net.connect_unix(path) end
---@return tycho.net.conn|nil conn, string? err
function tycho.net.connect_tcp(host, port) end
---Any number of descriptors; nil and a message if poll itself fails.
---@param fds integer[]
---@param wfds? integer[]
---@return table<integer, boolean>|nil ready, string? err
function tycho.net.wait(fds, timeout, wfds) end
---Constant-time string comparison.
---@return boolean
function tycho.net.equal(a, b) end
---Reads a token file; refused unless only its owner can read it.
---@return string|nil token, string? err
function tycho.net.read_secret(path) end
---nil when nobody is waiting; nil, message, "emfile"|"error" when accepting failed
---(out of descriptors: the waiting connection was refused)
---@return tycho.net.conn|nil conn, string? err, string? kind
function server:accept() end
function server:close() end
---@return integer
function server:fd() end
---@return integer
function server:port() end
---@param type string one letter 'A'..'Z'
---@return true|nil ok, string? err
function conn:send(type, payload) end
---@return {[1]: string, [2]: string}[]|nil frames, string? err
function conn:recv() end
---@return integer|nil queued, string? err
function conn:flush() end
function conn:close() end
---@return integer
function conn:fd() end
---@return integer
function conn:backlog() end
---@return integer|nil uid
function conn:peer_uid() end
function conn:set_limit(bytes) end
---Output that may be queued before send() refuses (the peer is not reading).
function conn:set_out_limit(bytes) end
*/
// clang-format on

void tycho_l_open_net(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg srv[] = {{"accept", l_accept},
                                   {"close", l_server_close},
                                   {"fd", l_server_fd},
                                   {"port", l_server_port},
                                   {NULL, NULL}};
    static const luaL_Reg cn[] = {{"send", l_send},
                                  {"recv", l_recv},
                                  {"flush", l_flush},
                                  {"close", l_conn_close},
                                  {"fd", l_conn_fd},
                                  {"backlog", l_conn_backlog},
                                  {"peer_uid", l_conn_peer_uid},
                                  {"set_limit", l_conn_set_limit},
                                  {"set_out_limit", l_conn_set_out_limit},
                                  {NULL, NULL}};
    tycho_l_newclass(
        L, &(tycho_l_class){SERVER_MT, srv, NULL, l_server_close, l_server_tostring, NULL});
    lua_pop(L, 1);
    tycho_l_newclass(L, &(tycho_l_class){CONN_MT, cn, NULL, l_conn_close, l_conn_tostring, NULL});
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {{"listen_unix", l_listen_unix},
                                   {"listen_tcp", l_listen_tcp},
                                   {"connect_unix", l_connect_unix},
                                   {"connect_tcp", l_connect_tcp},
                                   {"wait", l_wait},
                                   {"equal", l_equal},
                                   {"read_secret", l_read_secret},
                                   {NULL, NULL}};
    lua_newtable(L);
    luaL_setfuncs(L, fns, 0);
    lua_pushinteger(L, DEFAULT_FRAME_LIMIT);
    lua_setfield(L, -2, "frame_limit");
    lua_setfield(L, module, "net");
}
