/* tycho.mcap: MCAP recordings from Lua.
 *
 *   tycho.mcap.open(path [, {chunk_size =, compress =, level =}]) -> writer | nil, err
 *   writer:schema(name, encoding, data) -> id;  writer:channel(topic, schema_id, encoding) -> id
 *   writer:write(channel, t, data) (t in seconds, simulated or wall);  writer:bytes()
 *   writer:grid(channel, t, grid, frame) -> true | false (the cells did not change) | nil, err
 *   writer:scan(channel, t, scan, frame), writer:image(channel, t, values, w, h, lo, hi, frame),
 *   writer:poses(channel, t, points, frame [, max]), writer:format(channel, t, template, ...):
 *     the messages tycho.viz.grid/scan/image/poses/format make, encoded from copies of their
 *     inputs on the writer's thread ({threaded = true}) or at once
 *   writer:queue_waits() -> how often a write waited for the thread (a slow disk)
 *   writer:close() -> true | nil, err (finishes the file);  writer:close_start(): the
 *     writer's thread finishes it while the caller goes on, close() then waits and reports
 *   tycho.mcap.read: l_mcap_read.c
 *
 * A writer the collector finds unclosed is finished, so an error in the
 * mission still leaves a readable recording. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ltycho.h"
#include "tycho/cells_hash.h"
#include "tycho/grid.h"
#include "tycho/mcap.h"
#include "tycho/scan.h"
#include "tycho/viz_json.h"

#define MCAP_WRITER_MT "tycho.mcap_writer"

/* the last grid written on a channel, to write a grid only when it
 * changed: its fingerprint (tycho_grid_box_hash_start: box, place, cells) */
typedef struct {
    uint64_t hash;
    int written; /* 0: nothing written yet on this channel */
} last_grid;

/* a template's text, the writer's own copy */
typedef struct {
    uint64_t serial; /* the template's (tycho_l_template.serial) */
    char *text;
} kept_template;

/* the templates whose text a writer keeps: a message points at its
 * template's text instead of carrying a copy (a /tf message's template is
 * 900 bytes, copied 20 times a second into the queue); beyond this many
 * (a script making templates as it goes) messages carry their text */
enum { KEPT_TEMPLATES = 64 };

typedef struct tycho_l_writer {
    tycho_mcap_writer *w;       /* NULL once closed, or closing */
    tycho_mcap_writer *closing; /* close_start: its thread finishes the file; close waits */
    last_grid *grids;           /* per channel id - 1 */
    size_t ngrids;
    kept_template *templates; /* KEPT_TEMPLATES of them, freed once the file is closed */
    size_t ntemplates;
    /* a C caller's messages held back (tycho_l_writer_hold): written by
     * held(held_ctx) before anything else goes into the file */
    void (*held)(void *ctx);
    void *held_ctx;
} lwriter;

/* What a C caller held back goes in first, so the file has every message
 * in the order it was given. */
static void settle(lwriter *b)
{
    void (*held)(void *ctx) = b->held;
    if (!held) return;
    b->held = NULL; /* its own writes must not settle again */
    held(b->held_ctx);
}

void tycho_l_writer_hold(tycho_l_writer *b, void (*flush)(void *ctx), void *ctx)
{
    if (b->held && (b->held != flush || b->held_ctx != ctx)) settle(b);
    b->held = flush;
    b->held_ctx = ctx;
}

void tycho_l_writer_unhold(tycho_l_writer *b, const void *ctx)
{
    if (b->held_ctx == ctx) b->held = NULL;
}

/* What the writer holds besides its file, freed once the file is closed
 * (its thread has encoded every message). */
static void free_kept(lwriter *b)
{
    free(b->grids);
    b->grids = NULL;
    b->ngrids = 0;
    for (size_t i = 0; i < b->ntemplates; i++) free(b->templates[i].text);
    free(b->templates);
    b->templates = NULL;
    b->ntemplates = 0;
}

/* The writer's copy of tp's text (kept until the file is closed), or NULL
 * when it keeps too many already or is out of memory (the message then
 * carries its text). */
static const char *kept_text(lwriter *b, const tycho_l_template *tp)
{
    for (size_t i = b->ntemplates; i-- > 0;)
        if (b->templates[i].serial == tp->serial) return b->templates[i].text;
    if (b->ntemplates == KEPT_TEMPLATES) return NULL;
    if (!b->templates && !(b->templates = malloc(KEPT_TEMPLATES * sizeof *b->templates)))
        return NULL;
    char *text = malloc(tp->len + 1);
    if (!text) return NULL;
    memcpy(text, tp->text, tp->len + 1);
    b->templates[b->ntemplates++] = (kept_template){tp->serial, text};
    return text;
}

