/* Legend, scale bar, world axes and title under a picture (render.h).
 * Symbols, bars and arrows are drawn with the same pixel primitives as the
 * map's overlays (render_draw.c), so a legend's cross looks like the map's;
 * only the text goes through cairo (Debian libcairo2, its "toy" text API
 * and whatever sans-serif font fontconfig finds: DejaVu Sans on Debian). */
#include "render_internal.h"
#include "tycho/render.h"

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    PAD = 8,         /* px round the panel's content */
    ROW = 20,        /* px a legend row */
    FONT = 12,       /* px text */
    SYMBOL = 24,     /* px the symbol's box beside a label */
    COLUMN = 190,    /* px a legend column */
    MIN_WIDTH = 400, /* px: the panel needs this much, whatever the map */
};

static const tycho_rgb INK = {20, 20, 20};
static const tycho_rgb PAPER = {250, 250, 246};

double tycho_scale_bar_length(double width_m)
{
    if (!(width_m > 0) || !isfinite(width_m)) return 0;
    double limit = width_m / 3;
    double p = pow(10, floor(log10(limit)));
    double best = p;
    for (int k = 0; k < 3; k++) {
        double steps[3] = {1, 2, 5};
        if (steps[k] * p <= limit * (1 + 1e-9)) best = steps[k] * p;
    }
    return best;
}

static void fill_rect(tycho_image *img, int x0, int y0, int x1, int y1, tycho_rgb c)
{
    for (int y = y0 < 0 ? 0 : y0; y < y1 && y < img->height; y++)
        for (int x = x0 < 0 ? 0 : x0; x < x1 && x < img->width; x++) {
            uint8_t *px = img->pixels + ((size_t)y * img->width + x) * 3;
            px[0] = c.r, px[1] = c.g, px[2] = c.b;
        }
}

static void arrow(tycho_image *img, double x0, double y0, double dx, double dy, double len,
                  tycho_rgb c)
{
    double x1 = x0 + dx * len, y1 = y0 + dy * len;
    tycho_draw_line(img, x0, y0, x1, y1, 2, c);
    double hx = -dx * 6, hy = -dy * 6; /* the head: two strokes back from the tip */
    tycho_draw_line(img, x1, y1, x1 + hx * 0.87 - hy * 0.5, y1 + hy * 0.87 + hx * 0.5, 2, c);
    tycho_draw_line(img, x1, y1, x1 + hx * 0.87 + hy * 0.5, y1 + hy * 0.87 - hx * 0.5, 2, c);
}

static void symbol(tycho_image *img, const tycho_legend_item *it, double cx, double cy)
{
    tycho_rgb c = it->color;
    switch (it->symbol) {
    case TYCHO_LEGEND_DOT:
        tycho_draw_disc(img, cx, cy, 5, c);
        break;
    case TYCHO_LEGEND_CIRCLE:
        tycho_draw_ring(img, cx, cy, 6, 2, c);
        break;
    case TYCHO_LEGEND_CROSS:
        tycho_draw_line(img, cx - 5, cy - 5, cx + 5, cy + 5, 2, c);
        tycho_draw_line(img, cx - 5, cy + 5, cx + 5, cy - 5, 2, c);
        break;
    case TYCHO_LEGEND_LINE:
        tycho_draw_line(img, cx - 9, cy, cx + 9, cy, 2, c);
        break;
    case TYCHO_LEGEND_ARROW:
        tycho_draw_disc(img, cx - 8, cy, 2, c);
        arrow(img, cx - 8, cy, 1, 0, 16, c);
        break;
    case TYCHO_LEGEND_CELL:
        fill_rect(img, (int)cx - 7, (int)cy - 7, (int)cx + 7, (int)cy + 7, INK);
        fill_rect(img, (int)cx - 6, (int)cy - 6, (int)cx + 6, (int)cy + 6, c);
        break;
    }
}

typedef struct {
    double x, y;
    const char *text;
} label;

