/* map_server YAML parsing (libyaml document API). See the semantics block at
 * the top of mapio.c; this file only turns text into a checked tycho_map_meta
 * with "file:line: what is wrong" messages. */
#include "image_internal.h"
#include "tycho/mapio.h"
#include "yaml_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

void tycho_map_meta_defaults(tycho_map_meta *meta)
{
    memset(meta, 0, sizeof *meta);
    meta->resolution = 0.05;
    meta->occupied_thresh = 0.65;
    meta->free_thresh = 0.25;
    meta->mode = TYCHO_MAP_TRINARY;
}

typedef struct {
    yaml_document_t *doc;
    const char *name;
    tycho_err *err;
} ctx;

static int line_of(const yaml_node_t *n) { return (int)n->start_mark.line + 1; }

static const char *kind_of(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_SEQUENCE_NODE:
        return "a list";
    case YAML_MAPPING_NODE:
        return "a mapping";
    default:
        return "a scalar";
    }
}

/* The scalar's text, or NULL (error set) if the node is not a clean scalar. */
static const char *scalar(ctx *c, const yaml_node_t *n, const char *key, const char *want)
{
    if (n->type != YAML_SCALAR_NODE) {
        tycho_fail(c->err, TYCHO_EPARSE, "%s:%d: %s must be %s, not %s", c->name, line_of(n), key,
                   want, kind_of(n));
        return NULL;
    }
    const char *s = (const char *)n->data.scalar.value;
    if (strlen(s) != n->data.scalar.length) {
        tycho_fail(c->err, TYCHO_EPARSE, "%s:%d: %s contains a NUL character", c->name, line_of(n),
                   key);
        return NULL;
    }
    return s;
}

/* A finite decimal number; YAML's .nan/.inf and hex forms are refused. */
static bool number(ctx *c, const yaml_node_t *n, const char *key, double *out)
{
    const char *s = scalar(c, n, key, "a number");
    if (!s) return false;
    bool ok = *s != '\0';
    for (const char *p = s; *p && ok; p++)
        ok = isdigit((unsigned char)*p) || *p == '.' || *p == '-' || *p == '+' || *p == 'e' ||
             *p == 'E';
    char *end = NULL;
    double v = ok ? strtod(s, &end) : 0;
    if (!ok || end == s || *end != '\0') {
        tycho_fail(c->err, TYCHO_EPARSE, "%s:%d: %s must be a number (got '%.40s')", c->name,
                   line_of(n), key, s);
        return false;
    }
    if (!isfinite(v)) {
        tycho_fail(c->err, TYCHO_EPARSE, "%s:%d: %s must be a finite number (got '%.40s')", c->name,
                   line_of(n), key, s);
        return false;
    }
    *out = v;
    return true;
}

/* Nav2 reads negate as an int, falling back to a bool. */
static bool boolean(ctx *c, const yaml_node_t *n, const char *key, bool *out)
{
    const char *s = scalar(c, n, key, "0, 1, true or false");
    if (!s) return false;
    static const char *const yes[] = {"true", "yes", "on", "y"};
    static const char *const no[] = {"false", "no", "off", "n"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
            *out = !strcasecmp(s, yes[i]);
            return true;
        }
    }
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (*s && end && *end == '\0') {
        *out = v != 0;
        return true;
    }
    tycho_fail(c->err, TYCHO_EPARSE, "%s:%d: %s must be 0, 1, true or false (got '%.40s')", c->name,
               line_of(n), key, s);
    return false;
}

static bool threshold(ctx *c, const yaml_node_t *n, const char *key, double *out)
{
    if (!number(c, n, key, out)) return false;
    if (*out < 0.0 || *out > 1.0) {
        tycho_fail(c->err, TYCHO_EPARSE, "%s:%d: %s must be in [0, 1] (got %.6g)", c->name,
                   line_of(n), key, *out);
        return false;
    }
    return true;
}

static bool origin(ctx *c, const yaml_node_t *n, tycho_pose2 *o)
{
    if (n->type != YAML_SEQUENCE_NODE) {
        tycho_fail(c->err, TYCHO_EPARSE, "%s:%d: origin must be a list [x, y, yaw], not %s",
                   c->name, line_of(n), kind_of(n));
        return false;
    }
    yaml_node_item_t *it = n->data.sequence.items.start, *top = n->data.sequence.items.top;
    long count = (long)(top - it);
    if (count != 3) {
        tycho_fail(c->err, TYCHO_EPARSE, "%s:%d: origin must have 3 elements [x, y, yaw] (got %ld)",
                   c->name, line_of(n), count);
        return false;
    }
    double v[3];
    static const char *const names[3] = {"origin x", "origin y", "origin yaw"};
    for (int i = 0; i < 3; i++) {
        yaml_node_t *e = yaml_document_get_node(c->doc, it[i]);
        if (!e || !number(c, e, names[i], &v[i])) {
            if (!e) tycho_fail(c->err, TYCHO_EPARSE, "%s:%d: bad origin", c->name, line_of(n));
            return false;
        }
    }
    o->x = v[0];
    o->y = v[1];
    o->yaw = v[2];
    return true;
}

