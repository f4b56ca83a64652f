/* Pictures of grids: a grid drawn into an RGB image, with overlays (paths,
 * markers, poses) given in WORLD coordinates and placed through the grid's
 * transform.
 *
 * Layout: `scale` pixels per cell; the image's top row shows the grid's top
 * row (grid row 0 is the bottom, image row 0 the top). The picture is drawn
 * in the grid's own frame, so with a rotated origin the world axes appear
 * rotated. Continuous pixel coordinates: pixel (i, j) covers [i, i+1) x
 * [j, j+1), j counted from the top; a world point at continuous map
 * coordinates (mx, my) (cells) lands at (mx * scale, (height - my) * scale).
 *
 * Cell colours (tycho_render_cost_color): free 0 white (255,255,255),
 * unknown 255 mid grey (128,128,128), lethal 254 black, inscribed 253 dark
 * red (139,0,0), inflated 1..252 a ramp from light blue (200,225,255) at 1
 * to purple (120,40,160) at 252, linear in the cost.
 *
 * Drawing is clipped to the image: anything partly or wholly outside, or
 * non-finite, is drawn as far as it is visible and never fails. */
#ifndef TYCHO_RENDER_H
#define TYCHO_RENDER_H

#include "tycho/grid.h"
#include "tycho/image.h"
#include "tycho/lidar3d.h"
#include "tycho/terrain.h"

typedef struct {
    uint8_t r, g, b;
} tycho_rgb;

typedef enum {
    TYCHO_MARKER_DOT,    /* filled disc */
    TYCHO_MARKER_CIRCLE, /* ring */
    TYCHO_MARKER_CROSS   /* an X spanning the disc of the radius */
} tycho_marker;

#define TYCHO_PICTURE_MAX_SCALE 64

tycho_rgb tycho_render_cost_color(uint8_t cost);

typedef struct tycho_picture tycho_picture;

/* Draws the grid at `scale` (1..TYCHO_PICTURE_MAX_SCALE) pixels per cell. The
 * picture keeps a copy of the grid's size and transform (not the grid), so
 * the grid may change or be freed afterwards. Fails (TYCHO_ERANGE) when the
 * image would exceed the tycho_image limits. */
tycho_picture *tycho_picture_new(const tycho_grid *g, int scale, tycho_err *err);
void tycho_picture_free(tycho_picture *p);
/* The RGB image (3 channels, row 0 = top). */
const tycho_image *tycho_picture_image(const tycho_picture *p);
int tycho_picture_scale(const tycho_picture *p);
void tycho_picture_world_to_pixel(const tycho_picture *p, double x, double y, double *px,
                                  double *py);
/* False outside the image. */
bool tycho_picture_pixel(const tycho_picture *p, int px, int py, tycho_rgb *out);

/* Overlays. Widths and radii are in pixels; `xy` holds n world points as
 * x0, y0, x1, y1, ... */
void tycho_picture_path(tycho_picture *p, const double *xy, size_t n, tycho_rgb c, double width);
void tycho_picture_marker(tycho_picture *p, double x, double y, tycho_marker m, double radius,
                          double width, tycho_rgb c);
/* An arrow from (x, y) pointing along world heading yaw, `length` pixels
 * long, with a dot at its base. */
void tycho_picture_pose(tycho_picture *p, double x, double y, double yaw, double length,
                        double width, tycho_rgb c);

tycho_status tycho_picture_save_png(const tycho_picture *p, const char *path, tycho_err *err);

/* --- a picture people can read (core/render_annotate.c, text by cairo) ----
 * A panel is added below the map (and the image widened if the map is
 * narrower than the panel needs): the title, a scale bar of a round length
 * (1, 2 or 5 x 10^k m, at most a third of the map's width), the world's x
 * and y axes as they lie in the picture, and a legend of symbols with their
 * labels. The map's own pixels are not touched, and world_to_pixel is
 * unchanged (the panel lies below the map). */
typedef enum {
    TYCHO_LEGEND_DOT = TYCHO_MARKER_DOT,
    TYCHO_LEGEND_CIRCLE = TYCHO_MARKER_CIRCLE,
    TYCHO_LEGEND_CROSS = TYCHO_MARKER_CROSS,
    TYCHO_LEGEND_LINE,  /* a path */
    TYCHO_LEGEND_ARROW, /* a pose */
    TYCHO_LEGEND_CELL   /* a swatch of a cell colour */
} tycho_legend_symbol;

typedef struct {
    const char *label;
    tycho_legend_symbol symbol;
    tycho_rgb color;
} tycho_legend_item;

#define TYCHO_LEGEND_MAX 64

typedef struct {
    const char *title; /* NULL: none */
    const tycho_legend_item *items;
    int n_items; /* 0..TYCHO_LEGEND_MAX */
    bool scale_bar, axes;
} tycho_annotation;

tycho_status tycho_picture_annotate(tycho_picture *p, const tycho_annotation *a, tycho_err *err);
/* The scale bar's length (m) for a map `width_m` wide: the largest 1, 2 or
 * 5 x 10^k not above a third of it. */
double tycho_scale_bar_length(double width_m);

/* Rough ground (core/render_terrain.c): a height field shaded, one cell per
 * `scale` pixels in the field's frame: height on a green-tan-pale ramp over
 * mean +- 2.5 standard deviations, lit from the north-west. With a terrain
 * map of the same size, what it knew is laid over: known untraversable
 * cells red, the barrier round them light red, never-seen cells darkened. */
tycho_picture *tycho_picture_heights(const tycho_heightfield *f, const tycho_terrain *map,
                                     int scale, tycho_err *err);

/* --- pixel-space primitives (core/render_draw.c), clipped to the image ---- */

/* A segment of the given width with round caps: every pixel whose centre
 * lies within width/2 (at least 0.5) of the segment. */
void tycho_draw_line(tycho_image *img, double x0, double y0, double x1, double y1, double width,
                     tycho_rgb c);
/* Filled disc: pixel centres within r (at least 0.5), plus the pixel holding
 * the centre, so a dot is never invisible. */
void tycho_draw_disc(tycho_image *img, double cx, double cy, double r, tycho_rgb c);
/* Ring: pixel centres whose distance from the centre is within width/2 of r. */
void tycho_draw_ring(tycho_image *img, double cx, double cy, double r, double width, tycho_rgb c);

#endif
