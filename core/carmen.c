/* CARMEN log reader (format in tycho/carmen.h). One pass over the text,
 * line by line; the arrays grow by doubling. Numbers go through strtod and
 * must be finite: a log is data from a robot, and a NaN pose or range would
 * travel silently into a map. */
#include "tycho/carmen.h"

#include "image_internal.h" /* tycho_read_file */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

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
    /* a pose 100 km out is a corrupt line, not a building: said here, with
     * its line, rather than as a map too large to allocate later */
    if (fabs(p->x) > TYCHO_CARMEN_MAX_COORD || fabs(p->y) > TYCHO_CARMEN_MAX_COORD)
        return tycho_fail(c->err, TYCHO_EPARSE, "%s:%zu: %s: %s, %s beyond %g m", c->name, c->line,
                          what, names[0], names[1], TYCHO_CARMEN_MAX_COORD);
    if (fabs(p->yaw) > 1e3)
        return tycho_fail(c->err, TYCHO_EPARSE, "%s:%zu: %s: %s beyond 1000 rad", c->name, c->line,
                          what, names[2]);
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

/* n readings of a laser line into the log's ranges (grown first); the
 * line's count checked. */
static tycho_status parse_readings(cursor *c, builder *b, const char *what, tycho_carmen_laser *l)
{
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
    l->count = count;
    l->first = log->n_ranges;
    l->odom_before = log->n_odom;
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
        log->ranges[l->first + (size_t)i] = (float)r;
    }
    return TYCHO_OK;
}

/* Counts the line's timestamp against the laser line before it. */
static void check_time(tycho_carmen_log *log, double t)
{
    double prev = log->n_lasers > 0 ? log->lasers[log->n_lasers - 1].t : NAN;
    if (t == 0) log->n_time_zero++;
    else if (t < prev - 1.0) log->n_time_backward++;
    else if (t == prev) log->n_time_repeated++;
}

/* Appends a parsed laser line (parse_readings made room for it). */
static tycho_status add_laser(builder *b, const tycho_carmen_laser *l)
{
    tycho_carmen_log *log = b->log;
    check_time(log, l->t);
    log->n_ranges += (size_t)l->count;
    log->lasers[log->n_lasers++] = *l;
    return TYCHO_OK;
}

static tycho_status parse_laser(cursor *c, builder *b, bool rear)
{
    const char *what = rear ? "RLASER" : "FLASER";
    tycho_carmen_laser l = {.rear = rear, .kind = rear ? TYCHO_CARMEN_RLASER : TYCHO_CARMEN_FLASER};
    if (parse_readings(c, b, what, &l)) return TYCHO_EPARSE;
    /* half a turn from -90 deg; an odd count has both ends (module header) */
    l.angle_min = -M_PI / 2;
    l.angle_increment = l.count > 1 ? M_PI / (l.count % 2 ? l.count - 1 : l.count) : 0;
    l.max_range = INFINITY; /* the log's saturation value, found at the end */
    static const char *xyt[3] = {"x", "y", "theta"};
    static const char *oxyt[3] = {"odom_x", "odom_y", "odom_theta"};
    if (parse_pose(c, what, xyt, &l.pose) || parse_pose(c, what, oxyt, &l.odom) ||
        number(c, what, "timestamp", &l.t))
        return TYCHO_EPARSE;
    return add_laser(b, &l);
}

/* A bounded number field of ROBOTLASER1. */
static tycho_status ranged(cursor *c, const char *field, double lo, double hi, double *out)
{
    if (number(c, "ROBOTLASER1", field, out)) return TYCHO_EPARSE;
    if (*out < lo || *out > hi)
        return tycho_fail(c->err, TYCHO_EPARSE, "%s:%zu: ROBOTLASER1: %s must be in [%g, %g]",
                          c->name, c->line, field, lo, hi);
    return TYCHO_OK;
}

