/* tycho.ws: WebSocket server connections for the Foxglove live view, on the
 * runtime's I/O loop. Framing is wslay's (made for an outside event loop);
 * the opening handshake (RFC 6455 section 4.2) is here, with nettle's SHA-1.
 * Everything is non-blocking: a viewer that stops reading has its messages
 * dropped once its queue passes a limit, the robot never waits for it.
 *
 *   local srv = tycho.ws.listen(host, port)      -- port 0 picks one (srv:port())
 *   local c = srv:accept()                       -- nil when nobody is waiting
 *   c:fd()
 *   c:service() -> {text, ...} | nil, "closed" / reason
 *                 reads what arrived: the handshake first, then messages (text ones returned)
 *   c:is_open()                                  -- handshake done
 *   c:send_text(s [, always]) / c:send_binary(s) -> true | false (dropped: queue full, or not open;
 *                                                  `always` queues past the limit: protocol
 * replies) c:send_message(subscription_id, t, payload)  -- Foxglove "message data" (binary opcode
 * 1) c:send_time(t)                               -- Foxglove "time" (binary opcode 2) c:flush() ->
 * more        -- writes what the socket takes now; true if bytes remain c:queued(), c:dropped(),
 * c:set_queue_limit(bytes), c:close()
 */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nettle/sha1.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include <wslay/wslay.h>

#include "ltycho.h"
#include "tycho/base64.h"

#define WS_SERVER_MT "tycho.ws.server"
#define WS_CONN_MT "tycho.ws.conn"
#define HANDSHAKE_MAX 8192
#define DEFAULT_QUEUE_LIMIT (8u * 1024 * 1024)
#define SUBPROTOCOL "foxglove.websocket.v1"

typedef struct {
    int fd, port;
} ws_server;

typedef struct {
    int fd;
    int open;   /* handshake answered */
    int closed; /* peer gone or protocol error */
    char why[128];
    wslay_event_context_ptr ctx;
    char hs[HANDSHAKE_MAX]; /* the request as it arrives */
    size_t hs_len;
    char *reply; /* handshake answer still to write */
    size_t reply_len, reply_off;
    size_t queue_limit;
    uint64_t dropped;
    lua_State *L; /* during service(): where received texts go */
    int texts;    /* stack index of the table collecting them */
    int ntexts;
} ws_conn;

static int set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL, 0);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* --- server ------------------------------------------------------------------ */
static int l_listen(lua_State *L)
{
    const char *host = luaL_checkstring(L, 1);
    lua_Integer port = luaL_checkinteger(L, 2);
    luaL_argcheck(L, port >= 0 && port <= 65535, 2, "port 0..65535 expected");
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", (int)port);
    int gai = getaddrinfo(host, portstr, &hints, &res);
    if (gai != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s:%d: %s", host, (int)port, gai_strerror(gai));
        return 2;
    }
    int fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 64) != 0 ||
        set_nonblocking(fd) != 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        freeaddrinfo(res);
        lua_pushnil(L);
        lua_pushfstring(L, "%s:%d: %s", host, (int)port, strerror(e));
        return 2;
    }
    freeaddrinfo(res);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    int bound = (int)port;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
        bound = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                               : ((struct sockaddr_in *)&ss)->sin_port);
    ws_server *s = tycho_newuserdata(L, sizeof *s);
    s->fd = fd;
    s->port = bound;
    luaL_setmetatable(L, WS_SERVER_MT);
    return 1;
}

static ws_server *check_server(lua_State *L)
{
    ws_server *s = luaL_checkudata(L, 1, WS_SERVER_MT);
    if (s->fd < 0) luaL_argerror(L, 1, "server closed");
    return s;
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

static int l_server_close(lua_State *L)
{
    ws_server *s = luaL_checkudata(L, 1, WS_SERVER_MT);
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    return 0;
}

/* --- wslay callbacks ---------------------------------------------------------- */
static ssize_t recv_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags, void *ud)
{
    ws_conn *c = ud;
    ssize_t n = recv(c->fd, buf, len, 0);
    if (n > 0) return n;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
    else {
        snprintf(c->why, sizeof c->why, "%s", n == 0 ? "closed" : strerror(errno));
        wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
    }
    return -1;
}

