/* Fleet input files.
 *
 * Stage world (`stage.world`): robots are blocks with `name "robot_N"` and
 * `pose [ x y z yaw_deg ]`; tycho_stage_poses returns them in the order of
 * N (robot_0 first). Goal sets (tuw_multi_robot RobotGoalsArray dumps): a
 * line `robot_N` followed by a line `x, y, z, qx, qy, qz, qw`; other lines
 * (headers) are ignored. Both report "name:line: what" on malformed input
 * and return nothing on error. */
#ifndef TYCHO_FLEET_IO_H
#define TYCHO_FLEET_IO_H

#include "tycho/common.h"

typedef struct {
    int robot;        /* N of robot_N */
    double x, y, yaw; /* m, rad */
    int line;         /* where the robot is named in its file (for messages) */
} tycho_fleet_pose;

/* Parse from memory (name for messages). *out is malloc'd, sorted by robot. */
tycho_status tycho_stage_poses(const char *text, size_t len, const char *name,
                               tycho_fleet_pose **out, int *n, tycho_err *err);
tycho_status tycho_goal_file(const char *text, size_t len, const char *name, tycho_fleet_pose **out,
                             int *n, tycho_err *err);
/* Reads a whole file (malloc'd, NUL-terminated). */
tycho_status tycho_read_text_file(const char *path, char **text, size_t *len, tycho_err *err);

#endif
