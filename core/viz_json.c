/* Foxglove JSON encoders and message templates (tycho/viz_json.h). Numbers
 * that a viewer only draws are written by hand to the millimetre: printf's
 * float formatting was the largest cost of scan and trail messages. */
#include "tycho/viz_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tycho/base64.h"
#include "tycho/grid.h"

static void put_fmt(tycho_text *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_fmt(tycho_text *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) tycho_text_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void put_base64(tycho_text *b, const uint8_t *data, size_t n)
{
    if (!tycho_text_reserve(b, tycho_base64_len(n))) return;
    b->len += tycho_base64_encode(data, n, b->p + b->len);
}

/* sec and nsec of t >= 0, the nanoseconds rounded */
static void stamp(double t, double *sec, long *nsec)
{
    *sec = floor(t);
    *nsec = lround((t - *sec) * 1e9);
    if (*nsec >= 1000000000L) {
        *sec += 1;
        *nsec -= 1000000000L;
    }
}

static void put_stamp(tycho_text *b, double t)
{
    double sec;
    long nsec;
    stamp(t, &sec, &nsec);
    tycho_text_puts(b, "{\"sec\":");
    tycho_text_f0(b, sec);
    tycho_text_puts(b, ",\"nsec\":");
    tycho_text_int(b, nsec);
    tycho_text_put(b, "}", 1);
}

void tycho_viz_header(tycho_text *b, double t, const char *frame)
{
    tycho_text_puts(b, "{\"timestamp\":");
    put_stamp(b, t);
    tycho_text_puts(b, ",\"frame_id\":\"");
    tycho_text_puts(b, frame);
    tycho_text_put(b, "\"", 1);
}

/* a length to the millimetre ("-2.345") after prefix */
static void put_millimetres(tycho_text *b, const char *prefix, double v)
{
    tycho_text_puts(b, prefix);
    char tmp[32];
    size_t n = 0;
    if (!isfinite(v) || fabs(v) > 1e9) v = 0;
    long mm = lround(fabs(v) * 1000);
    if (v < 0 && mm) tmp[n++] = '-';
    char digits[24];
    int k = 0;
    long whole = mm / 1000;
    do {
        digits[k++] = (char)('0' + whole % 10);
        whole /= 10;
    } while (whole);
    while (k) tmp[n++] = digits[--k];
    long frac = mm % 1000;
    tmp[n++] = '.';
    tmp[n++] = (char)('0' + frac / 100);
    tmp[n++] = (char)('0' + frac / 10 % 10);
    tmp[n++] = (char)('0' + frac % 10);
    tycho_text_put(b, tmp, n);
}

void tycho_viz_grid(tycho_text *b, double t, const char *frame, const uint8_t *cells, int w, int h,
                    double res, tycho_pose2 o)
{
    /* only the box round the known cells: a mission's map is a 20 m square
     * of which the maze fills a few metres, and sending the whole square at
     * 1 Hz was most of what a recording cost */
    int box[4] = {0, 0, 0, 0};
    tycho_cells_known_box(cells, w, h, box);
    int bw = box[2] - box[0] + 1, bh = box[3] - box[1] + 1;
    /* the box's corner in the world: the origin moved along the grid's axes */
    double c = cos(o.yaw), s = sin(o.yaw), dx = box[0] * res, dy = box[1] * res;
    tycho_viz_header(b, t, frame);
    put_fmt(b,
            ",\"pose\":{\"position\":{\"x\":%.9g,\"y\":%.9g,\"z\":0},"
            "\"orientation\":{\"x\":0,\"y\":0,\"z\":%.9g,\"w\":%.9g}}",
            o.x + c * dx - s * dy, o.y + s * dx + c * dy, sin(o.yaw / 2), cos(o.yaw / 2));
    put_fmt(b,
            ",\"column_count\":%d,\"cell_size\":{\"x\":%.9g,\"y\":%.9g},\"row_stride\":%d,"
            "\"cell_stride\":1,\"fields\":[{\"name\":\"cost\",\"offset\":0,\"type\":1}],"
            "\"data\":\"",
            bw, res, res, bw);
    if (!tycho_text_reserve(b, tycho_base64_len((size_t)bw * (size_t)bh) + 2)) return;
    if (bw == w) {
        b->len +=
            tycho_base64_encode(cells + (size_t)box[1] * w, (size_t)w * (size_t)bh, b->p + b->len);
    } else {
        /* the box's rows, a few at a time, in multiples of 3 bytes so the
         * base64 slices join without padding in between */
        uint8_t tmp[3 * 1024];
        size_t n = 0;
        for (int y = box[1]; y <= box[3]; y++) {
            const uint8_t *row = cells + (size_t)y * w + box[0];
            for (int x = 0; x < bw;) {
                size_t take = sizeof tmp - n < (size_t)(bw - x) ? sizeof tmp - n : (size_t)(bw - x);
                memcpy(tmp + n, row + x, take);
                n += take;
                x += (int)take;
                if (n == sizeof tmp) {
                    put_base64(b, tmp, n);
                    n = 0;
                }
            }
        }
        put_base64(b, tmp, n);
    }
    tycho_text_puts(b, "\"}");
}

void tycho_viz_scan(tycho_text *b, double t, const char *frame, const float *ranges, int count,
                    double angle_min, double angle_increment, double range_min, double range_max)
{
    tycho_viz_header(b, t, frame);
    put_fmt(b,
            ",\"pose\":{\"position\":{\"x\":0,\"y\":0,\"z\":0},\"orientation\":{\"x\":0,\"y\":0,"
            "\"z\":0,\"w\":1}},\"start_angle\":%.9g,\"end_angle\":%.9g,\"intensities\":[],"
            "\"ranges\":[",
            angle_min, angle_min + (count - 1) * angle_increment);
    for (int i = 0; i < count; i++) {
        double r = ranges[i];
        if (!(isfinite(r) && r >= range_min && r < range_max)) r = 0;
        put_millimetres(b, i ? "," : "", r);
    }
    tycho_text_puts(b, "]}");
}

/* black - red - yellow - white */
static void heat_colour(double u, uint8_t rgb[3])
{
    if (!(u > 0)) u = 0;
    if (u > 1) u = 1;
    double r = u * 3, g = u * 3 - 1, bl = u * 3 - 2;
    rgb[0] = (uint8_t)lround(255 * (r > 1 ? 1 : r));
    rgb[1] = (uint8_t)lround(255 * (g < 0 ? 0 : g > 1 ? 1 : g));
    rgb[2] = (uint8_t)lround(255 * (bl < 0 ? 0 : bl));
}

void tycho_viz_image(tycho_text *b, double t, const char *frame, const double *values, int w, int h,
                     double lo, double hi)
{
    tycho_viz_header(b, t, frame);
    put_fmt(b, ",\"width\":%d,\"height\":%d,\"encoding\":\"rgb8\",\"step\":%d,\"data\":\"", w, h,
            3 * w);
    /* a row of pixels at a time (3 bytes each, so the slices join) */
    uint8_t rgb[3 * 256];
    size_t n = (size_t)w * (size_t)h, used = 0;
    for (size_t i = 0; i < n; i++) {
        heat_colour((values[i] - lo) / (hi - lo), rgb + used);
        used += 3;
        if (used == sizeof rgb) {
            put_base64(b, rgb, used);
            used = 0;
        }
    }
    put_base64(b, rgb, used);
    tycho_text_puts(b, "\"}");
}

size_t tycho_viz_thin(size_t n, size_t max, size_t *pick)
{
    size_t keep = (max > 0 && n > max) ? max : n;
    if (pick)
        for (size_t k = 0; k < keep; k++)
            pick[k] = keep == n
                          ? k
                          : (size_t)floor((double)k * (double)(n - 1) / (double)(keep - 1) + 0.5);
    return keep;
}

void tycho_viz_poses(tycho_text *b, double t, const char *frame, const double *p, size_t n)
{
    tycho_viz_header(b, t, frame);
    tycho_text_puts(b, ",\"poses\":[");
    for (size_t k = 0; k < n; k++, p += 3) {
        put_millimetres(b, k ? ",{\"position\":{\"x\":" : "{\"position\":{\"x\":", p[0]);
        put_millimetres(b, ",\"y\":", p[1]);
        if (p[2] == 0)
            tycho_text_puts(b, ",\"z\":0},\"orientation\":{\"x\":0,\"y\":0,\"z\":0,\"w\":1}}");
        else
            put_fmt(b, ",\"z\":0},\"orientation\":{\"x\":0,\"y\":0,\"z\":%.6g,\"w\":%.6g}}",
                    sin(p[2] / 2), cos(p[2] / 2));
    }
    tycho_text_puts(b, "]}");
}

/* templates ------------------------------------------------------------------ */

/* The placeholder at text[i] ('%'): its kind ('T', 'g', 'd', 'F', 'D', '%')
 * and length, precision for 'g'; 0 when it is not one. */
static char placeholder(const char *text, size_t len, size_t i, size_t *plen, int *precision)
{
    if (i + 1 >= len) return 0;
    char c = text[i + 1];
    if (c == 'T' || c == 'd' || c == 'F' || c == 'D' || c == '%') {
        *plen = 2;
        return c;
    }
    if (c != '.') return 0;
    size_t j = i + 2;
    int p = 0;
    while (j < len && j < i + 4 && text[j] >= '0' && text[j] <= '9') p = p * 10 + (text[j++] - '0');
    if (j == i + 2 || j >= len || text[j] != 'g' || p < 1 || p > 17) return 0;
    *plen = j + 1 - i;
    *precision = p;
    return 'g';
}

int tycho_template_check(const char *text, size_t len, int *numbers, int *has_array, tycho_err *err)
{
    int n = 0, arrays = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '%') continue;
        size_t plen = 0;
        int precision = 0;
        char kind = placeholder(text, len, i, &plen, &precision);
        if (!kind) {
            tycho_fail(err, TYCHO_EINVAL,
                       "template: bad placeholder at offset %zu (%%T, %%.Ng, %%d, %%F, %%D or %%%% "
                       "expected)",
                       i);
            return -1;
        }
        if (kind == 'g' || kind == 'd') n++;
        if (kind == 'F' || kind == 'D') arrays++;
        i += plen - 1;
    }
    if (n > TYCHO_TEMPLATE_MAX_NUMBERS) {
        tycho_fail(err, TYCHO_EINVAL, "template: %d numbers, at most %d", n,
                   TYCHO_TEMPLATE_MAX_NUMBERS);
        return -1;
    }
    if (arrays > 1) {
        tycho_fail(err, TYCHO_EINVAL, "template: at most one array (%%F or %%D)");
        return -1;
    }
    *numbers = n;
    *has_array = arrays;
    return 0;
}

