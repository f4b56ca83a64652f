/* 3D LiDAR against a height field: see tycho/lidar3d.h. */
#include "tycho/lidar3d.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

tycho_heightfield *tycho_heightfield_new(int w, int h, double res, double ox, double oy,
                                         tycho_err *err)
{
    if (w < 1 || h < 1 || (long)w * h > 64000000 || !(res > 0) || !isfinite(ox) || !isfinite(oy)) {
        tycho_fail(err, TYCHO_EINVAL, "height field: size 1..64e6 cells, resolution > 0 expected");
        return NULL;
    }
    tycho_heightfield *f = calloc(1, sizeof *f);
    if (!f || !(f->z = calloc((size_t)w * (size_t)h, sizeof *f->z))) {
        free(f);
        tycho_fail(err, TYCHO_ENOMEM, "height field: out of memory");
        return NULL;
    }
    f->w = w, f->h = h, f->res = res, f->ox = ox, f->oy = oy;
    return f;
}

void tycho_heightfield_free(tycho_heightfield *f)
{
    if (!f) return;
    free(f->z);
    free(f);
}

void tycho_heightfield_set(tycho_heightfield *f, int cx, int cy, float z)
{
    if (cx < 0 || cy < 0 || cx >= f->w || cy >= f->h || !isfinite(z)) return;
    f->z[(size_t)cy * f->w + cx] = z;
    if (z > f->zmax) f->zmax = z;
}

void tycho_heightfield_box(tycho_heightfield *f, double x0, double y0, double x1, double y1,
                           float top)
{
    int cx0 = (int)ceil((x0 - f->ox) / f->res - 0.5), cx1 = (int)floor((x1 - f->ox) / f->res - 0.5);
    int cy0 = (int)ceil((y0 - f->oy) / f->res - 0.5), cy1 = (int)floor((y1 - f->oy) / f->res - 0.5);
    for (int cy = cy0 < 0 ? 0 : cy0; cy <= cy1 && cy < f->h; cy++)
        for (int cx = cx0 < 0 ? 0 : cx0; cx <= cx1 && cx < f->w; cx++)
            if (f->z[(size_t)cy * f->w + cx] < top) tycho_heightfield_set(f, cx, cy, top);
}

tycho_heightfield *tycho_heightfield_copy(const tycho_heightfield *f, tycho_err *err)
{
    tycho_heightfield *c = tycho_heightfield_new(f->w, f->h, f->res, f->ox, f->oy, err);
    if (!c) return NULL;
    memcpy(c->z, f->z, (size_t)f->w * f->h * sizeof *f->z);
    c->zmax = f->zmax;
    return c;
}

bool tycho_heightfield_restore(tycho_heightfield *f, const tycho_heightfield *src, double x0,
                               double y0, double x1, double y1)
{
    if (src->w != f->w || src->h != f->h) return false;
    int cx0 = (int)ceil((x0 - f->ox) / f->res - 0.5), cx1 = (int)floor((x1 - f->ox) / f->res - 0.5);
    int cy0 = (int)ceil((y0 - f->oy) / f->res - 0.5), cy1 = (int)floor((y1 - f->oy) / f->res - 0.5);
    for (int cy = cy0 < 0 ? 0 : cy0; cy <= cy1 && cy < f->h; cy++)
        for (int cx = cx0 < 0 ? 0 : cx0; cx <= cx1 && cx < f->w; cx++)
            f->z[(size_t)cy * f->w + cx] = src->z[(size_t)cy * f->w + cx];
    if (src->zmax > f->zmax) f->zmax = src->zmax;
    return true;
}

float tycho_heightfield_at(const tycho_heightfield *f, double x, double y)
{
    double u = (x - f->ox) / f->res, v = (y - f->oy) / f->res;
    if (!(u >= 0 && v >= 0 && u < f->w && v < f->h)) return -INFINITY;
    return f->z[(size_t)(int)v * f->w + (int)u];
}

