/* Device protocol decoding against datasheet values and hostile streams. */
#include "check.h"
#include "tycho/devproto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    /* AMG8833 datasheet examples */
    CHECK_NEAR(tycho_amg8833_pixel(0x64, 0x00), 25.0, 1e-12);
    CHECK_NEAR(tycho_amg8833_pixel(0xFF, 0x0F), -0.25, 1e-12);
    CHECK_NEAR(tycho_amg8833_pixel(0x00, 0x08), -512.0, 1e-12);
    CHECK_NEAR(tycho_amg8833_pixel(0xFF, 0x07), 511.75, 1e-12);
    CHECK_NEAR(tycho_amg8833_pixel(0x64, 0xF0), 25.0, 1e-12); /* upper nibble ignored */
    CHECK_NEAR(tycho_amg8833_thermistor(0x90, 0x01), 25.0, 1e-12);
    CHECK_NEAR(tycho_amg8833_thermistor(0x04, 0x08), -0.25, 1e-12);
    uint8_t raw[128];
    for (int i = 0; i < 64; i++) raw[2 * i] = (uint8_t)(0x50 + i), raw[2 * i + 1] = 0;
    float f[64];
    tycho_amg8833_frame(raw, f);
    CHECK_NEAR(f[0], 20.0, 1e-6);
    CHECK_NEAR(f[63], (0x50 + 63) * 0.25, 1e-6);

    /* MPU-6050: 1 g on z at +-2 g, 250 deg/s gyro */
    uint8_t m[14] = {0, 0, 0,    0,   0x40, 0x00, 0xF1, 0x3C /* -3780 */, 0x00, 0x83 /* 131 */,
                     0, 0, 0xFF, 0x7D};
    tycho_mpu6050_sample s;
    tycho_err err = {0};
    CHECK(tycho_mpu6050_decode(m, 2, 250, &s, &err) == TYCHO_OK);
    CHECK_NEAR(s.az, 9.80665, 1e-9);
    CHECK_NEAR(s.ax, 0, 1e-12);
    CHECK_NEAR(s.temp_c, -3780 / 340.0 + 36.53, 1e-9);
    CHECK_NEAR(s.gx, 131 * 250.0 / 32768 * M_PI / 180, 1e-12); /* ~1 deg/s */
    CHECK_NEAR(s.gz, -131 * 250.0 / 32768 * M_PI / 180, 1e-12);
    CHECK(tycho_mpu6050_decode(m, 3, 250, &s, &err) == TYCHO_EINVAL);
    /* complementary filter: tilted 10 deg nose up, at rest, converges; a
     * spinning gyro alone is followed at first */
    tycho_attitude a;
    tycho_attitude_init(&a, 0.5);
    tycho_mpu6050_sample t = {0};
    double p10 = 10 * M_PI / 180;
    t.ax = -9.80665 * sin(p10), t.az = 9.80665 * cos(p10);
    for (int i = 0; i < 500; i++) tycho_attitude_update(&a, &t, 0.01);
    CHECK_NEAR(a.pitch, p10, 1e-6);
    CHECK_NEAR(a.roll, 0, 1e-9);
    t.gy = 1.0; /* 1 rad/s for 0.05 s while the accelerometer still says 10 deg */
    for (int i = 0; i < 5; i++) tycho_attitude_update(&a, &t, 0.01);
    CHECK(a.pitch > p10 + 0.035 && a.pitch < p10 + 0.05);

    /* DYNAMIXEL 2.0 CRC: the CRC-16/BUYPASS check value, and the manual's ping */
    CHECK(tycho_dxl_crc16(0, (const uint8_t *)"123456789", 9) == 0xFEE8);
    uint8_t pkt[64];
    size_t n = tycho_dxl_encode(1, 0x01, NULL, 0, pkt, sizeof pkt);
    const uint8_t ping[] = {0xFF, 0xFF, 0xFD, 0x00, 0x01, 0x03, 0x00, 0x01, 0x19, 0x4E};
    CHECK(n == sizeof ping && memcmp(pkt, ping, n) == 0);
    /* stuffing: FF FF FD in the parameters gets an FD, and comes back out */
    const uint8_t params[] = {0x74, 0x00, 0xFF, 0xFF, 0xFD, 0x01};
    n = tycho_dxl_encode(7, 0x03, params, sizeof params, pkt, sizeof pkt);
    CHECK(n == 10 + 6 + 1);
    CHECK(pkt[5] == 6 + 1 + 3 && pkt[13] == 0xFD && pkt[14] == 0x01);
    tycho_dxl_parser p;
    tycho_dxl_parser_init(&p);
    tycho_dxl_packet out;
    bool got;
    /* garbage, then the packet in two chunks */
    const uint8_t junk[] = {0x00, 0xFF, 0x12, 0xFF, 0xFF, 0x01};
    size_t used = tycho_dxl_feed(&p, junk, sizeof junk, &out, &got);
    CHECK(used == sizeof junk && !got);
    used = tycho_dxl_feed(&p, pkt, 5, &out, &got);
    CHECK(!got);
    used = tycho_dxl_feed(&p, pkt + 5, n - 5, &out, &got);
    CHECK(got && used == n - 5);
    CHECK(out.id == 7 && out.instruction == 0x03 && out.n == sizeof params &&
          memcmp(out.params, params, sizeof params) == 0);
    /* a corrupted copy is dropped (CRC), the next good one comes through */
    uint8_t two[128];
    memcpy(two, pkt, n);
    two[9] ^= 0x40;
    memcpy(two + n, pkt, n);
    size_t off = 0;
    int packets = 0;
    while (off < 2 * n) {
        off += tycho_dxl_feed(&p, two + off, 2 * n - off, &out, &got);
        if (got) packets++;
    }
    CHECK(packets == 1 && p.bad_crc >= 1);
    /* a status packet: error byte split off */
    const uint8_t st_params[] = {0x00, 0x06, 0x04, 0x26};
    n = tycho_dxl_encode(1, 0x55, st_params, sizeof st_params, pkt, sizeof pkt);
    tycho_dxl_feed(&p, pkt, n, &out, &got);
    CHECK(got && out.error == 0 && out.n == 3 && out.params[0] == 0x06);
    /* random bytes never produce a packet and never overflow */
    srand(7);
    int spurious = 0;
    for (int i = 0; i < 200000; i++) {
        uint8_t b = (uint8_t)rand();
        tycho_dxl_feed(&p, &b, 1, &out, &got);
        spurious += got;
    }
    CHECK(spurious == 0);
    return check_summary("devproto");
}
