/* YAML document -> leaves with key paths and lines (see yaml_leaves.h). The
 * libyaml document API builds the tree; this file walks it, checking keys.
 * Loading the document, with its syntax errors at file:line, is shared with
 * the map reader (yaml_internal.h). */
#include "tycho/yaml_leaves.h"
#include "yaml_internal.h"

#include <string.h>
#include <yaml.h>

typedef struct {
    yaml_document_t *doc;
    const char *name;
    tycho_yaml_leaf_fn fn;
    void *ud;
    tycho_err *err;
    const char *keys[TYCHO_YAML_MAX_DEPTH];
    bool stopped;
} walk;

static int line_of(const yaml_node_t *n) { return (int)n->start_mark.line + 1; }

static tycho_status emit(walk *w, int depth, const yaml_node_t *n, tycho_yaml_leaf_kind kind)
{
    tycho_yaml_leaf leaf = {w->keys, depth, kind, NULL, 0, false, line_of(n)};
    if (kind == TYCHO_YAML_SCALAR) {
        leaf.value = (const char *)n->data.scalar.value;
        leaf.length = n->data.scalar.length;
        leaf.quoted = n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                      n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    }
    if (w->fn(w->ud, &leaf)) {
        w->stopped = true;
        return TYCHO_EINVAL;
    }
    return TYCHO_OK;
}

static tycho_status visit(walk *w, const yaml_node_t *n, int depth)
{
    if (n->type == YAML_SCALAR_NODE) return emit(w, depth, n, TYCHO_YAML_SCALAR);
    if (n->type == YAML_SEQUENCE_NODE) return emit(w, depth, n, TYCHO_YAML_LIST);
    if (n->type != YAML_MAPPING_NODE)
        return tycho_fail(w->err, TYCHO_EPARSE, "%s:%d: empty YAML node", w->name, line_of(n));
    yaml_node_pair_t *first = n->data.mapping.pairs.start, *end = n->data.mapping.pairs.top;
    if (first == end) return emit(w, depth, n, TYCHO_YAML_EMPTY_MAP);
    if (depth >= TYCHO_YAML_MAX_DEPTH)
        return tycho_fail(w->err, TYCHO_EPARSE, "%s:%d: nested deeper than %d mappings", w->name,
                          line_of(n), TYCHO_YAML_MAX_DEPTH);
    for (yaml_node_pair_t *p = first; p < end; p++) {
        yaml_node_t *k = yaml_document_get_node(w->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(w->doc, p->value);
        if (!k || !v) return tycho_fail(w->err, TYCHO_EPARSE, "%s: broken YAML document", w->name);
        if (k->type != YAML_SCALAR_NODE)
            return tycho_fail(w->err, TYCHO_EPARSE, "%s:%d: a mapping key must be a plain name",
                              w->name, line_of(k));
        const char *key = (const char *)k->data.scalar.value;
        if (strlen(key) != k->data.scalar.length)
            return tycho_fail(w->err, TYCHO_EPARSE, "%s:%d: a key contains a NUL character",
                              w->name, line_of(k));
        /* libyaml keeps duplicate keys; a reader would silently take one */
        for (yaml_node_pair_t *q = first; q < p; q++) {
            yaml_node_t *k2 = yaml_document_get_node(w->doc, q->key);
            if (k2 && k2->type == YAML_SCALAR_NODE &&
                !strcmp((const char *)k2->data.scalar.value, key))
                return tycho_fail(w->err, TYCHO_EPARSE,
                                  "%s:%d: duplicate key '%s' (first on line %d)", w->name,
                                  line_of(k), key, line_of(k2));
        }
        w->keys[depth] = key;
        tycho_status st = visit(w, v, depth + 1);
        if (st != TYCHO_OK) return st;
    }
    return TYCHO_OK;
}

tycho_status load_yaml_document(yaml_parser_t *parser, const char *text, size_t len,
                                const char *name, yaml_document_t *doc, tycho_err *err)
{
    if (!yaml_parser_initialize(parser))
        return tycho_fail(err, TYCHO_ENOMEM, "%s: cannot create a YAML parser", name);
    yaml_parser_set_input_string(parser, (const unsigned char *)text, len);
    if (yaml_parser_load(parser, doc)) return TYCHO_OK;
    tycho_status st;
    if (parser->error == YAML_MEMORY_ERROR)
        st = tycho_fail(err, TYCHO_ENOMEM, "%s: out of memory parsing YAML", name);
    else
        st = tycho_fail(err, TYCHO_EPARSE, "%s:%d: YAML error: %s%s%s", name,
                        (int)parser->problem_mark.line + 1,
                        parser->problem ? parser->problem : "malformed input",
                        parser->context ? " " : "", parser->context ? parser->context : "");
    yaml_parser_delete(parser);
    return st;
}

tycho_status tycho_yaml_leaves(const char *text, size_t len, const char *name,
                               tycho_yaml_leaf_fn fn, void *ud, tycho_err *err)
{
    if (!name) name = "<memory>";
    if (!text || !fn) return tycho_fail(err, TYCHO_EINVAL, "%s: no text or no callback", name);
    yaml_parser_t parser;
    yaml_document_t doc;
    tycho_status loaded = load_yaml_document(&parser, text, len, name, &doc, err);
    if (loaded != TYCHO_OK) return loaded;
    tycho_status st = TYCHO_OK;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (root) {
        walk w = {.doc = &doc, .name = name, .fn = fn, .ud = ud, .err = err};
        st = visit(&w, root, 0);
        /* a second document would be ignored: refuse it instead */
        yaml_document_t next;
        if (st == TYCHO_OK) {
            if (!yaml_parser_load(&parser, &next)) {
                st = tycho_fail(err, TYCHO_EPARSE, "%s:%d: YAML error after the document: %s", name,
                                (int)parser.problem_mark.line + 1,
                                parser.problem ? parser.problem : "malformed input");
            } else {
                if (yaml_document_get_root_node(&next))
                    st = tycho_fail(err, TYCHO_EPARSE,
                                    "%s:%d: a second YAML document (one expected)", name,
                                    (int)yaml_document_get_root_node(&next)->start_mark.line + 1);
                yaml_document_delete(&next);
            }
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return st;
}
