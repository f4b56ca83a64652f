/* The launch judge: did a ball fired from this pose engage a heat source?
 *
 * A launch engages source i when, from the robot's true pose,
 *   - the distance from the robot centre to the source centre is <= range
 *     (default 1.5 m),
 *   - |wrap(bearing to the source centre - robot yaw)| <= angle (default 15
 *     degrees; the launcher points straight ahead), and
 *   - no solid cell lies on the segment between the two centres (checked up
 *     to 1.5 cells before the source's surface, so a source the map draws
 *     as an obstacle does not hide itself).
 * Of the qualifying sources the nearest wins. The judge does not fly the
 * ball: it stands for "the robot was close, facing the source, in sight of
 * it", which is what the mission's scoring asks. */
#include "tycho/sim.h"

#include "tycho/diffdrive.h"

#include <math.h>
#include <stdio.h>

#define RAD2DEG (180.0 / M_PI)

int tycho_sim_judge(const tycho_raymap *rays, double res, const tycho_heat_source *src, int n,
                    const tycho_sim_launcher *p, tycho_pose2 pose, tycho_sim_launch *out)
{
    out->t = 0;
    out->pose = pose;
    out->engaged = out->nearest = -1;
    out->distance = INFINITY;
    out->bearing_err = 0;
    out->reason[0] = '\0';

    int best = -1, nearest = -1;
    double best_d = INFINITY, nearest_d = INFINITY, best_err = 0, nearest_err = 0;
    bool nearest_blocked = false;
    for (int i = 0; i < n; i++) {
        const tycho_heat_source *s = &src[i];
        double dx = s->x - pose.x, dy = s->y - pose.y;
        double d = hypot(dx, dy);
        double err = tycho_angle_wrap(atan2(dy, dx) - pose.yaw);
        bool in_range = d <= p->range, facing = fabs(err) <= p->angle;
        /* the sight line is only worth casting when it could decide */
        bool clear = true;
        if ((in_range && facing) || d < nearest_d)
            clear = tycho_sim_line_clear(rays, pose.x, pose.y, s->x, s->y,
                                         fmax(0.0, d - s->radius - 1.5 * res));
        if (d < nearest_d) {
            nearest = i;
            nearest_d = d;
            nearest_err = err;
            nearest_blocked = !clear;
        }
        if (in_range && facing && clear && d < best_d) {
            best = i;
            best_d = d;
            best_err = err;
        }
    }
    out->nearest = nearest;
    if (best >= 0) {
        out->engaged = best;
        out->distance = best_d;
        out->bearing_err = best_err;
        snprintf(out->reason, sizeof out->reason,
                 "engaged heat source %d at %.2f m, %.1f deg off the heading", best + 1, best_d,
                 best_err * RAD2DEG);
        return best;
    }
    if (nearest < 0) {
        snprintf(out->reason, sizeof out->reason, "missed: no heat sources in the world");
        return -1;
    }
    out->distance = nearest_d;
    out->bearing_err = nearest_err;
    if (nearest_d > p->range)
        snprintf(out->reason, sizeof out->reason,
                 "missed: nearest heat source %d is %.2f m away (limit %.2f m)", nearest + 1,
                 nearest_d, p->range);
    else if (fabs(nearest_err) > p->angle)
        snprintf(out->reason, sizeof out->reason,
                 "missed: heat source %d is %.1f deg off the heading (limit %.1f deg)", nearest + 1,
                 nearest_err * RAD2DEG, p->angle * RAD2DEG);
    else if (nearest_blocked)
        snprintf(out->reason, sizeof out->reason,
                 "missed: a wall lies between the robot and heat source %d", nearest + 1);
    else snprintf(out->reason, sizeof out->reason, "missed");
    return -1;
}
