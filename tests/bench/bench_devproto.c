/* Device protocol benchmark: AMG8833 frame decode (128 bytes -> 64
 * temperatures) and DYNAMIXEL 2.0 stream parsing. Target (issue 5): an
 * AMG8833 frame decode <= 2 us. */
#include "tycho/devproto.h"

#include <stdio.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    uint8_t raw[128];
    for (int i = 0; i < 128; i++) raw[i] = (uint8_t)(i * 37 + 11);
    float out[64];
    volatile float sink = 0;
    const int N = 2000000;
    double t0 = now();
    for (int k = 0; k < N; k++) {
        raw[0] = (uint8_t)k;
        tycho_amg8833_frame(raw, out);
        sink += out[k & 63];
    }
    double us = (now() - t0) / N * 1e6;
    printf("amg8833 frame decode (64 pixels): %.3f us/frame over %d frames (target <= 2 us) %s\n", us, N,
           us <= 2 ? "PASS" : "FAIL");
    /* a status packet with 100 bytes of parameters, fed as a stream */
    uint8_t params[100], pkt[256];
    for (int i = 0; i < 100; i++) params[i] = (uint8_t)i;
    size_t n = tycho_dxl_encode(1, 0x55, params, sizeof params, pkt, sizeof pkt);
    tycho_dxl_parser p;
    tycho_dxl_parser_init(&p);
    tycho_dxl_packet pk;
    const int M = 200000;
    int got_n = 0;
    t0 = now();
    for (int k = 0; k < M; k++) {
        size_t off = 0;
        while (off < n) {
            bool got;
            off += tycho_dxl_feed(&p, pkt + off, n - off, &pk, &got);
            got_n += got;
        }
    }
    double pus = (now() - t0) / M * 1e6;
    printf("dynamixel 2.0 parse (%zu-byte status packet, CRC checked): %.3f us/packet, %d parsed\n", n, pus,
           got_n);
    (void)sink;
    return us <= 2 && got_n == M ? 0 : 1;
}
