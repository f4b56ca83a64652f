/* tycho/text.h */
#include "tycho/text.h"

#include <stdlib.h>
#include <string.h>

int tycho_text_reserve(tycho_text *b, size_t more)
{
    if (b->oom) return 0;
    if (b->len + more <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + more) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return 0;
    }
    b->p = p;
    b->cap = cap;
    return 1;
}

void tycho_text_put(tycho_text *b, const char *s, size_t n)
{
    if (n == 0 || !tycho_text_reserve(b, n)) return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

void tycho_text_puts(tycho_text *b, const char *s) { tycho_text_put(b, s, strlen(s)); }

void tycho_text_free(tycho_text *b)
{
    free(b->p);
    *b = (tycho_text){0};
}
