/* ROS 2 CDR messages: see tycho/ros_cdr.h. A cursor over the message; every
 * read checks the bytes left, so a truncated message is an error, never a
 * read past its end. */
#include "tycho/ros_cdr.h"

#include <math.h>
#include <string.h>

typedef struct {
    const uint8_t *p;
    size_t len, at; /* at: offset from the message's start */
    bool swap;
    const char *type;
    tycho_err *err;
} cdr;

static tycho_status short_at(cdr *c, const char *field)
{
    return tycho_fail(c->err, TYCHO_EPARSE, "%s: truncated at byte %zu (%s)", c->type, c->at,
                      field);
}

/* Aligns to n bytes from the end of the 4-byte encapsulation header. */
static void align(cdr *c, size_t n) { c->at = 4 + (c->at - 4 + n - 1) / n * n; }

static tycho_status take(cdr *c, void *out, size_t n, const char *field)
{
    align(c, n);
    if (c->at > c->len || c->len - c->at < n) return short_at(c, field);
    uint8_t b[8];
    memcpy(b, c->p + c->at, n);
    if (c->swap)
        for (size_t i = 0; i < n / 2; i++) {
            uint8_t t = b[i];
            b[i] = b[n - 1 - i];
            b[n - 1 - i] = t;
        }
    memcpy(out, b, n);
    c->at += n;
    return TYCHO_OK;
}

static tycho_status u32(cdr *c, uint32_t *v, const char *f) { return take(c, v, 4, f); }
static tycho_status f32(cdr *c, float *v, const char *f) { return take(c, v, 4, f); }
static tycho_status f64(cdr *c, double *v, const char *f) { return take(c, v, 8, f); }

static tycho_status start(cdr *c, const uint8_t *msg, size_t len, const char *type, tycho_err *err)
{
    *c = (cdr){.p = msg, .len = len, .type = type, .err = err};
    if (!msg || len < 4) return tycho_fail(err, TYCHO_EPARSE, "%s: no CDR header", type);
    /* 0x0000 CDR_BE, 0x0001 CDR_LE (and the PL_ variants 2, 3: same body) */
    if (msg[0] != 0 || msg[1] > 3)
        return tycho_fail(err, TYCHO_EPARSE, "%s: not CDR (encapsulation %02x %02x)", type, msg[0],
                          msg[1]);
    bool little = msg[1] & 1;
    const uint16_t one = 1;
    bool host_little = *(const uint8_t *)&one == 1;
    c->swap = little != host_little;
    c->at = 4;
    return TYCHO_OK;
}

/* std_msgs/Header: stamp (int32 sec, uint32 nanosec), frame_id. */
static tycho_status header(cdr *c, double *stamp)
{
    uint32_t sec, nsec;
    if (u32(c, &sec, "header.stamp.sec") || u32(c, &nsec, "header.stamp.nanosec"))
        return TYCHO_EPARSE;
    *stamp = (double)(int32_t)sec + nsec * 1e-9;
    return TYCHO_OK;
}

static tycho_status string(cdr *c, const char *field)
{
    uint32_t n;
    if (u32(c, &n, field)) return TYCHO_EPARSE;
    if (c->len - c->at < n) return short_at(c, field);
    c->at += n;
    return TYCHO_OK;
}

tycho_status tycho_ros_decode_scan(const uint8_t *msg, size_t len, tycho_ros_scan *out,
                                   tycho_err *err)
{
    memset(out, 0, sizeof *out);
    cdr c;
    if (start(&c, msg, len, "sensor_msgs/msg/LaserScan", err)) return TYCHO_EPARSE;
    if (header(&c, &out->stamp) || string(&c, "header.frame_id") ||
        f32(&c, &out->angle_min, "angle_min") || f32(&c, &out->angle_max, "angle_max") ||
        f32(&c, &out->angle_increment, "angle_increment") ||
        f32(&c, &out->time_increment, "time_increment") || f32(&c, &out->scan_time, "scan_time") ||
        f32(&c, &out->range_min, "range_min") || f32(&c, &out->range_max, "range_max") ||
        u32(&c, &out->count, "ranges"))
        return TYCHO_EPARSE;
    if (out->count > (c.len - c.at) / 4) return short_at(&c, "ranges");
    out->data = c.p + c.at;
    out->swap = c.swap;
    if (!(isfinite(out->angle_min) && isfinite(out->angle_increment) && isfinite(out->range_min) &&
          isfinite(out->range_max) && out->range_max > out->range_min))
        return tycho_fail(err, TYCHO_EPARSE,
                          "sensor_msgs/msg/LaserScan: angles and ranges must be finite, "
                          "range_max > range_min");
    return TYCHO_OK;
}

float tycho_ros_scan_range(const tycho_ros_scan *s, uint32_t i)
{
    uint8_t b[4];
    memcpy(b, s->data + 4 * (size_t)i, 4);
    if (s->swap) {
        uint8_t t = b[0];
        b[0] = b[3], b[3] = t, t = b[1], b[1] = b[2], b[2] = t;
    }
    float r;
    memcpy(&r, b, 4);
    return r;
}

tycho_status tycho_ros_decode_odometry(const uint8_t *msg, size_t len, tycho_ros_odometry *out,
                                       tycho_err *err)
{
    memset(out, 0, sizeof *out);
    cdr c;
    double z, qx, qy, qz, qw;
    if (start(&c, msg, len, "nav_msgs/msg/Odometry", err) || header(&c, &out->stamp) ||
        string(&c, "header.frame_id") || string(&c, "child_frame_id") ||
        f64(&c, &out->pose.x, "pose.pose.position.x") ||
        f64(&c, &out->pose.y, "pose.pose.position.y") || f64(&c, &z, "pose.pose.position.z") ||
        f64(&c, &qx, "pose.pose.orientation.x") || f64(&c, &qy, "pose.pose.orientation.y") ||
        f64(&c, &qz, "pose.pose.orientation.z") || f64(&c, &qw, "pose.pose.orientation.w"))
        return TYCHO_EPARSE;
    /* the norm finite too: components of 1e200 are finite, their squares
     * not, and the yaw of them NaN (found by fuzz_ros_cdr) */
    double norm2 = qx * qx + qy * qy + qz * qz + qw * qw;
    if (!(isfinite(out->pose.x) && isfinite(out->pose.y) && isfinite(norm2) && norm2 > 1e-12))
        return tycho_fail(err, TYCHO_EPARSE,
                          "nav_msgs/msg/Odometry: the pose must be finite, its quaternion not 0");
    /* normalised first: a unit quaternion's yaw */
    double k = 1 / sqrt(norm2);
    qx *= k, qy *= k, qz *= k, qw *= k;
    out->pose.yaw = atan2(2 * (qw * qz + qx * qy), 1 - 2 * (qy * qy + qz * qz));
    /* the covariance and the twist follow: not needed */
    return TYCHO_OK;
}
