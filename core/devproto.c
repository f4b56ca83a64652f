/* Device protocols: see devproto.h. */
#include "tycho/devproto.h"

#include <math.h>
#include <string.h>

/* --- AMG8833 --------------------------------------------------------------- */

double tycho_amg8833_pixel(uint8_t lo, uint8_t hi)
{
    int v = ((hi & 0x0f) << 8) | lo;
    if (v & 0x800) v -= 0x1000; /* 12-bit two's complement */
    return v * 0.25;
}

double tycho_amg8833_thermistor(uint8_t lo, uint8_t hi)
{
    int mag = ((hi & 0x07) << 8) | lo; /* 11-bit magnitude, bit 11 the sign */
    return (hi & 0x08 ? -mag : mag) * 0.0625;
}

void tycho_amg8833_frame(const uint8_t raw[128], float out[TYCHO_AMG8833_PIXELS])
{
    for (int i = 0; i < TYCHO_AMG8833_PIXELS; i++)
        out[i] = (float)tycho_amg8833_pixel(raw[2 * i], raw[2 * i + 1]);
}

/* --- MPU-6050 -------------------------------------------------------------- */

static int16_t be16(const uint8_t *p) { return (int16_t)(uint16_t)((p[0] << 8) | p[1]); }

tycho_status tycho_mpu6050_decode(const uint8_t raw[14], int arange, int grange,
                                  tycho_mpu6050_sample *out, tycho_err *err)
{
    if (arange != 2 && arange != 4 && arange != 8 && arange != 16)
        return tycho_fail(err, TYCHO_EINVAL, "accelerometer range must be 2, 4, 8 or 16 g");
    if (grange != 250 && grange != 500 && grange != 1000 && grange != 2000)
        return tycho_fail(err, TYCHO_EINVAL, "gyro range must be 250, 500, 1000 or 2000 deg/s");
    const double g = 9.80665;
    double alsb = arange * g / 32768.0, glsb = grange * (M_PI / 180.0) / 32768.0;
    out->ax = be16(raw) * alsb;
    out->ay = be16(raw + 2) * alsb;
    out->az = be16(raw + 4) * alsb;
    out->temp_c = be16(raw + 6) / 340.0 + 36.53;
    out->gx = be16(raw + 8) * glsb;
    out->gy = be16(raw + 10) * glsb;
    out->gz = be16(raw + 12) * glsb;
    return TYCHO_OK;
}

void tycho_attitude_init(tycho_attitude *a, double tau)
{
    memset(a, 0, sizeof *a);
    a->tau = tau > 0 ? tau : 0.5;
}

void tycho_attitude_update(tycho_attitude *a, const tycho_mpu6050_sample *s, double dt)
{
    /* gravity direction: roll about x, pitch about y (nose up positive) */
    double roll_acc = atan2(s->ay, s->az);
    double pitch_acc = atan2(-s->ax, hypot(s->ay, s->az));
    if (!a->started || !(dt > 0)) {
        a->roll = roll_acc, a->pitch = pitch_acc, a->started = true;
        return;
    }
    double alpha = a->tau / (a->tau + dt);
    a->roll = alpha * (a->roll + s->gx * dt) + (1 - alpha) * roll_acc;
    a->pitch = alpha * (a->pitch + s->gy * dt) + (1 - alpha) * pitch_acc;
}

/* --- DYNAMIXEL Protocol 2.0 ----------------------------------------------- */

uint16_t tycho_dxl_crc16(uint16_t crc, const uint8_t *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        crc ^= (uint16_t)(data[i] << 8);
        for (int b = 0; b < 8; b++) crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x8005 : crc << 1);
    }
    return crc;
}

size_t tycho_dxl_encode(uint8_t id, uint8_t inst, const uint8_t *params, size_t n, uint8_t *out,
                        size_t cap)
{
    if (cap < 10) return 0;
    size_t k = 0;
    out[k++] = 0xFF, out[k++] = 0xFF, out[k++] = 0xFD, out[k++] = 0x00;
    out[k++] = id;
    k += 2; /* length, filled below */
    out[k++] = inst;
    for (size_t i = 0; i < n; i++) {
        if (k + 4 > cap) return 0;
        out[k++] = params[i];
        /* FF FF FD inside the body gets an extra FD */
        if (params[i] == 0xFD && k >= 3 && out[k - 2] == 0xFF && out[k - 3] == 0xFF && k - 3 >= 7)
            out[k++] = 0xFD;
    }
    size_t len = k - 7 + 2; /* instruction + stuffed params + CRC */
    if (len > 0xFFFF || k + 2 > cap) return 0;
    out[5] = (uint8_t)(len & 0xFF), out[6] = (uint8_t)(len >> 8);
    uint16_t crc = tycho_dxl_crc16(0, out, k);
    out[k++] = (uint8_t)(crc & 0xFF), out[k++] = (uint8_t)(crc >> 8);
    return k;
}

void tycho_dxl_parser_init(tycho_dxl_parser *p) { memset(p, 0, sizeof *p); }

static const uint8_t HEADER[4] = {0xFF, 0xFF, 0xFD, 0x00};

static void drop(tycho_dxl_parser *p, size_t k)
{
    memmove(p->buf, p->buf + k, p->n - k);
    p->n -= k;
}

/* Brings the buffer to a state where it starts with a (partial) header, or
 * holds a complete packet; returns true when a packet was decoded. */
static bool process(tycho_dxl_parser *p, tycho_dxl_packet *out)
{
    for (;;) {
        size_t m = p->n < 4 ? p->n : 4;
        if (m && memcmp(p->buf, HEADER, m) != 0) {
            drop(p, 1);
            p->skipped++;
            continue;
        }
        if (p->n < 7) return false;
        size_t len = (size_t)p->buf[5] | ((size_t)p->buf[6] << 8);
        if (len < 3 || 7 + len > sizeof p->buf) {
            p->bad_length++;
            drop(p, 1);
            continue;
        }
        if (p->n < 7 + len) return false;
        size_t total = 7 + len;
        uint16_t crc = tycho_dxl_crc16(0, p->buf, total - 2);
        if ((p->buf[total - 2] | (p->buf[total - 1] << 8)) != crc) {
            p->bad_crc++;
            drop(p, 1);
            continue;
        }
        out->id = p->buf[4];
        out->instruction = p->buf[7];
        out->error = 0;
        size_t k = 0;
        const uint8_t *body = p->buf + 8;
        size_t nb = len - 3;
        for (size_t i = 0; i < nb; i++) {
            if (body[i] == 0xFD && i >= 3 && body[i - 1] == 0xFD && body[i - 2] == 0xFF &&
                body[i - 3] == 0xFF)
                continue; /* the stuffed FD */
            if (k < sizeof out->params) out->params[k++] = body[i];
        }
        if (out->instruction == 0x55 && k > 0) { /* status: error byte first */
            out->error = out->params[0];
            memmove(out->params, out->params + 1, --k);
        }
        out->n = k;
        p->packets++;
        drop(p, total);
        return true;
    }
}

size_t tycho_dxl_feed(tycho_dxl_parser *p, const uint8_t *data, size_t len, tycho_dxl_packet *out,
                      bool *got)
{
    *got = false;
    size_t i = 0;
    while (i < len) {
        if (p->n == sizeof p->buf) drop(p, 1), p->skipped++;
        p->buf[p->n++] = data[i++];
        if (process(p, out)) {
            *got = true;
            break;
        }
    }
    return i;
}