/* numbers as little-endian float32 or float64, in base64 */
static void put_packed(tycho_text *b, const double *v, size_t n, int width)
{
    uint8_t tmp[96]; /* a multiple of 3, 4 and 8 */
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        if (width == 4) {
            float f = (float)v[i];
            uint32_t u;
            memcpy(&u, &f, 4);
            bits = u;
        } else {
            memcpy(&bits, &v[i], 8);
        }
        for (int k = 0; k < width; k++) tmp[used + (size_t)k] = (uint8_t)(bits >> (8 * k));
        used += (size_t)width;
        if (used == sizeof tmp) {
            put_base64(b, tmp, used);
            used = 0;
        }
    }
    put_base64(b, tmp, used);
}

void tycho_template_format(tycho_text *b, const char *text, size_t len, double t,
                           const double *numbers, const double *array, size_t array_len)
{
    size_t from = 0, next = 0;
    for (size_t i = 0; i < len; i++) {
        /* memchr: a template is mostly text (a /tf message is 900 bytes
         * round 20 numbers), looked at byte by byte it cost as much as
         * writing the numbers */
        const char *pct = memchr(text + i, '%', len - i);
        if (!pct) break;
        i = (size_t)(pct - text);
        size_t plen = 0;
        int precision = 0;
        char kind = placeholder(text, len, i, &plen, &precision);
        if (!kind) continue; /* checked before: cannot happen */
        tycho_text_put(b, text + from, i - from);
        if (kind == 'T') {
            put_stamp(b, t);
        } else if (kind == 'g' || kind == 'd') {
            double v = numbers[next++];
            if (!isfinite(v)) tycho_text_puts(b, "null");
            else if (kind == 'd') tycho_text_f0(b, v);
            else tycho_text_g(b, v, precision);
        } else if (kind == 'F' || kind == 'D') {
            put_packed(b, array, array ? array_len : 0, kind == 'F' ? 4 : 8);
        } else {
            tycho_text_put(b, "%", 1);
        }
        i += plen - 1;
        from = i + 1;
    }
    tycho_text_put(b, text + from, len - from);
}
