/* The cells' hash (tycho/cells_hash.h). Eight chains, because one chain
 * waits for each multiply before the next: the eight run side by side. */
#include "tycho/cells_hash.h"

#include <string.h>

static uint64_t step(uint64_t h, uint64_t word) { return (h ^ word) * 0x9E3779B97F4A7C15u; }

static uint64_t load(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

static void add_word(tycho_cells_hash *ch, uint64_t word)
{
    ch->h[ch->words % 8] = step(ch->h[ch->words % 8], word);
    ch->words++;
}

void tycho_cells_hash_init(tycho_cells_hash *ch, uint64_t seed)
{
    *ch = (tycho_cells_hash){{step(0, seed), 1, 2, 3, 4, 5, 6, 7}, 0, {0}, 0};
}

void tycho_cells_hash_add(tycho_cells_hash *ch, const void *p, size_t n)
{
    const uint8_t *s = p;
    if (ch->npartial) { /* the word begun by the last piece first */
        size_t take = 8 - ch->npartial < n ? 8 - ch->npartial : n;
        memcpy(ch->partial + ch->npartial, s, take);
        ch->npartial += take, s += take, n -= take;
        if (ch->npartial < 8) return;
        add_word(ch, load(ch->partial));
        ch->npartial = 0;
    }
    for (; n >= 8 && ch->words % 8; n -= 8, s += 8) add_word(ch, load(s));
    for (; n >= 64; n -= 64, s += 64) { /* chain k takes word k */
        for (int k = 0; k < 8; k++) ch->h[k] = step(ch->h[k], load(s + 8 * k));
        ch->words += 8;
    }
    for (; n >= 8; n -= 8, s += 8) add_word(ch, load(s));
    memcpy(ch->partial, s, n);
    ch->npartial = n;
}

uint64_t tycho_cells_hash_end(const tycho_cells_hash *ch)
{
    /* the last bytes (not a whole word) with their number, then the count
     * of words: runs of other lengths end otherwise */
    uint64_t tail = (uint64_t)ch->npartial << 56;
    for (size_t k = 0; k < ch->npartial; k++) tail |= (uint64_t)ch->partial[k] << (8 * k);
    uint64_t all = step(step(ch->h[7], tail), ch->words);
    for (int k = 6; k >= 0; k--) all = step(all, ch->h[k]);
    return all ^ (all >> 29);
}
