/* Sensor models of the simulator: LiDAR, AMG8833 thermal cameras, ramp
 * attitude for the IMU, and the sight-line checks they share. All pure
 * functions of the truth grid, a pose and a parameter block (noise from a
 * caller-seeded generator), so they can be tested on their own.
 *
 * LiDAR (LDS-01-like): beam i leaves the sensor at yaw + angle_min +
 * i*angle_increment and is cast on the truth grid (solid = lethal or
 * unknown; see sim.h) up to range_max. The true range gets Gaussian noise of
 * sigma `noise`. As in REP-117: a hit closer than range_min (after noise)
 * reads -INFINITY ("too close to measure": says nothing about the space
 * behind it, so a mapper must not clear through it); a range beyond
 * range_max after noise, or no hit at all, reads +INFINITY ("nothing
 * within range_max"). The scan is taken
 * at one instant (no motion skew) from the robot's 2D pose; robot tilt on a
 * ramp is ignored and ramps are invisible (they are free cells).
 *
 * AMG8833 camera: 8x8 pixels spread evenly in angle over fov_h x fov_v
 * (default 60 x 60 degrees), looking horizontally along the mount yaw from
 * height z. Column 0 is the leftmost (most counter-clockwise) bearing, row 0
 * the top. Pixel (row r, column c) covers
 *     azimuth   [fov_h/2 - (c+1)*fov_h/8, fov_h/2 - c*fov_h/8]
 *     elevation [fov_v/2 - (r+1)*fov_v/8, fov_v/2 - r*fov_v/8]
 * relative to the optical axis. A heat source (cylinder, radius R, height H,
 * centre at horizontal distance d and bearing b from the lens) covers
 *     azimuth   [b - asin(R/d), b + asin(R/d)]
 *     elevation [atan2(-z, d-R), atan2(H-z, d-R)]   (its near face)
 * and the pixel's fill is the product of the two overlaps divided by the
 * pixel's angular width and height (the fraction of the pixel's angular
 * rectangle the source covers, so it falls with distance). Each source's
 * fill is scaled by its visibility (fraction of five sight lines across its
 * width that reach it unblocked: partial occlusion by a corner dims it).
 * The pixel reads
 *     T = ambient + sum over sources of (temp - ambient) * fill * visibility
 * plus Gaussian noise (sigma `noise`), clamped to the sensor's -20..80 C
 * range, then rounded to a multiple of `quantum` (0.25 C, the AMG8833's
 * resolution). The lens inside a source's radius sees it in every pixel.
 *
 * Ramp attitude: for each ramp, w = smoothstep(0.5 + e/transition) where e
 * is how far the robot centre is inside the rectangle (negative outside),
 * so the attitude changes smoothly over `transition` metres centred on the
 * ramp's edge and is complete once the centre is transition/2 inside. The
 * ramp with the largest w counts. Without a direction the IMU reads
 * pitch = w*slope nose-up and roll 0; with a direction of ascent `dir`,
 * pitch = w*atan(tan(slope)*cos(dir - yaw)) and
 * roll = w*atan(tan(slope)*sin(dir - yaw)) (left side up positive). */
#include "tycho/sim.h"

#include "tycho/diffdrive.h"

#include <math.h>

bool tycho_sim_line_clear(const tycho_raymap *rays, double x0, double y0, double x1, double y1,
                          double len)
{
    double dx = x1 - x0, dy = y1 - y0, d = hypot(dx, dy);
    if (len < 0 || len > d) len = d;
    if (!(len > 0)) return true;
    return isinf(tycho_raymap_cast(rays, x0, y0, atan2(dy, dx), len));
}

double tycho_sim_source_visibility(const tycho_raymap *rays, double res, double x, double y,
                                   const tycho_heat_source *s)
{
    static const double across[5] = {-0.8, -0.4, 0.0, 0.4, 0.8};
    double dx = s->x - x, dy = s->y - y, d = hypot(dx, dy);
    if (d <= s->radius) return 1.0;
    double ux = -dy / d, uy = dx / d; /* perpendicular to the sight line */
    double margin = 1.5 * res;
    int clear = 0;
    for (int k = 0; k < 5; k++) {
        double off = s->radius * across[k];
        double px = s->x + ux * off, py = s->y + uy * off;
        double reach = hypot(px - x, py - y) - sqrt(s->radius * s->radius - off * off) - margin;
        if (reach <= 0 || tycho_sim_line_clear(rays, x, y, px, py, reach)) clear++;
    }
    return clear / 5.0;
}

