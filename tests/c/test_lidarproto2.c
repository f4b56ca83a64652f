/* LDS-02 and RPLIDAR A1 protocols (core/lidarproto_more.c): the CRC-8 of the
 * LD-series datasheets, revolutions from frames and nodes in any chunking,
 * clockwise angles turned counter-clockwise, garbage, bad CRCs, nodes out
 * of step. */
#include "check.h"
#include "tycho/lidarproto.h"

#include <math.h>
#include <string.h>

static void test_crc8(void)
{
    /* the first entries of the LD-series CRC table (polynomial 0x4D) */
    const uint8_t want[] = {0x00, 0x4d, 0x9a, 0xd7, 0x79, 0x34, 0xe3, 0xae, 0xf2};
    for (int i = 0; i < 9; i++) {
        uint8_t b = (uint8_t)i;
        CHECK(tycho_crc8_4d(&b, 1) == want[i]);
    }
}

/* A sensor seeing range 1 + 0.002 * (clockwise degree) m. */
static size_t lds02_stream(uint8_t *out, int revolutions)
{
    size_t len = 0;
    for (int r = 0; r < revolutions; r++)
        for (int k = 0; k < 30; k++) {
            uint16_t mm[12];
            for (int i = 0; i < 12; i++) mm[i] = (uint16_t)(1000 + 2 * (12 * k + i));
            tycho_lds02_encode(k * 1200, k * 1200 + 1100, 3600, mm, (uint16_t)(r * 100 + k),
                               out + len);
            len += TYCHO_LDS02_FRAME;
            if (k == 7) {
                memcpy(out + len, "\x54\x00junk", 6);
                len += 6;
            } /* a false start */
        }
    return len;
}

static void test_lds02(void)
{
    static uint8_t s[4 * 30 * (TYCHO_LDS02_FRAME + 6)];
    size_t len = lds02_stream(s, 3);
    s[40 * TYCHO_LDS02_FRAME + 6 + 10] ^= 0x01; /* corrupt one frame of the second turn */
    for (size_t chunk = 1; chunk < 600; chunk *= 5) {
        tycho_lds02_parser p;
        tycho_lds02_init(&p);
        tycho_scan360 revs[4];
        int n = 0;
        for (size_t off = 0; off < len;) {
            size_t end = off + chunk < len ? off + chunk : len;
            while (off < end) {
                bool got;
                tycho_scan360 sc;
                off += tycho_lds02_feed(&p, s + off, end - off, &sc, &got);
                if (got && n < 4) revs[n++] = sc;
            }
        }
        CHECK_MSG(n == 2, "%d revolutions (chunks of %zu)", n, chunk);
        CHECK(p.bad_crc == 1);
        /* clockwise degree 90 is counter-clockwise bin 270 */
        CHECK_MSG(fabsf(revs[0].ranges[270] - 1.180f) < 1e-4, "bin 270: %f", revs[0].ranges[270]);
        CHECK(fabsf(revs[0].ranges[0] - 1.0f) < 1e-4 && revs[0].points == 360 &&
              revs[0].speed == 3600);
        CHECK(revs[1].points == 348); /* the corrupted frame's 12 points are missing */
    }
}

static void test_rplidar(void)
{
    static uint8_t s[8192];
    size_t len = 0;
    memcpy(s, "\x00\xA5\x5A\x05", 4); /* a broken descriptor first */
    len = 4;
    memcpy(s + len, TYCHO_RPLIDAR_SCAN_DESCRIPTOR, 7);
    len += 7;
    for (int r = 0; r < 3; r++)
        for (int d = 0; d < 360; d++) {
            tycho_rplidar_encode_node(d == 0, 47, d + 0.25, d == 200 ? 0 : 500 + d, s + len);
            len += TYCHO_RPLIDAR_NODE;
            if (r == 1 && d == 100)
                s[len++] = 0xFF; /* one stray byte: the next nodes are out of step */
        }
    tycho_rplidar_parser p;
    tycho_rplidar_init(&p);
    tycho_scan360 revs[4];
    int n = 0;
    for (size_t off = 0; off < len;) {
        bool got;
        tycho_scan360 sc;
        off += tycho_rplidar_feed(&p, s + off, len - off, &sc, &got);
        if (got && n < 4) revs[n++] = sc;
    }
    CHECK_MSG(n == 2, "%d revolutions", n); /* the third has no S after it yet */
    CHECK(revs[0].points == 360 && fabsf(revs[0].ranges[360 - 90] - 0.590f) < 1e-4);
    CHECK(revs[0].ranges[360 - 200] == 0); /* distance 0: no return */
    CHECK(p.bad_nodes >= 1 && revs[1].points >= 358);
}

int main(void)
{
    test_crc8();
    test_lds02();
    test_rplidar();
    return check_summary("lidarproto2");
}
