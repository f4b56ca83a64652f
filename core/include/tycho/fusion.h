/* Thermal + LiDAR fusion: where is the heat a thermal camera sees?
 *
 * A low-resolution thermal camera (AMG8833: 8x8 pixels, 60 deg field of
 * view) tells that something hot is in view and roughly in which direction,
 * not how far. The LiDAR beams inside the same horizontal field of view
 * give the distance: the hot thing is taken to be the most common range
 * among those beams (the wall or object filling the view).
 *
 * Conventions:
 *  - Angles are REP-103: radians, counter-clockwise, robot x forward.
 *  - The scan is a ROS LaserScan in the robot frame (LiDAR at the robot
 *    centre, no parallax correction between LiDAR and camera): beam i has
 *    bearing angle_min + i*angle_increment; a range that is not finite
 *    (inf = no return, NaN) or <= 0 is no return.
 *  - The frame is rows x cols temperatures in deg C, row-major, row 0 the
 *    top. Column 0 is the LEFTMOST column as seen from behind the camera,
 *    i.e. the most counter-clockwise bearing (mirrored = true flips this
 *    for a sensor mounted the other way). Column c spans bearings, relative
 *    to the camera axis, from hfov/2 - (c+1)*hfov/cols to hfov/2 - c*hfov/cols.
 *
 * Algorithm (tycho_fusion_locate):
 *  1. Hot pixels: value > threshold (NaN pixels ignored). None -> NO_HOT_PIXEL.
 *  2. Beams in view: |wrap(bearing - mount_yaw)| <= hfov/2 (so a camera
 *     looking backwards works across the +-pi seam). With narrow (the
 *     default) only beams falling in a column that holds a hot pixel are
 *     kept, which aims the fix at the heat instead of the whole view. No
 *     beam -> NO_BEAMS_IN_FOV.
 *  3. Returns kept: finite, > 0, >= min_range and <= max_range. None ->
 *     NO_RETURN_IN_RANGE (all beyond max_range, or no return at all).
 *     With a heat window (window > 0) only the beams within `window` of
 *     the heat's bearing are kept, when any of them has a usable return:
 *     the hot columns' centres weighted by how much warmer than the
 *     frame's median their pixels are (a source covering two columns
 *     unevenly lies nearer the warmer one). A wall seen at a grazing angle
 *     spreads a whole column's beams over many range bins, one beam to a
 *     bin, and then the few beams that run past it to the far wall (one
 *     bin) win the count: the window keeps the count to the beams that
 *     point at the heat.
 *  4. Ranges are binned by floor(range / bin_width); the most populated bin
 *     wins, ties go to the nearest bin. Its beams give the mean range and
 *     the circular mean bearing atan2(sum sin, sum cos).
 *  5. World point = pose (+) (range, bearing).
 * Only beams whose index can fall in the view are visited (computed from
 * the scan's uniform spacing), so the cost grows with the beams in view, not
 * the scan size. No allocation; the bin histogram lives on the stack, so
 * max_range / bin_width is limited to TYCHO_FUSION_MAX_BINS. */
#ifndef TYCHO_FUSION_H
#define TYCHO_FUSION_H

#include "tycho/common.h"

#define TYCHO_FUSION_MAX_BINS 4096
#define TYCHO_FUSION_MAX_PIXELS 4096 /* rows * cols */

/* A borrowed LaserScan: ranges[count] in metres. */
typedef struct {
    double angle_min;       /* bearing of ranges[0], rad, robot frame */
    double angle_increment; /* rad between beams (may be negative) */
    int count;
    const float *ranges;
} tycho_scan_ref;

typedef struct {
    double mount_yaw; /* camera axis relative to robot x, rad CCW; default 0 */
    double hfov;      /* horizontal field of view, rad, default 60 deg */
    int rows, cols;   /* default 8 x 8 */
    bool mirrored;    /* column 0 is the rightmost (most clockwise); default false */
} tycho_thermal_camera;

typedef struct {
    double threshold; /* deg C; a pixel above it is hot; default 30 */
    double bin_width; /* m, default 0.1 */
    double min_range; /* m, returns below are ignored, default 0 */
    double max_range; /* m, returns beyond are ignored, default 3.5 */
    bool narrow;      /* keep only beams in hot columns; default true */
    double window;    /* rad; > 0: only beams this close to the heat's bearing; default 0 */
} tycho_fusion_params;

typedef enum {
    TYCHO_FUSION_FOUND = 0,
    TYCHO_FUSION_NO_HOT_PIXEL,
    TYCHO_FUSION_NO_BEAMS_IN_FOV,
    TYCHO_FUSION_NO_RETURN_IN_RANGE
} tycho_fusion_outcome;

typedef struct {
    tycho_fusion_outcome outcome;
    double x, y;         /* world position (FOUND only) */
    double range;        /* mean range of the winning bin, m */
    double bearing;      /* circular mean bearing, robot frame, rad */
    int hot_pixels;      /* pixels above the threshold */
    int col_lo, col_hi;  /* hot columns span (camera columns), -1 if none */
    double max_temp;     /* hottest pixel, deg C (NAN if every pixel is NaN) */
    int beams_in_view;   /* beams kept by step 2 */
    int returns;         /* of those, valid returns in range (step 3) */
    int bin_beams;       /* beams in the winning bin */
    double heat_bearing; /* the heat's bearing (weighted hot columns), robot frame, rad */
    bool windowed;       /* the heat window had returns and was used */
} tycho_fusion_result;

void tycho_thermal_camera_defaults(tycho_thermal_camera *c);
void tycho_fusion_defaults(tycho_fusion_params *p);
tycho_status tycho_fusion_validate(const tycho_thermal_camera *c, const tycho_fusion_params *p,
                                   tycho_err *err);
const char *tycho_fusion_outcome_name(tycho_fusion_outcome o);

/* Returns TYCHO_OK with out->outcome saying found or why not; EINVAL for bad
 * parameters, a NULL frame/scan or a non-finite pose. */
tycho_status tycho_fusion_locate(tycho_pose2 pose, const tycho_scan_ref *scan,
                                 const tycho_thermal_camera *cam, const float *frame,
                                 const tycho_fusion_params *p, tycho_fusion_result *out,
                                 tycho_err *err);

#endif