void tycho_sim_lidar_cast(const tycho_raymap *rays, tycho_pose2 sensor, const tycho_sim_lidar *p,
                          tycho_rng *rng, float *ranges)
{
    for (int i = 0; i < p->beams; i++) {
        double a = sensor.yaw + p->angle_min + i * p->angle_increment;
        double r = tycho_raymap_cast(rays, sensor.x, sensor.y, a, p->range_max);
        /* draw for every beam so the noise of beam i does not depend on
         * which other beams hit */
        double n = rng ? p->noise * tycho_rng_normal(rng) : 0.0;
        if (isfinite(r)) r += n;
        if (!isfinite(r) || r > p->range_max) ranges[i] = (float)INFINITY;
        else if (r < p->range_min) ranges[i] = (float)-INFINITY;
        else ranges[i] = (float)r;
    }
}

static double overlap(double a0, double a1, double b0, double b1)
{
    double lo = fmax(a0, b0), hi = fmin(a1, b1);
    return hi > lo ? hi - lo : 0.0;
}

void tycho_sim_thermal_render(const tycho_raymap *rays, double res, tycho_pose2 robot,
                              const tycho_sim_camera *cam, const tycho_heat_source *src, int n,
                              double ambient, tycho_rng *rng, float *temps)
{
    double c = cos(robot.yaw), s = sin(robot.yaw);
    double lx = robot.x + c * cam->x - s * cam->y, ly = robot.y + s * cam->x + c * cam->y;
    double yaw = robot.yaw + cam->yaw;
    double pw = cam->fov_h / TYCHO_THERMAL_COLS, ph = cam->fov_v / TYCHO_THERMAL_ROWS;
    double acc[TYCHO_THERMAL_PIXELS];
    for (int i = 0; i < TYCHO_THERMAL_PIXELS; i++) acc[i] = ambient;

    for (int k = 0; k < n; k++) {
        const tycho_heat_source *h = &src[k];
        double dx = h->x - lx, dy = h->y - ly, d = hypot(dx, dy);
        double az0, az1, el0, el1;
        if (d <= h->radius) {
            az0 = el0 = -M_PI;
            az1 = el1 = M_PI;
        } else {
            double b = tycho_angle_wrap(atan2(dy, dx) - yaw), half = asin(h->radius / d);
            az0 = b - half;
            az1 = b + half;
            double near = d - h->radius;
            el0 = atan2(-cam->z, near);
            el1 = atan2(h->height - cam->z, near);
        }
        if (az1 < -0.5 * cam->fov_h || az0 > 0.5 * cam->fov_h) continue;
        if (el1 < -0.5 * cam->fov_v || el0 > 0.5 * cam->fov_v) continue;
        double vis = tycho_sim_source_visibility(rays, res, lx, ly, h);
        if (vis <= 0) continue;
        double gain = (h->temp - ambient) * vis;
        for (int col = 0; col < TYCHO_THERMAL_COLS; col++) {
            double left = 0.5 * cam->fov_h - col * pw;
            double fx = overlap(az0, az1, left - pw, left) / pw;
            if (fx <= 0) continue;
            for (int row = 0; row < TYCHO_THERMAL_ROWS; row++) {
                double top = 0.5 * cam->fov_v - row * ph;
                double fy = overlap(el0, el1, top - ph, top) / ph;
                acc[row * TYCHO_THERMAL_COLS + col] += gain * fx * fy;
            }
        }
    }
    for (int i = 0; i < TYCHO_THERMAL_PIXELS; i++) {
        double t = acc[i];
        if (rng) t += cam->noise * tycho_rng_normal(rng);
        t = fmin(80.0, fmax(-20.0, t));
        if (cam->quantum > 0) t = round(t / cam->quantum) * cam->quantum;
        temps[i] = (float)t;
    }
}

static double smoothstep01(double u)
{
    u = fmin(1.0, fmax(0.0, u));
    return u * u * (3.0 - 2.0 * u);
}

void tycho_sim_ramp_attitude(const tycho_ramp *ramps, int n, double transition, tycho_pose2 pose,
                             double *pitch, double *roll)
{
    *pitch = *roll = 0;
    int best = -1;
    double best_w = 0;
    for (int i = 0; i < n; i++) {
        const tycho_ramp *r = &ramps[i];
        double x0 = fmin(r->x0, r->x1), x1 = fmax(r->x0, r->x1);
        double y0 = fmin(r->y0, r->y1), y1 = fmax(r->y0, r->y1);
        double e = fmin(fmin(pose.x - x0, x1 - pose.x), fmin(pose.y - y0, y1 - pose.y));
        double w = transition > 0 ? smoothstep01(0.5 + e / transition) : (e >= 0 ? 1.0 : 0.0);
        if (w > best_w) {
            best_w = w;
            best = i;
        }
    }
    if (best < 0) return;
    const tycho_ramp *r = &ramps[best];
    if (isnan(r->dir)) {
        *pitch = best_w * r->pitch;
        return;
    }
    double g = tan(r->pitch), rel = r->dir - pose.yaw;
    *pitch = best_w * atan(g * cos(rel));
    *roll = best_w * atan(g * sin(rel));
}
