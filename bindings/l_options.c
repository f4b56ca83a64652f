/* Option tables parsed from a declared spec (DESIGN principle 6: a field
 * engineer's typo is an error naming the key and the accepted ones, never a
 * silent default). Each option-taking binding declares its keys with their
 * types and ranges once, as a tycho_opt_spec; tycho_l_checkopts validates the
 * whole table before the binding reads any field, and every spec is recorded
 * in the registry ("tycho.options") so the specs and the console can list
 * what each function accepts. */
#include "ltycho.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The argument number as the caller wrote it: in a method call (obj:f(a))
 * Lua counts self, the person does not (luaL_argerror's rule). */
static int caller_argn(lua_State *L, int argn)
{
    lua_Debug ar;
    if (lua_getstack(L, 0, &ar) && lua_getinfo(L, "n", &ar) && ar.namewhat &&
        !strcmp(ar.namewhat, "method"))
        return argn - 1;
    return argn;
}

static const char *type_name(tycho_opt_type t)
{
    switch (t) {
    case TYCHO_OPT_NUMBER:
        return "number";
    case TYCHO_OPT_INTEGER:
        return "integer";
    case TYCHO_OPT_BOOLEAN:
        return "boolean";
    case TYCHO_OPT_STRING:
        return "string";
    case TYCHO_OPT_TABLE:
        return "table";
    case TYCHO_OPT_FUNCTION:
        return "function";
    case TYCHO_OPT_POSE:
        return "pose";
    case TYCHO_OPT_ANY:
        return "any";
    }
    return "?";
}

static const tycho_opt_field *find_field(const tycho_opt_spec *spec, const char *key)
{
    for (const tycho_opt_field *f = spec->fields; f->key; f++)
        if (f->key[0] == key[0] && !strcmp(f->key, key)) return f; /* most keys differ at once */
    return NULL;
}

/* "a, b, c": the accepted keys, in declaration order. */
static void push_accepted(lua_State *L, const tycho_opt_spec *spec)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (const tycho_opt_field *f = spec->fields; f->key; f++) {
        if (f != spec->fields) luaL_addstring(&b, ", ");
        luaL_addstring(&b, f->key);
    }
    luaL_pushresult(&b);
}

/* "bad field 'K' in argument #N to 'FN' (why)": the wording the older
 * per-binding readers used, now with the function's Lua name. luaL_error
 * prefixes the caller's file:line. */
static int field_error(lua_State *L, int argn, const tycho_opt_spec *spec, const char *key,
                       const char *why)
{
    return luaL_error(L, "bad field '%s' in argument #%d to '%s' (%s)", key, caller_argn(L, argn),
                      spec->fn, why);
}

/* The value at the stack top against f; raises naming the key. */
static void check_value(lua_State *L, int argn, const tycho_opt_spec *spec,
                        const tycho_opt_field *f)
{
    int t = lua_type(L, -1);
    char why[96];
    switch (f->type) {
    case TYCHO_OPT_NUMBER:
    case TYCHO_OPT_INTEGER: {
        if (t != LUA_TNUMBER) break;
        if (f->type == TYCHO_OPT_INTEGER && !tycho_isinteger(L, -1)) {
            snprintf(why, sizeof why, "integer expected, got %g", lua_tonumber(L, -1));
            field_error(L, argn, spec, f->key, why);
        }
        double v = lua_tonumber(L, -1);
        if (!isfinite(v)) field_error(L, argn, spec, f->key, "must be finite");
        if (f->range == TYCHO_OPT_POSITIVE && !(v > 0))
            field_error(L, argn, spec, f->key, "must be > 0");
        if (f->range == TYCHO_OPT_NONNEG && !(v >= 0))
            field_error(L, argn, spec, f->key, "must be >= 0");
        if (f->range == TYCHO_OPT_IN && !(v >= f->lo && v <= f->hi)) {
            snprintf(why, sizeof why, "must be in %g..%g, got %g", f->lo, f->hi, v);
            field_error(L, argn, spec, f->key, why);
        }
        return;
    }
    case TYCHO_OPT_BOOLEAN:
        if (t != LUA_TBOOLEAN) break;
        return;
    case TYCHO_OPT_STRING:
        if (t != LUA_TSTRING) break;
        return;
    case TYCHO_OPT_TABLE:
        if (t != LUA_TTABLE) break;
        return;
    case TYCHO_OPT_FUNCTION:
        if (t != LUA_TFUNCTION) break;
        return;
    case TYCHO_OPT_POSE:
        if (t != LUA_TTABLE) break;
        tycho_l_checkpose(L, lua_gettop(L), argn, f->key, false);
        return;
    case TYCHO_OPT_ANY:
        return;
    }
    snprintf(why, sizeof why, "%s expected, got %s", type_name(f->type), luaL_typename(L, -1));
    field_error(L, argn, spec, f->key, why);
}

