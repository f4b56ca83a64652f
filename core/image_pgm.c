/* PGM (netpbm graymap) reading, P2 (plain) and P5 (raw), and P5 writing.
 *
 * Follows the netpbm rules: the header is magic, width, height, maxval as
 * ASCII decimals separated by whitespace (space, TAB, CR, LF, VT, FF) with
 * '#' comments running to the end of the line; a single whitespace character
 * ends the header. maxval is 1..65535; P5 samples are one byte when maxval
 * < 256, else two bytes big-endian. Samples are scaled to 0..255 with
 * rounding (v * 255 + maxval / 2) / maxval, so 16-bit maps reduce like
 * libpng's png_set_scale_16. We also accept comments in a P2 raster, as
 * netpbm's own reader does. */
#include "image_internal.h"
#include "tycho/atomic_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *d;
    size_t n, pos;
    const char *name;
    tycho_err *err;
} reader;

static bool is_ws(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static void skip_ws_comments(reader *r)
{
    for (;;) {
        while (r->pos < r->n && is_ws(r->d[r->pos])) r->pos++;
        if (r->pos < r->n && r->d[r->pos] == '#') {
            while (r->pos < r->n && r->d[r->pos] != '\n' && r->d[r->pos] != '\r') r->pos++;
            continue;
        }
        return;
    }
}

/* One unsigned decimal of at most `max`, which must end at whitespace, a
 * comment or (when end_ok) the end of the data. `where` is "header" or
 * "data" for messages. */
static tycho_status read_uint(reader *r, const char *what, const char *where, unsigned max,
                              bool end_ok, unsigned *out)
{
    skip_ws_comments(r);
    if (r->pos >= r->n)
        return tycho_fail(r->err, TYCHO_EPARSE, "%s: truncated PGM %s at byte %zu (expected %s)",
                          r->name, where, r->pos, what);
    size_t start = r->pos;
    uint8_t c = r->d[r->pos];
    if (c < '0' || c > '9')
        return tycho_fail(r->err, TYCHO_EPARSE,
                          "%s: bad PGM %s at byte %zu: expected %s, got '%c' (0x%02x)", r->name,
                          where, start, what, (c >= 32 && c < 127) ? c : '?', c);
    uint64_t v = 0;
    while (r->pos < r->n && r->d[r->pos] >= '0' && r->d[r->pos] <= '9') {
        v = v * 10 + (uint64_t)(r->d[r->pos] - '0');
        if (v > max)
            return tycho_fail(r->err, TYCHO_EPARSE, "%s: PGM %s at byte %zu: %s exceeds %u",
                              r->name, where, start, what, max);
        r->pos++;
    }
    if (r->pos >= r->n) {
        if (!end_ok)
            return tycho_fail(r->err, TYCHO_EPARSE, "%s: truncated PGM %s at byte %zu (after %s)",
                              r->name, where, r->pos, what);
    } else if (!is_ws(r->d[r->pos]) && r->d[r->pos] != '#') {
        return tycho_fail(r->err, TYCHO_EPARSE,
                          "%s: bad PGM %s at byte %zu: unexpected character after %s", r->name,
                          where, r->pos, what);
    }
    *out = (unsigned)v;
    return TYCHO_OK;
}

static uint8_t scale8(unsigned v, unsigned maxval)
{
    if (maxval == 255) return (uint8_t)v;
    return (uint8_t)(((uint64_t)v * 255 + maxval / 2) / maxval);
}

/* tycho_image_init, with the file name in front of its message. */
static tycho_status alloc_named(tycho_image *out, unsigned w, unsigned h, const char *name,
                                tycho_err *err)
{
    tycho_err e;
    tycho_status st = tycho_image_init(out, (int)w, (int)h, 1, &e);
    if (st != TYCHO_OK) tycho_fail(err, st, "%s: %s", name, e.msg);
    return st;
}

tycho_status tycho_pgm_load_mem(const uint8_t *data, size_t size, const char *name,
                                tycho_image *out, tycho_err *err)
{
    memset(out, 0, sizeof *out);
    reader r = {data, size, 0, name, err};
    if (size < 2 || data[0] != 'P' || (data[1] != '2' && data[1] != '5'))
        return tycho_fail(err, TYCHO_EPARSE, "%s: not a PGM file (magic must be P2 or P5)", name);
    bool plain = data[1] == '2';
    r.pos = 2;
    if (r.pos < r.n && !is_ws(r.d[r.pos]) && r.d[r.pos] != '#')
        return tycho_fail(err, TYCHO_EPARSE,
                          "%s: bad PGM header at byte 2: expected whitespace "
                          "after the magic number",
                          name);
    unsigned w, h, maxval;
    tycho_status st;
    if ((st = read_uint(&r, "width", "header", TYCHO_IMAGE_MAX_SIDE, false, &w)) != TYCHO_OK ||
        (st = read_uint(&r, "height", "header", TYCHO_IMAGE_MAX_SIDE, false, &h)) != TYCHO_OK ||
        (st = read_uint(&r, "maxval", "header", 65535, plain, &maxval)) != TYCHO_OK)
        return st;
    if (w == 0 || h == 0)
        return tycho_fail(err, TYCHO_EPARSE, "%s: PGM size %ux%u must be positive", name, w, h);
    if (maxval == 0)
        return tycho_fail(err, TYCHO_EPARSE, "%s: PGM maxval must be 1..65535 (got 0)", name);
    if ((uint64_t)w * h > TYCHO_IMAGE_MAX_PIXELS)
        return tycho_fail(err, TYCHO_ERANGE, "%s: PGM %ux%u exceeds %u pixels", name, w, h,
                          TYCHO_IMAGE_MAX_PIXELS);
    size_t npix = (size_t)w * h;

    if (!plain) {
        /* A comment may sit between maxval and the single whitespace byte. */
        if (r.pos < r.n && r.d[r.pos] == '#')
            while (r.pos < r.n && r.d[r.pos] != '\n' && r.d[r.pos] != '\r') r.pos++;
        r.pos++; /* the one whitespace character that ends the header */
        size_t bps = maxval < 256 ? 1 : 2;
        size_t need = npix * bps;
        size_t have = r.pos <= r.n ? r.n - r.pos : 0;
        /* Checked before allocating: the file must hold the whole raster. */
        if (have < need)
            return tycho_fail(err, TYCHO_EPARSE,
                              "%s: truncated PGM data: %ux%u needs %zu bytes from byte %zu, "
                              "only %zu present (ends at byte %zu)",
                              name, w, h, need, r.pos, have, r.n);
        if ((st = alloc_named(out, w, h, name, err)) != TYCHO_OK) return st;
        const uint8_t *p = r.d + r.pos;
        if (maxval == 255) { /* the usual map: bytes are the pixels */
            memcpy(out->pixels, p, npix);
            return TYCHO_OK;
        }
        for (size_t i = 0; i < npix; i++) {
            unsigned v = bps == 1 ? p[i] : ((unsigned)p[2 * i] << 8 | p[2 * i + 1]);
            if (v > maxval) {
                tycho_image_free(out);
                return tycho_fail(err, TYCHO_EPARSE, "%s: PGM sample %u > maxval %u at byte %zu",
                                  name, v, maxval, r.pos + i * bps);
            }
            out->pixels[i] = scale8(v, maxval);
        }
        return TYCHO_OK;
    }

    /* P2: every sample takes at least one digit and one separator, so a
     * file too short for that is truncated; checked before allocating. */
    size_t have = r.n - r.pos;
    if (have < 2 * npix - 1)
        return tycho_fail(err, TYCHO_EPARSE,
                          "%s: truncated PGM data: %ux%u samples cannot fit in the %zu bytes "
                          "after byte %zu",
                          name, w, h, have, r.pos);
    if ((st = alloc_named(out, w, h, name, err)) != TYCHO_OK) return st;
    for (size_t i = 0; i < npix; i++) {
        unsigned v;
        if ((st = read_uint(&r, "a sample", "data", 65535, true, &v)) != TYCHO_OK) {
            tycho_image_free(out);
            return st;
        }
        if (v > maxval) {
            tycho_image_free(out);
            return tycho_fail(err, TYCHO_EPARSE, "%s: PGM sample %u > maxval %u before byte %zu",
                              name, v, maxval, r.pos);
        }
        out->pixels[i] = scale8(v, maxval);
    }
    return TYCHO_OK;
}

tycho_status tycho_image_save_pgm(const char *path, const tycho_image *img, tycho_err *err)
{
    if (!img || !img->pixels || img->width <= 0 || img->height <= 0)
        return tycho_fail(err, TYCHO_EINVAL, "%s: empty image", path);
    if (img->channels != 1)
        return tycho_fail(err, TYCHO_EINVAL,
                          "%s: PGM holds gray images only (image has %d channels; use PNG)", path,
                          img->channels);
    tycho_atomic_file af;
    tycho_status st = tycho_atomic_begin(&af, path, err);
    if (st != TYCHO_OK) return st;
    size_t n = (size_t)img->width * img->height;
    if (fprintf(af.fp, "P5\n%d %d\n255\n", img->width, img->height) < 0 ||
        fwrite(img->pixels, 1, n, af.fp) != n) {
        tycho_atomic_abort(&af);
        return tycho_fail(err, TYCHO_EIO, "%s: write failed", path);
    }
    return tycho_atomic_commit(&af, err);
}
