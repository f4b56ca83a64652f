/* ROS map_server map files: image -> grid with Nav2's semantics, and saving
 * as map_saver does.
 *
 * --- Semantics (checked against nav2_map_server map_io.cpp and
 *     nav2_costmap_2d StaticLayer::interpretValue) ---------------------------
 *
 * YAML keys. Required, as in Nav2's loader: image, resolution, origin,
 *   negate, occupied_thresh, free_thresh. Optional: mode (trinary, scale or
 *   raw, case-insensitive; default trinary). Unknown keys are ignored, as in
 *   Nav2. Stricter than Nav2 (hostile input): duplicate keys, resolution <= 0,
 *   non-finite numbers, thresholds outside [0, 1] and free_thresh >=
 *   occupied_thresh are errors, each reported as "file:line: ...". `negate`
 *   is an integer (non-zero = true) or a YAML boolean. `origin` is exactly
 *   three numbers [x, y, yaw]: the pose of the outer corner of the image's
 *   lower-left pixel, yaw counter-clockwise in radians.
 *
 * Image path. A relative `image` is relative to the YAML file's folder; an
 *   absolute one is used as is. PGM (P2/P5) or PNG, chosen by magic bytes.
 *   Grid row 0 is the image's bottom row.
 *
 * Shade. shade = mean of the R, G, B channels / 255 (a gray pixel has R = G =
 *   B). Nav2 quirk kept: in TRINARY mode an image with an alpha channel
 *   averages alpha in as a fourth channel, so shade = (R+G+B+A)/(4*255) --
 *   alpha does not by itself make a pixel unknown in trinary mode (a fully
 *   transparent white pixel reads as unknown, a transparent black one as
 *   occupied; an opaque 205 gray RGBA pixel reads as free). In SCALE mode any
 *   alpha < 255 makes the cell unknown; in RAW mode alpha is ignored.
 *   occ = negate ? shade : 1 - shade.
 *
 * Thresholds (strict, as Nav2's code, not the >= / <= of older docs):
 *   occ > occupied_thresh -> occupied; occ < free_thresh -> free. A pixel
 *   whose occ equals a threshold exactly is neither; ties are decided on the
 *   exact value, not on floating-point noise (we compare with a 1e-9 margin).
 *   TRINARY: otherwise unknown.
 *   SCALE: otherwise occupancy = rint((occ - free_thresh) /
 *   (occupied_thresh - free_thresh) * 100), 0..100.
 *   RAW: occupancy = round(mean RGB) (0..255, negate and thresholds ignored,
 *   as Nav2); values above 100 are unknown.
 *
 * Occupancy -> cost, as Nav2's static layer with its defaults
 *   (track_unknown_space = true, lethal_cost_threshold = 100,
 *   unknown_cost_value = -1, trinary_costmap = false): unknown -> 255,
 *   100 -> 254 (lethal), 0 -> 0 (free), 1..99 -> (unsigned char)(v/100*254),
 *   truncated (50 -> 127, 99 -> 251). RAW mode goes through the same mapping,
 *   so a raw pixel is an OccupancyGrid value, not a cost.
 *
 * 16-bit images are reduced to 8 bits (rounded) before the shade is taken;
 *   Nav2 keeps 16-bit precision, so pixels within 1/510 of a threshold may
 *   differ.
 *
 * Saving (map_saver, trinary): cost 255 -> 205 (unknown), cost >= 165 ->
 *   0 (occupied), every other cost -> 254 (free). 165 is where Nav2's static
 *   layer puts occupancy 65 % (the occupied_thresh we write), so a map loaded
 *   in scale mode saves the way map_saver would save its occupancy; known
 *   cells in between (inflation) are saved as free rather than unknown,
 *   because they are known space -- inscribed (253) and high inflated costs
 *   are saved as obstacles, so save the un-inflated grid if you will inflate
 *   again. The YAML gets image (file name, relative), mode trinary,
 *   resolution, origin [x, y, yaw] (shortest text that reads back exactly),
 *   negate 0, occupied_thresh 0.65, free_thresh 0.196. 0.196 and not Nav2's
 *   0.25: with 0.25 the unknown gray 205 (occ 0.19608) reloads as FREE, in
 *   Nav2 too; 0.196 (ROS 1 map_saver's value) keeps it unknown. Image is
 *   PGM (P5) unless "png" is asked for; both files are written atomically
 *   (temp file + fsync + rename), image first. */
