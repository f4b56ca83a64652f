/* tycho.mcap.read: reading a recording back from Lua (the writer is l_mcap.c).
 *
 *   tycho.mcap.read(path [, fn [, {cut_ok =}]]) -> info | nil, err: checks the whole file;
 *     fn(topic, t, data) per message, a true result stops; cut_ok reads a recording cut short
 */
#include "ltycho.h"
#include "tycho/mcap.h"

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

int tycho_l_mcap_read(lua_State *L)
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

void tycho_l_mcap_read_register(lua_State *L) { tycho_l_register_opts(L, &read_spec); }

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---Reads and checks a whole recording; fn(topic, t, data) per message (a true result stops).
---o.cut_ok: a recording cut short (no footer: the process died) is read up to its last
---whole record, info.cut = true and info.cut_offset say so (else it is an error).
---@param o? {cut_ok?: boolean}
---@return table|nil info, string? err
function tycho.mcap.read(path, fn, o) end
*/
// clang-format on
