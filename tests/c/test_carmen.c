/* CARMEN log reader: good and malformed lines, odometry interpolation, and
 * the Intel Research Lab log read whole. */
#include "check.h"
#include "tycho/carmen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static tycho_status parse(const char *text, tycho_carmen_log *log, tycho_err *err)
{
    return tycho_carmen_parse(text, strlen(text), "t.log", log, err);
}

static void test_good(void)
{
    const char *text = "# a comment\n"
                       "PARAM robot_front_laser_max 50.0 nohost 0.0\n"
                       "\n"
                       "ODOM 0 0 0 0 0 0 1.0 host 1.0\n"
                       "FLASER 3 1.5 2.25 0 0.1 0.2 0.3 0.4 0.5 0.6 1.5 host 1.5\n"
                       "ODOM 1 0 1.5707963 0.5 0.1 0 2.0 host 2.0\r\n"
                       "RLASER 2 4 5 -1 -2 -3 -4 -5 -6 1.75\n" /* no hostname, no logger time */
                       "NEFF 15\n";
    tycho_carmen_log log;
    tycho_err err = {0};
    CHECK_MSG(parse(text, &log, &err) == TYCHO_OK, "%s", err.msg);
    CHECK(log.n_odom == 2 && log.n_lasers == 2 && log.n_ranges == 5);
    CHECK(log.n_ignored == 2); /* PARAM, NEFF */
    CHECK(log.n_lines == 8);
    CHECK_NEAR(log.odom[1].pose.yaw, 1.5707963, 1e-12);
    CHECK_NEAR(log.odom[1].tv, 0.5, 1e-12);
    const tycho_carmen_laser *f = &log.lasers[0], *r = &log.lasers[1];
    CHECK(!f->rear && f->count == 3 && f->first == 0);
    CHECK(log.ranges[0] == 1.5f && log.ranges[1] == 2.25f && log.ranges[2] == 0.0f);
    CHECK_NEAR(f->pose.x, 0.1, 1e-12);
    CHECK_NEAR(f->odom.yaw, 0.6, 1e-12);
    CHECK_NEAR(f->t, 1.5, 1e-12);
    CHECK(r->rear && r->count == 2 && r->first == 3 && log.ranges[4] == 5.0f);
    CHECK_NEAR(r->t, 1.75, 1e-12);
    CHECK(f->odom_before == 1 && r->odom_before == 2);
    /* the FLASER, between the two ODOM lines in the file and in time: halfway
     * in x, half of the quarter turn */
    tycho_pose2 p = tycho_carmen_wheel_at(&log, 0);
    CHECK_NEAR(p.x, 0.5, 1e-12);
    CHECK_NEAR(p.yaw, 0.78539815, 1e-7);
    /* the RLASER, after the last ODOM line: that line's pose */
    p = tycho_carmen_wheel_at(&log, 1);
    CHECK_NEAR(p.x, 1, 1e-12);
    CHECK_NEAR(p.yaw, 1.5707963, 1e-12);
    tycho_carmen_free(&log);
    CHECK(log.odom == NULL && log.n_lasers == 0);
}

static void test_angle_wrap(void)
{
    /* from just under +pi to just over -pi: the short way, through pi */
    const char *text = "ODOM 0 0 3.1 0 0 0 0\nFLASER 1 1 0 0 0 0 0 0 0.5\nODOM 0 0 -3.1 0 0 0 1\n"
                       "FLASER 1 1 0 0 0 0 0 0 7\n";
    tycho_carmen_log log;
    tycho_err err = {0};
    CHECK_MSG(parse(text, &log, &err) == TYCHO_OK, "%s", err.msg);
    tycho_pose2 p = tycho_carmen_wheel_at(&log, 0);
    CHECK_NEAR(fabs(p.yaw), 3.14159265, 1e-6);
    p = tycho_carmen_wheel_at(&log, 1); /* after the last ODOM */
    CHECK_NEAR(p.yaw, -3.1, 1e-12);
    tycho_carmen_free(&log);
}

/* Each malformed input fails with TYCHO_EPARSE naming the file, the line and
 * what is wrong, and leaves nothing behind. */
