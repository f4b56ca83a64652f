/* Pictures of rough ground: a height field shaded (see render.h). */
#include "render_internal.h"

#include "tycho/terrain.h"

#include <math.h>
#include <string.h>

static tycho_rgb ramp(double t)
{
    /* low ground green, middle tan, high ground pale */
    static const double stops[3][3] = {{70, 120, 60}, {170, 150, 90}, {240, 235, 225}};
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    int i = t < 0.5 ? 0 : 1;
    double u = (t - 0.5 * i) * 2;
    return (tycho_rgb){(uint8_t)lround(stops[i][0] + u * (stops[i + 1][0] - stops[i][0])),
                       (uint8_t)lround(stops[i][1] + u * (stops[i + 1][1] - stops[i][1])),
                       (uint8_t)lround(stops[i][2] + u * (stops[i + 1][2] - stops[i][2]))};
}

static tycho_rgb blend(tycho_rgb a, tycho_rgb b, double t)
{
    return (tycho_rgb){(uint8_t)lround(a.r + t * (b.r - a.r)),
                       (uint8_t)lround(a.g + t * (b.g - a.g)),
                       (uint8_t)lround(a.b + t * (b.b - a.b))};
}

static uint8_t clamp255(double v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : lround(v)); }

/* Colour of one cell: the height on a ramp over mean +- 2.5 sigma (so one
 * tall box does not flatten the rest), lit from the north-west (a hill
 * shade from the central-difference normal), then what the map knew. */
static tycho_rgb cell_color(const tycho_heightfield *f, const tycho_terrain *map, int cx, int cy,
                            double lo, double hi)
{
    int w = f->w, h = f->h;
    int x0 = cx > 0 ? cx - 1 : cx, x1 = cx < w - 1 ? cx + 1 : cx;
    int y0 = cy > 0 ? cy - 1 : cy, y1 = cy < h - 1 ? cy + 1 : cy;
    double z = f->z[(size_t)cy * w + cx];
    double dzdx =
        (x1 > x0) ? (f->z[(size_t)cy * w + x1] - f->z[(size_t)cy * w + x0]) / ((x1 - x0) * f->res)
                  : 0;
    double dzdy =
        (y1 > y0) ? (f->z[(size_t)y1 * w + cx] - f->z[(size_t)y0 * w + cx]) / ((y1 - y0) * f->res)
                  : 0;
    double nl =
        (dzdx - dzdy + 1) / sqrt(3 * (dzdx * dzdx + dzdy * dzdy + 1)); /* n . (-1, 1, 1)/sqrt3 */
    double light = 0.3 + 0.7 * fmax(0, nl) / (1 / sqrt(3.0));
    tycho_rgb c = ramp((z - lo) / (hi - lo));
    c = (tycho_rgb){clamp255(c.r * light), clamp255(c.g * light), clamp255(c.b * light)};
    if (!map) return c;
    double zmin, zmax;
    int count = 0;
    tycho_terrain_cell(map, cx, cy, &zmin, &zmax, &count);
    if (tycho_terrain_blocked(map, cx, cy))
        return blend(c, (tycho_rgb){220, 30, 30},
                     (count && !tycho_terrain_traversable(map, cx, cy)) ? 0.55 : 0.25);
    if (!count) return blend(c, (tycho_rgb){60, 60, 70}, 0.45);
    return c;
}

tycho_picture *tycho_picture_heights(const tycho_heightfield *f, const tycho_terrain *map,
                                     int scale, tycho_err *err)
{
    if (map && (tycho_terrain_width(map) != f->w || tycho_terrain_height(map) != f->h)) {
        tycho_fail(err, TYCHO_EINVAL,
                   "picture: the terrain map (%dx%d) and the height field (%dx%d) differ in size",
                   tycho_terrain_width(map), tycho_terrain_height(map), f->w, f->h);
        return NULL;
    }
    tycho_picture *p =
        tycho_picture_alloc(f->w, f->h, f->res, (tycho_pose2){f->ox, f->oy, 0}, scale, err);
    if (!p) return NULL;
    size_t n = (size_t)f->w * f->h;
    double sum = 0, sum2 = 0;
    for (size_t i = 0; i < n; i++) sum += f->z[i], sum2 += (double)f->z[i] * f->z[i];
    double mean = sum / n, sd = sqrt(fmax(0, sum2 / n - mean * mean));
    double lo = mean - 2.5 * sd, hi = mean + 2.5 * sd;
    if (hi - lo < 0.05) lo = mean - 0.025, hi = mean + 0.025; /* a flat floor: mid-ramp */
    size_t stride = (size_t)f->w * scale * 3;
    for (int cy = 0; cy < f->h; cy++) {
        uint8_t *px = p->img.pixels + (size_t)(f->h - 1 - cy) * scale * stride;
        for (int cx = 0; cx < f->w; cx++) {
            tycho_rgb c = cell_color(f, map, cx, cy, lo, hi);
            for (int k = 0; k < scale; k++, px += 3) px[0] = c.r, px[1] = c.g, px[2] = c.b;
        }
        for (int k = 1; k < scale; k++) memcpy(px - stride + k * stride, px - stride, stride);
    }
    return p;
}
