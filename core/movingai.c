/* MovingAI .map and .scen loaders (formats and coordinate flip: movingai.h).
 * Parsing works on an explicit (pointer, length) buffer, never on C strings,
 * so embedded NULs and missing final newlines are handled like any input. */
#include "tycho/movingai.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Refuse absurd files before reading them: the largest legal map is
 * 2^28 cells plus line ends and header. */
#define MAX_FILE_BYTES ((size_t)300 << 20)

typedef struct {
    const char *p, *end;
    int lineno; /* of the line last returned */
} reader;

/* Next line without its "\n" / "\r\n"; false at end of input. */
static bool next_line(reader *r, const char **s, size_t *n)
{
    if (r->p >= r->end) return false;
    const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    const char *e = nl ? nl : r->end;
    *s = r->p;
    *n = (size_t)(e - r->p);
    if (*n && (*s)[*n - 1] == '\r') (*n)--;
    r->p = nl ? nl + 1 : r->end;
    r->lineno++;
    return true;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void trim(const char **s, size_t *n)
{
    while (*n && is_blank(**s)) (*s)++, (*n)--;
    while (*n && is_blank((*s)[*n - 1])) (*n)--;
}

/* Splits on runs of blanks; returns the number of fields (up to max). */
static int split(const char *s, size_t n, const char **f, size_t *fl, int max)
{
    int k = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && is_blank(s[i])) i++;
        if (i >= n) break;
        size_t j = i;
        while (j < n && !is_blank(s[j])) j++;
        if (k < max) {
            f[k] = s + i;
            fl[k] = j - i;
        }
        k++;
        i = j;
    }
    return k;
}

static bool word_is(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && memcmp(s, w, n) == 0;
}

/* Strict decimal integer in [lo, hi]. */
static bool parse_int(const char *s, size_t n, long lo, long hi, long *out)
{
    if (n == 0 || n > 18) return false;
    long v = 0;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '-' || s[0] == '+') {
        neg = s[0] == '-';
        i = 1;
        if (n == 1) return false;
    }
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
    }
    if (neg) v = -v;
    if (v < lo || v > hi) return false;
    *out = v;
    return true;
}

static bool parse_double(const char *s, size_t n, double *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *e;
    errno = 0;
    double v = strtod(buf, &e);
    if (e != buf + n || errno == ERANGE || !isfinite(v)) return false;
    *out = v;
    return true;
}

/* Printable rendering of a byte for error messages. */
static const char *show_char(char c, char buf[8])
{
    unsigned char u = (unsigned char)c;
    if (u >= 0x20 && u < 0x7f) snprintf(buf, 8, "'%c'", c);
    else snprintf(buf, 8, "0x%02x", u);
    return buf;
}

static tycho_status read_file(const char *path, char **data, size_t *len, tycho_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return tycho_fail(err, TYCHO_EIO, "%s: cannot open: %s", path, strerror(errno));
    tycho_status st;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) goto oom;
    for (;;) {
        if (n == cap) {
            if (cap >= MAX_FILE_BYTES) {
                st = tycho_fail(err, TYCHO_EPARSE, "%s: file larger than %zu bytes", path,
                                MAX_FILE_BYTES);
                goto fail;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) goto oom;
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        st = tycho_fail(err, TYCHO_EIO, "%s: read error", path);
        goto fail;
    }
    fclose(f);
    *data = buf;
    *len = n;
    return TYCHO_OK;
oom:
    st = tycho_fail(err, TYCHO_ENOMEM, "%s: out of memory reading the file", path);
fail:
    free(buf);
    fclose(f);
    return st;
}

/* --- .map ------------------------------------------------------------------- */

/* 0 passable, 254 blocked, -1 not a map character. */
static int cell_cost(char c)
{
    switch (c) {
    case '.':
    case 'G':
    case 'S':
        return TYCHO_COST_FREE;
    case '@':
    case 'O':
    case 'T':
    case 'W':
        return TYCHO_COST_LETHAL;
    default:
        return -1;
    }
}

