/* LiDAR serial protocols: see tycho/lidarproto.h. */
#include "tycho/lidarproto.h"

#include <math.h>
#include <string.h>

void tycho_lds01_init(tycho_lds01_parser *p, tycho_checksum_mode mode)
{
    memset(p, 0, sizeof *p);
    p->last_index = -1;
    p->mode = mode;
}

uint16_t tycho_lds01_checksum(const uint8_t pkt[TYCHO_LDS01_PACKET])
{
    uint32_t c = 0;
    for (int i = 0; i < 20; i++) c = (c << 1) + (uint32_t)(pkt[2 * i] | pkt[2 * i + 1] << 8);
    return (uint16_t)(((c & 0x7FFF) + (c >> 15)) & 0x7FFF);
}

/* Hands out the revolution gathered so far and starts the next. */
static void finish(tycho_lds01_parser *p, tycho_lds01_scan *out)
{
    p->cur.rpm = p->cur.packets ? p->rpm_sum / p->cur.packets : 0;
    *out = p->cur;
    p->revolutions++;
    memset(&p->cur, 0, sizeof p->cur);
    p->rpm_sum = 0;
}

/* A whole packet in p->pkt: check it, store its readings. Returns true when
 * it completes (or follows) a revolution that is then in *out. */
static bool take_packet(tycho_lds01_parser *p, tycho_lds01_scan *out)
{
    const uint8_t *k = p->pkt;
    int index = k[1] - 0xA0;
    uint16_t sum = (uint16_t)(k[40] | k[41] << 8);
    if (p->mode != TYCHO_CHECKSUM_IGNORE && !p->checksum_given_up &&
        sum != tycho_lds01_checksum(k)) {
        p->bad_checksum++;
        /* the sensor's packets line up (index after index) but no checksum
         * ever matches: it computes another one; see the header */
        if (p->mode == TYCHO_CHECKSUM_AUTO &&
            (index == p->last_index + 1 || (index == 0 && p->last_index == 59)) &&
            ++p->bad_in_a_row >= TYCHO_LDS01_PACKETS)
            p->checksum_given_up = true;
        p->last_index = index;
        return false;
    }
    p->bad_in_a_row = 0;
    p->packets++;
    bool done = false;
    if (p->cur.packets > 0 && index <= p->last_index) {
        finish(p, out); /* the index wrapped round without a 59: a partial turn */
        done = true;
    }
    p->last_index = index;
    p->rpm_sum += (k[2] | k[3] << 8) / 10.0;
    for (int r = 0; r < 6; r++) {
        const uint8_t *b = k + 4 + 6 * r;
        int beam = TYCHO_LDS01_BEAMS - 1 - (6 * index + r);
        p->cur.intensities[beam] = (float)(b[0] | b[1] << 8);
        p->cur.ranges[beam] = (float)(b[2] | b[3] << 8) / 1000.0f;
    }
    p->cur.packets++;
    if (index == TYCHO_LDS01_PACKETS - 1 && !done) {
        finish(p, out);
        done = true;
    }
    return done;
}

size_t tycho_lds01_feed(tycho_lds01_parser *p, const uint8_t *data, size_t len,
                        tycho_lds01_scan *out, bool *got)
{
    *got = false;
    size_t i = 0;
    while (i < len) {
        uint8_t b = data[i++];
        if (p->n == 0) {
            if (b == 0xFA) p->pkt[p->n++] = b;
            else p->skipped++;
            continue;
        }
        if (p->n == 1) {
            if (b >= 0xA0 && b < 0xA0 + TYCHO_LDS01_PACKETS) p->pkt[p->n++] = b;
            else {
                p->skipped += 1;
                p->n = b == 0xFA; /* this byte may start the next packet */
                if (p->n) p->pkt[0] = b;
                else p->skipped++;
            }
            continue;
        }
        p->pkt[p->n++] = b;
        if (p->n == TYCHO_LDS01_PACKET) {
            p->n = 0;
            if (take_packet(p, out)) {
                *got = true;
                return i;
            }
        }
    }
    return i;
}

void tycho_lds01_encode(const float ranges[TYCHO_LDS01_BEAMS], double rpm,
                        uint8_t out[TYCHO_LDS01_PACKETS * TYCHO_LDS01_PACKET])
{
    for (int k = 0; k < TYCHO_LDS01_PACKETS; k++) {
        uint8_t *q = out + k * TYCHO_LDS01_PACKET;
        memset(q, 0, TYCHO_LDS01_PACKET);
        q[0] = 0xFA;
        q[1] = (uint8_t)(0xA0 + k);
        unsigned sp = (unsigned)lround(rpm * 10);
        q[2] = (uint8_t)sp;
        q[3] = (uint8_t)(sp >> 8);
        for (int r = 0; r < 6; r++) {
            float m = ranges[TYCHO_LDS01_BEAMS - 1 - (6 * k + r)];
            unsigned mm = isfinite(m) && m > 0 ? (unsigned)lroundf(fminf(m, 65.535f) * 1000) : 0;
            uint8_t *b = q + 4 + 6 * r;
            b[0] = 200; /* intensity of a good return */
            b[2] = (uint8_t)mm;
            b[3] = (uint8_t)(mm >> 8);
        }
        uint16_t c = tycho_lds01_checksum(q);
        q[40] = (uint8_t)c;
        q[41] = (uint8_t)(c >> 8);
    }
}
