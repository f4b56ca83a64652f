/* CARMEN robot logs (the text format of CARMEN's logger, used by the
 * classic SLAM data sets: Intel Research Lab, FR079, ... ; one message a
 * line, fields separated by blanks):
 *
 *   ODOM x y theta tv rv accel timestamp hostname logger_timestamp
 *   FLASER n r1 ... rn x y theta odom_x odom_y odom_theta timestamp hostname logger_timestamp
 *   RLASER (the same, rear laser)
 *   ROBOTLASER1 type start_angle fov resolution max_range accuracy remission_mode
 *               n r1 ... rn m e1 ... em laser_x laser_y laser_theta robot_x robot_y
 *               robot_theta tv rv forward_safety side_safety turn_axis timestamp host logger_ts
 *   PARAM name value host timestamp
 *
 * Poses in metres and radians; ranges in metres. The first pose of a laser
 * line is the laser's, the second the robot's odometry. FLASER and RLASER
 * do not say their geometry: n readings cover half a turn centred ahead,
 * from -90 deg, one step 180 / (n - 1) deg apart when n is odd (a SICK LMS
 * sends both ends: 181, 361) and 180 / n when even (180, 360: the last end
 * dropped). ROBOTLASER1 says it (start angle, step and maximum range).
 * In a log processed by GMapping (`*.gfs.log`) both poses of a laser line
 * are corrected ones and the raw wheel odometry is in the ODOM lines.
 *
 * No-return readings: a laser reports "nothing within range" as its maximum
 * reading (a SICK: 81.91 m, others 50 or 8.1 m). ROBOTLASER1 gives that
 * maximum; for FLASER/RLASER it is the largest reading of the log when that
 * exact value is repeated (a saturation, not a wall), read once per laser.
 * A reading at or above max_range is no return.
 *
 * PARAM lines read: robot_frontlaser_offset, robot_frontlaser_side_offset,
 * robot_frontlaser_angular_offset (and the rearlaser ones): the laser's pose
 * on the robot. Others are counted in n_ignored, as are every other message
 * type (SYNC, NEFF, RAWLASER1, ...). hostname and logger_timestamp may be
 * missing. Empty lines and lines starting with '#' are skipped. A file
 * starting with gzip's magic is inflated first (`*.log.gz`).
 *
 * Errors are TYCHO_EIO (cannot read) or TYCHO_EPARSE with
 * "name:line: what"; nothing is returned on error. */
#ifndef TYCHO_CARMEN_H
#define TYCHO_CARMEN_H

#include "tycho/common.h"

/* Most readings accepted in one laser line, and the largest reading (m). */
#define TYCHO_CARMEN_MAX_READINGS 8192
#define TYCHO_CARMEN_MAX_RANGE 1e6
/* Largest pose coordinate accepted (m): beyond, a log is corrupt (and a
 * map of it would not fit in memory). */
#define TYCHO_CARMEN_MAX_COORD 1e5

typedef struct {
    double t;         /* timestamp, s */
    tycho_pose2 pose; /* x, y, theta */
    double tv, rv;    /* translational and rotational velocity */
} tycho_carmen_odom;

typedef enum {
    TYCHO_CARMEN_FLASER,
    TYCHO_CARMEN_RLASER,
    TYCHO_CARMEN_ROBOTLASER1
} tycho_carmen_kind;

typedef struct {
    double t;  /* timestamp, s */
    bool rear; /* RLASER */
    tycho_carmen_kind kind;
    int count;              /* readings */
    double angle_min;       /* rad, the first reading's bearing in the laser's frame */
    double angle_increment; /* rad between readings */
    double max_range;       /* m: readings at or above are no return (infinity: none seen) */
    size_t first;           /* index of the first reading in the log's ranges */
    size_t odom_before;     /* ODOM lines before this one in the file */
    tycho_pose2 pose;       /* the laser's pose as logged (corrected in a .gfs log) */
    tycho_pose2 odom;       /* the odometry pose the logger paired with it */
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
    /* the lasers' poses on the robot (PARAM robot_{front,rear}laser_offset,
     * _side_offset, _angular_offset; zero when the log does not say) */
    tycho_pose2 front_offset, rear_offset;
    /* timestamps: laser lines stamped 0, stamped earlier than the laser line
     * before them by more than a second, and stamped the same as it (the
     * Belgioioso and Infinite Corridor logs: one stamp for every scan);
     * times_usable is false when these are more than a tenth of the lines:
     * the log is then taken in file order (tycho_carmen_wheel_at) */
    size_t n_time_zero, n_time_backward, n_time_repeated;
    bool times_usable;
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
 * the neighbours in the file are the ones to trust. Without usable
 * timestamps, the ODOM line before it in the file; with no ODOM line at
 * all, the laser line's own odometry pose. */
tycho_pose2 tycho_carmen_wheel_at(const tycho_carmen_log *log, size_t i);

#endif
