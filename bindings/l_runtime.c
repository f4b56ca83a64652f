/* Lua bindings: runtime (tycho.scheduler and task handles; the clock is l_clock.c).
 *
 * Ownership: the scheduler userdata's user value is a table U holding the
 * clock userdata, the task functions (U.fns[slot]) and the task handles
 * (U.handles[slot]). Keeping them there rather than in the registry lets a
 * scheduler whose callbacks capture it be collected. The core calls the
 * release hook when it drops a task; the hook clears both entries, so a
 * cancelled or finished task's function is garbage at once.
 *
 * A handle's user value is a table {sched = <scheduler>, error = <message>},
 * so a live handle keeps its scheduler alive. */
#include "ltycho.h"
#include "tycho/sched.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SCHED_MT "tycho.scheduler"
#define TASK_MT "tycho.task"

/* Where the Lua side of the hooks lives while a core call that may run them
 * is in progress: the calling thread and absolute stack indices of U, U.fns,
 * U.handles. Saved and restored around every such call, because a task may
 * call back into its scheduler from another coroutine. */
typedef struct {
    lua_State *L;
    int uidx, fidx, hidx;
} hookctx;

typedef struct {
    tycho_sched *s;
    hookctx h;
    double realtime;   /* default pacing for run() */
    int until_idx;     /* stack index of run{until_fn=} during a run */
    int wait_idx;      /* stack index of run{wait=} during a run */
    int stop_on_error; /* during a run */
    int closing;       /* in __gc: hooks skip Lua work */
    char last_name[TYCHO_TASK_NAME_MAX];
} lsched;

typedef struct {
    tycho_task_id id;
    tycho_task_end end; /* 0 while live */
    double period;
    char name[TYCHO_TASK_NAME_MAX];
} ltask;

/* One user value per userdata, as a table on both Lua 5.4 and LuaJIT. */
static void set_uv(lua_State *L, int idx)
{
#if TYCHO_LUAJIT
    lua_setfenv(L, idx);
#else
    lua_setiuservalue(L, idx, 1);
#endif
}

static void get_uv(lua_State *L, int idx)
{
#if TYCHO_LUAJIT
    lua_getfenv(L, idx);
#else
    lua_getiuservalue(L, idx, 1);
#endif
}

static int l_run(lua_State *L);
static int l_step(lua_State *L);
static int l_tick(lua_State *L);

/* Message handler: "message\nstack traceback:" with the frames between the
 * error and the scheduler's run/step/tick (the caller's frames above it say
 * nothing about the failing task). Also tycho.scheduler.traceback. */
static int msgh(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
        else msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    char tb[3072];
    size_t len = 0;
    tb[0] = '\0';
    lua_Debug ar;
    for (int level = 1, n = 0; lua_getstack(L, level, &ar); level++) {
        lua_getinfo(L, "Slnf", &ar);
        lua_CFunction cf = lua_tocfunction(L, -1);
        lua_pop(L, 1);
        if (cf == l_run || cf == l_step || cf == l_tick) break;
        char fn[160];
        if (ar.namewhat && *ar.namewhat)
            snprintf(fn, sizeof fn, "%s '%s'",
                     strcmp(ar.namewhat, "global") ? ar.namewhat : "function",
                     ar.name ? ar.name : "?");
        else if (*ar.what == 'm') snprintf(fn, sizeof fn, "main chunk");
        else if (*ar.what == 'C') snprintf(fn, sizeof fn, "?");
        else snprintf(fn, sizeof fn, "function <%s:%d>", ar.short_src, ar.linedefined);
        int w = ++n > 24 ? snprintf(tb + len, sizeof tb - len, "\n\t...")
                : ar.currentline > 0
                    ? snprintf(tb + len, sizeof tb - len, "\n\t%s:%d: in %s", ar.short_src,
                               ar.currentline, fn)
                    : snprintf(tb + len, sizeof tb - len, "\n\t%s: in %s", ar.short_src, fn);
        if (w < 0 || (size_t)w >= sizeof tb - len || n > 24) break;
        len += (size_t)w;
    }
    lua_pushfstring(L, "%s\nstack traceback:%s", msg, tb);
    return 1;
}

