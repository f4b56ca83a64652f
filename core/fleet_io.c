/* Fleet input files: see fleet_io.h. */
#include "tycho/fleet_io.h"

#include "image_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tycho_status tycho_read_text_file(const char *path, char **text, size_t *len, tycho_err *err)
{
    uint8_t *data;
    tycho_status st = tycho_read_file(path, &data, len, err); /* bounded, regular files only */
    if (st != TYCHO_OK) {
        *text = NULL;
        return st;
    }
    data[*len] = 0; /* it allocates one byte more */
    *text = (char *)data;
    return TYCHO_OK;
}

static int by_robot(const void *a, const void *b)
{
    return ((const tycho_fleet_pose *)a)->robot - ((const tycho_fleet_pose *)b)->robot;
}

/* Next line [*pos, end) into buf (truncated), advancing *pos; false at end. */
static bool next_line(const char *text, size_t len, size_t *pos, char *buf, size_t cap)
{
    if (*pos >= len) return false;
    size_t s = *pos, e = s;
    while (e < len && text[e] != '\n') e++;
    size_t n = e - s < cap - 1 ? e - s : cap - 1;
    memcpy(buf, text + s, n);
    buf[n] = 0;
    *pos = e < len ? e + 1 : e;
    return true;
}

static tycho_status push(tycho_fleet_pose **out, int *n, int *cap, tycho_fleet_pose p,
                         tycho_err *err)
{
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 32;
        tycho_fleet_pose *o = realloc(*out, (size_t)c * sizeof *o);
        if (!o) return tycho_fail(err, TYCHO_ENOMEM, "out of memory");
        *out = o, *cap = c;
    }
    (*out)[(*n)++] = p;
    return TYCHO_OK;
}

static tycho_status finish(tycho_fleet_pose **out, int *n, const char *name, tycho_err *err)
{
    if (*n == 0) {
        free(*out);
        *out = NULL;
        return tycho_fail(err, TYCHO_EPARSE, "%s: no robot found", name);
    }
    qsort(*out, (size_t)*n, sizeof **out, by_robot);
    for (int i = 1; i < *n; i++)
        if ((*out)[i].robot == (*out)[i - 1].robot) {
            int r = (*out)[i].robot;
            free(*out);
            *out = NULL;
            *n = 0;
            return tycho_fail(err, TYCHO_EPARSE, "%s: robot_%d appears twice", name, r);
        }
    return TYCHO_OK;
}

static tycho_status fail_free(tycho_fleet_pose **out, int *n, tycho_status st)
{
    free(*out);
    *out = NULL;
    *n = 0;
    return st;
}

/* Stage world files: models are ( ... ) blocks; a robot's block has
 * `name "robot_N"` and `pose [ x y z yaw_deg ]`, in either order. Besides
 * reading the poses, the structure is checked so that a file cut off
 * part-way is refused rather than read as a smaller fleet: parentheses
 * must balance (comments and strings aside) and every named robot needs a
 * pose in its block. */
#define STAGE_MAX_DEPTH 64

typedef struct {
    int robot, line; /* robot -1: no name seen in this block yet */
    bool has_pose;
    double x, y, yaw;
} stage_block;

/* true when the text before `at` on the line has no comment mark */
static bool before_comment(const char *buf, const char *at)
{
    const char *hash = strchr(buf, '#');
    return !hash || hash > at;
}

/* The block at `b` closes (or the file ends): its robot, if any, is complete. */
static tycho_status close_block(stage_block *b, const char *name, tycho_fleet_pose **out, int *n,
                                int *cap, tycho_err *err)
{
    if (b->robot < 0) return TYCHO_OK;
    if (!b->has_pose)
        return tycho_fail(err, TYCHO_EPARSE, "%s:%d: robot_%d has no pose", name, b->line,
                          b->robot);
    return push(out, n, cap, (tycho_fleet_pose){b->robot, b->x, b->y, b->yaw, b->line}, err);
}

