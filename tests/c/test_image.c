/* PGM and PNG reading/writing: formats, scaling, and every malformed input we
 * could think of (each must give an error naming the file and where, and
 * leave no half-built image). */
#include "check.h"
#include "tycho/atomic_file.h"
#include "tycho/image.h"

#include <dirent.h>
#include <png.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static char tmpdir[256];

static const char *tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", tmpdir, name);
    return buf;
}

static tycho_status load_str(const char *s, size_t n, tycho_image *img, tycho_err *err)
{
    return tycho_image_load_mem((const uint8_t *)s, n, "t.pgm", img, err);
}
#define LOAD(s, img, err) load_str((s), sizeof(s) - 1, (img), (err))

/* An error must carry a message naming the input and leave the image empty. */
static void check_fails(const char *s, size_t n, const char *want)
{
    tycho_image img;
    tycho_err err = {0};
    tycho_status st = load_str(s, n, &img, &err);
    CHECK_MSG(st != TYCHO_OK, "expected failure for %s", want);
    CHECK_MSG(img.pixels == NULL && img.width == 0, "half-built image for %s", want);
    CHECK_MSG(strstr(err.msg, "t.pgm") != NULL, "no file name in '%s'", err.msg);
    CHECK_MSG(strstr(err.msg, want) != NULL, "'%s' not in '%s'", want, err.msg);
}
#define FAILS(s, want) check_fails((s), sizeof(s) - 1, (want))

static void test_pgm_p5(void)
{
    tycho_image img;
    tycho_err err = {0};
    CHECK(LOAD("P5\n3 2\n255\n\x00\x7f\xff\x01\x02\x03", &img, &err) == TYCHO_OK);
    CHECK(img.width == 3 && img.height == 2 && img.channels == 1);
    CHECK(img.pixels[0] == 0 && img.pixels[1] == 127 && img.pixels[2] == 255);
    CHECK(img.pixels[3] == 1 && img.pixels[5] == 3); /* row 0 is the top row */
    tycho_image_free(&img);
    CHECK(img.pixels == NULL);

    /* comments anywhere in the header, any netpbm whitespace, comment
     * between maxval and the single whitespace byte */
    CHECK(LOAD("P5#c1\n 2\t# c2\n\r1\v\f255# c3\n\x0a\x0b", &img, &err) == TYCHO_OK);
    CHECK(img.width == 2 && img.height == 1);
    CHECK(img.pixels[0] == 0x0a && img.pixels[1] == 0x0b); /* raster byte may look like LF */
    tycho_image_free(&img);

    /* maxval 15 scales to 0..255 with rounding */
    CHECK(LOAD("P5 3 1 15\n\x00\x07\x0f", &img, &err) == TYCHO_OK);
    CHECK(img.pixels[0] == 0 && img.pixels[1] == 119 && img.pixels[2] == 255); /* 7*255/15 = 119 */
    tycho_image_free(&img);

    /* maxval 1 (bilevel as gray) */
    CHECK(LOAD("P5 2 1 1\n\x00\x01", &img, &err) == TYCHO_OK);
    CHECK(img.pixels[0] == 0 && img.pixels[1] == 255);
    tycho_image_free(&img);

    /* 16-bit big-endian, scaled to 8 bits */
    CHECK(LOAD("P5 4 1 65535\n\x00\x00\xff\xff\x80\x00\x01\x01", &img, &err) == TYCHO_OK);
    CHECK(img.pixels[0] == 0 && img.pixels[1] == 255);
    CHECK(img.pixels[2] == 128); /* 32768*255/65535 = 127.5 -> 128 */
    CHECK(img.pixels[3] == 1);   /* 257 -> 1 */
    tycho_image_free(&img);
    CHECK(LOAD("P5 1 1 1000\n\x01\xf4", &img, &err) == TYCHO_OK); /* 500/1000 */
    CHECK(img.pixels[0] == 128);
    tycho_image_free(&img);

    /* trailing bytes after the raster (e.g. a second image) are ignored */
    CHECK(LOAD("P5 1 1 255\n\x05garbage", &img, &err) == TYCHO_OK && img.pixels[0] == 5);
    tycho_image_free(&img);
}

