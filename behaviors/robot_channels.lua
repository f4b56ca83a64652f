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
                bb = true, machine = true, world = true, thermal_range = true }

--- RobotChannels.new(channels, {robot =, now =, scan = fn, thermal = fn(i), map = grid | fn,
--   mapping =, nav =, bb =, machine =, world =, thermal_range = {lo, hi}})
function RC.new(channels, o)
  if type(o) ~= "table" then error("bad argument #2 to 'RobotChannels.new' (table expected)", 2) end
  for k in pairs(o) do
    if not KNOWN[k] then error(("RobotChannels.new: unknown option '%s'"):format(tostring(k)), 2) end
  end
  if type(o.robot) ~= "table" or type(o.now) ~= "function" then
    error("RobotChannels.new: robot (table) and now (function) are required", 2)
  end
  local self = setmetatable({ ch = channels, o = o, robot = o.robot, now = o.now, cmd = { v = 0, w = 0 },
                              seen = {} }, RC)
  -- the drive commands, as they go to the base
  local robot = o.robot
  local drive, stop = robot.drive, robot.stop
  if drive then robot.drive = function(v, w) self.cmd.v, self.cmd.w = v, w return drive(v, w) end end
  if stop then robot.stop = function(...) self.cmd.v, self.cmd.w = 0, 0 return stop(...) end end
  if o.machine and o.machine.name then self.machine_name = o.machine.name end
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

-- 20 times a second: formatted directly, not built as tables and encoded;
-- the stamp as sec, nsec without a table
local stamp = Channels.sec_nsec

-- the whole /tf message as one format of the robot's x, y and heading (the
-- other frames do not move); @T@ stands for the stamp, the same in each
local TRANSFORM = '{"timestamp":@T@,"parent_frame_id":"%s","child_frame_id":"%s",'
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
  return '{"transforms":[' .. table.concat(parts, ",") .. "]}"
end
RC.tf_template = tf_template

local function tf(self, t)
  local x, y, yaw = self.robot.pose()
  self.tf_format = self.tf_format or tf_template(self.robot.cameras)
  local sec, nsec = stamp(t)
  local body = self.tf_format:format(x, y, math.sin(yaw / 2), math.cos(yaw / 2))
  self.ch:publish("/tf", t, (body:gsub("@T@", ('{"sec":%d,"nsec":%d}'):format(sec, nsec))))
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
local ENTITY = '{"timestamp":{"sec":%d,"nsec":%d},"frame_id":"map","id":"%s","lifetime":{"sec":0,"nsec":0},'
  .. '"frame_locked":false,"metadata":[],"arrows":[%s],"cubes":[%s],"spheres":[%s],"cylinders":[%s],'
  .. '"lines":[],"triangles":[],"texts":[],"models":[]}'
local function list_json(items)
  local parts = {}
  for i, it in ipairs(items) do parts[i] = tycho.viz.json(it) end
  return table.concat(parts, ",")
end

