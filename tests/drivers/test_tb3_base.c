/* The TurtleBot3 base driver (drivers/tb3_base.c) against a simulated
 * OpenCR board on the other end of a pseudo-terminal: the driver's real
 * serial and DYNAMIXEL 2.0 code; the board keeps a control table, applies
 * writes, answers reads, turns its wheels from the commanded velocity, and
 * can garble replies or go silent. */
#define _GNU_SOURCE /* posix_openpt, ptsname */
#include "check.h"
#include "tb3_base.h"
#include "tycho/devproto.h"

#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    int master;
    pthread_mutex_t mu;
    uint8_t table[512];
    double ticks_l, ticks_r;
    bool stop, silent, garble;
    long writes_seen, zero_cmds;
    pthread_t thread;
} opencr;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int32_t get_i32(const uint8_t *p) { return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24); }
static void put_i32(uint8_t *p, int32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)((uint32_t)v >> (8 * i)); }
static void put_f32(uint8_t *p, float f) { uint32_t u; memcpy(&u, &f, 4); put_i32(p, (int32_t)u); }

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
        if (o->table[149]) {
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
                if (a == 150 && get_i32(o->table + 150) == 0 && get_i32(o->table + 170) == 0) o->zero_cmds++;
            }
            uint8_t data[300];
            size_t dn = 0;
            if (pk.instruction == 0x02 && pk.n == 4) { /* READ */
                unsigned a = pk.params[0] | pk.params[1] << 8, len = pk.params[2] | pk.params[3] << 8;
                if (a + len <= sizeof o->table && len <= sizeof data) memcpy(data, o->table + a, dn = len);
            }
            if (pk.instruction == 0x01) { data[0] = 0x06; data[1] = 0x04; data[2] = 0x26; dn = 3; } /* PING: model, fw */
            pthread_mutex_unlock(&o->mu);
            if (!silent) reply(o, data, dn);
        }
    }
    return NULL;
}

static char *start_board(opencr *o)
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

static void stop_board(opencr *o)
{
    pthread_mutex_lock(&o->mu);
    o->stop = true;
    pthread_mutex_unlock(&o->mu);
    pthread_join(o->thread, NULL);
    close(o->master);
}

static tycho_tb3_config config(const char *port)
{
    tycho_tb3_config c;
    tycho_tb3_defaults(&c);
    snprintf(c.port, sizeof c.port, "%s", port);
    c.answer_timeout_s = 0.1; /* generous: the test machine may be loaded */
    return c;
}

static void test_drive_and_odometry(void)
{
    opencr o;
    tycho_tb3_config c = config(start_board(&o));
    tycho_err err = {0};
    tycho_tb3 *b = tycho_tb3_open(&c, &err);
    CHECK_MSG(b != NULL, "%s", err.msg);
    if (!b) return stop_board(&o);
    CHECK(o.table[149] == 1); /* torque on */
    /* 0.1 m/s straight for 1 s, refreshed as a behaviour would */
    double t0 = now_s();
    while (now_s() - t0 < 1.0) {
        tycho_tb3_command(b, 0.1, 0);
        usleep(50000);
    }
    tycho_tb3_command(b, 0, 0);
    usleep(150000);
    tycho_tb3_state s = tycho_tb3_state_get(b);
    CHECK_MSG(fabs(s.x - 0.1) < 0.03 && fabs(s.y) < 0.005 && fabs(s.yaw) < 0.02, "odometry (%.3f, %.3f, %.3f)", s.x, s.y, s.yaw);
    CHECK_MSG(fabs(s.pitch - 0.2) < 1e-3 && fabs(s.roll) < 1e-3, "roll %.4f pitch %.4f", s.roll, s.pitch);
    CHECK(fabs(s.gyro_z - 0.25) < 1e-6);
    CHECK(s.ok && s.samples > 20);
    /* turning on the spot: 0.5 rad/s for 1 s */
    t0 = now_s();
    while (now_s() - t0 < 1.0) {
        tycho_tb3_command(b, 0, 0.5);
        usleep(50000);
    }
    tycho_tb3_command(b, 0, 0);
    usleep(150000);
    s = tycho_tb3_state_get(b);
    CHECK_MSG(fabs(s.yaw - 0.5) < 0.1, "yaw %.3f after 0.5 rad/s for 1 s", s.yaw);
    tycho_tb3_close(b);
    /* closing stops the wheels and frees them */
    CHECK(get_i32(o.table + 150) == 0 && get_i32(o.table + 170) == 0 && o.table[149] == 0);
    stop_board(&o);
}

static void test_watchdog_and_faults(void)
{
    opencr o;
    tycho_tb3_config c = config(start_board(&o));
    tycho_tb3 *b = tycho_tb3_open(&c, NULL);
    CHECK(b != NULL);
    if (!b) return stop_board(&o);
    tycho_tb3_command(b, 0.2, 0.3); /* once, then silence from the runtime */
    usleep(200000);
    pthread_mutex_lock(&o.mu);
    CHECK(get_i32(o.table + 150) == 20 && get_i32(o.table + 170) == 30);
    pthread_mutex_unlock(&o.mu);
    usleep(600000); /* past cmd_timeout (0.5 s) */
    pthread_mutex_lock(&o.mu);
    CHECK_MSG(get_i32(o.table + 150) == 0 && get_i32(o.table + 170) == 0, "the watchdog did not stop the wheels");
    pthread_mutex_unlock(&o.mu);
    CHECK(tycho_tb3_state_get(b).watchdog_stops >= 1);
    /* garbage and bad CRCs: dropped and counted, the driver carries on */
    pthread_mutex_lock(&o.mu);
    o.garble = true;
    pthread_mutex_unlock(&o.mu);
    usleep(300000);
    long before = tycho_tb3_state_get(b).samples;
    pthread_mutex_lock(&o.mu);
    o.garble = false;
    pthread_mutex_unlock(&o.mu);
    usleep(300000);
    tycho_tb3_state s = tycho_tb3_state_get(b);
    CHECK(s.bad_crc > 0 && s.samples > before && s.ok);
    /* the board goes silent: reported, not a crash */
    pthread_mutex_lock(&o.mu);
    o.silent = true;
    pthread_mutex_unlock(&o.mu);
    usleep(800000);
    s = tycho_tb3_state_get(b);
    CHECK_MSG(!s.ok && strstr(s.error, "no answer from the OpenCR") != NULL, "ok %d error '%s'", s.ok, s.error);
    CHECK(s.timeouts > 0);
    pthread_mutex_lock(&o.mu);
    o.silent = false;
    pthread_mutex_unlock(&o.mu);
    usleep(300000);
    CHECK(tycho_tb3_state_get(b).ok); /* and back when it answers again */
    tycho_tb3_close(b);
    stop_board(&o);
}

static void test_open_errors(void)
{
    tycho_tb3_config c = config("/dev/ttyNOPE0");
    tycho_err err = {0};
    CHECK(tycho_tb3_open(&c, &err) == NULL && strstr(err.msg, "cannot open /dev/ttyNOPE0"));
    opencr o;
    c = config(start_board(&o));
    o.silent = true;
    CHECK(tycho_tb3_open(&c, &err) == NULL && strstr(err.msg, "no OpenCR answering as DYNAMIXEL id 200"));
    stop_board(&o);
    c.rate_hz = 0;
    CHECK(tycho_tb3_open(&c, &err) == NULL && strstr(err.msg, "rate"));
}

int main(void)
{
    test_drive_and_odometry();
    test_watchdog_and_faults();
    test_open_errors();
    return check_summary("tb3 base");
}