static ssize_t send_cb(wslay_event_context_ptr ctx, const uint8_t *data, size_t len, int flags,
                       void *ud)
{
    ws_conn *c = ud;
    ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL);
    if (n >= 0) return n;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
    else {
        snprintf(c->why, sizeof c->why, "%s", strerror(errno));
        wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
    }
    return -1;
}

static void on_msg(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *arg,
                   void *ud)
{
    ws_conn *c = ud;
    if (arg->opcode == WSLAY_TEXT_FRAME && c->L) {
        lua_pushlstring(c->L, (const char *)arg->msg, arg->msg_length);
        lua_rawseti(c->L, c->texts, ++c->ntexts);
    } else if (arg->opcode == WSLAY_CONNECTION_CLOSE) {
        snprintf(c->why, sizeof c->why, "closed by the viewer");
    }
}

/* --- handshake ------------------------------------------------------------------ */
/* The value of header `name` in the request (NUL-terminated copy in out), or 0. */
static int header(const char *req, const char *name, char *out, size_t outlen)
{
    size_t nl = strlen(name);
    for (const char *line = strstr(req, "\r\n"); line && line[2]; line = strstr(line + 2, "\r\n")) {
        const char *h = line + 2;
        if (strncasecmp(h, name, nl) != 0 || h[nl] != ':') continue;
        const char *v = h + nl + 1;
        while (*v == ' ' || *v == '\t') v++;
        const char *e = strstr(v, "\r\n");
        size_t n = e ? (size_t)(e - v) : strlen(v);
        while (n && (v[n - 1] == ' ' || v[n - 1] == '\t')) n--;
        if (n >= outlen) return 0;
        memcpy(out, v, n);
        out[n] = 0;
        return 1;
    }
    return 0;
}

static int has_token(const char *list, const char *token)
{
    size_t tl = strlen(token);
    for (const char *p = list; *p;) {
        while (*p == ' ' || *p == ',') p++;
        const char *e = p;
        while (*e && *e != ',') e++;
        const char *te = e;
        while (te > p && te[-1] == ' ') te--;
        if ((size_t)(te - p) == tl && strncasecmp(p, token, tl) == 0) return 1;
        p = e;
    }
    return 0;
}

static void set_reply(ws_conn *c, const char *text)
{
    free(c->reply);
    c->reply = strdup(text);
    c->reply_len = c->reply ? strlen(c->reply) : 0;
    c->reply_off = 0;
}

