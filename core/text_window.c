/* The newest texts joined with "," in one buffer (tycho/text_window.h). */
#include "tycho/text_window.h"

#include <stdlib.h>
#include <string.h>

void tycho_text_window_init(tycho_text_window *w, size_t max)
{
    *w = (tycho_text_window){.max = max ? max : 1};
}

/* the oldest text and its separator out of the joined text */
static void drop_oldest(tycho_text_window *w)
{
    w->start += w->lens[w->head] + (w->count > 1 ? 1 : 0);
    w->head = (w->head + 1) % w->max;
    if (--w->count == 0) w->start = w->end = 0;
}

/* room for need more bytes at the end: the live text moved down over the
 * dropped ones, and the buffer doubled while the live text would fill more
 * than half of it (so moves stay rare) */
static tycho_status make_room(tycho_text_window *w, size_t need, tycho_err *err)
{
    if (w->end + need <= w->cap) return TYCHO_OK;
    size_t live = w->end - w->start;
    size_t cap = w->cap ? w->cap : 4096;
    while (cap < 2 * (live + need)) cap *= 2;
    if (cap > w->cap) {
        char *grown = malloc(cap);
        if (!grown) return tycho_fail(err, TYCHO_ENOMEM, "text window: out of memory");
        if (live) memcpy(grown, w->buf + w->start, live);
        free(w->buf);
        w->buf = grown;
        w->cap = cap;
    } else if (live) {
        memmove(w->buf, w->buf + w->start, live);
    }
    w->start = 0;
    w->end = live;
    return TYCHO_OK;
}

tycho_status tycho_text_window_add(tycho_text_window *w, const char *s, size_t n, tycho_err *err)
{
    if (n >= UINT32_MAX)
        return tycho_fail(err, TYCHO_ERANGE, "text window: a text of 4 GB or more");
    if (!w->lens && !(w->lens = malloc(w->max * sizeof *w->lens)))
        return tycho_fail(err, TYCHO_ENOMEM, "text window: out of memory");
    /* the room for the text is made before the oldest goes, so a failure
     * leaves the window as it was */
    tycho_status st = make_room(w, n + 1, err);
    if (st != TYCHO_OK) return st;
    if (w->count == w->max) drop_oldest(w);
    if (w->count) w->buf[w->end++] = ',';
    if (n) memcpy(w->buf + w->end, s, n);
    w->end += n;
    w->lens[(w->head + w->count) % w->max] = (uint32_t)n;
    w->count++;
    return TYCHO_OK;
}

const char *tycho_text_window_text(const tycho_text_window *w, size_t *len)
{
    *len = w->end - w->start;
    return w->buf ? w->buf + w->start : "";
}

void tycho_text_window_free(tycho_text_window *w)
{
    free(w->buf);
    free(w->lens);
    *w = (tycho_text_window){.max = w->max};
}
