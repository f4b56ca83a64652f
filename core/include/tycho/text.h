/* A growable byte buffer for text being built (JSON messages): appends
 * never fail loudly; an allocation that fails sets oom and the text is
 * incomplete, for the caller to report once at the end. */
#ifndef TYCHO_TEXT_H
#define TYCHO_TEXT_H

#include <stddef.h>

typedef struct {
    char *p;
    size_t len, cap;
    int oom; /* an allocation failed: the text is incomplete */
} tycho_text;

void tycho_text_put(tycho_text *b, const char *s, size_t n);
void tycho_text_puts(tycho_text *b, const char *s);
/* Room for more bytes at p + len (returns 0 on failure, setting oom). */
int tycho_text_reserve(tycho_text *b, size_t more);
void tycho_text_free(tycho_text *b);

/* Numbers as printf writes them, without printf on the common path (its
 * float formatting was a quarter of a recording's writer thread). */
/* v as "%lld" */
void tycho_text_int(tycho_text *b, long long v);
/* v as "%.0f" */
void tycho_text_f0(tycho_text *b, double v);
/* v as "%.*g" with this precision (1..17), byte for byte */
void tycho_text_g(tycho_text *b, double v, int precision);

#endif
