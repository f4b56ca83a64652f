/* Road roughness and parametric obstacles on a height field: see
 * tycho/roughness.h. */
#include "tycho/roughness.h"
#include "tycho/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tycho_roughness_defaults(tycho_roughness_params *p)
{
    memset(p, 0, sizeof *p);
    p->gd_n0 = 256e-6; /* class C */
    p->n0 = 0.1;
    p->w = 2;
    p->bands = 64;
    p->seed = 1;
}

tycho_status tycho_roughness_class(char cls, double *gd_n0, tycho_err *err)
{
    if (cls < 'A' || cls > 'H')
        return tycho_fail(err, TYCHO_EINVAL, "roughness class must be A..H (got '%c')", cls);
    *gd_n0 = 16e-6 * pow(4, cls - 'A');
    return TYCHO_OK;
}

/* The spectrum's integral from a to b. */
static double band_power(const tycho_roughness_params *p, double a, double b)
{
    double k = p->gd_n0 * pow(p->n0, p->w);
    if (fabs(p->w - 1) < 1e-12) return k * log(b / a);
    return k * (pow(b, 1 - p->w) - pow(a, 1 - p->w)) / (1 - p->w);
}

double tycho_roughness_variance(const tycho_roughness_params *p)
{
    return band_power(p, p->n_min, p->n_max);
}

static void blur(tycho_heightfield *f, float *z, double sigma_cells)
{
    int r = (int)ceil(3 * sigma_cells);
    double *k = malloc(sizeof(double) * (size_t)(2 * r + 1));
    float *tmp = malloc(sizeof(float) * (size_t)f->w * (size_t)f->h);
    if (!k || !tmp) {
        free(k);
        free(tmp);
        return;
    }
    double sum = 0;
    for (int i = -r; i <= r; i++) sum += k[i + r] = exp(-0.5 * i * i / (sigma_cells * sigma_cells));
    for (int i = 0; i <= 2 * r; i++) k[i] /= sum;
    /* separable, clamped at the borders */
    for (int pass = 0; pass < 2; pass++) {
        const float *src = pass ? tmp : z;
        float *dst = pass ? z : tmp;
        for (int y = 0; y < f->h; y++)
            for (int x = 0; x < f->w; x++) {
                double a = 0;
                for (int i = -r; i <= r; i++) {
                    int xx = pass ? x : x + i, yy = pass ? y + i : y;
                    xx = xx < 0 ? 0 : xx >= f->w ? f->w - 1 : xx;
                    yy = yy < 0 ? 0 : yy >= f->h ? f->h - 1 : yy;
                    a += k[i + r] * src[(size_t)yy * f->w + xx];
                }
                dst[(size_t)y * f->w + x] = (float)a;
            }
    }
    free(k);
    free(tmp);
}

tycho_status tycho_roughness_apply(tycho_heightfield *f, const tycho_roughness_params *pp,
                                   tycho_err *err)
{
    tycho_roughness_params p = *pp;
    double len = fmax(f->w, f->h) * f->res;
    if (p.n_min <= 0) p.n_min = 1 / len;
    if (p.n_max <= 0) p.n_max = 0.5 / f->res;
    if (!(p.gd_n0 > 0 && p.n0 > 0 && p.w > 0 && p.n_min > 0 && p.n_max > p.n_min && p.bands >= 1 &&
          p.bands <= 4096 && p.blur_sigma >= 0))
        return tycho_fail(
            err, TYCHO_EINVAL,
            "roughness: Gd(n0), n0, W > 0, 0 < n_min < n_max, 1..4096 bands, blur >= 0");
    int m = p.bands;
    double dn = (p.n_max - p.n_min) / m;
    double *amp = malloc(sizeof(double) * (size_t)m), *nf = malloc(sizeof(double) * (size_t)m);
    float *z = calloc((size_t)f->w * (size_t)f->h, sizeof(float));
    if (!amp || !nf || !z) {
        free(amp);
        free(nf);
        free(z);
        return tycho_fail(err, TYCHO_ENOMEM, "roughness: out of memory");
    }
    for (int i = 0; i < m; i++) {
        double a = p.n_min + i * dn, b = a + dn;
        nf[i] = 0.5 * (a + b);
        amp[i] = sqrt(2 * band_power(&p, a, b));
    }
    tycho_rng rng;
    tycho_rng_seed(&rng, p.seed);
    const double s = 1 / sqrt(2.0);
    /* longitudinal: each row its own phases */
    for (int y = 0; y < f->h; y++)
        for (int i = 0; i < m; i++) {
            double ph = 2 * M_PI * tycho_rng_uniform(&rng), wk = 2 * M_PI * nf[i] * f->res;
            for (int x = 0; x < f->w; x++)
                z[(size_t)y * f->w + x] += (float)(s * amp[i] * sin(wk * x + ph));
        }
    /* lateral: each column its own */
    for (int x = 0; x < f->w; x++)
        for (int i = 0; i < m; i++) {
            double ph = 2 * M_PI * tycho_rng_uniform(&rng), wk = 2 * M_PI * nf[i] * f->res;
            for (int y = 0; y < f->h; y++)
                z[(size_t)y * f->w + x] += (float)(s * amp[i] * sin(wk * y + ph));
        }
    if (p.blur_sigma > 0) blur(f, z, p.blur_sigma / f->res);
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++)
            tycho_heightfield_set(f, x, y, f->z[(size_t)y * f->w + x] + z[(size_t)y * f->w + x]);
    free(amp);
    free(nf);
    free(z);
    return TYCHO_OK;
}

