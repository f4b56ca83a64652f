/* Laser scans (ROS sensor_msgs/LaserScan conventions) and their insertion
 * into a grid's log-odds layer.
 *
 * Beam i (0-based) points at angle_min + i * angle_increment in the sensor
 * frame (REP-103: radians, counter-clockwise, 0 = sensor x axis). A range is
 * in metres; as in REP-117, +INFINITY means "no return" (nothing within
 * range_max) and -INFINITY "too close" (something nearer than range_min,
 * which says nothing about the space behind it). */
#ifndef TYCHO_SCAN_H
#define TYCHO_SCAN_H

#include "tycho/grid.h"

typedef struct {
    int count;
    double angle_min;       /* rad, first beam */
    double angle_increment; /* rad, between consecutive beams (may be negative) */
    double range_min;       /* m, >= 0 */
    double range_max;       /* m, > range_min */
    float *ranges;          /* count values, owned by the scan */
} tycho_scan;

/* Largest beam count a scan may hold. */
#define TYCHO_SCAN_MAX_BEAMS (1 << 20)

/* Allocates count ranges (all INFINITY). Fails with a message naming the
 * bad field on count outside 1..TYCHO_SCAN_MAX_BEAMS, non-finite angles,
 * range_min < 0 or range_max <= range_min. */
tycho_status tycho_scan_init(tycho_scan *s, int count, double angle_min, double angle_increment,
                             double range_min, double range_max, tycho_err *err);
void tycho_scan_free(tycho_scan *s);
/* Where the walls are round a robot driving straight (sensor frame, x
 * ahead): *front, the nearest return ahead within `half` of the heading line;
 * *left and *right, the nearest returns beside the robot (within `half` of
 * its axle) on each side. INFINITY where there is none; beams with a range
 * that is not > 0 and finite are skipped. */
void tycho_scan_lane(const tycho_scan *s, double half, double *front, double *left, double *right);

/* Angle of beam i, sensor frame. */
static inline double tycho_scan_angle(const tycho_scan *s, int i)
{
    return s->angle_min + i * s->angle_increment;
}

/* --- insertion ------------------------------------------------------------
 *
 * For every beam with a usable range (finite, range_min <= r < range_max) the
 * cell holding the end point gets a "hit" and every other cell the beam
 * crosses on the way gets a "miss" (log-odds update, see grid.h). A beam with
 * no return (INFINITY, or r >= range_max) clears the cells up to range_max
 * without a hit when clear_on_max_range is set, and is ignored otherwise.
 * Beams with r < range_min (including -INFINITY) or NaN are ignored.
 *
 * Each cell is updated at most once per scan: a hit wins over misses from
 * other beams (so grazing beams do not erode walls), and a cell crossed by
 * several beams gets one miss, not one per beam (cells near the sensor would
 * otherwise be cleared hundreds of times faster than far ones).
 *
 * The end cell is the cell the beam enters at its range; a range that falls
 * within 1e-3 cell lengths before a cell boundary counts as reaching the next
 * cell, so ranges from ray casting (which stop exactly on the boundary of the
 * blocked cell) and float rounding put the hit in the obstacle cell. */
typedef struct {
    bool clear_on_max_range; /* default true */
    bool grow;               /* grow the grid to hold pose +- range_max; default true */
    /* Fill the disk round the sensor that the beams cover whole at once and
     * start each beam's walk at its edge (default true); false walks every
     * beam from the sensor. The same cells either way, the first faster. */
    bool fill_near;
} tycho_insert_opts;

void tycho_insert_opts_defaults(tycho_insert_opts *o);

/* Reusable workspace (per-cell scan stamps); one may serve many grids. */
typedef struct tycho_inserter tycho_inserter;
tycho_inserter *tycho_inserter_new(void);
void tycho_inserter_free(tycho_inserter *ws);

/* Inserts a scan taken from `pose` (the sensor's world pose). When
 * opts->grow is set the grid first grows once so that pose +- range_max is
 * inside (pointers from tycho_grid_cells/tycho_grid_logodds are then
 * invalid); otherwise beams are cut at the grid's edge. `updated`, if not
 * NULL, receives the number of cells updated. */
tycho_status tycho_scan_insert(tycho_inserter *ws, tycho_grid *g, tycho_pose2 pose,
                               const tycho_scan *scan, const tycho_insert_opts *opts,
                               size_t *updated, tycho_err *err);

#endif