#include "tycho/mapio.h"
#include "image_internal.h"
#include "tycho/atomic_file.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TIE_EPS 1e-9

static uint8_t occupancy_to_cost(int v)
{
    if (v < 0) return TYCHO_COST_UNKNOWN;
    if (v >= 100) return TYCHO_COST_LETHAL;
    return (uint8_t)((double)v / 100.0 * TYCHO_COST_LETHAL);
}

/* Occupancy (-1 unknown, 0..100) of a pixel whose channel sum over `n`
 * channels is `sum` (alpha handled by the caller in scale mode). */
static int pixel_occupancy(const tycho_map_meta *m, int sum, int n)
{
    double den = 255.0 * n;
    if (m->mode == TYCHO_MAP_RAW) {
        double v = round((double)sum / n);
        return v <= 100 ? (int)v : -1;
    }
    double num = m->negate ? (double)sum : den - sum; /* occ = num / den */
    if (num - m->occupied_thresh * den > TIE_EPS * den) return 100;
    if (m->free_thresh * den - num > TIE_EPS * den) return 0;
    if (m->mode == TYCHO_MAP_TRINARY) return -1;
    double occ = num / den;
    double v = rint((occ - m->free_thresh) / (m->occupied_thresh - m->free_thresh) * 100.0);
    return v < 0 ? 0 : (v > 100 ? 100 : (int)v);
}

static tycho_status check_meta(const tycho_map_meta *m, tycho_err *err)
{
    if (!(m->resolution > 0) || !isfinite(m->resolution))
        return tycho_fail(err, TYCHO_EINVAL, "resolution must be > 0 (got %g)", m->resolution);
    /* absurd but finite values would overflow later conversions (cells, pixels) */
    if (m->resolution < TYCHO_MAP_MIN_RESOLUTION || m->resolution > TYCHO_MAP_MAX_RESOLUTION)
        return tycho_fail(err, TYCHO_ERANGE, "resolution %g m is out of range [%g, %g]",
                          m->resolution, TYCHO_MAP_MIN_RESOLUTION, TYCHO_MAP_MAX_RESOLUTION);
    for (int i = 0; i < 2; i++) {
        double v = i == 0 ? m->origin.x : m->origin.y;
        if (!isfinite(v) || fabs(v) > TYCHO_MAP_MAX_ORIGIN)
            return tycho_fail(err, TYCHO_ERANGE, "origin %s = %g m is out of range [-%g, %g]",
                              i == 0 ? "x" : "y", v, TYCHO_MAP_MAX_ORIGIN, TYCHO_MAP_MAX_ORIGIN);
    }
    if (!isfinite(m->origin.yaw) || fabs(m->origin.yaw) > 1e3)
        return tycho_fail(err, TYCHO_ERANGE, "origin yaw = %g rad is out of range [-1000, 1000]",
                          m->origin.yaw);
    if (!(m->free_thresh >= 0 && m->occupied_thresh <= 1 && m->free_thresh < m->occupied_thresh))
        return tycho_fail(err, TYCHO_EINVAL,
                          "thresholds must satisfy 0 <= free_thresh < occupied_thresh <= 1");
    if (m->mode != TYCHO_MAP_TRINARY && m->mode != TYCHO_MAP_SCALE && m->mode != TYCHO_MAP_RAW)
        return tycho_fail(err, TYCHO_EINVAL, "unknown map mode %d", (int)m->mode);
    return TYCHO_OK;
}