/* --- hook context ------------------------------------------------------- */

static lsched *check_sched(lua_State *L, int idx)
{
    return TYCHO_L_CHECKBOX(L, idx, lsched, s, SCHED_MT, "scheduler has been freed");
}

/* Pushes U, U.fns, U.handles of the scheduler at sidx and points the hooks
 * at them; returns the previous context for ctx_leave. */
static hookctx ctx_enter(lua_State *L, lsched *b, int sidx)
{
    hookctx old = b->h;
    luaL_checkstack(L, 8, "scheduler");
    get_uv(L, sidx);
    b->h.uidx = lua_gettop(L);
    lua_getfield(L, b->h.uidx, "fns");
    b->h.fidx = lua_gettop(L);
    lua_getfield(L, b->h.uidx, "handles");
    b->h.hidx = lua_gettop(L);
    b->h.L = L;
    return old;
}

static void ctx_leave(lsched *b, hookctx old) { b->h = old; }

static void release_hook(void *ctx, tycho_task_id id, tycho_task_end why)
{
    lsched *b = ctx;
    if (b->closing || !b->h.L) return;
    lua_State *L = b->h.L;
    int slot = (int)(id & 0xffffffffu);
    lua_pushnil(L);
    lua_rawseti(L, b->h.fidx, slot);
    lua_rawgeti(L, b->h.hidx, slot);
    ltask *t = lua_touserdata(L, -1);
    if (t && t->id == id) t->end = why;
    lua_pop(L, 1);
    lua_pushnil(L);
    lua_rawseti(L, b->h.hidx, slot);
}

/* Calls the error handler (U.on_error or the default) for a task failure. */
static void report(lua_State *L, lsched *b, int uidx, const char *name, const char *msg)
{
    lua_getfield(L, uidx, "on_error");
    if (lua_isfunction(L, -1)) {
        lua_pushcfunction(L, msgh);
        lua_insert(L, -2);
        int base = lua_gettop(L) - 1;
        lua_pushstring(L, name);
        lua_pushstring(L, msg);
        if (lua_pcall(L, 2, 0, base) != 0) {
            fprintf(stderr,
                    "tycho: error in the scheduler's on_error handler: %s\n"
                    "  while reporting task '%s': %s\n",
                    lua_tostring(L, -1), name, msg);
            lua_pop(L, 1);
        }
        lua_pop(L, 1); /* msgh */
        return;
    }
    lua_pop(L, 1);
    fprintf(stderr, "[%8.2fs] ERROR task '%s' failed and was disabled: %s\n",
            tycho_clock_now(tycho_sched_clock(b->s)), name, msg);
}

static void stash_error(lua_State *L, lsched *b, const char *name, const char *msg)
{
    lua_pushstring(L, name);
    lua_setfield(L, b->h.uidx, "last_error_task");
    lua_pushstring(L, msg);
    lua_setfield(L, b->h.uidx, "last_error");
}

