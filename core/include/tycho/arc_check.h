/* Collision check of a short constant-twist motion against a costmap: the
 * "is the arc I am about to drive clear?" question a local controller asks
 * before every command (Nav2's RegulatedPurePursuit asks it of its
 * projected trajectory).
 *
 * The robot is a disc whose radius the costmap's inscribed band already
 * encodes (Nav2 costs: 253 = the centre here means the disc touches an
 * obstacle, 254 = lethal), so the check only looks at the cell under the
 * centre at each step. */
#ifndef TYCHO_ARC_CHECK_H
#define TYCHO_ARC_CHECK_H

#include "tycho/common.h"
#include "tycho/grid.h"

/* Drives (v, w) from pose p for `horizon` seconds in steps of dt (unicycle,
 * exact arcs) and returns the time of the first step whose cell has cost
 * >= limit, or INFINITY if none. Unknown cells (255, also outside the grid)
 * never count. limit <= 0 picks it from the start cell: 253 when the robot
 * stands outside the inscribed band (do not enter it), 254 when it already
 * stands in it (a robot pushed into the band may move, but not onto a wall
 * cell, so it can always get out). */
double tycho_arc_first_hit(const tycho_grid *g, tycho_pose2 p, double v, double w, double horizon,
                           double dt, int limit);

#endif