static void test_pgm_p2(void)
{
    tycho_image img;
    tycho_err err = {0};
    CHECK(LOAD("P2\n# plain\n3 2\n255\n0 128 255\n 1\t2 # inline comment\n3", &img, &err) ==
          TYCHO_OK);
    CHECK(img.width == 3 && img.height == 2);
    CHECK(img.pixels[1] == 128 && img.pixels[2] == 255 && img.pixels[4] == 2 && img.pixels[5] == 3);
    tycho_image_free(&img);
    CHECK(LOAD("P2 2 1 65535 65535 32767", &img, &err) == TYCHO_OK);
    CHECK(img.pixels[0] == 255 && img.pixels[1] == 127);
    tycho_image_free(&img);
}

static void test_pgm_errors(void)
{
    FAILS("", "unknown image format");
    FAILS("P6\n1 1\n255\n\0\0\0", "unknown image format");
    FAILS("P5", "truncated PGM header at byte 2");
    FAILS("P5\n3", "truncated PGM header at byte 4");
    FAILS("P5\n3 2\n", "truncated PGM header at byte 7 (expected maxval)");
    FAILS("P5\n3 # comment to the end", "truncated PGM header");
    FAILS("P5x 3 2 255\n", "bad PGM header at byte 2");
    FAILS("P5\n3 x\n255\n", "bad PGM header at byte 5: expected height");
    FAILS("P5\n-3 2\n255\n", "expected width");
    FAILS("P5\n3 2\n0\n", "maxval must be 1..65535 (got 0)");
    FAILS("P5\n3 2\n65536\n", "maxval exceeds 65535");
    FAILS("P5\n0 2\n255\n", "must be positive");
    FAILS("P5\n3 2a\n255\n", "unexpected character after height");
    FAILS("P5\n40000 2\n255\n", "width exceeds 32768");
    /* 32768 x 32768 = 2^30 pixels > 2^28: refused before allocating */
    FAILS("P5\n32768 32768\n255\n", "exceeds 268435456 pixels");
    /* truncated raster: says where the data starts, how much is needed and
     * where the file ends */
    FAILS("P5\n3 2\n255\n\1\2\3\4", "needs 6 bytes from byte 11, only 4 present (ends at byte 15)");
    FAILS("P5\n2 1\n65535\n\1\2\3", "needs 4 bytes");
    FAILS("P5\n1 1\n100\n\x65", "sample 101 > maxval 100 at byte 11");
    FAILS("P5\n1 1\n1000\n\x03\xe9", "sample 1001 > maxval 1000");
    FAILS("P2\n2 2\n255\n1 2 3", "truncated PGM data");
    FAILS("P2\n2 1\n255\n1    ", "truncated PGM data at byte 16 (expected a sample)");
    FAILS("P2\n2 1\n255\n1 x2", "bad PGM data at byte 13: expected a sample");
    FAILS("P2\n2 1\n9\n1 10", "sample 10 > maxval 9");
    FAILS("P2\n2 1\n255\n1 2x", "unexpected character after a sample");
    /* hostile P2: huge dimensions declared, tiny file -> no allocation */
    FAILS("P2\n30000 8000\n255\n1 2 3", "cannot fit");
    tycho_err err;
    tycho_image img;
    CHECK(tycho_image_load("/nonexistent/dir/x.pgm", &img, &err) == TYCHO_EIO);
    CHECK(strstr(err.msg, "/nonexistent/dir/x.pgm: cannot open") != NULL);
    CHECK(tycho_image_load("/tmp", &img, &err) == TYCHO_EIO); /* a folder */
}

