/* A 64-bit hash of a run of bytes fed in pieces, made to tell whether a
 * grid's cells changed since they were last sent (a recording and a live
 * viewer write a map again only when it did): cheap enough to run over a
 * map's cells every second, and exact for the change that matters most, a
 * few cells.
 *
 * The bytes are read as 64-bit words (in the machine's order; the hash
 * is never stored) dealt to eight chains in turn, each step
 * h -> (h ^ word) * odd, and the chains are joined at the end. A step is
 * one to one in h for a given word and in the word for a given h, so two
 * runs of the same length that differ in one word (one to eight cells)
 * never hash the same; runs that differ in more collide with a chance of
 * about 2^-64. Not a defence against chosen inputs. */
#ifndef TYCHO_CELLS_HASH_H
#define TYCHO_CELLS_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct tycho_cells_hash {
    uint64_t h[8];
    uint64_t words;     /* whole words hashed so far */
    uint8_t partial[8]; /* the bytes of a word not whole yet */
    size_t npartial;
} tycho_cells_hash;

/* A hash started from a seed (what the bytes are: a box's size, say). */
void tycho_cells_hash_init(tycho_cells_hash *ch, uint64_t seed);
/* Adds n bytes; the pieces may be of any length, the hash is the one of the
 * bytes in one run (fastest in pieces of a multiple of 64 bytes). */
void tycho_cells_hash_add(tycho_cells_hash *ch, const void *p, size_t n);
/* The hash of the bytes added, with their number (ch is left as it was). */
uint64_t tycho_cells_hash_end(const tycho_cells_hash *ch);

#endif
