/* tycho.yaml_leaves(text [, name]): a YAML document as its leaves, for Lua
 * readers of nested key/value files (ROS 2 parameter files in params.lua). */
#include "ltycho.h"
#include "tycho/yaml_leaves.h"

typedef struct {
    lua_State *L;
    int list;
    lua_Integer n;
} leaves_ctx;

static const char *const KIND_NAMES[] = {"scalar", "list", "map"};

static int push_leaf(void *ud, const tycho_yaml_leaf *leaf)
{
    leaves_ctx *c = ud;
    lua_State *L = c->L;
    lua_createtable(L, 0, 5);
    lua_createtable(L, leaf->depth, 0);
    for (int i = 0; i < leaf->depth; i++) {
        lua_pushstring(L, leaf->keys[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "keys");
    lua_pushstring(L, KIND_NAMES[leaf->kind]);
    lua_setfield(L, -2, "kind");
    if (leaf->value) {
        lua_pushlstring(L, leaf->value, leaf->length);
        lua_setfield(L, -2, "value");
    }
    lua_pushboolean(L, leaf->quoted);
    lua_setfield(L, -2, "quoted");
    lua_pushinteger(L, leaf->line);
    lua_setfield(L, -2, "line");
    lua_rawseti(L, c->list, ++c->n);
    return 0;
}

/* tycho.yaml_leaves(text [, name]) -> {{keys =, kind =, value =, quoted =, line =}, ...}
 * | nil, "name:line: why" */
static int l_yaml_leaves(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, "<string>");
    lua_newtable(L);
    leaves_ctx c = {L, lua_gettop(L), 0};
    tycho_err err;
    tycho_err_clear(&err);
    if (tycho_yaml_leaves(text, len, name, push_leaf, &c, &err) != TYCHO_OK) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---A YAML document as its leaves: every scalar, list or empty mapping reached
---through mapping keys, in document order (ROS 2 parameter files).
---@param text string
---@param name? string  used in messages (a file name)
---@return {keys: string[], kind: "scalar"|"list"|"map", value?: string, quoted: boolean, line: integer}[]|nil leaves
---@return string? err  "name:line: why" on malformed YAML, duplicate or non-scalar keys
function tycho.yaml_leaves(text, name) end
*/
// clang-format on

void tycho_l_open_yaml(lua_State *L, int module, int methods)
{
    (void)methods;
    lua_pushcfunction(L, l_yaml_leaves);
    lua_setfield(L, module, "yaml_leaves");
}
