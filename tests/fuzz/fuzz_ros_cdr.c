/* libFuzzer target: ROS 2 CDR messages (LaserScan, Odometry) as a bag holds
 * them. A decoded scan's ranges lie inside the message and its geometry is
 * finite; a decoded odometry is finite; a failure names the message type. */
#include "tycho/ros_cdr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tycho_err err = {0};
    tycho_ros_scan s;
    if (tycho_ros_decode_scan(data, size, &s, &err) == TYCHO_OK) {
        if (s.data < data || s.data + 4 * (size_t)s.count > data + size) abort();
        if (!isfinite(s.angle_min) || !isfinite(s.angle_increment) || !(s.range_max > s.range_min))
            abort();
        volatile float sum = 0;
        for (uint32_t i = 0; i < s.count; i++) sum += tycho_ros_scan_range(&s, i);
    } else if (!strstr(err.msg, "sensor_msgs/msg/LaserScan")) {
        abort();
    }
    tycho_ros_odometry o;
    if (tycho_ros_decode_odometry(data, size, &o, &err) == TYCHO_OK) {
        if (!isfinite(o.pose.x) || !isfinite(o.pose.y) || !isfinite(o.pose.yaw)) abort();
    } else if (!strstr(err.msg, "nav_msgs/msg/Odometry")) {
        abort();
    }
    return 0;
}
