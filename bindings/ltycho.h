/* Internal interface between the binding files of the `tycho` Lua module. */
#ifndef TYCHO_LTYCHO_H
#define TYCHO_LTYCHO_H

#include <stddef.h>

#include "compat.h"
#include "tycho/grid.h"
#include "tycho/lidar3d.h"
#include "tycho/mcap.h"
#include "tycho/scan.h"
#include "tycho/terrain.h"
#include "tycho/trail.h"

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

/* The error rule (README, "Errors"): misuse (a bad argument, an unknown
 * option) raises; a failure of the environment (a file, a device, a socket,
 * a goal with no path) is a result. tycho_l_error raises with the core's
 * message; tycho_l_fail returns nil, message. */
int tycho_l_error(lua_State *L, const tycho_err *err);
int tycho_l_fail(lua_State *L, const tycho_err *err);

/* Read integer/number fields of an options table at idx, with defaults;
 * errors name the field ("bad field 'radius' in argument #2 (number expected)"). */
double tycho_l_optfield_number(lua_State *L, int idx, int argn, const char *key, double def);
lua_Integer tycho_l_optfield_integer(lua_State *L, int idx, int argn, const char *key,
                                     lua_Integer def);
int tycho_l_optfield_boolean(lua_State *L, int idx, int argn, const char *key, int def);

/* --- userdata classes (l_class.c) -----------------------------------------
 * Every class is declared as a tycho_l_class and made by tycho_l_newclass,
 * which leaves its metatable on the stack. `free` releases the C side and
 * must tolerate an object whose C side is already gone (NULL); it is __gc and
 * runs once through __close, after which the object raises "X is closed". */
typedef struct {
    const char *name;        /* "tycho.path": the metatable's registry name and __name */
    const luaL_Reg *methods; /* obj:method(...); may be NULL */
    lua_CFunction index;     /* __index as a closure over the methods table (fields
                                beside methods); NULL: __index is the methods table */
    lua_CFunction free;      /* __gc; NULL when there is nothing to release */
    lua_CFunction tostring;  /* NULL: "tycho.path: 0x..." */
    const luaL_Reg *meta;    /* further metamethods (__len, __call); may be NULL */
} tycho_l_class;

/* Registry key of {[name] = metatable} for every class. */
#define TYCHO_CLASSES_REG "tycho.classes"

void tycho_l_newclass(lua_State *L, const tycho_l_class *c);

/* The userdata at idx as an instance of class `mt` whose C object is still
 * there: the pointer at byte `offset` of its box is not NULL (a method such
 * as mcap:close, or a constructor that failed half way, leaves it NULL);
 * else an argument error `gone` ("slam has been freed"). One check for every
 * boxed class, through TYCHO_L_CHECKBOX(L, idx, box_type, pointer_field, mt, gone). */
void *tycho_l_checkalive(lua_State *L, int idx, const char *mt, size_t offset, const char *gone);
#define TYCHO_L_CHECKBOX(L, idx, T, field, mt, gone)                                               \
    ((T *)tycho_l_checkalive((L), (idx), (mt), offsetof(T, field), (gone)))
/* The same for argument 1 (self) of a method the class registered
 * (tycho_l_newclass gives each the metatable as upvalue 1): the metatable
 * compared with that upvalue, not looked up by name in the registry (most
 * of a small method's time); anything else goes the slow way. Only in the
 * class's own methods: elsewhere upvalue 1 is something else, or missing. */
void *tycho_l_checkself(lua_State *L, const char *mt, size_t offset, const char *gone);
#define TYCHO_L_CHECKSELF(L, T, field, mt, gone)                                                   \
    ((T *)tycho_l_checkself((L), (mt), offsetof(T, field), (gone)))

/* --- option tables (l_options.c) -------------------------------------------
 * An option-taking function declares its keys once:
 *     static const tycho_opt_field fields[] = {
 *         TYCHO_OPT_NUM_POS("resolution"), TYCHO_OPT_INT_IN("fill", 0, 255), {0}};
 *     static const tycho_opt_spec spec = {"grid.new", fields};
 * tycho_l_checkopts raises on an unknown key (naming the accepted ones), a
 * wrong type or a value out of range; the binding then reads the fields it
 * knows are valid. */
