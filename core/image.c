/* 8-bit images: allocation, whole-file reading and format dispatch by magic
 * bytes. The decoders live in image_pgm.c and image_png.c. */
#include "image_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

tycho_status tycho_image_init(tycho_image *img, int width, int height, int channels, tycho_err *err)
{
    memset(img, 0, sizeof *img);
    if (width <= 0 || height <= 0 || width > TYCHO_IMAGE_MAX_SIDE || height > TYCHO_IMAGE_MAX_SIDE)
        return tycho_fail(err, TYCHO_ERANGE, "image size %dx%d outside 1..%d per side", width,
                          height, TYCHO_IMAGE_MAX_SIDE);
    if ((uint64_t)width * (uint64_t)height > TYCHO_IMAGE_MAX_PIXELS)
        return tycho_fail(err, TYCHO_ERANGE, "image %dx%d exceeds %u pixels", width, height,
                          TYCHO_IMAGE_MAX_PIXELS);
    if (channels < 1 || channels > 4)
        return tycho_fail(err, TYCHO_EINVAL, "image channels must be 1..4 (got %d)", channels);
    img->pixels = calloc((size_t)width * height, (size_t)channels);
    if (!img->pixels)
        return tycho_fail(err, TYCHO_ENOMEM, "out of memory for a %dx%dx%d image", width, height,
                          channels);
    img->width = width;
    img->height = height;
    img->channels = channels;
    return TYCHO_OK;
}

void tycho_image_free(tycho_image *img)
{
    if (!img) return;
    free(img->pixels);
    memset(img, 0, sizeof *img);
}

tycho_status tycho_read_file(const char *path, uint8_t **data, size_t *size, tycho_err *err)
{
    *data = NULL;
    *size = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) return tycho_fail(err, TYCHO_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(fp);
        return tycho_fail(err, TYCHO_EIO, "%s: not a regular file", path);
    }
    if ((uint64_t)st.st_size > TYCHO_MAX_FILE_BYTES) {
        fclose(fp);
        return tycho_fail(err, TYCHO_ERANGE, "%s: file too large (%lld bytes)", path,
                          (long long)st.st_size);
    }
    size_t n = (size_t)st.st_size;
    uint8_t *buf = malloc(n + 1);
    if (!buf) {
        fclose(fp);
        return tycho_fail(err, TYCHO_ENOMEM, "%s: out of memory reading %zu bytes", path, n);
    }
    size_t got = n ? fread(buf, 1, n, fp) : 0;
    int bad = ferror(fp);
    fclose(fp);
    if (bad || got != n) {
        free(buf);
        return tycho_fail(err, TYCHO_EIO, "%s: read error", path);
    }
    buf[n] = '\0';
    *data = buf;
    *size = n;
    return TYCHO_OK;
}

static const uint8_t png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

tycho_status tycho_image_load_mem(const uint8_t *data, size_t size, const char *name,
                                  tycho_image *out, tycho_err *err)
{
    memset(out, 0, sizeof *out);
    if (!name) name = "<memory>";
    if (size >= 2 && data[0] == 'P' && (data[1] == '2' || data[1] == '5'))
        return tycho_pgm_load_mem(data, size, name, out, err);
    if (size >= 4 && memcmp(data, png_magic, 4) == 0)
        return tycho_png_load_mem(data, size, name, out, err);
    return tycho_fail(err, TYCHO_EPARSE,
                      "%s: unknown image format (expected PGM P2/P5 or PNG magic bytes)", name);
}

tycho_status tycho_image_load(const char *path, tycho_image *out, tycho_err *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *data;
    size_t size;
    tycho_status st = tycho_read_file(path, &data, &size, err);
    if (st != TYCHO_OK) return st;
    st = tycho_image_load_mem(data, size, path, out, err);
    free(data);
    return st;
}
