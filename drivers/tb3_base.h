/* The TurtleBot3 base: the OpenCR board over USB serial, DYNAMIXEL
 * Protocol 2.0 (core devproto), as its firmware's control table lays it out
 * (device id 200): velocity commands (cmd_velocity_linear_x at 150,
 * angular_z at 170, int32 in hundredths of m/s and rad/s, as the ROBOTIS
 * turtlebot3_node writes them), wheel encoders (present_position 136/140,
 * int32 ticks), the board's IMU (gyro 60.., acceleration 72.., orientation
 * quaternion w x y z 96..108, float32). A thread of its own polls the board
 * at a fixed rate, integrates wheel odometry and keeps the latest state;
 * commands never wait for the bus. A command watchdog stops the wheels when
 * commands stop arriving (the runtime hung, the behaviour died). */
#ifndef TYCHO_TB3_BASE_H
#define TYCHO_TB3_BASE_H

#include "tycho/common.h"

typedef struct {
    char port[128];          /* e.g. /dev/ttyACM0 */
    int baud;                /* 1000000 */
    int id;                  /* 200 */
    double wheel_radius;     /* m, 0.033 (burger) */
    double wheel_separation; /* m, 0.160 (burger) */
    int ticks_per_rev;       /* 4096 (XL430) */
    double rate_hz;          /* polling, 50 */
    double cmd_timeout_s;    /* wheels stopped this long after the last command, 0.5 */
    double answer_timeout_s; /* per transaction, 0.05 */
} tycho_tb3_config;

typedef struct {
    double t;            /* monotonic seconds of the last good read */
    double x, y, yaw;    /* wheel odometry since open, m / rad */
    double v, w;         /* from the encoder increments, m/s / rad/s */
    double roll, pitch;  /* from the board's orientation quaternion, rad */
    double gyro_z;       /* rad/s */
    double cmd_v, cmd_w; /* what the board was last told */
    long samples, bad_crc, timeouts, watchdog_stops;
    bool ok; /* answering */
    char error[192];
} tycho_tb3_state;

typedef struct tycho_tb3 tycho_tb3;

void tycho_tb3_defaults(tycho_tb3_config *c);
/* Opens the port, pings the board, enables the wheel torque, starts polling. */
tycho_tb3 *tycho_tb3_open(const tycho_tb3_config *c, tycho_err *err);
/* The wanted velocity (m/s, rad/s); sent on the next poll. */
void tycho_tb3_command(tycho_tb3 *b, double v, double w);
tycho_tb3_state tycho_tb3_state_get(tycho_tb3 *b);
/* Wheels stopped, torque off, thread joined, port closed. */
void tycho_tb3_close(tycho_tb3 *b);

#endif
