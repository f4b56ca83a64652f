--- What a robot shows on the channels (behaviors/channels.lua): frames,
-- scan, thermal images, IMU, drive commands, the map; and, when a mission
-- hands them over, its costmap, planned path, driven trail, detections,
-- targets, true sources, ramp, launches and state machine state. A task
-- calls feeder:tick() (20 Hz); the channels' periods decide what is sent.
--
--   local feeder = RobotChannels.new(channels, { robot = robot, now = now,
--     scan = function() return bb.scan end, mapping = mapping, nav = nav, bb = bb, machine = machine })
--   sched:every(0.05, function() feeder:tick() end, "channels")
--
-- Frames: map -> odom (identity: the odometry is the map pose) -> base_link
-- (the robot's pose) -> laser (at the centre) and camera_N (turned by the
-- camera's yaw).
local tycho = require "tycho"
local Channels = require "channels"

local RC = {}
RC.__index = RC

local KNOWN = { robot = true, now = true, scan = true, thermal = true, map = true, mapping = true, nav = true,
                bb = true, machine = true, world = true, thermal_range = true, clock = true }

--- RobotChannels.new(channels, {robot =, now =, scan = fn, thermal = fn(i), map = grid | fn,
--   mapping =, nav =, bb =, machine =, world =, thermal_range = {lo, hi}, clock =})
-- With clock (the mission's tycho.clock, whose time now() gives) and a
-- simulator (robot.sim), the simulator writes the frames, IMU and commands,
-- and the thermal images and LaserScans of the frames and scans the mission
-- takes (o.thermal and o.scan must give the simulator's own back), to a
-- recording itself while it is the one sink (sim:tap_frames).
function RC.new(channels, o)
  if type(o) ~= "table" then error("bad argument #2 to 'RobotChannels.new' (table expected)", 2) end
  for k in pairs(o) do
    if not KNOWN[k] then error(("RobotChannels.new: unknown option '%s'"):format(tostring(k)), 2) end
  end
  if type(o.robot) ~= "table" or type(o.now) ~= "function" then
    error("RobotChannels.new: robot (table) and now (function) are required", 2)
  end
  local self = setmetatable({ ch = channels, o = o, robot = o.robot, now = o.now, cmd = { v = 0, w = 0 },
                              seen = {}, sim = o.robot.sim, clock = o.clock, frames_written = 0 }, RC)
  -- the drive commands, as they go to the base: asked of a robot that
  -- keeps them (robot.command), else kept as they pass (a call more at
  -- every drive: the simulator's robot keeps them)
  local robot = o.robot
  local drive, stop = robot.drive, robot.stop
  if not robot.command then
    if drive then robot.drive = function(v, w) self.cmd.v, self.cmd.w = v, w return drive(v, w) end end
    if stop then robot.stop = function(...) self.cmd.v, self.cmd.w = 0, 0 return stop(...) end end
  end
  if o.machine and o.machine.name then self.machine_name = o.machine.name end
  self.tf_format = RC.tf_template(robot.cameras)
  -- the topics sent many times a second, each with its emitter
  self.emit_tf, self.emit_imu = channels:emitter("/tf", "format"), channels:emitter("/imu", "format")
  self.emit_cmd, self.emit_scan = channels:emitter("/cmd_vel", "format"), channels:emitter("/scan", "scan")
  self.emit_thermal = { channels:emitter("/thermal/1", "image"), channels:emitter("/thermal/2", "image") }
  self.thermal_lo, self.thermal_hi = (o.thermal_range or {})[1] or 15, (o.thermal_range or {})[2] or 70
  return self
end

--- A transition of the state machine (hook it into fsm's on_transition).
function RC:state(from, to, t, reason)
  self.ch:publish("/state", t, { timestamp = Channels.stamp(t), machine = self.machine_name or "fsm",
                                 state = tostring(to), from = from and tostring(from) or "",
                                 reason = reason and tostring(reason) or "" })
end

--- A log sink putting log lines on /log (add it with log:add_sink).
function RC.log_sink(channels)
  return function(_, rec)
    if rec and #channels.sinks > 0 then channels:publish("/log", math.max(0, rec.t or 0), Channels.log_message(rec)) end
  end
end

-- 20 times a second: templates filled in by the encoder (a recording's on
-- its writer's thread), not tables built and encoded here
local stamp = Channels.sec_nsec

-- the whole /tf message as one template of the robot's x, y and heading
-- (the other frames do not move); %T is the stamp, the same in each
local TRANSFORM = '{"timestamp":%%T,"parent_frame_id":"%s","child_frame_id":"%s",'
  .. '"translation":{"x":%s,"y":%s,"z":0},"rotation":{"x":0,"y":0,"z":%s,"w":%s}}'
local function tf_template(cameras)
  local function q(v) return ("%.9g"):format(v) end
  local parts = {
    TRANSFORM:format("map", "odom", 0, 0, 0, 1),
    TRANSFORM:format("odom", "base_link", "%.6g", "%.6g", "%.9g", "%.9g"),
    TRANSFORM:format("base_link", "laser", 0, 0, 0, 1),
  }
  for i, cam in ipairs(cameras or {}) do
    local cy = cam.yaw or 0
    parts[#parts + 1] = TRANSFORM:format("base_link", "camera_" .. i, 0, 0, q(math.sin(cy / 2)), q(math.cos(cy / 2)))
  end
  return tycho.viz.template('{"transforms":[' .. table.concat(parts, ",") .. "]}")
end
RC.tf_template = tf_template

local IMU = tycho.viz.template('{"timestamp":%T,"pitch":%.6g,"roll":%.6g,"yaw_rate":%.6g}')
local CMD = tycho.viz.template('{"timestamp":%T,"v":%.6g,"w":%.6g}')
local THERMAL_TOPICS = { "/thermal/1", "/thermal/2" }
local CAMERA_FRAMES = { "camera_1", "camera_2" }

local sin, cos = math.sin, math.cos
local function tf(self, t)
  local x, y, yaw = self.robot.pose()
  self.emit_tf(t, self.tf_format, x, y, sin(yaw / 2), cos(yaw / 2))
end

local function color(r, g, b, a) return { r = r, g = g, b = b, a = a or 1 } end
RC.color = color

--- A foxglove.SceneUpdate entity in the map frame with the given primitives.
local function entity(t, id, fields)
  local e = { timestamp = Channels.stamp(t), frame_id = "map", id = id, lifetime = { sec = 0, nsec = 0 },
              frame_locked = false, metadata = {}, arrows = {}, cubes = {}, spheres = {}, cylinders = {},
              lines = {}, triangles = {}, texts = {}, models = {} }
  for k, v in pairs(fields) do e[k] = v end
  return e
end
RC.entity = entity

-- detections (orange dots), targets (magenta rings: cylinders), true
-- sources (red cubes, simulator only), the true ramps (grey) and the one
-- detected (yellow), launches (arrows: green engaged a source, black not).
-- Written as text round the primitives' JSON: a detection never moves, so
-- its sphere is encoded once (a scene of 200 of them went out as 200 new
-- tables every second of a run)
-- an entity is its head, its four lists of primitives (one not empty) and
-- its tail; the lists go to the recording as they are (Channels:emit
-- "join"), so a scene of 200 detections is not built as one Lua string
local ENTITY_HEAD = '{"timestamp":{"sec":%d,"nsec":%d},"frame_id":"map","id":"%s","lifetime":{"sec":0,"nsec":0},'
  .. '"frame_locked":false,"metadata":[],"arrows":['
local ENTITY_TAIL = '],"lines":[],"triangles":[],"texts":[],"models":[]}'

-- the JSON of a scene primitive, kept per object with the fields it was
-- made from: a target is made again when it is engaged, a detection,
-- source, ramp or launch never changes. Two tables with weak keys and
-- plain values (a table as the value made each collection walk them
-- over and over: weak keys are ephemerons)
local function cached_json(self, obj, key, build)
  local jsons, keys = self.json_cache, self.json_keys
  if not jsons then
    jsons, keys = setmetatable({}, { __mode = "k" }), setmetatable({}, { __mode = "k" })
    self.json_cache, self.json_keys = jsons, keys
  end
  local js = jsons[obj]
  if js and keys[obj] == key then return js end
  js = tycho.viz.json(build(obj))
  jsons[obj], keys[obj] = js, key
  return js
end

-- a detection's sphere, the only primitive there are hundreds of: a
-- template (two numbers) rather than a table encoded (fifteen)
local DETECTION_SPHERE = tycho.viz.template('{"pose":{"position":{"x":%.9g,"y":%.9g,"z":0.1},'
  .. '"orientation":{"x":0,"y":0,"z":0,"w":1}},"size":{"x":0.04,"y":0.04,"z":0.04},'
  .. '"color":{"r":1,"g":0.55,"b":0,"a":1}}')
local function detection_sphere(d) return tycho.viz.format(DETECTION_SPHERE, 0, d.x, d.y) end
local function target_cylinder(g)
  return { pose = Channels.pose(g.x, g.y, 0, 0.05), size = { x = 0.2, y = 0.2, z = 0.1 }, bottom_scale = 1,
           top_scale = 1, color = g.engaged and color(0, 0.8, 0, 0.6) or color(1, 0, 1, 0.6) }
end
local function source_cube(src)
  return { pose = Channels.pose(src.x, src.y, 0, 0.15), size = { x = 0.08, y = 0.08, z = 0.3 },
           color = color(1, 0, 0, 0.8) }
end
local function ramp_cube(r)
  return { pose = Channels.pose((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2, 0, 0.02),
           size = { x = math.abs(r.x1 - r.x0), y = math.abs(r.y1 - r.y0), z = 0.04 }, color = color(0.5, 0.5, 0.5, 0.5) }
end
local function detected_ramp(r)
  return { pose = Channels.pose(r.x, r.y, r.yaw or 0, 0.05), size = { x = 0.3, y = 0.3, z = 0.02 },
           color = color(1, 0.9, 0, 0.7) }
end
local function launch_arrow(l)
  return { pose = Channels.pose(l.x, l.y, l.yaw or 0, 0.1), shaft_length = 0.25, shaft_diameter = 0.03,
           head_length = 0.08, head_diameter = 0.07, color = l.engaged_source and color(0, 0.8, 0) or color(0, 0, 0) }
end

-- The newest detections' spheres (RC.MAX_DETECTIONS of them), oldest
-- first, joined in a text window kept from scene to scene
-- (tycho.viz.text_window): the detections that came since are encoded and
-- added, the oldest drop out, and the recording copies the window as one
-- piece. (A table.remove per detection shifted a list 200 times; a string
-- of it made again at every scene allocated enough to keep the collector
-- busy; a list of 200 strings was gathered one by one at every scene.)
local function sphere_window(self, dets)
  local w = self.spheres
  if not w or w.of ~= dets or w.n > #dets then
    w = { of = dets, n = 0, window = tycho.viz.text_window(RC.MAX_DETECTIONS) }
    self.spheres = w
  end
  local window = w.window
  for k = math.max(w.n + 1, #dets - RC.MAX_DETECTIONS + 1), #dets do
    window:add(detection_sphere(dets[k]))
  end
  w.n = #dets
  return window
end

-- The primitives of a list of objects that never change (sources, ramps,
-- launches) joined with ",", made again only when the list is another one
-- or has grown. (Each scene looked every object's JSON up again.)
local EMPTY = {}
local function joined(self, name, list, build)
  local kept = self.joined
  if not kept then kept = {} self.joined = kept end
  local last = kept[name]
  if last and last.list == list and last.n == #list then return last.text end
  local parts = {}
  for i, obj in ipairs(list) do parts[i] = cached_json(self, obj, true, build) end
  kept[name] = { list = list, n = #list, text = table.concat(parts, ",") }
  return kept[name].text
end

-- True when a target moved (its detections gather), was engaged, came or
-- went since the last call: their positions and states kept as numbers
local function targets_changed(self, targets)
  local seen = self.targets_seen
  local changed = not seen or seen.n ~= #targets
  if not seen then seen = {} self.targets_seen = seen end
  for i, g in ipairs(targets) do
    local k, engaged = 3 * i, g.engaged and 1 or 0
    if changed or seen[k - 2] ~= g.x or seen[k - 1] ~= g.y or seen[k] ~= engaged then
      changed = true
      seen[k - 2], seen[k - 1], seen[k] = g.x, g.y, engaged
    end
  end
  seen.n = #targets
  return changed
end

local function scene(self, t)
  local bb, world = self.o.bb or {}, self.o.world
  local window = sphere_window(self, bb.detections or {})
  local targets = bb.targets or {}
  if targets_changed(self, targets) or not self.cylinders then
    -- a target's cylinder is made again when it moved or was engaged
    local cylinders = {}
    for i, g in ipairs(targets) do
      cylinders[i] = cached_json(self, g, ("%.9g/%.9g/%s"):format(g.x, g.y, tostring(g.engaged)), target_cylinder)
    end
    self.cylinders = table.concat(cylinders, ",")
  end
  local cylinders = self.cylinders
  local sources = joined(self, "sources", world and world.heat_sources or EMPTY, source_cube)
  local ramps = joined(self, "ramps", world and world.ramps or EMPTY, ramp_cube)
  if bb.ramp then ramps = (ramps == "" and "" or ramps .. ",") .. cached_json(self, bb.ramp, true, detected_ramp) end
  -- a launch never changes: the list only grows
  local arrows = joined(self, "launches", bb.launches or EMPTY, launch_arrow)
  local sec, nsec = stamp(t)
  local function head(id) return ENTITY_HEAD:format(sec, nsec, id) end
  self.ch:emit("/scene", t, "join", '{"deletions":[],"entities":[',
    head("detections"), '],"cubes":[],"spheres":[', window, '],"cylinders":[', ENTITY_TAIL, ",",
    head("targets"), '],"cubes":[],"spheres":[],"cylinders":[', cylinders, ENTITY_TAIL, ",",
    head("sources"), '],"cubes":[', sources, '],"spheres":[],"cylinders":[', ENTITY_TAIL, ",",
    head("ramps"), '],"cubes":[', ramps, '],"spheres":[],"cylinders":[', ENTITY_TAIL, ",",
    head("launches"), arrows, '],"cubes":[],"spheres":[],"cylinders":[', ENTITY_TAIL, "]}")
end

-- True when the scene changed since it was last sent: a cheap fingerprint
-- (counts and the ramp), looked at at every tick once the scene is due
local function scene_changed(self)
  local bb = self.o.bb or {}
  local targets = bb.targets or {}
  local engaged = 0
  for i = 1, #targets do if targets[i].engaged then engaged = engaged + 1 end end
  local key = self.scene_seen
  if not key then key = {} self.scene_seen = key end
  local nd, nt, nl, ramp = #(bb.detections or {}), #targets, #(bb.launches or {}), bb.ramp ~= nil
  if key[1] == nd and key[2] == nt and key[3] == engaged and key[4] == nl and key[5] == ramp then return false end
  key[1], key[2], key[3], key[4], key[5] = nd, nt, engaged, nl, ramp
  return true
end

-- a trail of a long run is thinned to this many points (evenly, the last
-- kept), so a message does not grow without bound
RC.MAX_TRAIL = 1000
-- a trail point is left out while the line drawn stays this close (metres)
-- to where the robot was: a corridor driven straight is two points, and a
-- mission's trail a quarter of what it was (the trail is drawn, not read
-- back: the mission keeps every point in bb.trail)
RC.TRAIL_TOLERANCE = 0.01
-- the newest detections shown (older ones are summed up by the targets)
RC.MAX_DETECTIONS = 200

local function grid_of(v) if type(v) == "function" then return v() end return v end

-- the slower topics (scan and thermal images at 5 Hz, the map, costmap,
-- trail and scene at 1 Hz, the path when it changed) are looked at every
-- this many seconds, not at every 20 Hz tick: three ticks in four found
-- none of them due, and asking cost more than the frames themselves
RC.SLOW_PERIOD = 0.2
-- the frames, attitude and commands (/tf, /imu, /cmd_vel)
RC.FRAME_PERIOD = 0.05

-- frames, attitude and commands: one period, sent together
local function frames(self, t)
  local robot = self.robot
  tf(self, t)
  if robot.imu then
    local p, r, rate = robot.imu()
    self.emit_imu(t, IMU, p, r, rate or 0)
  end
  if robot.command then self.emit_cmd(t, CMD, robot.command())
  else self.emit_cmd(t, CMD, self.cmd.v, self.cmd.w) end
end

local function slow_topics(self, ch, t)
  local o, robot = self.o, self.robot
  if o.scan and not self.scan_tapped and ch:due("/scan", t) then
    local scan = o.scan()
    if scan and scan ~= self.seen.scan then
      self.seen.scan = scan
      self.emit_scan(t, scan, "laser")
    end
  end
  if o.thermal and not self.images_tapped then
    local lo, hi = self.thermal_lo, self.thermal_hi
    for i = 1, math.min(2, #(robot.cameras or {})) do
      local topic = THERMAL_TOPICS[i]
      if ch:due(topic, t) then
        local frame = o.thermal(i)
        if frame and frame ~= self.seen[topic] then
          self.seen[topic] = frame
          self.emit_thermal[i](t, frame, 8, 8, lo, hi, CAMERA_FRAMES[i])
        end
      end
    end
  end
  local mapping = o.mapping
  if ch:due("/map", t) then
    local m, key
    if mapping then m, key = mapping.map, mapping.scans else m = grid_of(o.map) key = m end
    -- a new scan does not always change a cell (the robot standing
    -- still): a grid goes out only when its cells, size or place changed
    if m and key ~= self.seen.map then
      self.seen.map = key
      ch:emit("/map", t, "grid", m, "map")
    end
  end
  if mapping and mapping.costmap and mapping.refreshes ~= self.seen.costmap and ch:due("/costmap", t) then
    self.seen.costmap = mapping.refreshes
    ch:emit("/costmap", t, "grid", mapping.costmap, "map")
  end
  local goal = o.nav and o.nav.goal
  local path = goal and not goal.done and goal.path or nil
  if o.nav and path ~= self.seen.path and ch:due("/path", t) then
    self.seen.path = path
    ch:emit("/path", t, "poses", path or {}, "map")
  end
  local bb = o.bb
  if bb and bb.trail and #bb.trail ~= self.seen.trail and ch:due("/trail", t) then
    -- the trail only grows: its new points go into a list kept in C,
    -- thinned to RC.TRAIL_TOLERANCE as they come (self.trail_added of them)
    local trail, list = bb.trail, self.trail_list
    if not list or self.trail_added > #trail then
      list = tycho.viz.pose_list(RC.TRAIL_TOLERANCE)
      self.trail_list, self.trail_added = list, 0
    end
    for i = self.trail_added + 1, #trail do list:add(trail[i].x, trail[i].y, trail[i].yaw) end
    self.trail_added = #trail
    self.seen.trail = #trail
    ch:emit("/trail", t, "poses", list, "map", RC.MAX_TRAIL)
  end
  if (bb or o.world) and ch:due("/scene", t) and scene_changed(self) then scene(self, t) end
end

local FRAME_TOPICS = { "/tf", "/imu", "/cmd_vel" }

-- The frames' writer in C (sim:tap_frames) stopped: its count kept for the channels' tap.
local function untap_frames(self)
  local n, err, last, images_last, scan_last = self.sim:untap_frames()
  self.frames_tapped, self.images_tapped, self.scan_tapped = false, false, false
  -- the feeder goes on where the simulator stopped
  for _, topic in ipairs(FRAME_TOPICS) do self.ch.last[topic] = last end
  for i, topic in ipairs(THERMAL_TOPICS) do
    if images_last and images_last[i] then self.ch.last[topic] = images_last[i] end
  end
  if scan_last then self.ch.last["/scan"] = scan_last end
  self.frames_written = self.frames_written + (n or 0)
  self.frames_error = self.frames_error or err
end

-- The thermal images and the LaserScans the simulator writes with the
-- frames: of the frames and scans the mission takes from it (o.thermal and
-- o.scan give the sim's own back), at their topics' periods.
local function image_options(self, ch, sink)
  if self.robot.kind ~= "sim" then return nil end
  local images = {}
  local cams = math.min(2, #(self.robot.cameras or {}))
  if self.o.thermal and cams > 0 then
    local ids, last = {}, {}
    for i = 1, cams do ids[i], last[i] = sink.ids[THERMAL_TOPICS[i]], ch.last[THERMAL_TOPICS[i]] end
    images.thermal, images.period, images.last = ids, ch.topics[THERMAL_TOPICS[1]].period, last
    images.lo, images.hi = self.thermal_lo, self.thermal_hi
  end
  if self.o.scan then
    images.scan, images.scan_period, images.scan_last = sink.ids["/scan"], ch.topics["/scan"].period, ch.last["/scan"]
  end
  return next(images) and images or nil
end

-- While a recording is the one sink, the simulator writes the 20 Hz
-- frames, IMU and commands after its steps (they are its values: the
-- odometry, the IMU, the command as given), and the thermal images of the
-- frames as they are taken: no Lua call a tick for them. Beside a viewer
-- (or on a robot) the feeder sends them.
local function frames_source(self, ch)
  self.sinks_seen = ch.generation
  local sim, clock = self.sim, self.clock
  if not (sim and clock and sim.tap_frames) then return end
  local sink = ch:sole_recording()
  if sink and not sink.error then
    if self.frames_tapped then return end
    local images = image_options(self, ch, sink)
    sim:tap_frames(sink.emit_writer, clock, { tf = sink.ids["/tf"], imu = sink.ids["/imu"], cmd = sink.ids["/cmd_vel"] },
                   { tf = self.tf_format, imu = IMU, cmd = CMD }, ch.topics["/tf"].period, ch.last["/tf"], images)
    self.frames_tapped = true
    self.images_tapped, self.scan_tapped = images and images.thermal ~= nil, images and images.scan ~= nil
    if not self.frames_tap_added then
      self.frames_tap_added = true
      ch:add_tap(function()
        if self.frames_tapped then untap_frames(self) end
        local n, err = self.frames_written, self.frames_error
        self.frames_written, self.frames_error = 0, nil
        return n, err
      end)
    end
  elseif self.frames_tapped then
    untap_frames(self)
  end
end

--- Sends what is due; returns the period the next tick is wanted in: the
-- slow topics' RC.SLOW_PERIOD while the simulator writes the 20 Hz frames
-- itself (three ticks in four had nothing to do), else the frames' 0.05 s.
function RC:tick()
  local ch, t = self.ch, self.now()
  if self.sinks_seen ~= ch.generation then frames_source(self, ch) end
  local period = self.frames_tapped and RC.SLOW_PERIOD or RC.FRAME_PERIOD
  -- (a recording always listens; only viewers are paced by the wall clock)
  if ch.kept == 0 and (#ch.sinks == 0 or not ch:live_window()) then return period end
  if not self.frames_tapped and ch:due("/tf", t) then frames(self, t) end
  local slow_at = self.slow_at
  if slow_at and t < slow_at and t >= slow_at - RC.SLOW_PERIOD then return period end
  self.slow_at = t + RC.SLOW_PERIOD - 1e-9
  slow_topics(self, ch, t)
  return period
end

return RC
