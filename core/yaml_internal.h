/* libyaml's document loaded from text, shared by the YAML readers in core
 * (yaml_leaves.c, mapio_yaml.c); not exported from libtycho (its name does
 * not start with tycho_, see libtycho.map). */
#ifndef TYCHO_YAML_INTERNAL_H
#define TYCHO_YAML_INTERNAL_H

#include <stddef.h>
#include <yaml.h>

#include "tycho/common.h"

/* Starts parser on text (len bytes) and loads its first document into doc;
 * a syntax error is reported as "name:LINE: YAML error: ..." in err. On
 * TYCHO_OK the caller deletes both (yaml_document_delete, then
 * yaml_parser_delete: the parser can load a next document first);
 * otherwise nothing is left to delete. */
tycho_status load_yaml_document(yaml_parser_t *parser, const char *text, size_t len,
                                const char *name, yaml_document_t *doc, tycho_err *err);

#endif