typedef enum {
    TYCHO_OPT_NUMBER = 1,
    TYCHO_OPT_INTEGER,
    TYCHO_OPT_BOOLEAN,
    TYCHO_OPT_STRING,
    TYCHO_OPT_TABLE,
    TYCHO_OPT_FUNCTION,
    TYCHO_OPT_POSE, /* {x=, y=, yaw=} or {x, y, yaw}, by tycho_l_checkpose */
    TYCHO_OPT_ANY,
} tycho_opt_type;

typedef enum {
    TYCHO_OPT_ANY_VALUE,
    TYCHO_OPT_POSITIVE,
    TYCHO_OPT_NONNEG,
    TYCHO_OPT_IN
} tycho_opt_range;

typedef struct {
    const char *key; /* NULL ends the list */
    tycho_opt_type type;
    tycho_opt_range range; /* numbers and integers only */
    double lo, hi;         /* TYCHO_OPT_IN: inclusive bounds */
} tycho_opt_field;

typedef struct {
    const char *fn; /* how Lua spells the function: "grid.new", "grid:plan" */
    const tycho_opt_field *fields;
} tycho_opt_spec;

#define TYCHO_OPT_NUM(k)                                                                           \
    {                                                                                              \
        (k), TYCHO_OPT_NUMBER, TYCHO_OPT_ANY_VALUE, 0, 0                                           \
    }
#define TYCHO_OPT_NUM_POS(k)                                                                       \
    {                                                                                              \
        (k), TYCHO_OPT_NUMBER, TYCHO_OPT_POSITIVE, 0, 0                                            \
    }
#define TYCHO_OPT_NUM_NONNEG(k)                                                                    \
    {                                                                                              \
        (k), TYCHO_OPT_NUMBER, TYCHO_OPT_NONNEG, 0, 0                                              \
    }
#define TYCHO_OPT_NUM_IN(k, lo, hi)                                                                \
    {                                                                                              \
        (k), TYCHO_OPT_NUMBER, TYCHO_OPT_IN, (lo), (hi)                                            \
    }
#define TYCHO_OPT_INT(k)                                                                           \
    {                                                                                              \
        (k), TYCHO_OPT_INTEGER, TYCHO_OPT_ANY_VALUE, 0, 0                                          \
    }
#define TYCHO_OPT_INT_POS(k)                                                                       \
    {                                                                                              \
        (k), TYCHO_OPT_INTEGER, TYCHO_OPT_POSITIVE, 0, 0                                           \
    }
#define TYCHO_OPT_INT_NONNEG(k)                                                                    \
    {                                                                                              \
        (k), TYCHO_OPT_INTEGER, TYCHO_OPT_NONNEG, 0, 0                                             \
    }
#define TYCHO_OPT_INT_IN(k, lo, hi)                                                                \
    {                                                                                              \
        (k), TYCHO_OPT_INTEGER, TYCHO_OPT_IN, (lo), (hi)                                           \
    }
#define TYCHO_OPT_OF(k, type)                                                                      \
    {                                                                                              \
        (k), (type), TYCHO_OPT_ANY_VALUE, 0, 0                                                     \
    }
#define TYCHO_OPT_BOOL(k) TYCHO_OPT_OF(k, TYCHO_OPT_BOOLEAN)
#define TYCHO_OPT_STR(k) TYCHO_OPT_OF(k, TYCHO_OPT_STRING)
#define TYCHO_OPT_TAB(k) TYCHO_OPT_OF(k, TYCHO_OPT_TABLE)
#define TYCHO_OPT_FN(k) TYCHO_OPT_OF(k, TYCHO_OPT_FUNCTION)
#define TYCHO_OPT_POSE_(k) TYCHO_OPT_OF(k, TYCHO_OPT_POSE)

