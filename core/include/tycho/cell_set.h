/* A set of world cells, for "which wall cells has a camera looked at"
 * (behaviors/thermal_sweep.lua). A world point (x, y) is the cell
 * key = floor(x / res + 0.5) * 2^20 + floor(y / res + 0.5): independent of
 * any map's origin (maps grow and move theirs), and the same key the
 * mission's Lua used, so decisions do not change with the move to C. Keys
 * live in an open-addressing hash table that doubles as it fills. */
#ifndef TYCHO_CELL_SET_H
#define TYCHO_CELL_SET_H

#include "tycho/common.h"
#include "tycho/scan.h"

typedef struct tycho_cell_set tycho_cell_set;

/* resolution > 0 and finite. */
tycho_cell_set *tycho_cell_set_new(double resolution, tycho_err *err);
void tycho_cell_set_free(tycho_cell_set *s);
size_t tycho_cell_set_count(const tycho_cell_set *s);
double tycho_cell_set_resolution(const tycho_cell_set *s);
bool tycho_cell_set_has(const tycho_cell_set *s, double x, double y);
/* 1 added, 0 already there; TYCHO_ENOMEM as -1. Non-finite points are ignored (0). */
int tycho_cell_set_add(tycho_cell_set *s, double x, double y);

/* What a camera sees of the walls: for every beam of `scan` (taken at
 * `pose`, world frame) whose direction lies within fov/2 of the camera's
 * axis cam_yaw (robot frame; the scan covers the full turn) and whose range
 * is in (0, max_range], the cell of the point one cell (resolution) short
 * of its end, towards the sensor, and that cell's 8 neighbours are added:
 * the wall cell hit and the free cells in front of it, so the two faces of
 * a wall one cell thick are told apart by their free neighbours. *added
 * (may be NULL) gets the number of new cells. */
tycho_status tycho_cell_set_observe(tycho_cell_set *s, tycho_pose2 pose, const tycho_scan *scan,
                                    double cam_yaw, double fov, double max_range, size_t *added,
                                    tycho_err *err);

#endif