tycho_grid *tycho_map_from_image(const tycho_image *img, const tycho_map_meta *meta, tycho_err *err)
{
    tycho_map_meta defaults;
    if (!meta) {
        tycho_map_meta_defaults(&defaults);
        meta = &defaults;
    }
    if (!img || !img->pixels || img->channels < 1 || img->channels > 4) {
        tycho_fail(err, TYCHO_EINVAL, "map image is empty or has a bad channel count");
        return NULL;
    }
    if (check_meta(meta, err) != TYCHO_OK) return NULL;
    tycho_grid *g = tycho_grid_new(img->width, img->height, meta->resolution, meta->origin,
                                   TYCHO_COST_UNKNOWN, err);
    if (!g) return NULL;

    int ch = img->channels;
    bool has_alpha = ch == 2 || ch == 4;
    bool alpha_in_shade = has_alpha && meta->mode == TYCHO_MAP_TRINARY;
    bool alpha_unknown = has_alpha && meta->mode == TYCHO_MAP_SCALE;
    int n = alpha_in_shade ? 4 : 3;
    /* The cost depends only on the channel sum, so precompute it once. */
    uint8_t lut[4 * 255 + 1];
    for (int s = 0; s <= 255 * n; s++) lut[s] = occupancy_to_cost(pixel_occupancy(meta, s, n));

    uint8_t *cells = tycho_grid_cells(g);
    int w = img->width, h = img->height;
    for (int y = 0; y < h; y++) {
        const uint8_t *p = img->pixels + (size_t)y * w * ch;
        uint8_t *row = cells + (size_t)(h - 1 - y) * w; /* image top = grid top */
        for (int x = 0; x < w; x++, p += ch) {
            int sum;
            uint8_t a = has_alpha ? p[ch - 1] : 255;
            if (ch <= 2) sum = 3 * p[0];
            else sum = p[0] + p[1] + p[2];
            if (alpha_in_shade) sum += a;
            row[x] = (alpha_unknown && a != 255) ? TYCHO_COST_UNKNOWN : lut[sum];
        }
    }
    return g;
}

/* "x.yaml: image 'maze.pgm' not found (looked in /abs/dir)" */
static tycho_status image_missing(const char *yaml_path, const char *image, tycho_err *err)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", image);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? image + (slash - dir) + 1 : image;
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    char abs[PATH_MAX];
    const char *shown = realpath(dir, abs) ? abs : dir;
    return tycho_fail(err, TYCHO_EIO, "%s: image '%s' not found (looked in %s)", yaml_path, base,
                      shown);
}

tycho_grid *tycho_map_load(const char *yaml_path, tycho_map_meta *meta, tycho_err *err)
{
    tycho_map_meta m;
    if (tycho_map_parse_yaml(yaml_path, &m, err) != TYCHO_OK) return NULL;
    struct stat st;
    if (stat(m.image, &st) != 0) {
        /* "not found" only when it is not there: a symbolic link loop, a
         * folder we may not enter... say so */
        if (errno == ENOENT || errno == ENOTDIR) image_missing(yaml_path, m.image, err);
        else tycho_fail(err, TYCHO_EIO, "%s: image '%s': %s", yaml_path, m.image, strerror(errno));
        return NULL;
    }
    tycho_image img;
    if (tycho_image_load(m.image, &img, err) != TYCHO_OK) return NULL;
    tycho_grid *g = tycho_map_from_image(&img, &m, err);
    tycho_image_free(&img);
    if (g && meta) *meta = m;
    return g;
}

