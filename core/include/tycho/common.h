/* Shared types of the tycho core: error reporting, poses, Nav2 cost values. */
#ifndef TYCHO_COMMON_H
#define TYCHO_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TYCHO_VERSION "0.1.0"

/* Nav2 costmap values (nav2_costmap_2d/cost_values.hpp semantics). */
enum {
    TYCHO_COST_FREE = 0,
    TYCHO_COST_INSCRIBED = 253,
    TYCHO_COST_LETHAL = 254,
    TYCHO_COST_UNKNOWN = 255
};

typedef enum {
    TYCHO_OK = 0,
    TYCHO_ENOMEM,  /* allocation failed */
    TYCHO_EINVAL,  /* bad argument */
    TYCHO_EIO,     /* file could not be read or written */
    TYCHO_EPARSE,  /* malformed input file */
    TYCHO_ENOPATH, /* planner found no path */
    TYCHO_ERANGE   /* outside the grid or a limit */
} tycho_status;

/* Every fallible core call takes an optional error buffer and fills it with
 * a human-readable message ("maps/maze.yaml:3: resolution must be > 0"). */
typedef struct {
    tycho_status code;
    char msg[256];
} tycho_err;

/* Sets err (if non-NULL) and returns code, so callers can `return tycho_fail(...)`. */
tycho_status tycho_fail(tycho_err *err, tycho_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void tycho_err_clear(tycho_err *err);
const char *tycho_status_name(tycho_status code);

/* A planar pose (REP-103: metres, radians, counter-clockwise). */
typedef struct {
    double x, y, yaw;
} tycho_pose2;

/* An angle into [-pi, pi) the way the Lua behaviours wrap it, (a + pi) %
 * 2pi - pi with Lua 5.4's floored modulo: C code that takes over a
 * computation from Lua gives the same bits. */
double tycho_wrap_pi(double a);

/* A grid cell index: cx is the column (x), cy the row counted from the bottom. */
typedef struct {
    int32_t x, y;
} tycho_cell;

#endif