/* Writes the labels with cairo onto the image's pixels (RGB <-> cairo's
 * native-endian xRGB words). */
static tycho_status draw_text(tycho_image *img, const label *labels, int n, tycho_err *err)
{
    if (n <= 0) return TYCHO_OK;
    /* cairo draws into a surface of its own (4 bytes a pixel): only the
     * band of rows the labels lie in, not the whole picture (the Intel
     * map's at scale 2: 25 MB for a few words) */
    double lo = labels[0].y, hi = labels[0].y;
    for (int i = 1; i < n; i++) {
        if (labels[i].y < lo) lo = labels[i].y;
        if (labels[i].y > hi) hi = labels[i].y;
    }
    int y0 = (int)floor(lo - 1.5 * FONT), y1 = (int)ceil(hi + FONT);
    if (y0 < 0) y0 = 0;
    if (y1 > img->height) y1 = img->height;
    if (y1 <= y0) return TYCHO_OK;
    int bh = y1 - y0;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, img->width, bh);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return tycho_fail(err, TYCHO_ENOMEM, "picture: no cairo surface of %dx%d", img->width, bh);
    }
    cairo_surface_flush(s);
    unsigned char *data = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    for (int y = 0; y < bh; y++) {
        uint32_t *row = (uint32_t *)(data + (size_t)y * stride);
        const uint8_t *src = img->pixels + (size_t)(y0 + y) * img->width * 3;
        for (int x = 0; x < img->width; x++)
            row[x] = (uint32_t)src[3 * x] << 16 | (uint32_t)src[3 * x + 1] << 8 | src[3 * x + 2];
    }
    cairo_surface_mark_dirty(s);
    cairo_t *cr = cairo_create(s);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, FONT);
    cairo_set_source_rgb(cr, INK.r / 255.0, INK.g / 255.0, INK.b / 255.0);
    for (int i = 0; i < n; i++) {
        cairo_move_to(cr, labels[i].x, labels[i].y - y0);
        cairo_show_text(cr, labels[i].text);
    }
    cairo_status_t st = cairo_status(cr);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    for (int y = 0; y < bh; y++) {
        const uint32_t *row = (const uint32_t *)(data + (size_t)y * stride);
        uint8_t *dst = img->pixels + (size_t)(y0 + y) * img->width * 3;
        for (int x = 0; x < img->width; x++) {
            dst[3 * x] = (uint8_t)(row[x] >> 16);
            dst[3 * x + 1] = (uint8_t)(row[x] >> 8);
            dst[3 * x + 2] = (uint8_t)row[x];
        }
    }
    cairo_surface_destroy(s);
    if (st != CAIRO_STATUS_SUCCESS)
        return tycho_fail(err, TYCHO_EINVAL, "picture: text: %s", cairo_status_to_string(st));
    return TYCHO_OK;
}

/* Pixels the title's text takes at FONT (0 when cairo cannot say). */
static int text_width(const char *text)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(s);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, FONT);
    cairo_text_extents_t e = {0};
    cairo_text_extents(cr, text, &e);
    int w = cairo_status(cr) == CAIRO_STATUS_SUCCESS ? (int)ceil(e.x_advance) : 0;
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return w;
}