static void test_bad(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"ODOM 1 2\n", "t.log:1: ODOM: theta missing or not a finite number"},
        {"ODOM 0 0 0 0 0 0 1 h 1\nODOM 1 2 x 0 0 0 1\n", "t.log:2: ODOM: theta missing"},
        {"ODOM 1 2 nan 0 0 0 1\n", "t.log:1: ODOM: theta missing or not a finite number"},
        {"ODOM 1 2 3 0 0 0 inf\n", "t.log:1: ODOM: timestamp"},
        {"FLASER\n", "t.log:1: FLASER: number of readings missing"},
        {"FLASER 2.5 1 2 0 0 0 0 0 0 1\n", "t.log:1: FLASER: number of readings must be 1..8192"},
        {"FLASER 0 0 0 0 0 0 0 1\n", "number of readings must be 1..8192"},
        {"FLASER 99999 1\n", "number of readings must be 1..8192"},
        {"FLASER 3 1 2\n", "t.log:1: FLASER: reading 3 of 3 missing or not a number"},
        {"\n\nRLASER 2 1 -2 0 0 0 0 0 0 1\n", "t.log:3: RLASER: reading 2 is negative"},
        {"FLASER 2 1 1e300 0 0 0 0 0 0 1\n", "t.log:1: FLASER: reading 2 is beyond 1e+06 m"},
        {"FLASER 2 1 2 0 0 0 0 0 0\n", "t.log:1: FLASER: timestamp missing"},
        {"FLASER 2 1 2 0 0 0 0 0 1e999 5\n", "t.log:1: FLASER: odom_theta missing or not a finite"},
        {"ODOM 1 2 3 0 0 0 123456789012345678901234567890123456789012345678901234567890123456789\n",
         "t.log:1: ODOM: timestamp missing or not a finite number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tycho_carmen_log log;
        tycho_err err = {0};
        tycho_status st = parse(cases[i].text, &log, &err);
        CHECK_MSG(st == TYCHO_EPARSE && strstr(err.msg, cases[i].want), "case %zu: %s", i, err.msg);
        CHECK(log.odom == NULL && log.lasers == NULL && log.ranges == NULL && log.n_lasers == 0);
    }
    tycho_carmen_log log;
    tycho_err err = {0};
    CHECK(tycho_carmen_load("/nonexistent/x.log", &log, &err) == TYCHO_EIO);
    CHECK(strstr(err.msg, "/nonexistent/x.log") != NULL);
}

static void test_intel(void)
{
    char path[512];
    test_data(path, sizeof path, "carmen/intel.gfs.log");
    tycho_carmen_log log;
    tycho_err err = {0};
    CHECK_MSG(tycho_carmen_load(path, &log, &err) == TYCHO_OK, "%s", err.msg);
    CHECK(log.n_odom == 14541);
    CHECK(log.n_lasers == 910);
    CHECK(log.n_ranges == 910 * 180);
    CHECK(log.n_ignored == 910); /* NEFF */
    bool counts = true, equal = true;
    for (size_t i = 0; i < log.n_lasers; i++) {
        const tycho_carmen_laser *l = &log.lasers[i];
        if (l->count != 180 || l->rear) counts = false;
        if (l->pose.x != l->odom.x || l->pose.yaw != l->odom.yaw) equal = false;
    }
    CHECK(counts);
    CHECK(equal); /* a .gfs log: both triples are GMapping's corrected pose */
    CHECK_NEAR(log.lasers[0].t, 32.9068, 1e-9);
    CHECK(log.odom[log.n_odom - 1].t > 2690 && log.odom[log.n_odom - 1].t < 2692);
    tycho_carmen_free(&log);
}

/* n readings of r metres, space-separated, into buf. */
static void readings(char *buf, size_t size, int n, const char *r)
{
    size_t at = 0;
    for (int i = 0; i < n && at < size; i++) at += (size_t)snprintf(buf + at, size - at, " %s", r);
}

/* Each laser's geometry from its own line: N beams over half a turn from
 * -90 deg (both ends for odd N: 181 and 361 of a SICK LMS; 180 and 360 drop
 * the last), ROBOTLASER1's own start, step and maximum. */