/* Registry key of {[fn] = {key = type name}} for every declared spec. */
#define TYCHO_OPTIONS_REG "tycho.options"

/* Validates the options table at idx (nil/none is no options). */
void tycho_l_checkopts(lua_State *L, int idx, int argn, const tycho_opt_spec *spec);
/* Records spec under TYCHO_OPTIONS_REG; each binding area calls it from its
 * tycho_l_open_* for every spec it declares. */
void tycho_l_register_opts(lua_State *L, const tycho_opt_spec *spec);
/* The one pose parser: {x=, y=, yaw=} or {x, y, yaw}; x and y required and
 * finite; yaw defaults to 0 unless need_yaw (a robot's pose, where a
 * missing heading is a mistake). Errors name argument argn and `what`. */
tycho_pose2 tycho_l_checkpose(lua_State *L, int idx, int argn, const char *what, bool need_yaw);
/* Its inverse: pushes {x =, y =, yaw =}. */
void tycho_l_pushpose(lua_State *L, tycho_pose2 p);
/* Pushes x, y, yaw as three values; returns 3 (a function's result count). */
int tycho_l_push_xyyaw(lua_State *L, tycho_pose2 p);

/* Cells from Lua: a cell argument is two integers (cx, cy) starting at idx.
 * World points are two numbers. */
tycho_cell tycho_l_checkcell(lua_State *L, int idx);

/* The clock userdata's C clock (argument error if freed). */
struct tycho_clock;
struct tycho_clock *tycho_l_checkclock(lua_State *L, int idx);
/* Where the clock at idx keeps its C clock: NULL there once the clock is
 * closed (for C code that reads it later, the userdata kept alive). */
struct tycho_clock *const *tycho_l_checkclockbox(lua_State *L, int idx);
/* Pushes a new simulated clock. */
void tycho_l_pushclock(lua_State *L);

/* Pushes the grid's metatable (l_grid.c), made first: every area adds
 * methods to it. */
void tycho_l_grid_class(lua_State *L);

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
void tycho_l_open_odom_history(lua_State *L, int module, int methods);
void tycho_l_open_clock(lua_State *L, int module, int methods);
void tycho_l_open_runtime(lua_State *L, int module, int methods);
void tycho_l_open_arc(lua_State *L, int module, int methods);
void tycho_l_open_scan_match(lua_State *L, int module, int methods);
void tycho_l_open_pointmap(lua_State *L, int module, int methods);
void tycho_l_open_slam(lua_State *L, int module, int methods);
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
void tycho_l_open_yaml(lua_State *L, int module, int methods);
void tycho_l_open_mcap(lua_State *L, int module, int methods);
/* tycho.mcap.read (l_mcap_read.c) and its option spec's registration */
int tycho_l_mcap_read(lua_State *L);
void tycho_l_mcap_read_register(lua_State *L);
void tycho_l_open_carmen(lua_State *L, int module, int methods);
void tycho_l_open_ros(lua_State *L, int module, int methods);
void tycho_l_open_cell_set(lua_State *L, int module, int methods);
void tycho_l_open_viz(lua_State *L, int module, int methods);
/* tycho.viz.pose_list and tycho.viz.text_window (l_viz_lists.c) into the
 * viz table at the top of the stack (viz: its index) */
void tycho_l_open_viz_lists(lua_State *L, int viz);
void tycho_l_open_ws(lua_State *L, int module, int methods);

/* The scan userdata's C scan (argument error if freed). */
const tycho_scan *tycho_l_checkscan(lua_State *L, int idx);
/* Pushes a new tycho.scan of count beams (ranges uninitialised) and returns
 * it; raises on a bad geometry or out of memory. */
tycho_scan *tycho_l_pushscan(lua_State *L, int count, double angle_min, double angle_increment,
                             double range_min, double range_max);

/* --- viz encoders' argument checks (l_viz.c), shared with the recording's
 * writer (l_mcap.c), which encodes the same messages on its own thread --- */
