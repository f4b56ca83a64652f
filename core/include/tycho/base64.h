/* Base64 (RFC 4648, with padding): how JSON-encoded Foxglove messages carry
 * bytes (grid cells, image pixels) and how the WebSocket handshake answers. */
#ifndef TYCHO_BASE64_H
#define TYCHO_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* Characters tycho_base64_encode writes for n bytes (no terminating NUL). */
static inline size_t tycho_base64_len(size_t n) { return (n + 2) / 3 * 4; }
/* Writes tycho_base64_len(n) characters to out; returns that count. */
size_t tycho_base64_encode(const uint8_t *in, size_t n, char *out);
/* Bytes tycho_base64_decode writes at most for n characters. */
static inline size_t tycho_base64_max_decoded(size_t n) { return n / 4 * 3; }
/* Decodes n characters of padded base64 into out (at least
 * tycho_base64_max_decoded(n) bytes); returns the byte count, or -1 when
 * the text is not base64 (a length that is not a multiple of 4, a character
 * outside the alphabet, padding anywhere but at the end). */
long tycho_base64_decode(const char *in, size_t n, uint8_t *out);

#endif