static void test_geometry(void)
{
    static char text[65536], r[16384];
    size_t at = 0;
    const int counts[4] = {180, 181, 360, 361};
    const double steps[4] = {1.0, 1.0, 0.5, 0.5};
    for (int k = 0; k < 4; k++) {
        readings(r, sizeof r, counts[k], "2.5");
        at += (size_t)snprintf(text + at, sizeof text - at, "FLASER %d%s 0 0 0 0 0 0 %d h 1\n",
                               counts[k], r, k + 1);
    }
    /* ROBOTLASER1: type start fov res max accuracy mode, 4 readings, 2 remissions */
    at += (size_t)snprintf(text + at, sizeof text - at,
                           "ROBOTLASER1 0 -1.5 3.0 0.75 8.1 0.01 0 5 1 2 8.1 3 8.1 2 0.5 0.6 "
                           "1.2 3.4 0.1 1.0 3.4 0.1 0.2 0.01 0.5 0.3 0.4 7 h 7\n");
    tycho_carmen_log log;
    tycho_err err = {0};
    CHECK_MSG(parse(text, &log, &err) == TYCHO_OK, "%s", err.msg);
    CHECK(log.n_lasers == 5);
    for (int k = 0; k < 4; k++) {
        const tycho_carmen_laser *l = &log.lasers[k];
        CHECK(l->kind == TYCHO_CARMEN_FLASER && l->count == counts[k]);
        CHECK_NEAR(l->angle_min, -M_PI / 2, 1e-12);
        CHECK_MSG(fabs(l->angle_increment - steps[k] * M_PI / 180) < 1e-12, "%d beams: %g deg",
                  counts[k], l->angle_increment * 180 / M_PI);
        /* the last beam: +90 deg with both ends, one step short without */
        double last = l->angle_min + (l->count - 1) * l->angle_increment;
        CHECK_NEAR(last, counts[k] % 2 ? M_PI / 2 : M_PI / 2 - l->angle_increment, 1e-9);
        CHECK(isinf(l->max_range)); /* every reading 2.5 m: a wall, not a saturation */
    }
    const tycho_carmen_laser *rl = &log.lasers[4];
    CHECK(rl->kind == TYCHO_CARMEN_ROBOTLASER1 && rl->count == 5 && !rl->rear);
    CHECK_NEAR(rl->angle_min, -1.5, 1e-12);
    CHECK_NEAR(rl->angle_increment, 0.75, 1e-12);
    CHECK_NEAR(rl->max_range, 8.1, 1e-12);
    CHECK(log.ranges[rl->first + 3] == 3.0f && log.ranges[rl->first + 4] == 8.1f);
    CHECK_NEAR(rl->pose.x, 1.2, 1e-12); /* the laser */
    CHECK_NEAR(rl->odom.x, 1.0, 1e-12); /* the robot */
    CHECK_NEAR(rl->odom.yaw, 0.1, 1e-12);
    CHECK_NEAR(rl->t, 7, 1e-12);
    /* no ODOM line: the odometry is the laser line's own */
    tycho_pose2 w = tycho_carmen_wheel_at(&log, 4);
    CHECK_NEAR(w.x, 1.0, 1e-12);
    tycho_carmen_free(&log);

    /* a malformed ROBOTLASER1 names its field */
    CHECK(parse("ROBOTLASER1 0 -1.5 9 0.75 8.1 0.01 0 1 1 0 0 0 0 0 0 0 0 0 0 0 0 1\n", &log,
                &err) == TYCHO_EPARSE);
    CHECK_MSG(strstr(err.msg, "t.log:1: ROBOTLASER1: field_of_view must be in") != NULL, "%s",
              err.msg);
    CHECK(parse("ROBOTLASER1 0 -1.5 3 0.75 8.1 0.01 0 2 1 1 3 0.5\n", &log, &err) == TYCHO_EPARSE);
    CHECK_MSG(strstr(err.msg, "t.log:1: ROBOTLASER1: remission missing") != NULL, "%s", err.msg);
}

/* No-return readings: the log's top reading repeated (a saturation) is the
 * laser's no-return value; a log without one has none. The lasers'
 * offsets from PARAM. */
static void test_no_return_and_offsets(void)
{
    static char text[1 << 20], r[4096];
    size_t at = (size_t)snprintf(text, sizeof text,
                                 "PARAM robot_frontlaser_offset 0.15 nohost 0\n"
                                 "PARAM robot_frontlaser_side_offset -0.02 nohost 0\n"
                                 "PARAM robot_rearlaser_angular_offset 3.14159 nohost 0\n"
                                 "PARAM robot_front_laser_max 50 nohost 0\n");
    for (int k = 0; k < 20; k++) {
        /* 361 readings: 300 at 3.2 m, 61 no-return (81.91, the SICK's) */
        size_t n = 0;
        for (int i = 0; i < 361; i++)
            n += (size_t)snprintf(r + n, sizeof r - n, " %s", i % 6 ? "3.2" : "81.91");
        at += (size_t)snprintf(text + at, sizeof text - at, "FLASER 361%s 0 0 0 0 0 0 %d\n", r,
                               k + 1);
    }
    tycho_carmen_log log;
    tycho_err err = {0};
    CHECK_MSG(parse(text, &log, &err) == TYCHO_OK, "%s", err.msg);
    CHECK(log.n_lasers == 20 && log.n_ignored == 1); /* robot_front_laser_max: not read */
    CHECK_NEAR(log.front_offset.x, 0.15, 1e-12);
    CHECK_NEAR(log.front_offset.y, -0.02, 1e-12);
    CHECK_NEAR(log.rear_offset.yaw, 3.14159, 1e-12);
    double m = log.lasers[7].max_range;
    CHECK_MSG(m > 81.8 && m < 81.91 && 3.2 < m, "no-return value %g", m);
    CHECK(log.ranges[0] >= m && log.ranges[1] < m);
    CHECK(log.times_usable && log.n_time_zero == 0);
    tycho_carmen_free(&log);
    CHECK(parse("PARAM robot_frontlaser_offset 1e9 h 0\n", &log, &err) == TYCHO_EPARSE);
    CHECK_MSG(strstr(err.msg, "t.log:1: PARAM: robot_frontlaser_offset must be within 100"), "%s",
              err.msg);
}