/* The one core callback behind every Lua task. */
static int dispatch(void *ctx, tycho_task_id id, double now)
{
    lsched *b = ctx;
    hookctx h = b->h; /* nested calls restore b->h before returning */
    lua_State *L = h.L;
    int slot = (int)(id & 0xffffffffu);
    tycho_task_info info;
    tycho_sched_task_info(b->s, id, &info);
    memcpy(b->last_name, info.name, sizeof b->last_name);
    luaL_checkstack(L, 8, "scheduler");
    lua_pushcfunction(L, msgh);
    int base = lua_gettop(L);
    lua_rawgeti(L, h.fidx, slot);
    lua_pushnumber(L, now);
    lua_rawgeti(L, h.hidx, slot);
    int rc = lua_pcall(L, 2, 0, base);
    if (rc != 0) {
        const char *msg = lua_tostring(L, -1);
        if (!msg) msg = "(error object is not a string)";
        lua_rawgeti(L, h.hidx, slot);
        if (lua_type(L, -1) == LUA_TUSERDATA) {
            get_uv(L, -1);
            lua_pushvalue(L, -3);
            lua_setfield(L, -2, "error");
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        report(L, b, h.uidx, info.name, msg);
        if (b->stop_on_error) {
            stash_error(L, b, info.name, msg);
            tycho_sched_stop(b->s, TYCHO_RUN_ERROR);
        }
    }
    lua_settop(L, base - 1);
    return rc != 0;
}

static int until_pred(void *ctx)
{
    lsched *b = ctx;
    lua_State *L = b->h.L;
    lua_pushcfunction(L, msgh);
    lua_pushvalue(L, b->until_idx);
    if (lua_pcall(L, 0, 1, -2) != 0) {
        stash_error(L, b, "until_fn", lua_tostring(L, -1));
        lua_pop(L, 2);
        tycho_sched_stop(b->s, TYCHO_RUN_ERROR);
        return 1;
    }
    int done = lua_toboolean(L, -1);
    lua_pop(L, 2);
    return done;
}

/* run{wait = fn}: called with the seconds to wait in real time instead of
 * sleeping (a console polls its input here); may return early. */
static void wait_hook(void *ctx, double seconds)
{
    lsched *b = ctx;
    lua_State *L = b->h.L;
    lua_pushcfunction(L, msgh);
    lua_pushvalue(L, b->wait_idx);
    lua_pushnumber(L, seconds);
    if (lua_pcall(L, 1, 0, -3) != 0) {
        stash_error(L, b, "wait", lua_tostring(L, -1));
        lua_pop(L, 1);
        tycho_sched_stop(b->s, TYCHO_RUN_ERROR);
    }
    lua_pop(L, 1);
}

/* --- scheduler ---------------------------------------------------------- */

static const tycho_opt_field sched_new_fields[] = {TYCHO_OPT_OF("clock", TYCHO_OPT_ANY),
                                                   TYCHO_OPT_OF("realtime", TYCHO_OPT_ANY),
                                                   TYCHO_OPT_FN("on_error"),
                                                   {0}};
static const tycho_opt_spec sched_new_spec = {"scheduler.new", sched_new_fields};
static const tycho_opt_field task_fields[] = {
    TYCHO_OPT_STR("name"), TYCHO_OPT_NUM_NONNEG("phase"), TYCHO_OPT_BOOL("observer"), {0}};
static const tycho_opt_spec every_spec = {"scheduler:every", task_fields};
static const tycho_opt_spec after_spec = {"scheduler:after", task_fields};
static const tycho_opt_field run_fields[] = {TYCHO_OPT_NUM("until_time"),
                                             TYCHO_OPT_INT("max_steps"),
                                             TYCHO_OPT_OF("realtime", TYCHO_OPT_ANY),
                                             TYCHO_OPT_BOOL("stop_on_error"),
                                             TYCHO_OPT_FN("until_fn"),
                                             TYCHO_OPT_FN("wait"),
                                             {0}};
static const tycho_opt_spec run_spec = {"scheduler:run", run_fields};

static double opt_realtime(lua_State *L, int idx, int argn, double def)
{
    if (lua_isnoneornil(L, idx)) return def;
    lua_getfield(L, idx, "realtime");
    double r = def;
    if (lua_type(L, -1) == LUA_TBOOLEAN) r = lua_toboolean(L, -1) ? 1.0 : 0.0;
    else if (lua_type(L, -1) == LUA_TNUMBER) {
        r = lua_tonumber(L, -1);
        if (!(r >= 0) || !isfinite(r))
            luaL_error(L, "bad field 'realtime' in argument #%d (speed factor >= 0 expected)",
                       argn);
    } else if (!lua_isnil(L, -1))
        luaL_error(L, "bad field 'realtime' in argument #%d (boolean or number expected, got %s)",
                   argn, luaL_typename(L, -1));
    lua_pop(L, 1);
    return r;
}

/* tycho.scheduler.new{clock = c, realtime = false, on_error = fn} */
static int l_sched_new(lua_State *L)
{
    tycho_l_checkopts(L, 1, 1, &sched_new_spec);
    lua_settop(L, 1);
    double realtime = opt_realtime(L, 1, 1, 0.0);
    if (lua_istable(L, 1)) lua_getfield(L, 1, "clock");
    else lua_pushnil(L);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        tycho_l_pushclock(L); /* a simulated clock of its own */
    } else if (!luaL_testudata(L, -1, TYCHO_CLOCK_MT)) {
        return luaL_error(L, "bad field 'clock' in argument #1 (tycho.clock expected, got %s)",
                          luaL_typename(L, -1));
    }
    int cidx = lua_gettop(L);
    if (lua_istable(L, 1)) lua_getfield(L, 1, "on_error");
    else lua_pushnil(L);
    if (!lua_isnil(L, -1) && !lua_isfunction(L, -1))
        return luaL_error(L, "bad field 'on_error' in argument #1 (function expected, got %s)",
                          luaL_typename(L, -1));
    int eidx = lua_gettop(L);

    lsched *b = tycho_newuserdata(L, sizeof *b);
    memset(b, 0, sizeof *b);
    b->realtime = realtime;
    int sidx = lua_gettop(L);
    luaL_getmetatable(L, SCHED_MT);
    lua_setmetatable(L, sidx);
    lua_createtable(L, 0, 4);
    lua_pushvalue(L, cidx);
    lua_setfield(L, -2, "clock");
    lua_newtable(L);
    lua_setfield(L, -2, "fns");
    lua_newtable(L);
    lua_setfield(L, -2, "handles");
    lua_pushvalue(L, eidx);
    lua_setfield(L, -2, "on_error");
    set_uv(L, sidx);
    tycho_err err = {0};
    b->s = tycho_sched_new(tycho_l_checkclock(L, cidx), &err);
    if (!b->s) return tycho_l_error(L, &err);
    return 1;
}