/* Answers a complete request: 101 with the accept key, or 400 and close. */
static void answer_handshake(ws_conn *c)
{
    char key[128], upgrade[64], proto[256];
    const char *bad = NULL;
    if (strncmp(c->hs, "GET ", 4) != 0) bad = "not a GET request";
    else if (!header(c->hs, "Upgrade", upgrade, sizeof upgrade) || !has_token(upgrade, "websocket"))
        bad = "not a WebSocket upgrade";
    else if (!header(c->hs, "Sec-WebSocket-Key", key, sizeof key) || strlen(key) != 24)
        bad = "no valid Sec-WebSocket-Key";
    else if (!header(c->hs, "Sec-WebSocket-Protocol", proto, sizeof proto) ||
             !has_token(proto, SUBPROTOCOL))
        bad = "the subprotocol " SUBPROTOCOL " was not offered";
    if (bad) {
        char resp[300];
        snprintf(resp, sizeof resp,
                 "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n"
                 "Content-Length: %zu\r\n\r\n%s\n",
                 strlen(bad) + 1, bad);
        set_reply(c, resp);
        snprintf(c->why, sizeof c->why, "handshake refused: %s", bad);
        c->closed = 1;
        return;
    }
    /* Sec-WebSocket-Accept = base64(SHA-1(key + the RFC's GUID)) */
    static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    struct sha1_ctx sha;
    uint8_t digest[SHA1_DIGEST_SIZE];
    sha1_init(&sha);
    sha1_update(&sha, strlen(key), (const uint8_t *)key);
    sha1_update(&sha, sizeof guid - 1, (const uint8_t *)guid);
    sha1_digest(&sha, sizeof digest, digest);
    char accept[32];
    accept[tycho_base64_encode(digest, sizeof digest, accept)] = 0;
    char resp[400];
    snprintf(resp, sizeof resp,
             "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Accept: %s\r\nSec-WebSocket-Protocol: " SUBPROTOCOL "\r\n\r\n",
             accept);
    set_reply(c, resp);
    struct wslay_event_callbacks cb = {recv_cb, send_cb, NULL, NULL, NULL, NULL, on_msg};
    if (wslay_event_context_server_init(&c->ctx, &cb, c) != 0) {
        c->closed = 1;
        snprintf(c->why, sizeof c->why, "out of memory");
        return;
    }
    /* viewers send small requests; a huge frame is an attack or a bug */
    wslay_event_config_set_max_recv_msg_length(c->ctx, 1u << 20);
    c->open = 1;
}

/* Reads request bytes; answers once the blank line arrives. */
static void read_handshake(ws_conn *c)
{
    for (;;) {
        if (c->hs_len >= sizeof c->hs - 1) {
            set_reply(c,
                      "HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n");
            snprintf(c->why, sizeof c->why, "handshake request too large");
            c->closed = 1;
            return;
        }
        ssize_t n = recv(c->fd, c->hs + c->hs_len, sizeof c->hs - 1 - c->hs_len, 0);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
        if (n <= 0) {
            snprintf(c->why, sizeof c->why, "%s",
                     n == 0 ? "closed before the handshake" : strerror(errno));
            c->closed = 1;
            return;
        }
        c->hs_len += (size_t)n;
        c->hs[c->hs_len] = 0;
        if (strstr(c->hs, "\r\n\r\n")) {
            answer_handshake(c);
            return;
        }
    }
}

/* --- connections ------------------------------------------------------------------ */
static int l_accept(lua_State *L)
{
    ws_server *s = check_server(L);
    int fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED)
            return 0;
        lua_pushnil(L);
        lua_pushstring(L, strerror(errno));
        return 2;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
               sizeof one); /* small messages, latency matters */
    /* a bounded kernel buffer: with send autotuning megabytes would hide a
     * viewer that stopped reading from the queue limit for minutes */
    int sndbuf = 256 * 1024;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    ws_conn *c = tycho_newuserdata(L, sizeof *c);
    memset(c, 0, sizeof *c);
    c->fd = fd;
    c->queue_limit = DEFAULT_QUEUE_LIMIT;
    luaL_setmetatable(L, WS_CONN_MT);
    return 1;
}

static ws_conn *check_conn(lua_State *L) { return luaL_checkudata(L, 1, WS_CONN_MT); }

static void conn_release(ws_conn *c)
{
    if (c->ctx) wslay_event_context_free(c->ctx);
    c->ctx = NULL;
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    free(c->reply);
    c->reply = NULL;
    c->open = 0;
    c->closed = 1;
}

static int l_conn_fd(lua_State *L)
{
    lua_pushinteger(L, check_conn(L)->fd);
    return 1;
}

static int l_is_open(lua_State *L)
{
    ws_conn *c = check_conn(L);
    lua_pushboolean(L, c->open && !c->closed);
    return 1;
}

