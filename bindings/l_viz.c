/* tycho.viz: the Foxglove JSON encoders from Lua. The encoding itself is
 * core/viz_json.c, shared with a recording's writer (bindings/l_mcap.c),
 * which encodes the same messages on its own thread.
 *
 *   tycho.viz.grid(grid, t, frame_id)        -> foxglove.Grid (uint8 "cost") of the box round
 *                                               the cells that are not unknown
 *   tycho.viz.scan(scan, t, frame_id)        -> foxglove.LaserScan
 *   tycho.viz.image(values, w, h, lo, hi, t, frame_id) -> foxglove.RawImage, rgb8, values
 *                                               (row-major) mapped lo..hi onto a heat palette
 *   tycho.viz.poses(points, t, frame_id [, max]) -> foxglove.PosesInFrame of {x=, y= [, yaw=]}
 *                                               points or a pose list (at most max, evenly
 *                                               picked, the last kept)
 *   tycho.viz.text_window(max), tycho.viz.pose_list([tolerance]): l_viz_lists.c
 *   tycho.viz.template(text), tycho.viz.format(template, t, ...) -> a message template
 *                                               (tycho/viz_json.h) and its text
 *   tycho.viz.digest(grid)                   -> a hash (8 bytes) of what a viewer is shown of
 *                                               the grid: known box, cells, place, resolution
 *   tycho.viz.base64(s), tycho.viz.pack(values, "f32"|"f64"), tycho.viz.unpack(text, kind)
 *   tycho.viz.json(value)                    -> JSON of a Lua value (tables with keys 1..n are
 *       arrays, an empty table is [], other tables objects with string keys; NaN and
 *       infinities are null)
 *   tycho.viz.points(xyz, t, frame_id [, max]) -> foxglove.PointCloud (float32 x, y, z) of a
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
#include "tycho/trail.h"
#include "tycho/viz_json.h"

static void check_time(lua_State *L, int idx, double *t)
{
    *t = luaL_checknumber(L, idx);
    luaL_argcheck(L, isfinite(*t) && *t >= 0 && *t < 4e9, idx, "time must be finite seconds >= 0");
}

/* pushes the text as a Lua string and frees it */
static int push_text(lua_State *L, tycho_text *b)
{
    if (b->oom) {
        tycho_text_free(b);
        return luaL_error(L, "viz: out of memory");
    }
    lua_pushlstring(L, b->p ? b->p : "", b->len);
    tycho_text_free(b);
    return 1;
}

/* "timestamp":{...},"frame_id":"..." (frame ids are checked to need no escaping) */
static void add_header(luaL_Buffer *b, double t, const char *frame)
{
    tycho_text h = {0};
    tycho_viz_header(&h, t, frame);
    luaL_addlstring(b, h.p ? h.p : "", h.len);
    tycho_text_free(&h);
}

const char *tycho_l_check_frame_id(lua_State *L, int idx)
{
    const char *f = luaL_checkstring(L, idx);
    for (const char *p = f; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '/' || *p == '-' || *p == '.'))
            luaL_argerror(L, idx, "frame id: letters, digits and _ / - . only");
    luaL_argcheck(L, *f && strlen(f) < 100, idx, "frame id must be 1..99 characters");
    return f;
}
#define check_frame_id tycho_l_check_frame_id

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

static int l_grid(lua_State *L)
{
    tycho_grid *g = tycho_l_checkgrid(L, 1);
    double t;
    check_time(L, 2, &t);
    const char *frame = check_frame_id(L, 3);
    tycho_text b = {0};
    tycho_viz_grid(&b, t, frame, tycho_grid_cells_const(g), tycho_grid_width(g),
                   tycho_grid_height(g), tycho_grid_resolution(g), tycho_grid_origin(g));
    return push_text(L, &b);
}