/* Shortest decimal text that reads back as exactly the same double. */
static void fmt_double(char *buf, size_t n, double v)
{
    if (v == 0) {
        snprintf(buf, n, "0.0"); /* also no "-0" in files */
        return;
    }
    if (fabs(v) >= 1e-4 && fabs(v) < 1e15) {
        /* plain decimals, as people write them: -20.0, 0.05 */
        for (int prec = 1; prec <= 20; prec++) {
            snprintf(buf, n, "%.*f", prec, v);
            if (strtod(buf, NULL) == v) return;
        }
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

/* The image file name as a YAML scalar: plain when safe, else double-quoted. */
static void fmt_name(char *buf, size_t n, const char *name)
{
    bool plain = *name != '\0';
    for (const char *p = name; *p && plain; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                *p == '.' || *p == '_' || *p == '-' || *p == '+';
    if (plain && name[0] != '-' && name[0] != '.') {
        snprintf(buf, n, "%s", name);
        return;
    }
    size_t o = 0;
    buf[o++] = '"';
    for (const char *p = name; *p && o + 4 < n; p++) {
        if (*p == '"' || *p == '\\') buf[o++] = '\\';
        buf[o++] = *p;
    }
    buf[o++] = '"';
    buf[o] = '\0';
}

tycho_status tycho_map_save(const tycho_grid *g, const char *yaml_path, const char *image_ext,
                            tycho_err *err)
{
    if (!g || !yaml_path || !*yaml_path)
        return tycho_fail(err, TYCHO_EINVAL, "map save needs a grid and a YAML path");
    bool png;
    if (!image_ext || !strcmp(image_ext, "pgm")) png = false;
    else if (!strcmp(image_ext, "png")) png = true;
    else
        return tycho_fail(err, TYCHO_EINVAL, "%s: image format must be 'pgm' or 'png' (got '%s')",
                          yaml_path, image_ext);
    size_t len = strlen(yaml_path);
    size_t stem = len;
    if (len > 5 && !strcmp(yaml_path + len - 5, ".yaml")) stem = len - 5;
    else if (len > 4 && !strcmp(yaml_path + len - 4, ".yml")) stem = len - 4;
    char image_path[4096];
    if (stem + 5 >= sizeof image_path)
        return tycho_fail(err, TYCHO_EINVAL, "%s: path too long", yaml_path);
    snprintf(image_path, sizeof image_path, "%.*s.%s", (int)stem, yaml_path, png ? "png" : "pgm");
    const char *slash = strrchr(image_path, '/');
    const char *image_name = slash ? slash + 1 : image_path;
    if (!*image_name || image_name[0] == '.')
        return tycho_fail(err, TYCHO_EINVAL, "%s: needs a file name, e.g. map.yaml", yaml_path);

    int w = tycho_grid_width(g), h = tycho_grid_height(g);
    tycho_image img;
    tycho_status st = tycho_image_init(&img, w, h, 1, err);
    if (st != TYCHO_OK) return st;
    uint8_t lut[256];
    for (int c = 0; c < 256; c++) lut[c] = c == TYCHO_COST_UNKNOWN ? 205 : (c >= 165 ? 0 : 254);
    const uint8_t *cells = tycho_grid_cells_const(g);
    for (int y = 0; y < h; y++) {
        const uint8_t *row = cells + (size_t)(h - 1 - y) * w;
        uint8_t *out = img.pixels + (size_t)y * w;
        for (int x = 0; x < w; x++) out[x] = lut[row[x]];
    }
    st = png ? tycho_image_save_png(image_path, &img, err)
             : tycho_image_save_pgm(image_path, &img, err);
    tycho_image_free(&img);
    if (st != TYCHO_OK) return st;

    tycho_pose2 o = tycho_grid_origin(g);
    char name[2 * 4096 + 3], res[32], ox[32], oy[32], oyaw[32], text[sizeof name + 300];
    fmt_name(name, sizeof name, image_name);
    fmt_double(res, sizeof res, tycho_grid_resolution(g));
    fmt_double(ox, sizeof ox, o.x);
    fmt_double(oy, sizeof oy, o.y);
    fmt_double(oyaw, sizeof oyaw, o.yaw);
    int n = snprintf(text, sizeof text,
                     "image: %s\nmode: trinary\nresolution: %s\norigin: [%s, %s, %s]\n"
                     "negate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n",
                     name, res, ox, oy, oyaw);
    if (n < 0 || (size_t)n >= sizeof text)
        return tycho_fail(err, TYCHO_EINVAL, "%s: image name too long", yaml_path);
    return tycho_atomic_write(yaml_path, text, (size_t)n, err);
}
