/* The odometry history (tycho/odom_history.h). */
#include "tycho/odom_history.h"

#include <math.h>

void tycho_odom_history_init(tycho_odom_history *h)
{
    h->n = 0;
    h->head = TYCHO_ODOM_HISTORY - 1;
}

void tycho_odom_history_push(tycho_odom_history *h, double t, tycho_pose2 pose)
{
    h->head = (h->head + 1) % TYCHO_ODOM_HISTORY;
    h->s[h->head] = (tycho_odom_sample){t, pose};
    if (h->n < TYCHO_ODOM_HISTORY) h->n++;
}

bool tycho_odom_history_at(const tycho_odom_history *h, double t, tycho_pose2 *out)
{
    const tycho_odom_sample *newer = NULL;
    for (int k = 0; k < h->n; k++) {
        const tycho_odom_sample *s =
            &h->s[((h->head - k) % TYCHO_ODOM_HISTORY + TYCHO_ODOM_HISTORY) % TYCHO_ODOM_HISTORY];
        if (s->t <= t) {
            if (!newer || newer->t == s->t) {
                *out = s->pose;
                return true;
            }
            double u = (t - s->t) / (newer->t - s->t);
            out->x = s->pose.x + u * (newer->pose.x - s->pose.x);
            out->y = s->pose.y + u * (newer->pose.y - s->pose.y);
            out->yaw =
                tycho_wrap_pi(s->pose.yaw + u * tycho_wrap_pi(newer->pose.yaw - s->pose.yaw));
            return true;
        }
        newer = s;
    }
    if (!newer) return false;
    *out = newer->pose;
    return true;
}
