/* Pixel-space drawing primitives for pictures: coverage by pixel centres
 * (no anti-aliasing: pictures are for looking at maps and for tests that
 * read pixels back, so crisp, predictable pixels matter more than smooth
 * edges). Everything is clipped in doubles before any conversion to int, so
 * huge or non-finite coordinates are harmless. */
#include "clip_internal.h"
#include "tycho/render.h"

#include <math.h>

static void put(tycho_image *img, int x, int y, tycho_rgb c)
{
    uint8_t *p = img->pixels + ((size_t)y * img->width + x) * (size_t)img->channels;
    switch (img->channels) {
    case 4:
        p[3] = 255; /* fall through */
    case 3:
        p[0] = c.r, p[1] = c.g, p[2] = c.b;
        break;
    case 2:
        p[1] = 255; /* fall through */
    default:
        p[0] = (uint8_t)((299 * c.r + 587 * c.g + 114 * c.b + 500) / 1000);
        break;
    }
}

/* Pixel index range [*i0, *i1] whose centres may lie in [lo, hi], within
 * 0..n-1; false when empty. */
static bool span(double lo, double hi, int n, int *i0, int *i1)
{
    if (!(hi >= 0.0) || !(lo <= (double)n) || n <= 0) return false;
    double a = floor(lo - 0.5), b = ceil(hi - 0.5);
    *i0 = a < 0 ? 0 : (int)a;
    *i1 = b > n - 1 ? n - 1 : (int)b;
    return *i0 <= *i1;
}

static bool usable(const tycho_image *img)
{
    return img && img->pixels && img->width > 0 && img->height > 0;
}

/* Squared distance from (px, py) to the segment a-b. */
static double seg_d2(double px, double py, double ax, double ay, double bx, double by)
{
    double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double ex = ax + t * dx - px, ey = ay + t * dy - py;
    return ex * ex + ey * ey;
}

static void capsule(tycho_image *img, double ax, double ay, double bx, double by, double r,
                    tycho_rgb c)
{
    int x0, x1, y0, y1;
    if (!span(fmin(ax, bx) - r, fmax(ax, bx) + r, img->width, &x0, &x1) ||
        !span(fmin(ay, by) - r, fmax(ay, by) + r, img->height, &y0, &y1))
        return;
    double r2 = r * r + 1e-9;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++)
            if (seg_d2(x + 0.5, y + 0.5, ax, ay, bx, by) <= r2) put(img, x, y, c);
}

void tycho_draw_line(tycho_image *img, double x0, double y0, double x1, double y1, double width,
                     tycho_rgb c)
{
    if (!usable(img) || !isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1)) return;
    double w = img->width, h = img->height;
    double r = isfinite(width) && width > 1.0 ? width / 2 : 0.5;
    if (r > w + h) r = w + h; /* wider than the image covers it anyway */
    if (!tycho_clip_segment(&x0, &y0, &x1, &y1, -r - 1, -r - 1, w + r + 1, h + r + 1)) return;
    /* Long segments are drawn in pieces so each bounding box stays small. */
    double len = hypot(x1 - x0, y1 - y0), piece = fmax(16.0, 2 * r);
    int n = (int)ceil(len / piece);
    if (n < 1) n = 1;
    for (int i = 0; i < n; i++) {
        double t0 = (double)i / n, t1 = (double)(i + 1) / n;
        capsule(img, x0 + t0 * (x1 - x0), y0 + t0 * (y1 - y0), x0 + t1 * (x1 - x0),
                y0 + t1 * (y1 - y0), r, c);
    }
}

void tycho_draw_disc(tycho_image *img, double cx, double cy, double r, tycho_rgb c)
{
    if (!usable(img) || !isfinite(cx) || !isfinite(cy)) return;
    if (!isfinite(r) || r < 0.5) r = 0.5;
    if (r > img->width + img->height) r = img->width + img->height;
    int x0, x1, y0, y1;
    if (span(cx - r, cx + r, img->width, &x0, &x1) && span(cy - r, cy + r, img->height, &y0, &y1)) {
        double r2 = r * r + 1e-9;
        for (int y = y0; y <= y1; y++)
            for (int x = x0; x <= x1; x++) {
                double dx = x + 0.5 - cx, dy = y + 0.5 - cy;
                if (dx * dx + dy * dy <= r2) put(img, x, y, c);
            }
    }
    if (cx >= 0 && cy >= 0 && cx < img->width && cy < img->height) put(img, (int)cx, (int)cy, c);
}

void tycho_draw_ring(tycho_image *img, double cx, double cy, double r, double width, tycho_rgb c)
{
    if (!usable(img) || !isfinite(cx) || !isfinite(cy) || !isfinite(r)) return;
    double hw = isfinite(width) && width > 1.0 ? width / 2 : 0.5;
    if (r < 0) r = 0;
    if (hw > img->width + img->height) hw = img->width + img->height;
    int x0, x1, y0, y1;
    if (!span(cx - r - hw, cx + r + hw, img->width, &x0, &x1) ||
        !span(cy - r - hw, cy + r + hw, img->height, &y0, &y1))
        return;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            double d = hypot(x + 0.5 - cx, y + 0.5 - cy);
            if (fabs(d - r) <= hw + 1e-9) put(img, x, y, c);
        }
}
