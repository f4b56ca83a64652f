/* LDS-02 and RPLIDAR A1 protocols: see tycho/lidarproto.h. */
#include "tycho/lidarproto.h"

#include <math.h>
#include <string.h>

const uint8_t TYCHO_RPLIDAR_SCAN_DESCRIPTOR[7] = {0xA5, 0x5A, 0x05, 0x00, 0x00, 0x40, 0x81};

/* A clockwise angle (degrees) into the counter-clockwise bin it falls in. */
static void bin_put(tycho_scan360 *s, double cw_deg, double m)
{
    int deg = (int)lround(fmod(360.0 - fmod(cw_deg, 360.0), 360.0)) % 360;
    if (deg < 0) deg += 360;
    if (m > 0 && (s->ranges[deg] == 0 || m < s->ranges[deg])) s->ranges[deg] = (float)m;
    s->points++;
}

/* --- LDS-02 --- */

uint8_t tycho_crc8_4d(const uint8_t *data, size_t n)
{
    uint8_t crc = 0;
    for (size_t i = 0; i < n; i++) {
        crc ^= data[i];
        for (int b = 0; b < 8; b++) crc = (uint8_t)(crc & 0x80 ? (crc << 1) ^ 0x4D : crc << 1);
    }
    return crc;
}

void tycho_lds02_init(tycho_lds02_parser *p)
{
    memset(p, 0, sizeof *p);
    p->last_start = -1;
}

static bool lds02_frame(tycho_lds02_parser *p, tycho_scan360 *out)
{
    const uint8_t *f = p->f;
    if (tycho_crc8_4d(f, TYCHO_LDS02_FRAME - 1) != f[TYCHO_LDS02_FRAME - 1]) {
        p->bad_crc++;
        return false;
    }
    p->frames++;
    int speed = f[2] | f[3] << 8, start = f[4] | f[5] << 8, end = f[42] | f[43] << 8;
    if (start >= 36000 || end >= 36000) {
        p->bad_crc++; /* a valid CRC over impossible angles: drop it all the same */
        return false;
    }
    bool done = false;
    if (p->last_start >= 0 && start < p->last_start && p->cur.points > 0) {
        p->cur.speed = speed;
        *out = p->cur;
        memset(&p->cur, 0, sizeof p->cur);
        p->revolutions++;
        done = true;
    }
    p->last_start = start;
    int span = end - start;
    if (span < 0) span += 36000;
    for (int i = 0; i < 12; i++) {
        const uint8_t *q = f + 6 + 3 * i;
        double a = (start + span * i / 11.0) / 100.0;
        bin_put(&p->cur, a, (q[0] | q[1] << 8) / 1000.0);
    }
    return done;
}

size_t tycho_lds02_feed(tycho_lds02_parser *p, const uint8_t *data, size_t len, tycho_scan360 *out,
                        bool *got)
{
    *got = false;
    size_t i = 0;
    while (i < len) {
        uint8_t b = data[i++];
        if (p->n == 0 && b != 0x54) {
            p->skipped++;
            continue;
        }
        if (p->n == 1 && b != 0x2C) {
            p->skipped += 1;
            p->n = b == 0x54;
            continue;
        }
        p->f[p->n++] = b;
        if (p->n == TYCHO_LDS02_FRAME) {
            p->n = 0;
            if (lds02_frame(p, out)) {
                *got = true;
                return i;
            }
        }
    }
    return i;
}

void tycho_lds02_encode(int start_cdeg, int end_cdeg, int speed_dps, const uint16_t mm[12],
                        uint16_t stamp_ms, uint8_t out[TYCHO_LDS02_FRAME])
{
    out[0] = 0x54;
    out[1] = 0x2C;
    out[2] = (uint8_t)speed_dps, out[3] = (uint8_t)(speed_dps >> 8);
    out[4] = (uint8_t)start_cdeg, out[5] = (uint8_t)(start_cdeg >> 8);
    for (int i = 0; i < 12; i++) {
        out[6 + 3 * i] = (uint8_t)mm[i];
        out[7 + 3 * i] = (uint8_t)(mm[i] >> 8);
        out[8 + 3 * i] = 200;
    }
    out[42] = (uint8_t)end_cdeg, out[43] = (uint8_t)(end_cdeg >> 8);
    out[44] = (uint8_t)stamp_ms, out[45] = (uint8_t)(stamp_ms >> 8);
    out[46] = tycho_crc8_4d(out, TYCHO_LDS02_FRAME - 1);
}

/* --- RPLIDAR A1 --- */

void tycho_rplidar_init(tycho_rplidar_parser *p) { memset(p, 0, sizeof *p); }

static bool node_ok(const uint8_t *b) { return ((b[0] & 1) != ((b[0] >> 1) & 1)) && (b[1] & 1); }

size_t tycho_rplidar_feed(tycho_rplidar_parser *p, const uint8_t *data, size_t len,
                          tycho_scan360 *out, bool *got)
{
    *got = false;
    size_t i = 0;
    while (i < len) {
        uint8_t b = data[i++];
        if (p->descriptor < 7) {
            /* the scan's response descriptor first (restarts on a mismatch) */
            if (b == TYCHO_RPLIDAR_SCAN_DESCRIPTOR[p->descriptor]) p->descriptor++;
            else p->descriptor = b == TYCHO_RPLIDAR_SCAN_DESCRIPTOR[0];
            continue;
        }
        p->b[p->n++] = b;
        if (p->n < TYCHO_RPLIDAR_NODE) continue;
        if (!node_ok(p->b)) {
            p->bad_nodes++;
            memmove(p->b, p->b + 1, TYCHO_RPLIDAR_NODE - 1); /* slide one byte */
            p->n = TYCHO_RPLIDAR_NODE - 1;
            continue;
        }
        p->n = 0;
        p->nodes++;
        bool start = p->b[0] & 1;
        double angle = ((p->b[1] >> 1) | p->b[2] << 7) / 64.0, mm = (p->b[3] | p->b[4] << 8) / 4.0;
        bool done = false;
        if (start && p->started && p->cur.points > 0) {
            *out = p->cur;
            memset(&p->cur, 0, sizeof p->cur);
            p->revolutions++;
            done = true;
        }
        if (start) p->started = true;
        if (p->started) bin_put(&p->cur, angle, mm / 1000.0);
        if (done) {
            *got = true;
            return i;
        }
    }
    return i;
}

void tycho_rplidar_encode_node(bool start, int quality, double angle_deg, double mm,
                               uint8_t out[TYCHO_RPLIDAR_NODE])
{
    unsigned a = (unsigned)lround(angle_deg * 64) & 0x7FFF, d = (unsigned)lround(mm * 4) & 0xFFFF;
    out[0] = (uint8_t)((quality & 0x3F) << 2 | (start ? 1 : 2));
    out[1] = (uint8_t)((a & 0x7F) << 1 | 1);
    out[2] = (uint8_t)(a >> 7);
    out[3] = (uint8_t)d;
    out[4] = (uint8_t)(d >> 8);
}
