---@meta tycho
-- LuaLS annotation stubs for the `tycho` module (the C bindings). Editors
-- read this file for completion and type checks; it is never run. Kept in
-- sync with the bindings by tests/spec/stubs_spec.lua: every bound function
-- and method must appear here. See README "Editor support".

---@class tycho
---@field version string      tycho's version
---@field lua string          "Lua 5.4" or "LuaJIT"
local tycho = {}

---@alias tycho.xy {x: number, y: number}
---@alias tycho.pose {x: number, y: number, yaw: number}

-- grid ------------------------------------------------------------------------

---An occupancy grid / costmap (Nav2 values: 0 free .. 253 inscribed, 254 lethal, 255 unknown).
---@class tycho.grid
---@field width integer
---@field height integer
---@field resolution number   metres per cell
---@field origin tycho.pose   pose of cell (0, 0)'s corner
local grid = {}

tycho.grid = {}
---@param o {width: integer, height: integer, resolution?: number, origin?: tycho.pose, fill?: integer}
---@return tycho.grid
function tycho.grid.new(o) end

---@return integer cost
function grid:get(cx, cy) end
---@param cost integer 0..255
function grid:set(cx, cy, cost) end
---@param cost integer
function grid:fill(cost) end
---@return tycho.grid
function grid:copy() end
---@return tycho.grid
function grid:crop(cx, cy, w, h) end
---Copies src's cells with its cell (0, 0) at (cx, cy), clipped to this grid.
---@param src tycho.grid
---@param cx integer
---@param cy integer
---@return integer cells_copied
function grid:paste(src, cx, cy) end
---Grows the grid (keeping cells) so the world rectangle fits.
function grid:grow_to(xmin, ymin, xmax, ymax) end
---@return integer cx, integer cy, boolean inside   whether the cell is on the grid
function grid:world_to_cell(x, y) end
---@return number x, number y   the cell's centre
function grid:cell_to_world(cx, cy) end
---@return {free: integer, lethal: integer, inflated: integer, inscribed: integer, unknown: integer}
function grid:stats() end
---The smallest box round every cell that is not unknown (inclusive), or nil when every cell is.
---@return integer|nil cx0, integer cy0, integer cx1, integer cy1
function grid:known_box() end
---Address of the cost layer for LuaJIT FFI (bindings/tycho_ffi.lua).
---@return lightuserdata
function grid:cells_ptr() end
---@return number fraction, integer reachable, integer mapped
function grid:coverage(map, x, y) end
---@param o {p_hit?: number, p_miss?: number, p_min?: number, p_max?: number, occ_thresh?: number, free_thresh?: number}
function grid:set_logodds_params(o) end
---@return number
function grid:logodds(cx, cy) end
---Log-odds update of one cell (hit or miss).
function grid:observe(cx, cy, hit) end

---@class tycho.path
---@field cost number
---@field length number   cells
local path = {}
---@return integer cx, integer cy
function path:cell(i) end
---@return number x, number y
function path:world(i) end
---@return tycho.path
function path:shorten(g, opts) end

---@alias tycho.plan_opts {algorithm?: "astar"|"astar4"|"jps"|"costaware", weight?: number, blocked_cost?: integer, allow_unknown?: boolean, shorten?: boolean}
---@return tycho.path|nil path, string? reason
---@param opts? tycho.plan_opts
function grid:plan(sx, sy, gx, gy, opts) end
---@return tycho.path|nil path, string? reason
---@param opts? tycho.plan_opts
function grid:plan_world(x0, y0, x1, y1, opts) end
---@param o? {min_cost?: integer, max_cost?: integer}
---@return integer|nil cx, integer cy, number distance
function grid:nearest(cx, cy, o) end

-- ray casting and scans
---@param o? {threshold?: integer, unknown_blocked?: boolean}
---@return number range   math.huge when nothing is hit
function grid:raycast(x, y, angle, max_range, o) end
---@param params {count?: integer, angle_min?: number, angle_increment?: number, angle_max?: number, range_min?: number, range_max: number, threshold?: integer, unknown_blocked?: boolean}
---@return tycho.scan
function grid:scan(pose, params) end
---@param o? {clear_on_max_range?: boolean, grow?: boolean}
---@return integer cells_updated
function grid:insert_scan(pose, scan, o) end
---@param o? {threshold?: integer, unknown_blocked?: boolean}
---@return tycho.raymap
function grid:raycaster(o) end

---@class tycho.raymap
local raymap = {}
---@return number range
function raymap:cast(x, y, angle, max_range) end
---@alias tycho.scan_params {count?: integer, angle_min?: number, angle_increment?: number, angle_max?: number, range_min?: number, range_max: number}
---@param params tycho.scan_params
---@return tycho.scan
function raymap:scan(pose, params) end
function raymap:update(g) end

---A LiDAR scan; ranges are C-owned. #scan is the beam count.
---@class tycho.scan
---@field count integer
---@field angle_min number
---@field angle_max number
---@field angle_increment number
---@field range_min number
---@field range_max number
local scan = {}
tycho.scan = {}
---@param params tycho.scan_params
---@param ranges number[]
---@return tycho.scan
function tycho.scan.new(params, ranges) end
---@return number
function scan:range(i) end
---Nearest return ahead within `half` of the heading line, and beside the
---robot on its left and right (within `half` of its axle); math.huge where none.
---@param half number
---@return number front, number left, number right
function scan:lane(half) end
---@return number
function scan:angle(i) end
---@return number[]
function scan:ranges() end
function scan:set_range(i, r) end