local function scene(self, t)
  local bb, world = self.o.bb or {}, self.o.world
  local spheres = {}
  local dets = bb.detections or {}
  local cache = self.sphere_json
  if not cache then cache = setmetatable({}, { __mode = "k" }) self.sphere_json = cache end
  for k = math.max(1, #dets - RC.MAX_DETECTIONS + 1), #dets do
    local d = dets[k]
    local js = cache[d]
    if not js then
      js = tycho.viz.json { pose = Channels.pose(d.x, d.y, 0, 0.1), size = { x = 0.04, y = 0.04, z = 0.04 },
                            color = color(1, 0.55, 0) }
      cache[d] = js
    end
    spheres[#spheres + 1] = js
  end
  local cylinders = {}
  for _, g in ipairs(bb.targets or {}) do
    cylinders[#cylinders + 1] = { pose = Channels.pose(g.x, g.y, 0, 0.05), size = { x = 0.2, y = 0.2, z = 0.1 },
                                  bottom_scale = 1, top_scale = 1,
                                  color = g.engaged and color(0, 0.8, 0, 0.6) or color(1, 0, 1, 0.6) }
  end
  local sources = {}
  for _, s in ipairs(world and world.heat_sources or {}) do
    sources[#sources + 1] = { pose = Channels.pose(s.x, s.y, 0, 0.15), size = { x = 0.08, y = 0.08, z = 0.3 },
                              color = color(1, 0, 0, 0.8) }
  end
  local ramps = {}
  for _, r in ipairs(world and world.ramps or {}) do
    ramps[#ramps + 1] = { pose = Channels.pose((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2, 0, 0.02),
                          size = { x = math.abs(r.x1 - r.x0), y = math.abs(r.y1 - r.y0), z = 0.04 },
                          color = color(0.5, 0.5, 0.5, 0.5) }
  end
  if bb.ramp then
    ramps[#ramps + 1] = { pose = Channels.pose(bb.ramp.x, bb.ramp.y, bb.ramp.yaw or 0, 0.05),
                          size = { x = 0.3, y = 0.3, z = 0.02 }, color = color(1, 0.9, 0, 0.7) }
  end
  local arrows = {}
  for _, l in ipairs(bb.launches or {}) do
    arrows[#arrows + 1] = { pose = Channels.pose(l.x, l.y, l.yaw or 0, 0.1), shaft_length = 0.25,
                            shaft_diameter = 0.03, head_length = 0.08, head_diameter = 0.07,
                            color = l.engaged_source and color(0, 0.8, 0) or color(0, 0, 0) }
  end
  local sec, nsec = stamp(t)
  local function ent(id, arr, cubes, sph, cyl) return ENTITY:format(sec, nsec, id, arr, cubes, sph, cyl) end
  self.ch:publish("/scene", t, '{"deletions":[],"entities":[' .. table.concat({
    ent("detections", "", "", table.concat(spheres, ","), ""),
    ent("targets", "", "", "", list_json(cylinders)),
    ent("sources", "", list_json(sources), "", ""),
    ent("ramps", "", list_json(ramps), "", ""),
    ent("launches", list_json(arrows), "", "", ""),
  }, ",") .. "]}")
end

-- a cheap fingerprint of the scene, so it is sent only when it changed
local function scene_key(self)
  local bb = self.o.bb or {}
  local engaged = 0
  for _, g in ipairs(bb.targets or {}) do if g.engaged then engaged = engaged + 1 end end
  return ("%d/%d/%d/%d/%s"):format(#(bb.detections or {}), #(bb.targets or {}), engaged, #(bb.launches or {}),
    tostring(bb.ramp ~= nil))
end

-- a trail of a long run is thinned to this many points (evenly, the last
-- kept), so a message does not grow without bound
RC.MAX_TRAIL = 1000
-- the newest detections shown (older ones are summed up by the targets)
RC.MAX_DETECTIONS = 200

local function grid_of(v) if type(v) == "function" then return v() end return v end

-- a new scan does not always change a cell (the robot standing still):
-- the grid goes out only when its cells, size or place changed
local function publish_grid(self, topic, grid, t)
  local key = tycho.viz.digest(grid)
  if key == self.seen[topic .. "#cells"] then return end
  self.seen[topic .. "#cells"] = key
  self.ch:publish(topic, t, tycho.viz.grid(grid, t, "map"))
end

function RC:tick()
  local ch, t, o = self.ch, self.now(), self.o
  if #ch.sinks == 0 or not ch:live_window() then return end
  local robot = self.robot
  if ch:due("/tf", t) then tf(self, t) end
  if ch:due("/imu", t) and robot.imu then
    local p, r, rate = robot.imu()
    local sec, nsec = stamp(t)
    ch:publish("/imu", t, ('{"timestamp":{"sec":%d,"nsec":%d},"pitch":%.6g,"roll":%.6g,"yaw_rate":%.6g}'):format(
      sec, nsec, p, r, rate or 0))
  end
  if ch:due("/cmd_vel", t) then
    local sec, nsec = stamp(t)
    ch:publish("/cmd_vel", t, ('{"timestamp":{"sec":%d,"nsec":%d},"v":%.6g,"w":%.6g}'):format(
      sec, nsec, self.cmd.v, self.cmd.w))
  end
  if o.scan and ch:due("/scan", t) then
    local scan = o.scan()
    if scan and scan ~= self.seen.scan then
      self.seen.scan = scan
      ch:publish("/scan", t, tycho.viz.scan(scan, t, "laser"))
    end
  end
  if o.thermal then
    local lo, hi = (o.thermal_range or {})[1] or 15, (o.thermal_range or {})[2] or 70
    for i = 1, math.min(2, #(robot.cameras or {})) do
      local topic = "/thermal/" .. i
      if ch:due(topic, t) then
        local frame = o.thermal(i)
        if frame and frame ~= self.seen[topic] then
          self.seen[topic] = frame
          ch:publish(topic, t, tycho.viz.image(frame, 8, 8, lo, hi, t, "camera_" .. i))
        end
      end
    end
  end
  local mapping = o.mapping
  if ch:due("/map", t) then
    local m, key
    if mapping then m, key = mapping.map, mapping.scans else m = grid_of(o.map) key = m end
    if m and key ~= self.seen.map then
      self.seen.map = key
      publish_grid(self, "/map", m, t)
    end
  end
  if mapping and mapping.costmap and ch:due("/costmap", t) and mapping.refreshes ~= self.seen.costmap then
    self.seen.costmap = mapping.refreshes
    publish_grid(self, "/costmap", mapping.costmap, t)
  end
  local goal = o.nav and o.nav.goal
  local path = goal and not goal.done and goal.path or nil
  if o.nav and path ~= self.seen.path and ch:due("/path", t) then
    self.seen.path = path
    ch:publish("/path", t, tycho.viz.poses(path or {}, t, "map"))
  end
  local bb = o.bb
  if bb and bb.trail and ch:due("/trail", t) and #bb.trail ~= self.seen.trail then
    self.seen.trail = #bb.trail
    ch:publish("/trail", t, tycho.viz.poses(bb.trail, t, "map", RC.MAX_TRAIL))
  end
  if (bb or o.world) and ch:due("/scene", t) then
    local key = scene_key(self)
    if key ~= self.seen.scene then
      self.seen.scene = key
      scene(self, t)
    end
  end
end

return RC
