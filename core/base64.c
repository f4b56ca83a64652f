/* Base64 encoding, three bytes to four characters, '=' padded. */
#include "tycho/base64.h"

static const char ALPHABET[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t tycho_base64_encode(const uint8_t *in, size_t n, char *out)
{
    char *o = out;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        *o++ = ALPHABET[v >> 18];
        *o++ = ALPHABET[(v >> 12) & 63];
        *o++ = ALPHABET[(v >> 6) & 63];
        *o++ = ALPHABET[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
        *o++ = ALPHABET[v >> 18];
        *o++ = ALPHABET[(v >> 12) & 63];
        *o++ = i + 1 < n ? ALPHABET[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
    return (size_t)(o - out);
}

/* The alphabet's value of a character, -1 for anything else. */
static int value_of(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

long tycho_base64_decode(const char *in, size_t n, uint8_t *out)
{
    if (n % 4) return -1;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        int last = i + 4 == n;
        int pad = last ? (in[i + 3] == '=') + (in[i + 2] == '=' && in[i + 3] == '=') : 0;
        uint32_t v = 0;
        for (int k = 0; k < 4; k++) {
            int d = k >= 4 - pad ? 0 : value_of((unsigned char)in[i + k]);
            if (d < 0) return -1;
            v = v << 6 | (uint32_t)d;
        }
        out[o++] = (uint8_t)(v >> 16);
        if (pad < 2) out[o++] = (uint8_t)(v >> 8);
        if (pad < 1) out[o++] = (uint8_t)v;
    }
    return (long)o;
}
