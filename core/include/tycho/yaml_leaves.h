/* A YAML document as its leaves: every scalar or list reached through a
 * chain of mapping keys, with its line, for readers of nested key/value files
 * (ROS 2 parameter files: `node: ros__parameters: name: value`) that must
 * report "file:line: what is wrong" for each bad entry. */
#ifndef TYCHO_YAML_LEAVES_H
#define TYCHO_YAML_LEAVES_H

#include "tycho/common.h"

#define TYCHO_YAML_MAX_DEPTH 16

typedef enum {
    TYCHO_YAML_SCALAR,   /* value/length hold the text */
    TYCHO_YAML_LIST,     /* a sequence (not descended into) */
    TYCHO_YAML_EMPTY_MAP /* a mapping with no keys */
} tycho_yaml_leaf_kind;

typedef struct {
    const char *const *keys; /* the mapping keys from the root, depth of them */
    int depth;
    tycho_yaml_leaf_kind kind;
    const char *value; /* scalars: NUL-terminated (length excludes it), else NULL */
    size_t length;
    bool quoted; /* written in quotes (so "true" or "1" is a string) */
    int line;    /* 1-based line of the value */
} tycho_yaml_leaf;

/* Called once per leaf in document order; a non-zero return stops the walk
 * (tycho_yaml_leaves then returns TYCHO_EINVAL with err untouched). */
typedef int (*tycho_yaml_leaf_fn)(void *ud, const tycho_yaml_leaf *leaf);

/* Parses text (len bytes; name is used in messages) and calls fn for each
 * leaf. Fails with "name:line: ..." on malformed YAML, a non-scalar or
 * duplicate mapping key, a key containing NUL, nesting deeper than
 * TYCHO_YAML_MAX_DEPTH, or more than one document. An empty document has no
 * leaves. */
tycho_status tycho_yaml_leaves(const char *text, size_t len, const char *name,
                               tycho_yaml_leaf_fn fn, void *ud, tycho_err *err);

#endif
