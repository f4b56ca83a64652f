/* tycho.viz: JSON encoders for the Foxglove message schemas whose content is
 * a per-cell or per-beam loop (so it stays in C): grids, laser scans and
 * colour-mapped images. The small messages (transforms, poses, scene
 * entities, logs) are built in Lua (behaviors/channels.lua).
 *
 *   tycho.viz.grid(grid, t, frame_id)           -> foxglove.Grid JSON (uint8 "cost" field) of
 *                                                  the box round the cells that are not unknown
 *   tycho.viz.scan(scan, t, frame_id)           -> foxglove.LaserScan JSON
 *   tycho.viz.image(values, w, h, lo, hi, t, frame_id) -> foxglove.RawImage JSON, rgb8,
 *                                                  values (row-major) mapped lo..hi onto a heat
 * palette tycho.viz.poses(points, t, frame_id [, max]) -> foxglove.PosesInFrame JSON of {x=, y=[,
 * yaw=]} points (at most max, evenly picked, the last kept) tycho.viz.digest(grid) -> CRC-32 of the
 * grid's size, place and cells (to send a grid only when it changed) tycho.viz.base64(s) -> s in
 * base64 tycho.viz.json(value)                       -> JSON text of a Lua value (tables with
 *       positive integer keys 1..n are arrays, an empty table is [], other tables objects
 *       with string keys; NaN and infinities are null)
 * tycho.viz.points(xyz, t, frame_id [, max]) -> foxglove.PointCloud JSON (float32 x, y, z) of a
 *       flat list x1, y1, z1, x2, ... (at most max points, evenly picked)
 * t is seconds; JSON has no infinity, so a beam without a return is 0. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ltycho.h"
#include "tycho/base64.h"
#include "tycho/scan.h"

#include <zlib.h>

static void check_time(lua_State *L, int idx, double *t)
{
    *t = luaL_checknumber(L, idx);
    luaL_argcheck(L, isfinite(*t) && *t >= 0 && *t < 4e9, idx, "time must be finite seconds >= 0");
}

static void add_fmt(luaL_Buffer *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_fmt(luaL_Buffer *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) luaL_addlstring(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* "timestamp":{...},"frame_id":"..." (frame ids are checked to need no escaping) */
static void add_header(luaL_Buffer *b, double t, const char *frame)
{
    double sec = floor(t);
    long nsec = lround((t - sec) * 1e9);
    if (nsec >= 1000000000L) {
        sec += 1;
        nsec -= 1000000000L;
    }
    add_fmt(b, "{\"timestamp\":{\"sec\":%.0f,\"nsec\":%ld},\"frame_id\":\"%s\"", sec, nsec, frame);
}

static const char *check_frame_id(lua_State *L, int idx)
{
    const char *f = luaL_checkstring(L, idx);
    for (const char *p = f; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '/' || *p == '-' || *p == '.'))
            luaL_argerror(L, idx, "frame id: letters, digits and _ / - . only");
    luaL_argcheck(L, *f && strlen(f) < 100, idx, "frame id must be 1..99 characters");
    return f;
}

static void add_base64(luaL_Buffer *b, const uint8_t *data, size_t n)
{
    /* in slices through a small block (LuaJIT has no luaL_prepbuffsize) */
    char out[1024];
    const size_t slice = sizeof out / 4 * 3;
    for (size_t i = 0; i < n; i += slice) {
        size_t k = n - i < slice ? n - i : slice;
        luaL_addlstring(b, out, tycho_base64_encode(data + i, k, out));
    }
}

/* A length to the millimetre ("-2.345"), digits written by hand: snprintf
 * was the largest cost of scan and trail messages (a recording formats 360
 * ranges five times a simulated second). */