/* Zero stamps on the laser lines (the Örebro and Freiburg campus logs):
 * not usable, the log is taken in file order: each scan's odometry is the
 * ODOM line before it, not an interpolation by meaningless times. */
static void test_zero_timestamps(void)
{
    const char *text = "ODOM 0 0 0 0 0 0 5\n"
                       "FLASER 1 1 9 9 9 9 9 9 0\n"
                       "ODOM 1 0 0 0 0 0 6\n"
                       "ODOM 2 0 0 0 0 0 7\n"
                       "FLASER 1 1 9 9 9 9 9 9 0\n"
                       "ODOM 3 0 0 0 0 0 8\n";
    tycho_carmen_log log;
    tycho_err err = {0};
    CHECK_MSG(parse(text, &log, &err) == TYCHO_OK, "%s", err.msg);
    CHECK(log.n_time_zero == 2 && !log.times_usable);
    CHECK_NEAR(tycho_carmen_wheel_at(&log, 0).x, 0, 1e-12);
    CHECK_NEAR(tycho_carmen_wheel_at(&log, 1).x, 2, 1e-12);
    tycho_carmen_free(&log);
    /* one stamp for every scan (the Belgioioso log): not usable either */
    CHECK(parse("FLASER 1 1 0 0 0 0 0 0 1e9\nFLASER 1 1 0 0 0 0 0 0 1e9\n", &log, &err) ==
          TYCHO_OK);
    CHECK(log.n_time_repeated == 1 && !log.times_usable);
    tycho_carmen_free(&log);
    /* a pose 1e9 m out is a corrupt line, said with its line */
    CHECK(parse("ODOM 0 0 0 0 0 0 1\nODOM 1e9 0 0 0 0 0 2\n", &log, &err) == TYCHO_EPARSE);
    CHECK_MSG(strstr(err.msg, "t.log:2: ODOM: x, y beyond") != NULL, "%s", err.msg);
}

/* A gzip-compressed log reads as the plain one; a truncated one is an error. */
static void test_gzip(void)
{
    char path[] = "/tmp/tycho_carmen_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    const char *text = "ODOM 0 0 0 0 0 0 1 h 1\nFLASER 3 1.5 2.25 0 0.1 0.2 0.3 0.4 0.5 0.6 1.5\n";
    gzFile gz = gzopen(path, "wb");
    CHECK(gz != NULL);
    gzputs(gz, text);
    gzclose(gz);
    tycho_carmen_log log;
    tycho_err err = {0};
    CHECK_MSG(tycho_carmen_load(path, &log, &err) == TYCHO_OK, "%s", err.msg);
    CHECK(log.n_odom == 1 && log.n_lasers == 1 && log.ranges[1] == 2.25f);
    tycho_carmen_free(&log);
    /* cut in half */
    FILE *f = fopen(path, "rb");
    unsigned char buf[256];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    f = fopen(path, "wb");
    fwrite(buf, 1, n / 2, f);
    fclose(f);
    CHECK(tycho_carmen_load(path, &log, &err) == TYCHO_EPARSE);
    CHECK_MSG(strstr(err.msg, path) && strstr(err.msg, "gzip"), "%s", err.msg);
    CHECK(log.lasers == NULL);
    remove(path);
}

int main(void)
{
    test_good();
    test_geometry();
    test_no_return_and_offsets();
    test_zero_timestamps();
    test_gzip();
    test_angle_wrap();
    test_bad();
    test_intel();
    return check_summary("test_carmen");
}
