/* Message templates and the JSON encoders shared by the live view and the
 * recording's writer thread: placeholders, their errors, null for numbers
 * that are not finite, exact arrays, the grid's known box. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tycho/base64.h"
#include "tycho/grid.h"
#include "tycho/viz_json.h"

static const char *fill(tycho_text *b, const char *tmpl, double t, const double *numbers,
                        const double *array, size_t n)
{
    b->len = 0;
    int count, has_array;
    static tycho_err err;
    if (tycho_template_check(tmpl, strlen(tmpl), &count, &has_array, &err) != 0) return err.msg;
    tycho_template_format(b, tmpl, strlen(tmpl), t, numbers, array, n);
    tycho_text_put(b, "", 1); /* NUL */
    return b->p;
}

#define CHECK_STR(got, want)                                                                       \
    do {                                                                                           \
        const char *got_ = (got);                                                                  \
        CHECK_MSG(strcmp(got_, (want)) == 0, "got %s", got_);                                      \
    } while (0)

static void templates(void)
{
    tycho_text b = {0};
    double v[] = {1.5, -0.25, NAN, INFINITY, 3};
    CHECK_STR(
        fill(&b, "{\"timestamp\":%T,\"a\":%.6g,\"b\":%.17g,\"c\":%.3g,\"d\":%d}", 12.5, v, NULL, 0),
        "{\"timestamp\":{\"sec\":12,\"nsec\":500000000},\"a\":1.5,\"b\":-0.25,\"c\":null,"
        "\"d\":null}");
    CHECK_STR(fill(&b, "%d%%", 0, v + 4, NULL, 0), "3%");
    /* %.17g is exact: it reads back as the same double */
    double third = 1.0 / 3.0;
    fill(&b, "%.17g", 0, &third, NULL, 0);
    CHECK(strtod(b.p, NULL) == third);
    /* the stamp's nanoseconds round, carrying into the seconds */
    CHECK_STR(fill(&b, "%T", 1.9999999999, NULL, NULL, 0), "{\"sec\":2,\"nsec\":0}");

    /* arrays: base64 of little-endian float32 / float64, exact */
    double arr[3] = {0.1, -2.5, 1e300};
    fill(&b, "%D", 0, NULL, arr, 3);
    uint8_t raw[64];
    long n = tycho_base64_decode(b.p, strlen(b.p), raw);
    CHECK(n == 24);
    double back[3];
    memcpy(back, raw, sizeof back);
    CHECK(back[0] == 0.1 && back[1] == -2.5 && back[2] == 1e300);
    fill(&b, "%F", 0, NULL, arr, 2);
    n = tycho_base64_decode(b.p, strlen(b.p), raw);
    float f[2];
    memcpy(f, raw, sizeof f);
    CHECK(n == 8 && f[0] == 0.1f && f[1] == -2.5f);

    int count = -1, has_array = -1;
    tycho_err err = {0};
    CHECK(tycho_template_check("%.9g,%F,%d", 10, &count, &has_array, &err) == 0 && count == 2 &&
          has_array == 1);
    /* bad placeholders are refused with their offset */
    const char *bad[] = {"ok %s", "%.0g", "%.18g", "%.6f", "50%", "%F%D"};
    const char *why[] = {"offset 3", "offset 0", "offset 0", "offset 0", "offset 2", "one array"};
    for (int i = 0; i < 6; i++) {
        err = (tycho_err){0};
        CHECK_MSG(tycho_template_check(bad[i], strlen(bad[i]), &count, &has_array, &err) == -1 &&
                      strstr(err.msg, why[i]) != NULL,
                  "%s: %s", bad[i], err.msg);
    }
    char many[200] = "";
    for (int i = 0; i < 33; i++) strcat(many, "%d,");
    CHECK(tycho_template_check(many, strlen(many), &count, &has_array, &err) == -1 &&
          strstr(err.msg, "33 numbers") != NULL);
    tycho_text_free(&b);
}

/* the grid goes out as the box round its known cells, placed in the world */
static void grid_box(void)
{
    enum { W = 20, H = 10 };
    uint8_t cells[W * H];
    memset(cells, TYCHO_COST_UNKNOWN, sizeof cells);
    cells[3 * W + 4] = 0;
    cells[5 * W + 7] = 254;
    tycho_text b = {0};
    tycho_viz_grid(&b, 1, "map", cells, W, H, 0.5, (tycho_pose2){10, 20, 0});
    tycho_text_put(&b, "", 1);
    /* columns 4..7, rows 3..5: 4 x 3 cells from (10 + 2, 20 + 1.5) */
    CHECK_MSG(strstr(b.p, "\"position\":{\"x\":12,\"y\":21.5,\"z\":0}") != NULL, "%s", b.p);
    CHECK(strstr(b.p, "\"column_count\":4,") != NULL && strstr(b.p, "\"row_stride\":4,") != NULL);
    const char *data = strstr(b.p, "\"data\":\"");
    if (CHECKED(data != NULL, b.p)) {
        data += 8;
        uint8_t raw[16];
        long n = tycho_base64_decode(data, strcspn(data, "\""), raw);
        CHECK(n == 12 && raw[0] == 0 && raw[1] == 255 && raw[11] == 254);
    }
    /* nothing known: the cell (0, 0) */
    memset(cells, TYCHO_COST_UNKNOWN, sizeof cells);
    b.len = 0;
    tycho_viz_grid(&b, 1, "map", cells, W, H, 0.5, (tycho_pose2){0, 0, 0});
    tycho_text_put(&b, "", 1);
    CHECK(strstr(b.p, "\"column_count\":1,") != NULL);
    tycho_text_free(&b);
}