void tycho_l_checkopts(lua_State *L, int idx, int argn, const tycho_opt_spec *spec)
{
    if (lua_isnoneornil(L, idx)) return;
    if (!lua_istable(L, idx))
        luaL_argerror(L, argn,
                      lua_pushfstring(L, "options table expected, got %s", luaL_typename(L, idx)));
    if (idx < 0 && idx > LUA_REGISTRYINDEX) idx = lua_gettop(L) + idx + 1;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        /* array entries belong to functions that also take positional
         * values (poses as {x, y, yaw}); only named keys are options */
        if (lua_type(L, -2) == LUA_TSTRING) {
            const char *key = lua_tostring(L, -2);
            const tycho_opt_field *f = find_field(spec, key);
            if (!f) {
                push_accepted(L, spec);
                luaL_error(L, "unknown field '%s' in argument #%d to '%s' (accepted: %s)", key,
                           caller_argn(L, argn), spec->fn, lua_tostring(L, -1));
            }
            check_value(L, argn, spec, f);
        } else if (lua_type(L, -2) != LUA_TNUMBER) {
            luaL_argerror(L, argn,
                          lua_pushfstring(L, "option table keys must be strings, got %s",
                                          luaL_typename(L, -2)));
        }
        lua_pop(L, 1);
    }
}

int tycho_l_push_xyyaw(lua_State *L, tycho_pose2 p)
{
    lua_pushnumber(L, p.x);
    lua_pushnumber(L, p.y);
    lua_pushnumber(L, p.yaw);
    return 3;
}

void tycho_l_pushpose(lua_State *L, tycho_pose2 p)
{
    lua_createtable(L, 0, 3);
    lua_pushnumber(L, p.x);
    lua_setfield(L, -2, "x");
    lua_pushnumber(L, p.y);
    lua_setfield(L, -2, "y");
    lua_pushnumber(L, p.yaw);
    lua_setfield(L, -2, "yaw");
}

tycho_pose2 tycho_l_checkpose(lua_State *L, int idx, int argn, const char *what, bool need_yaw)
{
    if (idx < 0 && idx > LUA_REGISTRYINDEX) idx = lua_gettop(L) + idx + 1;
    if (!lua_istable(L, idx))
        luaL_argerror(L, argn,
                      lua_pushfstring(L, "%s: pose {x=, y=, yaw=} or {x, y, yaw} expected, got %s",
                                      what, luaL_typename(L, idx)));
    static const char *const keys[3] = {"x", "y", "yaw"};
    double v[3];
    for (int i = 0; i < 3; i++) {
        lua_getfield(L, idx, keys[i]);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            lua_rawgeti(L, idx, i + 1);
        }
        /* x and y are required; yaw may default to 0 where a pose is a place
         * (a map's origin, a sensor sweep) rather than a robot's heading.
         * Other fields are allowed: a pose is often a robot's state table
         * (with v, w, t) handed on as it is. */
        if (lua_isnil(L, -1) && i == 2 && !need_yaw) {
            v[i] = 0;
        } else if (lua_type(L, -1) != LUA_TNUMBER) {
            luaL_error(L,
                       "bad field '%s' in argument #%d (%s: number '%s' or [%d] expected, got %s)",
                       keys[i], caller_argn(L, argn), what, keys[i], i + 1, luaL_typename(L, -1));
        } else {
            v[i] = lua_tonumber(L, -1);
            if (!isfinite(v[i]))
                luaL_error(L, "bad field '%s' in argument #%d (%s must be finite)", keys[i],
                           caller_argn(L, argn), what);
        }
        lua_pop(L, 1);
    }
    tycho_pose2 p = {v[0], v[1], v[2]};
    return p;
}

void tycho_l_register_opts(lua_State *L, const tycho_opt_spec *spec)
{
    lua_getfield(L, LUA_REGISTRYINDEX, TYCHO_OPTIONS_REG);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, TYCHO_OPTIONS_REG);
    }
    lua_newtable(L);
    for (const tycho_opt_field *f = spec->fields; f->key; f++) {
        lua_pushstring(L, type_name(f->type));
        lua_setfield(L, -2, f->key);
    }
    lua_setfield(L, -2, spec->fn);
    lua_pop(L, 1);
}
