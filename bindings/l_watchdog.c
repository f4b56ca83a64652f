/* Lua binding: the instruction watchdog for behaviour coroutines.
 *
 *   tycho.watchdog.arm(co, count)  -- restart co's budget: count VM instructions
 *   tycho.watchdog.tripped(co)     -- true once co ran out (and was suspended)
 *   tycho.watchdog.disarm(co)
 *   tycho.watchdog.arm_time(co, seconds)  -- the same, after `seconds` of CPU time
 *   tycho.watchdog.arm_time(co, slice, hard)  -- a time slice: the hook suspends co after
 *       `slice` (resume it to carry on), C loops stop only after `hard` seconds
 *   tycho.watchdog.disarm_time(co)
 *   tycho.watchdog.untrip(co)      -- clears tripped (after a slice)
 *   tycho.watchdog.resume(co, seconds, ...) -- coroutine.resume with a CPU-time budget
 *       (the tasks runner's path; false, "runaway: ..." when it ran out; Lua 5.4 only)
 *   tripped(co) -> true, "c" when a C function (budget.h) stopped it: it cannot be resumed
 *
 * On Lua 5.4 the count hook is C and *yields* the coroutine when the budget
 * is spent: a yield cannot be caught by a pcall inside the script (an
 * error could be, and a runaway `while true do pcall(f) end` would never
 * stop). The tasks runner sees the trip after resume returns and fails the
 * task. LuaJIT cannot yield from a hook, so there the runner falls back to
 * an error raised from a Lua hook (which a determined pcall loop can catch).
 *
 * The same budgets reach C functions that loop for long (the pattern
 * matcher, l_pattern.c) through budget.h: the timer's signal also records
 * which coroutine ran out, and per-thread CPU deadlines serve the data
 * loaders (l_sandbox.c). */
#include "budget.h"
#include "ltycho.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define TRIPPED_KEY "tycho.watchdog.tripped"

static void tripped_table(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, TRIPPED_KEY);
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, TRIPPED_KEY);
    }
}

#if !TYCHO_LUAJIT
static void hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    tripped_table(L);
    lua_pushthread(L);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    lua_yield(L, 0);
}
#endif

#if !TYCHO_LUAJIT
/* Time budget: a CPU-time timer (ITIMER_PROF) whose signal installs the
 * yielding count hook (count 1) on the coroutine being run. lua_sethook is
 * the one Lua call meant to be made from a signal handler. Until the timer
 * fires there is no hook at all, so a behaviour step pays nothing; a count
 * hook, even with a huge count, makes Lua 5.4 check every instruction
 * (measured +66 % on a tight loop). */
static lua_State *volatile timed_co;
/* the coroutine whose timer fired (until it is disarmed): C loops running
 * for it stop too -- unless the timer measures a slice, after which the
 * coroutine is only suspended between instructions to be resumed later */
static lua_State *volatile fired_co;
static volatile int slice_mode;
static lua_State *deadline_co; /* a slice's hard deadline for C loops, pushed by arm_time */

/* The tasks runner's path (watchdog.resume): the timer stays armed across
 * resumes and fires once per `task_budget` of the process's CPU time; the
 * handler then looks at how long the resume in progress has run (wall
 * time from its start, an upper bound of its CPU time) and trips it only
 * past the budget, else arms the timer for the rest. A resume then costs
 * one clock read instead of two setitimer calls (measured 3.6 us a resume
 * before). arm_time (the console's slices) takes the timer over meanwhile
 * and the next resume arms it again. */
static volatile sig_atomic_t legacy_armed; /* arm_time owns the timer */
static volatile sig_atomic_t task_timer_on;
static volatile double task_budget;
static volatile double resume_t0; /* CLOCK_MONOTONIC at the start of the resume */

static double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void set_prof(double s)
{
    struct itimerval it = {{0, 0}, {(time_t)s, (suseconds_t)((s - (double)(time_t)s) * 1e6)}};
    if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0) it.it_value.tv_usec = 1;
    setitimer(ITIMER_PROF, &it, NULL);
}

static void on_prof(int sig)
{
    (void)sig;
    int saved = errno;
    lua_State *co = timed_co;
    if (!legacy_armed) {
        if (task_timer_on) {
            double ran = co ? monotonic_s() - resume_t0 : 0;
            if (co && ran >= task_budget) {
                fired_co = co;
                lua_sethook(co, hook, LUA_MASKCOUNT, 1);
            } else {
                set_prof(co ? fmax(task_budget - ran, 1e-3) : task_budget);
            }
        }
    } else if (co) {
        if (!slice_mode) fired_co = co;
        lua_sethook(co, hook, LUA_MASKCOUNT, 1);
    }
    errno = saved;
}

static int install_prof_handler(void)
{
    static int installed;
    if (installed) return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_prof;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(SIGPROF, &sa, NULL) != 0) return -1;
    installed = 1;
    return 0;
}

