/* CARMEN log reader (format in tycho/carmen.h). One pass over the text,
 * line by line; the arrays grow by doubling. Numbers go through strtod and
 * must be finite: a log is data from a robot, and a NaN pose or range would
 * travel silently into a map. */
#include "tycho/carmen.h"

#include "image_internal.h" /* tycho_read_file */

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *p, *end; /* the rest of the current line */
    const char *name;
    size_t line;
    tycho_err *err;
} cursor;

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* The next blank-separated token of the line, or false at its end. */
static bool next_token(cursor *c, const char **tok, size_t *len)
{
    while (c->p < c->end && is_blank(*c->p)) c->p++;
    if (c->p >= c->end) return false;
    const char *s = c->p;
    while (c->p < c->end && !is_blank(*c->p)) c->p++;
    *tok = s;
    *len = (size_t)(c->p - s);
    return true;
}

static tycho_status bad(cursor *c, const char *what, const char *field)
{
    return tycho_fail(c->err, TYCHO_EPARSE, "%s:%zu: %s: %s missing or not a finite number",
                      c->name, c->line, what, field);
}

/* A finite number; `field` names it in the error. */
static tycho_status number(cursor *c, const char *what, const char *field, double *out)
{
    const char *tok;
    size_t len;
    if (!next_token(c, &tok, &len)) return bad(c, what, field);
    char buf[64];
    if (len >= sizeof buf) return bad(c, what, field);
    memcpy(buf, tok, len);
    buf[len] = '\0';
    char *stop;
    double v = strtod(buf, &stop);
    if (stop != buf + len || !isfinite(v)) return bad(c, what, field);
    *out = v;
    return TYCHO_OK;
}

static tycho_status grow(void **items, size_t *cap, size_t need, size_t size, tycho_err *err)
{
    if (need <= *cap) return TYCHO_OK;
    size_t n = *cap ? *cap : 256;
    while (n < need) n *= 2;
    void *p = realloc(*items, n * size);
    if (!p) return tycho_fail(err, TYCHO_ENOMEM, "out of memory reading a CARMEN log");
    *items = p;
    *cap = n;
    return TYCHO_OK;
}

typedef struct {
    tycho_carmen_log *log;
    size_t cap_odom, cap_lasers, cap_ranges;
} builder;

static tycho_status parse_pose(cursor *c, const char *what, const char *names[3], tycho_pose2 *p)
{
    if (number(c, what, names[0], &p->x) || number(c, what, names[1], &p->y) ||
        number(c, what, names[2], &p->yaw))
        return TYCHO_EPARSE;
    return TYCHO_OK;
}

static tycho_status parse_odom(cursor *c, builder *b)
{
    tycho_carmen_log *log = b->log;
    if (grow((void **)&log->odom, &b->cap_odom, log->n_odom + 1, sizeof *log->odom, c->err))
        return TYCHO_ENOMEM;
    tycho_carmen_odom o;
    double accel;
    static const char *xyt[3] = {"x", "y", "theta"};
    if (parse_pose(c, "ODOM", xyt, &o.pose) || number(c, "ODOM", "tv", &o.tv) ||
        number(c, "ODOM", "rv", &o.rv) || number(c, "ODOM", "accel", &accel) ||
        number(c, "ODOM", "timestamp", &o.t))
        return TYCHO_EPARSE;
    log->odom[log->n_odom++] = o;
    return TYCHO_OK;
}