static tycho_status parse_robotlaser(cursor *c, builder *b)
{
    const char *what = "ROBOTLASER1";
    tycho_carmen_laser l = {.kind = TYCHO_CARMEN_ROBOTLASER1};
    double fov, remissions, skip; /* skip: fields read and checked, not kept */
    if (number(c, what, "laser_type", &skip) ||
        ranged(c, "start_angle", -2 * M_PI, 2 * M_PI, &l.angle_min) ||
        ranged(c, "field_of_view", 0, 2 * M_PI + 1e-6, &fov) ||
        ranged(c, "angular_resolution", 1e-6, M_PI, &l.angle_increment) ||
        ranged(c, "maximum_range", 1e-3, TYCHO_CARMEN_MAX_RANGE, &l.max_range) ||
        number(c, what, "accuracy", &skip) || number(c, what, "remission_mode", &skip) ||
        parse_readings(c, b, what, &l))
        return TYCHO_EPARSE;
    if (number(c, what, "number of remissions", &remissions)) return TYCHO_EPARSE;
    if (remissions != floor(remissions) || remissions < 0 || remissions > TYCHO_CARMEN_MAX_READINGS)
        return tycho_fail(c->err, TYCHO_EPARSE, "%s:%zu: %s: number of remissions must be 0..%d",
                          c->name, c->line, what, TYCHO_CARMEN_MAX_READINGS);
    for (int i = 0; i < (int)remissions; i++)
        if (number(c, what, "remission", &skip)) return TYCHO_EPARSE;
    static const char *lxyt[3] = {"laser_x", "laser_y", "laser_theta"};
    static const char *rxyt[3] = {"robot_x", "robot_y", "robot_theta"};
    static const char *tail[5] = {"tv", "rv", "forward_safety_dist", "side_safety_dist",
                                  "turn_axis"};
    if (parse_pose(c, what, lxyt, &l.pose) || parse_pose(c, what, rxyt, &l.odom))
        return TYCHO_EPARSE;
    for (int i = 0; i < 5; i++)
        if (number(c, what, tail[i], &skip)) return TYCHO_EPARSE;
    if (number(c, what, "timestamp", &l.t)) return TYCHO_EPARSE;
    return add_laser(b, &l);
}

/* PARAM name value ...: the lasers' mounting; true when it was one of them. */
static tycho_status parse_param(cursor *c, builder *b, bool *known)
{
    static const struct {
        const char *name;
        bool rear;
        int field; /* 0 x (ahead), 1 y (side), 2 yaw */
    } params[] = {
        {"robot_frontlaser_offset", false, 0},         {"robot_frontlaser_side_offset", false, 1},
        {"robot_frontlaser_angular_offset", false, 2}, {"robot_rearlaser_offset", true, 0},
        {"robot_rearlaser_side_offset", true, 1},      {"robot_rearlaser_angular_offset", true, 2},
    };
    const char *tok;
    size_t len;
    *known = false;
    if (!next_token(c, &tok, &len)) return TYCHO_OK;
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
        if (strlen(params[i].name) != len || memcmp(params[i].name, tok, len) != 0) continue;
        double v;
        if (number(c, "PARAM", params[i].name, &v)) return TYCHO_EPARSE;
        if (fabs(v) > 100)
            return tycho_fail(c->err, TYCHO_EPARSE, "%s:%zu: PARAM: %s must be within 100", c->name,
                              c->line, params[i].name);
        tycho_pose2 *o = params[i].rear ? &b->log->rear_offset : &b->log->front_offset;
        double *f = params[i].field == 0 ? &o->x : params[i].field == 1 ? &o->y : &o->yaw;
        *f = v;
        *known = true;
    }
    return TYCHO_OK;
}

/* The no-return reading of FLASER (rear: RLASER) lines: the largest reading
 * of the log less 5 cm, when that top is a spike of the readings'
 * histogram: at least 10 readings and one in a thousand within 5 cm of it,
 * at least twice as many as in the 20 % below it, and not half the readings
 * (a saturation: walls are not all at one distance to the centimetre; the
 * Acapulco log's saturate at 51.14 and 51.15 m). Else none (infinity). */
static void find_saturation(tycho_carmen_log *log, tycho_carmen_kind kind)
{
    float top = 0;
    size_t total = 0, at_top = 0, below = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < log->n_lasers; i++) {
            const tycho_carmen_laser *l = &log->lasers[i];
            if (l->kind != kind) continue;
            const float *r = log->ranges + l->first;
            for (int k = 0; k < l->count; k++) {
                if (pass == 0) {
                    if (r[k] > top) top = r[k];
                    total++;
                } else if (r[k] >= top - 0.05f) {
                    at_top++;
                } else if (r[k] >= 0.8f * top) {
                    below++;
                }
            }
        }
    bool spike =
        at_top >= 10 && at_top * 1000 >= total && at_top >= 2 * below && at_top * 2 < total;
    double max_range = spike ? top - 0.05f : INFINITY;
    for (size_t i = 0; i < log->n_lasers; i++)
        if (log->lasers[i].kind == kind) log->lasers[i].max_range = max_range;
}

