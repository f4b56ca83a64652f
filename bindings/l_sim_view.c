/* The simulator's viewer frames for a recording: while a recording is the
 * only sink of the channels, the 20 Hz /tf, /imu and /cmd_vel messages
 * (behaviors/robot_channels.lua's templates and numbers) go to its writer
 * from the simulator's step, without the feeder's Lua calls: two simulator
 * calls and three writer calls a tick were most of what those topics cost
 * the robot's loop. They are simulator values: the odometry pose, the IMU
 * and the command as given.
 *
 *   sim:tap_frames(writer, clock, {tf = id, imu = id, cmd = id},
 *                  {tf = template, imu = template, cmd = template}, period [, last])
 *   sim:untap_frames() -> messages written, error (nil when none), last
 *
 * At the tap, and after a step, when the clock's time is a period past the
 * last frames (or before them: the clock went back), the three go out
 * stamped with the clock's time, as the feeder's would at its tick. last:
 * the time of the last frames sent, handed over between the feeder and
 * the simulator so the 20 Hz go on without a gap or a double. A failed write stops
 * them; the writer reports it again at close. */
#include "l_sim.h"

#include "tycho/sched.h"

#include <math.h>
#include <stdlib.h>

enum { VIEW_TF, VIEW_IMU, VIEW_CMD, VIEW_KINDS };

/* the numbers each template takes:
 *   tf:  x, y, sin(yaw / 2), cos(yaw / 2)    imu: pitch, roll, yaw_rate    cmd: v, w */
static const struct {
    const char *name;
    int numbers;
} kinds[VIEW_KINDS] = {{"tf", 4}, {"imu", 3}, {"cmd", 2}};

struct sim_view {
    tycho_l_writer *writer;
    tycho_clock *const *clock; /* the clock's box: NULL once it is closed */
    const tycho_l_template *templates[VIEW_KINDS];
    uint16_t ids[VIEW_KINDS];
    double period, last;
    int ref; /* registry: {writer, clock, templates...}, kept alive while tapping */
    long long messages;
    bool failed;
    tycho_err err;
};

void tycho_l_sim_view_step(lsim *b)
{
    sim_view *v = b->view;
    if (v->failed) return;
    if (!*v->clock) {
        tycho_fail(&v->err, TYCHO_EINVAL, "sim:tap_frames: the clock was closed");
        v->failed = true;
        return;
    }
    double t = tycho_clock_now(*v->clock);
    /* the feeder's test (Channels:due): not yet a period since the last */
    if (t - v->last < v->period - 1e-9 && t >= v->last) return;
    v->last = t;
    tycho_pose2 p = tycho_sim_odom(b->s);
    tycho_sim_imu_sample imu;
    tycho_sim_imu_read(b->s, &imu);
    double numbers[VIEW_KINDS][4] = {{p.x, p.y, sin(p.yaw / 2), cos(p.yaw / 2)},
                                     {imu.pitch, imu.roll, imu.yaw_rate},
                                     {b->cmd_v, b->cmd_w}};
    for (int k = 0; k < VIEW_KINDS; k++) {
        if (tycho_l_writer_format(v->writer, v->ids[k], t, v->templates[k], numbers[k], NULL, 0,
                                  &v->err) != TYCHO_OK) {
            v->failed = true;
            return;
        }
        v->messages++;
    }
}

void tycho_l_sim_untap_frames(lua_State *L, lsim *b)
{
    if (!b->view) return;
    luaL_unref(L, LUA_REGISTRYINDEX, b->view->ref);
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
    lua_pushinteger(L, (lua_Integer)b->view->messages);
    if (b->view->failed) lua_pushstring(L, b->view->err.msg);
    else lua_pushnil(L);
    double last = b->view->last;
    if (isfinite(last)) lua_pushnumber(L, last);
    else lua_pushnil(L);
    tycho_l_sim_untap_frames(L, b);
    return 3;
}

int tycho_l_sim_tap_frames(lua_State *L)
{
    lsim *b = tycho_l_checksimbox(L);
    sim_view view = {.writer = tycho_l_checkwriter(L, 2),
                     .clock = tycho_l_checkclockbox(L, 3),
                     .last = -INFINITY};
    luaL_checktype(L, 4, LUA_TTABLE);
    luaL_checktype(L, 5, LUA_TTABLE);
    view.period = luaL_checknumber(L, 6);
    luaL_argcheck(L, view.period > 0 && isfinite(view.period), 6, "period must be finite and > 0");
    if (!lua_isnoneornil(L, 7)) view.last = luaL_checknumber(L, 7);
    /* kept alive while tapping: {writer, clock, templates...} */
    lua_createtable(L, 2 + VIEW_KINDS, 0);
    lua_pushvalue(L, 2);
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, 3);
    lua_rawseti(L, -2, 2);
    for (int k = 0; k < VIEW_KINDS; k++) {
        const char *name = kinds[k].name;
        lua_getfield(L, 4, name);
        int ok = 0;
        lua_Integer id = lua_tointegerx(L, -1, &ok);
        if (!ok || id < 1 || id > UINT16_MAX)
            luaL_argerror(L, 4, lua_pushfstring(L, "field '%s': channel id expected", name));
        view.ids[k] = (uint16_t)id;
        lua_pop(L, 1);
        lua_getfield(L, 5, name);
        const tycho_l_template *tp = tycho_l_totemplate(L, -1);
        if (!tp)
            luaL_argerror(
                L, 5,
                lua_pushfstring(L, "field '%s': template expected (tycho.viz.template)", name));
        if (tp->numbers != kinds[k].numbers || tp->has_array)
            luaL_argerror(L, 5,
                          lua_pushfstring(L, "template '%s' takes %d numbers, this one %d%s", name,
                                          kinds[k].numbers, tp->numbers,
                                          tp->has_array ? " and an array" : ""));
        view.templates[k] = tp;
        lua_rawseti(L, -2, 3 + k);
    }
    sim_view *v = malloc(sizeof *v);
    if (!v) return luaL_error(L, "sim:tap_frames: out of memory");
    tycho_l_sim_untap_frames(L, b);
    *v = view;
    v->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    b->view = v;
    tycho_l_sim_view_step(b); /* the frames as they are now, as the feeder's first tick */
    return 0;
}
