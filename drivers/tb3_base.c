/* TurtleBot3 base over DYNAMIXEL 2.0: see tb3_base.h. */
#include "tb3_base.h"

#include "serial_port.h"
#include "tycho/devproto.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { DXL_PING = 0x01, DXL_READ = 0x02, DXL_WRITE = 0x03, DXL_STATUS = 0x55 };
enum {
    TB3_IMU_GYRO = 60,
    TB3_IMU_ORIENTATION = 96,
    TB3_POSITION_LEFT = 136,
    TB3_POSITION_RIGHT = 140,
    TB3_TORQUE = 149,
    TB3_CMD_LINEAR_X = 150,
    TB3_READ_FROM = 60,
    TB3_READ_LEN = 84
};

struct tycho_tb3 {
    tycho_tb3_config c;
    int fd;
    tycho_dxl_parser parser;
    pthread_t thread;
    pthread_mutex_t mu;
    bool stop;
    double cmd_v, cmd_w, cmd_t; /* wanted, and when */
    tycho_tb3_state st;         /* guarded by mu */
    /* thread-only */
    bool have_ticks;
    int32_t last_l, last_r;
    double last_t;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void tycho_tb3_defaults(tycho_tb3_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->port, sizeof c->port, "/dev/ttyACM0");
    c->baud = 1000000;
    c->id = 200;
    c->wheel_radius = 0.033;
    c->wheel_separation = 0.160;
    c->ticks_per_rev = 4096;
    c->rate_hz = 50;
    c->cmd_timeout_s = 0.5;
    c->answer_timeout_s = 0.05;
}

static void put_u16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put_i32(uint8_t *p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(u >> (8 * i));
}
static int32_t get_i32(const uint8_t *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}
static float get_f32(const uint8_t *p)
{
    uint32_t u = (uint32_t)get_i32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Sends one instruction and waits for the board's status packet; returns
 * it in *st (0 = ok, -1 = no answer in time). */
static int transact(tycho_tb3 *b, uint8_t instruction, const uint8_t *params, size_t n,
                    tycho_dxl_packet *st)
{
    uint8_t pkt[256];
    size_t len = tycho_dxl_encode((uint8_t)b->c.id, instruction, params, n, pkt, sizeof pkt);
    if (!len || tycho_serial_write_all(b->fd, pkt, len) < 0) return -1;
    double deadline = now_s() + b->c.answer_timeout_s;
    uint8_t buf[512];
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0) return -1;
        long got = tycho_serial_read(b->fd, buf, sizeof buf, left);
        if (got < 0) return -1;
        size_t off = 0;
        while (off < (size_t)got) {
            bool done = false;
            off += tycho_dxl_feed(&b->parser, buf + off, (size_t)got - off, st, &done);
            if (done && st->instruction == DXL_STATUS && st->id == b->c.id) return 0;
        }
    }
}

static int write_cmd(tycho_tb3 *b, double v, double w)
{
    uint8_t p[2 + 24] = {0};
    put_u16(p, TB3_CMD_LINEAR_X);
    put_i32(p + 2, (int32_t)lround(v * 100));      /* linear x */
    put_i32(p + 2 + 20, (int32_t)lround(w * 100)); /* angular z, 20 bytes on */
    tycho_dxl_packet st;
    return transact(b, DXL_WRITE, p, sizeof p, &st);
}

/* One poll: the command (or the watchdog's zero), then the sensors. */
static void poll_once(tycho_tb3 *b)
{
    double t = now_s();
    pthread_mutex_lock(&b->mu);
    double v = b->cmd_v, w = b->cmd_w;
    bool stale = t - b->cmd_t > b->c.cmd_timeout_s;
    pthread_mutex_unlock(&b->mu);
    if (stale) v = w = 0;
    int rc = write_cmd(b, v, w);
    uint8_t rp[4];
    put_u16(rp, TB3_READ_FROM);
    put_u16(rp + 2, TB3_READ_LEN);
    tycho_dxl_packet st;
    if (rc == 0) rc = transact(b, DXL_READ, rp, sizeof rp, &st);
    pthread_mutex_lock(&b->mu);
    b->st.bad_crc = (long)b->parser.bad_crc;
    if (stale && (b->st.cmd_v != 0 || b->st.cmd_w != 0) && rc == 0) b->st.watchdog_stops++;
    if (rc != 0 || st.n < TB3_READ_LEN || st.error) {
        b->st.timeouts += rc != 0;
        if (b->st.ok && t - b->st.t > 5 * b->c.answer_timeout_s + 2.0 / b->c.rate_hz) {
            b->st.ok = false;
            snprintf(b->st.error, sizeof b->st.error, "no answer from the OpenCR (id %d on %s)",
                     b->c.id, b->c.port);
        }
        pthread_mutex_unlock(&b->mu);
        return;
    }
    b->st.cmd_v = v;
    b->st.cmd_w = w;
    const uint8_t *d = st.params; /* data from address 60 */
    int32_t l = get_i32(d + TB3_POSITION_LEFT - TB3_READ_FROM),
            r = get_i32(d + TB3_POSITION_RIGHT - TB3_READ_FROM);
    double qw = get_f32(d + TB3_IMU_ORIENTATION - TB3_READ_FROM),
           qx = get_f32(d + TB3_IMU_ORIENTATION + 4 - TB3_READ_FROM),
           qy = get_f32(d + TB3_IMU_ORIENTATION + 8 - TB3_READ_FROM),
           qz = get_f32(d + TB3_IMU_ORIENTATION + 12 - TB3_READ_FROM);
    b->st.roll = atan2(2 * (qw * qx + qy * qz), 1 - 2 * (qx * qx + qy * qy));
    b->st.pitch = asin(fmax(-1, fmin(1, 2 * (qw * qy - qz * qx))));
    b->st.gyro_z = get_f32(d + TB3_IMU_GYRO + 8 - TB3_READ_FROM);
    if (b->have_ticks) {
        /* int32 differences wrap correctly across the counter's overflow */
        double per_tick = 2 * M_PI * b->c.wheel_radius / b->c.ticks_per_rev;
        double dl = (double)(int32_t)((uint32_t)l - (uint32_t)b->last_l) * per_tick;
        double dr = (double)(int32_t)((uint32_t)r - (uint32_t)b->last_r) * per_tick;
        double ds = (dl + dr) / 2, dth = (dr - dl) / b->c.wheel_separation, dt = t - b->last_t;
        b->st.x += ds * cos(b->st.yaw + dth / 2);
        b->st.y += ds * sin(b->st.yaw + dth / 2);
        b->st.yaw = atan2(sin(b->st.yaw + dth), cos(b->st.yaw + dth));
        if (dt > 0) {
            b->st.v = ds / dt;
            b->st.w = dth / dt;
        }
    }
    b->have_ticks = true;
    b->last_l = l;
    b->last_r = r;
    b->last_t = t;
    b->st.t = t;
    b->st.samples++;
    b->st.ok = true;
    b->st.error[0] = 0;
    pthread_mutex_unlock(&b->mu);
}