/* Nav2: a relative image path is relative to the YAML file's folder. */
static bool image_path(ctx *c, const yaml_node_t *n, char *out, size_t cap)
{
    const char *s = scalar(c, n, "image", "a file name");
    if (!s) return false;
    if (!*s) {
        tycho_fail(c->err, TYCHO_EPARSE, "%s:%d: image must not be empty", c->name, line_of(n));
        return false;
    }
    int len;
    if (s[0] == '/') {
        len = snprintf(out, cap, "%s", s);
    } else {
        const char *slash = strrchr(c->name, '/');
        if (!slash) len = snprintf(out, cap, "%s", s);
        else len = snprintf(out, cap, "%.*s/%s", (int)(slash - c->name), c->name, s);
    }
    if (len < 0 || (size_t)len >= cap) {
        tycho_fail(c->err, TYCHO_EPARSE, "%s:%d: image path too long", c->name, line_of(n));
        return false;
    }
    return true;
}

enum { K_IMAGE, K_RESOLUTION, K_ORIGIN, K_NEGATE, K_OCC, K_FREE, K_MODE, K_COUNT };
static const char *const key_names[K_COUNT] = {"image",           "resolution",  "origin", "negate",
                                               "occupied_thresh", "free_thresh", "mode"};

static tycho_status parse_doc(ctx *c, tycho_map_meta *m)
{
    yaml_node_t *root = yaml_document_get_root_node(c->doc);
    if (!root)
        return tycho_fail(c->err, TYCHO_EPARSE,
                          "%s: empty YAML document (expected image, "
                          "resolution, origin, ...)",
                          c->name);
    if (root->type != YAML_MAPPING_NODE)
        return tycho_fail(c->err, TYCHO_EPARSE,
                          "%s:%d: expected a mapping of keys (image, "
                          "resolution, origin, ...), got %s",
                          c->name, line_of(root), kind_of(root));
    int seen[K_COUNT] = {0};
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
        if (!k || !v) return tycho_fail(c->err, TYCHO_EPARSE, "%s: malformed mapping", c->name);
        if (k->type != YAML_SCALAR_NODE) continue; /* not one of ours */
        const char *ks = (const char *)k->data.scalar.value;
        int key = -1;
        for (int i = 0; i < K_COUNT; i++)
            if (!strcmp(ks, key_names[i])) key = i;
        if (key < 0) continue; /* Nav2 ignores keys it does not know */
        if (seen[key])
            return tycho_fail(c->err, TYCHO_EPARSE, "%s:%d: duplicate key '%s' (first on line %d)",
                              c->name, line_of(k), ks, seen[key]);
        seen[key] = line_of(k);
        bool ok = true;
        switch (key) {
        case K_IMAGE:
            ok = image_path(c, v, m->image, sizeof m->image);
            break;
        case K_RESOLUTION:
            ok = number(c, v, "resolution", &m->resolution);
            if (ok && !(m->resolution > 0))
                return tycho_fail(c->err, TYCHO_EPARSE, "%s:%d: resolution must be > 0 (got %.6g)",
                                  c->name, line_of(v), m->resolution);
            break;
        case K_ORIGIN:
            ok = origin(c, v, &m->origin);
            break;
        case K_NEGATE:
            ok = boolean(c, v, "negate", &m->negate);
            break;
        case K_OCC:
            ok = threshold(c, v, "occupied_thresh", &m->occupied_thresh);
            break;
        case K_FREE:
            ok = threshold(c, v, "free_thresh", &m->free_thresh);
            break;
        case K_MODE: {
            const char *s = scalar(c, v, "mode", "trinary, scale or raw");
            ok = s != NULL;
            if (!ok) break;
            if (!strcasecmp(s, "trinary")) m->mode = TYCHO_MAP_TRINARY;
            else if (!strcasecmp(s, "scale")) m->mode = TYCHO_MAP_SCALE;
            else if (!strcasecmp(s, "raw")) m->mode = TYCHO_MAP_RAW;
            else
                return tycho_fail(c->err, TYCHO_EPARSE,
                                  "%s:%d: unknown mode '%.40s' (trinary, scale, raw)", c->name,
                                  line_of(v), s);
            break;
        }
        }
        if (!ok) return TYCHO_EPARSE;
    }
    /* Nav2's loader requires every key but mode. */
    for (int i = 0; i < K_MODE; i++)
        if (!seen[i])
            return tycho_fail(c->err, TYCHO_EPARSE, "%s: missing required key '%s'", c->name,
                              key_names[i]);
    if (!(m->free_thresh < m->occupied_thresh))
        return tycho_fail(c->err, TYCHO_EPARSE,
                          "%s:%d: free_thresh (%.6g) must be below occupied_thresh (%.6g)", c->name,
                          seen[K_FREE], m->free_thresh, m->occupied_thresh);
    return TYCHO_OK;
}

tycho_status tycho_map_parse_yaml_mem(const char *text, size_t len, const char *name,
                                      tycho_map_meta *meta, tycho_err *err)
{
    if (!name) name = "<memory>";
    tycho_map_meta m;
    tycho_map_meta_defaults(&m);
    yaml_parser_t parser;
    yaml_document_t doc;
    tycho_status loaded = load_yaml_document(&parser, text, len, name, &doc, err);
    if (loaded != TYCHO_OK) return loaded;
    ctx c = {&doc, name, err};
    tycho_status st = parse_doc(&c, &m);
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (st == TYCHO_OK && meta) *meta = m;
    return st;
}

tycho_status tycho_map_parse_yaml(const char *yaml_path, tycho_map_meta *meta, tycho_err *err)
{
    uint8_t *data;
    size_t size;
    tycho_status st = tycho_read_file(yaml_path, &data, &size, err);
    if (st != TYCHO_OK) return st;
    st = tycho_map_parse_yaml_mem((const char *)data, size, yaml_path, meta, err);
    free(data);
    return st;
}