static int l_service(lua_State *L)
{
    ws_conn *c = check_conn(L);
    lua_newtable(L);
    if (c->fd >= 0 && !c->closed) {
        if (!c->open) read_handshake(c);
        else {
            c->L = L;
            c->texts = lua_gettop(L);
            c->ntexts = 0;
            if (wslay_event_recv(c->ctx) != 0) {
                c->closed = 1;
                if (!c->why[0]) snprintf(c->why, sizeof c->why, "protocol error");
            }
            c->L = NULL;
            if (!wslay_event_want_read(c->ctx) && !wslay_event_want_write(c->ctx)) c->closed = 1;
        }
    }
    if (c->closed && !(c->reply && c->reply_off < c->reply_len)) {
        lua_pushnil(L);
        lua_pushstring(L, c->why[0] ? c->why : "closed");
        return 2;
    }
    return 1;
}

/* Queues a message unless the viewer is this far behind (then it is
 * dropped); `always` (protocol replies, which are small and few) skips the limit. */
static int queue(lua_State *L, ws_conn *c, uint8_t opcode, const uint8_t *data, size_t len,
                 int always)
{
    if (!c->open || c->closed) {
        lua_pushboolean(L, 0);
        return 1;
    }
    if (!always && wslay_event_get_queued_msg_length(c->ctx) + len > c->queue_limit) {
        c->dropped++;
        lua_pushboolean(L, 0);
        return 1;
    }
    struct wslay_event_msg m = {opcode, data, len};
    lua_pushboolean(L, wslay_event_queue_msg(c->ctx, &m) == 0);
    return 1;
}

static int l_send_text(lua_State *L)
{
    ws_conn *c = check_conn(L);
    size_t n;
    const char *s = luaL_checklstring(L, 2, &n);
    return queue(L, c, WSLAY_TEXT_FRAME, (const uint8_t *)s, n, lua_toboolean(L, 3));
}

static int l_send_binary(lua_State *L)
{
    ws_conn *c = check_conn(L);
    size_t n;
    const char *s = luaL_checklstring(L, 2, &n);
    return queue(L, c, WSLAY_BINARY_FRAME, (const uint8_t *)s, n, 0);
}

static uint64_t check_ns(lua_State *L, int idx)
{
    double t = luaL_checknumber(L, idx);
    luaL_argcheck(L, isfinite(t) && t >= 0 && t < 1.8e10, idx, "time must be finite seconds >= 0");
    return (uint64_t)llround(t * 1e9);
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Foxglove "Message Data": opcode 0x01, subscription id u32, receive time u64 (ns), payload. */
static int l_send_message(lua_State *L)
{
    ws_conn *c = check_conn(L);
    lua_Integer sub = luaL_checkinteger(L, 2);
    luaL_argcheck(L, sub >= 0 && sub <= UINT32_MAX, 2, "subscription id out of range");
    uint64_t ns = check_ns(L, 3);
    size_t n;
    const char *payload = luaL_checklstring(L, 4, &n);
    uint8_t *buf = tycho_newuserdata(L, 13 + n); /* wslay copies it when queued */
    buf[0] = 0x01;
    put_le(buf + 1, (uint64_t)sub, 4);
    put_le(buf + 5, ns, 8);
    memcpy(buf + 13, payload, n);
    return queue(L, c, WSLAY_BINARY_FRAME, buf, 13 + n, 0);
}

/* Foxglove "Time": opcode 0x02, timestamp u64 (ns). */
static int l_send_time(lua_State *L)
{
    ws_conn *c = check_conn(L);
    uint8_t buf[9];
    buf[0] = 0x02;
    put_le(buf + 1, check_ns(L, 2), 8);
    return queue(L, c, WSLAY_BINARY_FRAME, buf, sizeof buf, 0);
}

static int l_flush(lua_State *L)
{
    ws_conn *c = check_conn(L);
    if (c->fd < 0) {
        lua_pushboolean(L, 0);
        return 1;
    }
    while (c->reply && c->reply_off < c->reply_len) {
        ssize_t n = send(c->fd, c->reply + c->reply_off, c->reply_len - c->reply_off, MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            lua_pushboolean(L, 1);
            return 1;
        }
        if (n <= 0) {
            c->closed = 1;
            break;
        }
        c->reply_off += (size_t)n;
    }
    if (c->closed) {
        lua_pushboolean(L, 0);
        return 1;
    }
    if (c->ctx && wslay_event_want_write(c->ctx) && wslay_event_send(c->ctx) != 0) {
        c->closed = 1;
        if (!c->why[0]) snprintf(c->why, sizeof c->why, "send failed");
    }
    lua_pushboolean(L, c->ctx && !c->closed && wslay_event_want_write(c->ctx));
    return 1;
}

static int l_queued(lua_State *L)
{
    ws_conn *c = check_conn(L);
    lua_pushinteger(L, c->ctx ? (lua_Integer)wslay_event_get_queued_msg_length(c->ctx) : 0);
    return 1;
}

static int l_dropped(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_conn(L)->dropped);
    return 1;
}