/* self of a writer method (registered by tycho_l_newclass: the fast check) */
static lwriter *check_writer(lua_State *L)
{
    lwriter *b = TYCHO_L_CHECKSELF(L, lwriter, w, MCAP_WRITER_MT, "recording already closed");
    settle(b);
    return b;
}

static const tycho_opt_field open_fields[] = {TYCHO_OPT_INT_IN("chunk_size", 1024, 1 << 28),
                                              TYCHO_OPT_BOOL("compress"),
                                              TYCHO_OPT_INT_IN("level", 1, 19),
                                              TYCHO_OPT_BOOL("threaded"),
                                              TYCHO_OPT_INT_IN("queue_limit", 1 << 20, 1 << 30),
                                              {0}};
static const tycho_opt_spec open_spec = {"mcap.open", open_fields};

static int l_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    tycho_mcap_options opt;
    tycho_mcap_options_defaults(&opt);
    if (!lua_isnoneornil(L, 2)) {
        tycho_l_checkopts(L, 2, 2, &open_spec);
        opt.chunk_size =
            (size_t)tycho_l_optfield_integer(L, 2, 2, "chunk_size", (lua_Integer)opt.chunk_size);
        opt.compress = tycho_l_optfield_boolean(L, 2, 2, "compress", 1);
        opt.zstd_level = (int)tycho_l_optfield_integer(L, 2, 2, "level", opt.zstd_level);
        opt.threaded = tycho_l_optfield_boolean(L, 2, 2, "threaded", 0);
        opt.queue_limit =
            (size_t)tycho_l_optfield_integer(L, 2, 2, "queue_limit", (lua_Integer)opt.queue_limit);
    }
    lwriter *b = tycho_newuserdata(L, sizeof *b);
    memset(b, 0, sizeof *b);
    luaL_getmetatable(L, MCAP_WRITER_MT);
    lua_setmetatable(L, -2);
    tycho_err err = {0};
    b->w = tycho_mcap_open(path, &opt, "tycho " TYCHO_VERSION, &err);
    if (!b->w) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    return 1;
}

static int l_schema(lua_State *L)
{
    lwriter *b = check_writer(L);
    const char *name = luaL_checkstring(L, 2);
    const char *encoding = luaL_checkstring(L, 3);
    size_t len;
    const char *data = luaL_checklstring(L, 4, &len);
    luaL_argcheck(L, *name, 2, "schema name must not be empty");
    tycho_err err = {0};
    uint16_t id = tycho_mcap_add_schema(b->w, name, encoding, data, len, &err);
    if (!id) return tycho_l_error(L, &err);
    lua_pushinteger(L, id);
    return 1;
}

static int l_channel(lua_State *L)
{
    lwriter *b = check_writer(L);
    const char *topic = luaL_checkstring(L, 2);
    lua_Integer schema = luaL_checkinteger(L, 3);
    const char *encoding = luaL_checkstring(L, 4);
    luaL_argcheck(L, *topic, 2, "topic must not be empty");
    luaL_argcheck(L, schema >= 0 && schema <= UINT16_MAX, 3, "schema id out of range");
    tycho_err err = {0};
    uint16_t id = tycho_mcap_add_channel(b->w, (uint16_t)schema, topic, encoding, &err);
    if (!id) return tycho_l_error(L, &err);
    lua_pushinteger(L, id);
    return 1;
}

