/* A simulated OpenCR board (TurtleBot3 firmware's control table, DYNAMIXEL
 * 2.0, id 200) on the master side of a pseudo-terminal, for the base
 * driver's tests: applies writes, answers reads and pings, turns its wheels
 * from the commanded velocity; can garble replies or go silent. */
#ifndef TYCHO_OPENCR_SIM_H
#define TYCHO_OPENCR_SIM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    int master;
    pthread_mutex_t mu;
    uint8_t table[512];
    double ticks_l, ticks_r;
    bool stop, silent, garble;
    bool external; /* wheels and IMU set from outside (opencr_set_*), not integrated here */
    long writes_seen, zero_cmds;
    /* when set: a line "seconds v w" (CLOCK_MONOTONIC; the raw centi-units)
     * for every velocity command that differs from the one before */
    FILE *cmd_log;
    int32_t logged_v, logged_w;
    bool logged;
    pthread_t thread;
} opencr;

/* Starts the board; returns the path of the pty the driver opens. */
char *start_board(opencr *o);
void stop_board(opencr *o);
/* The velocity last commanded (m/s, rad/s) and whether the torque is on. */
void opencr_command(opencr *o, double *v, double *w, bool *torque);
/* External mode: wheel encoder counts, and the IMU (orientation from roll,
 * pitch, yaw; gyro z in rad/s) as the board's control table holds them. */
void opencr_set_wheels(opencr *o, double ticks_l, double ticks_r);
void opencr_set_imu(opencr *o, double roll, double pitch, double yaw, double gyro_z);
int32_t get_i32(const uint8_t *p);

#endif
