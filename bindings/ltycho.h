/* Internal interface between the binding files of the `tycho` Lua module. */
#ifndef TYCHO_LTYCHO_H
#define TYCHO_LTYCHO_H

#include "compat.h"
#include "tycho/grid.h"
#include "tycho/lidar3d.h"
#include "tycho/scan.h"
#include "tycho/terrain.h"

#define TYCHO_GRID_MT "tycho.grid"
#define TYCHO_CLOCK_MT "tycho.clock"

/* Grid userdata: a box holding the C grid, so the grid may grow (realloc)
 * without invalidating the Lua value. */
typedef struct {
    tycho_grid *g;
} tycho_lgrid;

tycho_grid *tycho_l_checkgrid(lua_State *L, int idx);
/* Takes ownership of g (frees it on failure). */
void tycho_l_pushgrid(lua_State *L, tycho_grid *g);

/* Raise a Lua error carrying a core error message. */
int tycho_l_error(lua_State *L, const tycho_err *err);

/* Read integer/number fields of an options table at idx, with defaults;
 * errors name the field ("bad field 'radius' in argument #2 (number expected)"). */
double tycho_l_optfield_number(lua_State *L, int idx, int argn, const char *key, double def);
lua_Integer tycho_l_optfield_integer(lua_State *L, int idx, int argn, const char *key,
                                     lua_Integer def);
int tycho_l_optfield_boolean(lua_State *L, int idx, int argn, const char *key, int def);

/* Cells from Lua: a cell argument is two integers (cx, cy) starting at idx.
 * World points are two numbers. */
tycho_cell tycho_l_checkcell(lua_State *L, int idx);

/* The clock userdata's C clock (argument error if freed). */
struct tycho_clock;
struct tycho_clock *tycho_l_checkclock(lua_State *L, int idx);
/* Pushes a new simulated clock. */
void tycho_l_pushclock(lua_State *L);

/* Each binding area adds its functions to the module table (at `module`) and
 * its methods to the grid method table (at `methods`). */
void tycho_l_open_grid(lua_State *L, int module, int methods);
void tycho_l_open_mapio(lua_State *L, int module, int methods);
void tycho_l_open_planners(lua_State *L, int module, int methods);
void tycho_l_open_raycast(lua_State *L, int module, int methods);
void tycho_l_open_inflation(lua_State *L, int module, int methods);
void tycho_l_open_frontiers(lua_State *L, int module, int methods);
void tycho_l_open_regions(lua_State *L, int module, int methods);
void tycho_l_open_render(lua_State *L, int module, int methods);
void tycho_l_open_fusion(lua_State *L, int module, int methods);
void tycho_l_open_motion(lua_State *L, int module, int methods);
void tycho_l_open_sim(lua_State *L, int module, int methods);
void tycho_l_open_clock(lua_State *L, int module, int methods);
void tycho_l_open_runtime(lua_State *L, int module, int methods);
void tycho_l_open_arc(lua_State *L, int module, int methods);
void tycho_l_open_scan_match(lua_State *L, int module, int methods);
void tycho_l_open_console(lua_State *L, int module, int methods);
void tycho_l_open_watch(lua_State *L, int module, int methods);
void tycho_l_open_watchdog(lua_State *L, int module, int methods);
void tycho_l_open_swarm(lua_State *L, int module, int methods);
void tycho_l_open_fleet(lua_State *L, int module, int methods);
void tycho_l_open_fleet_sim(lua_State *L, int module, int methods);
void tycho_l_open_net(lua_State *L, int module, int methods);
void tycho_l_open_sys(lua_State *L, int module, int methods);
void tycho_l_open_device(lua_State *L, int module, int methods);
void tycho_l_open_terrain(lua_State *L, int module, int methods);
void tycho_l_open_pattern(lua_State *L, int module, int methods);
void tycho_l_open_sandbox(lua_State *L, int module, int methods);
void tycho_l_open_mcap(lua_State *L, int module, int methods);
void tycho_l_open_viz(lua_State *L, int module, int methods);
void tycho_l_open_ws(lua_State *L, int module, int methods);

/* The scan userdata's C scan (argument error if freed). */
const tycho_scan *tycho_l_checkscan(lua_State *L, int idx);

/* The data loader behind tycho.load_data (l_sandbox.c). */
typedef struct {
    double budget_s;     /* CPU seconds (default 1) */
    double instructions; /* VM instructions (default 5e7) */
    double memory_mb;    /* net allocation during the load (default 64; Lua 5.4) */
    int globals_idx;     /* stack index of a table of extra globals, 0 for none */
} tycho_load_opts;
void tycho_load_opts_init(tycho_load_opts *o);
/* Runs the data file at path in the sandbox; pushes its value and returns 1,
 * or pushes a message naming the file and returns 0. */
int tycho_l_load_data(lua_State *L, const char *path, const tycho_load_opts *o);

/* Terrain values shared between binding files (l_terrain.c): NULL when the
 * value at idx is not one. */
tycho_heightfield *tycho_l_testheightfield(lua_State *L, int idx);
tycho_terrain *tycho_l_testterrainmap(lua_State *L, int idx);
/* Adds robot and compare to the tycho.terrain table at `table` (l_terrain_robot.c). */
void tycho_l_terrain_robot_funcs(lua_State *L, int table);

#endif
