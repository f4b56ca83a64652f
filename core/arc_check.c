/* Arc collision check: see arc_check.h. */
#include "tycho/arc_check.h"

#include "tycho/diffdrive.h"

#include <math.h>

static int cost_at(const tycho_grid *g, double x, double y)
{
    int cx, cy;
    tycho_grid_world_to_cell(g, x, y, &cx, &cy);
    return tycho_grid_in_bounds(g, cx, cy) ? tycho_grid_get(g, cx, cy) : 255;
}

double tycho_arc_first_hit(const tycho_grid *g, tycho_pose2 p, double v, double w, double horizon,
                           double dt, int limit)
{
    if (!(dt > 0) || !(horizon > 0)) return INFINITY;
    if (limit <= 0) {
        int here = cost_at(g, p.x, p.y);
        limit = (here >= 253 && here != 255) ? 254 : 253;
    }
    int steps = (int)ceil(horizon / dt - 1e-9);
    for (int i = 1; i <= steps; i++) {
        tycho_pose2 q = tycho_unicycle_step(p, v, w, i * dt);
        int c = cost_at(g, q.x, q.y);
        if (c >= limit && c != 255) return i * dt;
    }
    return INFINITY;
}
