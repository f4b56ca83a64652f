/* Device protocols, pure functions (no I/O): what the drivers in drivers/
 * decode and encode, testable byte for byte without hardware.
 *
 * AMG8833 (Panasonic Grid-EYE, datasheet "Grid-EYE Specifications"):
 *   pixels 0x80..0xFF, 64 x 2 bytes little-endian, 12-bit two's complement,
 *   0.25 degC per LSB (0x064 -> 25.0, 0xFFF -> -0.25);
 *   thermistor 0x0E/0x0F, 12-bit sign-magnitude (bit 11 = sign), 0.0625 degC
 *   per LSB (0x190 -> 25.0, 0x804 -> -0.25).
 * MPU-6050 (InvenSense register map): a 14-byte burst from ACCEL_XOUT_H
 *   (0x3B): accel x, y, z, temperature, gyro x, y, z, each big-endian int16.
 *   Scales from the full-scale ranges; temperature = raw / 340 + 36.53 degC.
 * DYNAMIXEL Protocol 2.0 (ROBOTIS e-Manual): FF FF FD 00, ID, LEN_L, LEN_H,
 *   INSTRUCTION, PARAMS..., CRC_L, CRC_H. LEN = stuffed params + 3. Byte
 *   stuffing: after every FF FF FD inside instruction+params an extra FD is
 *   inserted (and removed on receive). CRC-16 with polynomial 0x8005, init 0,
 *   no reflection (CRC-16/BUYPASS), over everything before the CRC. */
#ifndef TYCHO_DEVPROTO_H
#define TYCHO_DEVPROTO_H

#include "tycho/common.h"

#include <stddef.h>
#include <stdint.h>

/* --- AMG8833 --- */
#define TYCHO_AMG8833_PIXELS 64
double tycho_amg8833_pixel(uint8_t lo, uint8_t hi);
double tycho_amg8833_thermistor(uint8_t lo, uint8_t hi);
/* 128 bytes read from 0x80 -> 64 temperatures, row-major as the sensor
 * orders them. */
void tycho_amg8833_frame(const uint8_t raw[128], float out[TYCHO_AMG8833_PIXELS]);

/* --- MPU-6050 --- */
typedef struct {
    double ax, ay, az; /* m/s^2 */
    double gx, gy, gz; /* rad/s */
    double temp_c;
} tycho_mpu6050_sample;
/* accel_range_g: 2, 4, 8 or 16; gyro_range_dps: 250, 500, 1000 or 2000.
 * EINVAL on another range. */
tycho_status tycho_mpu6050_decode(const uint8_t raw[14], int accel_range_g, int gyro_range_dps,
                                  tycho_mpu6050_sample *out, tycho_err *err);

/* Complementary filter for roll and pitch (rad): integrates the gyro and
 * pulls towards the accelerometer's gravity direction with weight
 * (1 - alpha) per update; alpha = tau / (tau + dt). */
typedef struct {
    double roll, pitch;
    double tau; /* s, default 0.5 */
    bool started;
} tycho_attitude;
void tycho_attitude_init(tycho_attitude *a, double tau);
void tycho_attitude_update(tycho_attitude *a, const tycho_mpu6050_sample *s, double dt);

/* --- DYNAMIXEL Protocol 2.0 --- */
uint16_t tycho_dxl_crc16(uint16_t crc, const uint8_t *data, size_t n);
/* Builds a packet into out (cap bytes); returns its length, or 0 if cap is
 * too small or params too long. */
size_t tycho_dxl_encode(uint8_t id, uint8_t instruction, const uint8_t *params, size_t n,
                        uint8_t *out, size_t cap);

typedef struct {
    uint8_t id, instruction;
    uint8_t error;        /* status packets (instruction 0x55): the error byte */
    uint8_t params[1024]; /* unstuffed (status: without the error byte) */
    size_t n;
} tycho_dxl_packet;

/* Stream parser: feed bytes in any chunks; complete, CRC-checked packets
 * come out one at a time. Garbage before a header is skipped; a packet with
 * a bad CRC or an impossible length is dropped and counted, and parsing
 * resynchronises on the next header. */
typedef struct {
    uint8_t buf[2048];
    size_t n;
    unsigned long packets, bad_crc, bad_length, skipped;
} tycho_dxl_parser;
void tycho_dxl_parser_init(tycho_dxl_parser *p);
/* Consumes up to len bytes; returns how many were consumed. When a packet
 * is complete it stops right after it and sets *got (then call again with
 * the rest). */
size_t tycho_dxl_feed(tycho_dxl_parser *p, const uint8_t *data, size_t len, tycho_dxl_packet *out,
                      bool *got);

#endif
