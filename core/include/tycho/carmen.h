/* CARMEN robot logs (the text format of CARMEN's logger, used by the
 * classic SLAM data sets: Intel Research Lab, FR079, ... ; one message a
 * line, fields separated by blanks):
 *
 *   ODOM x y theta tv rv accel timestamp hostname logger_timestamp
 *   FLASER n r1 ... rn x y theta odom_x odom_y odom_theta timestamp hostname logger_timestamp
 *   RLASER (the same, rear laser)
 *
 * Poses in metres and radians; ranges in metres, n readings spread evenly
 * over the laser's field of view (180 readings of a SICK LMS: -90 deg to
 * +89 deg, one degree apart; the format does not say, the reader of the
 * log does). In a log processed by GMapping (`*.gfs.log`) the FLASER pose
 * is the corrected pose and the raw wheel odometry is in the ODOM lines.
 * hostname and logger_timestamp may be missing. Empty lines and lines
 * starting with '#' are skipped; every other message type (PARAM, SYNC,
 * NEFF, ROBOTLASER1, ...) is counted in n_ignored, not an error.
 *
 * Errors are TYCHO_EIO (cannot read) or TYCHO_EPARSE with
 * "name:line: what"; nothing is returned on error. */
#ifndef TYCHO_CARMEN_H
#define TYCHO_CARMEN_H

#include "tycho/common.h"

/* Most readings accepted in one laser line, and the largest reading (m). */
#define TYCHO_CARMEN_MAX_READINGS 8192
#define TYCHO_CARMEN_MAX_RANGE 1e6

typedef struct {
    double t;         /* timestamp, s */
    tycho_pose2 pose; /* x, y, theta */
    double tv, rv;    /* translational and rotational velocity */
} tycho_carmen_odom;

typedef struct {
    double t;           /* timestamp, s */
    bool rear;          /* RLASER */
    int count;          /* readings */
    size_t first;       /* index of the first reading in the log's ranges */
    size_t odom_before; /* ODOM lines before this one in the file */
    tycho_pose2 pose;   /* the laser's pose as logged (corrected in a .gfs log) */
    tycho_pose2 odom;   /* the odometry pose the logger paired with it */
} tycho_carmen_laser;

typedef struct {
    tycho_carmen_odom *odom;
    size_t n_odom;
    tycho_carmen_laser *lasers;
    size_t n_lasers;
    float *ranges; /* every laser's readings, one after another */
    size_t n_ranges;
    size_t n_ignored; /* lines of other message types */
    size_t n_lines;
} tycho_carmen_log;

tycho_status tycho_carmen_load(const char *path, tycho_carmen_log *out, tycho_err *err);
/* From memory (need not be NUL-terminated); name is used in error messages. */
tycho_status tycho_carmen_parse(const char *data, size_t len, const char *name,
                                tycho_carmen_log *out, tycho_err *err);
void tycho_carmen_free(tycho_carmen_log *log);

/* The wheel odometry at laser line i's time: interpolated between the last
 * ODOM line before it in the file and the first one after it (by their
 * timestamps; the angle the shorter way round), or the nearest of them
 * when the laser's time is outside. Logs are in file order, not strictly
 * in time order (the Intel log's timestamps step back by milliseconds), so
 * the neighbours in the file are the ones to trust. Needs n_odom >= 1. */
tycho_pose2 tycho_carmen_wheel_at(const tycho_carmen_log *log, size_t i);

#endif