/* --- PNG helpers: encode arbitrary PNG flavours in memory with libpng ---- */
typedef struct {
    uint8_t *d;
    size_t n, cap;
} membuf;

static void mem_write(png_structp png, png_bytep data, size_t len)
{
    membuf *m = png_get_io_ptr(png);
    if (m->n + len > m->cap) {
        m->cap = (m->n + len) * 2;
        m->d = realloc(m->d, m->cap);
    }
    memcpy(m->d + m->n, data, len);
    m->n += len;
}
static void mem_flush(png_structp png) { (void)png; }

/* rows: packed samples as libpng expects for (color, depth). */
static membuf encode_png(int w, int h, int color, int depth, const uint8_t *data, size_t stride,
                         const png_color *pal, int npal, const uint8_t *trns, int ntrns,
                         const png_color_16 *trns_gray, int interlace)
{
    membuf m = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) abort();
    png_set_write_fn(png, &m, mem_write, mem_flush);
    png_set_IHDR(png, info, w, h, depth, color,
                 interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (pal) png_set_PLTE(png, info, pal, npal);
    if (trns || trns_gray) png_set_tRNS(png, info, trns, ntrns, trns_gray);
    png_write_info(png, info);
    int passes = interlace ? png_set_interlace_handling(png) : 1;
    for (int y = 0; y < passes; y++)
        for (int r = 0; r < h; r++) png_write_row(png, data + (size_t)r * stride);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return m;
}

