/* A small, seedable, platform-independent PRNG for simulation noise:
 * splitmix64 to derive seeds and streams, xoshiro256** for the stream, and
 * Box-Muller for Gaussian samples. Header-only; the state is a plain struct
 * so each owner (the simulator, a sensor sample) keeps its own, and the same
 * seed gives the same sequence on every machine (the Gaussian goes through
 * libm's log/sqrt/cos, so it is bit-identical for a given libm). */
#ifndef TYCHO_RNG_H
#define TYCHO_RNG_H

#include <math.h>
#include <stdint.h>

typedef struct {
    uint64_t s[4];
    double spare; /* second Box-Muller value, valid when has_spare */
    int has_spare;
} tycho_rng;

/* One splitmix64 step: advances *x and returns a well-mixed 64-bit value.
 * Also good as a hash for combining a seed with a stream number. */
static inline uint64_t tycho_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Mixes a seed with up to two stream numbers (e.g. sensor id, sample
 * index) into an independent seed: samples drawn for one stream never
 * depend on how many values another stream consumed. */
static inline uint64_t tycho_rng_mix(uint64_t seed, uint64_t a, uint64_t b)
{
    uint64_t x = seed;
    uint64_t h = tycho_splitmix64(&x);
    x = h ^ (a * 0xD1B54A32D192ED03ull);
    h = tycho_splitmix64(&x);
    x = h ^ (b * 0x8CB92BA72F3D8DD7ull);
    return tycho_splitmix64(&x);
}

static inline void tycho_rng_seed(tycho_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r->s[i] = tycho_splitmix64(&x);
    r->has_spare = 0;
    r->spare = 0;
}

static inline uint64_t tycho_rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** */
static inline uint64_t tycho_rng_u64(tycho_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = tycho_rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = tycho_rng_rotl(s[3], 45);
    return out;
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double tycho_rng_uniform(tycho_rng *r)
{
    return (double)(tycho_rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Standard normal (mean 0, sigma 1). */
static inline double tycho_rng_normal(tycho_rng *r)
{
    if (r->has_spare) {
        r->has_spare = 0;
        return r->spare;
    }
    /* 1 - u is in (0, 1], so the log is finite */
    double u1 = 1.0 - tycho_rng_uniform(r), u2 = tycho_rng_uniform(r);
    double m = sqrt(-2.0 * log(u1)), a = 6.283185307179586 * u2;
    r->spare = m * sin(a);
    r->has_spare = 1;
    return m * cos(a);
}

#endif
