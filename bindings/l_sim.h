/* Internal to the simulator's binding (l_sim.c, l_sim_config.c). */
#ifndef TYCHO_L_SIM_H
#define TYCHO_L_SIM_H

#include "ltycho.h"
#include "tycho/odom_history.h"
#include "tycho/sim.h"

#include <stdbool.h>

typedef struct {
    lua_State *L;
    const char *file; /* world file, or NULL: errors then blame argument #2 of 'new' */
} pctx;

#define SIM_MT "tycho.sim"

typedef struct sim_tap sim_tap;
typedef struct sim_view sim_view;
typedef struct sim_log sim_log;

/* A simulator hook on a recording's writer (l_sim_hook.c), what the tap
 * of raw samples and the viewer's frames share. */
typedef struct {
    tycho_l_writer *writer;
    struct tycho_clock *const *clock; /* the clock's box: NULL once it is closed */
    const char *who;                  /* "sim:tap": for the errors */
    int ref; /* registry: {writer, clock, templates...}, kept alive while tapping */
    long long messages;
    bool failed; /* the first failure (in err) stops the hook */
    tycho_err err;
    tycho_err write_err; /* a write's error, into err when it is the first failure */
} tycho_l_sim_hook;
/* The writer (argument 2) and the clock (argument 3) into h, and the table
 * that keeps them alive pushed: the templates go into it, then _keep. */
void tycho_l_sim_hook_begin(lua_State *L, tycho_l_sim_hook *h, const char *who, int templates);
/* The channel id at key of the table at idx (raises on argument arg). */
uint16_t tycho_l_sim_hook_channel(lua_State *L, int idx, const char *key, int arg);
/* The template at key of the table at idx, checked to take these numbers
 * (and an array or not), stored at slot of the table on top. */
const tycho_l_template *tycho_l_sim_hook_template(lua_State *L, int idx, int arg, const char *key,
                                                  int numbers, bool has_array, int slot);
/* Pops the table on top into the registry (kept until _release). */
void tycho_l_sim_hook_keep(lua_State *L, tycho_l_sim_hook *h);
void tycho_l_sim_hook_release(lua_State *L, tycho_l_sim_hook *h);
/* The clock's time, or false once the hook stopped (a failure, the clock closed). */
bool tycho_l_sim_hook_time(tycho_l_sim_hook *h, double *t);
/* Counts a message written, or stops the hook (write_err set by the writer). */
void tycho_l_sim_hook_wrote(tycho_l_sim_hook *h, tycho_status st);
/* Pushes messages written, error (nil when none): 2. */
int tycho_l_sim_hook_push_result(lua_State *L, const tycho_l_sim_hook *h);

typedef struct {
    tycho_sim *s;
    tycho_odom_history odom; /* after each step: sim:odom_at */
    double cmd_v, cmd_w;     /* the last command as given to set_cmd */
    sim_tap *tap;            /* recording the raw samples (l_sim_tap.c), or NULL */
    sim_view *view;          /* recording the viewer's frames (l_sim_view.c), or NULL */
    sim_log *log;            /* their messages until they are written (l_sim_log.c), or NULL */
    char *map_path;          /* into paths[], "" for tycho.sim.new */
    char paths[];            /* world path \0 map path \0 */
} lsim;

/* The sim at argument 1 (raises if not one, or freed); in sim methods only
 * (TYCHO_L_CHECKSELF). */
lsim *tycho_l_checksimbox(lua_State *L);

/* The tap of raw samples (l_sim_tap.c): sim:tap(...), sim:untap(); the
 * sim's methods call these when b->tap is set. */
int tycho_l_sim_tap(lua_State *L);
int tycho_l_sim_untap_method(lua_State *L);
void tycho_l_sim_untap(lua_State *L, lsim *b);
void tycho_l_sim_tap_odom(lsim *b);
void tycho_l_sim_tap_scan(lsim *b, const tycho_sim_scan *sc);
void tycho_l_sim_tap_thermal(lsim *b, int camera, const tycho_sim_frame *f);

/* The viewer's frames (l_sim_view.c): sim:tap_frames(...), sim:untap_frames();
 * sim:step calls tycho_l_sim_view_step when b->view is set. */
int tycho_l_sim_tap_frames(lua_State *L);
int tycho_l_sim_untap_frames_method(lua_State *L);
void tycho_l_sim_untap_frames(lua_State *L, lsim *b);
void tycho_l_sim_view_step(lsim *b);
/* sim:thermal and sim:scan call these with each frame and scan the mission
 * takes while b->view is set */
void tycho_l_sim_view_thermal(lsim *b, int camera, const tycho_sim_frame *f);
void tycho_l_sim_view_scan(lsim *b, const tycho_sim_scan *sc);
void tycho_l_sim_view_register(lua_State *L);

/* The messages of the tap and the viewer's frames, gathered in a batch
 * of the simulator's own and queued in one go (l_sim_log.c). */
enum { SIM_LOG_TAP, SIM_LOG_VIEW };
/* The batch to add a message of hook h to (which: SIM_LOG_TAP or _VIEW),
 * h's writer held back until it is queued; NULL when out of memory (h
 * failed). Then tycho_l_sim_log_added with the add's status. */
tycho_mcap_batch *tycho_l_sim_log_batch(lsim *b, tycho_l_sim_hook *h, int which);
void tycho_l_sim_log_added(lsim *b, int which, tycho_status st, tycho_l_sim_hook *h);
/* Queues the batch (a tap stopping, the batch full, the writer about to
 * take another message); its messages are counted then. */
void tycho_l_sim_log_flush(lsim *b);
void tycho_l_sim_log_free(lsim *b);

/* Raises "file: message" (or a bad-argument error for tycho.sim.new). */
int tycho_l_sim_error(pctx *c, const char *fmt, ...);
/* Reads the config table at stack index t into cfg (defaults first), every
 * field checked; is_file: a world file (start is then required). Raises on
 * the first bad field. */
void tycho_l_sim_parse_config(pctx *c, int t, tycho_sim_config *cfg, bool is_file);

#endif