static void test_png_flavours(void)
{
    tycho_image img;
    tycho_err err = {0};
    /* 8-bit gray */
    uint8_t g8[6] = {0, 100, 255, 1, 2, 3};
    membuf m = encode_png(3, 2, PNG_COLOR_TYPE_GRAY, 8, g8, 3, NULL, 0, NULL, 0, NULL, 0);
    CHECK(tycho_image_load_mem(m.d, m.n, "g.png", &img, &err) == TYCHO_OK);
    CHECK(img.width == 3 && img.height == 2 && img.channels == 1);
    CHECK(memcmp(img.pixels, g8, 6) == 0);
    tycho_image_free(&img);
    free(m.d);

    /* 1-bit gray expands to 0/255 */
    uint8_t g1[1] = {0xa0}; /* 1 0 1 0 */
    m = encode_png(4, 1, PNG_COLOR_TYPE_GRAY, 1, g1, 1, NULL, 0, NULL, 0, NULL, 0);
    CHECK(tycho_image_load_mem(m.d, m.n, "g1.png", &img, &err) == TYCHO_OK);
    CHECK(img.channels == 1 && img.pixels[0] == 255 && img.pixels[1] == 0 && img.pixels[2] == 255 &&
          img.pixels[3] == 0);
    tycho_image_free(&img);
    free(m.d);

    /* 16-bit gray is reduced to 8 bits with rounding */
    uint8_t g16[6] = {0xff, 0xff, 0x80, 0x00, 0x01, 0x01};
    m = encode_png(3, 1, PNG_COLOR_TYPE_GRAY, 16, g16, 6, NULL, 0, NULL, 0, NULL, 0);
    CHECK(tycho_image_load_mem(m.d, m.n, "g16.png", &img, &err) == TYCHO_OK);
    CHECK(img.channels == 1 && img.pixels[0] == 255 && img.pixels[1] == 128 && img.pixels[2] == 1);
    tycho_image_free(&img);
    free(m.d);

    /* palette -> RGB; palette with tRNS -> RGBA */
    png_color pal[3] = {{255, 0, 0}, {0, 255, 0}, {10, 20, 30}};
    uint8_t idx[3] = {2, 0, 1};
    m = encode_png(3, 1, PNG_COLOR_TYPE_PALETTE, 8, idx, 3, pal, 3, NULL, 0, NULL, 0);
    CHECK(tycho_image_load_mem(m.d, m.n, "p.png", &img, &err) == TYCHO_OK);
    CHECK(img.channels == 3);
    CHECK(img.pixels[0] == 10 && img.pixels[1] == 20 && img.pixels[2] == 30 &&
          img.pixels[3] == 255 && img.pixels[7] == 255);
    tycho_image_free(&img);
    free(m.d);
    uint8_t trns[1] = {0};
    m = encode_png(3, 1, PNG_COLOR_TYPE_PALETTE, 8, idx, 3, pal, 3, trns, 1, NULL, 0);
    CHECK(tycho_image_load_mem(m.d, m.n, "pa.png", &img, &err) == TYCHO_OK);
    CHECK(img.channels == 4 && img.pixels[3] == 255 && img.pixels[7] == 0 && img.pixels[11] == 255);
    tycho_image_free(&img);
    free(m.d);

    /* gray with a tRNS colour key -> gray+alpha */
    png_color_16 key = {0};
    key.gray = 7;
    uint8_t gk[2] = {7, 8};
    m = encode_png(2, 1, PNG_COLOR_TYPE_GRAY, 8, gk, 2, NULL, 0, NULL, 0, &key, 0);
    CHECK(tycho_image_load_mem(m.d, m.n, "gk.png", &img, &err) == TYCHO_OK);
    CHECK(img.channels == 2 && img.pixels[0] == 7 && img.pixels[1] == 0 && img.pixels[2] == 8 &&
          img.pixels[3] == 255);
    tycho_image_free(&img);
    free(m.d);

    /* gray+alpha and RGBA keep alpha; RGB 16-bit reduced */
    uint8_t ga[4] = {10, 200, 20, 255};
    m = encode_png(2, 1, PNG_COLOR_TYPE_GRAY_ALPHA, 8, ga, 4, NULL, 0, NULL, 0, NULL, 0);
    CHECK(tycho_image_load_mem(m.d, m.n, "ga.png", &img, &err) == TYCHO_OK);
    CHECK(img.channels == 2 && memcmp(img.pixels, ga, 4) == 0);
    tycho_image_free(&img);
    free(m.d);
    uint8_t rgba[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    m = encode_png(2, 1, PNG_COLOR_TYPE_RGBA, 8, rgba, 8, NULL, 0, NULL, 0, NULL, 0);
    CHECK(tycho_image_load_mem(m.d, m.n, "rgba.png", &img, &err) == TYCHO_OK);
    CHECK(img.channels == 4 && memcmp(img.pixels, rgba, 8) == 0);
    tycho_image_free(&img);
    free(m.d);
    uint8_t rgb16[6] = {0xff, 0xff, 0, 0, 0x80, 0x00};
    m = encode_png(1, 1, PNG_COLOR_TYPE_RGB, 16, rgb16, 6, NULL, 0, NULL, 0, NULL, 0);
    CHECK(tycho_image_load_mem(m.d, m.n, "rgb16.png", &img, &err) == TYCHO_OK);
    CHECK(img.channels == 3 && img.pixels[0] == 255 && img.pixels[1] == 0 && img.pixels[2] == 128);
    tycho_image_free(&img);
    free(m.d);

    /* interlaced (Adam7) */
    uint8_t il[16];
    for (int i = 0; i < 16; i++) il[i] = (uint8_t)(i * 16);
    m = encode_png(4, 4, PNG_COLOR_TYPE_GRAY, 8, il, 4, NULL, 0, NULL, 0, NULL, 1);
    CHECK(tycho_image_load_mem(m.d, m.n, "il.png", &img, &err) == TYCHO_OK);
    CHECK(img.width == 4 && memcmp(img.pixels, il, 16) == 0);
    tycho_image_free(&img);
    free(m.d);
}

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
    }
    return c ^ 0xffffffffu;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Signature + a valid IHDR for w x h 8-bit gray, and nothing else. */
