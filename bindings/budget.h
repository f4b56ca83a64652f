/* Budgets that reach into C (l_watchdog.c).
 *
 * The watchdog stops Lua code with a hook, which only runs between VM
 * instructions; a C function that loops for long (a backtracking pattern
 * match) would never see it. Such loops call tycho_budget_expired(L) every
 * few thousand steps and, when it says so, unwind and end with
 * `return tycho_budget_stop(L);`.
 *
 * A thread's budget is spent when
 *   - the watchdog's CPU-time timer fired for the behaviour or console
 *     coroutine being run (tycho.watchdog.arm_time), or
 *   - a deadline set with tycho_budget_push for that thread has passed
 *     (the data loaders: CPU time of the calling thread). */
#ifndef TYCHO_BUDGET_H
#define TYCHO_BUDGET_H

#include "compat.h"

/* True when the code running on L must stop. Cheap enough to call every few
 * thousand steps (a clock read when a deadline is set). */
int tycho_budget_expired(lua_State *L);

/* Marks L as tripped (tycho.watchdog.tripped(L) is then true) and stops it:
 * yields the coroutine when it may yield (a pcall in the script cannot
 * catch a yield), else raises an error. Use as `return tycho_budget_stop(L);`. */
int tycho_budget_stop(lua_State *L);

/* A CPU-time deadline for thread L: `seconds` of this OS thread's CPU time
 * from now. Returns 0, or -1 when too many are set at once (nested loads). */
int tycho_budget_push(lua_State *L, double seconds);
void tycho_budget_pop(lua_State *L);

/* CPU seconds used by the calling OS thread. */
double tycho_thread_cpu_seconds(void);

#endif