tycho_grid *tycho_movingai_parse_map(const char *data, size_t len, const char *name, tycho_err *err)
{
    if (!name) name = "<map>";
    reader r = {data, data + len, 0};
    const char *s;
    size_t n;
    long w = -1, h = -1;
    bool have_type = false, have_map = false;
    while (!have_map && next_line(&r, &s, &n)) {
        trim(&s, &n);
        const char *f[3];
        size_t fl[3];
        int k = split(s, n, f, fl, 3);
        if (k == 0) continue; /* blank header lines are harmless */
        if (k == 1 && word_is(f[0], fl[0], "map")) {
            have_map = true;
        } else if (k == 2 && word_is(f[0], fl[0], "type")) {
            if (!word_is(f[1], fl[1], "octile")) {
                tycho_fail(err, TYCHO_EPARSE, "%s:%d: unsupported map type '%.*s' (only octile)",
                           name, r.lineno, (int)(fl[1] > 32 ? 32 : fl[1]), f[1]);
                return NULL;
            }
            have_type = true;
        } else if (k == 2 && (word_is(f[0], fl[0], "height") || word_is(f[0], fl[0], "width"))) {
            bool is_h = f[0][0] == 'h';
            long v;
            if (!parse_int(f[1], fl[1], 1, TYCHO_MOVINGAI_MAX_SIDE, &v)) {
                tycho_fail(err, TYCHO_EPARSE, "%s:%d: %s must be an integer 1..%d", name, r.lineno,
                           is_h ? "height" : "width", TYCHO_MOVINGAI_MAX_SIDE);
                return NULL;
            }
            if ((is_h ? h : w) != -1) {
                tycho_fail(err, TYCHO_EPARSE, "%s:%d: duplicate %s", name, r.lineno,
                           is_h ? "height" : "width");
                return NULL;
            }
            if (is_h) h = v;
            else w = v;
        } else {
            tycho_fail(err, TYCHO_EPARSE,
                       "%s:%d: bad header line (expected 'type octile', 'height H', "
                       "'width W' or 'map')",
                       name, r.lineno);
            return NULL;
        }
    }
    if (!have_map || !have_type || w < 0 || h < 0) {
        tycho_fail(err, TYCHO_EPARSE, "%s:%d: incomplete header: missing %s", name, r.lineno,
                   !have_type ? "'type octile'"
                   : h < 0    ? "'height'"
                   : w < 0    ? "'width'"
                              : "'map'");
        return NULL;
    }
    if ((uint64_t)w * (uint64_t)h > (1u << 28)) {
        tycho_fail(err, TYCHO_EPARSE, "%s:%d: map %ldx%ld is too large", name, r.lineno, w, h);
        return NULL;
    }
    tycho_pose2 origin = {0, 0, 0};
    tycho_err gerr = {0};
    tycho_grid *g = tycho_grid_new((int)w, (int)h, 1.0, origin, TYCHO_COST_LETHAL, &gerr);
    if (!g) {
        tycho_fail(err, gerr.code, "%s: %s", name, gerr.msg);
        return NULL;
    }
    uint8_t *cells = tycho_grid_cells(g);
    for (long y = 0; y < h; y++) {
        if (!next_line(&r, &s, &n)) {
            tycho_fail(err, TYCHO_EPARSE, "%s:%d: expected %ld map rows, found %ld", name, r.lineno,
                       h, y);
            goto fail;
        }
        if ((long)n != w) {
            tycho_fail(err, TYCHO_EPARSE, "%s:%d: map row %ld has %zu cells, expected %ld", name,
                       r.lineno, y + 1, n, w);
            goto fail;
        }
        uint8_t *row = cells + (size_t)(h - 1 - y) * (size_t)w; /* flip: see movingai.h */
        for (long x = 0; x < w; x++) {
            int c = cell_cost(s[x]);
            if (c < 0) {
                char cb[8];
                tycho_fail(err, TYCHO_EPARSE, "%s:%d: bad map character %s at column %ld", name,
                           r.lineno, show_char(s[x], cb), x + 1);
                goto fail;
            }
            row[x] = (uint8_t)c;
        }
    }
    while (next_line(&r, &s, &n)) {
        trim(&s, &n);
        if (n) {
            tycho_fail(err, TYCHO_EPARSE, "%s:%d: unexpected data after %ld map rows", name,
                       r.lineno, h);
            goto fail;
        }
    }
    return g;
fail:
    tycho_grid_free(g);
    return NULL;
}

tycho_grid *tycho_movingai_load_map(const char *path, tycho_err *err)
{
    char *data;
    size_t len;
    if (read_file(path, &data, &len, err) != TYCHO_OK) return NULL;
    tycho_grid *g = tycho_movingai_parse_map(data, len, path, err);
    free(data);
    return g;
}

/* --- .scen ------------------------------------------------------------------ */

static const char *const FIELD_NAMES[9] = {"bucket", "map", "width", "height",        "sx",
                                           "sy",     "gx",  "gy",    "optimal length"};

