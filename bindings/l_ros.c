/* tycho.ros: ROS 2 messages from a rosbag2 recording (core/ros_cdr.c), for
 * SLAM on a user's own bag (behaviors/slam_log.lua --bag). The bytes come
 * from tycho.mcap.read's callback. */
#include "largs.h"
#include "tycho/ros_cdr.h"
#include "tycho/scan.h"

#include <math.h>

static const tycho_opt_field scan_fields[] = {TYCHO_OPT_NUM("range_cap"), {0}};
static const tycho_opt_spec scan_spec = {"ros.scan", scan_fields};

/* tycho.ros.scan(data[, {range_cap = m}]) -> {stamp =, scan = tycho.scan} | nil, why */
static int l_ros_scan(lua_State *L)
{
    size_t len;
    const char *data = luaL_checklstring(L, 1, &len);
    opt_table(L, 2);
    tycho_l_checkopts(L, 2, 2, &scan_spec);
    double cap = tycho_l_optfield_number(L, 2, 2, "range_cap", INFINITY);
    luaL_argcheck(L, cap > 0, 2, "range_cap must be > 0 m");
    tycho_ros_scan m;
    tycho_err err = {0};
    if (tycho_ros_decode_scan((const uint8_t *)data, len, &m, &err) != TYCHO_OK)
        return tycho_l_fail(L, &err);
    if (m.count < 1) {
        lua_pushnil(L);
        lua_pushliteral(L, "sensor_msgs/msg/LaserScan: no ranges");
        return 2;
    }
    lua_createtable(L, 0, 2);
    set_num(L, "stamp", m.stamp);
    /* readings at or past range_max are no return (REP 117), as tycho's scans
     * have them; under a centimetre, none (as tycho.carmen.load's scans) */
    tycho_scan *s = tycho_l_pushscan(L, (int)m.count, m.angle_min, m.angle_increment,
                                     fmax(m.range_min, 0.01), fmin(m.range_max, cap));
    for (uint32_t i = 0; i < m.count; i++) s->ranges[i] = tycho_ros_scan_range(&m, i);
    lua_setfield(L, -2, "scan");
    return 1;
}

/* tycho.ros.odometry(data) -> {stamp =, x =, y =, yaw =} | nil, why */
static int l_ros_odometry(lua_State *L)
{
    size_t len;
    const char *data = luaL_checklstring(L, 1, &len);
    tycho_ros_odometry m;
    tycho_err err = {0};
    if (tycho_ros_decode_odometry((const uint8_t *)data, len, &m, &err) != TYCHO_OK)
        return tycho_l_fail(L, &err);
    tycho_l_pushpose(L, m.pose);
    set_num(L, "stamp", m.stamp);
    return 1;
}

// clang-format off
/*** LuaLS: the Lua face of this file, collected into bindings/meta/tycho.lua by
 * scripts/gen_stubs.lua (editors read that file; tests/spec/stubs_spec.lua checks it)
---ROS 2 messages as rosbag2 records them (CDR), from tycho.mcap.read's bytes.
tycho.ros = {}
---A sensor_msgs/msg/LaserScan: its header stamp (s) and a tycho.scan of its
---geometry (range_max the message's or opts.range_cap, the smaller). A
---truncated or garbled message returns nil and what is wrong, with the byte.
---@param data string
---@param opts? {range_cap?: number}
---@return {stamp: number, scan: tycho.scan}|nil msg, string? err
function tycho.ros.scan(data, opts) end
---A nav_msgs/msg/Odometry: its header stamp (s) and pose.pose as x, y, yaw.
---@param data string
---@return {stamp: number, x: number, y: number, yaw: number}|nil msg, string? err
function tycho.ros.odometry(data) end
*/
// clang-format on

void tycho_l_open_ros(lua_State *L, int module, int methods)
{
    (void)methods;
    tycho_l_register_opts(L, &scan_spec);
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, l_ros_scan);
    lua_setfield(L, -2, "scan");
    lua_pushcfunction(L, l_ros_odometry);
    lua_setfield(L, -2, "odometry");
    lua_setfield(L, module, "ros");
}