static int l_scan(lua_State *L)
{
    const tycho_scan *s = tycho_l_checkscan(L, 1);
    double t;
    check_time(L, 2, &t);
    const char *frame = check_frame_id(L, 3);
    tycho_text b = {0};
    tycho_viz_scan(&b, t, frame, s->ranges, s->count, s->angle_min, s->angle_increment,
                   s->range_min, s->range_max);
    return push_text(L, &b);
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

size_t tycho_l_poses_count(lua_State *L, int idx, lua_Integer max)
{
    const tycho_trail *pl = tycho_l_test_pose_list(L, idx);
    if (pl) return tycho_viz_thin(pl->n, (size_t)max, NULL);
    luaL_argcheck(L, lua_istable(L, idx), idx, "list of points or pose list expected");
    return tycho_viz_thin(lua_rawlen(L, idx), (size_t)max, NULL);
}

/* the i-th (0-based) of keep points picked evenly from n */
static size_t pick(size_t k, size_t keep, size_t n)
{
    return keep == n ? k : (size_t)floor((double)k * (double)(n - 1) / (double)(keep - 1) + 0.5);
}

void tycho_l_read_poses(lua_State *L, int idx, lua_Integer max, double *xyyaw)
{
    const tycho_trail *pl = tycho_l_test_pose_list(L, idx);
    size_t n = pl ? pl->n : lua_rawlen(L, idx);
    size_t keep = tycho_viz_thin(n, (size_t)max, NULL);
    if (pl && keep == n) {
        if (n) memcpy(xyyaw, pl->xyyaw, n * 3 * sizeof *xyyaw);
        return;
    }
    for (size_t k = 0; k < keep; k++) {
        /* evenly spaced over the whole list: first and last always kept */
        size_t i = pick(k, keep, n);
        if (pl) {
            memcpy(xyyaw + 3 * k, pl->xyyaw + 3 * i, 3 * sizeof *xyyaw);
            continue;
        }
        lua_rawgeti(L, idx, (lua_Integer)i + 1);
        if (!lua_istable(L, -1))
            luaL_error(L, "bad argument #%d to 'poses' (point %d is not a table)", idx, (int)i + 1);
        xyyaw[3 * k] = point_field(L, (int)i + 1, "x", 1);
        xyyaw[3 * k + 1] = point_field(L, (int)i + 1, "y", 1);
        xyyaw[3 * k + 2] = point_field(L, (int)i + 1, "yaw", 0);
        lua_pop(L, 1);
    }
}

static int l_poses(lua_State *L)
{
    double t;
    check_time(L, 2, &t);
    const char *frame = check_frame_id(L, 3);
    lua_Integer max = luaL_optinteger(L, 4, 0);
    luaL_argcheck(L, max == 0 || max >= 2, 4, "at least 2 points (or 0: all)");
    size_t n = tycho_l_poses_count(L, 1, max);
    double *xyyaw = tycho_newuserdata(L, (n ? n : 1) * 3 * sizeof *xyyaw);
    tycho_l_read_poses(L, 1, max, xyyaw);
    tycho_text b = {0};
    tycho_viz_poses(&b, t, frame, xyyaw, n);
    return push_text(L, &b);
}

void tycho_l_read_numbers(lua_State *L, int idx, size_t n, const char *what, double *v)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    if (lua_rawlen(L, idx) != n)
        luaL_argerror(L, idx, lua_pushfstring(L, "%d values expected", (int)n));
    /* a slice of values on the stack at a time, then one settop: a pop per
     * value was most of reading a thermal frame */
    int top = lua_gettop(L);
    for (size_t i = 0; i < n;) {
        size_t k = n - i < 64 ? n - i : 64;
        luaL_checkstack(L, (int)k, "reading numbers");
        for (size_t j = 0; j < k; j++) {
            lua_rawgeti(L, idx, (lua_Integer)(i + j) + 1); /* LuaJIT's returns nothing */
            if (lua_type(L, -1) != LUA_TNUMBER)
                luaL_argerror(L, idx,
                              lua_pushfstring(L, "%s %d is not a number", what, (int)(i + j) + 1));
            v[i + j] = lua_tonumber(L, top + (int)j + 1);
        }
        lua_settop(L, top);
        i += k;
    }
}

void tycho_l_check_image(lua_State *L, int first, tycho_l_image *im)
{
    luaL_checktype(L, first, LUA_TTABLE);
    lua_Integer w = luaL_checkinteger(L, first + 1), h = luaL_checkinteger(L, first + 2);
    luaL_argcheck(L, w >= 1 && w <= 4096, first + 1, "width 1..4096 expected");
    luaL_argcheck(L, h >= 1 && h <= 4096, first + 2, "height 1..4096 expected");
    im->lo = luaL_checknumber(L, first + 3);
    im->hi = luaL_checknumber(L, first + 4);
    luaL_argcheck(L, isfinite(im->lo) && isfinite(im->hi) && im->hi > im->lo, first + 4,
                  "finite range with hi > lo expected");
    im->width = (int)w;
    im->height = (int)h;
}

static int l_image(lua_State *L)
{
    tycho_l_image im;
    tycho_l_check_image(L, 1, &im);
    double t;
    check_time(L, 6, &t);
    const char *frame = check_frame_id(L, 7);
    size_t n = (size_t)im.width * (size_t)im.height;
    double *v = tycho_newuserdata(L, n * sizeof *v); /* collected with the call */
    tycho_l_read_numbers(L, 1, n, "value", v);
    tycho_text b = {0};
    tycho_viz_image(&b, t, frame, v, im.width, im.height, im.lo, im.hi);
    return push_text(L, &b);
}

