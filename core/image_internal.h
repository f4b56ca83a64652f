/* Private to the image and map file readers (core/image*.c, core/mapio*.c). */
#ifndef TYCHO_IMAGE_INTERNAL_H
#define TYCHO_IMAGE_INTERNAL_H

#include "tycho/image.h"

/* Upper bound on a map, image or YAML file read into memory at once. */
#define TYCHO_MAX_FILE_BYTES ((size_t)1 << 30)

/* Reads a whole file into a malloc'd buffer (NUL-terminated, so text parsers
 * may treat it as a string; *size excludes the NUL). */
tycho_status tycho_read_file(const char *path, uint8_t **data, size_t *size, tycho_err *err);

tycho_status tycho_pgm_load_mem(const uint8_t *data, size_t size, const char *name,
                                tycho_image *out, tycho_err *err);
tycho_status tycho_png_load_mem(const uint8_t *data, size_t size, const char *name,
                                tycho_image *out, tycho_err *err);

#endif