static void push_task(lua_State *L, int sidx, tycho_task_id id, double period, const char *name)
{
    ltask *t = tycho_newuserdata(L, sizeof *t);
    memset(t, 0, sizeof *t);
    t->id = id;
    t->period = period;
    snprintf(t->name, sizeof t->name, "%s", name);
    luaL_getmetatable(L, TASK_MT);
    lua_setmetatable(L, -2);
    lua_createtable(L, 0, 2);
    lua_pushvalue(L, sidx);
    lua_setfield(L, -2, "sched");
    set_uv(L, lua_gettop(L) - 1);
}

/* Shared by every and after: (s, time, fn [, opts | name]). */
static int add_task(lua_State *L, int periodic)
{
    lsched *b = check_sched(L, 1);
    double v = luaL_checknumber(L, 2);
    luaL_checktype(L, 3, LUA_TFUNCTION);
    if (periodic) luaL_argcheck(L, v > 0 && isfinite(v), 2, "period must be finite and > 0");
    else luaL_argcheck(L, v >= 0 && isfinite(v), 2, "delay must be finite and >= 0");
    const char *name = periodic ? "every" : "after";
    double phase = 0;
    bool observer = false;
    if (lua_type(L, 4) == LUA_TSTRING) {
        name = lua_tostring(L, 4);
    } else if (!lua_isnoneornil(L, 4)) {
        tycho_l_checkopts(L, 4, 4, periodic ? &every_spec : &after_spec);
        lua_getfield(L, 4, "name");
        if (!lua_isnil(L, -1)) {
            if (lua_type(L, -1) != LUA_TSTRING)
                return luaL_error(L, "bad field 'name' in argument #4 (string expected, got %s)",
                                  luaL_typename(L, -1));
            name = lua_tostring(L, -1);
        }
        phase = tycho_l_optfield_number(L, 4, 4, "phase", 0);
        if (!(phase >= 0) || !isfinite(phase))
            return luaL_error(L, "bad field 'phase' in argument #4 (finite number >= 0 expected)");
        observer = tycho_l_optfield_boolean(L, 4, 4, "observer", 0);
    }
    tycho_task_spec spec = {name, periodic ? v : 0, periodic ? phase : v, dispatch, release_hook,
                            b,    observer};
    tycho_task_id id;
    tycho_err err = {0};
    if (tycho_sched_add(b->s, &spec, &id, &err) != TYCHO_OK) return tycho_l_error(L, &err);
    hookctx old = ctx_enter(L, b, 1);
    int slot = (int)(id & 0xffffffffu);
    lua_pushvalue(L, 3);
    lua_rawseti(L, b->h.fidx, slot);
    push_task(L, 1, id, spec.period, name);
    lua_pushvalue(L, -1);
    lua_rawseti(L, b->h.hidx, slot);
    ctx_leave(b, old);
    return 1;
}