static void add_millimetres(luaL_Buffer *b, const char *prefix, double v)
{
    luaL_addstring(b, prefix);
    char tmp[32];
    size_t n = 0;
    if (!isfinite(v) || fabs(v) > 1e9) v = 0;
    long mm = lround(fabs(v) * 1000);
    if (v < 0 && mm) tmp[n++] = '-';
    char digits[24];
    int k = 0;
    long whole = mm / 1000;
    do {
        digits[k++] = (char)('0' + whole % 10);
        whole /= 10;
    } while (whole);
    while (k) tmp[n++] = digits[--k];
    long frac = mm % 1000;
    tmp[n++] = '.';
    tmp[n++] = (char)('0' + frac / 100);
    tmp[n++] = (char)('0' + frac / 10 % 10);
    tmp[n++] = (char)('0' + frac % 10);
    luaL_addlstring(b, tmp, n);
}

static int l_grid(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    double t;
    check_time(L, 2, &t);
    const char *frame = check_frame_id(L, 3);
    int w = tycho_grid_width(g);
    double res = tycho_grid_resolution(g);
    tycho_pose2 o = tycho_grid_origin(g);
    const uint8_t *cells = tycho_grid_cells_const(g);
    /* only the box round the known cells: a mission's map is a 20 m square
     * of which the maze fills a few metres, and sending the whole square at
     * 1 Hz was most of what a recording cost (a small maze: 160,000 cells a
     * message where 8,000 are known); the cell (0, 0) when nothing is */
    int box[4] = {0, 0, 0, 0};
    tycho_grid_known_box(g, box);
    int bw = box[2] - box[0] + 1, bh = box[3] - box[1] + 1;
    /* the box's corner in the world: the origin moved along the grid's axes */
    double c = cos(o.yaw), s = sin(o.yaw), dx = box[0] * res, dy = box[1] * res;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    add_header(&b, t, frame);
    add_fmt(&b,
            ",\"pose\":{\"position\":{\"x\":%.9g,\"y\":%.9g,\"z\":0},"
            "\"orientation\":{\"x\":0,\"y\":0,\"z\":%.9g,\"w\":%.9g}}",
            o.x + c * dx - s * dy, o.y + s * dx + c * dy, sin(o.yaw / 2), cos(o.yaw / 2));
    add_fmt(&b,
            ",\"column_count\":%d,\"cell_size\":{\"x\":%.9g,\"y\":%.9g},\"row_stride\":%d,\"cell_"
            "stride\":1,"
            "\"fields\":[{\"name\":\"cost\",\"offset\":0,\"type\":1}],\"data\":\"",
            bw, res, res, bw);
    if (bw == w) {
        add_base64(&b, cells + (size_t)box[1] * w, (size_t)w * (size_t)bh);
    } else {
        /* rows of the box, a few at a time, in multiples of 3 bytes so the
         * base64 slices join without padding in between */
        uint8_t tmp[3 * 1024];
        size_t n = 0;
        for (int y = box[1]; y <= box[3]; y++) {
            const uint8_t *row = cells + (size_t)y * w + box[0];
            for (int x = 0; x < bw; x++) {
                tmp[n++] = row[x];
                if (n == sizeof tmp) {
                    add_base64(&b, tmp, n);
                    n = 0;
                }
            }
        }
        add_base64(&b, tmp, n);
    }
    luaL_addstring(&b, "\"}");
    luaL_pushresult(&b);
    return 1;
}

static int l_scan(lua_State *L)
{
    const tycho_scan *s = tycho_l_checkscan(L, 1);
    double t;
    check_time(L, 2, &t);
    const char *frame = check_frame_id(L, 3);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    add_header(&b, t, frame);
    add_fmt(&b,
            ",\"pose\":{\"position\":{\"x\":0,\"y\":0,\"z\":0},\"orientation\":{\"x\":0,\"y\":0,"
            "\"z\":0,\"w\":1}}"
            ",\"start_angle\":%.9g,\"end_angle\":%.9g,\"intensities\":[],\"ranges\":[",
            s->angle_min, s->angle_min + (s->count - 1) * s->angle_increment);
    for (int i = 0; i < s->count; i++) {
        double r = s->ranges[i];
        if (!(isfinite(r) && r >= s->range_min && r < s->range_max)) r = 0;
        add_millimetres(&b, i ? "," : "", r);
    }
    luaL_addstring(&b, "]}");
    luaL_pushresult(&b);
    return 1;
}

