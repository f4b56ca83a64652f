/* Exact squared Euclidean distance transform (Felzenszwalb–Huttenlocher,
 * integer form as in Meijster et al.): a vertical pass gives each cell the
 * distance g to the nearest site in its column, then each row takes the lower
 * envelope of the parabolas (x - i)^2 + g(i)^2.
 *
 * The bound max_dist is what makes it cheap for inflation: g is capped at
 * max_dist + 1 and columns whose g exceeds max_dist are not parabola sites at
 * all (they cannot bring any cell within max_dist), so rows far from
 * obstacles cost one scan and no divisions. */
#include "tycho/edt.h"

#include <stdlib.h>
#include <string.h>

struct tycho_edt {
    int width, height, max_dist;
    size_t cap_cells; /* capacity of g */
    int cap_row;      /* capacity of the row buffers */
    uint16_t *g;      /* vertical distance, capped at max_dist + 1 */
    int32_t *v;       /* envelope: site columns */
    int32_t *z;       /* envelope: first column where site v[k] is nearest */
    int32_t *row;     /* output row */
};

tycho_edt *tycho_edt_new(void) { return calloc(1, sizeof(tycho_edt)); }

void tycho_edt_free(tycho_edt *e)
{
    if (!e) return;
    free(e->g);
    free(e->v);
    free(e->z);
    free(e->row);
    free(e);
}

void tycho_edt_sites_range(uint8_t sites[256], int lo, int hi)
{
    for (int c = 0; c < 256; c++) sites[c] = (c >= lo && c <= hi) ? 1 : 0;
}

static tycho_status reserve(tycho_edt *e, int w, int h, tycho_err *err)
{
    size_t n = (size_t)w * (size_t)h;
    if (n > e->cap_cells) {
        uint16_t *g = realloc(e->g, n * sizeof *g);
        if (!g)
            return tycho_fail(err, TYCHO_ENOMEM, "out of memory for a %dx%d distance transform", w,
                              h);
        e->g = g;
        e->cap_cells = n;
    }
    if (w > e->cap_row) {
        int32_t *v = realloc(e->v, (size_t)w * sizeof *v);
        if (v) e->v = v;
        int32_t *z = realloc(e->z, (size_t)w * sizeof *z);
        if (z) e->z = z;
        int32_t *r = realloc(e->row, (size_t)w * sizeof *r);
        if (r) e->row = r;
        if (!v || !z || !r)
            return tycho_fail(err, TYCHO_ENOMEM, "out of memory for a %dx%d distance transform", w,
                              h);
        e->cap_row = w;
    }
    return TYCHO_OK;
}

tycho_status tycho_edt_prepare(tycho_edt *e, const uint8_t *cells, int w, int h,
                               const uint8_t sites[256], int max_dist, tycho_err *err)
{
    if (w <= 0 || h <= 0)
        return tycho_fail(err, TYCHO_EINVAL, "distance transform size must be positive (got %dx%d)",
                          w, h);
    if (max_dist <= 0 || max_dist > TYCHO_EDT_MAX_DIST) max_dist = TYCHO_EDT_MAX_DIST;
    tycho_status st = reserve(e, w, h, err);
    if (st != TYCHO_OK) return st;
    e->width = w;
    e->height = h;
    e->max_dist = max_dist;

    /* Down then up, one whole row at a time so the inner loops run over
     * contiguous memory (and vectorise). */
    const uint16_t cap = (uint16_t)(max_dist + 1);
    uint16_t *g = e->g;
    for (int x = 0; x < w; x++) g[x] = sites[cells[x]] ? 0 : cap;
    for (int y = 1; y < h; y++) {
        const uint8_t *c = cells + (size_t)y * w;
        uint16_t *gr = g + (size_t)y * w;
        const uint16_t *gp = gr - w;
        for (int x = 0; x < w; x++) {
            uint16_t up = (uint16_t)(gp[x] + 1);
            up = up > cap ? cap : up;
            gr[x] = sites[c[x]] ? 0 : up;
        }
    }
    for (int y = h - 2; y >= 0; y--) {
        uint16_t *gr = g + (size_t)y * w;
        const uint16_t *gn = gr + w;
        for (int x = 0; x < w; x++) {
            uint16_t down = (uint16_t)(gn[x] + 1);
            gr[x] = down < gr[x] ? down : gr[x];
        }
    }
    return TYCHO_OK;
}

/* floor(a / b) for b > 0 */
static inline int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

const int32_t *tycho_edt_row(tycho_edt *e, int y)
{
    const int w = e->width, R = e->max_dist;
    const uint16_t *g = e->g + (size_t)y * w;
    int32_t *v = e->v, *z = e->z;
    int k = -1;
    /* Lower envelope over the columns that can matter. Site q beats the
     * envelope's last site p for x >= start, where
     * start = floor(((g_q^2 + q^2) - (g_p^2 + p^2)) / (2 (q - p))) + 1. */
    for (int q = 0; q < w; q++) {
        int gq = g[q];
        if (gq > R) continue;
        int64_t fq = (int64_t)gq * gq + (int64_t)q * q;
        int64_t start = 0;
        while (k >= 0) {
            int p = v[k];
            int64_t fp = (int64_t)g[p] * g[p] + (int64_t)p * p;
            start = floor_div(fq - fp, 2 * (int64_t)(q - p)) + 1;
            if (start > z[k]) break;
            k--;
        }
        if (k < 0) {
            v[0] = q;
            z[0] = 0;
            k = 0;
        } else if (start < w) {
            k++;
            v[k] = q;
            z[k] = (int32_t)start;
        }
    }
    if (k < 0) return NULL;

    int32_t *row = e->row;
    const int64_t far2 = (int64_t)R * R;
    int j = 0;
    for (int x = 0; x < w; x++) {
        while (j < k && z[j + 1] <= x) j++;
        int64_t dx = x - v[j], gv = g[v[j]];
        int64_t d2 = dx * dx + gv * gv;
        row[x] = d2 > far2 ? TYCHO_EDT_FAR : (int32_t)d2;
    }
    return row;
}

tycho_status tycho_edt_compute(tycho_edt *e, const uint8_t *cells, int w, int h,
                               const uint8_t sites[256], int max_dist, int32_t *out, tycho_err *err)
{
    tycho_status st = tycho_edt_prepare(e, cells, w, h, sites, max_dist, err);
    if (st != TYCHO_OK) return st;
    for (int y = 0; y < h; y++) {
        const int32_t *r = tycho_edt_row(e, y);
        int32_t *o = out + (size_t)y * w;
        if (r) memcpy(o, r, (size_t)w * sizeof *o);
        else
            for (int x = 0; x < w; x++) o[x] = TYCHO_EDT_FAR;
    }
    return TYCHO_OK;
}
