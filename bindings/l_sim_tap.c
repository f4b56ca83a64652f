/* The simulator's tap of raw samples: while a mission records (--record),
 * every odometry step, scan and thermal frame the sim delivers goes to the
 * recording's writer from here, as behaviors/robot_replay.lua's tap writes
 * them for any robot (the same templates, the same numbers, so the same
 * bytes), without a Lua call per sample: at 20 Hz of steps and frames,
 * those calls were most of what recording cost the robot's loop.
 *
 *   sim:tap(writer, clock, {odom = id, scan = id, thermal = {id1, id2}},
 *           {odom = template, scan = template, thermal = template})
 *   sim:untap() -> messages written, error (nil when none)
 *
 * Samples are logged at clock:now() (the mission's clock) and carry the
 * sim's own time, as the Lua tap does. Their messages go into the
 * simulator's batch (l_sim_log.c), queued in one go and written in their
 * order among the recording's other messages. A failed write (a full
 * disk) stops the tap; the writer reports it again at close. */
#include "l_sim.h"

#include <stdlib.h>

enum { TAP_ODOM, TAP_SCAN, TAP_THERMAL, TAP_KINDS };

/* the numbers each template takes, before its array:
 *   odom:    t, x, y, yaw, pitch, roll, yaw_rate, v, w
 *   scan:    t, stamp, x, y, yaw, angle_min, angle_increment, range_min, range_max; ranges
 *   thermal: t, stamp, x, y, yaw, seq; pixels */
static const struct {
    const char *name;
    int numbers, has_array;
} kinds[TAP_KINDS] = {{"odom", 9, 0}, {"scan", 9, 1}, {"thermal", 6, 1}};

struct sim_tap {
    tycho_l_sim_hook hook;
    const tycho_l_template *templates[TAP_KINDS];
    uint16_t odom, scan, thermal[2];
};

/* The sample's message into the simulator's batch (l_sim_log.c) */
static void tap_write(lsim *b, int kind, uint16_t channel, const double *numbers,
                      const float *array, size_t n)
{
    tycho_l_sim_hook *h = &b->tap->hook;
    double t;
    if (!tycho_l_sim_hook_time(h, &t)) return;
    tycho_mcap_batch *batch = tycho_l_sim_log_batch(b, h, SIM_LOG_TAP);
    if (!batch) return;
    tycho_status st = tycho_l_writer_format(h->writer, batch, channel, t, b->tap->templates[kind],
                                            numbers, array, n, &h->write_err);
    tycho_l_sim_log_added(b, SIM_LOG_TAP, st, h);
}

void tycho_l_sim_tap_odom(lsim *b)
{
    tycho_pose2 p = tycho_sim_odom(b->s);
    tycho_sim_imu_sample imu;
    tycho_sim_imu_read(b->s, &imu);
    double v[9] = {tycho_sim_time(b->s), p.x,      p.y,     p.yaw, imu.pitch, imu.roll,
                   imu.yaw_rate,         b->cmd_v, b->cmd_w};
    tap_write(b, TAP_ODOM, b->tap->odom, v, NULL, 0);
}

/* the pose at a sample's stamp, as robot_sim.lua gives it with the sample */
static tycho_pose2 pose_at(lsim *b, double stamp)
{
    tycho_pose2 p;
    if (!tycho_odom_history_at(&b->odom, stamp, &p)) p = tycho_sim_odom(b->s);
    return p;
}

void tycho_l_sim_tap_scan(lsim *b, const tycho_sim_scan *sc)
{
    const tycho_scan *s = sc->scan;
    tycho_pose2 p = pose_at(b, sc->stamp);
    double v[9] = {tycho_sim_time(b->s), sc->stamp,          p.x,          p.y,         p.yaw,
                   s->angle_min,         s->angle_increment, s->range_min, s->range_max};
    tap_write(b, TAP_SCAN, b->tap->scan, v, s->ranges, (size_t)s->count);
}

void tycho_l_sim_tap_thermal(lsim *b, int camera, const tycho_sim_frame *f)
{
    if (camera < 1 || camera > 2) return; /* the recording has two cameras' topics */
    tycho_pose2 p = pose_at(b, f->stamp);
    double v[6] = {tycho_sim_time(b->s), f->stamp, p.x, p.y, p.yaw, (double)f->seq};
    tap_write(b, TAP_THERMAL, b->tap->thermal[camera - 1], v, f->temps, TYCHO_THERMAL_PIXELS);
}

void tycho_l_sim_untap(lua_State *L, lsim *b)
{
    if (!b->tap) return;
    tycho_l_sim_log_flush(b); /* its messages still held */
    tycho_l_sim_hook_release(L, &b->tap->hook);
    free(b->tap);
    b->tap = NULL;
}

int tycho_l_sim_untap_method(lua_State *L)
{
    lsim *b = tycho_l_checksimbox(L);
    if (!b->tap) {
        lua_pushinteger(L, 0);
        return 1;
    }
    tycho_l_sim_log_flush(b); /* counted once queued */
    int n = tycho_l_sim_hook_push_result(L, &b->tap->hook);
    tycho_l_sim_untap(L, b);
    return n;
}

int tycho_l_sim_tap(lua_State *L)
{
    lsim *b = tycho_l_checksimbox(L);
    sim_tap tap;
    tycho_l_sim_hook_begin(L, &tap.hook, "sim:tap", TAP_KINDS);
    luaL_checktype(L, 4, LUA_TTABLE);
    luaL_checktype(L, 5, LUA_TTABLE);
    tap.odom = tycho_l_sim_hook_channel(L, 4, "odom", 4);
    tap.scan = tycho_l_sim_hook_channel(L, 4, "scan", 4);
    lua_getfield(L, 4, "thermal");
    luaL_argcheck(L, lua_istable(L, -1), 4, "field 'thermal': {id1, id2} expected");
    for (int i = 0; i < 2; i++) {
        lua_rawgeti(L, -1, i + 1); /* LuaJIT's returns nothing */
        int ok = 0;
        lua_Integer id = lua_tointegerx(L, -1, &ok);
        luaL_argcheck(L, ok && id >= 1 && id <= UINT16_MAX, 4,
                      "field 'thermal': {id1, id2} expected");
        tap.thermal[i] = (uint16_t)id;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    for (int k = 0; k < TAP_KINDS; k++)
        tap.templates[k] = tycho_l_sim_hook_template(L, 5, 5, kinds[k].name, kinds[k].numbers,
                                                     kinds[k].has_array, k);
    sim_tap *t = malloc(sizeof *t);
    if (!t) return luaL_error(L, "sim:tap: out of memory");
    tycho_l_sim_untap(L, b);
    *t = tap;
    tycho_l_sim_hook_keep(L, &t->hook);
    b->tap = t;
    return 0;
}