static int l_every(lua_State *L) { return add_task(L, 1); }
static int l_after(lua_State *L) { return add_task(L, 0); }

static int l_cancel_all(lua_State *L)
{
    lsched *b = check_sched(L, 1);
    hookctx old = ctx_enter(L, b, 1);
    tycho_sched_cancel_all(b->s);
    ctx_leave(b, old);
    return 0;
}

/* Runs the core loop with the Lua hooks in place; pushes the results. */
static int do_run(lua_State *L, lsched *b, tycho_run_opts *o, int stop_on_error, int mode)
{
    if (tycho_sched_running(b->s))
        return luaL_error(L, "scheduler is already running (run, step or tick called from a task)");
    hookctx old = ctx_enter(L, b, 1);
    int saved_until = b->until_idx, saved_wait = b->wait_idx, saved_stop = b->stop_on_error;
    lua_pushnil(L);
    lua_setfield(L, b->h.uidx, "last_error");
    b->stop_on_error = stop_on_error;
    b->last_name[0] = '\0';
    long long steps = 0;
    tycho_run_reason r = tycho_sched_run(b->s, o, &steps);
    b->until_idx = saved_until;
    b->wait_idx = saved_wait;
    b->stop_on_error = saved_stop;
    int uidx = b->h.uidx;
    ctx_leave(b, old);
    if (mode == 1) { /* step: the task that ran */
        if (steps > 0) lua_pushstring(L, b->last_name);
        else lua_pushnil(L);
        return 1;
    }
    if (mode == 2) { /* tick: how many ran */
        lua_pushinteger(L, (lua_Integer)steps);
        return 1;
    }
    lua_pushstring(L, tycho_run_reason_name(r));
    if (r != TYCHO_RUN_ERROR) return 1;
    lua_getfield(L, uidx, "last_error_task");
    lua_getfield(L, uidx, "last_error");
    return 3;
}

/* s:run{until_time =, until_fn =, max_steps =, stop_on_error =, realtime =, wait =} */
static int l_run(lua_State *L)
{
    lsched *b = check_sched(L, 1);
    tycho_l_checkopts(L, 2, 2, &run_spec);
    lua_settop(L, 2);
    tycho_run_opts o;
    tycho_run_opts_defaults(&o);
    o.until_time = tycho_l_optfield_number(L, 2, 2, "until_time", INFINITY);
    if (isnan(o.until_time)) return luaL_error(L, "bad field 'until_time' in argument #2 (NaN)");
    o.max_steps = (long long)tycho_l_optfield_integer(L, 2, 2, "max_steps", -1);
    o.realtime = opt_realtime(L, 2, 2, b->realtime);
    int stop_on_error = tycho_l_optfield_boolean(L, 2, 2, "stop_on_error", 0);
    if (lua_istable(L, 2)) lua_getfield(L, 2, "until_fn");
    else lua_pushnil(L);
    if (!lua_isnil(L, -1)) {
        if (!lua_isfunction(L, -1))
            return luaL_error(L, "bad field 'until_fn' in argument #2 (function expected, got %s)",
                              luaL_typename(L, -1));
        o.until_fn = until_pred;
        o.until_ctx = b;
    }
    int until_idx = lua_gettop(L);
    if (lua_istable(L, 2)) lua_getfield(L, 2, "wait");
    else lua_pushnil(L);
    if (!lua_isnil(L, -1)) {
        if (!lua_isfunction(L, -1))
            return luaL_error(L, "bad field 'wait' in argument #2 (function expected, got %s)",
                              luaL_typename(L, -1));
        o.wait = wait_hook;
        o.wait_ctx = b;
    }
    if (tycho_sched_running(b->s))
        return luaL_error(L, "scheduler is already running (run, step or tick called from a task)");
    b->until_idx = until_idx;
    b->wait_idx = lua_gettop(L);
    return do_run(L, b, &o, stop_on_error, 0);
}