/* watchdog.resume(co, budget_s, ...) -> like coroutine.resume, or false,
 * "runaway: ..." when co ran `budget_s` seconds without yielding (it is
 * then suspended for good: the hook yielded it mid-loop). */
static int l_resume(lua_State *L)
{
    lua_State *co = lua_tothread(L, 1);
    luaL_argcheck(L, co != NULL, 1, "coroutine expected");
    double budget = luaL_checknumber(L, 2);
    luaL_argcheck(L, budget > 0 && budget <= 3600, 2, "seconds must be in (0, 3600]");
    int nargs = lua_gettop(L) - 2;
    if (co == L || lua_status(co) > LUA_YIELD ||
        (lua_status(co) == LUA_OK && lua_gettop(co) == 0)) {
        lua_pushboolean(L, 0);
        lua_pushstring(L, co == L ? "cannot resume non-suspended coroutine"
                                  : "cannot resume dead coroutine");
        return 2;
    }
    if (!lua_checkstack(co, nargs)) {
        lua_pushboolean(L, 0);
        lua_pushliteral(L, "too many arguments to resume");
        return 2;
    }
    int timed = !legacy_armed && install_prof_handler() == 0;
    lua_State *outer = timed_co;
    double outer_t0 = resume_t0;
    if (timed) {
        if (!task_timer_on || task_budget != budget) {
            task_budget = budget;
            task_timer_on = 1;
            set_prof(budget);
        }
        resume_t0 = monotonic_s();
        timed_co = co;
    }
    lua_xmove(L, co, nargs);
    int nres = 0;
    int status = lua_resume(co, L, nargs, &nres);
    int tripped = timed && fired_co == co;
    if (timed) {
        if (tripped) fired_co = NULL;
        timed_co = outer;
        resume_t0 = outer_t0;
    }
    if (tripped) {
        lua_sethook(co, NULL, 0, 0);
        if (status == LUA_YIELD) lua_pop(co, nres);
        lua_pushboolean(L, 0);
        char msg[96];
        snprintf(msg, sizeof msg, "runaway: task ran more than %.3g s of CPU without yielding",
                 budget);
        lua_pushstring(L, msg);
        return 2;
    }
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, nres + 1)) {
            lua_pop(co, nres);
            lua_pushboolean(L, 0);
            lua_pushliteral(L, "too many results to resume");
            return 2;
        }
        lua_pushboolean(L, 1);
        lua_xmove(co, L, nres);
        return nres + 1;
    }
    lua_pushboolean(L, 0);
    lua_xmove(co, L, 1); /* the error object */
    return 2;
}

static int l_arm_time(lua_State *L)
{
    lua_State *co = lua_tothread(L, 1);
    luaL_argcheck(L, co != NULL, 1, "coroutine expected");
    double s = luaL_checknumber(L, 2);
    luaL_argcheck(L, s > 0 && s <= 3600, 2, "seconds must be in (0, 3600]");
    double hard = luaL_optnumber(L, 3, 0);
    luaL_argcheck(L, hard >= 0 && hard <= 3600, 3, "seconds must be in [0, 3600]");
    if (install_prof_handler() != 0) {
        lua_pushboolean(L, 0);
        return 1;
    }
    legacy_armed = 1;
    task_timer_on = 0; /* the tasks' timer is replaced: the next resume arms it again */
    if (deadline_co) tycho_budget_pop(deadline_co);
    deadline_co = NULL;
    timed_co = co;
    fired_co = NULL;
    slice_mode = hard > 0;
    if (slice_mode && tycho_budget_push(co, hard) == 0) deadline_co = co;
    set_prof(s);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_disarm_time(lua_State *L)
{
    struct itimerval it;
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_PROF, &it, NULL);
    legacy_armed = 0;
    timed_co = NULL;
    fired_co = NULL;
    slice_mode = 0;
    if (deadline_co) tycho_budget_pop(deadline_co);
    deadline_co = NULL;
    lua_State *co = lua_tothread(L, 1);
    if (co) lua_sethook(co, NULL, 0, 0);
    return 0;
}
#else
static int l_resume(lua_State *L)
{
    return luaL_error(L, "tycho.watchdog.resume needs Lua 5.4 (LuaJIT cannot yield from a hook)");
}
static int l_arm_time(lua_State *L)
{
    lua_pushboolean(L, 0); /* LuaJIT cannot yield from a hook */
    return 1;
}
static int l_disarm_time(lua_State *L)
{
    (void)L;
    return 0;
}
#endif

/* --- budgets for C loops (budget.h) ------------------------------------------------ */

#define MAX_DEADLINES 8

static struct {
    lua_State *L;
    double deadline;
} deadlines[MAX_DEADLINES];
static int n_deadlines;