tycho_status tycho_lidar3d_preset(tycho_lidar3d_model *m, int lines, tycho_err *err)
{
    memset(m, 0, sizeof *m);
    double lo, hi;
    if (lines == 16) lo = -15, hi = 15;
    else if (lines == 32) lo = -30.67, hi = 10.67;
    else if (lines == 64) lo = -24.9, hi = 2.0;
    else
        return tycho_fail(err, TYCHO_EINVAL, "lidar3d: presets are 16, 32 or 64 lines (got %d)",
                          lines);
    m->lines = lines;
    for (int i = 0; i < lines; i++)
        m->vangle[i] = (float)((lo + (hi - lo) * i / (lines - 1)) * M_PI / 180);
    m->columns = 1800;
    m->hfov = 2 * M_PI;
    m->range_min = 0.3;
    m->range_max = 100;
    return TYCHO_OK;
}

void tycho_rotation(double roll, double pitch, double yaw, double R[9])
{
    double cr = cos(roll), sr = sin(roll), cp = cos(pitch), sp = sin(pitch), cy = cos(yaw),
           sy = sin(yaw);
    R[0] = cy * cp, R[1] = cy * sp * sr - sy * cr, R[2] = cy * sp * cr + sy * sr;
    R[3] = sy * cp, R[4] = sy * sp * sr + cy * cr, R[5] = sy * sp * cr - cy * sr;
    R[6] = -sp, R[7] = cp * sr, R[8] = cp * cr;
}

static void rot(const double R[9], const double p[3], double o[3])
{
    o[0] = R[0] * p[0] + R[1] * p[1] + R[2] * p[2];
    o[1] = R[3] * p[0] + R[4] * p[1] + R[5] * p[2];
    o[2] = R[6] * p[0] + R[7] * p[1] + R[8] * p[2];
}

static void rot_t(const double R[9], const double p[3], double o[3]) /* R transposed: the inverse */
{
    o[0] = R[0] * p[0] + R[3] * p[1] + R[6] * p[2];
    o[1] = R[1] * p[0] + R[4] * p[1] + R[7] * p[2];
    o[2] = R[2] * p[0] + R[5] * p[1] + R[8] * p[2];
}

void tycho_lidar3d_to_world(tycho_pose3 robot, tycho_pose3 mount, const double p[3], double out[3])
{
    double Rm[9], Rr[9], a[3], b[3];
    tycho_rotation(mount.roll, mount.pitch, mount.yaw, Rm);
    tycho_rotation(robot.roll, robot.pitch, robot.yaw, Rr);
    rot(Rm, p, a);
    a[0] += mount.x, a[1] += mount.y, a[2] += mount.z;
    rot(Rr, a, b);
    out[0] = b[0] + robot.x, out[1] = b[1] + robot.y, out[2] = b[2] + robot.z;
}

void tycho_lidar3d_to_sensor(tycho_pose3 robot, tycho_pose3 mount, const double w[3], double out[3])
{
    double Rm[9], Rr[9], a[3], b[3];
    tycho_rotation(mount.roll, mount.pitch, mount.yaw, Rm);
    tycho_rotation(robot.roll, robot.pitch, robot.yaw, Rr);
    a[0] = w[0] - robot.x, a[1] = w[1] - robot.y, a[2] = w[2] - robot.z;
    rot_t(Rr, a, b);
    b[0] -= mount.x, b[1] -= mount.y, b[2] -= mount.z;
    rot_t(Rm, b, out);
}

