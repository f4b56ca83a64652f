/* Differential-drive kinematics (see diffdrive.h). */
#include "tycho/diffdrive.h"

#include <math.h>

void tycho_diffdrive_defaults(tycho_diffdrive_params *p)
{
    p->wheel_separation = 0.160;
    p->wheel_radius = 0.033;
    p->max_v = 0.22;
    p->max_w = 2.84;
}

tycho_status tycho_diffdrive_validate(const tycho_diffdrive_params *p, tycho_err *err)
{
    const struct {
        const char *name;
        double v;
    } f[] = {{"wheel_separation", p->wheel_separation},
             {"wheel_radius", p->wheel_radius},
             {"max_v", p->max_v},
             {"max_w", p->max_w}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!(isfinite(f[i].v) && f[i].v > 0))
            return tycho_fail(err, TYCHO_EINVAL, "diffdrive: %s must be > 0 (got %g)", f[i].name,
                              f[i].v);
    return TYCHO_OK;
}

double tycho_angle_wrap(double a)
{
    if (a > -M_PI && a <= M_PI) return a;
    a = remainder(a, 2.0 * M_PI); /* [-pi, pi] */
    return a <= -M_PI ? a + 2.0 * M_PI : a;
}

/* sin(h)/h, with its series near 0 where the quotient loses precision. */
static double sinc(double h)
{
    if (fabs(h) < 1e-4) return 1.0 - h * h / 6.0;
    return sin(h) / h;
}

tycho_pose2 tycho_unicycle_step(tycho_pose2 p, double v, double w, double dt)
{
    /* The arc's chord has length v*dt*sinc(w*dt/2) and points along the mean
     * heading yaw + w*dt/2: exact for any w and free of the v/w blow-up of
     * the textbook form when w is tiny. */
    double half = 0.5 * w * dt;
    double chord = v * dt * sinc(half);
    double heading = p.yaw + half;
    tycho_pose2 q = {p.x + chord * cos(heading), p.y + chord * sin(heading),
                     tycho_angle_wrap(p.yaw + w * dt)};
    return q;
}

void tycho_diffdrive_to_wheels(const tycho_diffdrive_params *p, double v, double w, double *wl,
                               double *wr)
{
    double half = 0.5 * p->wheel_separation;
    *wl = (v - w * half) / p->wheel_radius;
    *wr = (v + w * half) / p->wheel_radius;
}

void tycho_diffdrive_from_wheels(const tycho_diffdrive_params *p, double wl, double wr, double *v,
                                 double *w)
{
    *v = 0.5 * p->wheel_radius * (wl + wr);
    *w = p->wheel_radius * (wr - wl) / p->wheel_separation;
}

void tycho_diffdrive_limit(const tycho_diffdrive_params *p, double *v, double *w,
                           bool keep_curvature)
{
    if (!isfinite(*v)) *v = 0;
    if (!isfinite(*w)) *w = 0;
    if (keep_curvature) {
        double s = 1.0;
        if (fabs(*v) > p->max_v) s = p->max_v / fabs(*v);
        if (fabs(*w) * s > p->max_w) s = p->max_w / fabs(*w);
        *v *= s;
        *w *= s;
        /* guard against rounding just past the limit */
        *v = fmax(-p->max_v, fmin(p->max_v, *v));
        *w = fmax(-p->max_w, fmin(p->max_w, *w));
    } else {
        *v = fmax(-p->max_v, fmin(p->max_v, *v));
        *w = fmax(-p->max_w, fmin(p->max_w, *w));
    }
}
