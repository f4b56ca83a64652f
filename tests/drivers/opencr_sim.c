/* The simulated OpenCR board: see opencr_sim.h. */
#define _GNU_SOURCE /* posix_openpt, ptsname */
#include "opencr_sim.h"
#include "tycho/devproto.h"

#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int32_t get_i32(const uint8_t *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}
static void put_i32(uint8_t *p, int32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)((uint32_t)v >> (8 * i));
}
static void put_f32(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_i32(p, (int32_t)u);
}

static void reply(opencr *o, const uint8_t *data, size_t n)
{
    uint8_t body[300], pkt[700];
    body[0] = 0; /* no error */
    memcpy(body + 1, data, n);
    size_t len = tycho_dxl_encode(200, 0x55, body, n + 1, pkt, sizeof pkt);
    if (o->garble) {
        static const uint8_t junk[] = {0x00, 0xFF, 0x13, 0xFD, 0xFF};
        if (write(o->master, junk, sizeof junk) < 0) return;
        pkt[len - 1] ^= 0x5A; /* a bad CRC: the driver must drop it */
    }
    if (write(o->master, pkt, len) < 0) return;
}

static void *board(void *arg)
{
    opencr *o = arg;
    tycho_dxl_parser p;
    tycho_dxl_parser_init(&p);
    double last = now_s();
    for (;;) {
        pthread_mutex_lock(&o->mu);
        bool stop = o->stop;
        /* the wheels turn as commanded while the torque is on */
        double t = now_s(), dt = t - last;
        last = t;
        if (o->table[149] && !o->external) {
            double v = get_i32(o->table + 150) / 100.0, w = get_i32(o->table + 170) / 100.0;
            double k = 4096 / (2 * M_PI * 0.033);
            o->ticks_l += (v - w * 0.160 / 2) * dt * k;
            o->ticks_r += (v + w * 0.160 / 2) * dt * k;
            put_i32(o->table + 136, (int32_t)lround(o->ticks_l));
            put_i32(o->table + 140, (int32_t)lround(o->ticks_r));
        }
        pthread_mutex_unlock(&o->mu);
        if (stop) break;
        struct pollfd pf = {o->master, POLLIN, 0};
        if (poll(&pf, 1, 2) <= 0) continue;
        uint8_t buf[512];
        ssize_t n = read(o->master, buf, sizeof buf);
        for (ssize_t off = 0; off < n;) {
            tycho_dxl_packet pk;
            bool got = false;
            off += (ssize_t)tycho_dxl_feed(&p, buf + off, (size_t)(n - off), &pk, &got);
            if (!got || pk.id != 200) continue;
            pthread_mutex_lock(&o->mu);
            bool silent = o->silent;
            if (pk.instruction == 0x03 && pk.n >= 2) { /* WRITE */
                unsigned a = pk.params[0] | pk.params[1] << 8;
                if (a + pk.n - 2 <= sizeof o->table) memcpy(o->table + a, pk.params + 2, pk.n - 2);
                o->writes_seen++;
                int32_t v = get_i32(o->table + 150), w = get_i32(o->table + 170);
                if (a == 150 && v == 0 && w == 0) o->zero_cmds++;
                if (a == 150 && o->cmd_log &&
                    (!o->logged || v != o->logged_v || w != o->logged_w)) {
                    fprintf(o->cmd_log, "%.4f %d %d\n", now_s(), (int)v, (int)w);
                    fflush(o->cmd_log);
                    o->logged = true, o->logged_v = v, o->logged_w = w;
                }
            }
            uint8_t data[300];
            size_t dn = 0;
            if (pk.instruction == 0x02 && pk.n == 4) { /* READ */
                unsigned a = pk.params[0] | pk.params[1] << 8,
                         len = pk.params[2] | pk.params[3] << 8;
                if (a + len <= sizeof o->table && len <= sizeof data)
                    memcpy(data, o->table + a, dn = len);
            }
            if (pk.instruction == 0x01) {
                data[0] = 0x06;
                data[1] = 0x04;
                data[2] = 0x26;
                dn = 3;
            } /* PING: model, fw */
            pthread_mutex_unlock(&o->mu);
            if (!silent) reply(o, data, dn);
        }
    }
    return NULL;
}

char *start_board(opencr *o)
{
    memset(o, 0, sizeof *o);
    o->master = posix_openpt(O_RDWR | O_NOCTTY);
    grantpt(o->master);
    unlockpt(o->master);
    pthread_mutex_init(&o->mu, NULL);
    /* level, nose up 0.2 rad: the board's quaternion for pitch 0.2 */
    put_f32(o->table + 96, (float)cos(0.1));
    put_f32(o->table + 104, (float)sin(0.1));
    put_f32(o->table + 68, 0.25f); /* gyro z */
    pthread_create(&o->thread, NULL, board, o);
    return ptsname(o->master);
}

void stop_board(opencr *o)
{
    pthread_mutex_lock(&o->mu);
    o->stop = true;
    pthread_mutex_unlock(&o->mu);
    pthread_join(o->thread, NULL);
    close(o->master);
}

void opencr_command(opencr *o, double *v, double *w, bool *torque)
{
    pthread_mutex_lock(&o->mu);
    *v = get_i32(o->table + 150) / 100.0;
    *w = get_i32(o->table + 170) / 100.0;
    *torque = o->table[149] != 0;
    pthread_mutex_unlock(&o->mu);
}

void opencr_set_wheels(opencr *o, double ticks_l, double ticks_r)
{
    pthread_mutex_lock(&o->mu);
    o->ticks_l = ticks_l, o->ticks_r = ticks_r;
    put_i32(o->table + 136, (int32_t)lround(ticks_l));
    put_i32(o->table + 140, (int32_t)lround(ticks_r));
    pthread_mutex_unlock(&o->mu);
}

void opencr_set_imu(opencr *o, double roll, double pitch, double yaw, double gyro_z)
{
    double cr = cos(roll / 2), sr = sin(roll / 2), cp = cos(pitch / 2), sp = sin(pitch / 2);
    double cy = cos(yaw / 2), sy = sin(yaw / 2);
    pthread_mutex_lock(&o->mu);
    put_f32(o->table + 96, (float)(cr * cp * cy + sr * sp * sy));
    put_f32(o->table + 100, (float)(sr * cp * cy - cr * sp * sy));
    put_f32(o->table + 104, (float)(cr * sp * cy + sr * cp * sy));
    put_f32(o->table + 108, (float)(cr * cp * sy - sr * sp * cy));
    put_f32(o->table + 68, (float)gyro_z);
    pthread_mutex_unlock(&o->mu);
}
