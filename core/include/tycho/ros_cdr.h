/* ROS 2 messages as rosbag2 records them (CDR, the DDS wire encoding: a
 * 4-byte encapsulation header, then the fields in order, each aligned to
 * its own size from the header's end), decoded for the two a SLAM needs
 * from a user's recording: sensor_msgs/msg/LaserScan and
 * nav_msgs/msg/Odometry. Little- and big-endian CDR both.
 *
 * Errors are TYCHO_EPARSE naming the message type and the byte offset of
 * what is wrong (a truncated or garbled message). */
#ifndef TYCHO_ROS_CDR_H
#define TYCHO_ROS_CDR_H

#include "tycho/common.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    double stamp; /* header.stamp, s */
    float angle_min, angle_max, angle_increment, time_increment, scan_time;
    float range_min, range_max;
    uint32_t count;      /* ranges */
    const uint8_t *data; /* the ranges, raw: read them with tycho_ros_scan_range */
    bool swap;           /* big-endian data on this little-endian reader */
} tycho_ros_scan;

typedef struct {
    double stamp;     /* header.stamp, s */
    tycho_pose2 pose; /* pose.pose: position x, y and the yaw of its orientation */
} tycho_ros_odometry;

tycho_status tycho_ros_decode_scan(const uint8_t *msg, size_t len, tycho_ros_scan *out,
                                   tycho_err *err);
float tycho_ros_scan_range(const tycho_ros_scan *s, uint32_t i);
tycho_status tycho_ros_decode_odometry(const uint8_t *msg, size_t len, tycho_ros_odometry *out,
                                       tycho_err *err);

#endif