/* the hash's 8 bytes as a string: exact in LuaJIT too (its numbers are doubles) */
static int l_digest(lua_State *L)
{
    uint64_t h = tycho_grid_fingerprint(tycho_l_checkgrid(L, 1));
    char bytes[8];
    for (int i = 0; i < 8; i++) bytes[i] = (char)(h >> (8 * i));
    lua_pushlstring(L, bytes, sizeof bytes);
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
---A message template: text with %T (the time as {"sec":S,"nsec":N}), %.Ng (a number,
---N 1..17; %.17g is exact), %d (an integer), %F / %D (an array as base64 float32 /
---float64) and %% (a percent sign). Raises naming the offset of a bad placeholder.
---@return userdata template
function tycho.viz.template(text) end
---The template filled in at time t with numbers (nil or not finite: null), then the
---array (a table of numbers or a scan's ranges) if it has %F or %D.
---@return string
function tycho.viz.format(template, t, ...) end
---foxglove.RawImage JSON (rgb8), values lo..hi on a heat palette.
---@return string
function tycho.viz.image(values, width, height, lo, hi, t, frame_id) end
---foxglove.PosesInFrame JSON of {x=, y=[, yaw=]} points (at most max, evenly picked).
---@return string
function tycho.viz.poses(points, t, frame_id, max) end
---A hash (8 bytes) of what a viewer is shown of a grid: its known cells' box, the cells, place and
---resolution; equal while the grid is unchanged.
---@return string
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

/* Message templates (tycho/viz_json.h): tycho.viz.template(text) checks
 * the text once; tycho.viz.format(template, t, ...) fills it in now, and a
 * recording's writer:format(channel, t, template, ...) on its thread. */
#define TEMPLATE_MT "tycho.viz_template"

static int l_template(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    int numbers, has_array;
    tycho_err err = {0};
    if (tycho_template_check(text, len, &numbers, &has_array, &err) != 0)
        return luaL_argerror(L, 1, err.msg);
    tycho_l_template *tp = tycho_newuserdata(L, sizeof *tp + len + 1);
    tp->numbers = numbers;
    tp->has_array = has_array;
    tp->len = len;
    /* templates are made on the Lua thread alone */
    static uint64_t serials;
    tp->serial = ++serials;
    memcpy(tp->text, text, len + 1);
    luaL_getmetatable(L, TEMPLATE_MT);
    lua_setmetatable(L, -2);
    return 1;
}

const tycho_l_template *tycho_l_totemplate(lua_State *L, int idx)
{
    return luaL_testudata(L, idx, TEMPLATE_MT);
}

const tycho_l_template *tycho_l_check_template(lua_State *L, int idx, int first, double *numbers,
                                               size_t *array_len)
{
    const tycho_l_template *tp = luaL_checkudata(L, idx, TEMPLATE_MT);
    int top = lua_gettop(L);
    for (int k = 0; k < tp->numbers; k++) {
        int a = first + k;
        int type = a <= top ? lua_type(L, a) : LUA_TNIL;
        if (type == LUA_TNUMBER) numbers[k] = lua_tonumber(L, a);
        else if (type == LUA_TNIL) numbers[k] = NAN; /* written null */
        else
            luaL_argerror(
                L, a, lua_pushfstring(L, "number or nil expected, got %s", luaL_typename(L, a)));
    }
    *array_len = 0;
    if (tp->has_array) {
        int a = first + tp->numbers;
        if (lua_type(L, a) == LUA_TUSERDATA) *array_len = (size_t)tycho_l_checkscan(L, a)->count;
        else if (lua_istable(L, a)) *array_len = lua_rawlen(L, a);
        else luaL_argerror(L, a, "array (table of numbers or scan) expected");
    }
    return tp;
}

void tycho_l_read_template_array(lua_State *L, const tycho_l_template *tp, int first, double *v)
{
    int a = first + tp->numbers;
    if (lua_type(L, a) == LUA_TUSERDATA) {
        const tycho_scan *s = tycho_l_checkscan(L, a);
        for (int i = 0; i < s->count; i++) v[i] = s->ranges[i];
    } else {
        tycho_l_read_numbers(L, a, lua_rawlen(L, a), "item", v);
    }
}

static int l_format(lua_State *L)
{
    double t;
    check_time(L, 2, &t);
    double numbers[TYCHO_TEMPLATE_MAX_NUMBERS];
    size_t array_len;
    const tycho_l_template *tp = tycho_l_check_template(L, 1, 3, numbers, &array_len);
    double *array = tycho_newuserdata(L, (array_len ? array_len : 1) * sizeof *array);
    if (tp->has_array) tycho_l_read_template_array(L, tp, 3, array);
    tycho_text b = {0};
    tycho_template_format(&b, tp->text, tp->len, t, numbers, array, array_len);
    return push_text(L, &b);
}

static const luaL_Reg viz_functions[] = {
    {"json", l_json}, {"poses", l_poses},   {"digest", l_digest},     {"grid", l_grid},
    {"scan", l_scan}, {"image", l_image},   {"base64", l_base64},     {"points", l_points},
    {"pack", l_pack}, {"unpack", l_unpack}, {"template", l_template}, {"format", l_format},
    {NULL, NULL},
};

void tycho_l_open_viz(lua_State *L, int module, int methods)
{
    (void)methods;
    static const tycho_l_class json_buf_class = {JSON_BUF_MT, NULL, NULL, json_buf_gc, NULL, NULL};
    tycho_l_newclass(L, &json_buf_class);
    lua_pop(L, 1);
    static const tycho_l_class template_class = {TEMPLATE_MT, NULL, NULL, NULL, NULL, NULL};
    tycho_l_newclass(L, &template_class);
    lua_pop(L, 1);
    lua_newtable(L);
    luaL_setfuncs(L, viz_functions, 0);
    tycho_l_open_viz_lists(L, lua_gettop(L));
    lua_setfield(L, module, "viz");
}
