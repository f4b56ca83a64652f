/* tycho.mcap: MCAP recordings from Lua.
 *
 *   tycho.mcap.open(path [, {chunk_size =, compress =, level =}]) -> writer | nil, err
 *   writer:schema(name, encoding, data) -> id;  writer:channel(topic, schema_id, encoding) -> id
 *   writer:write(channel, t, data) (t in seconds, simulated or wall);  writer:bytes()
 *   writer:close() -> true | nil, err (finishes the file)
 *   tycho.mcap.read(path [, fn [, {cut_ok =}]]) -> info | nil, err: checks the whole file;
 *     fn(topic, t, data) per message, a true result stops; cut_ok reads a recording cut short
 *
 * A writer the collector finds unclosed is finished, so an error in the
 * mission still leaves a readable recording. */
#include <math.h>
#include <stdint.h>

#include "ltycho.h"
#include "tycho/mcap.h"

#define MCAP_WRITER_MT "tycho.mcap_writer"

typedef struct {
    tycho_mcap_writer *w;
} lwriter;

static lwriter *check_writer(lua_State *L)
{
    return TYCHO_L_CHECKBOX(L, 1, lwriter, w, MCAP_WRITER_MT, "recording already closed");
}

static const tycho_opt_field open_fields[] = {TYCHO_OPT_INT_IN("chunk_size", 1024, 1 << 28),
                                              TYCHO_OPT_BOOL("compress"),
                                              TYCHO_OPT_INT_IN("level", 1, 19),
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
    }
    lwriter *b = tycho_newuserdata(L, sizeof *b);
    b->w = NULL;
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

static int l_bytes(lua_State *L)
{
    lwriter *b = check_writer(L);
    lua_pushinteger(L, (lua_Integer)tycho_mcap_bytes(b->w));
    return 1;
}

static int l_close(lua_State *L)
{
    lwriter *b = luaL_checkudata(L, 1, MCAP_WRITER_MT);
    if (!b->w) {
        lua_pushboolean(L, 1);
        return 1;
    }
    tycho_err err = {0};
    tycho_status st = tycho_mcap_close(b->w, &err);
    b->w = NULL;
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
    if (b->w) tycho_mcap_close(b->w, NULL);
    b->w = NULL;
    return 0;
}

/* --- reading ---------------------------------------------------------------- */
typedef struct {
    lua_State *L;
    int fn;    /* stack index of the callback */
    int error; /* the callback raised: its message is on the stack */
} read_ctx;

static int on_message(void *ud, const tycho_mcap_channel_info *ch, uint64_t log_time,
                      const uint8_t *data, size_t len)
{
    read_ctx *c = ud;
    lua_State *L = c->L;
    lua_pushvalue(L, c->fn);
    lua_pushstring(L, ch->topic);
    lua_pushnumber(L, (double)log_time * 1e-9);
    lua_pushlstring(L, (const char *)data, len);
    if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
        c->error = 1;
        return 1;
    }
    int stop = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return stop;
}

static const tycho_opt_field read_fields[] = {TYCHO_OPT_BOOL("cut_ok"), {0}};
static const tycho_opt_spec read_spec = {"mcap.read", read_fields};

static int l_read(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    read_ctx ctx = {L, 2, 0};
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
    unsigned flags = 0;
    if (!lua_isnoneornil(L, 3)) {
        tycho_l_checkopts(L, 3, 3, &read_spec);
        if (tycho_l_optfield_boolean(L, 3, 3, "cut_ok", 0)) flags |= TYCHO_MCAP_READ_CUT;
    }
    lua_settop(L, 3);
    tycho_mcap_info *info = tycho_newuserdata(L, sizeof *info); /* big: not on the C stack */
    tycho_err err = {0};
    tycho_status st = tycho_mcap_read_flags(path, flags, info,
                                            lua_isfunction(L, 2) ? on_message : NULL, &ctx, &err);
    if (ctx.error) return lua_error(L);
    if (st != TYCHO_OK) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    lua_createtable(L, 0, 12);
    lua_pushstring(L, info->profile);
    lua_setfield(L, -2, "profile");
    lua_pushstring(L, info->library);
    lua_setfield(L, -2, "library");
    lua_pushinteger(L, (lua_Integer)info->messages);
    lua_setfield(L, -2, "messages");
    lua_pushinteger(L, (lua_Integer)info->chunks);
    lua_setfield(L, -2, "chunks");
    lua_pushinteger(L, (lua_Integer)info->schemas);
    lua_setfield(L, -2, "schemas");
    lua_pushnumber(L, (double)info->start_time * 1e-9);
    lua_setfield(L, -2, "start_time");
    lua_pushnumber(L, (double)info->end_time * 1e-9);
    lua_setfield(L, -2, "end_time");
    lua_pushinteger(L, (lua_Integer)info->compressed_bytes);
    lua_setfield(L, -2, "compressed_bytes");
    lua_pushinteger(L, (lua_Integer)info->uncompressed_bytes);
    lua_setfield(L, -2, "uncompressed_bytes");
    lua_pushboolean(L, info->cut);
    lua_setfield(L, -2, "cut");
    if (info->cut) {
        lua_pushinteger(L, (lua_Integer)info->cut_offset);
        lua_setfield(L, -2, "cut_offset");
    }
    lua_createtable(L, 0, info->nchannels);
    for (int i = 0; i < info->nchannels; i++) {
        const tycho_mcap_channel_info *ch = &info->channels[i];
        lua_createtable(L, 0, 4);
        lua_pushinteger(L, ch->id);
        lua_setfield(L, -2, "id");
        lua_pushstring(L, ch->schema_name);
        lua_setfield(L, -2, "schema");
        lua_pushstring(L, ch->message_encoding);
        lua_setfield(L, -2, "encoding");
        lua_pushinteger(L, (lua_Integer)ch->messages);
        lua_setfield(L, -2, "messages");
        lua_setfield(L, -2, ch->topic);
    }
    lua_setfield(L, -2, "channels");
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
-- recording and live view ---------------------------------------------------------------

tycho.mcap = {}
---@class tycho.mcap_writer
local mcap_writer = {}
---Starts an MCAP recording at path (written as path.part until close).
---@param o? {chunk_size?: integer, compress?: boolean, level?: integer}
---@return tycho.mcap_writer|nil writer, string? err
function tycho.mcap.open(path, o) end
---Reads and checks a whole recording; fn(topic, t, data) per message (a true result stops).
---o.cut_ok: a recording cut short (no footer: the process died) is read up to its last
---whole record, info.cut = true and info.cut_offset say so (else it is an error).
---@param o? {cut_ok?: boolean}
---@return table|nil info, string? err
function tycho.mcap.read(path, fn, o) end
---@return integer id
function mcap_writer:schema(name, encoding, data) end
---@return integer id
function mcap_writer:channel(topic, schema_id, encoding) end
---@return true|nil ok, string? err
function mcap_writer:write(channel_id, t, data) end
---@return integer
function mcap_writer:bytes() end
---@return true|nil ok, string? err
function mcap_writer:close() end
*/
// clang-format on

static const luaL_Reg writer_methods[] = {
    {"schema", l_schema}, {"channel", l_channel}, {"write", l_write},
    {"bytes", l_bytes},   {"close", l_close},     {NULL, NULL},
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
    lua_pushcfunction(L, l_read);
    lua_setfield(L, -2, "read");
    lua_setfield(L, module, "mcap");
}
