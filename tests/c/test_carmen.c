/* CARMEN log reader: good and malformed lines, odometry interpolation, and
 * the Intel Research Lab log read whole. */
#include "check.h"
#include "tycho/carmen.h"

#include <string.h>

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

int main(void)
{
    test_good();
    test_angle_wrap();
    test_bad();
    test_intel();
    return check_summary("test_carmen");
}
