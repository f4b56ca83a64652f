/* 8-bit images (PGM and PNG), the raw material of map files and pictures.
 * Pixel rows are stored top row first, as in the files. */
#ifndef TYCHO_IMAGE_H
#define TYCHO_IMAGE_H

#include "tycho/common.h"

/* Limits for decoded images, so a hostile file cannot make us allocate
 * gigabytes: the grid's cell limit (2^28) and 32768 pixels per side. */
#define TYCHO_IMAGE_MAX_SIDE 32768
#define TYCHO_IMAGE_MAX_PIXELS (1u << 28)

typedef struct {
    int width, height;
    int channels;    /* 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    uint8_t *pixels; /* width*height*channels bytes, row 0 = top */
} tycho_image;

/* Allocates pixels (zeroed). */
tycho_status tycho_image_init(tycho_image *img, int width, int height, int channels,
                              tycho_err *err);
void tycho_image_free(tycho_image *img);

/* Loads a PGM (P2 or P5, maxval <= 255... or 16-bit scaled down) or a PNG
 * (any colour type, 16-bit reduced to 8, palette expanded), chosen by the
 * file's magic bytes. Errors name the file and the byte offset or reason. */
tycho_status tycho_image_load(const char *path, tycho_image *out, tycho_err *err);
/* Loads from memory; `name` is used in error messages (fuzz targets use this). */
tycho_status tycho_image_load_mem(const uint8_t *data, size_t size, const char *name,
                                  tycho_image *out, tycho_err *err);

/* Writers are atomic: temp file in the same folder, fsync, rename. */
tycho_status tycho_image_save_png(const char *path, const tycho_image *img, tycho_err *err);
tycho_status tycho_image_save_pgm(const char *path, const tycho_image *img, tycho_err *err);

#endif