static double point_field(lua_State *L, int i, const char *key, int required)
{
    lua_getfield(L, -1, key);
    double v = 0;
    if (lua_type(L, -1) == LUA_TNUMBER) v = lua_tonumber(L, -1);
    else if (required || !lua_isnil(L, -1))
        luaL_error(L, "bad argument #1 to 'poses' (point %d: field '%s' must be a number)", i, key);
    lua_pop(L, 1);
    return v;
}

static int l_poses(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    double t;
    check_time(L, 2, &t);
    const char *frame = check_frame_id(L, 3);
    lua_Integer max = luaL_optinteger(L, 4, 0);
    luaL_argcheck(L, max == 0 || max >= 2, 4, "at least 2 points (or 0: all)");
    size_t n = lua_rawlen(L, 1);
    size_t keep = (max > 0 && n > (size_t)max) ? (size_t)max : n;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    add_header(&b, t, frame);
    luaL_addstring(&b, ",\"poses\":[");
    for (size_t k = 0; k < keep; k++) {
        /* evenly spaced over the whole list: first and last always kept */
        size_t i = keep == n
                       ? k + 1
                       : 1 + (size_t)floor((double)k * (double)(n - 1) / (double)(keep - 1) + 0.5);
        lua_rawgeti(L, 1, (int)i);
        if (!lua_istable(L, -1))
            luaL_error(L, "bad argument #1 to 'poses' (point %d is not a table)", (int)i);
        double x = point_field(L, (int)i, "x", 1), y = point_field(L, (int)i, "y", 1);
        double yaw = point_field(L, (int)i, "yaw", 0);
        lua_pop(L, 1);
        /* positions to the millimetre and a plain heading: printf's float
         * formatting was most of a 1000-pose trail's cost */
        add_millimetres(&b, k ? ",{\"position\":{\"x\":" : "{\"position\":{\"x\":", x);
        add_millimetres(&b, ",\"y\":", y);
        if (yaw == 0)
            luaL_addstring(&b, ",\"z\":0},\"orientation\":{\"x\":0,\"y\":0,\"z\":0,\"w\":1}}");
        else
            add_fmt(&b, ",\"z\":0},\"orientation\":{\"x\":0,\"y\":0,\"z\":%.6g,\"w\":%.6g}}",
                    sin(yaw / 2), cos(yaw / 2));
    }
    luaL_addstring(&b, "]}");
    luaL_pushresult(&b);
    return 1;
}

/* black - red - yellow - white, as thermal viewers draw heat */
static void heat_colour(double u, uint8_t rgb[3])
{
    if (!(u > 0)) u = 0;
    if (u > 1) u = 1;
    double r = u * 3, g = u * 3 - 1, bl = u * 3 - 2;
    rgb[0] = (uint8_t)lround(255 * (r > 1 ? 1 : r));
    rgb[1] = (uint8_t)lround(255 * (g < 0 ? 0 : g > 1 ? 1 : g));
    rgb[2] = (uint8_t)lround(255 * (bl < 0 ? 0 : bl));
}