-- inflation and distance fields
---@alias tycho.inflation_opts {inscribed_radius: number, inflation_radius: number, cost_scaling_factor?: number, inflate_unknown?: boolean, inflate_around_unknown?: boolean}
---@param o tycho.inflation_opts
---@return tycho.grid
function grid:inflate(o) end
---@param o tycho.inflation_opts
---@return tycho.grid dst
function grid:inflate_into(dst, o) end
---@param o? {threshold?: integer, unknown_blocked?: boolean, max_distance?: number}
---@return tycho.distance_field
function grid:distance_transform(o) end

---Path lengths (metres, 8-connected through cells below blocked_cost) from the world point
---(x, y) to each of `points`; math.huge where unreachable. One Dijkstra field for them all.
---@param points tycho.xy[]
---@param o? {allow_unknown?: boolean, blocked_cost?: integer}
---@return number[] metres
function grid:path_distances(x, y, points, o) end

---@class tycho.distance_field
local distance_field = {}
---@return number metres   math.huge when no obstacle is within max_distance
function distance_field:get(cx, cy) end

-- frontiers, regions, walls, arcs
---@param o {robot: tycho.xy, min_size?: number, min_cells?: integer, potential_scale?: number, gain_scale?: number, free_max?: integer, start_radius?: number, cells?: boolean}
---@return {x: number, y: number, size: number, distance: number, cost: number}[]|nil frontiers, string? reason
function grid:frontiers(o) end
---@param o? {min_cost?: integer, max_cost?: integer, connectivity?: 4|8, value?: integer, cells?: boolean}
---@return integer count, {cx: integer, cy: integer}[]? cells
function grid:flood_fill(cx, cy, o) end
---@param o? {min_cost?: integer, max_cost?: integer, connectivity?: 4|8}
---@return integer count, tycho.labels labels
function grid:components(o) end
---@param o? {min_cost?: integer, max_cost?: integer, connectivity?: 4|8}
---@return integer cells_sealed
function grid:seal_region(cx, cy, o) end
---@param o? {world?: boolean, thickness?: integer, cost?: integer}
---@return integer cells_sealed
function grid:seal_line(x0, y0, x1, y1, o) end
---@param o? {threshold?: integer, free_max?: integer}
---@return {x: number, y: number, nx: number, ny: number, cx: integer, cy: integer}[]
function grid:wall_faces(o) end
---@param o? {dt?: number, limit?: integer}
---@return number|false seconds_to_first_blocked_step
function grid:arc_hit(x, y, yaw, v, w, horizon, o) end
---@param points tycho.xy[]
---@param o? {lookahead?: number, threshold?: integer, unknown?: boolean}
---@return boolean blocked, integer? index
function grid:path_blocked(points, o) end

---@class tycho.labels
local labels = {}
---@return integer label
function labels:get(cx, cy) end
---@return integer cells
function labels:size(k) end

-- map files -------------------------------------------------------------------------

