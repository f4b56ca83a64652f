/* PNG reading and writing through libpng.
 *
 * Reading: any colour type and bit depth. Palettes are expanded to RGB, gray
 * below 8 bits to 8 bits, a tRNS chunk to an alpha channel, and 16-bit
 * samples scaled to 8 bits with rounding; gray+alpha and RGBA keep their
 * alpha (map loading gives it meaning). Gamma and colour-space chunks are
 * ignored: map pixels are numbers, not colours.
 *
 * Hostile files: libpng's user limits cap each side at 32768 pixels, we cap
 * width*height at TYCHO_IMAGE_MAX_PIXELS before allocating, and ancillary
 * chunk memory is capped too (no decompression bombs through zTXt/iCCP).
 * libpng reports errors through a callback that must not return; ours
 * records the message and longjmps back, and we free what we had. */
#include "image_internal.h"
#include "tycho/atomic_file.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Everything the error path must free lives here rather than in locals,
 * since locals changed after setjmp are indeterminate after longjmp. */
typedef struct {
    const uint8_t *d;
    size_t n, pos;
    char msg[160];
    jmp_buf jb;
    png_bytep *rows;
} png_ctx;

static void on_error(png_structp png, png_const_charp msg)
{
    png_ctx *c = png_get_error_ptr(png);
    snprintf(c->msg, sizeof c->msg, "%s", msg ? msg : "unknown libpng error");
    longjmp(c->jb, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg; /* core never prints; warnings do not change the pixels we keep */
}

static void read_mem(png_structp png, png_bytep out, size_t len)
{
    png_ctx *c = png_get_io_ptr(png);
    if (len > c->n - c->pos) {
        c->pos = c->n;
        png_error(png, "unexpected end of file");
    }
    memcpy(out, c->d + c->pos, len);
    c->pos += len;
}

tycho_status tycho_png_load_mem(const uint8_t *data, size_t size, const char *name,
                                tycho_image *out, tycho_err *err)
{
    memset(out, 0, sizeof *out);
    if (size < 8 || png_sig_cmp(data, 0, 8) != 0)
        return tycho_fail(err, TYCHO_EPARSE, "%s: bad PNG signature", name);
    /* Refuse huge declared sizes from the IHDR bytes alone, before libpng
     * reads on (libpng's own user limits cover each side, not the area). */
    if (size >= 24 && memcmp(data + 12, "IHDR", 4) == 0) {
        uint32_t w = (uint32_t)data[16] << 24 | (uint32_t)data[17] << 16 | (uint32_t)data[18] << 8 |
                     data[19];
        uint32_t h = (uint32_t)data[20] << 24 | (uint32_t)data[21] << 16 | (uint32_t)data[22] << 8 |
                     data[23];
        if (w <= TYCHO_IMAGE_MAX_SIDE && h <= TYCHO_IMAGE_MAX_SIDE &&
            (uint64_t)w * h > TYCHO_IMAGE_MAX_PIXELS)
            return tycho_fail(err, TYCHO_ERANGE, "%s: PNG %ux%u exceeds %u pixels", name,
                              (unsigned)w, (unsigned)h, TYCHO_IMAGE_MAX_PIXELS);
    }
    png_ctx c;
    memset(&c, 0, sizeof c);
    c.d = data;
    c.n = size;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &c, on_error, on_warning);
    if (!png) return tycho_fail(err, TYCHO_ENOMEM, "%s: cannot create a PNG reader", name);
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return tycho_fail(err, TYCHO_ENOMEM, "%s: cannot create a PNG reader", name);
    }
    if (setjmp(c.jb)) {
        png_destroy_read_struct(&png, &info, NULL);
        free(c.rows);
        tycho_image_free(out);
        return tycho_fail(err, TYCHO_EPARSE, "%s: PNG error at byte %zu: %s", name, c.pos, c.msg);
    }
    png_set_user_limits(png, TYCHO_IMAGE_MAX_SIDE, TYCHO_IMAGE_MAX_SIDE);
    png_set_chunk_malloc_max(png, 8u << 20);
    png_set_chunk_cache_max(png, 1000);
    png_set_read_fn(png, &c, read_mem);
    png_read_info(png, info);

    png_uint_32 w, h;
    int depth, color, interlace;
    png_get_IHDR(png, info, &w, &h, &depth, &color, &interlace, NULL, NULL);
    if ((uint64_t)w * h > TYCHO_IMAGE_MAX_PIXELS) {
        png_destroy_read_struct(&png, &info, NULL);
        return tycho_fail(err, TYCHO_ERANGE, "%s: PNG %ux%u exceeds %u pixels", name, (unsigned)w,
                          (unsigned)h, TYCHO_IMAGE_MAX_PIXELS);
    }
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (depth == 16) png_set_scale_16(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);

    int channels = png_get_channels(png, info);
    size_t rowbytes = png_get_rowbytes(png, info);
    if (channels < 1 || channels > 4 || rowbytes != (size_t)w * channels)
        png_error(png, "unsupported pixel layout after expansion");
    tycho_err ierr;
    if (tycho_image_init(out, (int)w, (int)h, channels, &ierr) != TYCHO_OK) {
        png_destroy_read_struct(&png, &info, NULL);
        return tycho_fail(err, ierr.code, "%s: %s", name, ierr.msg);
    }
    c.rows = malloc(sizeof(png_bytep) * h);
    if (!c.rows) png_error(png, "out of memory for row pointers");
    for (png_uint_32 y = 0; y < h; y++) c.rows[y] = out->pixels + (size_t)y * rowbytes;
    png_read_image(png, c.rows);
    /* The pixels are complete; chunks after the image data (text, IEND) are
     * not needed, so a file cut after its last IDAT still loads. */
    png_destroy_read_struct(&png, &info, NULL);
    free(c.rows);
    return TYCHO_OK;
}

tycho_status tycho_image_save_png(const char *path, const tycho_image *img, tycho_err *err)
{
    if (!img || !img->pixels || img->width <= 0 || img->height <= 0)
        return tycho_fail(err, TYCHO_EINVAL, "%s: empty image", path);
    static const int types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                 PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    if (img->channels < 1 || img->channels > 4)
        return tycho_fail(err, TYCHO_EINVAL, "%s: image channels must be 1..4 (got %d)", path,
                          img->channels);
    tycho_atomic_file af;
    tycho_status st = tycho_atomic_begin(&af, path, err);
    if (st != TYCHO_OK) return st;
    png_ctx c;
    memset(&c, 0, sizeof c);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &c, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, NULL);
        tycho_atomic_abort(&af);
        return tycho_fail(err, TYCHO_ENOMEM, "%s: cannot create a PNG writer", path);
    }
    if (setjmp(c.jb)) {
        png_destroy_write_struct(&png, &info);
        free(c.rows);
        tycho_atomic_abort(&af);
        return tycho_fail(err, TYCHO_EIO, "%s: PNG write error: %s", path, c.msg);
    }
    png_init_io(png, af.fp);
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, 8,
                 types[img->channels], PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    c.rows = malloc(sizeof(png_bytep) * (size_t)img->height);
    if (!c.rows) png_error(png, "out of memory for row pointers");
    size_t stride = (size_t)img->width * img->channels;
    for (int y = 0; y < img->height; y++) c.rows[y] = img->pixels + (size_t)y * stride;
    png_write_image(png, c.rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(c.rows);
    return tycho_atomic_commit(&af, err);
}