/* the word-at-a-time box scan (which reads only the margins outside the box
 * found so far) against a cell-by-cell one, on random grids of widths that
 * are and are not multiples of 8 and 32, from none to many known cells */
static void known_box_matches(void)
{
    unsigned seed = 12345;
    int wrong = 0;
    for (int trial = 0; trial < 2000; trial++) {
        seed = seed * 1103515245u + 12345u;
        int w = 1 + (int)(seed >> 16) % 75, h = 1 + (int)(seed >> 8) % 13;
        uint8_t cells[75 * 13];
        memset(cells, TYCHO_COST_UNKNOWN, sizeof cells);
        int known = trial % 2 ? (int)(seed >> 4) % 4 : (int)(seed >> 4) % 40;
        for (int k = 0; k < known; k++) {
            seed = seed * 1103515245u + 12345u;
            cells[(seed >> 8) % (unsigned)(w * h)] = (uint8_t)((seed >> 3) % 255);
        }
        int x0 = w, y0 = h, x1 = -1, y1 = -1;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                if (cells[y * w + x] != TYCHO_COST_UNKNOWN) {
                    x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1;
                    y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1;
                }
        int box[4] = {-1, -1, -1, -1};
        bool found = tycho_cells_known_box(cells, w, h, box);
        if (found != (x1 >= 0) ||
            (found && (box[0] != x0 || box[1] != y0 || box[2] != x1 || box[3] != y1)))
            wrong++;
    }
    CHECK_MSG(wrong == 0, "%d of 2000 boxes differ", wrong);
}

/* text and printf agree byte for byte: n values through tycho_text_g at
 * every precision, and through tycho_text_f0; counts the differences */
static int differences(const double *v, size_t n)
{
    int wrong = 0;
    for (size_t i = 0; i < n; i++) {
        for (int p = 1; p <= 17; p++) {
            char want[400];
            snprintf(want, sizeof want, "%.*g", p, v[i]);
            tycho_text b = {0};
            tycho_text_g(&b, v[i], p);
            tycho_text_put(&b, "", 0);
            if (b.len != strlen(want) || memcmp(b.p, want, b.len) != 0) {
                if (wrong++ < 5)
                    fprintf(stderr, "%%.%dg of %.17g: '%.*s', printf '%s'\n", p, v[i], (int)b.len,
                            b.p, want);
            }
            tycho_text_free(&b);
        }
        char want[400];
        snprintf(want, sizeof want, "%.0f", v[i]);
        tycho_text b = {0};
        tycho_text_f0(&b, v[i]);
        if (b.len != strlen(want) || memcmp(b.p, want, b.len) != 0) {
            if (wrong++ < 5)
                fprintf(stderr, "%%.0f of %.17g: '%.*s', printf '%s'\n", v[i], (int)b.len, b.p,
                        want);
        }
        tycho_text_free(&b);
    }
    return wrong;
}

/* the hand-made number formatting against printf: random magnitudes, the
 * ties (x.5 at every scale), the edges of the fixed form (1e-4, 10^P),
 * nines that round up, zeros of both signs, the robot's sines and cosines */
static void numbers_as_printf(void)
{
    static const double edges[] = {0.0,        -0.0,     0.5,          1.5,
                                   2.5,        -2.5,     0.125,        1e-4,
                                   9.99999e-5, 1e-5,     1e9,          999999999.5,
                                   99999.95,   999999.5, 9.9999995,    0.99999995,
                                   123456.5,   1234565,  0.0001234565, 1e15,
                                   9e15,       -9e15,    1e300,        5e-324,
                                   1.0 / 3,    2.0 / 3,  100,          1e8,
                                   123456789,  0.1,      0.3,          4503599627370495.5};
    int wrong = differences(edges, sizeof edges / sizeof edges[0]);
    enum { N = 40000 };
    static double v[N];
    unsigned long long seed = 42;
    for (size_t i = 0; i < N; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        double m = (double)(seed >> 11) / 9007199254740992.0; /* [0, 1) */
        int e = (int)((seed >> 3) % 20) - 8;
        switch (i % 4) {
        case 0:
            v[i] = m * pow(10, e);
            break; /* any digits */
        case 1:
            v[i] = (floor(m * 1e6) + 0.5) / pow(10, (int)(seed % 7));
            break; /* near ties */
        case 2:
            v[i] = sin(m * 20 - 10) * ((seed >> 5) % 2 ? 1 : 0.001);
            break; /* sines */
        default:
            v[i] = round(m * 2e6 - 1e6) / 1000;
            break; /* millimetres */
        }
        if ((seed >> 7) % 2) v[i] = -v[i];
    }
    wrong += differences(v, N);
    tycho_text b = {0};
    tycho_text_int(&b, -9223372036854775807LL - 1);
    tycho_text_int(&b, 0);
    tycho_text_int(&b, 1234567);
    tycho_text_put(&b, "", 1);
    CHECK_MSG(b.p && strcmp(b.p, "-9223372036854775808"
                                 "0"
                                 "1234567") == 0,
              "ints: '%s'", b.p ? b.p : "");
    tycho_text_free(&b);
    CHECK_MSG(wrong == 0, "%d numbers written unlike printf", wrong);
}

static void thinning(void)
{
    size_t pick[5];
    CHECK(tycho_viz_thin(3, 0, NULL) == 3 && tycho_viz_thin(3, 5, NULL) == 3);
    CHECK(tycho_viz_thin(101, 5, pick) == 5);
    CHECK(pick[0] == 0 && pick[1] == 25 && pick[2] == 50 && pick[4] == 100);
}

int main(void)
{
    templates();
    grid_box();
    known_box_matches();
    numbers_as_printf();
    thinning();
    return check_summary("test_viz_json");
}