static tycho_status parse_laser(cursor *c, builder *b, bool rear)
{
    const char *what = rear ? "RLASER" : "FLASER";
    tycho_carmen_log *log = b->log;
    double n;
    if (number(c, what, "number of readings", &n)) return TYCHO_EPARSE;
    if (n != floor(n) || n < 1 || n > TYCHO_CARMEN_MAX_READINGS)
        return tycho_fail(c->err, TYCHO_EPARSE, "%s:%zu: %s: number of readings must be 1..%d",
                          c->name, c->line, what, TYCHO_CARMEN_MAX_READINGS);
    int count = (int)n;
    if (grow((void **)&log->ranges, &b->cap_ranges, log->n_ranges + (size_t)count,
             sizeof *log->ranges, c->err) ||
        grow((void **)&log->lasers, &b->cap_lasers, log->n_lasers + 1, sizeof *log->lasers, c->err))
        return TYCHO_ENOMEM;
    tycho_carmen_laser l = {
        .rear = rear, .count = count, .first = log->n_ranges, .odom_before = log->n_odom};
    for (int i = 0; i < count; i++) {
        double r;
        if (number(c, what, "reading", &r)) {
            return tycho_fail(c->err, TYCHO_EPARSE,
                              "%s:%zu: %s: reading %d of %d missing or not a number", c->name,
                              c->line, what, i + 1, count);
        }
        if (r < 0)
            return tycho_fail(c->err, TYCHO_EPARSE, "%s:%zu: %s: reading %d is negative", c->name,
                              c->line, what, i + 1);
        /* stored as float: a reading past its range would become infinity */
        if (r > TYCHO_CARMEN_MAX_RANGE)
            return tycho_fail(c->err, TYCHO_EPARSE, "%s:%zu: %s: reading %d is beyond %g m",
                              c->name, c->line, what, i + 1, TYCHO_CARMEN_MAX_RANGE);
        log->ranges[l.first + (size_t)i] = (float)r;
    }
    static const char *xyt[3] = {"x", "y", "theta"};
    static const char *oxyt[3] = {"odom_x", "odom_y", "odom_theta"};
    if (parse_pose(c, what, xyt, &l.pose) || parse_pose(c, what, oxyt, &l.odom) ||
        number(c, what, "timestamp", &l.t))
        return TYCHO_EPARSE;
    log->n_ranges += (size_t)count;
    log->lasers[log->n_lasers++] = l;
    return TYCHO_OK;
}

tycho_status tycho_carmen_parse(const char *data, size_t len, const char *name,
                                tycho_carmen_log *out, tycho_err *err)
{
    memset(out, 0, sizeof *out);
    if (!data && len) return tycho_fail(err, TYCHO_EINVAL, "%s: no data", name ? name : "log");
    builder b = {.log = out};
    cursor c = {.name = name ? name : "log", .err = err};
    const char *p = data, *end = data + len;
    tycho_status st = TYCHO_OK;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        c.p = p;
        c.end = eol;
        c.line++;
        const char *tok;
        size_t n;
        if (next_token(&c, &tok, &n) && tok[0] != '#') {
            if (n == 4 && memcmp(tok, "ODOM", 4) == 0) st = parse_odom(&c, &b);
            else if (n == 6 && memcmp(tok, "FLASER", 6) == 0) st = parse_laser(&c, &b, false);
            else if (n == 6 && memcmp(tok, "RLASER", 6) == 0) st = parse_laser(&c, &b, true);
            else out->n_ignored++;
            if (st != TYCHO_OK) break;
        }
        p = eol + 1;
    }
    out->n_lines = c.line;
    if (st != TYCHO_OK) {
        tycho_carmen_free(out);
        return st;
    }
    return TYCHO_OK;
}

tycho_status tycho_carmen_load(const char *path, tycho_carmen_log *out, tycho_err *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *data;
    size_t size;
    tycho_status st = tycho_read_file(path, &data, &size, err);
    if (st != TYCHO_OK) return st;
    st = tycho_carmen_parse((const char *)data, size, path, out, err);
    free(data);
    return st;
}

void tycho_carmen_free(tycho_carmen_log *log)
{
    if (!log) return;
    free(log->odom);
    free(log->lasers);
    free(log->ranges);
    memset(log, 0, sizeof *log);
}

static double wrap_angle(double a) { return atan2(sin(a), cos(a)); }

tycho_pose2 tycho_carmen_wheel_at(const tycho_carmen_log *log, size_t i)
{
    const tycho_carmen_laser *l = &log->lasers[i];
    size_t n = log->n_odom, after = l->odom_before < n ? l->odom_before : n - 1;
    size_t before = l->odom_before > 0 ? l->odom_before - 1 : 0;
    const tycho_carmen_odom *a = &log->odom[before], *b = &log->odom[after];
    if (before == after || l->t <= a->t) return a->pose;
    if (l->t >= b->t) return b->pose;
    double f = (l->t - a->t) / (b->t - a->t);
    return (tycho_pose2){a->pose.x + f * (b->pose.x - a->pose.x),
                         a->pose.y + f * (b->pose.y - a->pose.y),
                         wrap_angle(a->pose.yaw + f * wrap_angle(b->pose.yaw - a->pose.yaw))};
}