static void finish_log(tycho_carmen_log *log)
{
    find_saturation(log, TYCHO_CARMEN_FLASER);
    find_saturation(log, TYCHO_CARMEN_RLASER);
    size_t bad = log->n_time_zero + log->n_time_backward + log->n_time_repeated;
    log->times_usable = log->n_lasers == 0 || bad * 10 <= log->n_lasers;
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
            else if (n == 11 && memcmp(tok, "ROBOTLASER1", 11) == 0) st = parse_robotlaser(&c, &b);
            else if (n == 5 && memcmp(tok, "PARAM", 5) == 0) {
                bool known;
                st = parse_param(&c, &b, &known);
                if (!known) out->n_ignored++;
            } else out->n_ignored++;
            if (st != TYCHO_OK) break;
        }
        p = eol + 1;
    }
    out->n_lines = c.line;
    if (st != TYCHO_OK) {
        tycho_carmen_free(out);
        return st;
    }
    finish_log(out);
    return TYCHO_OK;
}

/* Most a compressed log may inflate to: ten times the largest public
 * CARMEN log, and what a robot's memory can hold. */
#define MAX_INFLATED ((size_t)1 << 30)

/* A gzip file inflated into a new buffer. */
static tycho_status gunzip(const char *path, const uint8_t *in, size_t n, uint8_t **out,
                           size_t *out_n, tycho_err *err)
{
    z_stream z = {0};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return tycho_fail(err, TYCHO_ENOMEM, "%s: out of memory inflating", path);
    size_t cap = n * 4 + 4096, used = 0;
    uint8_t *buf = malloc(cap);
    tycho_status st = TYCHO_OK;
    z.next_in = (Bytef *)in;
    int zr = Z_OK;
    while (buf && zr != Z_STREAM_END) {
        if (used == cap) {
            if (cap >= MAX_INFLATED) {
                st = tycho_fail(err, TYCHO_ERANGE, "%s: inflates to more than %zu MB", path,
                                MAX_INFLATED >> 20);
                break;
            }
            cap = cap * 2 < MAX_INFLATED ? cap * 2 : MAX_INFLATED;
            uint8_t *grown = realloc(buf, cap);
            if (!grown) break;
            buf = grown;
        }
        size_t in_left = n - (size_t)(z.next_in - in);
        z.avail_in = in_left > UINT32_MAX ? UINT32_MAX : (uInt)in_left;
        z.next_out = buf + used;
        size_t room = cap - used;
        z.avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
        zr = inflate(&z, Z_NO_FLUSH);
        used = (size_t)(z.next_out - buf);
        if (zr == Z_STREAM_END) break;
        if (zr != Z_OK && !(zr == Z_BUF_ERROR && z.avail_out == 0)) {
            st = tycho_fail(err, TYCHO_EPARSE, "%s: not a valid gzip stream (%s)", path,
                            z.msg ? z.msg : "truncated");
            break;
        }
        if (z.avail_in == 0 && z.avail_out > 0 && zr != Z_STREAM_END) {
            st = tycho_fail(err, TYCHO_EPARSE, "%s: gzip stream truncated", path);
            break;
        }
    }
    inflateEnd(&z);
    if (!buf && st == TYCHO_OK)
        st = tycho_fail(err, TYCHO_ENOMEM, "%s: out of memory inflating", path);
    if (st != TYCHO_OK) {
        free(buf);
        return st;
    }
    if (!buf) return tycho_fail(err, TYCHO_ENOMEM, "%s: out of memory inflating", path);
    *out = buf;
    *out_n = used;
    return TYCHO_OK;
}

tycho_status tycho_carmen_load(const char *path, tycho_carmen_log *out, tycho_err *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *data;
    size_t size;
    tycho_status st = tycho_read_file(path, &data, &size, err);
    if (st != TYCHO_OK) return st;
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
        uint8_t *text = NULL;
        size_t n = 0;
        st = gunzip(path, data, size, &text, &n, err);
        free(data);
        if (st != TYCHO_OK) return st;
        data = text;
        size = n;
    }
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
    size_t n = log->n_odom;
    if (n == 0) return l->odom;
    size_t after = l->odom_before < n ? l->odom_before : n - 1;
    size_t before = l->odom_before > 0 ? l->odom_before - 1 : 0;
    const tycho_carmen_odom *a = &log->odom[before], *b = &log->odom[after];
    if (!log->times_usable) return a->pose;
    if (before == after || l->t <= a->t) return a->pose;
    if (l->t >= b->t) return b->pose;
    double f = (l->t - a->t) / (b->t - a->t);
    return (tycho_pose2){a->pose.x + f * (b->pose.x - a->pose.x),
                         a->pose.y + f * (b->pose.y - a->pose.y),
                         wrap_angle(a->pose.yaw + f * wrap_angle(b->pose.yaw - a->pose.yaw))};
}
