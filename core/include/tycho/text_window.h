/* The newest texts of a stream (at most max of them), kept joined with ","
 * in one buffer: a message that lists them (a scene's 200 detection
 * spheres, sent every second) copies one piece of memory instead of
 * gathering 200 strings. Adding a text past max drops the oldest; the
 * buffer is moved down over the dropped ones only when it is full, so an
 * add costs the text's length, amortised. */
#ifndef TYCHO_TEXT_WINDOW_H
#define TYCHO_TEXT_WINDOW_H

#include "tycho/common.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *buf;              /* the texts joined with ",": buf[start .. end) */
    size_t start, end, cap; /* (no allocation until the first text) */
    uint32_t *lens;         /* each text's length, oldest at head (a ring of max) */
    size_t max, head, count;
} tycho_text_window;

/* An empty window of at most max texts (max >= 1). */
void tycho_text_window_init(tycho_text_window *w, size_t max);
/* Appends a text, dropping the oldest past max; TYCHO_ENOMEM (the window
 * unchanged) when it cannot grow, TYCHO_ERANGE for a text of 4 GB or more. */
tycho_status tycho_text_window_add(tycho_text_window *w, const char *s, size_t n, tycho_err *err);
/* The texts joined with ",", oldest first ("" when empty; not
 * NUL-terminated), valid until the next add; *len its length. */
const char *tycho_text_window_text(const tycho_text_window *w, size_t *len);
void tycho_text_window_free(tycho_text_window *w);

#endif
