/* What the simulator's two writers to a recording share (l_sim_tap.c, the
 * raw samples; l_sim_view.c, the viewer's frames): the writer and the clock
 * they write with, kept alive in the registry with the templates while
 * tapping, the count of messages written and the first failure, which stops
 * the hook (the writer reports it again at close). */
#include "l_sim.h"

#include "tycho/sched.h"

/* The hook's writer (argument 2) and clock (argument 3), and the table that
 * keeps them alive pushed: the templates go into it (tycho_l_sim_hook_template)
 * before tycho_l_sim_hook_keep. */
void tycho_l_sim_hook_begin(lua_State *L, tycho_l_sim_hook *h, const char *who, int templates)
{
    *h = (tycho_l_sim_hook){.writer = tycho_l_checkwriter(L, 2),
                            .clock = tycho_l_checkclockbox(L, 3),
                            .who = who,
                            .ref = LUA_NOREF};
    lua_createtable(L, 2 + templates, 0);
    lua_pushvalue(L, 2);
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, 3);
    lua_rawseti(L, -2, 2);
}

uint16_t tycho_l_sim_hook_channel(lua_State *L, int idx, const char *key, int arg)
{
    lua_getfield(L, idx, key);
    int ok = 0;
    lua_Integer id = lua_tointegerx(L, -1, &ok);
    if (!ok || id < 1 || id > UINT16_MAX)
        luaL_argerror(L, arg, lua_pushfstring(L, "field '%s': channel id expected", key));
    lua_pop(L, 1);
    return (uint16_t)id;
}

const tycho_l_template *tycho_l_sim_hook_template(lua_State *L, int idx, int arg, const char *key,
                                                  int numbers, bool has_array, int slot)
{
    lua_getfield(L, idx, key);
    const tycho_l_template *tp = tycho_l_totemplate(L, -1);
    if (!tp)
        luaL_argerror(
            L, arg, lua_pushfstring(L, "field '%s': template expected (tycho.viz.template)", key));
    if (tp->numbers != numbers || !tp->has_array != !has_array)
        luaL_argerror(L, arg,
                      lua_pushfstring(L, "template '%s' takes %d numbers%s, this one %d%s", key,
                                      numbers, has_array ? " and an array" : "", tp->numbers,
                                      tp->has_array ? " and an array" : ""));
    lua_rawseti(L, -2, 3 + slot); /* into the table below it: kept alive */
    return tp;
}

void tycho_l_sim_hook_keep(lua_State *L, tycho_l_sim_hook *h)
{
    h->ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

void tycho_l_sim_hook_release(lua_State *L, tycho_l_sim_hook *h)
{
    luaL_unref(L, LUA_REGISTRYINDEX, h->ref);
    h->ref = LUA_NOREF;
}

bool tycho_l_sim_hook_time(tycho_l_sim_hook *h, double *t)
{
    if (h->failed) return false;
    if (!*h->clock) {
        tycho_fail(&h->err, TYCHO_EINVAL, "%s: the clock was closed", h->who);
        h->failed = true;
        return false;
    }
    *t = tycho_clock_now(*h->clock);
    return true;
}

void tycho_l_sim_hook_wrote(tycho_l_sim_hook *h, tycho_status st)
{
    if (st == TYCHO_OK) {
        h->messages++;
        return;
    }
    if (!h->failed) h->err = h->write_err;
    h->failed = true;
}

int tycho_l_sim_hook_push_result(lua_State *L, const tycho_l_sim_hook *h)
{
    lua_pushinteger(L, (lua_Integer)h->messages);
    if (h->failed) lua_pushstring(L, h->err.msg);
    else lua_pushnil(L);
    return 2;
}
