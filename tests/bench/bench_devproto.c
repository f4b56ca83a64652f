/* Device protocol benchmark: AMG8833 frame decode (128 bytes -> 64
 * temperatures) and DYNAMIXEL 2.0 stream parsing. Target (issue 5): an
 * AMG8833 frame decode <= 2 us. */
#include "result.h"

#include "clock.h"
#include "tycho/devproto.h"
#include "tycho/lidarproto.h"
#include <math.h>

#include <stdio.h>
#include <time.h>

int main(void)
{
    uint8_t raw[128];
    for (int i = 0; i < 128; i++) raw[i] = (uint8_t)(i * 37 + 11);
    float out[64];
    volatile float sink = 0;
    const int N = 2000000;
    double t0 = bench_now();
    for (int k = 0; k < N; k++) {
        raw[0] = (uint8_t)k;
        tycho_amg8833_frame(raw, out);
        sink += out[k & 63];
    }
    double us = (bench_now() - t0) / N * 1e6;
    printf("amg8833 frame decode (64 pixels): %.3f us/frame over %d frames (target <= 2 us) %s\n",
           us, N, us <= 2 ? "PASS" : "FAIL");
    bench_result("devproto.amg8833_us", us, "us/frame", "<=", 2,
                 "`bench_devproto`: AMG8833 frame decode");
    /* a status packet with 100 bytes of parameters, fed as a stream */
    uint8_t params[100], pkt[256];
    for (int i = 0; i < 100; i++) params[i] = (uint8_t)i;
    size_t n = tycho_dxl_encode(1, 0x55, params, sizeof params, pkt, sizeof pkt);
    tycho_dxl_parser p;
    tycho_dxl_parser_init(&p);
    tycho_dxl_packet pk;
    const int M = 200000;
    int got_n = 0;
    t0 = bench_now();
    for (int k = 0; k < M; k++) {
        size_t off = 0;
        while (off < n) {
            bool got;
            off += tycho_dxl_feed(&p, pkt + off, n - off, &pk, &got);
            got_n += got;
        }
    }
    double pus = (bench_now() - t0) / M * 1e6;
    printf("dynamixel 2.0 parse (%zu-byte status packet, CRC checked): %.3f us/packet, %d parsed\n",
           n, pus, got_n);
    /* a full LDS-01 revolution (60 packets, 2520 bytes) as it comes off the
     * serial port in 256-byte reads, checksums checked */
    static uint8_t rev[TYCHO_LDS01_PACKETS * TYCHO_LDS01_PACKET];
    float ranges[TYCHO_LDS01_BEAMS];
    for (int i = 0; i < TYCHO_LDS01_BEAMS; i++) ranges[i] = 0.12f + 0.009f * (float)i;
    tycho_lds01_encode(ranges, 300, rev);
    tycho_lds01_parser lp;
    tycho_lds01_init(&lp, TYCHO_CHECKSUM_CHECK);
    static tycho_lds01_scan scan;
    const int R = 20000;
    int revs = 0;
    t0 = bench_now();
    for (int k = 0; k < R; k++) {
        size_t off = 0;
        while (off < sizeof rev) {
            size_t end = off + 256 < sizeof rev ? off + 256 : sizeof rev;
            while (off < end) {
                bool got;
                off += tycho_lds01_feed(&lp, rev + off, end - off, &scan, &got);
                revs += got;
            }
        }
    }
    double rus = (bench_now() - t0) / R * 1e6;
    printf("lds-01 revolution parse (60 packets, 2520 bytes, checksums checked): %.2f "
           "us/revolution, %d revolutions "
           "(target <= 20 us) %s\n",
           rus, revs, rus <= 20 && revs == R ? "PASS" : "FAIL");
    bench_result("devproto.lds01_rev_us", revs == R ? rus : INFINITY, "us/revolution", "<=", 20,
                 "`bench_devproto`: LDS-01 revolution parse (60 packets, checksums)");
    (void)sink;
    return us <= 2 && got_n == M && rus <= 20 && revs == R ? 0 : 1;
}