const char *tycho_l_check_frame_id(lua_State *L, int idx);
/* How many points of the list of {x =, y = [, yaw =]} at idx a list
 * thinned to at most max (0: all) keeps; then their x, y, yaw triples. */
size_t tycho_l_poses_count(lua_State *L, int idx, lua_Integer max);
void tycho_l_read_poses(lua_State *L, int idx, lua_Integer max, double *xyyaw);
/* The pose list (tycho.viz.pose_list, l_viz_lists.c) at idx, or NULL. */
const tycho_trail *tycho_l_test_pose_list(lua_State *L, int idx);
/* The joined text of the text window (tycho.viz.text_window) at idx and its
 * length, or NULL when idx is not one. */
const char *tycho_l_test_text_window(lua_State *L, int idx, size_t *len);
/* The n numbers of the table at idx (raises naming the first that is not). */
void tycho_l_read_numbers(lua_State *L, int idx, size_t n, const char *what, double *v);
typedef struct {
    int width, height;
    double lo, hi;
} tycho_l_image;
/* values (table), width, height, lo, hi from index first on */
void tycho_l_check_image(lua_State *L, int first, tycho_l_image *im);
typedef struct {
    int numbers, has_array;
    size_t len;
    uint64_t serial; /* unique in the process: a writer keeps its text by it */
    char text[];     /* NUL-terminated */
} tycho_l_template;
/* The template (tycho.viz.template) at idx and its arguments from index
 * first: numbers (nil is written null), and the length of the array (a
 * table of numbers or a scan's ranges) that tycho_l_read_template_array
 * then reads. */
const tycho_l_template *tycho_l_check_template(lua_State *L, int idx, int first, double *numbers,
                                               size_t *array_len);
void tycho_l_read_template_array(lua_State *L, const tycho_l_template *tp, int first, double *v);
/* The template at idx (its arguments unread), or NULL if it is not one. */
const tycho_l_template *tycho_l_totemplate(lua_State *L, int idx);

/* A recording's writer (tycho.mcap.open, l_mcap.c) for C callers. */
typedef struct tycho_l_writer tycho_l_writer;
tycho_l_writer *tycho_l_checkwriter(lua_State *L, int idx);
/* Queues the message template tp makes of its numbers and a float array
 * (NULL: none), as writer:format does; or, with a batch, adds it to the
 * batch (tycho/mcap.h), queued by tycho_l_writer_write_batch. The writer's
 * error otherwise (closed, the disk failed, out of memory). */
tycho_status tycho_l_writer_format(tycho_l_writer *b, tycho_mcap_batch *batch, uint16_t channel,
                                   double t, const tycho_l_template *tp, const double *numbers,
                                   const float *array, size_t array_len, tycho_err *err);
/* The colour-mapped image of values (width x height, lo..hi), as
 * writer:image does; batch as for tycho_l_writer_format. */
tycho_status tycho_l_writer_image(tycho_l_writer *b, tycho_mcap_batch *batch, uint16_t channel,
                                  double t, const char *frame, const tycho_l_image *im,
                                  const float *values, tycho_err *err);
/* A scan's foxglove.LaserScan, as writer:scan does; batch as above. */
tycho_status tycho_l_writer_scan(tycho_l_writer *b, tycho_mcap_batch *batch, uint16_t channel,
                                 double t, const char *frame, const tycho_scan *s, tycho_err *err);
/* Queues a batch's messages as one job and empties it (its memory kept). */
tycho_status tycho_l_writer_write_batch(tycho_l_writer *b, tycho_mcap_batch *batch, tycho_err *err);
/* A C caller holding messages back to write them in one go (the
 * simulator's samples, l_sim_log.c): flush(ctx) is called before anything
 * else goes into the file (any method, any C caller's message, the close),
 * so every message keeps its place; once called, the hold is over. A hold
 * by another caller is settled first. unhold: ctx's hold is over without
 * a call (ctx wrote its messages itself). */
void tycho_l_writer_hold(tycho_l_writer *b, void (*flush)(void *ctx), void *ctx);
void tycho_l_writer_unhold(tycho_l_writer *b, const void *ctx);

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
