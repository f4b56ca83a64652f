/* Length-prefixed frames for the console protocol (attach socket, TCP).
 *
 * A frame is a 4-byte big-endian payload length, one type byte (an ASCII
 * capital 'A'..'Z') and the payload. The reader takes bytes as they come
 * off a socket, in any chunking, and hands out whole frames; a frame longer
 * than the reader's limit or with a bad type is a protocol error, after
 * which the connection is to be dropped (the stream cannot be trusted to
 * resynchronise: there are no start bytes). */
#ifndef TYCHO_FRAME_H
#define TYCHO_FRAME_H

#include "tycho/common.h"

#define TYCHO_FRAME_HEADER 5

typedef struct {
    uint8_t *buf;
    size_t start, len, cap; /* unread bytes are buf[start, start + len) */
    size_t limit;           /* largest payload accepted */
    bool failed;
} tycho_frame_reader;

void tycho_frame_reader_init(tycho_frame_reader *r, size_t limit);
void tycho_frame_reader_free(tycho_frame_reader *r);

/* Appends n received bytes. Fails (ENOMEM) only when memory runs out. */
tycho_status tycho_frame_reader_feed(tycho_frame_reader *r, const void *data, size_t n,
                                     tycho_err *err);

/* The next whole frame: 1 and *type, *payload (valid until the next feed or
 * next call), *len; 0 when more bytes are needed; -1 on a protocol error
 * (err says which; every later call fails too). */
int tycho_frame_next(tycho_frame_reader *r, char *type, const uint8_t **payload, size_t *len,
                     tycho_err *err);

/* Writes the 5-byte header of a frame. */
void tycho_frame_header(uint8_t out[TYCHO_FRAME_HEADER], char type, uint32_t len);

#endif