tycho_status tycho_picture_annotate(tycho_picture *p, const tycho_annotation *a, tycho_err *err)
{
    if (!p || !a) return tycho_fail(err, TYCHO_EINVAL, "picture:annotate: no picture");
    if (a->n_items < 0 || a->n_items > TYCHO_LEGEND_MAX || (a->n_items && !a->items))
        return tycho_fail(err, TYCHO_EINVAL, "picture:annotate: 0..%d legend items",
                          TYCHO_LEGEND_MAX);
    const tycho_image *old = &p->img;
    int width = old->width < MIN_WIDTH ? MIN_WIDTH : old->width;
    if (a->title) {
        int need = text_width(a->title) + 2 * PAD;
        if (need > width && need <= 4 * MIN_WIDTH) width = need;
    }
    int columns = (width - 2 * PAD) / COLUMN;
    if (columns < 1) columns = 1;
    int rows = (a->n_items + columns - 1) / columns;
    int top = old->height; /* the panel starts under the map */
    int title_h = a->title ? ROW + 4 : 0;
    int bar_h = (a->scale_bar || a->axes) ? 44 : 0;
    int height = top + PAD + title_h + rows * ROW + bar_h + PAD;
    tycho_image img;
    if (width == old->width && old->channels == 3) {
        /* the same width: the panel is rows added under the map, so the
         * buffer grows in place rather than beside a copy (a big map's
         * picture is tens of megabytes) */
        uint8_t *px = realloc(p->img.pixels, (size_t)width * height * 3);
        if (!px)
            return tycho_fail(err, TYCHO_ENOMEM, "picture: out of memory for %dx%d", width, height);
        img = (tycho_image){.width = width, .height = height, .channels = 3, .pixels = px};
        p->img = img; /* taller already: the picture stays whole whatever follows */
        fill_rect(&img, 0, top, width, height, PAPER);
    } else {
        if (tycho_image_init(&img, width, height, 3, err) != TYCHO_OK) return TYCHO_ENOMEM;
        fill_rect(&img, 0, 0, width, height, PAPER);
        for (int y = 0; y < old->height; y++)
            memcpy(img.pixels + (size_t)y * width * 3, old->pixels + (size_t)y * old->width * 3,
                   (size_t)old->width * 3);
    }
    fill_rect(&img, 0, top, width, top + 1, INK); /* the map's lower edge */

    label labels[TYCHO_LEGEND_MAX + 6];
    int nl = 0;
    char bar_text[32] = "", x_text[] = "x", y_text[] = "y";
    int y = top + PAD;
    if (a->title) {
        labels[nl++] = (label){PAD, y + FONT, a->title};
        y += title_h;
    }
    for (int i = 0; i < a->n_items; i++) {
        int col = i % columns, row = i / columns;
        double cx = PAD + col * COLUMN + SYMBOL / 2.0, cy = y + row * ROW + ROW / 2.0;
        symbol(&img, &a->items[i], cx, cy);
        labels[nl++] = (label){PAD + col * COLUMN + SYMBOL + 4, cy + FONT / 2.0 - 2,
                               a->items[i].label ? a->items[i].label : ""};
    }
    y += rows * ROW;
    double base = y + 26;
    if (a->scale_bar) {
        double map_w = p->grid_w * p->resolution;
        double len_m = tycho_scale_bar_length(map_w);
        double px = len_m / p->resolution * p->scale;
        if (px >= 4) {
            tycho_draw_line(&img, PAD, base, PAD + px, base, 3, INK);
            tycho_draw_line(&img, PAD, base - 6, PAD, base + 3, 2, INK);
            tycho_draw_line(&img, PAD + px, base - 6, PAD + px, base + 3, 2, INK);
            snprintf(bar_text, sizeof bar_text, "%g m", len_m);
            labels[nl++] = (label){PAD + px + 8, base + FONT / 2.0 - 2, bar_text};
        }
    }
    if (a->axes) {
        /* the world's unit axes in the picture: the grid is drawn in its own
         * frame (yaw), image rows grow downwards */
        double c = p->cos_yaw, s = p->sin_yaw;
        double ox = width - PAD - 40, oy = base;
        arrow(&img, ox, oy, c, s, 28, INK);
        arrow(&img, ox, oy, s, -c, 28, INK);
        labels[nl++] = (label){ox + c * 36 - 3, oy + s * 36 + 4, x_text};
        labels[nl++] = (label){ox + s * 36 - 3, oy - c * 36 + 4, y_text};
    }
    tycho_status st = draw_text(&img, labels, nl, err);
    if (p->img.pixels == img.pixels) {
        p->img = img;
        return st;
    }
    if (st != TYCHO_OK) {
        tycho_image_free(&img);
        return st;
    }
    tycho_image_free(&p->img);
    p->img = img;
    return TYCHO_OK;
}
