-- --replay: a recorded mission played back from its raw device samples makes
-- the same decisions (states, targets, launches, every drive command); a
-- mission whose tuning changed is caught where it first diverges; files that
-- cannot be replayed are refused with a clear message. And the tap and
-- sample packing beneath it, on their own.
local tycho = require "tycho"
local exe = require "helpers.exe"
local RobotReplay = require "robot_replay"
local Channels = require "channels"

local function run(args)
  local code, text = exe.run(args)
  return code, text
end

local outs = {} -- removed at the end
local function scratch_dir()
  local dir = exe.tmpdir()
  outs[#outs + 1] = dir
  assert(os.execute("mkdir -p " .. exe.quote(dir)))
  return dir
end
local function heat_seek(extra)
  local out = exe.tmpdir()
  outs[#outs + 1] = out
  local args = { "run", "behaviors/heat_seek.lua", "--out", out, "--quiet" }
  for _, a in ipairs(extra) do args[#args + 1] = a end
  local code, text = run(args)
  return code, exe.read_json(out .. "/summary.json"), text, out
end

describe("sample packing (tycho.viz.pack / unpack)", function()
  it("gives back every number bit for bit, float64 and a scan's float32 ranges", function()
    local v = { 1 / 3, -2.5e-300, 123456789.123456789, 0, -0.0, math.huge, -math.huge, math.pi }
    local back = tycho.viz.unpack(tycho.viz.pack(v, "f64"), "f64")
    assert.are.equal(#v, #back)
    for i = 1, #v do assert.are.equal(v[i], back[i]) end
    local scan = tycho.scan.new({ angle_min = -math.pi, angle_increment = 2 * math.pi / 360, range_min = 0.12,
                                  range_max = 3.5 }, (function()
      local r = {}
      for i = 1, 360 do r[i] = i % 7 == 0 and math.huge or 0.12 + i / 97 end
      return r
    end)())
    local ranges = tycho.viz.unpack(tycho.viz.pack(scan, "f32"), "f32")
    assert.are.same(scan:ranges(), ranges)
  end)

  it("refuses what it cannot read, naming the argument", function()
    assert.has_error(function() tycho.viz.pack({ 1, "x" }, "f64") end,
      "bad argument #1 to 'pack' (item 2 is string, number expected)")
    assert.has_error(function() tycho.viz.pack({ 1 }, "f16") end)
    assert.has_error(function() tycho.viz.unpack("not base64!", "f64") end)
    -- 4 bytes are one float32 but not a float64
    assert.has_error(function() tycho.viz.unpack("AAAAAA==", "f64") end)
    assert.are.equal(1, #tycho.viz.unpack("AAAAAA==", "f32"))
  end)
end)

describe("the tap", function()
  -- a robot with the interface's functions, on a clock the test moves
  local function fake_robot()
    local r = { kind = "sim", cameras = { { yaw = 0.5, fov = 1 } }, t = 0, x = 0 }
    function r.time() return r.t end
    function r.pose() return r.x, 0, 0.25 end
    function r.imu() return 0.01, -0.02, 0.3 end
    function r.drive() end
    function r.stop() end
    function r.step(dt) r.t = r.t + dt r.x = r.x + dt / 3 end
    local pending
    function r.scan()
      local s = pending
      pending = nil
      if s then return s, r.t - 0.05, { x = r.x, y = 0, yaw = 0.25 } end
    end
    function r.thermal() return nil end
    r.launcher = { spin = function() end, feed = function() return { engaged = 2 } end }
    r.give_scan = function()
      pending = tycho.scan.new({ angle_min = 0, angle_increment = 0.5, range_min = 0.1, range_max = 4 },
                               { 1.25, math.huge, 3.3 })
    end
    return r
  end

  it("writes what the robot delivered, exactly, once the channels are attached, and replays it", function()
    local robot = fake_robot()
    local tape = RobotReplay.tap(robot, { world = "w.lua", seed = 7 })
    local got = {}
    local channels = Channels.new()
    channels:add_sink({ advertise = function() end, close = function() return true end,
                        publish = function(_, topic, t, data) got[#got + 1] = { topic, t, data } end }, { raw = true })
    -- nothing is lost before the session is up
    robot.drive(0.2, -0.1)
    robot.step(0.05)
    tape:attach(channels)
    robot.give_scan()
    local scan = robot.scan()
    robot.step(0.05)
    assert.are.equal(2, robot.launcher.feed().engaged)
    local topics = {}
    for _, g in ipairs(got) do topics[#topics + 1] = g[1] end
    assert.are.same({ "/raw/robot", "/raw/odom", "/raw/odom", "/raw/scan", "/raw/odom", "/raw/launcher" }, topics)
    -- the odometry after the first step: the command in force and the pose, to the last bit
    local json = require "json_decode"
    local o = json.decode(got[3][3])
    assert.are.equal(0.05, o.t)
    assert.are.equal(0.05 / 3, o.x)
    assert.are.equal(0.2, o.v)
    assert.are.equal(-0.1, o.w)
    local s = json.decode(got[4][3])
    assert.are.same(scan:ranges(), tycho.viz.unpack(s.ranges, "f32"))
    assert.are.equal(0.05 - 0.05, s.stamp)
  end)
end)

describe("the simulator's tap (sim:tap, in C)", function()
  -- one sim, tapped in Lua (no clock given) or in C (the clock given),
  -- driven the same way into a recording; the raw messages of the two
  local function record(in_c, path, overrides)
    local robot = require("robot_sim").open("maps/maze_small.lua", { seed = 3, overrides = overrides })
    local clock = tycho.clock.new { mode = "sim" }
    local now = function() return clock:now() end
    local tape = RobotReplay.tap(robot, { world = "maps/maze_small.lua", seed = 3, now = now,
                                          clock = in_c and clock or nil })
    local channels = Channels.new()
    channels:add_sink(assert(Channels.mcap_sink(path)), { raw = true })
    tape:attach(channels)
    assert.are.equal(in_c, tape.in_c)
    for k = 1, 200 do
      robot.drive(k % 50 < 30 and 0.15 or 0, k % 40 < 20 and 0.8 or -0.6)
      robot.step(0.05)
      clock:advance(0.05)
      robot.scan()
      robot.thermal(1)
      robot.thermal(2)
    end
    robot.stop()
    robot.step(0.05)
    assert(channels:close())
    local msgs = {}
    assert(tycho.mcap.read(path, function(topic, t, data) msgs[#msgs + 1] = ("%s %.9f %s"):format(topic, t, data) end))
    return msgs, channels:message_count()
  end

  it("writes the very bytes the Lua tap writes, odometry, scans and frames", function()
    local dir = scratch_dir()
    local lua_msgs, lua_n = record(false, dir .. "/lua.mcap")
    local c_msgs, c_n = record(true, dir .. "/c.mcap")
    assert.are.equal(#lua_msgs, #c_msgs)
    assert.are.equal(lua_n, c_n)
    local kinds = {}
    for i = 1, #lua_msgs do
      assert.are.equal(lua_msgs[i], c_msgs[i])
      local topic = lua_msgs[i]:match("^(%S+)")
      kinds[topic] = (kinds[topic] or 0) + 1
    end
    assert.are.equal(202, kinds["/raw/odom"]) -- the start, 201 steps
    assert.is_true(kinds["/raw/scan"] >= 40 and kinds["/raw/thermal/1"] >= 40 and kinds["/raw/thermal/2"] >= 40)
  end)

  it("writes the very bytes for a LiDAR of 2000 beams too (queued as floats, widened on the writer's thread)", function()
    local dir = scratch_dir()
    local lidar = { lidar = { beams = 2000, angle_increment = 2 * math.pi / 2000 } }
    local lua_msgs = record(false, dir .. "/lua.mcap", lidar)
    local c_msgs = record(true, dir .. "/c.mcap", lidar)
    assert.are.equal(#lua_msgs, #c_msgs)
    local scans = 0
    for i = 1, #lua_msgs do
      assert.are.equal(lua_msgs[i], c_msgs[i])
      if lua_msgs[i]:match("^/raw/scan ") then
        scans = scans + 1
        local ranges = tycho.viz.unpack(assert(lua_msgs[i]:match('"ranges":"([^"]*)"')), "f32")
        assert.are.equal(2000, #ranges)
      end
    end
    assert.is_true(scans >= 40)
  end)

  -- the samples are held in C and written in runs (bindings/l_sim_log.c):
  -- a message the mission writes between two steps must still land
  -- between their samples, and runs larger than the log's room lose nothing
  it("keeps each sample in its place among the messages the mission writes between steps", function()
    local sim = tycho.sim.load("maps/maze_small.lua", { lidar = { beams = 4000, angle_increment = 2 * math.pi / 4000 } })
    local clock = tycho.clock.new { mode = "sim" }
    local path = scratch_dir() .. "/order.mcap"
    local w = assert(tycho.mcap.open(path, { threaded = true }))
    local sid = w:schema("s", "jsonschema", "{}")
    local ids = {}
    for _, topic in ipairs { "odom", "scan", "t1", "t2", "mark" } do ids[topic] = w:channel(topic, sid, "json") end
    local T = tycho.viz.template
    sim:tap(w, clock, { odom = ids.odom, scan = ids.scan, thermal = { ids.t1, ids.t2 } },
      { odom = T("[%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g]"),
        scan = T("[%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%F]"),
        thermal = T("[%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%D]") })
    local steps = 60
    for k = 1, steps do
      sim:step(0.05)
      clock:advance(0.05)
      sim:scan() -- 4000 beams: 16 KB a scan, the log's room filled every few steps
      if k % 7 == 0 then assert(w:write(ids.mark, clock:now(), ("%d"):format(k))) end
    end
    local n, err = sim:untap()
    assert.is_nil(err)
    assert(w:close())
    local odom_seen, scans, marks = 0, 0, 0
    assert(tycho.mcap.read(path, function(topic, _, data)
      if topic == "odom" then
        odom_seen = odom_seen + 1
        -- the sim's own time comes first: the steps in order, none missing
        assert.are.near(odom_seen * 0.05, tonumber(data:match("^%[([^,]+)")), 1e-9)
      elseif topic == "scan" then
        scans = scans + 1
      elseif topic == "mark" then
        marks = marks + 1
        -- written after step k: the odometry of k steps before it, no more
        assert.are.equal(tonumber(data), odom_seen)
      end
    end))
    assert.are.equal(steps, odom_seen)
    assert.are.equal(math.floor(steps / 7), marks)
    assert.is_true(scans >= 10, "scans " .. scans)
    assert.are.equal(odom_seen + scans, n)
  end)

  it("refuses bad arguments, naming them, and stops cleanly", function()
    local sim = tycho.sim.load("maps/maze_small.lua")
    local clock = tycho.clock.new { mode = "sim" }
    local dir = scratch_dir()
    local w = assert(tycho.mcap.open(dir .. "/t.mcap"))
    local T = tycho.viz.template
    local templates = { odom = T("%.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g"),
                        scan = T("%.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %F"),
                        thermal = T("%.17g %.17g %.17g %.17g %.17g %.17g %D") }
    local ids = { odom = 1, scan = 2, thermal = { 3, 4 } }
    assert.has_error(function() sim:tap(w, clock, { odom = 1, scan = 2 }, templates) end,
      "bad argument #3 to 'tap' (field 'thermal': {id1, id2} expected)")
    assert.has_error(function() sim:tap(w, clock, { odom = 0, scan = 2, thermal = { 3, 4 } }, templates) end,
      "bad argument #3 to 'tap' (field 'odom': channel id expected)")
    assert.has_error(function() sim:tap(w, clock, ids, { odom = templates.scan, scan = templates.scan,
                                                          thermal = templates.thermal }) end,
      "bad argument #4 to 'tap' (template 'odom' takes 9 numbers, this one 9 and an array)")
    assert.has_error(function() sim:tap(w, clock, ids, { odom = templates.odom, scan = "x", thermal = templates.thermal }) end,
      "bad argument #4 to 'tap' (field 'scan': template expected (tycho.viz.template))")
    assert.has_error(function() sim:tap(clock, clock, ids, templates) end)
    -- nothing tapped: nothing written, no error
    assert.are.equal(0, sim:untap())
    -- a closed writer stops the tap with its error, the mission goes on
    local sid = w:schema("s", "jsonschema", "{}")
    for _, topic in ipairs { "a", "b", "c", "d" } do w:channel(topic, sid, "json") end
    sim:tap(w, clock, ids, templates)
    sim:step(0.05)
    assert(w:close())
    sim:step(0.05)
    local n, err = sim:untap()
    assert.are.equal(1, n)
    assert.truthy(tostring(err):find("closed", 1, true), tostring(err))
    -- a clock closed under the tap: stopped with that error, no crash
    local w2 = assert(tycho.mcap.open(dir .. "/t2.mcap"))
    local sid2 = w2:schema("s", "jsonschema", "{}")
    for _, topic in ipairs { "a", "b", "c", "d" } do w2:channel(topic, sid2, "json") end
    local clock2 = tycho.clock.new { mode = "sim" }
    sim:tap(w2, clock2, ids, templates)
    sim:step(0.05)
    getmetatable(clock2).__close(clock2)
    sim:step(0.05)
    n, err = sim:untap()
    assert.are.equal(1, n)
    assert.are.equal("sim:tap: the clock was closed", err)
    assert(w2:close())
  end)
end)

describe("the simulator's frames (sim:tap_frames, in C)", function()
  local FRAMES = { ["/tf"] = true, ["/imu"] = true, ["/cmd_vel"] = true }
  -- one sim driven the same way with the robot's feeder, which sends the
  -- frames itself (no clock given) or leaves them to the simulator (clock
  -- given, a recording the one sink); viewer: a live sink joins half way
  -- the thermal frames the mission took, at their times: {t, camera, frame}
  -- (and its scans: {t, "scan", scan})
  local function record(in_c, path, viewer, taken)
    local robot = require("robot_sim").open("maps/maze_small.lua", { seed = 3 })
    local clock = tycho.clock.new { mode = "sim" }
    local channels = Channels.new()
    channels:add_sink(assert(Channels.mcap_sink(path)))
    local frames, scan = {}, nil
    local feeder = require("robot_channels").new(channels, { robot = robot, now = function() return clock:now() end,
                                                             clock = in_c and clock or nil,
                                                             thermal = function(i) return frames[i] end,
                                                             scan = function() return scan end })
    -- the feeder asks to be ticked at the slow topics' period while the
    -- simulator writes the 20 Hz frames
    assert.are.equal(in_c and 0.2 or 0.05, feeder:tick())
    assert.are.equal(in_c, feeder.frames_tapped == true)
    assert.are.equal(in_c, feeder.images_tapped == true)
    assert.are.equal(in_c, feeder.scan_tapped == true)
    for k = 1, 200 do
      robot.drive(k % 50 < 30 and 0.15 or 0, k % 40 < 20 and 0.8 or -0.6)
      clock:advance(0.05)
      robot.step(0.05)
      local s = robot.scan()
      if s then
        scan = s
        if taken then taken[#taken + 1] = { clock:now(), "scan", s } end
      end
      for i = 1, #robot.cameras do
        local f = robot.thermal(i)
        if f then
          frames[i] = f
          if taken then taken[#taken + 1] = { clock:now(), i, f } end
        end
      end
      feeder:tick()
      if viewer and k == 100 then
        channels:add_sink(viewer)
        feeder:tick() -- the feeder looks at the sinks again: the frames are its own
        assert.is_false(feeder.frames_tapped)
      end
    end
    assert(channels:close())
    local msgs, images, scans = {}, { {}, {} }, {}
    assert(tycho.mcap.read(path, function(topic, t, data)
      if FRAMES[topic] then msgs[#msgs + 1] = ("%s %.9f %s"):format(topic, t, data) end
      local cam = tonumber(topic:match("^/thermal/(%d)$"))
      if cam then images[cam][#images[cam] + 1] = { t, data } end
      if topic == "/scan" then scans[#scans + 1] = { t, data } end
    end))
    return msgs, channels:message_count(), images, scans
  end

  -- the scans at least a period apart, and never more than two apart
  local function scans_spaced(scans, period)
    assert.is_true(#scans >= 40, #scans .. " scans")
    for k = 2, #scans do
      local gap = scans[k][1] - scans[k - 1][1]
      assert.is_true(gap >= period - 1e-6 and gap <= 2 * period + 1e-6,
        ("scans %.3f s apart at %.3f"):format(gap, scans[k][1]))
    end
  end

  -- each camera's images at least a period apart, and never more than two
  -- apart (the feeder looks every 0.2 s, frames come at 10 Hz)
  local function spaced(images, period)
    for cam = 1, 2 do
      assert.is_true(#images[cam] >= 40, "camera " .. cam .. ": " .. #images[cam] .. " images")
      for k = 2, #images[cam] do
        local gap = images[cam][k][1] - images[cam][k - 1][1]
        assert.is_true(gap >= period - 1e-6 and gap <= 2 * period + 1e-6,
          ("camera %d: images %.3f s apart at %.3f"):format(cam, gap, images[cam][k][1]))
      end
    end
  end

  it("writes the thermal images of the frames the mission takes, each a period after the last", function()
    local dir = scratch_dir()
    local taken = {}
    local _, _, images = record(true, dir .. "/c.mcap", nil, taken)
    local _, _, lua_images = record(false, dir .. "/lua.mcap")
    spaced(images, 0.2)
    spaced(lua_images, 0.2)
    -- each is the colour map of the frame its camera gave at its time
    local at = {}
    for _, e in ipairs(taken) do at[("%s %.6f"):format(e[2], e[1])] = e[3] end
    for cam = 1, 2 do
      for _, m in ipairs(images[cam]) do
        local frame = at[("%d %.6f"):format(cam, m[1])]
        assert.is_truthy(frame, ("no frame of camera %d at %.3f"):format(cam, m[1]))
        assert.are.equal(tycho.viz.image(frame, 8, 8, 15, 70, m[1], "camera_" .. cam), m[2])
      end
    end
  end)

  it("writes the LaserScans of the scans the mission takes, each a period after the last", function()
    local dir = scratch_dir()
    local taken = {}
    local _, _, _, scans = record(true, dir .. "/c.mcap", nil, taken)
    local _, _, _, lua_scans = record(false, dir .. "/lua.mcap")
    scans_spaced(scans, 0.2)
    scans_spaced(lua_scans, 0.2)
    local at = {}
    for _, e in ipairs(taken) do at[("%s %.6f"):format(e[2], e[1])] = e[3] end
    for _, m in ipairs(scans) do
      local scan = at[("scan %.6f"):format(m[1])]
      assert.is_truthy(scan, ("no scan taken at %.3f"):format(m[1]))
      assert.are.equal(tycho.viz.scan(scan, m[1], "laser"), m[2])
    end
  end)

  it("writes the very bytes the feeder writes, frames, IMU and commands", function()
    local dir = scratch_dir()
    local lua_msgs, lua_n = record(false, dir .. "/lua.mcap")
    local c_msgs, c_n = record(true, dir .. "/c.mcap")
    assert.are.equal(3 * 201, #lua_msgs) -- the first tick and 200 steps
    assert.are.equal(#lua_msgs, #c_msgs)
    assert.are.equal(lua_n, c_n)
    for i = 1, #lua_msgs do assert.are.equal(lua_msgs[i], c_msgs[i]) end
  end)

  it("hands the frames back to the feeder when a viewer joins, none lost or doubled", function()
    local dir = scratch_dir()
    local seen = 0
    local viewer = { live = true, advertise = function() end, close = function() return true end,
                     publish = function(_, topic) if topic == "/tf" then seen = seen + 1 end end }
    local msgs, n, images, scans = record(true, dir .. "/v.mcap", viewer)
    local lua_msgs = record(false, dir .. "/lua.mcap")
    assert.are.equal(#lua_msgs, #msgs)
    for i = 1, #msgs do assert.are.equal(lua_msgs[i], msgs[i]) end
    assert.is_true(seen >= 1)
    -- the images and scans too go on from where the simulator stopped
    spaced(images, 0.2)
    scans_spaced(scans, 0.2)
    local thermal = #images[1] + #images[2]
    assert.are.equal(#msgs + thermal + #scans, n)
  end)

  it("refuses bad arguments, naming them, and stops cleanly", function()
    local sim = tycho.sim.load("maps/maze_small.lua")
    local clock = tycho.clock.new { mode = "sim" }
    local dir = scratch_dir()
    local w = assert(tycho.mcap.open(dir .. "/f.mcap"))
    local T = tycho.viz.template
    local templates = { tf = T("%T %.6g %.6g %.9g %.9g"), imu = T("%T %.6g %.6g %.6g"), cmd = T("%T %.6g %.6g") }
    local ids = { tf = 1, imu = 2, cmd = 3 }
    assert.has_error(function() sim:tap_frames(w, clock, { tf = 1, imu = 2 }, templates, 0.05) end,
      "bad argument #3 to 'tap_frames' (field 'cmd': channel id expected)")
    assert.has_error(function() sim:tap_frames(w, clock, ids, { tf = templates.imu, imu = templates.imu,
                                                                cmd = templates.cmd }, 0.05) end,
      "bad argument #4 to 'tap_frames' (template 'tf' takes 4 numbers, this one 3)")
    assert.has_error(function() sim:tap_frames(w, clock, ids, { tf = templates.tf, imu = 1, cmd = templates.cmd }, 0.05) end,
      "bad argument #4 to 'tap_frames' (field 'imu': template expected (tycho.viz.template))")
    assert.has_error(function() sim:tap_frames(w, clock, ids, templates, 0) end,
      "bad argument #5 to 'tap_frames' (period must be finite and > 0)")
    assert.has_error(function() sim:tap_frames(w, clock, ids, templates, 0.05, nil, { thermal = {} }) end,
      "bad argument #7 to 'tap_frames' (field 'thermal': 1 to 2 channel ids expected)")
    assert.has_error(function() sim:tap_frames(w, clock, ids, templates, 0.05, nil, { thermal = { 4 }, lo = 5, hi = 1 }) end,
      "bad argument #7 to 'tap_frames' (fields 'lo' and 'hi': finite with hi > lo expected)")
    assert.are.equal(0, sim:untap_frames())
    local sid = w:schema("s", "jsonschema", "{}")
    for _, topic in ipairs { "a", "b", "c" } do w:channel(topic, sid, "json") end
    -- at the tap, then after each step a period on
    sim:tap_frames(w, clock, ids, templates, 0.1)
    for _ = 1, 4 do
      clock:advance(0.05)
      sim:step(0.05)
    end
    local n, err = sim:untap_frames()
    assert.are.equal(3 * 3, n) -- at 0, 0.1 and 0.2
    assert.is_nil(err)
    -- a closed writer stops them with its error
    sim:tap_frames(w, clock, ids, templates, 0.05)
    assert(w:close())
    clock:advance(0.05)
    sim:step(0.05)
    n, err = sim:untap_frames()
    assert.are.equal(3, n)
    assert.truthy(tostring(err):find("closed", 1, true), tostring(err))
  end)
end)

describe("the odometry history (tycho.odom_history, sim:odom_at)", function()
  it("interpolates between steps, the heading across +-pi the short way, and clamps at its ends", function()
    local h = tycho.odom_history()
    assert.is_nil(h:at(1))
    h:push(1, 0, 0, 3.0)
    h:push(2, 1, 2, -3.0)
    local x, y, yaw = h:at(1.5)
    assert.are.equal(0.5, x)
    assert.are.equal(1, y)
    assert.is_true(math.abs(math.abs(yaw) - math.pi) < 0.01, "through pi, not through 0: " .. yaw)
    assert.are.same({ 0, 0, 3.0 }, { h:at(0) })
    assert.are.same({ 1, 2, -3.0 }, { h:at(5) })
    assert.has_error(function() h:push(3, 0 / 0, 0, 0) end, "bad argument #2 to 'push' (finite number expected)")
    -- 64 kept: the oldest goes
    for k = 3, 70 do h:push(k, k, 0, 0) end
    assert.are.same({ 7, 0, 0 }, { h:at(1) })
  end)

  it("gives the simulator's own history bit for bit (a replay places samples as the run did)", function()
    local sim = tycho.sim.load("maps/maze_small.lua")
    local h = tycho.odom_history()
    h:push(sim.time, sim:odom())
    sim:set_cmd(0.2, 1.5)
    for _ = 1, 80 do
      sim:step(0.05)
      h:push(sim.time, sim:odom())
    end
    for k = 0, 50 do
      local t = sim.time - k * 0.037
      assert.are.same({ h:at(t) }, { sim:odom_at(t) })
    end
  end)
end)

describe("tycho repl --record #e2e", function()
  it("records the raw device samples too, the ones the console asked for", function()
    local dir = exe.tmpdir()
    os.execute("mkdir -p " .. exe.quote(dir))
    local rec = dir .. "/repl.mcap"
    -- the simulator runs in real time beside the console: drive, wait, take a scan, leave
    local script = dir .. "/console.sh"
    exe.write(script, ("{ echo 'robot.drive(0.1, 0.2)'; sleep 2; echo 'assert(robot.scan())'; sleep 0.5; echo ':quit'; }"
      .. " | %s repl --world maps/maze_small.lua --record %s --history %s\n")
      :format(exe.quote(exe.EXE), exe.quote(rec), exe.quote(dir .. "/history")))
    local code, text = exe.shell("sh " .. exe.quote(script), { timeout = 60 })
    assert.are.equal(0, code, text)
    assert.truthy(text:find("recorded %d+ messages to"), text)
    local info = assert(tycho.mcap.read(rec))
    assert.are.equal(1, info.channels["/raw/robot"].messages)
    assert.are.equal(1, info.channels["/raw/scan"].messages)
    -- a step every 50 ms for about 2.5 s
    assert.is_true(info.channels["/raw/odom"].messages >= 30, "odometry samples " .. info.channels["/raw/odom"].messages)
    local raw = assert(RobotReplay.load(rec))
    assert.are.equal("sim", raw.robot.kind)
    local last = raw.odom:get(raw.odom.n)
    assert.is_true(last.v > 0.09 and last.x ~= raw.odom:get(1).x, "the drive command and the motion are in it")
    exe.remove_tree(dir)
  end)
end)

describe("heat_seek --replay #e2e", function()
  local dir = exe.tmpdir()
  os.execute("mkdir -p " .. exe.quote(dir))
  local recording = dir .. "/run.mcap"
  local code, original, text = heat_seek { "--world", "maps/maze_small.lua", "--record", recording }

  it("replays a recorded mission with the same decisions", function()
    assert.are.equal(0, code, text)
    local rcode, replayed, rtext, out = heat_seek { "--replay", recording }
    assert.are.equal(0, rcode, rtext)
    assert.is_table(replayed, rtext)
    assert.is_true(replayed.completed)
    for _, k in ipairs { "states", "targets", "launches", "detections", "nav", "ramp" } do
      assert.are.same(original[k], replayed[k], k .. " differ")
    end
    local r = replayed.replay
    assert.is_false(r.first_divergence_s)
    assert.are.equal(0, r.commands_differing)
    assert.are.equal(0, r.launches_unmatched)
    assert.are.equal(r.recorded_steps, r.steps)
    assert.are.equal("sim", r.recorded_kind)
    assert.are.equal("maps/maze_small.lua", r.world)
    assert.truthy(rtext:find("the same decisions as recorded", 1, true))
    -- what the simulator alone knows is not made up on replay
    assert.is_false(replayed.coverage)
    assert.is_nil(replayed.sources)
    -- and the summary keeps to its schema
    local schema = require "json_schema"
    local v = schema.load(exe.SRC .. "/schemas/heat_seek_summary.schema.json")
    assert.are.same({}, v:errors(schema.read(out .. "/summary.json")))
  end)

  it("catches a mission whose decisions changed, at the first command that differs", function()
    local rcode, replayed, rtext = heat_seek { "--replay", recording, "--set", "max_speed=0.2" }
    assert.are.equal(1, rcode, rtext)
    local r = replayed.replay
    assert.is_number(r.first_divergence_s)
    assert.is_true(r.first_divergence_s < 5, "diverged at " .. tostring(r.first_divergence_s))
    assert.is_true(r.commands_differing > 0)
    assert.truthy(rtext:find("decisions DIVERGED", 1, true))
    assert.truthy(rtext:find("replay: decisions diverged at", 1, true))
  end)

  it("replays a recording cut short (the process died) as far as it goes", function()
    local f = assert(io.open(recording, "rb"))
    local whole = f:read("*a")
    f:close()
    -- the writer's .part file as a crash leaves it: no summary, no footer, a half record
    local part = dir .. "/crashed.mcap.part"
    f = assert(io.open(part, "wb"))
    f:write(whole:sub(1, math.floor(#whole * 0.6)))
    f:close()
    local info = assert(tycho.mcap.read(part, nil, { cut_ok = true }))
    assert.is_true(info.cut)
    assert.is_true(info.cut_offset <= math.floor(#whole * 0.6))
    assert.is_nil(tycho.mcap.read(part))
    local rcode, replayed, rtext = heat_seek { "--replay", part }
    assert.are.equal(0, rcode, rtext)
    local r = replayed.replay
    assert.are.equal(info.cut_offset, r.cut)
    assert.is_true(r.ended_early)
    assert.is_false(r.first_divergence_s)
    assert.is_true(r.steps > 1000, "steps " .. r.steps)
    assert.truthy(rtext:find("was cut short at byte", 1, true), rtext)
    assert.truthy(rtext:find("cut short): " .. r.steps, 1, true), rtext)
    -- and a change of decisions before the cut is still caught
    rcode = heat_seek { "--replay", part, "--set", "max_speed=0.2" }
    assert.are.equal(1, rcode)
  end)

  it("refuses files it cannot replay, with the reason and exit 2", function()
    local rcode, _, rtext = heat_seek { "--replay", dir .. "/missing.mcap" }
    assert.are.equal(2, rcode)
    assert.truthy(rtext:find("missing.mcap: No such file", 1, true), rtext)
    -- a recording cut short (the robot lost power)
    local f = assert(io.open(recording, "rb"))
    local head = f:read(20000)
    f:close()
    local cut = dir .. "/cut.mcap"
    f = assert(io.open(cut, "wb"))
    f:write(head)
    f:close()
    rcode, _, rtext = heat_seek { "--replay", cut }
    assert.are.equal(2, rcode)
    assert.truthy(rtext:find("cut.mcap was cut short at byte", 1, true), rtext)
    assert.truthy(rtext:find("before any of its raw device samples", 1, true), rtext)
    -- a recording with channels but no raw samples
    local plain = dir .. "/plain.mcap"
    local w = assert(tycho.mcap.open(plain))
    local c = w:channel("/scan", w:schema("foxglove.LaserScan", "jsonschema", "{}"), "json")
    w:write(c, 0.5, "{}")
    assert(w:close())
    rcode, _, rtext = heat_seek { "--replay", plain }
    assert.are.equal(2, rcode)
    assert.truthy(rtext:find("holds no raw device samples", 1, true), rtext)
    rcode, _, rtext = heat_seek { "--replay", recording, "--world", "maps/maze_small.lua" }
    assert.are.equal(2, rcode)
    assert.truthy(rtext:find("one of --world, --robot and --replay", 1, true), rtext)
  end)

  teardown(function()
    exe.remove_tree(dir)
    for _, o in ipairs(outs) do exe.remove_tree(o) end
  end)
end)
