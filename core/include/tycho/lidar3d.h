/* A 3D LiDAR model for the simulator, cast against a height field (a
 * ground surface with its obstacles: one height per cell).
 *
 * Frames and the Euler convention (REP-103): x forward, y left, z up;
 * orientation as roll, pitch, yaw about fixed axes x, y, z applied in that
 * order, i.e. R = Rz(yaw) * Ry(pitch) * Rx(roll) (the same as intrinsic
 * z-y'-x''). A positive pitch tilts the x axis down (nose down), a
 * positive roll tilts the y axis up. A point p in the sensor frame is, in
 * the world, R_robot * (R_mount * p + t_mount) + t_robot.
 *
 * Casting: each beam is marched across the height field's cells with a 2D
 * DDA; it hits where its height at a cell's entry or exit is at or below
 * the cell's height (on a cell's flat top it is placed exactly where it
 * crosses that height). A beam climbing above the field's highest cell
 * stops early. Points inside the robot's own box (robot frame) are
 * dropped, as a real driver's self filter would. */
#ifndef TYCHO_LIDAR3D_H
#define TYCHO_LIDAR3D_H

#include "tycho/common.h"

typedef struct {
    int w, h;
    double res, ox, oy; /* cell (0, 0)'s corner at (ox, oy), like the occupancy grid */
    float *z;           /* w * h heights, row-major from the bottom row */
    float zmax;         /* highest cell (kept by the setters) */
} tycho_heightfield;

tycho_heightfield *tycho_heightfield_new(int w, int h, double res, double ox, double oy,
                                         tycho_err *err);
void tycho_heightfield_free(tycho_heightfield *f);
void tycho_heightfield_set(tycho_heightfield *f, int cx, int cy, float z);
/* Raises every cell whose centre is in [x0, x1] x [y0, y1] to at least top. */
void tycho_heightfield_box(tycho_heightfield *f, double x0, double y0, double x1, double y1,
                           float top);
tycho_heightfield *tycho_heightfield_copy(const tycho_heightfield *f, tycho_err *err);
/* Puts back src's heights (a field of the same size) over the cells whose
 * centre is in [x0, x1] x [y0, y1]: what a moving obstacle leaves behind.
 * zmax keeps the larger of the two (it only bounds the casting). */
bool tycho_heightfield_restore(tycho_heightfield *f, const tycho_heightfield *src, double x0,
                               double y0, double x1, double y1);
/* Height under a world point (the cell's), -INFINITY outside. */
float tycho_heightfield_at(const tycho_heightfield *f, double x, double y);

typedef struct {
    double x, y, z, roll, pitch, yaw;
} tycho_pose3;

#define TYCHO_LIDAR3D_MAX_LINES 128

typedef struct {
    int lines;
    float vangle[TYCHO_LIDAR3D_MAX_LINES]; /* rad, elevation of each line */
    int columns;
    double hfov;                 /* rad, centred on the sensor's x axis */
    double range_min, range_max; /* m */
} tycho_lidar3d_model;

/* Presets: 16 lines (-15..+15 deg every 2), 32 lines (-30.67..+10.67), 64
 * lines (-24.9..+2.0); 360 deg, 1800 columns, 0.3..100 m. EINVAL otherwise. */
tycho_status tycho_lidar3d_preset(tycho_lidar3d_model *m, int lines, tycho_err *err);

/* R = Rz(yaw) Ry(pitch) Rx(roll), row-major. */
void tycho_rotation(double roll, double pitch, double yaw, double R[9]);
/* Sensor frame -> world (mount on the robot, robot in the world), and back. */
void tycho_lidar3d_to_world(tycho_pose3 robot, tycho_pose3 mount, const double p[3], double out[3]);
void tycho_lidar3d_to_sensor(tycho_pose3 robot, tycho_pose3 mount, const double w[3],
                             double out[3]);

typedef struct {
    double xmin, xmax, ymin, ymax, zmin, zmax; /* robot frame */
} tycho_box3;

/* One sweep. ranges: lines * columns (INFINITY: no hit within range_max),
 * line-major; points (optional): xyz world of the kept hits, up to cap;
 * returns how many points were written (-1 on bad arguments). */
int tycho_lidar3d_sweep(const tycho_lidar3d_model *m, const tycho_heightfield *f, tycho_pose3 robot,
                        tycho_pose3 mount, const tycho_box3 *self, float *ranges, double *points,
                        int cap);

#endif
