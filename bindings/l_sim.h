/* Internal to the simulator's binding (l_sim.c, l_sim_config.c). */
#ifndef TYCHO_L_SIM_H
#define TYCHO_L_SIM_H

#include "ltycho.h"
#include "tycho/sim.h"

#include <stdbool.h>

typedef struct {
    lua_State *L;
    const char *file; /* world file, or NULL: errors then blame argument #2 of 'new' */
} pctx;

/* Raises "file: message" (or a bad-argument error for tycho.sim.new). */
int tycho_l_sim_error(pctx *c, const char *fmt, ...);
/* Reads the config table at stack index t into cfg (defaults first), every
 * field checked; is_file: a world file (start is then required). Raises on
 * the first bad field. */
void tycho_l_sim_parse_config(pctx *c, int t, tycho_sim_config *cfg, bool is_file);

#endif