/* Distance along the unit direction d from o to the surface, or INFINITY. */
static double cast(const tycho_heightfield *f, const double o[3], const double d[3],
                   double max_range)
{
    double res = f->res;
    double u = (o[0] - f->ox) / res, v = (o[1] - f->oy) / res; /* cell units */
    int cx = (int)floor(u), cy = (int)floor(v);
    double dh = hypot(d[0], d[1]);
    if (cx < 0 || cy < 0 || cx >= f->w || cy >= f->h) return INFINITY; /* sensor off the field */
    int sx = d[0] > 0 ? 1 : -1, sy = d[1] > 0 ? 1 : -1;
    /* t: metres along the beam; per cell in x and y */
    double tdx = fabs(d[0]) > 1e-12 ? res / fabs(d[0]) : INFINITY,
           tdy = fabs(d[1]) > 1e-12 ? res / fabs(d[1]) : INFINITY;
    double tx = fabs(d[0]) > 1e-12 ? ((sx > 0 ? cx + 1 - u : u - cx) * res) / fabs(d[0]) : INFINITY;
    double ty = fabs(d[1]) > 1e-12 ? ((sy > 0 ? cy + 1 - v : v - cy) * res) / fabs(d[1]) : INFINITY;
    double t0 = 0;
    (void)dh;
    for (;;) {
        double t1 = tx < ty ? tx : ty;
        if (t1 > max_range) t1 = max_range;
        float top = f->z[(size_t)cy * f->w + cx];
        double z0 = o[2] + d[2] * t0, z1 = o[2] + d[2] * t1;
        if (z0 <= top) return t0; /* entered the cell below its top: hit its side */
        if (z1 <= top) return t0 + (z0 - top) / (z0 - z1) * (t1 - t0); /* came down onto its top */
        if (t1 >= max_range) return INFINITY;
        if (d[2] >= 0 && z1 > f->zmax) return INFINITY; /* climbing above everything */
        t0 = t1;
        if (tx < ty) {
            cx += sx;
            tx += tdx;
        } else {
            cy += sy;
            ty += tdy;
        }
        if (cx < 0 || cy < 0 || cx >= f->w || cy >= f->h) return INFINITY;
    }
}

int tycho_lidar3d_sweep(const tycho_lidar3d_model *m, const tycho_heightfield *f, tycho_pose3 robot,
                        tycho_pose3 mount, const tycho_box3 *self, float *ranges, double *points,
                        int cap)
{
    if (!m || !f || !ranges || m->lines < 1 || m->lines > TYCHO_LIDAR3D_MAX_LINES ||
        m->columns < 1 || !(m->range_max > m->range_min))
        return -1;
    double Rm[9], Rr[9], R[9];
    tycho_rotation(mount.roll, mount.pitch, mount.yaw, Rm);
    tycho_rotation(robot.roll, robot.pitch, robot.yaw, Rr);
    for (int i = 0; i < 3; i++) /* R = Rr * Rm: sensor to world rotation */
        for (int j = 0; j < 3; j++)
            R[3 * i + j] =
                Rr[3 * i] * Rm[j] + Rr[3 * i + 1] * Rm[3 + j] + Rr[3 * i + 2] * Rm[6 + j];
    double origin[3], zero[3] = {0, 0, 0};
    tycho_lidar3d_to_world(robot, mount, zero, origin);
    int np = 0;
    double start = m->hfov >= 2 * M_PI - 1e-9 ? 0 : -m->hfov / 2;
    double step = m->hfov >= 2 * M_PI - 1e-9 ? m->hfov / m->columns
                                             : (m->columns > 1 ? m->hfov / (m->columns - 1) : 0);
    for (int c = 0; c < m->columns; c++) {
        double az = start + step * c, ca = cos(az), sa = sin(az);
        for (int l = 0; l < m->lines; l++) {
            double ce = cos(m->vangle[l]), se = sin(m->vangle[l]);
            double ds[3] = {ce * ca, ce * sa, se}, d[3];
            rot(R, ds, d);
            double r = cast(f, origin, d, m->range_max);
            if (r < m->range_min) r = INFINITY; /* too close to measure */
            ranges[l * m->columns + c] = (float)r;
            if (!points || !isfinite(r) || np >= cap) continue;
            double p[3] = {origin[0] + d[0] * r, origin[1] + d[1] * r, origin[2] + d[2] * r};
            if (self) {
                /* the robot's own body: in the robot frame */
                double a[3] = {p[0] - robot.x, p[1] - robot.y, p[2] - robot.z}, b[3];
                rot_t(Rr, a, b);
                if (b[0] >= self->xmin && b[0] <= self->xmax && b[1] >= self->ymin &&
                    b[1] <= self->ymax && b[2] >= self->zmin && b[2] <= self->zmax)
                    continue;
            }
            points[3 * np] = p[0], points[3 * np + 1] = p[1], points[3 * np + 2] = p[2];
            np++;
        }
    }
    return np;
}
