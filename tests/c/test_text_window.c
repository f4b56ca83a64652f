/* The newest texts joined with "," (tycho/text_window.h): after every add
 * the window's text is the newest max texts of a plain list joined with
 * ",", through drops, moves down and growth, with empty texts and texts
 * that hold commas themselves; a text too long leaves it as it was. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tycho/rng.h"
#include "tycho/text_window.h"

enum { TEXTS = 3000, LONGEST = 700 };

/* texts[from .. to) joined with "," into out; its length */
static size_t joined(char texts[][LONGEST + 1], int from, int to, char *out)
{
    size_t n = 0;
    for (int i = from; i < to; i++) {
        if (i > from) out[n++] = ',';
        size_t len = strlen(texts[i]);
        memcpy(out + n, texts[i], len);
        n += len;
    }
    return n;
}

static void against_a_list(size_t max, uint64_t seed)
{
    static char texts[TEXTS][LONGEST + 1];
    static char want[(size_t)TEXTS * (LONGEST + 1)];
    tycho_rng rng;
    tycho_rng_seed(&rng, seed);
    tycho_text_window w;
    tycho_text_window_init(&w, max);
    size_t len;
    CHECK(tycho_text_window_text(&w, &len) != NULL && len == 0 && w.count == 0);
    int bad = 0;
    for (int i = 0; i < TEXTS && !bad; i++) {
        /* mostly scene-sized pieces, now and then empty or long ones */
        double u = tycho_rng_uniform(&rng);
        int n = u < 0.05 ? 0 : u < 0.1 ? LONGEST : 1 + (int)(tycho_rng_uniform(&rng) * 200);
        for (int k = 0; k < n; k++) texts[i][k] = "ab,{}\"x:0.12"[(i + k) % 12];
        texts[i][n] = '\0';
        tycho_err err = {0};
        CHECK(tycho_text_window_add(&w, texts[i], (size_t)n, &err) == TYCHO_OK);
        int from = i + 1 > (int)max ? i + 1 - (int)max : 0;
        size_t want_len = joined(texts, from, i + 1, want);
        const char *got = tycho_text_window_text(&w, &len);
        if (len != want_len || memcmp(got, want, len) != 0 || w.count != (size_t)(i + 1 - from)) {
            CHECK_MSG(0, "max %zu, after text %d: %zu bytes, want %zu", max, i, len, want_len);
            bad = 1;
        }
    }
    /* bounded: the buffer holds at most about twice the live text */
    CHECK_MSG(w.cap <= 4096 || w.cap <= 4 * (w.end - w.start + LONGEST + 1), "%zu bytes for %zu",
              w.cap, w.end - w.start);
    tycho_text_window_free(&w);
    CHECK(tycho_text_window_text(&w, &len) != NULL && len == 0);
}

static void too_long_changes_nothing(void)
{
    tycho_text_window w;
    tycho_text_window_init(&w, 2);
    tycho_err err = {0};
    CHECK(tycho_text_window_add(&w, "a", 1, &err) == TYCHO_OK);
    CHECK(tycho_text_window_add(&w, "bc", 2, &err) == TYCHO_OK);
    /* never read: the length is refused first */
    CHECK(tycho_text_window_add(&w, "d", (size_t)UINT32_MAX, &err) == TYCHO_ERANGE);
    CHECK(strstr(err.msg, "4 GB") != NULL);
    size_t len;
    const char *s = tycho_text_window_text(&w, &len);
    CHECK(len == 4 && memcmp(s, "a,bc", 4) == 0 && w.count == 2);
    CHECK(tycho_text_window_add(&w, "", 0, &err) == TYCHO_OK); /* "a" goes, an empty text comes */
    s = tycho_text_window_text(&w, &len);
    CHECK(len == 3 && memcmp(s, "bc,", 3) == 0);
    tycho_text_window_free(&w);
}

int main(void)
{
    against_a_list(1, 1);
    against_a_list(3, 2);
    against_a_list(200, 3);
    against_a_list(5000, 4); /* never full */
    too_long_changes_nothing();
    return check_summary("test_text_window");
}
