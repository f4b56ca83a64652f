/* The TurtleBot3 base driver (drivers/tb3_base.c) against a simulated
 * OpenCR board on the other end of a pseudo-terminal: the driver's real
 * serial and DYNAMIXEL 2.0 code; the board keeps a control table, applies
 * writes, answers reads, turns its wheels from the commanded velocity, and
 * can garble replies or go silent. */
#define _GNU_SOURCE /* posix_openpt, ptsname */
#include "check.h"
#include "opencr_sim.h"
#include "tb3_base.h"

#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static tycho_tb3_config config(const char *port)
{
    tycho_tb3_config c;
    tycho_tb3_defaults(&c);
    snprintf(c.port, sizeof c.port, "%s", port);
    c.answer_timeout_s = 0.1; /* generous: the test machine may be loaded */
    return c;
}

static void test_drive_and_odometry(void)
{
    opencr o;
    tycho_tb3_config c = config(start_board(&o));
    tycho_err err = {0};
    tycho_tb3 *b = tycho_tb3_open(&c, &err);
    CHECK_MSG(b != NULL, "%s", err.msg);
    if (!b) return stop_board(&o);
    CHECK(o.table[149] == 1); /* torque on */
    /* 0.1 m/s straight for 1 s, refreshed as a behaviour would */
    double t0 = now_s();
    while (now_s() - t0 < 1.0) {
        tycho_tb3_command(b, 0.1, 0);
        usleep(50000);
    }
    tycho_tb3_command(b, 0, 0);
    usleep(150000);
    tycho_tb3_state s = tycho_tb3_state_get(b);
    CHECK_MSG(fabs(s.x - 0.1) < 0.03 && fabs(s.y) < 0.005 && fabs(s.yaw) < 0.02,
              "odometry (%.3f, %.3f, %.3f)", s.x, s.y, s.yaw);
    CHECK_MSG(fabs(s.pitch - 0.2) < 1e-3 && fabs(s.roll) < 1e-3, "roll %.4f pitch %.4f", s.roll,
              s.pitch);
    CHECK(fabs(s.gyro_z - 0.25) < 1e-6);
    CHECK(s.ok && s.samples > 20);
    /* turning on the spot: 0.5 rad/s for 1 s */
    t0 = now_s();
    while (now_s() - t0 < 1.0) {
        tycho_tb3_command(b, 0, 0.5);
        usleep(50000);
    }
    tycho_tb3_command(b, 0, 0);
    usleep(150000);
    s = tycho_tb3_state_get(b);
    CHECK_MSG(fabs(s.yaw - 0.5) < 0.1, "yaw %.3f after 0.5 rad/s for 1 s", s.yaw);
    tycho_tb3_close(b);
    /* closing stops the wheels and frees them */
    CHECK(get_i32(o.table + 150) == 0 && get_i32(o.table + 170) == 0 && o.table[149] == 0);
    stop_board(&o);
}

static void test_watchdog_and_faults(void)
{
    opencr o;
    tycho_tb3_config c = config(start_board(&o));
    tycho_tb3 *b = tycho_tb3_open(&c, NULL);
    CHECK(b != NULL);
    if (!b) return stop_board(&o);
    tycho_tb3_command(b, 0.2, 0.3); /* once, then silence from the runtime */
    usleep(200000);
    pthread_mutex_lock(&o.mu);
    CHECK(get_i32(o.table + 150) == 20 && get_i32(o.table + 170) == 30);
    pthread_mutex_unlock(&o.mu);
    usleep(600000); /* past cmd_timeout (0.5 s) */
    pthread_mutex_lock(&o.mu);
    CHECK_MSG(get_i32(o.table + 150) == 0 && get_i32(o.table + 170) == 0,
              "the watchdog did not stop the wheels");
    pthread_mutex_unlock(&o.mu);
    CHECK(tycho_tb3_state_get(b).watchdog_stops >= 1);
    /* garbage and bad CRCs: dropped and counted, the driver carries on */
    pthread_mutex_lock(&o.mu);
    o.garble = true;
    pthread_mutex_unlock(&o.mu);
    usleep(300000);
    long before = tycho_tb3_state_get(b).samples;
    pthread_mutex_lock(&o.mu);
    o.garble = false;
    pthread_mutex_unlock(&o.mu);
    usleep(300000);
    tycho_tb3_state s = tycho_tb3_state_get(b);
    CHECK(s.bad_crc > 0 && s.samples > before && s.ok);
    /* the board goes silent: reported, not a crash */
    pthread_mutex_lock(&o.mu);
    o.silent = true;
    pthread_mutex_unlock(&o.mu);
    usleep(800000);
    s = tycho_tb3_state_get(b);
    CHECK_MSG(!s.ok && strstr(s.error, "no answer from the OpenCR") != NULL, "ok %d error '%s'",
              s.ok, s.error);
    CHECK(s.timeouts > 0);
    pthread_mutex_lock(&o.mu);
    o.silent = false;
    pthread_mutex_unlock(&o.mu);
    usleep(300000);
    CHECK(tycho_tb3_state_get(b).ok); /* and back when it answers again */
    tycho_tb3_close(b);
    stop_board(&o);
}

static void test_open_errors(void)
{
    tycho_tb3_config c = config("/dev/ttyNOPE0");
    tycho_err err = {0};
    CHECK(tycho_tb3_open(&c, &err) == NULL && strstr(err.msg, "cannot open /dev/ttyNOPE0"));
    opencr o;
    c = config(start_board(&o));
    o.silent = true;
    CHECK(tycho_tb3_open(&c, &err) == NULL &&
          strstr(err.msg, "no OpenCR answering as DYNAMIXEL id 200"));
    stop_board(&o);
    c.rate_hz = 0;
    CHECK(tycho_tb3_open(&c, &err) == NULL && strstr(err.msg, "rate"));
}

int main(void)
{
    test_drive_and_odometry();
    test_watchdog_and_faults();
    test_open_errors();
    return check_summary("tb3 base");
}
