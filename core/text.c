/* tycho/text.h */
#include "tycho/text.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
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

/* the decimal digits of u, ending at end; returns their start */
static char *digits_before(unsigned long long u, char *end)
{
    do {
        *--end = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    return end;
}

void tycho_text_int(tycho_text *b, long long v)
{
    char tmp[24], *end = tmp + sizeof tmp;
    char *p = digits_before(v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v, end);
    if (v < 0) *--p = '-';
    tycho_text_put(b, p, (size_t)(end - p));
}

void tycho_text_f0(tycho_text *b, double v)
{
    char tmp[400];
    if (!(fabs(v) < 9e15)) {
        int n = snprintf(tmp, sizeof tmp, "%.0f", v);
        if (n > 0) tycho_text_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
        return;
    }
    /* llrint rounds as printf does: to nearest, ties to even, in the
     * current rounding mode; "-0" for a negative that rounds to zero */
    long long r = llrint(v);
    if (r == 0 && signbit(v)) tycho_text_put(b, "-0", 2);
    else tycho_text_int(b, r);
}

#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;

/* |v| = m * 2^q exactly, 2^52 <= m < 2^53 (v finite, normal): read from
 * the double's bits (frexp and ldexp were a tenth of a recording's
 * encoding) */
static void split_double(double v, uint64_t *m, int *q)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    *m = (bits & ((UINT64_C(1) << 52) - 1)) | UINT64_C(1) << 52;
    *q = (int)(bits >> 52 & 0x7ff) - 1075;
}

/* round(m * 2^q * 10^k), ties to even, exactly (0 <= k <= 21: 5^k < 2^49,
 * so m * 5^k < 2^102) */
static uint64_t scaled_round(uint64_t m, int q, int k)
{
    u128 n = (u128)m;
    for (int i = 0; i < k; i++) n *= 5; /* m * 10^k = m * 5^k * 2^k */
    int shift = -(q + k);               /* n / 2^shift */
    if (shift <= 0) return (uint64_t)(n << -shift);
    if (shift >= 120) return 0;
    u128 whole = n >> shift, rest = n - (whole << shift), half = (u128)1 << (shift - 1);
    if (rest > half || (rest == half && (whole & 1))) whole++;
    return (uint64_t)whole;
}

/* "%.*g" of v by hand into out, exactly as printf rounds it (the value's
 * exact binary expansion, ties to even), for zero and for printf's fixed
 * form up to 1e17; its length, or 0 for printf to do it (its exponent form,
 * NaN, infinities). */
static size_t g_by_hand(char *out, double v, int precision)
{
    if (v == 0) {
        size_t n = 0;
        if (signbit(v)) out[n++] = '-';
        out[n++] = '0';
        return n;
    }
    double a = fabs(v);
    if (precision < 1 || precision > 17 || !(a >= 1e-5 && a < 1e17)) return 0;
    uint64_t m;
    int q;
    split_double(v, &m, &q);
    uint64_t low = 1, high = 10; /* 10^(precision - 1), 10^precision */
    for (int i = 1; i < precision; i++) low *= 10, high *= 10;
    /* the decimal exponent e of v rounded to precision digits: a guess from
     * the binary one (log10 |v| is in [(q + 52) lg 2, (q + 53) lg 2): the
     * guess is floor(log10 |v|) or one less), moved until
     * round(v * 10^(precision - 1 - e)) has precision digits */
    int e = (int)floor((q + 52) * 0.30102999566398119521);
    uint64_t r = 0;
    for (int tries = 0; tries < 5; tries++) {
        int k = precision - 1 - e;
        if (k < 0 || k > 21) return 0;
        r = scaled_round(m, q, k);
        if (r >= high) e++;
        else if (r < low) e--;
        else break;
    }
    if (r < low || r >= high) return 0;
    if (e < -4 || e >= precision) return 0; /* printf's exponent form */
    char d[24];
    const char *dig = digits_before(r, d + sizeof d); /* precision digits */
    int last = precision - 1;
    while (last > e && last > 0 && dig[last] == '0') last--; /* no trailing zeros */
    size_t n = 0;
    if (v < 0) out[n++] = '-';
    if (e >= 0) {
        for (int i = 0; i <= e; i++) out[n++] = dig[i];
        if (last > e) out[n++] = '.';
        for (int i = e + 1; i <= last; i++) out[n++] = dig[i];
    } else {
        out[n++] = '0';
        out[n++] = '.';
        for (int i = -1; i > e; i--) out[n++] = '0';
        for (int i = 0; i <= last; i++) out[n++] = dig[i];
    }
    return n;
}
#else
static size_t g_by_hand(char *out, double v, int precision)
{
    (void)out, (void)v, (void)precision;
    return 0; /* no 128-bit integers: printf does it all */
}
#endif

void tycho_text_g(tycho_text *b, double v, int precision)
{
    char tmp[400];
    size_t n = g_by_hand(tmp, v, precision);
    if (!n) {
        int m = snprintf(tmp, sizeof tmp, "%.*g", precision, v);
        if (m <= 0) return;
        n = (size_t)m < sizeof tmp ? (size_t)m : sizeof tmp - 1;
    }
    tycho_text_put(b, tmp, n);
}