double tycho_thread_cpu_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int tycho_budget_push(lua_State *L, double seconds)
{
    if (n_deadlines >= MAX_DEADLINES) return -1;
    deadlines[n_deadlines].L = L;
    deadlines[n_deadlines].deadline = tycho_thread_cpu_seconds() + seconds;
    n_deadlines++;
    return 0;
}

void tycho_budget_pop(lua_State *L)
{
    for (int i = n_deadlines - 1; i >= 0; i--) {
        if (deadlines[i].L != L) continue;
        memmove(&deadlines[i], &deadlines[i + 1],
                (size_t)(n_deadlines - i - 1) * sizeof deadlines[0]);
        n_deadlines--;
        return;
    }
}

static int own_deadline_passed(lua_State *L)
{
    double now = -1;
    for (int i = 0; i < n_deadlines; i++) {
        if (deadlines[i].L != L) continue;
        if (now < 0) now = tycho_thread_cpu_seconds();
        if (now > deadlines[i].deadline) return 1;
    }
    return 0;
}

int tycho_budget_expired(lua_State *L)
{
#if !TYCHO_LUAJIT
    /* any thread: a coroutine run by the one that ran out works on its behalf */
    if (fired_co) return 1;
#endif
    return own_deadline_passed(L);
}

/* tripped[L] = "c": stopped inside a C function, whose results are lost */
static void mark_tripped_in_c(lua_State *L)
{
    tripped_table(L);
    lua_pushthread(L);
    lua_pushliteral(L, "c");
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

int tycho_budget_stop(lua_State *L)
{
    mark_tripped_in_c(L);
#if !TYCHO_LUAJIT
    int owner = L == fired_co || own_deadline_passed(L);
    if (owner && lua_isyieldable(L)) return lua_yield(L, 0);
#endif
    return luaL_error(L, "stopped: the budget ran out inside a C function (a pattern match?)");
}

static lua_State *check_co(lua_State *L)
{
    lua_State *co = lua_tothread(L, 1);
    luaL_argcheck(L, co != NULL, 1, "coroutine expected");
    return co;
}

static int l_arm(lua_State *L)
{
    lua_State *co = check_co(L);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_argcheck(L, n > 0, 2, "instruction count must be > 0");
#if TYCHO_LUAJIT
    (void)co;
    lua_pushboolean(L, 0); /* not supported: the caller uses its Lua hook */
#else
    lua_sethook(co, hook, LUA_MASKCOUNT, (int)(n > 0x7fffffff ? 0x7fffffff : n));
    lua_pushboolean(L, 1);
#endif
    return 1;
}

static int l_disarm(lua_State *L)
{
    lua_State *co = check_co(L);
    lua_sethook(co, NULL, 0, 0);
    return 0;
}

static int l_tripped(lua_State *L)
{
    check_co(L);
    tripped_table(L);
    lua_pushvalue(L, 1);
    lua_rawget(L, -2);
    int how = lua_type(L, -1) == LUA_TSTRING;
    lua_pushboolean(L, lua_toboolean(L, -1));
    if (!how) return 1;
    lua_pushliteral(L, "c");
    return 2;
}

static int l_untrip(lua_State *L)
{
    check_co(L);
    tripped_table(L);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    lua_rawset(L, -3);
    return 0;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---@class tycho.watchdog
tycho.watchdog = {}
---Restarts co's budget: `count` VM instructions.
function tycho.watchdog.arm(co, count) end
---The same after `seconds` of CPU time; with `hard`, a time slice: co is only
---suspended after `seconds` (resume it to carry on) and C loops stop after `hard`.
function tycho.watchdog.arm_time(co, seconds, hard) end
function tycho.watchdog.disarm(co) end
function tycho.watchdog.disarm_time(co) end
---Clears the tripped mark (after a slice).
function tycho.watchdog.untrip(co) end
---coroutine.resume with a CPU-time budget (the tasks runner's path, Lua 5.4
---only): false, "runaway: ..." when co ran `seconds` without yielding.
---@param co thread
---@param seconds number
---@return boolean ok
function tycho.watchdog.resume(co, seconds, ...) end
---true once co ran out; true, "c" when a C function stopped it (it cannot be resumed).
---@return boolean tripped, string? how
function tycho.watchdog.tripped(co) end
*/
// clang-format on

void tycho_l_open_watchdog(lua_State *L, int module, int methods)
{
    (void)methods;
    static const luaL_Reg fns[] = {{"arm", l_arm},
                                   {"disarm", l_disarm},
                                   {"tripped", l_tripped},
                                   {"arm_time", l_arm_time},
                                   {"disarm_time", l_disarm_time},
                                   {"untrip", l_untrip},
                                   {NULL, NULL}};
    lua_newtable(L);
    luaL_setfuncs(L, fns, 0);
    lua_pushcfunction(L, l_resume);
    lua_setfield(L, -2, "resume");
    lua_setfield(L, module, "watchdog");
}
