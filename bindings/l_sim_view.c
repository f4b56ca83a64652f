/* The simulator's viewer frames for a recording: while a recording is the
 * only sink of the channels, the 20 Hz /tf, /imu and /cmd_vel messages
 * (behaviors/robot_channels.lua's templates and numbers) go to its writer
 * from the simulator's step, without the feeder's Lua calls: two simulator
 * calls and three writer calls a tick were most of what those topics cost
 * the robot's loop. They are simulator values: the odometry pose, the IMU
 * and the command as given.
 *
 *   sim:tap_frames(writer, clock, {tf = id, imu = id, cmd = id},
 *                  {tf = template, imu = template, cmd = template}, period [, last]
 *                  [, {thermal = {id, ...}, period = p, lo = c, hi = c, last = {t, ...},
 *                      scan = id, scan_period = p, scan_last = t}])
 *   sim:untap_frames() -> messages written, error (nil when none), last,
 *                         {the images' last times}, the last scan's time
 *
 * With the last table the thermal cameras' colour-mapped images go too
 * (/thermal/N, behaviors/robot_channels.lua's): a frame the mission takes
 * (sim:thermal) goes out when it is a period past its camera's last image,
 * stamped with the clock's time; reading 64 pixels back out of each frame's
 * Lua table, and the feeder's calls, were the largest part of what the
 * slower topics cost the loop. So does the LaserScan of each scan the
 * mission takes (sim:scan) scan_period past the last one, in the "laser"
 * frame (/scan).
 *
 * At the tap, and after a step, when the clock's time is a period past the
 * last frames (or before them: the clock went back), the three go out
 * stamped with the clock's time, as the feeder's would at its tick. last:
 * the time of the last frames sent, handed over between the feeder and
 * the simulator so the 20 Hz go on without a gap or a double. The
 * messages go into the simulator's batch (l_sim_log.c), queued in one go
 * and written in their order among the recording's other messages. A
 * failed write stops them; the writer reports it again at close. */
#include "l_sim.h"

#include <math.h>
#include <stdlib.h>

enum { VIEW_TF, VIEW_IMU, VIEW_CMD, VIEW_KINDS };

/* the numbers each template takes:
 *   tf:  x, y, sin(yaw / 2), cos(yaw / 2)    imu: pitch, roll, yaw_rate    cmd: v, w */
static const struct {
    const char *name;
    int numbers;
} kinds[VIEW_KINDS] = {{"tf", 4}, {"imu", 3}, {"cmd", 2}};

enum { VIEW_CAMERAS = 2 }; /* the recording has two cameras' image topics */

struct sim_view {
    tycho_l_sim_hook hook;
    const tycho_l_template *templates[VIEW_KINDS];
    uint16_t ids[VIEW_KINDS];
    double period, last;
    int cameras; /* the images of this many cameras (0: none) */
    uint16_t image_ids[VIEW_CAMERAS];
    double image_period, image_last[VIEW_CAMERAS];
    tycho_l_image image; /* size and colour range */
    uint16_t scan_id;    /* 0: no scans */
    double scan_period, scan_last;
};

/* the feeder's test (Channels:due): a period since last (or the clock went back) */
static bool due(double t, double *last, double period)
{
    if (t - *last < period - 1e-9 && t >= *last) return false;
    *last = t;
    return true;
}

/* The batch of the simulator's messages (l_sim_log.c) for one of the view's */
static tycho_mcap_batch *view_batch(lsim *b)
{
    return tycho_l_sim_log_batch(b, &b->view->hook, SIM_LOG_VIEW);
}

void tycho_l_sim_view_thermal(lsim *b, int camera, const tycho_sim_frame *f)
{
    sim_view *v = b->view;
    tycho_l_sim_hook *h = &v->hook;
    double t;
    if (camera < 1 || camera > v->cameras || !tycho_l_sim_hook_time(h, &t)) return;
    if (!due(t, &v->image_last[camera - 1], v->image_period)) return;
    static const char *const frame_ids[VIEW_CAMERAS] = {"camera_1", "camera_2"};
    tycho_mcap_batch *batch = view_batch(b);
    if (!batch) return;
    tycho_l_sim_log_added(b, SIM_LOG_VIEW,
                          tycho_l_writer_image(h->writer, batch, v->image_ids[camera - 1], t,
                                               frame_ids[camera - 1], &v->image, f->temps,
                                               &h->write_err),
                          h);
}