static int l_write(lua_State *L)
{
    lwriter *b = check_writer(L);
    lua_Integer channel = luaL_checkinteger(L, 2);
    double t = luaL_checknumber(L, 3);
    size_t len;
    const char *data = luaL_checklstring(L, 4, &len);
    luaL_argcheck(L, channel >= 1 && channel <= UINT16_MAX, 2, "channel id out of range");
    luaL_argcheck(L, isfinite(t) && t >= 0 && t < 1.8e10, 3, "time must be finite seconds >= 0");
    uint64_t ns = (uint64_t)llround(t * 1e9);
    tycho_err err = {0};
    if (tycho_mcap_write(b->w, (uint16_t)channel, ns, ns, data, len, &err) != TYCHO_OK) {
        if (err.code == TYCHO_EINVAL) return tycho_l_error(L, &err);
        lua_pushnil(L); /* the disk, not the caller */
        lua_pushstring(L, err.msg);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* true, or nil and the error when the disk failed (a bad argument raises) */
static int write_result(lua_State *L, tycho_status st, const tycho_err *err)
{
    if (st != TYCHO_OK) {
        if (err->code == TYCHO_EINVAL) return tycho_l_error(L, (tycho_err *)err);
        lua_pushnil(L);
        lua_pushstring(L, err->msg);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* channel id (arg 2) and time (arg 3) of a deferred write */
static uint16_t check_channel_time(lua_State *L, uint64_t *ns, double *t)
{
    lua_Integer channel = luaL_checkinteger(L, 2);
    *t = luaL_checknumber(L, 3);
    luaL_argcheck(L, channel >= 1 && channel <= UINT16_MAX, 2, "channel id out of range");
    luaL_argcheck(L, isfinite(*t) && *t >= 0 && *t < 4e9, 3, "time must be finite seconds >= 0");
    *ns = (uint64_t)llround(*t * 1e9);
    return (uint16_t)channel;
}

/* A deferred message's payload: a fixed head, then its arrays, built in
 * place in the writer's queue (tycho_mcap_reserve). An argument check that
 * raises half way leaves the reservation uncommitted: the next reuses it. */
typedef struct {
    double t;
    char frame[100];
} msg_head;

/* Room for a payload, or NULL with err: the disk failed or memory ran out,
 * which the method reports as nil, err like a failed write (never raises:
 * a full disk ends the recording, not the mission) */
static void *reserve(lwriter *b, size_t len, tycho_err *err)
{
    void *p = tycho_mcap_reserve(b->w, len, err);
    if (!p && err->code == TYCHO_EINVAL) err->code = TYCHO_EIO;
    return p;
}

/* Where a C caller's message goes: the queue (batch NULL: the caller
 * commits it once filled) or a batch of the caller's (tycho_l_writer_write_batch),
 * complete once filled */
typedef struct {
    tycho_mcap_batch *batch;
    uint16_t channel;
    uint64_t ns;
    tycho_mcap_encode_fn encode;
} room_in;

static void *room(lwriter *b, const room_in *in, size_t len, tycho_err *err)
{
    if (!in || !in->batch) return reserve(b, len, err);
    void *p = tycho_mcap_batch_add(in->batch, in->channel, in->ns, in->encode, len);
    if (!p) tycho_fail(err, TYCHO_ENOMEM, "mcap: out of memory gathering a message");
    return p;
}

/* A copy into the queue goes past the caller's caches; into a batch (the
 * caller's, used again and again) it stays in them */
static void put(const room_in *in, void *dst, const void *src, size_t n)
{
    if (in && in->batch) memcpy(dst, src, n);
    else tycho_mcap_copy(dst, src, n);
}

/* what a method whose reservation failed returns */
static int reserve_failed(lua_State *L, const tycho_err *err)
{
    lua_pushnil(L);
    lua_pushstring(L, err->msg[0] ? err->msg : "mcap: cannot queue the message");
    return 2;
}

static int commit(lua_State *L, lwriter *b, uint16_t channel, uint64_t ns,
                  tycho_mcap_encode_fn encode, size_t len)
{
    tycho_err err = {0};
    return write_result(L, tycho_mcap_commit(b->w, channel, ns, encode, len, &err), &err);
}

static void set_head(msg_head *h, double t, const char *frame)
{
    h->t = t;
    size_t n = strlen(frame); /* checked: < 100 */
    memcpy(h->frame, frame, n + 1);
}

typedef struct {
    msg_head h;
    int width, height;
    double resolution;
    tycho_pose2 origin;
} grid_msg; /* + width * height cells */

static int encode_grid(const void *p, size_t len, tycho_text *out)
{
    (void)len;
    const grid_msg *m = p;
    tycho_viz_grid(out, m->h.t, m->h.frame, (const uint8_t *)(m + 1), m->width, m->height,
                   m->resolution, m->origin);
    return 1;
}

/* The box round a grid's known cells as a grid of its own (its cells are
 * copy_hashed's): its size, and its origin the box's corner in the world.
 * The encoder finds the same box in it (all of it) and places it where it
 * places the box of the whole grid, so the message is the one the whole
 * grid gives; a mission's map is mostly unknown margin, and only the box
 * is copied and hashed. */
static void box_head(const tycho_grid *g, const int box[4], grid_msg *m)
{
    int bw = box[2] - box[0] + 1, bh = box[3] - box[1] + 1;
    double res = tycho_grid_resolution(g);
    tycho_pose2 o = tycho_grid_origin(g);
    double c = cos(o.yaw), s = sin(o.yaw), dx = box[0] * res, dy = box[1] * res;
    m->width = bw;
    m->height = bh;
    m->resolution = res;
    m->origin = (tycho_pose2){o.x + c * dx - s * dy, o.y + s * dx + c * dy, o.yaw};
}

/* The last grid written on a channel, or NULL (out of memory: every grid
 * is then written). */
static last_grid *last_of(lwriter *b, uint16_t channel)
{
    if (b->ngrids < channel) {
        last_grid *more = realloc(b->grids, channel * sizeof *more);
        if (!more) return NULL;
        memset(more + b->ngrids, 0, (channel - b->ngrids) * sizeof *more);
        b->grids = more;
        b->ngrids = channel;
    }
    return &b->grids[channel - 1];
}

static void hash_piece(void *ctx, const void *p, size_t n) { tycho_cells_hash_add(ctx, p, n); }

/* The grid's box copied into out row by row and hashed on the way, the
 * cells read once: gathered 4 KB at a time in the caller's caches, hashed
 * there and copied past them. The hash is the grid's fingerprint (its box's
 * size, place and resolution first), so a box moved or resized hashes
 * otherwise. */
static uint64_t copy_hashed(const tycho_grid *g, const int box[4], uint8_t *out)
{
    int w = tycho_grid_width(g);
    int bw = box[2] - box[0] + 1, bh = box[3] - box[1] + 1;
    const uint8_t *cells = tycho_grid_cells_const(g);
    tycho_cells_hash ch;
    tycho_grid_box_hash_start(g, box, &ch);
    tycho_mcap_staged st;
    st.dst = out;
    st.n = 0;
    st.seen = hash_piece;
    st.ctx = &ch;
    for (int y = 0; y < bh; y++)
        tycho_mcap_stage(&st, cells + (size_t)(box[1] + y) * w + box[0], (size_t)bw);
    tycho_mcap_stage_flush(&st);
    return tycho_cells_hash_end(&ch);
}

static int l_grid(lua_State *L)
{
    lwriter *b = check_writer(L);
    double t;
    uint64_t ns;
    uint16_t channel = check_channel_time(L, &ns, &t);
    const tycho_grid *g = tycho_l_checkgrid(L, 4);
    const char *frame = tycho_l_check_frame_id(L, 5);
    int box[4] = {0, 0, 0, 0}; /* nothing known: the cell (0, 0), as the encoder does */
    tycho_grid_known_box(g, box);
    grid_msg head;
    box_head(g, box, &head);
    size_t n = (size_t)head.width * (size_t)head.height;
    tycho_err rerr = {0};
    grid_msg *m = reserve(b, sizeof *m + n, &rerr);
    if (!m) return reserve_failed(L, &rerr);
    /* copied before it is known to have changed: a grid that has not is
     * left uncommitted (the queue reuses the room), and the cells are read
     * once, not compared with a copy kept and then copied again */
    uint64_t hash = copy_hashed(g, box, (uint8_t *)(m + 1));
    last_grid *last = last_of(b, channel);
    if (last && last->written && last->hash == hash) {
        lua_pushboolean(L, 0); /* nothing written */
        return 1;
    }
    *m = head;
    set_head(&m->h, t, frame);
    tycho_status st = tycho_mcap_commit(b->w, channel, ns, encode_grid, sizeof *m + n, &rerr);
    if (st == TYCHO_OK && last) *last = (last_grid){hash, 1};
    return write_result(L, st, &rerr);
}

typedef struct {
    msg_head h;
    int count;
    double angle_min, angle_increment, range_min, range_max;
} scan_msg; /* + count floats */

static int encode_scan(const void *p, size_t len, tycho_text *out)
{
    (void)len;
    const scan_msg *m = p;
    tycho_viz_scan(out, m->h.t, m->h.frame, (const float *)(m + 1), m->count, m->angle_min,
                   m->angle_increment, m->range_min, m->range_max);
    return 1;
}

/* Queues a scan's LaserScan (frame checked by the caller); its reservation
 * is the job's size in *bytes, NULL with err when it cannot be made. */
static scan_msg *queue_scan(lwriter *b, const room_in *in, double t, const char *frame,
                            const tycho_scan *s, size_t *bytes, tycho_err *err)
{
    size_t n = (size_t)s->count * sizeof(float);
    scan_msg *m = room(b, in, sizeof *m + n, err);
    if (!m) return NULL;
    set_head(&m->h, t, frame);
    m->count = s->count;
    m->angle_min = s->angle_min;
    m->angle_increment = s->angle_increment;
    m->range_min = s->range_min;
    m->range_max = s->range_max;
    put(in, m + 1, s->ranges, n);
    *bytes = sizeof *m + n;
    return m;
}

static int l_scan(lua_State *L)
{
    lwriter *b = check_writer(L);
    double t;
    uint64_t ns;
    uint16_t channel = check_channel_time(L, &ns, &t);
    const tycho_scan *s = tycho_l_checkscan(L, 4);
    const char *frame = tycho_l_check_frame_id(L, 5);
    size_t bytes;
    tycho_err rerr = {0};
    if (!queue_scan(b, NULL, t, frame, s, &bytes, &rerr)) return reserve_failed(L, &rerr);
    return commit(L, b, channel, ns, encode_scan, bytes);
}

/* An array queued as floats by a C caller whose values are floats (the
 * simulator's scans and thermal frames: half the bytes the robot's loop
 * copies), widened on the writer's thread: the same doubles, so the same
 * message. into has room for `room` values; a longer array is malloc'd
 * (*heap, freed by the caller). NULL when out of memory. */
static const double *widened(const float *values, size_t n, double *into, size_t room,
                             double **heap)
{
    *heap = NULL;
    if (n > room && !(into = *heap = malloc(n * sizeof *into))) return NULL;
    for (size_t i = 0; i < n; i++) into[i] = values[i];
    return into;
}

enum { WIDENED_ON_STACK = 1024 };

typedef struct {
    msg_head h;
    tycho_l_image im;
    int f32; /* the values are floats (a C caller's), else doubles */
} image_msg; /* + width * height values */

static int encode_image(const void *p, size_t len, tycho_text *out)
{
    (void)len;
    const image_msg *m = p;
    size_t n = (size_t)m->im.width * (size_t)m->im.height;
    double stack[WIDENED_ON_STACK], *heap = NULL;
    const double *v = m->f32 ? widened((const float *)(m + 1), n, stack, WIDENED_ON_STACK, &heap)
                             : (const double *)(m + 1);
    if (!v) {
        out->oom = 1;
        return 1;
    }
    tycho_viz_image(out, m->h.t, m->h.frame, v, m->im.width, m->im.height, m->im.lo, m->im.hi);
    free(heap);
    return 1;
}

static int l_image(lua_State *L)
{
    lwriter *b = check_writer(L);
    double t;
    uint64_t ns;
    uint16_t channel = check_channel_time(L, &ns, &t);
    tycho_l_image im;
    tycho_l_check_image(L, 4, &im);
    const char *frame = tycho_l_check_frame_id(L, 9);
    size_t n = (size_t)im.width * (size_t)im.height;
    tycho_err rerr = {0};
    image_msg *m = reserve(b, sizeof *m + n * sizeof(double), &rerr);
    if (!m) return reserve_failed(L, &rerr);
    set_head(&m->h, t, frame);
    m->im = im;
    m->f32 = 0;
    tycho_l_read_numbers(L, 4, n, "value", (double *)(m + 1));
    return commit(L, b, channel, ns, encode_image, sizeof *m + n * sizeof(double));
}

/* a C caller's message at t in frame (NULL: none): refused when the writer
 * is closed, t is not a time or the frame id is too long */
static tycho_status c_caller_ok(lwriter *b, const tycho_mcap_batch *batch, double t,
                                const char *frame, tycho_err *err)
{
    if (!batch) settle(b); /* a batch is the holder's own: written when it settles */
    if (!b->w) return tycho_fail(err, TYCHO_EINVAL, "mcap: recording already closed");
    if (!(isfinite(t) && t >= 0 && t < 4e9))
        return tycho_fail(err, TYCHO_EINVAL, "mcap: time must be finite seconds >= 0");
    if (frame && strlen(frame) >= sizeof((msg_head *)0)->frame)
        return tycho_fail(err, TYCHO_EINVAL, "mcap: frame id too long");
    return TYCHO_OK;
}

/* The colour-mapped image of a frame's values, as writer:image queues it,
 * for C callers holding them (the simulator's thermal frames, l_sim_view.c). */
tycho_status tycho_l_writer_image(tycho_l_writer *b, tycho_mcap_batch *batch, uint16_t channel,
                                  double t, const char *frame, const tycho_l_image *im,
                                  const float *values, tycho_err *err)
{
    if (c_caller_ok(b, batch, t, frame, err) != TYCHO_OK) return err->code;
    room_in in = {batch, channel, (uint64_t)llround(t * 1e9), encode_image};
    size_t n = (size_t)im->width * (size_t)im->height;
    image_msg *m = room(b, &in, sizeof *m + n * sizeof(float), err);
    if (!m) return err->code;
    set_head(&m->h, t, frame);
    m->im = *im;
    m->f32 = 1;
    put(&in, m + 1, values, n * sizeof(float));
    if (batch) return TYCHO_OK;
    return tycho_mcap_commit(b->w, channel, in.ns, encode_image, sizeof *m + n * sizeof(float),
                             err);
}

typedef struct {
    msg_head h;
    size_t n;
} poses_msg; /* + 3n doubles */

static int encode_poses(const void *p, size_t len, tycho_text *out)
{
    (void)len;
    const poses_msg *m = p;
    tycho_viz_poses(out, m->h.t, m->h.frame, (const double *)(m + 1), m->n);
    return 1;
}

static int l_poses(lua_State *L)
{
    lwriter *b = check_writer(L);
    double t;
    uint64_t ns;
    uint16_t channel = check_channel_time(L, &ns, &t);
    const char *frame = tycho_l_check_frame_id(L, 5);
    lua_Integer max = luaL_optinteger(L, 6, 0);
    luaL_argcheck(L, max == 0 || max >= 2, 6, "at least 2 points (or 0: all)");
    size_t n = tycho_l_poses_count(L, 4, max);
    size_t bytes = 3 * n * sizeof(double);
    tycho_err rerr = {0};
    poses_msg *m = reserve(b, sizeof *m + bytes, &rerr);
    if (!m) return reserve_failed(L, &rerr);
    set_head(&m->h, t, frame);
    m->n = n;
    tycho_l_read_poses(L, 4, max, (double *)(m + 1));
    return commit(L, b, channel, ns, encode_poses, sizeof *m + bytes);
}

typedef struct {
    double t;
    uint32_t numbers, text_len;
    uint64_t array_len;
    const char *text; /* the writer's copy of the template's text, or NULL: it follows */
    int array_f32;    /* the array is floats (a C caller's), else doubles */
} format_msg;         /* + numbers doubles, [the template's text (padded to 8),] array_len values */

static size_t aligned8(size_t n) { return (n + 7) & ~(size_t)7; }

static int encode_format(const void *p, size_t len, tycho_text *out)
{
    (void)len;
    const format_msg *m = p;
    const double *numbers = (const double *)(m + 1);
    const char *inline_text = (const char *)(numbers + m->numbers);
    const void *array = inline_text + (m->text ? 0 : aligned8(m->text_len));
    double stack[WIDENED_ON_STACK], *heap = NULL;
    const double *values =
        m->array_f32 ? widened(array, m->array_len, stack, WIDENED_ON_STACK, &heap) : array;
    if (!values) {
        out->oom = 1;
        return 1;
    }
    tycho_template_format(out, m->text ? m->text : inline_text, m->text_len, m->t, numbers, values,
                          m->array_len);
    free(heap);
    return 1;
}

/* Room for a template's message: its head, numbers and text filled in;
 * returns where its array_len values (each value_size bytes: a double, or
 * a C caller's float) go (bytes: the job's size), or NULL with err. */
static void *reserve_format(lwriter *b, const room_in *in, double t, const tycho_l_template *tp,
                            const double *numbers, size_t array_len, size_t value_size,
                            size_t *bytes, tycho_err *err)
{
    size_t nbytes = (size_t)tp->numbers * sizeof(double);
    const char *kept = kept_text(b, tp);
    size_t text_bytes = kept ? 0 : aligned8(tp->len);
    *bytes = sizeof(format_msg) + nbytes + text_bytes + array_len * value_size;
    format_msg *m = room(b, in, *bytes, err);
    if (!m) return NULL;
    *m = (format_msg){t,    (uint32_t)tp->numbers,      (uint32_t)tp->len, array_len,
                      kept, value_size == sizeof(float)};
    char *at = (char *)(m + 1);
    memcpy(at, numbers, nbytes);
    if (!kept) memcpy(at + nbytes, tp->text, tp->len);
    return at + nbytes + text_bytes;
}

static int l_format(lua_State *L)
{
    lwriter *b = check_writer(L);
    double t;
    uint64_t ns;
    uint16_t channel = check_channel_time(L, &ns, &t);
    double numbers[TYCHO_TEMPLATE_MAX_NUMBERS];
    size_t array_len, bytes;
    const tycho_l_template *tp = tycho_l_check_template(L, 4, 5, numbers, &array_len);
    tycho_err rerr = {0};
    double *array =
        reserve_format(b, NULL, t, tp, numbers, array_len, sizeof(double), &bytes, &rerr);
    if (!array) return reserve_failed(L, &rerr);
    if (tp->has_array) tycho_l_read_template_array(L, tp, 5, array);
    return commit(L, b, channel, ns, encode_format, bytes);
}

/* The message a template makes of numbers and a float array (or none), for
 * C callers holding the inputs (the simulator's tap of raw samples,
 * l_sim_tap.c): queued as writer:format queues it. */
tycho_status tycho_l_writer_format(tycho_l_writer *b, tycho_mcap_batch *batch, uint16_t channel,
                                   double t, const tycho_l_template *tp, const double *numbers,
                                   const float *array, size_t array_len, tycho_err *err)
{
    if (c_caller_ok(b, batch, t, NULL, err) != TYCHO_OK) return err->code;
    if (!tp->has_array || !array) array_len = 0;
    room_in in = {batch, channel, (uint64_t)llround(t * 1e9), encode_format};
    size_t bytes;
    float *out = reserve_format(b, &in, t, tp, numbers, array_len, sizeof(float), &bytes, err);
    if (!out) return err->code;
    if (array_len) put(&in, out, array, array_len * sizeof *out);
    if (batch) return TYCHO_OK;
    return tycho_mcap_commit(b->w, channel, in.ns, encode_format, bytes, err);
}

/* A scan's LaserScan, as writer:scan queues it, for C callers holding the
 * scan (the simulator's, l_sim_view.c). */
tycho_status tycho_l_writer_scan(tycho_l_writer *b, tycho_mcap_batch *batch, uint16_t channel,
                                 double t, const char *frame, const tycho_scan *s, tycho_err *err)
{
    if (c_caller_ok(b, batch, t, frame, err) != TYCHO_OK) return err->code;
    room_in in = {batch, channel, (uint64_t)llround(t * 1e9), encode_scan};
    size_t bytes;
    if (!queue_scan(b, &in, t, frame, s, &bytes, err)) return err->code;
    if (batch) return TYCHO_OK;
    return tycho_mcap_commit(b->w, channel, in.ns, encode_scan, bytes, err);
}

tycho_status tycho_l_writer_write_batch(tycho_l_writer *b, tycho_mcap_batch *batch, tycho_err *err)
{
    settle(b);                                                 /* another holder's messages first */
    if (b->w) return tycho_mcap_write_batch(b->w, batch, err); /* which empties it */
    batch->len = 0;
    return tycho_fail(err, TYCHO_EINVAL, "mcap: recording already closed");
}

tycho_l_writer *tycho_l_checkwriter(lua_State *L, int idx)
{
    return TYCHO_L_CHECKBOX(L, idx, lwriter, w, MCAP_WRITER_MT, "recording already closed");
}

/* writer:join(channel, t, ...): the message is the strings given, in order,
 * a table among them standing for its strings joined with ",", a text
 * window (tycho.viz.text_window) for its text; copied straight into the
 * queue (no Lua string of the whole message is made: a scene of 200
 * detections was 34 KB built three times over a tick). */
static size_t join_arg(lua_State *L, int a, tycho_mcap_staged *out)
{
    size_t len, total = 0;
    const char *joined = lua_type(L, a) == LUA_TSTRING ? lua_tolstring(L, a, &len)
                                                       : tycho_l_test_text_window(L, a, &len);
    if (joined) {
        if (out) tycho_mcap_stage(out, joined, len);
        return len;
    }
    luaL_argcheck(L, lua_istable(L, a), a, "string, list of strings or text window expected");
    size_t n = lua_rawlen(L, a);
    for (size_t k = 1; k <= n; k++) {
        lua_rawgeti(L, a, (lua_Integer)k); /* LuaJIT's returns nothing */
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_argerror(L, a, lua_pushfstring(L, "item %d is not a string", (int)k));
        const char *p = lua_tolstring(L, -1, &len);
        if (k > 1) {
            if (out) tycho_mcap_stage(out, ",", 1);
            total++;
        }
        if (out) tycho_mcap_stage(out, p, len);
        total += len;
        lua_pop(L, 1);
    }
    return total;
}

static int l_join(lua_State *L)
{
    lwriter *b = check_writer(L);
    double t;
    uint64_t ns;
    uint16_t channel = check_channel_time(L, &ns, &t);
    int top = lua_gettop(L);
    size_t len = 0;
    for (int a = 4; a <= top; a++) len += join_arg(L, a, NULL);
    tycho_err rerr = {0};
    char *p = reserve(b, len, &rerr);
    if (!p) return reserve_failed(L, &rerr);
    tycho_mcap_staged st;
    st.dst = (uint8_t *)p;
    st.n = 0;
    st.seen = NULL;
    for (int a = 4; a <= top; a++) join_arg(L, a, &st);
    tycho_mcap_stage_flush(&st);
    return commit(L, b, channel, ns, NULL, len);
}

static int l_queue_waits(lua_State *L)
{
    lwriter *b = check_writer(L);
    lua_pushinteger(L, (lua_Integer)tycho_mcap_queue_waits(b->w));
    return 1;
}

static int l_bytes(lua_State *L)
{
    lwriter *b = check_writer(L);
    lua_pushinteger(L, (lua_Integer)tycho_mcap_bytes(b->w));
    return 1;
}

/* writer:close_start(): the rest of the file is the writer thread's while
 * the caller goes on (the mission writes its outputs while the recording
 * syncs to the disk); writes are refused from now on, close() waits */
static int l_close_start(lua_State *L)
{
    lwriter *b = check_writer(L);
    tycho_mcap_close_start(b->w);
    b->closing = b->w;
    b->w = NULL;
    return 0;
}

static int l_close(lua_State *L)
{
    lwriter *b = luaL_checkudata(L, 1, MCAP_WRITER_MT);
    if (b->w) settle(b);
    tycho_mcap_writer *w = b->w ? b->w : b->closing;
    if (!w) {
        lua_pushboolean(L, 1);
        return 1;
    }
    tycho_err err = {0};
    tycho_status st = tycho_mcap_close(w, &err);
    b->w = b->closing = NULL;
    free_kept(b);
    if (st != TYCHO_OK) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int l_gc(lua_State *L)
{
    lwriter *b = luaL_checkudata(L, 1, MCAP_WRITER_MT);
    if (b->w) settle(b);
    tycho_mcap_writer *w = b->w ? b->w : b->closing;
    if (w) tycho_mcap_close(w, NULL);
    b->w = b->closing = NULL;
    free_kept(b);
    return 0;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
-- recording and live view ---------------------------------------------------------------

tycho.mcap = {}
---@class tycho.mcap_writer
local mcap_writer = {}
---Starts an MCAP recording at path (written as path.part until close).
---o.threaded: messages are copied and written by a thread of the writer's own (the same
---file); o.queue_limit: bytes queued before a write waits for it (default 64 MiB).
---@param o? {chunk_size?: integer, compress?: boolean, level?: integer, threaded?: boolean, queue_limit?: integer}
---@return tycho.mcap_writer|nil writer, string? err
function tycho.mcap.open(path, o) end
---@return integer id
function mcap_writer:schema(name, encoding, data) end
---@return integer id
function mcap_writer:channel(topic, schema_id, encoding) end
---@return true|nil ok, string? err
function mcap_writer:write(channel_id, t, data) end
---foxglove.Grid of the grid as tycho.viz.grid makes it; false (nothing written) when its
---cells, size and place are those of the last grid written on this channel.
---@return boolean|nil written, string? err
function mcap_writer:grid(channel_id, t, grid, frame_id) end
---foxglove.LaserScan of the scan, as tycho.viz.scan makes it.
---@return true|nil ok, string? err
function mcap_writer:scan(channel_id, t, scan, frame_id) end
---foxglove.RawImage, as tycho.viz.image makes it.
---@return true|nil ok, string? err
function mcap_writer:image(channel_id, t, values, width, height, lo, hi, frame_id) end
---foxglove.PosesInFrame, as tycho.viz.poses makes it.
---@return true|nil ok, string? err
function mcap_writer:poses(channel_id, t, points, frame_id, max) end
---The template filled in, as tycho.viz.format makes it.
---@return true|nil ok, string? err
function mcap_writer:format(channel_id, t, template, ...) end
---The message made of the strings given in order, a list of strings standing for them
---joined with ",", a text window (tycho.viz.text_window) for its text (copied once, no
---Lua string of the whole message is made).
---@return true|nil ok, string? err
function mcap_writer:join(channel_id, t, ...) end
---How many times a write waited for the writer's thread (threaded: a disk slower than the robot).
---@return integer
function mcap_writer:queue_waits() end
---@return integer
function mcap_writer:bytes() end
---Starts closing: the writer's thread finishes the file while you go on (close waits).
function mcap_writer:close_start() end
---@return true|nil ok, string? err
function mcap_writer:close() end
*/
// clang-format on

static const luaL_Reg writer_methods[] = {
    {"schema", l_schema},
    {"channel", l_channel},
    {"write", l_write},
    {"grid", l_grid},
    {"scan", l_scan},
    {"image", l_image},
    {"poses", l_poses},
    {"format", l_format},
    {"join", l_join},
    {"queue_waits", l_queue_waits},
    {"bytes", l_bytes},
    {"close", l_close},
    {"close_start", l_close_start},
    {NULL, NULL},
};

void tycho_l_open_mcap(lua_State *L, int module, int methods)
{
    (void)methods;
    static const tycho_l_class writer_class = {MCAP_WRITER_MT, writer_methods, NULL,
                                               l_gc,           NULL,           NULL};
    tycho_l_newclass(L, &writer_class);
    lua_pop(L, 1);
    tycho_l_register_opts(L, &open_spec);
    lua_newtable(L);
    lua_pushcfunction(L, l_open);
    lua_setfield(L, -2, "open");
    lua_pushcfunction(L, tycho_l_mcap_read);
    lua_setfield(L, -2, "read");
    tycho_l_mcap_read_register(L);
    lua_setfield(L, module, "mcap");
}
