/* Pictures: the grid drawn into an RGB image, overlays placed through the
 * grid's transform (see render.h for the layout and colours). */
#include "render_internal.h"

#include <math.h>
#include <stdlib.h>

tycho_rgb tycho_render_cost_color(uint8_t cost)
{
    switch (cost) {
    case TYCHO_COST_FREE:
        return (tycho_rgb){255, 255, 255};
    case TYCHO_COST_UNKNOWN:
        return (tycho_rgb){128, 128, 128};
    case TYCHO_COST_LETHAL:
        return (tycho_rgb){0, 0, 0};
    case TYCHO_COST_INSCRIBED:
        return (tycho_rgb){139, 0, 0};
    default:
        break;
    }
    /* inflated 1..252: light blue to purple, linear in the cost */
    double t = (cost - 1) / 251.0;
    tycho_rgb c = {(uint8_t)lround(200 + t * (120 - 200)), (uint8_t)lround(225 + t * (40 - 225)),
                   (uint8_t)lround(255 + t * (160 - 255))};
    return c;
}

tycho_picture *tycho_picture_alloc(int w, int h, double resolution, tycho_pose2 origin, int scale,
                                   tycho_err *err)
{
    if (scale < 1 || scale > TYCHO_PICTURE_MAX_SCALE) {
        tycho_fail(err, TYCHO_EINVAL, "scale must be 1..%d pixels per cell (got %d)",
                   TYCHO_PICTURE_MAX_SCALE, scale);
        return NULL;
    }
    if ((int64_t)w * scale > TYCHO_IMAGE_MAX_SIDE || (int64_t)h * scale > TYCHO_IMAGE_MAX_SIDE ||
        (uint64_t)w * h * scale * scale > TYCHO_IMAGE_MAX_PIXELS) {
        tycho_fail(err, TYCHO_ERANGE, "a %dx%d grid at scale %d exceeds the image limits", w, h,
                   scale);
        return NULL;
    }
    tycho_picture *p = calloc(1, sizeof *p);
    if (!p) {
        tycho_fail(err, TYCHO_ENOMEM, "out of memory for a picture");
        return NULL;
    }
    if (tycho_image_init(&p->img, w * scale, h * scale, 3, err) != TYCHO_OK) {
        free(p);
        return NULL;
    }
    p->scale = scale;
    p->grid_w = w;
    p->grid_h = h;
    p->resolution = resolution;
    p->origin = origin;
    p->cos_yaw = cos(p->origin.yaw);
    p->sin_yaw = sin(p->origin.yaw);
    return p;
}

tycho_picture *tycho_picture_new(const tycho_grid *g, int scale, tycho_err *err)
{
    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    tycho_picture *p =
        tycho_picture_alloc(w, h, tycho_grid_resolution(g), tycho_grid_origin(g), scale, err);
    if (!p) return NULL;

    tycho_rgb lut[256];
    for (int c = 0; c < 256; c++) lut[c] = tycho_render_cost_color((uint8_t)c);
    const uint8_t *cost = tycho_grid_cells_const(g);
    size_t stride = (size_t)w * scale * 3;
    for (int cy = 0; cy < h; cy++) {
        /* grid row cy is image block row h-1-cy: the top of the image is the top of the map */
        uint8_t *row = p->img.pixels + (size_t)(h - 1 - cy) * scale * stride;
        const uint8_t *src = cost + (size_t)cy * w;
        uint8_t *px = row;
        for (int cx = 0; cx < w; cx++) {
            tycho_rgb c = lut[src[cx]];
            for (int k = 0; k < scale; k++, px += 3) px[0] = c.r, px[1] = c.g, px[2] = c.b;
        }
        for (int k = 1; k < scale; k++)
            for (size_t b = 0; b < stride; b++) row[k * stride + b] = row[b];
    }
    return p;
}