static int l_image(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer w = luaL_checkinteger(L, 2), h = luaL_checkinteger(L, 3);
    luaL_argcheck(L, w >= 1 && w <= 4096, 2, "width 1..4096 expected");
    luaL_argcheck(L, h >= 1 && h <= 4096, 3, "height 1..4096 expected");
    double lo = luaL_checknumber(L, 4), hi = luaL_checknumber(L, 5);
    luaL_argcheck(L, isfinite(lo) && isfinite(hi) && hi > lo, 5,
                  "finite range with hi > lo expected");
    double t;
    check_time(L, 6, &t);
    const char *frame = check_frame_id(L, 7);
    size_t n = (size_t)(w * h);
    luaL_argcheck(L, lua_rawlen(L, 1) == n, 1, lua_pushfstring(L, "%d values expected", (int)n));
    uint8_t *rgb = tycho_newuserdata(L, 3 * n); /* collected with the call */
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 1, (int)i + 1);
        if (lua_type(L, -1) != LUA_TNUMBER)
            luaL_argerror(L, 1, lua_pushfstring(L, "value %d is not a number", (int)i + 1));
        heat_colour((lua_tonumber(L, -1) - lo) / (hi - lo), rgb + 3 * i);
        lua_pop(L, 1);
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    add_header(&b, t, frame);
    add_fmt(&b, ",\"width\":%d,\"height\":%d,\"encoding\":\"rgb8\",\"step\":%d,\"data\":\"", (int)w,
            (int)h, (int)(3 * w));
    add_base64(&b, rgb, 3 * n);
    luaL_addstring(&b, "\"}");
    luaL_pushresult(&b);
    return 1;
}

static int l_digest(lua_State *L)
{
    const tycho_grid *g = tycho_l_checkgrid(L, 1);
    int dims[2] = {tycho_grid_width(g), tycho_grid_height(g)};
    double place[2] = {tycho_grid_origin(g).x, tycho_grid_origin(g).y};
    uLong crc = crc32(0, Z_NULL, 0);
    crc = crc32(crc, (const Bytef *)dims, sizeof dims);
    crc = crc32(crc, (const Bytef *)place, sizeof place);
    crc = crc32(crc, tycho_grid_cells_const(g), (uInt)((size_t)dims[0] * (size_t)dims[1]));
    lua_pushinteger(L, (lua_Integer)crc);
    return 1;
}

/* Sample arrays for recordings: numbers as little-endian float32 ("f32",
 * exact for a scan's ranges, which are floats) or float64 ("f64", exact for
 * any Lua number), in base64. A replay must see the very numbers the robot
 * saw, which printed decimals would round. */
static int pack_width(lua_State *L, int idx)
{
    static const char *const kinds[] = {"f32", "f64", NULL};
    return luaL_checkoption(L, idx, NULL, kinds) ? 8 : 4;
}

static void put_le(uint8_t *p, double v, int width)
{
    uint64_t bits;
    if (width == 4) {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        bits = u;
    } else {
        memcpy(&bits, &v, 8);
    }
    for (int k = 0; k < width; k++) p[k] = (uint8_t)(bits >> (8 * k));
}

