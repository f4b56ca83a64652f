/* A short odometry history: where the robot believed it was over the last
 * few seconds, so a sensor sample stamped a little in the past is placed at
 * the pose of its stamp (as a ROS node looks the pose up in TF). A scan
 * taken 0.1 s ago while turning at 2.8 rad/s would otherwise be drawn 16
 * degrees off.
 *
 * The simulator's robot and a replayed recording keep one each; both use
 * this code, so a replay computes, bit for bit, the poses the recorded run
 * computed. No allocation. */
#ifndef TYCHO_ODOM_HISTORY_H
#define TYCHO_ODOM_HISTORY_H

#include "tycho/common.h"

#include <stdbool.h>

/* samples kept: 3.2 s at the default 20 Hz control rate */
#define TYCHO_ODOM_HISTORY 64

typedef struct {
    double t;
    tycho_pose2 pose;
} tycho_odom_sample;

typedef struct {
    tycho_odom_sample s[TYCHO_ODOM_HISTORY];
    int n;    /* samples held */
    int head; /* index of the newest */
} tycho_odom_history;

void tycho_odom_history_init(tycho_odom_history *h);
/* Adds the newest sample (the oldest is dropped once full). */
void tycho_odom_history_push(tycho_odom_history *h, double t, tycho_pose2 pose);
/* The pose at time t: interpolated between the samples either side of it
 * (the heading along the shorter turn), the oldest one before them all, the
 * newest one after. False when the history is empty. */
bool tycho_odom_history_at(const tycho_odom_history *h, double t, tycho_pose2 *out);

#endif
