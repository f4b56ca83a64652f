/* Ground for the terrain simulator, drawn into a height field
 * (tycho/lidar3d.h): random road roughness and parametric obstacles.
 *
 * Roughness by sine-wave superposition from a displacement power spectral
 * density Gd(n) = Gd(n0) * (n / n0)^-W (n spatial frequency, cycles/m;
 * n0 = 0.1, W = 2 by default; ISO 8608 classes A..H have Gd(n0) =
 * 16e-6 * 4^k m^3, k = 0..7). [n_min, n_max] is split into m equal bands;
 * band i is a sine of amplitude sqrt(2 * P_i), P_i the spectrum's exact
 * integral over the band, so the band sum's variance is the integral of Gd
 * over [n_min, n_max]. Each row gets its own random phases (a longitudinal
 * profile along x) and each column its own (a lateral profile along y);
 * z = (row profile + column profile) / sqrt(2) keeps that variance.
 * Seeded (the same seed, the same ground). An optional Gaussian blur
 * (sigma in metres) smooths it, lowering the variance. */
#ifndef TYCHO_ROUGHNESS_H
#define TYCHO_ROUGHNESS_H

#include "tycho/lidar3d.h"

typedef struct {
    double gd_n0;        /* m^3, Gd at n0 (default: class C, 256e-6) */
    double n0;           /* 1/m, 0.1 */
    double w;            /* waviness, 2 */
    double n_min, n_max; /* 1/m; 0 = from the field (1 / its length, and the Nyquist frequency) */
    int bands;           /* m, 64 */
    double blur_sigma;   /* m, 0 = none */
    uint64_t seed;
} tycho_roughness_params;

void tycho_roughness_defaults(tycho_roughness_params *p);
/* ISO 8608 class 'A'..'H' -> Gd(n0); EINVAL otherwise. */
tycho_status tycho_roughness_class(char cls, double *gd_n0, tycho_err *err);
/* The variance the spectrum gives over [n_min, n_max] (m^2). */
double tycho_roughness_variance(const tycho_roughness_params *p);
/* Adds roughness to every cell (resolves n_min/n_max 0 from the field). */
tycho_status tycho_roughness_apply(tycho_heightfield *f, const tycho_roughness_params *p,
                                   tycho_err *err);

/* Parametric obstacles, added onto the ground (heights rise, pits sink): */
/* a flight of n steps going up along +x from x0 (each step_len long, step_h high), y0..y1 wide */
void tycho_ground_stairs(tycho_heightfield *f, double x0, double y0, double y1, int n,
                         double step_len, double step_h);
/* triangular prisms across x (ridges parallel to y), period and height, over a rectangle */
void tycho_ground_prisms(tycho_heightfield *f, double x0, double y0, double x1, double y1,
                         double period, double height);
/* a half-cylinder bump of radius r lying along y at x = cx, on a box base of base_h, y0..y1 */
void tycho_ground_bump(tycho_heightfield *f, double cx, double y0, double y1, double r,
                       double base_h);
/* a round mound (depth > 0) or pit (depth < 0): a cosine bell of radius r */
void tycho_ground_bell(tycho_heightfield *f, double cx, double cy, double r, double height);
/* count stones of up to `size` m across and `height` m high, scattered over a rectangle */
void tycho_ground_gravel(tycho_heightfield *f, double x0, double y0, double x1, double y1,
                         int count, double size, double height, uint64_t seed);

#endif