static int l_set_queue_limit(lua_State *L)
{
    ws_conn *c = check_conn(L);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_argcheck(L, n >= 1024, 2, "at least 1024 bytes");
    c->queue_limit = (size_t)n;
    return 0;
}

static int l_conn_close(lua_State *L)
{
    conn_release(check_conn(L));
    return 0;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
tycho.ws = {}
---@class tycho.ws.server
local ws_server = {}
---@class tycho.ws.conn
local ws_conn = {}
---A WebSocket server (subprotocol foxglove.websocket.v1) for the live view; port 0 picks one.
---@return tycho.ws.server|nil server, string? err
function tycho.ws.listen(host, port) end
---@return tycho.ws.conn|nil conn, string? err
function ws_server:accept() end
---@return integer
function ws_server:fd() end
---@return integer
function ws_server:port() end
function ws_server:close() end
---@return integer
function ws_conn:fd() end
---Reads what arrived: the handshake, then messages.
---@return string[]|nil texts, string? why_closed
function ws_conn:service() end
---@return boolean
function ws_conn:is_open() end
---@return boolean queued
function ws_conn:send_text(s, always) end
---@return boolean queued
function ws_conn:send_binary(s) end
---@return boolean queued
function ws_conn:send_message(subscription_id, t, payload) end
---@return boolean queued
function ws_conn:send_time(t) end
---@return boolean more
function ws_conn:flush() end
---@return integer
function ws_conn:queued() end
---@return integer
function ws_conn:dropped() end
function ws_conn:set_queue_limit(bytes) end
function ws_conn:close() end
*/
// clang-format on

void tycho_l_open_ws(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg srv[] = {{"accept", l_accept},
                                   {"fd", l_server_fd},
                                   {"port", l_server_port},
                                   {"close", l_server_close},
                                   {NULL, NULL}};
    static const luaL_Reg conn[] = {{"fd", l_conn_fd},
                                    {"service", l_service},
                                    {"is_open", l_is_open},
                                    {"send_text", l_send_text},
                                    {"send_binary", l_send_binary},
                                    {"send_message", l_send_message},
                                    {"send_time", l_send_time},
                                    {"flush", l_flush},
                                    {"queued", l_queued},
                                    {"dropped", l_dropped},
                                    {"set_queue_limit", l_set_queue_limit},
                                    {"close", l_conn_close},
                                    {NULL, NULL}};
    static const tycho_l_class server_class = {WS_SERVER_MT, srv, NULL, l_server_close, NULL, NULL};
    static const tycho_l_class conn_class = {WS_CONN_MT, conn, NULL, l_conn_close, NULL, NULL};
    tycho_l_newclass(L, &server_class);
    lua_pop(L, 1);
    tycho_l_newclass(L, &conn_class);
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushcfunction(L, l_listen);
    lua_setfield(L, -2, "listen");
    lua_setfield(L, module, "ws");
}