static size_t png_header(uint8_t *b, uint32_t w, uint32_t h)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    memcpy(b, sig, 8);
    put32(b + 8, 13);
    memcpy(b + 12, "IHDR", 4);
    put32(b + 16, w);
    put32(b + 20, h);
    b[24] = 8;
    b[25] = 0;
    b[26] = 0;
    b[27] = 0;
    b[28] = 0;
    put32(b + 29, crc32_of(b + 12, 17));
    return 33;
}

static void test_png_errors(void)
{
    tycho_image img;
    tycho_err err = {0};
    uint8_t g8[64 * 64];
    for (int i = 0; i < 64 * 64; i++) g8[i] = (uint8_t)(i * 7);
    membuf m = encode_png(64, 64, PNG_COLOR_TYPE_GRAY, 8, g8, 64, NULL, 0, NULL, 0, NULL, 0);

    /* bad signature (the first 4 bytes still say PNG) */
    uint8_t *bad = malloc(m.n);
    memcpy(bad, m.d, m.n);
    bad[6] = 0;
    CHECK(tycho_image_load_mem(bad, m.n, "bad.png", &img, &err) == TYCHO_EPARSE);
    CHECK(strstr(err.msg, "bad.png: bad PNG signature") != NULL);
    /* corrupted IHDR CRC */
    memcpy(bad, m.d, m.n);
    bad[30] ^= 0x55;
    CHECK(tycho_image_load_mem(bad, m.n, "crc.png", &img, &err) == TYCHO_EPARSE);
    CHECK(strstr(err.msg, "crc.png: PNG error at byte") != NULL);
    CHECK(img.pixels == NULL);
    free(bad);

    /* truncated at every length: never a crash, and an error names the byte.
     * A cut after the image data may still load (the pixels are complete). */
    int failures = 0, named = 0, loaded = 0;
    for (size_t cut = 0; cut < m.n; cut++) {
        tycho_status st = tycho_image_load_mem(m.d, cut, "cut.png", &img, &err);
        if (st == TYCHO_OK) {
            loaded++;
            CHECK(memcmp(img.pixels, g8, sizeof g8) == 0);
            tycho_image_free(&img);
            continue;
        }
        failures++;
        CHECK(img.pixels == NULL);
        if (strstr(err.msg, "cut.png") && (cut < 8 || strstr(err.msg, "at byte"))) named++;
    }
    CHECK(failures > 0 && named == failures);
    CHECK(loaded <= 12 + 4); /* only cuts inside the trailing IEND chunk */
    free(m.d);

    /* huge declared dimensions: refused from the header alone */
    uint8_t hdr[64];
    size_t n = png_header(hdr, 40000, 10);
    CHECK(tycho_image_load_mem(hdr, n, "wide.png", &img, &err) == TYCHO_EPARSE);
    CHECK_MSG(strstr(err.msg, "wide.png: PNG error") != NULL, "%s", err.msg);
    n = png_header(hdr, 20000, 20000);
    CHECK(tycho_image_load_mem(hdr, n, "big.png", &img, &err) == TYCHO_ERANGE);
    CHECK_MSG(strstr(err.msg, "big.png: PNG 20000x20000 exceeds") != NULL, "%s", err.msg);
    n = png_header(hdr, 0, 10);
    CHECK(tycho_image_load_mem(hdr, n, "zero.png", &img, &err) != TYCHO_OK);
    /* valid header, no image data at all */
    n = png_header(hdr, 16, 16);
    CHECK(tycho_image_load_mem(hdr, n, "nodata.png", &img, &err) == TYCHO_EPARSE);
    CHECK(strstr(err.msg, "at byte 33") != NULL);
}