void tycho_l_sim_view_scan(lsim *b, const tycho_sim_scan *sc)
{
    sim_view *v = b->view;
    tycho_l_sim_hook *h = &v->hook;
    double t;
    if (!v->scan_id || !tycho_l_sim_hook_time(h, &t)) return;
    if (!due(t, &v->scan_last, v->scan_period)) return;
    tycho_mcap_batch *batch = view_batch(b);
    if (!batch) return;
    tycho_l_sim_log_added(
        b, SIM_LOG_VIEW,
        tycho_l_writer_scan(h->writer, batch, v->scan_id, t, "laser", sc->scan, &h->write_err), h);
}

void tycho_l_sim_view_step(lsim *b)
{
    sim_view *v = b->view;
    tycho_l_sim_hook *h = &v->hook;
    double t;
    if (!tycho_l_sim_hook_time(h, &t) || !due(t, &v->last, v->period)) return;
    tycho_pose2 p = tycho_sim_odom(b->s);
    tycho_sim_imu_sample imu;
    tycho_sim_imu_read(b->s, &imu);
    double numbers[VIEW_KINDS][4] = {{p.x, p.y, sin(p.yaw / 2), cos(p.yaw / 2)},
                                     {imu.pitch, imu.roll, imu.yaw_rate},
                                     {b->cmd_v, b->cmd_w}};
    for (int k = 0; k < VIEW_KINDS && !h->failed; k++) {
        tycho_mcap_batch *batch = view_batch(b);
        if (!batch) return;
        tycho_l_sim_log_added(b, SIM_LOG_VIEW,
                              tycho_l_writer_format(h->writer, batch, v->ids[k], t, v->templates[k],
                                                    numbers[k], NULL, 0, &h->write_err),
                              h);
    }
}

void tycho_l_sim_untap_frames(lua_State *L, lsim *b)
{
    if (!b->view) return;
    tycho_l_sim_log_flush(b); /* its frames still held */
    tycho_l_sim_hook_release(L, &b->view->hook);
    free(b->view);
    b->view = NULL;
}

int tycho_l_sim_untap_frames_method(lua_State *L)
{
    lsim *b = tycho_l_checksimbox(L);
    if (!b->view) {
        lua_pushinteger(L, 0);
        return 1;
    }
    tycho_l_sim_log_flush(b); /* counted once queued */
    tycho_l_sim_hook_push_result(L, &b->view->hook);
    double last = b->view->last;
    if (isfinite(last)) lua_pushnumber(L, last);
    else lua_pushnil(L);
    lua_createtable(L, b->view->cameras, 0);
    for (int c = 0; c < b->view->cameras; c++) {
        if (!isfinite(b->view->image_last[c])) continue; /* none yet: nil */
        lua_pushnumber(L, b->view->image_last[c]);
        lua_rawseti(L, -2, c + 1);
    }
    if (b->view->scan_id && isfinite(b->view->scan_last)) lua_pushnumber(L, b->view->scan_last);
    else lua_pushnil(L);
    tycho_l_sim_untap_frames(L, b);
    return 5;
}

static const tycho_opt_field image_fields[] = {TYCHO_OPT_TAB("thermal"),
                                               TYCHO_OPT_NUM_POS("period"),
                                               TYCHO_OPT_NUM("lo"),
                                               TYCHO_OPT_NUM("hi"),
                                               TYCHO_OPT_TAB("last"),
                                               TYCHO_OPT_INT_IN("scan", 1, UINT16_MAX),
                                               TYCHO_OPT_NUM_POS("scan_period"),
                                               TYCHO_OPT_NUM("scan_last"),
                                               {0}};
static const tycho_opt_spec image_spec = {"sim:tap_frames", image_fields};

void tycho_l_sim_view_register(lua_State *L) { tycho_l_register_opts(L, &image_spec); }

