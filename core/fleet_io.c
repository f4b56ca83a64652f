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

static tycho_status push(tycho_fleet_pose **out, int *n, int *cap, tycho_fleet_pose p, tycho_err *err)
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

tycho_status tycho_stage_poses(const char *text, size_t len, const char *name,
                               tycho_fleet_pose **out, int *n, tycho_err *err)
{
    *out = NULL;
    *n = 0;
    int cap = 0, line = 0, robot = -1;
    size_t pos = 0;
    char buf[512];
    while (next_line(text, len, &pos, buf, sizeof buf)) {
        line++;
        const char *q = strstr(buf, "name \"robot_");
        if (q) {
            char *end;
            long r = strtol(q + 12, &end, 10);
            if (end == q + 12 || *end != '"' || r < 0 || r > 1000000)
                return fail_free(out, n, tycho_fail(err, TYCHO_EPARSE, "%s:%d: bad robot name", name, line));
            robot = (int)r;
            continue;
        }
        const char *p = strstr(buf, "pose [");
        if (p && robot >= 0) {
            double x, y, z, yaw;
            if (sscanf(p + 6, "%lf %lf %lf %lf", &x, &y, &z, &yaw) != 4 || !isfinite(x) ||
                !isfinite(y) || !isfinite(yaw))
                return fail_free(out, n, tycho_fail(err, TYCHO_EPARSE,
                                                    "%s:%d: pose [ x y z yaw_deg ] expected", name, line));
            tycho_status st = push(out, n, &cap, (tycho_fleet_pose){robot, x, y, yaw * M_PI / 180}, err);
            if (st != TYCHO_OK) return fail_free(out, n, st);
            robot = -1;
        }
    }
    return finish(out, n, name, err);
}

tycho_status tycho_goal_file(const char *text, size_t len, const char *name,
                             tycho_fleet_pose **out, int *n, tycho_err *err)
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
            return fail_free(out, n, tycho_fail(err, TYCHO_EPARSE, "%s:%d: bad robot name", name, line));
        if (!next_line(text, len, &pos, buf, sizeof buf))
            return fail_free(out, n, tycho_fail(err, TYCHO_EPARSE, "%s:%d: robot_%ld has no pose line", name, line, r));
        line++;
        double v[7];
        if (sscanf(buf, " %lf , %lf , %lf , %lf , %lf , %lf , %lf", &v[0], &v[1], &v[2], &v[3], &v[4],
                   &v[5], &v[6]) != 7 || !isfinite(v[0]) || !isfinite(v[1]))
            return fail_free(out, n, tycho_fail(err, TYCHO_EPARSE,
                                                "%s:%d: 'x, y, z, qx, qy, qz, qw' expected", name, line));
        double yaw = atan2(2 * (v[6] * v[5] + v[3] * v[4]), 1 - 2 * (v[4] * v[4] + v[5] * v[5]));
        tycho_status st = push(out, n, &cap, (tycho_fleet_pose){(int)r, v[0], v[1], yaw}, err);
        if (st != TYCHO_OK) return fail_free(out, n, st);
    }
    return finish(out, n, name, err);
}