static double get_le(const uint8_t *p, int width)
{
    uint64_t bits = 0;
    for (int k = width - 1; k >= 0; k--) bits = bits << 8 | p[k];
    if (width == 4) {
        uint32_t u = (uint32_t)bits;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

static int l_pack(lua_State *L)
{
    int width = pack_width(L, 2);
    const tycho_scan *scan = lua_type(L, 1) == LUA_TUSERDATA ? tycho_l_checkscan(L, 1) : NULL;
    if (!scan) luaL_checktype(L, 1, LUA_TTABLE);
    size_t n = scan ? (size_t)scan->count : lua_rawlen(L, 1);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    /* 96 bytes (a multiple of 3 and of 8) at a time into base64 */
    uint8_t tmp[96];
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        double v;
        if (scan) {
            v = scan->ranges[i];
        } else {
            lua_rawgeti(L, 1, (lua_Integer)i + 1);
            if (lua_type(L, -1) != LUA_TNUMBER)
                return luaL_error(L, "bad argument #1 to 'pack' (item %d is %s, number expected)",
                                  (int)i + 1, luaL_typename(L, -1));
            v = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        put_le(tmp + used, v, width);
        used += (size_t)width;
        if (used == sizeof tmp) {
            add_base64(&b, tmp, used);
            used = 0;
        }
    }
    add_base64(&b, tmp, used);
    luaL_pushresult(&b);
    return 1;
}

static int l_unpack(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    int width = pack_width(L, 2);
    uint8_t *bytes = malloc(tycho_base64_max_decoded(n) + 1);
    if (!bytes) return luaL_error(L, "unpack: out of memory");
    long got = tycho_base64_decode(s, n, bytes);
    if (got < 0 || got % width) {
        free(bytes);
        return luaL_argerror(L, 1,
                             got < 0 ? "not base64" : "byte count is not a multiple of the width");
    }
    long count = got / width;
    lua_createtable(L, (int)count, 0);
    for (long i = 0; i < count; i++) {
        lua_pushnumber(L, get_le(bytes + i * width, width));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(bytes);
    return 1;
}

static int l_base64(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    add_base64(&b, (const uint8_t *)s, n);
    luaL_pushresult(&b);
    return 1;
}

/* JSON of Lua tables goes into a buffer of our own, not a luaL_Buffer: the
 * encoder walks tables with lua_next, which keeps keys on the stack while
 * text is added, and a luaL_Buffer wants the stack top to itself. The
 * buffer is a userdata with __gc, so an error mid-way frees it. */
#define JSON_BUF_MT "tycho.viz_json_buffer"
typedef struct {
    char *p;
    size_t len, cap;
} json_buf;

static int json_buf_gc(lua_State *L)
{
    json_buf *jb = luaL_checkudata(L, 1, JSON_BUF_MT);
    free(jb->p);
    jb->p = NULL;
    return 0;
}

static void jb_add(lua_State *L, json_buf *jb, const char *s, size_t n)
{
    if (n == 0) return;
    if (jb->len + n > jb->cap) {
        size_t cap = jb->cap ? jb->cap : 1024;
        while (cap < jb->len + n) cap *= 2;
        char *p = realloc(jb->p, cap);
        if (!p) luaL_error(L, "tycho.viz.json: out of memory");
        jb->p = p;
        jb->cap = cap;
    }
    memcpy(jb->p + jb->len, s, n);
    jb->len += n;
}

#define JB_LIT(L, jb, lit) jb_add((L), (jb), lit, sizeof lit - 1)

static void jb_string(lua_State *L, json_buf *jb, const char *s, size_t n)
{
    JB_LIT(L, jb, "\"");
    size_t run = 0; /* characters that need no escaping, added in one go */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c != '"' && c != '\\' && c >= 0x20) continue;
        jb_add(L, jb, s + run, i - run);
        char esc[8];
        const char *shortform = strchr("\"\"\\\\\nn\rr\tt\bb\ff", c); /* pairs: char, its letter */
        int k = shortform && c ? snprintf(esc, sizeof esc, "\\%c", shortform[1])
                               : snprintf(esc, sizeof esc, "\\u%04x", c);
        jb_add(L, jb, esc, (size_t)k);
        run = i + 1;
    }
    jb_add(L, jb, s + run, n - run);
    JB_LIT(L, jb, "\"");
}

/* Encodes the value at absolute stack index idx. */
static void jb_value(lua_State *L, json_buf *jb, int idx, int depth)
{
    if (depth > 64) luaL_error(L, "tycho.viz.json: nested deeper than 64 (a cycle?)");
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        JB_LIT(L, jb, "null");
        break;
    case LUA_TBOOLEAN:
        if (lua_toboolean(L, idx)) JB_LIT(L, jb, "true");
        else JB_LIT(L, jb, "false");
        break;
    case LUA_TNUMBER: {
        double v = lua_tonumber(L, idx);
        char num[32];
        int k;
        if (!isfinite(v)) k = snprintf(num, sizeof num, "null");
        else if (v == floor(v) && fabs(v) < 9007199254740992.0)
            k = snprintf(num, sizeof num, "%.0f", v);
        else k = snprintf(num, sizeof num, "%.9g", v);
        jb_add(L, jb, num, (size_t)k);
        break;
    }
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        jb_string(L, jb, s, n);
        break;
    }
    case LUA_TTABLE: {
        luaL_checkstack(L, 4, "tycho.viz.json");
        size_t n = lua_rawlen(L, idx);
        int empty = 0;
        if (n == 0) {
            lua_pushnil(L);
            empty = lua_next(L, idx) == 0;
            if (!empty) lua_pop(L, 2);
        }
        if (n > 0 || empty) { /* an array (an empty table too: []) */
            JB_LIT(L, jb, "[");
            for (size_t i = 1; i <= n; i++) {
                if (i > 1) JB_LIT(L, jb, ",");
                lua_rawgeti(L, idx, (int)i);
                jb_value(L, jb, lua_gettop(L), depth + 1);
                lua_pop(L, 1);
            }
            JB_LIT(L, jb, "]");
            break;
        }
        JB_LIT(L, jb, "{");
        int first = 1;
        lua_pushnil(L);
        while (lua_next(L, idx) != 0) {
            int vtop = lua_gettop(L);
            if (lua_type(L, vtop - 1) != LUA_TSTRING)
                luaL_error(L, "tycho.viz.json: object keys must be strings (got %s)",
                           luaL_typename(L, vtop - 1));
            if (!first) JB_LIT(L, jb, ",");
            first = 0;
            size_t kn;
            const char *k = lua_tolstring(L, vtop - 1, &kn);
            jb_string(L, jb, k, kn);
            JB_LIT(L, jb, ":");
            jb_value(L, jb, vtop, depth + 1);
            lua_pop(L, 1); /* the value; the key stays for lua_next */
        }
        JB_LIT(L, jb, "}");
        break;
    }
    default:
        luaL_error(L, "tycho.viz.json: cannot encode a %s", luaL_typename(L, idx));
    }
}

