/* LDS-01 protocol (core/lidarproto.c): revolutions round-trip through the
 * encoder and the streaming parser, in any chunking, with garbage, bad
 * checksums, truncated packets; the checksum modes. */
#include "check.h"
#include "tycho/lidarproto.h"

#include <string.h>

#define REV (TYCHO_LDS01_PACKETS * TYCHO_LDS01_PACKET)

static void ranges_for(float *r, double base)
{
    for (int i = 0; i < TYCHO_LDS01_BEAMS; i++) r[i] = (float)(base + 0.01 * i);
}

static int feed_all(tycho_lds01_parser *p, const uint8_t *data, size_t len, tycho_lds01_scan *scans,
                    int cap, size_t chunk)
{
    int n = 0;
    size_t off = 0;
    while (off < len) {
        size_t c = chunk && chunk < len - off ? chunk : len - off;
        size_t end = off + c;
        while (off < end) {
            bool got;
            tycho_lds01_scan s;
            off += tycho_lds01_feed(p, data + off, end - off, &s, &got);
            if (got && n < cap) scans[n++] = s;
        }
    }
    return n;
}

static void test_round_trip(void)
{
    float r[360];
    ranges_for(r, 0.12);
    static uint8_t stream[3 * REV + 100];
    size_t len = 0;
    memcpy(stream, "\x13\x37\xFA\x00garbage", 11); /* junk first, a false start too */
    len = 11;
    for (int k = 0; k < 3; k++) {
        tycho_lds01_encode(r, 300, stream + len);
        len += REV;
    }
    for (size_t chunk = 1; chunk <= 4096; chunk *= 7) {
        tycho_lds01_parser p;
        tycho_lds01_init(&p, TYCHO_CHECKSUM_CHECK);
        tycho_lds01_scan scans[4];
        int n = feed_all(&p, stream, len, scans, 4, chunk);
        CHECK_MSG(n == 3, "%d revolutions with chunks of %zu", n, chunk);
        int bad = 0;
        for (int i = 0; i < 360; i++) bad += fabsf(scans[0].ranges[i] - r[i]) > 0.0006f;
        CHECK_MSG(bad == 0, "%d beams differ", bad);
        CHECK(scans[2].packets == 60 && fabs(scans[2].rpm - 300) < 1e-9 &&
              scans[1].intensities[5] == 200);
        CHECK(p.bad_checksum == 0 && p.skipped >= 9);
    }
}

static void test_bad_checksum_and_truncation(void)
{
    float r[360];
    ranges_for(r, 1.0);
    static uint8_t stream[2 * REV];
    tycho_lds01_encode(r, 300, stream);
    tycho_lds01_encode(r, 300, stream + REV);
    /* a flipped bit in packet 10 (a late word: the XV-11 sum shifts the
     * early words out of its 15 bits, so flips there go unnoticed) */
    stream[10 * TYCHO_LDS01_PACKET + 34] ^= 0x01;
    tycho_lds01_parser p;
    tycho_lds01_init(&p, TYCHO_CHECKSUM_CHECK);
    tycho_lds01_scan s[3];
    int n = feed_all(&p, stream, 2 * REV, s, 3, 0);
    CHECK(n == 2 && p.bad_checksum == 1 && s[0].packets == 59 && s[1].packets == 60);
    /* packet 10's beams (359 - 60 .. 359 - 65) stayed empty */
    CHECK(s[0].ranges[359 - 60] == 0 && s[0].ranges[359 - 66] > 0);
    /* a packet cut short: the stream goes on with the next one */
    static uint8_t cut[2 * REV];
    tycho_lds01_encode(r, 300, cut);
    size_t first = 20 * TYCHO_LDS01_PACKET + 17; /* 17 bytes into packet 20 */
    memmove(cut + first, cut + 21 * TYCHO_LDS01_PACKET, REV - 21 * TYCHO_LDS01_PACKET);
    size_t len = REV - (TYCHO_LDS01_PACKET - 17);
    tycho_lds01_encode(r, 300, cut + len);
    len += REV;
    tycho_lds01_init(&p, TYCHO_CHECKSUM_CHECK);
    n = feed_all(&p, cut, len, s, 3, 5);
    CHECK_MSG(n == 2 && s[0].packets >= 57 && s[1].packets == 60, "%d revolutions, %d + %d packets",
              n, s[0].packets, n > 1 ? s[1].packets : -1);
}

static void test_checksum_modes(void)
{
    /* a sensor whose checksums never match ours, packets otherwise perfect */
    float r[360];
    ranges_for(r, 0.5);
    static uint8_t stream[3 * REV];
    for (int k = 0; k < 3; k++) tycho_lds01_encode(r, 300, stream + k * REV);
    for (int k = 0; k < 3 * TYCHO_LDS01_PACKETS; k++) stream[k * TYCHO_LDS01_PACKET + 40] ^= 0xFF;
    tycho_lds01_parser p;
    tycho_lds01_scan s[4];
    tycho_lds01_init(&p, TYCHO_CHECKSUM_CHECK);
    CHECK(feed_all(&p, stream, 3 * REV, s, 4, 0) == 0 && p.bad_checksum == 180);
    tycho_lds01_init(&p, TYCHO_CHECKSUM_AUTO);
    int n = feed_all(&p, stream, 3 * REV, s, 4, 0);
    CHECK_MSG(p.checksum_given_up && n == 2 && s[0].packets == 60, "auto: %d revolutions", n);
    tycho_lds01_init(&p, TYCHO_CHECKSUM_IGNORE);
    CHECK(feed_all(&p, stream, 3 * REV, s, 4, 0) == 3);
}

int main(void)
{
    test_round_trip();
    test_bad_checksum_and_truncation();
    test_checksum_modes();
    return check_summary("lidarproto");
}