tycho_status tycho_stage_poses(const char *text, size_t len, const char *name,
                               tycho_fleet_pose **out, int *n, tycho_err *err)
{
    *out = NULL;
    *n = 0;
    int cap = 0, line = 0, depth = 0, open_line[STAGE_MAX_DEPTH + 1];
    stage_block blocks[STAGE_MAX_DEPTH + 1]; /* [0]: outside every block */
    memset(&blocks[0], 0, sizeof blocks[0]);
    blocks[0].robot = -1;
    open_line[0] = 0;
    size_t pos = 0;
    char buf[512];
    tycho_status st;
    while (next_line(text, len, &pos, buf, sizeof buf)) {
        line++;
        stage_block *b = &blocks[depth];
        const char *q = strstr(buf, "name \"robot_");
        if (q && before_comment(buf, q)) {
            char *end;
            long r = strtol(q + 12, &end, 10);
            if (end == q + 12 || *end != '"' || r < 0 || r > 1000000)
                return fail_free(
                    out, n, tycho_fail(err, TYCHO_EPARSE, "%s:%d: bad robot name", name, line));
            if (b->robot >= 0)
                return fail_free(out, n,
                                 tycho_fail(err, TYCHO_EPARSE,
                                            "%s:%d: a second name in robot_%d's block", name, line,
                                            b->robot));
            b->robot = (int)r;
            b->line = line;
        }
        const char *p = strstr(buf, "pose [");
        if (p && before_comment(buf, p)) {
            double x, y, z, yaw;
            if (sscanf(p + 6, "%lf %lf %lf %lf", &x, &y, &z, &yaw) != 4 || !isfinite(x) ||
                !isfinite(y) || !isfinite(yaw) || fabs(x) > 1e7 || fabs(y) > 1e7 || fabs(yaw) > 1e6)
                return fail_free(
                    out, n,
                    tycho_fail(err, TYCHO_EPARSE,
                               "%s:%d: pose [ x y z yaw_deg ] expected (finite; |x|, |y| <= 1e7 m)",
                               name, line));
            b->has_pose = true;
            b->x = x, b->y = y, b->yaw = yaw * M_PI / 180;
        }
        /* the structure: blocks, strings and comments (Stage strings end on their line) */
        bool in_string = false;
        for (const char *c = buf; *c; c++) {
            if (in_string) {
                in_string = *c != '"';
                continue;
            }
            if (*c == '#') break;
            if (*c == '"') {
                in_string = true;
            } else if (*c == '(') {
                if (depth >= STAGE_MAX_DEPTH)
                    return fail_free(
                        out, n,
                        tycho_fail(err, TYCHO_EPARSE, "%s:%d: blocks nested too deep", name, line));
                depth++;
                open_line[depth] = line;
                memset(&blocks[depth], 0, sizeof blocks[depth]);
                blocks[depth].robot = -1;
            } else if (*c == ')') {
                if (depth == 0)
                    return fail_free(
                        out, n,
                        tycho_fail(err, TYCHO_EPARSE, "%s:%d: ')' without '('", name, line));
                if ((st = close_block(&blocks[depth], name, out, n, &cap, err)) != TYCHO_OK)
                    return fail_free(out, n, st);
                depth--;
            }
        }
    }
    if (depth > 0)
        return fail_free(
            out, n,
            tycho_fail(err, TYCHO_EPARSE,
                       "%s:%d: the file ends inside the block opened at line %d (cut off?)", name,
                       line, open_line[depth]));
    if ((st = close_block(&blocks[0], name, out, n, &cap, err)) != TYCHO_OK)
        return fail_free(out, n, st);
    return finish(out, n, name, err);
}

tycho_status tycho_goal_file(const char *text, size_t len, const char *name, tycho_fleet_pose **out,
                             int *n, tycho_err *err)
{
    *out = NULL;
    *n = 0;
    int cap = 0, line = 0;
    size_t pos = 0;
    char buf[512];
    while (next_line(text, len, &pos, buf, sizeof buf)) {
        line++;
        const char *s = buf;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s) continue; /* blank line */
        if (strncmp(s, "robot_", 6) != 0) continue;
        char *end;
        long r = strtol(s + 6, &end, 10);
        while (*end == ' ' || *end == '\t' || *end == '\r') end++;
        if (end == s + 6 || *end || r < 0 || r > 1000000)
            return fail_free(out, n,
                             tycho_fail(err, TYCHO_EPARSE, "%s:%d: bad robot name", name, line));
        if (!next_line(text, len, &pos, buf, sizeof buf))
            return fail_free(
                out, n,
                tycho_fail(err, TYCHO_EPARSE, "%s:%d: robot_%ld has no pose line", name, line, r));
        line++;
        double v[7];
        int robot_line = line;
        if (sscanf(buf, " %lf , %lf , %lf , %lf , %lf , %lf , %lf", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6]) != 7 ||
            !isfinite(v[0]) || !isfinite(v[1]) || fabs(v[0]) > 1e7 || fabs(v[1]) > 1e7 ||
            !isfinite(v[3]) || !isfinite(v[4]) || !isfinite(v[5]) || !isfinite(v[6]))
            return fail_free(
                out, n,
                tycho_fail(err, TYCHO_EPARSE,
                           "%s:%d: 'x, y, z, qx, qy, qz, qw' expected (finite, |x|, |y| <= 1e7 m)",
                           name, line));
        double yaw = atan2(2 * (v[6] * v[5] + v[3] * v[4]), 1 - 2 * (v[4] * v[4] + v[5] * v[5]));
        tycho_status st =
            push(out, n, &cap, (tycho_fleet_pose){(int)r, v[0], v[1], yaw, robot_line - 1}, err);
        if (st != TYCHO_OK) return fail_free(out, n, st);
    }
    return finish(out, n, name, err);
}