static void *poll_thread(void *arg)
{
    tycho_tb3 *b = arg;
    double period = 1.0 / b->c.rate_hz, next = now_s();
    for (;;) {
        pthread_mutex_lock(&b->mu);
        bool stop = b->stop;
        pthread_mutex_unlock(&b->mu);
        if (stop) break;
        poll_once(b);
        next += period;
        double sleep = next - now_s();
        if (sleep < 0) next = now_s(); /* late: no catching up in a burst */
        else
            nanosleep(
                &(struct timespec){(time_t)sleep, (long)((sleep - (double)(time_t)sleep) * 1e9)},
                NULL);
    }
    return NULL;
}

tycho_tb3 *tycho_tb3_open(const tycho_tb3_config *c, tycho_err *err)
{
    if (c->id < 0 || c->id > 252 || !(c->wheel_radius > 0) || !(c->wheel_separation > 0) ||
        c->ticks_per_rev < 1 || !(c->rate_hz >= 1 && c->rate_hz <= 500) ||
        !(c->cmd_timeout_s > 0) || !(c->answer_timeout_s > 0)) {
        tycho_fail(err, TYCHO_EINVAL,
                   "tb3 base: id 0-252, wheel sizes > 0, rate 1-500 Hz and timeouts > 0 expected");
        return NULL;
    }
    tycho_tb3 *b = calloc(1, sizeof *b);
    if (!b) {
        tycho_fail(err, TYCHO_ENOMEM, "tb3 base: out of memory");
        return NULL;
    }
    b->c = *c;
    tycho_dxl_parser_init(&b->parser);
    b->fd = tycho_serial_open(c->port, c->baud, err);
    if (b->fd < 0) {
        free(b);
        return NULL;
    }
    tycho_dxl_packet st;
    uint8_t torque[3];
    put_u16(torque, TB3_TORQUE);
    torque[2] = 1;
    if (transact(b, DXL_PING, NULL, 0, &st) != 0 ||
        transact(b, DXL_WRITE, torque, sizeof torque, &st) != 0) {
        tycho_fail(err, TYCHO_EIO, "tb3 base: no OpenCR answering as DYNAMIXEL id %d on %s", c->id,
                   c->port);
        close(b->fd);
        free(b);
        return NULL;
    }
    pthread_mutex_init(&b->mu, NULL);
    b->cmd_t = -1e9; /* no command yet: the watchdog holds the wheels */
    b->st.ok = true;
    b->st.t = now_s();
    if (pthread_create(&b->thread, NULL, poll_thread, b) != 0) {
        tycho_fail(err, TYCHO_EIO, "tb3 base: cannot start its thread");
        pthread_mutex_destroy(&b->mu);
        close(b->fd);
        free(b);
        return NULL;
    }
    return b;
}

void tycho_tb3_command(tycho_tb3 *b, double v, double w)
{
    if (!isfinite(v) || !isfinite(w)) v = w = 0;
    pthread_mutex_lock(&b->mu);
    b->cmd_v = v;
    b->cmd_w = w;
    b->cmd_t = now_s();
    pthread_mutex_unlock(&b->mu);
}

tycho_tb3_state tycho_tb3_state_get(tycho_tb3 *b)
{
    pthread_mutex_lock(&b->mu);
    tycho_tb3_state s = b->st;
    pthread_mutex_unlock(&b->mu);
    return s;
}

void tycho_tb3_close(tycho_tb3 *b)
{
    if (!b) return;
    pthread_mutex_lock(&b->mu);
    b->stop = true;
    pthread_mutex_unlock(&b->mu);
    pthread_join(b->thread, NULL);
    /* wheels stopped and free, whatever state we leave the board in */
    write_cmd(b, 0, 0);
    uint8_t torque[3];
    put_u16(torque, TB3_TORQUE);
    torque[2] = 0;
    tycho_dxl_packet st;
    transact(b, DXL_WRITE, torque, sizeof torque, &st);
    pthread_mutex_destroy(&b->mu);
    close(b->fd);
    free(b);
}