/* the scan's options: scan = id, scan_period =, scan_last = t */
static void check_scan(lua_State *L, int arg, sim_view *v)
{
    v->scan_id = (uint16_t)tycho_l_optfield_integer(L, arg, arg, "scan", 0);
    v->scan_period = tycho_l_optfield_number(L, arg, arg, "scan_period", 0.2);
    v->scan_last = tycho_l_optfield_number(L, arg, arg, "scan_last", -INFINITY);
}

/* the images' options (argument 8): {thermal = {id, ...}, period =, lo =, hi =, last = {t, ...}}
 * and the scan's */
static void check_images(lua_State *L, sim_view *v)
{
    const int arg = 8;
    tycho_l_checkopts(L, arg, arg, &image_spec);
    check_scan(L, arg, v);
    lua_getfield(L, arg, "thermal");
    if (lua_isnil(L, -1)) { /* the scan alone */
        lua_pop(L, 1);
        return;
    }
    if (!lua_istable(L, -1)) luaL_argerror(L, arg, "field 'thermal': list of channel ids expected");
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    if (n < 1 || n > VIEW_CAMERAS)
        luaL_argerror(
            L, arg,
            lua_pushfstring(L, "field 'thermal': 1 to %d channel ids expected", VIEW_CAMERAS));
    for (int c = 0; c < n; c++) {
        lua_rawgeti(L, -1, c + 1);
        int ok = 0;
        lua_Integer id = lua_tointegerx(L, -1, &ok);
        if (!ok || id < 1 || id > UINT16_MAX)
            luaL_argerror(
                L, arg, lua_pushfstring(L, "field 'thermal': item %d is not a channel id", c + 1));
        v->image_ids[c] = (uint16_t)id;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    v->cameras = (int)n;
    v->image_period = tycho_l_optfield_number(L, arg, arg, "period", 0.2);
    v->image.lo = tycho_l_optfield_number(L, arg, arg, "lo", 15);
    v->image.hi = tycho_l_optfield_number(L, arg, arg, "hi", 70);
    luaL_argcheck(L, isfinite(v->image.lo) && isfinite(v->image.hi) && v->image.hi > v->image.lo,
                  arg, "fields 'lo' and 'hi': finite with hi > lo expected");
    v->image.width = v->image.height = 8; /* TYCHO_THERMAL_PIXELS */
    for (int c = 0; c < VIEW_CAMERAS; c++) v->image_last[c] = -INFINITY;
    lua_getfield(L, arg, "last"); /* a camera's time, or nil: none sent yet */
    for (int c = 0; lua_istable(L, -1) && c < v->cameras; c++) {
        lua_rawgeti(L, -1, c + 1);
        if (lua_type(L, -1) == LUA_TNUMBER) v->image_last[c] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

int tycho_l_sim_tap_frames(lua_State *L)
{
    lsim *b = tycho_l_checksimbox(L);
    sim_view view = {.last = -INFINITY};
    luaL_checktype(L, 4, LUA_TTABLE);
    luaL_checktype(L, 5, LUA_TTABLE);
    view.period = luaL_checknumber(L, 6);
    luaL_argcheck(L, view.period > 0 && isfinite(view.period), 6, "period must be finite and > 0");
    if (!lua_isnoneornil(L, 7)) view.last = luaL_checknumber(L, 7);
    if (!lua_isnoneornil(L, 8)) check_images(L, &view);
    lua_settop(L, 7);
    tycho_l_sim_hook_begin(L, &view.hook, "sim:tap_frames", VIEW_KINDS);
    for (int k = 0; k < VIEW_KINDS; k++) {
        view.ids[k] = tycho_l_sim_hook_channel(L, 4, kinds[k].name, 4);
        view.templates[k] =
            tycho_l_sim_hook_template(L, 5, 5, kinds[k].name, kinds[k].numbers, false, k);
    }
    sim_view *v = malloc(sizeof *v);
    if (!v) return luaL_error(L, "sim:tap_frames: out of memory");
    tycho_l_sim_untap_frames(L, b);
    *v = view;
    tycho_l_sim_hook_keep(L, &v->hook);
    b->view = v;
    tycho_l_sim_view_step(b); /* the frames as they are now, as the feeder's first tick */
    return 0;
}