void tycho_picture_free(tycho_picture *p)
{
    if (!p) return;
    tycho_image_free(&p->img);
    free(p);
}

const tycho_image *tycho_picture_image(const tycho_picture *p) { return &p->img; }

int tycho_picture_scale(const tycho_picture *p) { return p->scale; }

void tycho_picture_world_to_pixel(const tycho_picture *p, double x, double y, double *px,
                                  double *py)
{
    double dx = x - p->origin.x, dy = y - p->origin.y;
    double mx = (p->cos_yaw * dx + p->sin_yaw * dy) / p->resolution;
    double my = (-p->sin_yaw * dx + p->cos_yaw * dy) / p->resolution;
    *px = mx * p->scale;
    *py = (p->grid_h - my) * p->scale;
}

bool tycho_picture_pixel(const tycho_picture *p, int px, int py, tycho_rgb *out)
{
    if (!tycho_grid_in_bounds_wh(p->img.width, p->img.height, px, py)) return false;
    const uint8_t *q = p->img.pixels + ((size_t)py * p->img.width + px) * 3;
    out->r = q[0], out->g = q[1], out->b = q[2];
    return true;
}

void tycho_picture_path(tycho_picture *p, const double *xy, size_t n, tycho_rgb c, double width)
{
    double hw = isfinite(width) && width > 1 ? width / 2 : 0.5;
    for (size_t i = 0; i < n; i++) {
        double x1, y1;
        tycho_picture_world_to_pixel(p, xy[2 * i], xy[2 * i + 1], &x1, &y1);
        if (i == 0) {
            if (n == 1) tycho_draw_disc(&p->img, x1, y1, hw, c); /* a one-point path is a dot */
            continue;
        }
        double x0, y0;
        tycho_picture_world_to_pixel(p, xy[2 * i - 2], xy[2 * i - 1], &x0, &y0);
        tycho_draw_line(&p->img, x0, y0, x1, y1, width, c);
    }
}

void tycho_picture_marker(tycho_picture *p, double x, double y, tycho_marker m, double radius,
                          double width, tycho_rgb c)
{
    double px, py;
    tycho_picture_world_to_pixel(p, x, y, &px, &py);
    switch (m) {
    case TYCHO_MARKER_CIRCLE:
        tycho_draw_ring(&p->img, px, py, radius, width, c);
        break;
    case TYCHO_MARKER_CROSS: {
        double a = (isfinite(radius) && radius > 0 ? radius : 0) / sqrt(2.0);
        tycho_draw_line(&p->img, px - a, py - a, px + a, py + a, width, c);
        tycho_draw_line(&p->img, px - a, py + a, px + a, py - a, width, c);
        break;
    }
    case TYCHO_MARKER_DOT:
    default:
        tycho_draw_disc(&p->img, px, py, radius, c);
        break;
    }
}

void tycho_picture_pose(tycho_picture *p, double x, double y, double yaw, double length,
                        double width, tycho_rgb c)
{
    if (!isfinite(yaw) || !isfinite(length)) return;
    double px, py;
    tycho_picture_world_to_pixel(p, x, y, &px, &py);
    /* heading in the picture: relative to the grid frame, y flipped */
    double a = yaw - p->origin.yaw, ux = cos(a), uy = -sin(a);
    double tx = px + length * ux, ty = py + length * uy, head = length / 3;
    tycho_draw_line(&p->img, px, py, tx, ty, width, c);
    for (int side = -1; side <= 1; side += 2) {
        double b = a + M_PI + side * M_PI / 6;
        tycho_draw_line(&p->img, tx, ty, tx + head * cos(b), ty - head * sin(b), width, c);
    }
    tycho_draw_disc(&p->img, px, py, (isfinite(width) && width > 1 ? width : 1) + 1, c);
}

tycho_status tycho_picture_save_png(const tycho_picture *p, const char *path, tycho_err *err)
{
    return tycho_image_save_png(path, &p->img, err);
}