/* s:step() runs the next due task (even while paused) -> its name or nil. */
static int l_step(lua_State *L)
{
    lsched *b = check_sched(L, 1);
    tycho_run_opts o;
    tycho_run_opts_defaults(&o);
    o.max_steps = 1;
    o.ignore_pause = true;
    o.realtime = b->realtime;
    return do_run(L, b, &o, 0, 1);
}

/* s:tick() runs every task due at the next due time -> how many ran. */
static int l_tick(lua_State *L)
{
    lsched *b = check_sched(L, 1);
    tycho_run_opts o;
    tycho_run_opts_defaults(&o);
    double due;
    if (!tycho_sched_peek(b->s, &due, NULL)) {
        lua_pushinteger(L, 0);
        return 1;
    }
    o.until_time = due;
    o.ignore_pause = true;
    o.realtime = b->realtime;
    return do_run(L, b, &o, 0, 2);
}

static int l_stop(lua_State *L)
{
    tycho_sched_stop(check_sched(L, 1)->s, TYCHO_RUN_STOPPED);
    return 0;
}

static int l_pause(lua_State *L)
{
    tycho_sched_pause(check_sched(L, 1)->s);
    return 0;
}

static int l_resume(lua_State *L)
{
    tycho_sched_resume(check_sched(L, 1)->s);
    return 0;
}

static int l_sched_now(lua_State *L)
{
    lua_pushnumber(L, tycho_clock_now(tycho_sched_clock(check_sched(L, 1)->s)));
    return 1;
}

/* s:on_error(fn | nil): nil restores the default (stderr). Returns the old one. */
static int l_on_error(lua_State *L)
{
    check_sched(L, 1);
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_settop(L, 2);
    get_uv(L, 1);
    lua_getfield(L, 3, "on_error");
    lua_pushvalue(L, 2);
    lua_setfield(L, 3, "on_error");
    return 1;
}

/* s:report_error(name, message): the same path as a failing task (used by
 * the coroutine runner so every error reaches one handler). */
static int l_report_error(lua_State *L)
{
    lsched *b = check_sched(L, 1);
    const char *name = luaL_checkstring(L, 2);
    const char *msg = luaL_checkstring(L, 3);
    get_uv(L, 1);
    report(L, b, lua_gettop(L), name, msg);
    return 0;
}

static void push_info(lua_State *L, const tycho_task_info *i)
{
    lua_createtable(L, 0, 7);
    lua_pushstring(L, i->name);
    lua_setfield(L, -2, "name");
    lua_pushnumber(L, i->period);
    lua_setfield(L, -2, "period");
    lua_pushnumber(L, i->next_due);
    lua_setfield(L, -2, "next_due");
    lua_pushnumber(L, i->last_run);
    lua_setfield(L, -2, "last_run");
    lua_pushinteger(L, (lua_Integer)i->runs);
    lua_setfield(L, -2, "runs");
    lua_pushinteger(L, (lua_Integer)i->missed);
    lua_setfield(L, -2, "missed");
    lua_pushstring(L, i->state == TYCHO_TASK_RUNNING ? "running" : "scheduled");
    lua_setfield(L, -2, "status");
}

/* s:tasks() -> array of {name, period, next_due, last_run, runs, missed, status}
 * in registration order. */
static int l_tasks(lua_State *L)
{
    lsched *b = check_sched(L, 1);
    size_t n = tycho_sched_list(b->s, NULL, 0);
    tycho_task_id *ids = lua_newuserdata(L, (n ? n : 1) * sizeof *ids);
    n = tycho_sched_list(b->s, ids, n);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        tycho_task_info info;
        tycho_sched_task_info(b->s, ids[i], &info);
        push_info(L, &info);
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

static int l_sched_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)tycho_sched_count(check_sched(L, 1)->s));
    return 1;
}