tycho_status tycho_movingai_parse_scen(const char *data, size_t len, const char *name,
                                       tycho_movingai_scen *out, tycho_err *err)
{
    if (!name) name = "<scen>";
    out->items = NULL;
    out->count = 0;
    reader r = {data, data + len, 0};
    const char *s;
    size_t n;
    bool have_version = false;
    size_t cap = 0;
    tycho_movingai_query *items = NULL;
    size_t count = 0;
    tycho_status st = TYCHO_OK;
    while (next_line(&r, &s, &n)) {
        trim(&s, &n);
        if (!n) continue;
        const char *f[9];
        size_t fl[9];
        int k = split(s, n, f, fl, 9);
        if (!have_version) {
            if (k == 2 && word_is(f[0], fl[0], "version") &&
                (word_is(f[1], fl[1], "1") || word_is(f[1], fl[1], "1.0"))) {
                have_version = true;
                continue;
            }
            st = tycho_fail(err, TYCHO_EPARSE, "%s:%d: expected 'version 1'", name, r.lineno);
            goto fail;
        }
        if (k != 9) {
            st = tycho_fail(err, TYCHO_EPARSE,
                            "%s:%d: expected 9 fields (bucket map width height sx sy gx gy "
                            "optimal_length), got %d",
                            name, r.lineno, k);
            goto fail;
        }
        long v[8];
        int bad = -1;
        if (!parse_int(f[0], fl[0], 0, INT_MAX, &v[0])) bad = 0;
        for (int i = 2; bad < 0 && i < 4; i++)
            if (!parse_int(f[i], fl[i], 1, TYCHO_MOVINGAI_MAX_SIDE, &v[i])) bad = i;
        for (int i = 4; bad < 0 && i < 8; i++) {
            long lim = (i == 4 || i == 6) ? v[2] : v[3];
            if (!parse_int(f[i], fl[i], 0, lim - 1, &v[i])) bad = i;
        }
        double opt = 0;
        if (bad < 0 && (!parse_double(f[8], fl[8], &opt) || opt < 0)) bad = 8;
        if (bad >= 0) {
            const char *why = bad >= 4 && bad < 8 ? " (integer inside the map expected)"
                              : bad == 8          ? " (number >= 0 expected)"
                              : bad == 0          ? " (integer >= 0 expected)"
                                                  : " (integer 1..65536 expected)";
            st = tycho_fail(err, TYCHO_EPARSE, "%s:%d: bad %s '%.*s'%s", name, r.lineno,
                            FIELD_NAMES[bad], (int)(fl[bad] > 32 ? 32 : fl[bad]), f[bad], why);
            goto fail;
        }
        if (count == cap) {
            size_t nc = cap ? cap * 2 : 64;
            tycho_movingai_query *ni = realloc(items, nc * sizeof *ni);
            if (!ni) {
                st = tycho_fail(err, TYCHO_ENOMEM, "%s:%d: out of memory", name, r.lineno);
                goto fail;
            }
            items = ni;
            cap = nc;
        }
        tycho_movingai_query *q = &items[count++];
        q->bucket = (int)v[0];
        q->width = (int)v[2];
        q->height = (int)v[3];
        q->start.x = (int32_t)v[4];
        q->start.y = (int32_t)(v[3] - 1 - v[5]);
        q->goal.x = (int32_t)v[6];
        q->goal.y = (int32_t)(v[3] - 1 - v[7]);
        q->optimal = opt;
        size_t ml = fl[1] < sizeof q->map ? fl[1] : sizeof q->map - 1;
        memcpy(q->map, f[1], ml);
        q->map[ml] = '\0';
    }
    if (!have_version) {
        st = tycho_fail(err, TYCHO_EPARSE, "%s:%d: empty scenario (expected 'version 1')", name,
                        r.lineno > 0 ? r.lineno : 1);
        goto fail;
    }
    out->items = items;
    out->count = count;
    return TYCHO_OK;
fail:
    free(items);
    return st;
}

tycho_status tycho_movingai_load_scen(const char *path, tycho_movingai_scen *out, tycho_err *err)
{
    out->items = NULL;
    out->count = 0;
    char *data;
    size_t len;
    tycho_status st = read_file(path, &data, &len, err);
    if (st != TYCHO_OK) return st;
    st = tycho_movingai_parse_scen(data, len, path, out, err);
    free(data);
    return st;
}

void tycho_movingai_scen_free(tycho_movingai_scen *s)
{
    if (!s) return;
    free(s->items);
    s->items = NULL;
    s->count = 0;
}