static int l_json(lua_State *L)
{
    luaL_checkany(L, 1);
    lua_settop(L, 1);
    json_buf *jb = tycho_newuserdata(L, sizeof *jb);
    memset(jb, 0, sizeof *jb);
    luaL_getmetatable(L, JSON_BUF_MT);
    lua_setmetatable(L, -2);
    jb_value(L, jb, 1, 0);
    lua_pushlstring(L, jb->p ? jb->p : "", jb->len);
    free(jb->p);
    jb->p = NULL;
    return 1;
}

/* foxglove.PointCloud of a flat list of x, y, z numbers: float32 fields
 * x, y, z at offsets 0, 4, 8 (NumericType FLOAT32 = 7), 12 bytes a point,
 * little-endian as the schema says. At most `max` points, evenly picked (a
 * 3D sweep has tens of thousands: a viewer needs a few thousand). */
static int l_points(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    double t;
    check_time(L, 2, &t);
    const char *frame = check_frame_id(L, 3);
    lua_Integer max = luaL_optinteger(L, 4, 100000);
    luaL_argcheck(L, max >= 1 && max <= 10000000, 4, "max must be in 1..10000000");
    size_t len = lua_rawlen(L, 1);
    luaL_argcheck(L, len % 3 == 0, 1,
                  "a flat list of x, y, z triples expected (length not a multiple of 3)");
    size_t n = len / 3, keep = n < (size_t)max ? n : (size_t)max;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    add_header(&b, t, frame);
    luaL_addstring(&b, ",\"pose\":{\"position\":{\"x\":0,\"y\":0,\"z\":0},"
                       "\"orientation\":{\"x\":0,\"y\":0,\"z\":0,\"w\":1}},\"point_stride\":12,"
                       "\"fields\":[{\"name\":\"x\",\"offset\":0,\"type\":7},"
                       "{\"name\":\"y\",\"offset\":4,\"type\":7},"
                       "{\"name\":\"z\",\"offset\":8,\"type\":7}],\"data\":\"");
    /* 256 points (3072 bytes, a multiple of 3) at a time into base64 */
    uint8_t tmp[256 * 12];
    size_t used = 0;
    for (size_t k = 0; k < keep; k++) {
        size_t i = keep == n
                       ? k
                       : (size_t)((double)k * (double)(n - 1) / (double)(keep > 1 ? keep - 1 : 1));
        for (int c = 0; c < 3; c++) {
            lua_rawgeti(L, 1, (lua_Integer)(3 * i + (size_t)c + 1));
            int isnum;
            double v = lua_tonumberx(L, -1, &isnum);
            lua_pop(L, 1);
            if (!isnum) {
                luaL_pushresult(&b); /* (the buffer must be closed before raising) */
                return luaL_argerror(
                    L, 1,
                    lua_pushfstring(L, "entry %d is not a number", (int)(3 * i + (size_t)c + 1)));
            }
            float f = isfinite(v) ? (float)v : 0.0f;
            uint32_t u;
            memcpy(&u, &f, 4);
            for (int k2 = 0; k2 < 4; k2++) tmp[used++] = (uint8_t)(u >> (8 * k2));
        }
        if (used == sizeof tmp) {
            add_base64(&b, tmp, used);
            used = 0;
        }
    }
    add_base64(&b, tmp, used);
    luaL_addstring(&b, "\"}");
    luaL_pushresult(&b);
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
tycho.viz = {}
---foxglove.Grid JSON of a grid (uint8 field "cost"): the box round the cells that are not unknown (255).
---@return string
function tycho.viz.grid(grid, t, frame_id) end
---foxglove.LaserScan JSON of a scan.
---@return string
function tycho.viz.scan(scan, t, frame_id) end
---foxglove.RawImage JSON (rgb8), values lo..hi on a heat palette.
---@return string
function tycho.viz.image(values, width, height, lo, hi, t, frame_id) end
---foxglove.PosesInFrame JSON of {x=, y=[, yaw=]} points (at most max, evenly picked).
---@return string
function tycho.viz.poses(points, t, frame_id, max) end
---CRC-32 of a grid's size, place and cells.
---@return integer
function tycho.viz.digest(grid) end
---@return string
function tycho.viz.base64(s) end
---Numbers (a list, or a scan's ranges) as base64 of little-endian float32 ("f32") or float64
---("f64"): exact, for recorded samples a replay reads back.
---@param values number[]|tycho.scan
---@param kind "f32"|"f64"
---@return string
function tycho.viz.pack(values, kind) end
---The numbers tycho.viz.pack wrote (raises on text that is not base64 of that width).
---@param kind "f32"|"f64"
---@return number[]
function tycho.viz.unpack(text, kind) end
---JSON of a Lua value (1..n tables are arrays, {} is [], others objects with string keys).
---@return string
function tycho.viz.json(value) end
---foxglove.PointCloud JSON (float32 x, y, z) of a flat list x1, y1, z1, x2, ... (at most max
---points, evenly picked; default 100000).
---@param xyz number[]
---@param max? integer
---@return string
function tycho.viz.points(xyz, t, frame_id, max) end
*/
// clang-format on

static const luaL_Reg viz_functions[] = {
    {"json", l_json}, {"poses", l_poses},   {"digest", l_digest}, {"grid", l_grid},
    {"scan", l_scan}, {"image", l_image},   {"base64", l_base64}, {"points", l_points},
    {"pack", l_pack}, {"unpack", l_unpack}, {NULL, NULL},
};

void tycho_l_open_viz(lua_State *L, int module, int methods)
{
    (void)methods;
    static const tycho_l_class json_buf_class = {JSON_BUF_MT, NULL, NULL, json_buf_gc, NULL, NULL};
    tycho_l_newclass(L, &json_buf_class);
    lua_pop(L, 1);
    lua_newtable(L);
    luaL_setfuncs(L, viz_functions, 0);
    lua_setfield(L, module, "viz");
}