static int l_sched_index(lua_State *L)
{
    lsched *b = check_sched(L, 1);
    const char *k = luaL_checkstring(L, 2);
    if (!strcmp(k, "clock")) {
        get_uv(L, 1);
        lua_getfield(L, -1, "clock");
    } else if (!strcmp(k, "paused")) lua_pushboolean(L, tycho_sched_paused(b->s));
    else if (!strcmp(k, "running")) lua_pushboolean(L, tycho_sched_running(b->s));
    else if (!strcmp(k, "count")) lua_pushinteger(L, (lua_Integer)tycho_sched_count(b->s));
    else if (!strcmp(k, "realtime")) lua_pushnumber(L, b->realtime);
    else {
        lua_pushvalue(L, 2);
        lua_rawget(L, lua_upvalueindex(1));
    }
    return 1;
}

static int l_sched_tostring(lua_State *L)
{
    lsched *b = luaL_checkudata(L, 1, SCHED_MT);
    if (!b->s) {
        lua_pushliteral(L, "tycho.scheduler (freed)");
        return 1;
    }
    tycho_clock *c = tycho_sched_clock(b->s);
    lua_pushfstring(L, "tycho.scheduler %s clock t=%f s, %d tasks%s",
                    tycho_clock_get_mode(c) == TYCHO_CLOCK_SIM ? "sim" : "wall", tycho_clock_now(c),
                    (int)tycho_sched_count(b->s), tycho_sched_paused(b->s) ? ", paused" : "");
    return 1;
}

static int l_sched_gc(lua_State *L)
{
    lsched *b = luaL_checkudata(L, 1, SCHED_MT);
    b->closing = 1;
    tycho_sched_free(b->s);
    b->s = NULL;
    return 0;
}

/* --- task handles ------------------------------------------------------- */

/* The handle's scheduler box (pushed on the stack), or NULL once freed. */
static lsched *task_sched(lua_State *L, int idx)
{
    get_uv(L, idx);
    lua_getfield(L, -1, "sched");
    lua_remove(L, -2);
    lsched *b = luaL_testudata(L, -1, SCHED_MT);
    return b && b->s ? b : NULL;
}

static int l_task_cancel(lua_State *L)
{
    ltask *t = luaL_checkudata(L, 1, TASK_MT);
    lsched *b = task_sched(L, 1);
    int sidx = lua_gettop(L);
    int ok = 0;
    if (b && !t->end) {
        /* ctx_enter reads the user value of the scheduler at sidx */
        hookctx old = ctx_enter(L, b, sidx);
        ok = tycho_sched_cancel(b->s, t->id);
        ctx_leave(b, old);
    }
    lua_pushboolean(L, ok);
    return 1;
}

static const char *end_name(tycho_task_end e)
{
    switch (e) {
    case TYCHO_TASK_DONE:
        return "done";
    case TYCHO_TASK_CANCELLED:
        return "cancelled";
    case TYCHO_TASK_FAILED:
        return "failed";
    }
    return "?";
}

static int l_task_index(lua_State *L)
{
    ltask *t = luaL_checkudata(L, 1, TASK_MT);
    const char *k = luaL_checkstring(L, 2);
    lsched *b = task_sched(L, 1);
    tycho_task_info info;
    int live = b && !t->end && tycho_sched_task_info(b->s, t->id, &info);
    if (live && info.cancel_pending) live = 0;
    if (!strcmp(k, "name")) lua_pushstring(L, t->name);
    else if (!strcmp(k, "period")) lua_pushnumber(L, t->period);
    else if (!strcmp(k, "active")) lua_pushboolean(L, live);
    else if (!strcmp(k, "status")) {
        if (live) lua_pushstring(L, info.state == TYCHO_TASK_RUNNING ? "running" : "scheduled");
        else lua_pushstring(L, t->end ? end_name(t->end) : "cancelled");
    } else if (!strcmp(k, "runs") || !strcmp(k, "missed") || !strcmp(k, "next_due")) {
        if (!live) lua_pushnil(L);
        else if (k[0] == 'r') lua_pushinteger(L, (lua_Integer)info.runs);
        else if (k[0] == 'm') lua_pushinteger(L, (lua_Integer)info.missed);
        else lua_pushnumber(L, info.next_due);
    } else if (!strcmp(k, "error")) {
        get_uv(L, 1);
        lua_getfield(L, -1, "error");
    } else if (!strcmp(k, "scheduler")) {
        get_uv(L, 1);
        lua_getfield(L, -1, "sched");
    } else {
        lua_pushvalue(L, 2);
        lua_rawget(L, lua_upvalueindex(1));
    }
    return 1;
}