static int count_tmp_files(void)
{
    DIR *d = opendir(tmpdir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp")) n++;
    closedir(d);
    return n;
}

static void test_save_and_atomic(void)
{
    char p[512];
    tycho_err err = {0};
    for (int ch = 1; ch <= 4; ch++) {
        tycho_image img, back;
        CHECK(tycho_image_init(&img, 7, 5, ch, &err) == TYCHO_OK);
        for (int i = 0; i < 7 * 5 * ch; i++) img.pixels[i] = (uint8_t)(i * 37 + ch);
        CHECK(tycho_image_save_png(tmp_path(p, sizeof p, "rt.png"), &img, &err) == TYCHO_OK);
        CHECK(tycho_image_load(p, &back, &err) == TYCHO_OK);
        CHECK(back.width == 7 && back.height == 5 && back.channels == ch);
        CHECK(memcmp(back.pixels, img.pixels, (size_t)7 * 5 * ch) == 0);
        tycho_image_free(&back);
        if (ch == 1) {
            CHECK(tycho_image_save_pgm(tmp_path(p, sizeof p, "rt.pgm"), &img, &err) == TYCHO_OK);
            CHECK(tycho_image_load(p, &back, &err) == TYCHO_OK);
            CHECK(back.channels == 1 && memcmp(back.pixels, img.pixels, 35) == 0);
            tycho_image_free(&back);
        } else {
            CHECK(tycho_image_save_pgm(tmp_path(p, sizeof p, "rt.pgm"), &img, &err) ==
                  TYCHO_EINVAL);
        }
        tycho_image_free(&img);
    }
    /* the failed PGM saves above did not replace the good file */
    tycho_image back;
    CHECK(tycho_image_load(tmp_path(p, sizeof p, "rt.pgm"), &back, &err) == TYCHO_OK &&
          back.channels == 1);
    tycho_image_free(&back);

    tycho_image img;
    tycho_image_init(&img, 100, 100, 1, &err);
    memset(img.pixels, 77, 10000);
    CHECK(tycho_image_save_pgm("/nonexistent/dir/x.pgm", &img, &err) == TYCHO_EIO);
    CHECK(strstr(err.msg, "/nonexistent/dir/x.pgm") != NULL);

    /* A write failing half-way (file size limit) leaves the old file intact
     * and no temporary file behind. */
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 1000;
    signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    CHECK(tycho_image_save_pgm(tmp_path(p, sizeof p, "rt.pgm"), &img, &err) == TYCHO_EIO);
    unsigned seed = 7; /* noise does not compress below the 1000-byte limit */
    for (int i = 0; i < 10000; i++) {
        seed = seed * 1103515245u + 12345u;
        img.pixels[i] = (uint8_t)(seed >> 16);
    }
    CHECK(tycho_image_save_png(tmp_path(p, sizeof p, "rt.png"), &img, &err) == TYCHO_EIO);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(tycho_image_load(tmp_path(p, sizeof p, "rt.png"), &back, &err) == TYCHO_OK);
    CHECK(back.width == 7 && back.height == 5 && back.channels == 4); /* the last good save */
    tycho_image_free(&back);
    CHECK(tycho_image_load(tmp_path(p, sizeof p, "rt.pgm"), &back, &err) == TYCHO_OK);
    CHECK(back.width == 7 && back.height == 5);
    tycho_image_free(&back);
    CHECK(count_tmp_files() == 0);

    CHECK(tycho_atomic_write(tmp_path(p, sizeof p, "a.txt"), "hello", 5, &err) == TYCHO_OK);
    CHECK(tycho_atomic_write(tmp_path(p, sizeof p, "a.txt"), "bye", 3, &err) == TYCHO_OK);
    FILE *fp = fopen(p, "rb");
    char buf[16] = {0};
    CHECK(fp && fread(buf, 1, sizeof buf, fp) == 3 && !strcmp(buf, "bye"));
    if (fp) fclose(fp);
    CHECK(count_tmp_files() == 0);
    tycho_image_free(&img);

    /* init limits */
    CHECK(tycho_image_init(&img, 0, 5, 1, &err) == TYCHO_ERANGE);
    CHECK(tycho_image_init(&img, 32769, 5, 1, &err) == TYCHO_ERANGE);
    CHECK(tycho_image_init(&img, 32768, 32768, 1, &err) == TYCHO_ERANGE);
    CHECK(tycho_image_init(&img, 5, 5, 5, &err) == TYCHO_EINVAL);
}

static void test_raycast_pngs(void)
{
    char p[512];
    tycho_image img;
    tycho_err err = {0};
    if (!CHECKED(tycho_image_load(test_data(p, sizeof p, "raycast/basement_hallways_5cm.png"), &img,
                                  &err) == TYCHO_OK,
                 err.msg))
        return;
    CHECK(img.width == 1200 && img.height == 1200 && img.channels == 1);
    tycho_image_free(&img);
    if (!CHECKED(tycho_image_load(test_data(p, sizeof p, "raycast/synthetic.map.png"), &img,
                                  &err) == TYCHO_OK,
                 err.msg))
        return;
    if (!CHECKED(img.width == 1024 && img.height == 1024 && img.channels == 1, NULL)) {
        tycho_image_free(&img);
        return;
    }
    size_t black = 0, other = 0; /* a 1-bit file expands to 0 and 255 only */
    for (size_t i = 0; i < (size_t)1024 * 1024; i++) {
        black += img.pixels[i] == 0;
        other += img.pixels[i] != 0 && img.pixels[i] != 255;
    }
    CHECK(other == 0);
    CHECK(black > 0 && black < (size_t)1024 * 1024 / 2);
    tycho_image_free(&img);
}

/* The PNG flavours kept in tests/data/maps (also fuzz seeds). */
static void test_data_pngs(void)
{
    char p[512];
    tycho_image img;
    tycho_err err = {0};
    CHECK_MSG(tycho_image_load(source_path(p, sizeof p, "tests/data/maps/palette_trns.png"), &img,
                               &err) == TYCHO_OK,
              "%s", err.msg);
    if (CHECKED(img.width == 6 && img.height == 3 && img.channels == 4, NULL)) {
        const uint8_t *q = img.pixels + (6 + 3) * 4; /* (3,1): palette gray 205 */
        CHECK(q[0] == 205 && q[3] == 255);
        q += 4; /* (4,1): the transparent entry */
        CHECK(q[0] == 255 && q[3] == 0);
    }
    tycho_image_free(&img);
    CHECK(tycho_image_load(source_path(p, sizeof p, "tests/data/maps/gray16.png"), &img, &err) ==
          TYCHO_OK);
    uint8_t g16[8] = {0, 255, 128, 4, 255, 0, 1, 1};
    CHECK(img.channels == 1 && img.width == 4 && memcmp(img.pixels, g16, 8) == 0);
    tycho_image_free(&img);
    CHECK(tycho_image_load(source_path(p, sizeof p, "tests/data/maps/gray1.png"), &img, &err) ==
          TYCHO_OK);
    uint8_t g1[16] = {255, 0, 255, 255, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255};
    CHECK(img.channels == 1 && img.width == 8 && memcmp(img.pixels, g1, 16) == 0);
    tycho_image_free(&img);
    CHECK(tycho_image_load(source_path(p, sizeof p, "tests/data/maps/gray_alpha.png"), &img,
                           &err) == TYCHO_OK);
    uint8_t ga[6] = {0, 255, 255, 0, 205, 128};
    CHECK(img.channels == 2 && memcmp(img.pixels, ga, 6) == 0);
    tycho_image_free(&img);
}

static int rm_rf(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
    return rmdir(dir);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tycho_test_image_XXXXXX");
    if (!mkdtemp(tmpdir)) return 2;
    test_pgm_p5();
    test_pgm_p2();
    test_pgm_errors();
    test_png_flavours();
    test_png_errors();
    test_save_and_atomic();
    test_raycast_pngs();
    test_data_pngs();
    rm_rf(tmpdir);
    return check_summary("test_image");
}