/* Cell centre of (cx, cy). */
static void centre(const tycho_heightfield *f, int cx, int cy, double *x, double *y)
{
    *x = f->ox + (cx + 0.5) * f->res;
    *y = f->oy + (cy + 0.5) * f->res;
}

/* Runs BODY for every cell whose centre is in the rectangle, with X, Y the
 * centre and z_ the cell height to change; keeps zmax. */
#define FOR_CELLS(f, x0, y0, x1, y1, X, Y, BODY)                                                   \
    for (int cy_ = 0; cy_ < (f)->h; cy_++)                                                         \
        for (int cx_ = 0; cx_ < (f)->w; cx_++) {                                                   \
            double X, Y;                                                                           \
            centre((f), cx_, cy_, &X, &Y);                                                         \
            if (X < (x0) || X > (x1) || Y < (y0) || Y > (y1)) continue;                            \
            float *z_ = &(f)->z[(size_t)cy_ * (f)->w + cx_];                                       \
            BODY;                                                                                  \
            if (*z_ > (f)->zmax) (f)->zmax = *z_;                                                  \
        }

void tycho_ground_stairs(tycho_heightfield *f, double x0, double y0, double y1, int n,
                         double step_len, double step_h)
{
    FOR_CELLS(f, x0, y0, x0 + n * step_len, y1, x, y, {
        (void)y;
        int k = (int)floor((x - x0) / step_len);
        if (k >= n) k = n - 1;
        *z_ += (float)((k + 1) * step_h);
    })
}

void tycho_ground_prisms(tycho_heightfield *f, double x0, double y0, double x1, double y1,
                         double period, double height)
{
    if (!(period > 0)) return;
    FOR_CELLS(f, x0, y0, x1, y1, x, y, {
        (void)y;
        double u = fmod(x - x0, period) / period; /* 0..1 across one prism */
        *z_ += (float)(height * (1 - fabs(2 * u - 1)));
    })
}

void tycho_ground_bump(tycho_heightfield *f, double cx, double y0, double y1, double r,
                       double base_h)
{
    FOR_CELLS(f, cx - r, y0, cx + r, y1, x, y, {
        (void)y;
        double d = x - cx;
        *z_ += (float)(base_h + sqrt(fmax(0, r * r - d * d)));
    })
}

void tycho_ground_bell(tycho_heightfield *f, double cx, double cy, double r, double height)
{
    FOR_CELLS(f, cx - r, cy - r, cx + r, cy + r, x, y, {
        double d = hypot(x - cx, y - cy);
        if (d < r) *z_ += (float)(height * 0.5 * (1 + cos(M_PI * d / r)));
    })
}

void tycho_ground_gravel(tycho_heightfield *f, double x0, double y0, double x1, double y1,
                         int count, double size, double height, uint64_t seed)
{
    tycho_rng rng;
    tycho_rng_seed(&rng, seed);
    for (int i = 0; i < count; i++) {
        double sx = x0 + (x1 - x0) * tycho_rng_uniform(&rng),
               sy = y0 + (y1 - y0) * tycho_rng_uniform(&rng);
        double r = 0.5 * size * (0.3 + 0.7 * tycho_rng_uniform(&rng)),
               hgt = height * (0.3 + 0.7 * tycho_rng_uniform(&rng));
        tycho_ground_bell(f, sx, sy, r, hgt);
    }
}