tycho.map = {}
---Loads a ROS map_server YAML (+ PGM/PNG) with Nav2's semantics.
---@return tycho.grid grid, table meta
function tycho.map.load(yaml_path) end
---Writes the grid as map_server YAML + image (atomically). A file that cannot
---be written returns nil and the reason; a bad argument raises.
---@param fmt? "pgm"|"png"
---@return true|nil ok, string? err
function tycho.map.save(g, yaml_path, fmt) end
---@return table meta
function tycho.map.parse_yaml(yaml_path) end
tycho.image = {}
---@return integer width, integer height, integer channels
function tycho.image.load(path) end
---Writes a file atomically (temp file, fsync, rename).
---@return true|nil ok, string? err
function tycho.write_atomic(path, data) end
---Where the runtime's own files were found: from the executable's (or
---tycho.so's) own place, or TYCHO_HOME. layout is "installed", "source" or
---"none" (then problem says why); lua holds the runtime's Lua files, plugins
---the driver plugins, data the maps/ and robots/ folders.
---@return {layout: "installed"|"source"|"none", lua?: string, plugins?: string, data?: string, problem?: string}
function tycho.home() end

-- pictures --------------------------------------------------------------------------

---@class tycho.picture
local picture = {}
---A picture of an occupancy grid, or of a height field shaded (with what a terrain map knew laid over).
---@param g tycho.grid|tycho.heightfield
---@param o? {scale?: integer, map?: tycho.terrain_map}
---@return tycho.picture
function tycho.picture(g, o) end
---@param points tycho.xy[]
---@param o? {color?: string, width?: number}
function picture:path(points, o) end
---@param o? {color?: string, radius?: number, shape?: "dot"|"circle"|"cross", width?: number}
function picture:point(x, y, o) end
---@param o? {color?: string, length?: number, width?: number}
function picture:pose(x, y, yaw, o) end
---Adds a panel under the map: the title, a scale bar (1, 2 or 5 x 10^k m),
---the world's x and y axes, and a legend of symbols (at most 64) with their
---labels (text by cairo). The map's pixels and world_to_pixel are unchanged.
---@param o {title?: string, legend?: {label: string, symbol?: "dot"|"circle"|"cross"|"line"|"arrow"|"cell", color?: string|integer[]}[], scale_bar?: boolean, axes?: boolean}
---@return tycho.picture self
function picture:annotate(o) end
---@return true|nil ok, string? err
function picture:save(path) end
---@return integer? r, integer g, integer b
function picture:pixel(px, py) end
---@return number px, number py
function picture:world_to_pixel(x, y) end

-- heat seeking: fusion, clustering, pitch -------------------------------------------

tycho.fusion = {}
---Fuses a thermal frame with the LiDAR scan into a world position.
---@param camera? {yaw?: number, fov?: number, rows?: integer, cols?: integer, mirrored?: boolean, threshold?: number, bin_width?: number, min_range?: number, max_range?: number, narrow?: boolean}
---@return number|nil x, number|string y_or_reason, table info
function tycho.fusion.locate(pose, scan, frame, camera) end
---@param k integer|{k_max?: integer, radius?: number}
---@param o? {seed?: integer, max_iter?: integer, n_init?: integer}
---@return {x: number, y: number, count: integer, radius: number}[] centroids, integer[] assignments, table info
function tycho.kmeans(points, k, o) end

---@class tycho.pitch_detector
local pitch_detector = {}
---@param params? {window?: number, multiple?: number, floor?: number, abs_threshold?: number, spike_fraction?: number, baseline_tau?: number, min_samples?: integer, capacity?: integer}
---@return tycho.pitch_detector
function tycho.pitch_detector(params) end
---@return boolean anomaly, number short_avg, number long_avg
function pitch_detector:push(t, pitch) end
function pitch_detector:reset() end
---@return table
function pitch_detector:state() end

-- motion ------------------------------------------------------------------------------

---Regulated pure pursuit path follower.
---@class tycho.follower
local follower = {}
---@alias tycho.follower_params {desired_v?: number, max_v?: number, max_w?: number, lookahead_time?: number, min_lookahead?: number, max_lookahead?: number, min_radius?: number, min_v?: number, slow_clearance?: number, clearance_gain?: number, approach_dist?: number, approach_min_v?: number, rotate_to_heading?: boolean, rotate_threshold?: number, rotate_w?: number, max_accel?: number, max_w_accel?: number, xy_tolerance?: number, yaw_tolerance?: number, search_dist?: number}
---@param params? tycho.follower_params
---@return tycho.follower
function tycho.follower(params) end
---@return tycho.follower
function follower:set_path(points, goal_yaw) end
---@return number v, number w, string status, integer nearest, number remaining
function follower:step(pose, dt, clearance) end
---@param o? {lookahead?: number, threshold?: integer, unknown?: boolean}
---@return boolean blocked, integer? index
function follower:blocked(g, o) end
---@return table
function follower:params() end
---@param t tycho.follower_params
function follower:set_params(t) end
---@return tycho.xy[]
function follower:path() end
---@return integer nearest, number remaining
function follower:progress() end
function follower:reset() end

tycho.diffdrive = {}
---@return table params
function tycho.diffdrive.defaults() end
---@return tycho.pose
function tycho.diffdrive.step(pose, v, w, dt) end
---@param params? {wheel_separation?: number, wheel_radius?: number, max_v?: number, max_w?: number}
---@return number left, number right   wheel speeds
function tycho.diffdrive.to_wheels(v, w, params) end
---@param params? {wheel_separation?: number, wheel_radius?: number, max_v?: number, max_w?: number}
---@return number v, number w
function tycho.diffdrive.from_wheels(left, right, params) end
---@param params? {wheel_separation?: number, wheel_radius?: number, max_v?: number, max_w?: number}
---@return number v, number w
function tycho.diffdrive.limit(v, w, params) end

-- simulator ---------------------------------------------------------------------------

---The deterministic simulator: a robot with LiDAR, two thermal cameras, IMU and launcher in a world.
---@class tycho.sim
---@field time number
---@field collisions integer
local sim = {}
tycho.sim = {}
---Loads a world file (a sandboxed Lua table; every field checked).
---@return tycho.sim
function tycho.sim.load(world_path, overrides) end
---@return tycho.sim
function tycho.sim.new(g, config) end
function sim:step(dt) end
---Velocity command (m/s, rad/s).
function sim:set_cmd(v, w) end
---@return number x, number y, number yaw
function sim:pose() end
---@return number x, number y, number yaw
function sim:odom() end
---The odometry and IMU errors as resolved at creation (robot.errors preset
---draws filled in): preset, wheel_base, wheel_radius_error_left/right,
---wheel_base_error, encoder_ticks_per_m, slip_ramp, slip_contact, gyro_bias
---(rad/s), gyro_scale, noise_v, noise_w.
---@return table
function sim:errors() end
---@return number v, number w
function sim:velocity() end
function sim:teleport(x, y, yaw) end
---@return tycho.scan
function sim:scan() end
---@return tycho.scan|nil scan, number? stamp
function sim:last_scan() end
---@return number stamp, integer sample
function sim:scan_info() end
---@return table frames
function sim:thermal() end
---@return table|nil frames
function sim:last_thermal() end
---@return table imu {roll=, pitch=, yaw_rate=, ...}
function sim:imu() end
function sim:launcher_spin(on) end
---@return boolean fired, string? reason
function sim:launcher_feed() end
---@return table state
function sim:launcher() end
---@return table verdict
function sim:judge() end
---@return table[]
function sim:launches() end
---@return integer engaged, integer total
function sim:engaged() end
---A copy of the true map.
---@return tycho.grid
function sim:truth() end
---@return table world
function sim:world() end

-- runtime: clock, scheduler, tasks -------------------------------------------------------

---@class tycho.clock
local clock = {}
tycho.clock = {}
---@param o? {mode?: "sim"|"wall"}
---@return tycho.clock
function tycho.clock.new(o) end
---@return number seconds   a monotonic wall clock
function tycho.clock.monotonic() end
---@return number
function clock:now() end
---Advances a simulated clock.
function clock:advance(dt) end

---@class tycho.task
local task = {}
function task:cancel() end

---@class tycho.scheduler
local scheduler = {}
tycho.scheduler = {}
---@param o? {clock?: tycho.clock, realtime?: boolean|number, on_error?: fun(task: string, message: string)}
---@return tycho.scheduler
function tycho.scheduler.new(o) end
---@return string
function tycho.scheduler.traceback(co, msg) end
---@param fn fun()
---@param o? string|{name?: string, phase?: number}
---@return tycho.task
function scheduler:every(period, fn, o) end
---@param fn fun()
---@param o? string|{name?: string, phase?: number}
---@return tycho.task
function scheduler:after(delay, fn, o) end
---@param o? {until_time?: number, until_fn?: fun(): boolean, max_steps?: integer, stop_on_error?: boolean, realtime?: boolean|number, wait?: fun(seconds: number)}
---@return string reason
function scheduler:run(o) end
---@return string|nil name
function scheduler:step() end
---@return integer ran
function scheduler:tick() end
function scheduler:stop() end
function scheduler:pause() end
function scheduler:resume() end
---@return number
function scheduler:now() end
---@return {name: string, period: number, next_due: number, last_run: number, runs: integer, missed: integer, status: string}[]
function scheduler:tasks() end
function scheduler:cancel_all() end
---@param fn fun(name: string, message: string)|nil
---@return function|nil old
function scheduler:on_error(fn) end
function scheduler:report_error(name, message) end

---@class tycho.watchdog
tycho.watchdog = {}
---Restarts co's budget: `count` VM instructions.
function tycho.watchdog.arm(co, count) end
---The same after `seconds` of CPU time; with `hard`, a time slice: co is only
---suspended after `seconds` (resume it to carry on) and C loops stop after `hard`.
function tycho.watchdog.arm_time(co, seconds, hard) end
function tycho.watchdog.disarm(co) end
function tycho.watchdog.disarm_time(co) end
---Clears the tripped mark (after a slice).
function tycho.watchdog.untrip(co) end
---A set of world cells (core/cell_set.c): the thermal sweep's cells a
---camera has looked at. A point is the cell floor(x/res + 0.5), floor(y/res + 0.5).
---@class tycho.cell_set
local cell_set = {}
---@param o {resolution: number}
---@return tycho.cell_set
function tycho.cell_set(o) end
---@param x number
---@param y number
---@return boolean
function cell_set:has(x, y) end
---@param x number
---@param y number
---@return boolean added
function cell_set:add(x, y) end
---Adds the cells round the end of every beam of `scan` (taken at `pose`)
---within fov/2 of the camera axis cam_yaw (robot frame) and max_range.
---@param pose table {x=, y=, yaw=}
---@param scan tycho.scan
---@param cam_yaw number
---@param fov number
---@param max_range number
---@return integer added
function cell_set:observe(pose, scan, cam_yaw, fov, max_range) end
---CARMEN robot logs (core/carmen.c): ODOM, FLASER and RLASER lines; other
---messages are counted in `ignored`. Each laser carries `wheel`, the ODOM
---odometry interpolated at its time (its own pose is, in a GMapping-processed
---log, the corrected one). A malformed or unreadable log returns nil and
---"path:line: why"; a bad argument raises.
tycho.carmen = {}
---@param path string
---@return {odom: table[], lasers: table[], ignored: integer, lines: integer}|nil log, string? err
function tycho.carmen.load(path) end
---SLAM (core/slam.c): submaps matched by the scan matcher, a pose graph
---optimised by sparse Cholesky (SuiteSparse), loop closure in slices.
tycho.slam = {}
---@class tycho.slam
local slam = {}
---Options (all optional; angles in rad): resolution, sigma (m), submap_scans,
---field_every (rebuild the front end's field every n scans), window_xy, window_yaw (front-end search), loop_closure (bool), loop_window_xy,
---loop_window_yaw, loop_min_score, loop_radius, loop_every, loop_matches_per_scan,
---loop_min_separation, optimize_every, edge_sigma_xy, edge_sigma_yaw,
---loop_sigma_xy, loop_sigma_yaw, huber, prior_xy, prior_yaw (the front end's
---odometry prior: score lost per metre / radian off the guess), refine_steps
---(front-end sub-step passes, 0..4), prior_per_m, prior_per_rad (the prior is
---divided by 1 + prior_per_m * metres + prior_per_rad * radians moved since the
---last scan), loop_reject (a closure the optimised graph misses by more sigmas
---is set aside; 0: never), loop_closures_per_node, optimize_lag (> 0: optimise
---on a background thread, the result taken that many scans later; 0: inline);
---unknown keys are errors.
---@param opts? {resolution?: number, sigma?: number, submap_scans?: integer, field_every?: integer, window_xy?: number, window_yaw?: number, loop_closure?: boolean, loop_window_xy?: number, loop_window_yaw?: number, loop_min_score?: number, loop_radius?: number, loop_every?: integer, loop_matches_per_scan?: integer, loop_min_separation?: integer, optimize_every?: integer, edge_sigma_xy?: number, edge_sigma_yaw?: number, loop_sigma_xy?: number, loop_sigma_yaw?: number, huber?: number, prior_xy?: number, prior_yaw?: number, refine_steps?: integer, prior_per_m?: number, prior_per_rad?: number, loop_reject?: number, loop_closures_per_node?: integer, optimize_lag?: integer}
---@return tycho.slam
function tycho.slam.new(opts) end
---Adds a scan taken at the LiDAR's odometry pose; returns its corrected pose.
---@param scan tycho.scan
---@param odom table {x=, y=, yaw=}
---@return table step {x, y, yaw, matched, degenerate, score, loop_closures}
function slam:add_scan(scan, odom) end
---The latest scan's corrected pose.
---@return number x, number y, number yaw
function slam:pose() end
---An odometry pose taken since the latest scan, corrected.
---@return number x, number y, number yaw
function slam:correct(x, y, yaw) end
---Every scan re-rendered at its optimised pose (a new grid).
---@return tycho.grid
function slam:map() end
---Runs the loop search for every queued scan (and the last) and optimises.
function slam:finish() end
---Every scan's optimised pose.
---@return table[] poses {{x, y, yaw}, ...}
function slam:trajectory() end
---@return table stats {nodes, submaps, finished_submaps, scans_matched, scans_degenerate, scans_poor, loop_candidates, loop_closures, optimizations, last_optimization_ms, max_optimization_ms, max_wait_ms, bytes}
function slam:stats() end
---Frees the SLAM's memory now (the garbage collector would, later); any
---method called afterwards raises.
function slam:close() end
---@class tycho.scan_matcher
local scan_matcher = {}
---Scan-to-map matcher (core/scan_match.c): correlative search + the
---likelihood field of the map's occupied cells. Options: window_xy (m),
---window_yaw, step_yaw (rad), beam_stride, refine_steps, min_score,
---degenerate_ratio, prior_xy, prior_yaw, plateau_centre (bool: of the poses
---within plateau_tol of the best score take their centroid, not the one nearest
---the guess), plateau_tol; unknown keys are errors.
---@param opts? {window_xy?: number, window_yaw?: number, step_yaw?: number, beam_stride?: integer, refine_steps?: integer, min_score?: number, degenerate_ratio?: number, prior_xy?: number, prior_yaw?: number, plateau_centre?: boolean, plateau_tol?: number}
---@return tycho.scan_matcher
function tycho.scan_matcher(opts) end
---The map to match against: cells with cost >= occupied (default 200) are walls;
---sigma (m, default 0.05) is the likelihood field's width.
---@param grid tycho.grid
---@param opts? {occupied?: integer, sigma?: number}
function scan_matcher:set_map(grid, opts) end
---@param scan tycho.scan
---@param guess table {x=, y=, yaw=} the LiDAR's pose from odometry
---@return table result {x, y, yaw, score, guess_score, beams, ok, degenerate, info_min, info_max}
function scan_matcher:match(scan, guess) end
---coroutine.resume with a CPU-time budget (the tasks runner's path, Lua 5.4
---only): false, "runaway: ..." when co ran `seconds` without yielding.
---@param co thread
---@param seconds number
---@return boolean ok
function tycho.watchdog.resume(co, seconds, ...) end
---true once co ran out; true, "c" when a C function stopped it (it cannot be resumed).
---@return boolean tripped, string? how
function tycho.watchdog.tripped(co) end

---@class tycho.watch
local watch = {}
---Watches files (inotify on their folders) for hot reload.
---@param paths string[]
---@return tycho.watch
function tycho.watch(paths) end
---@return string[] changed
function watch:poll() end
function watch:close() end

-- console, sockets, system -----------------------------------------------------------------

---@class tycho.console
local console = {}
tycho.console = {}
---@param o? {prompt?: string, history?: string, complete?: fun(word: string, line: string, pos: integer): string[]}
---@return tycho.console
function tycho.console.open(o) end
---@return string[]|nil lines, string? why
function console:poll(timeout_s) end
function console:prompt(text) end
function console:print(text) end
function console:close() end

---@class tycho.net.server
local server = {}
---@class tycho.net.conn
local conn = {}
---@class tycho.net
---@field frame_limit integer
tycho.net = {}
---@return tycho.net.server|nil server, string? err
function tycho.net.listen_unix(path) end
---@return tycho.net.server|nil server, string? err
function tycho.net.listen_tcp(host, port) end
---@return tycho.net.conn|nil conn, string? err
function tycho.net.connect_unix(path) end
---@return tycho.net.conn|nil conn, string? err
function tycho.net.connect_tcp(host, port) end
---Any number of descriptors; nil and a message if poll itself fails.
---@param fds integer[]
---@param wfds? integer[]
---@return table<integer, boolean>|nil ready, string? err
function tycho.net.wait(fds, timeout, wfds) end
---Constant-time string comparison.
---@return boolean
function tycho.net.equal(a, b) end
---Reads a token file; refused unless only its owner can read it.
---@return string|nil token, string? err
function tycho.net.read_secret(path) end
---nil when nobody is waiting; nil, message, "emfile"|"error" when accepting failed
---(out of descriptors: the waiting connection was refused)
---@return tycho.net.conn|nil conn, string? err, string? kind
function server:accept() end
function server:close() end
---@return integer
function server:fd() end
---@return integer
function server:port() end
---@param type string one letter 'A'..'Z'
---@return true|nil ok, string? err
function conn:send(type, payload) end
---@return {[1]: string, [2]: string}[]|nil frames, string? err
function conn:recv() end
---@return integer|nil queued, string? err
function conn:flush() end
function conn:close() end
---@return integer
function conn:fd() end
---@return integer
function conn:backlog() end
---@return integer|nil uid
function conn:peer_uid() end
function conn:set_limit(bytes) end
---Output that may be queued before send() refuses (the peer is not reading).
function conn:set_out_limit(bytes) end

---Lua patterns with a step counter the watchdog can stop (bindings/l_pattern.c);
---under Lua 5.4 they are also string.find/match/gmatch/gsub (LuaJIT keeps its own).
tycho.pattern = {}
---@return integer|nil start, integer? finish, any ...
function tycho.pattern.find(s, pattern, init, plain) end
---@return any ...
function tycho.pattern.match(s, pattern, init) end
---@return fun(): any
function tycho.pattern.gmatch(s, pattern, init) end
---@return string text, integer count
function tycho.pattern.gsub(s, pattern, repl, n) end
---The string library's own functions, as they were before tycho replaced them.
tycho.pattern.stock = {}
function tycho.pattern.stock.find(s, pattern, init, plain) end
function tycho.pattern.stock.match(s, pattern, init) end
function tycho.pattern.stock.gmatch(s, pattern, init) end
function tycho.pattern.stock.gsub(s, pattern, repl, n) end

---Runs a Lua data file (world, terrain world, fleet file, robot config) in the
---sandbox: private copies of math/string/table/utf8 and the pure base functions,
---an instruction count, a CPU-time budget (C functions included) and a memory limit.
---@param path string
---@param opts? {budget_s?: number, instructions?: number, memory_mb?: number, globals?: table}
---@return any value, string? err  the file's value, or nil and "path[:line]: message"
function tycho.load_data(path, opts) end

---A YAML document as its leaves: every scalar, list or empty mapping reached
---through mapping keys, in document order (ROS 2 parameter files).
---@param text string
---@param name? string  used in messages (a file name)
---@return {keys: string[], kind: "scalar"|"list"|"map", value?: string, quoted: boolean, line: integer}[]|nil leaves
---@return string? err  "name:line: why" on malformed YAML, duplicate or non-scalar keys
function tycho.yaml_leaves(text, name) end

tycho.sys = {}
---@return integer
function tycho.sys.pid() end
---@return integer
function tycho.sys.uid() end
---@return boolean
function tycho.sys.alive(pid) end
---@return string|nil dir, string? err
function tycho.sys.runtime_dir() end
---@return string[]|nil names, string? err
function tycho.sys.list_dir(path) end
---The descriptor limit; with n, the soft limit is raised to min(n, hard) first.
---@return integer soft, integer hard
function tycho.sys.nofile(n) end
---SIGINT/SIGTERM noted instead of fatal (a second one while pending is fatal);
---SIGPIPE and SIGXFSZ ignored (writes fail with EPIPE/EFBIG instead).
function tycho.sys.catch_signals() end
---@return string|nil name, integer? number  "SIGTERM", 15 once one arrived
function tycho.sys.signal_pending() end
---Creates a folder and its parents (mode 0755), like mkdir -p.
---@return true|nil ok, string? err
function tycho.sys.mkdir(path) end

-- devices (driver plugins) --------------------------------------------------------------------

---A device opened through a driver plugin (drivers/include/tycho/driver.h).
---@class tycho.device
---@field kind "range_scanner"|"thermal_camera"|"imu"|"diff_base"|"launcher"
---@field driver string
local device = {}
tycho.device = {}
---Opens a device: the driver's settings are checked against its schema.
---@param kind "range_scanner"|"thermal_camera"|"imu"|"diff_base"|"launcher"
---@param driver string   e.g. "tb3_base", "amg8833", "launcher_gpio"
---@param settings? table<string, string|number|boolean>
---@return tycho.device|nil device, string? err
function tycho.device.open(kind, driver, settings) end
---The plugin path (TYCHO_DRIVER_PATH, else the plugins folder of tycho.home()).
---@return string
function tycho.device.path() end
---The latest sample if there is a new one (never waits).
---@return table|nil sample, string? err
function device:read() end
---@param command "velocity"|"arm"|"fire"|"disarm"|"safe_stop"
---@return true|nil ok, string? err
function device:write(command, a, b) end
function device:close() end

-- rough ground ---------------------------------------------------------------------------------

---@class tycho.heightfield
---@field width integer
---@field height integer
---@field resolution number
---@field zmax number
local heightfield = {}
---@class tycho.terrain_map
local terrain_map = {}
tycho.terrain = {}
---@param o {width: integer, height: integer, resolution?: number, origin?: tycho.xy}
---@return tycho.heightfield
function tycho.terrain.heightfield(o) end
---A 2.5D terrain map (min/max height per cell) with traversability.
---@param o {width: integer, height: integer, resolution?: number, origin?: tycho.xy}
---@return tycho.terrain_map
function tycho.terrain.map(o) end
---@return number w1, number w2, number w3, number w4
function tycho.terrain.mecanum_inverse(vx, vy, wz, geometry) end
---@return number vx, number vy, number wz
function tycho.terrain.mecanum_forward(w1, w2, w3, w4, geometry) end
---A robot (differential drive or mecanum) whose wheels rest on a height field.
---@param o? {kind?: "diff"|"mecanum", half_length?: number, half_width?: number, wheel_radius?: number, max_wheel?: number, max_accel?: number, max_w_accel?: number, max_step?: number}
---@return tycho.terrain_robot
function tycho.terrain.robot(o) end
---Deviation of trajectory a from b (mean, max, hausdorff, lengths), arrays of {x, y} or {x =, y =}.
---@param o? {spacing?: number}
---@return {mean: number, max: number, hausdorff: number, length_a: number, length_b: number, length_diff: number, samples: integer}
function tycho.terrain.compare(a, b, o) end
---@class tycho.terrain_robot
---@field x number
---@field y number
---@field z number
---@field roll number
---@field pitch number
---@field yaw number
---@field vx number
---@field vy number
---@field wz number
---@field pose {x: number, y: number, z: number, roll: number, pitch: number, yaw: number}
---@field wheels number[]
---@field bumps integer
---@field kind string
local terrain_robot = {}
---@return true|nil ok, string? why
function terrain_robot:place(hf, x, y, yaw) end
---@return boolean moved  false: a wheel met a step it cannot climb
function terrain_robot:step(hf, vx, vy, wz, dt) end
function heightfield:set(cx, cy, z) end
---@return number|nil z
function heightfield:at(x, y) end
function heightfield:box(x0, y0, x1, y1, top) end
---@param o? {class?: string, gd_n0?: number, w?: number, bands?: integer, blur?: number, seed?: integer, n_min?: number, n_max?: number}
function heightfield:roughness(o) end
function heightfield:stairs(x0, y0, y1, n, step_len, step_h) end
function heightfield:prisms(x0, y0, x1, y1, period, height) end
function heightfield:bump(cx, y0, y1, r, base_h) end
function heightfield:bell(cx, cy, r, height) end
function heightfield:gravel(x0, y0, x1, y1, count, size, height, seed) end
---@return tycho.heightfield
function heightfield:copy() end
---Puts back src's heights over the cells whose centre is in the rectangle.
function heightfield:restore(src, x0, y0, x1, y1) end
---A 3D LiDAR sweep: world points as a flat list x, y, z, ..., and the beam count;
---with a terrain map as `into`, the points go straight into it and their count is returned instead.
---@param robot {x?: number, y?: number, z?: number, roll?: number, pitch?: number, yaw?: number}
---@param o? {lines?: 16|32|64, columns?: integer, range_max?: number, mount?: table, self?: table, refresh?: boolean}
---@param into? tycho.terrain_map
---@return number[]|integer points, integer beams
function heightfield:sweep(robot, o, into) end
---@param points number[]|tycho.heightfield  flat x, y, z triples, or a whole height field (one point per cell)
---@return integer added
function terrain_map:add(points) end
---Known untraversable, within the barrier of such a cell, or off the map.
---@return boolean
function terrain_map:blocked(cx, cy) end
---@return boolean
function terrain_map:known(cx, cy) end
---The terrain as an occupancy grid: traversable free, untraversable lethal, barrier inscribed, unseen unknown.
---@return tycho.grid
function terrain_map:to_grid() end
---Index of the first blocked cell of a path ({{cx, cy}, ...}) at or after `from`.
---@return integer|nil
function terrain_map:first_blocked(path, from) end
---@param o? {step_coef?: number, slope_coef?: number, barrier?: number, margin?: number}
function terrain_map:traversability(o) end
---@return boolean
function terrain_map:traversable(cx, cy) end
---@return number|nil slope, number roughness
function terrain_map:plane_fit(cx, cy, radius) end
---@param o? {slope_weight?: number, unknown_cost?: number, clearance_weight?: number, roughness_weight?: number}
---@return {[1]: integer, [2]: integer}[]|nil path, number|string cost_or_reason
function terrain_map:plan(sx, sy, gx, gy, o) end

-- many robots --------------------------------------------------------------------------------

---@class tycho.fleet_planner
---@field orders_tried integer
---@field vertices integer
local fleet_planner = {}
tycho.fleet = {}
---@alias tycho.graph_opts {graph?: "grid"|"sparse", cell?: number, connectivity?: 4|8, spacing?: number}
---@alias tycho.route_graph {nodes: tycho.xy[], edges: {a: integer, b: integer, length: number, width: number}[]}
---@param o? {cell?: number, horizon?: integer, max_orders?: integer, time_limit?: number, graph?: "grid"|"sparse", connectivity?: 4|8, spacing?: number}
---@return tycho.fleet_planner
function tycho.fleet.planner(costmap, o) end
---A route graph of the map: grid (4/8-connected) or sparse (the free space's skeleton).
---@param o? tycho.graph_opts
---@return tycho.route_graph
function tycho.fleet.graph(costmap, o) end
---The planner's graph.
---@return tycho.route_graph
function fleet_planner:graph() end
---@return {robot: integer, x: number, y: number, yaw: number}[]|nil poses, string? err
function tycho.fleet.stage_poses(path) end
---@return {robot: integer, x: number, y: number, yaw: number}[]|nil goals, string? err
function tycho.fleet.goals(path) end
---@param starts tycho.xy[]
---@param goals tycho.xy[]
---@return true|nil ok, string? err
function fleet_planner:plan(starts, goals) end
---@return {x: number, y: number, vertex: integer, enter: integer, leave: integer}[]
function fleet_planner:route(i) end
---@return {robot: integer, segment: integer}[]
function fleet_planner:preconditions(i, k) end
---@return number x, number y
function fleet_planner:at(i, step) end
---@return integer step
function fleet_planner:arrival(i) end

---The fleet simulator: N diff-drive discs driving their routes waypoint by waypoint.
---@class tycho.fleet_sim
---@field time number
---@field collisions integer
---@field estopped boolean
---@field min_clearance number
local fleet_sim = {}
---@param o? {radius?: number, v_max?: number, w_max?: number, accel?: number, tolerance?: number, dt?: number}
---@return tycho.fleet_sim
function tycho.fleet.sim(n, o) end
function fleet_sim:set_pose(i, x, y, yaw) end
---@param points tycho.xy[]
function fleet_sim:set_route(i, points) end
---May drive up to waypoint k.
function fleet_sim:allow(i, k) end
---An injected stop until simulated time t.
function fleet_sim:stop_until(i, t) end
---@return integer new_contacts
function fleet_sim:step(n) end
---@return integer k   last waypoint reached (0: none)
function fleet_sim:reached(i) end
---@return boolean
function fleet_sim:moving(i) end
---@return boolean
function fleet_sim:stopped(i) end
---@return number x, number y, number yaw
function fleet_sim:pose(i) end
---@return {distance: number, wait_time: number, stop_time: number, waits: integer}
function fleet_sim:stats(i) end

---@class tycho.swarm
local swarm = {}
tycho.swarm = {}
---@param o? {dist_critical?: number, dist_attract?: number, dist_repulse?: number, repulse_shape?: string, attract_shape?: string, max_speed?: number, goal_tolerance?: number, stall_ratio?: number, stall_time?: number, stall_progress?: number, escape_time?: number, mode?: "velocity"|"position", horizon?: number, off_in?: string[]}
---@return tycho.swarm
function tycho.swarm.new(o) end
---@return number
function tycho.swarm.shape(name, u) end
---@return number|nil vx_or_x, number|string vy_or_y, table? info
function swarm:command(t, pos, goal, neighbours, state) end

-- recording and live view ---------------------------------------------------------------

tycho.mcap = {}
---@class tycho.mcap_writer
local mcap_writer = {}
---Starts an MCAP recording at path (written as path.part until close).
---@param o? {chunk_size?: integer, compress?: boolean, level?: integer}
---@return tycho.mcap_writer|nil writer, string? err
function tycho.mcap.open(path, o) end
---Reads and checks a whole recording; fn(topic, t, data) per message (a true result stops).
---@return table|nil info, string? err
function tycho.mcap.read(path, fn) end
---@return integer id
function mcap_writer:schema(name, encoding, data) end
---@return integer id
function mcap_writer:channel(topic, schema_id, encoding) end
---@return true|nil ok, string? err
function mcap_writer:write(channel_id, t, data) end
---@return integer
function mcap_writer:bytes() end
---@return true|nil ok, string? err
function mcap_writer:close() end

tycho.viz = {}
---foxglove.Grid JSON of a grid (uint8 field "cost"): the box round the cells that are not unknown (255).
---@return string
function tycho.viz.grid(grid, t, frame_id) end
---foxglove.LaserScan JSON of a scan.
---@return string
function tycho.viz.scan(scan, t, frame_id) end
---foxglove.RawImage JSON (rgb8), values lo..hi on a heat palette.
---@return string
function tycho.viz.image(values, width, height, lo, hi, t, frame_id) end
---foxglove.PosesInFrame JSON of {x=, y=[, yaw=]} points (at most max, evenly picked).
---@return string
function tycho.viz.poses(points, t, frame_id, max) end
---CRC-32 of a grid's size, place and cells.
---@return integer
function tycho.viz.digest(grid) end
---@return string
function tycho.viz.base64(s) end
---JSON of a Lua value (1..n tables are arrays, {} is [], others objects with string keys).
---@return string
function tycho.viz.json(value) end

tycho.ws = {}
---@class tycho.ws.server
local ws_server = {}
---@class tycho.ws.conn
local ws_conn = {}
---A WebSocket server (subprotocol foxglove.websocket.v1) for the live view; port 0 picks one.
---@return tycho.ws.server|nil server, string? err
function tycho.ws.listen(host, port) end
---@return tycho.ws.conn|nil conn, string? err
function ws_server:accept() end
---@return integer
function ws_server:fd() end
---@return integer
function ws_server:port() end
function ws_server:close() end
---@return integer
function ws_conn:fd() end
---Reads what arrived: the handshake, then messages.
---@return string[]|nil texts, string? why_closed
function ws_conn:service() end
---@return boolean
function ws_conn:is_open() end
---@return boolean queued
function ws_conn:send_text(s, always) end
---@return boolean queued
function ws_conn:send_binary(s) end
---@return boolean queued
function ws_conn:send_message(subscription_id, t, payload) end
---@return boolean queued
function ws_conn:send_time(t) end
---@return boolean more
function ws_conn:flush() end
---@return integer
function ws_conn:queued() end
---@return integer
function ws_conn:dropped() end
function ws_conn:set_queue_limit(bytes) end
function ws_conn:close() end

return tycho