static int l_task_tostring(lua_State *L)
{
    ltask *t = luaL_checkudata(L, 1, TASK_MT);
    lua_getfield(L, 1, "status");
    if (t->period > 0)
        lua_pushfstring(L, "tycho.task '%s' every %f s (%s)", t->name, t->period,
                        lua_tostring(L, -1));
    else lua_pushfstring(L, "tycho.task '%s' one-shot (%s)", t->name, lua_tostring(L, -1));
    return 1;
}

/* --- registration ------------------------------------------------------- */

static void add_funcs(lua_State *L, int module, const char *field, const luaL_Reg *fns)
{
    lua_newtable(L);
    for (const luaL_Reg *r = fns; r->name; r++) {
        lua_pushcfunction(L, r->func);
        lua_setfield(L, -2, r->name);
    }
    lua_setfield(L, module, field);
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---@class tycho.task
local task = {}
function task:cancel() end

---@class tycho.scheduler
local scheduler = {}
tycho.scheduler = {}
---@param o? {clock?: tycho.clock, realtime?: boolean|number, on_error?: fun(task: string, message: string)}
---@return tycho.scheduler
function tycho.scheduler.new(o) end
---@return string
function tycho.scheduler.traceback(co, msg) end
---@param fn fun()
---@param o? string|{name?: string, phase?: number, observer?: boolean}
---@return tycho.task
function scheduler:every(period, fn, o) end
---@param fn fun()
---@param o? string|{name?: string, phase?: number, observer?: boolean}
---@return tycho.task
function scheduler:after(delay, fn, o) end
---@param o? {until_time?: number, until_fn?: fun(): boolean, max_steps?: integer, stop_on_error?: boolean, realtime?: boolean|number, wait?: fun(seconds: number)}
---@return string reason
function scheduler:run(o) end
---@return string|nil name
function scheduler:step() end
---@return integer ran
function scheduler:tick() end
function scheduler:stop() end
function scheduler:pause() end
function scheduler:resume() end
---@return number
function scheduler:now() end
---@return {name: string, period: number, next_due: number, last_run: number, runs: integer, missed: integer, status: string}[]
function scheduler:tasks() end
function scheduler:cancel_all() end
---@param fn fun(name: string, message: string)|nil
---@return function|nil old
function scheduler:on_error(fn) end
function scheduler:report_error(name, message) end
*/
// clang-format on

void tycho_l_open_runtime(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg sched_methods[] = {{"every", l_every},
                                             {"after", l_after},
                                             {"run", l_run},
                                             {"step", l_step},
                                             {"tick", l_tick},
                                             {"stop", l_stop},
                                             {"pause", l_pause},
                                             {"resume", l_resume},
                                             {"now", l_sched_now},
                                             {"tasks", l_tasks},
                                             {"cancel_all", l_cancel_all},
                                             {"on_error", l_on_error},
                                             {"report_error", l_report_error},
                                             {NULL, NULL}};
    static const luaL_Reg sched_meta[] = {{"__len", l_sched_len}, {NULL, NULL}};
    tycho_l_newclass(L, &(tycho_l_class){SCHED_MT, sched_methods, l_sched_index, l_sched_gc,
                                         l_sched_tostring, sched_meta});
    lua_pop(L, 1);

    static const luaL_Reg task_methods[] = {{"cancel", l_task_cancel}, {NULL, NULL}};
    /* a task handle owns nothing: closing it only retires the handle */
    tycho_l_newclass(
        L, &(tycho_l_class){TASK_MT, task_methods, l_task_index, NULL, l_task_tostring, NULL});
    lua_pop(L, 1);

    static const luaL_Reg sched_fns[] = {{"new", l_sched_new}, {"traceback", msgh}, {NULL, NULL}};
    add_funcs(L, module, "scheduler", sched_fns);
    tycho_l_register_opts(L, &sched_new_spec);
    tycho_l_register_opts(L, &every_spec);
    tycho_l_register_opts(L, &after_spec);
    tycho_l_register_opts(L, &run_spec);
}
