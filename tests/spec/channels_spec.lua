-- The recording and live-view building blocks: tycho.mcap from Lua,
-- tycho.viz's Foxglove JSON encoders, the channels' rate limits and sinks.
-- (Whole-mission recordings are checked by tests/node/record_mission_test.js
-- with the reference reader @mcap/core.)
local tycho = require "tycho"
local json = require "json_decode"
local Channels = require "channels"

local function tmpname(ext)
  local p = os.tmpname()
  os.remove(p)
  return p .. ext
end

-- base64 decoder for checking the encoders' bytes
local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function unbase64(s)
  local out, bits, nbits = {}, 0, 0
  for c in s:gmatch("[^=]") do
    bits = bits * 64 + (B64:find(c, 1, true) - 1)
    nbits = nbits + 6
    if nbits >= 8 then
      nbits = nbits - 8
      local byte = math.floor(bits / 2 ^ nbits) % 256
      out[#out + 1] = string.char(byte)
      bits = bits % 2 ^ nbits
    end
  end
  return table.concat(out)
end

describe("tycho.mcap from Lua", function()
  it("writes a recording our reader reads back message by message", function()
    local path = tmpname(".mcap")
    local w = assert(tycho.mcap.open(path, { chunk_size = 4096 }))
    local s = w:schema("tycho.Imu", "jsonschema", Channels.schema("tycho.Imu"))
    local a = w:channel("/a", s, "json")
    local b = w:channel("/b", s, "json")
    for i = 1, 500 do assert(w:write(i % 2 == 0 and a or b, i * 0.01, ('{"i":%d}'):format(i))) end
    assert.is_true(w:bytes() > 0)
    assert.is_true(w:close())
    assert.is_true(w:close()) -- twice is harmless
    local seen = {}
    local info = assert(tycho.mcap.read(path, function(topic, t, data)
      seen[#seen + 1] = { topic = topic, t = t, i = json.decode(data).i }
    end))
    assert.are.equal(500, info.messages)
    assert.are.equal(250, info.channels["/a"].messages)
    assert.are.equal("tycho.Imu", info.channels["/b"].schema)
    assert.are.equal("json", info.channels["/b"].encoding)
    assert.is_true(info.chunks > 1)
    assert.near(0.01, info.start_time, 1e-9)
    assert.near(5.0, info.end_time, 1e-9)
    assert.are.equal(500, #seen)
    for i, m in ipairs(seen) do
      assert.are.equal(i, m.i)
      assert.are.equal(i % 2 == 0 and "/a" or "/b", m.topic)
      assert.near(i * 0.01, m.t, 1e-9)
    end
    -- the callback can stop the reading, and its errors come through
    local n = 0
    assert(tycho.mcap.read(path, function() n = n + 1 return n == 3 end))
    assert.are.equal(3, n)
    assert.has_error(function() tycho.mcap.read(path, function() error("boom", 0) end) end, "boom")
    os.remove(path)
  end)

  it("finishes a threaded recording on its thread after close_start; close waits and reports", function()
    local path = tmpname(".mcap")
    local w = assert(tycho.mcap.open(path, { threaded = true, chunk_size = 4096 }))
    local a = w:channel("/a", w:schema("tycho.Imu", "jsonschema", Channels.schema("tycho.Imu")), "json")
    for i = 1, 2000 do assert(w:write(a, i * 0.01, ('{"i":%d}'):format(i))) end
    w:close_start()
    -- nothing more is taken once closing started
    local ok, err = pcall(w.write, w, a, 30, "{}")
    assert.is_false(ok)
    assert.matches("recording already closed", err, 1, true)
    assert.error_matches(function() w:close_start() end, "recording already closed")
    assert.is_true(w:close())
    assert.is_true(w:close())
    local info = assert(tycho.mcap.read(path))
    assert.are.equal(2000, info.messages)
    os.remove(path)
    -- Channels: close_start stops the taps and starts each sink's close;
    -- close waits, counts and reports once
    local ch = Channels.new()
    local sink = assert(Channels.mcap_sink(path))
    ch:add_sink(sink, { raw = true })
    local tapped = false
    ch:add_tap(function() tapped = true return 7 end)
    assert.is_true(ch:emit("/imu", 1, "format", tycho.viz.template('{"timestamp":%T}')))
    ch:close_start()
    assert.is_true(tapped)
    assert.are.equal(0, #ch.sinks)
    assert.is_false(ch:emit("/imu", 2, "format", tycho.viz.template('{"timestamp":%T}')))
    assert.is_true(ch:close())
    assert.are.equal(8, ch:message_count())
    info = assert(tycho.mcap.read(path))
    assert.are.equal(1, info.messages)
    assert.is_true(ch:close()) -- again: nothing left to close
    os.remove(path)
  end)

  it("reports files and arguments it cannot use", function()
    local w, err = tycho.mcap.open("/nonexistent-dir/x.mcap")
    assert.is_nil(w)
    assert.matches("x.mcap.part", err)
    local info, rerr = tycho.mcap.read("/nonexistent-dir/x.mcap")
    assert.is_nil(info)
    assert.is_string(rerr)
    local path = tmpname(".mcap")
    local f = assert(io.open(path, "wb"))
    f:write("\137MCAP0\r\nnot really a recording at all, only bytes\137MCAP0\r\n")
    f:close()
    info, rerr = tycho.mcap.read(path)
    assert.is_nil(info)
    assert.matches("offset", rerr)
    w = assert(tycho.mcap.open(path))
    assert.has_error(function() w:write(7, 0, "{}") end, "mcap: no channel 7")
    assert.has_error(function() w:write(1, -1, "{}") end)
    assert.has_error(function() w:channel("", 0, "json") end)
    local ok0, oerr = pcall(tycho.mcap.open, path, { chunk_size = 10 })
    assert.is_false(ok0)
    assert.matches("chunk_size", oerr, 1, true)
    ok0, oerr = pcall(tycho.mcap.open, path, { chunksize = 4096 })
    assert.is_false(ok0)
    assert.matches("chunksize", oerr, 1, true) -- unknown keys are refused, naming them
    assert.is_true(w:close())
    local ok, cerr = pcall(w.write, w, 1, 0, "{}")
    assert.is_false(ok)
    assert.matches("recording already closed", cerr, 1, true)
    os.remove(path)
  end)
end)

describe("tycho.viz encoders", function()
  it("encodes Lua values as JSON", function()
    local v = json.decode(tycho.viz.json({ a = { 1, 2.5, {} }, s = 'q"\\\n', b = true, x = 0 / 0 }))
    assert.are.same({ 1, 2.5, {} }, v.a)
    assert.are.equal('q"\\\n', v.s)
    assert.is_true(v.b)
    assert.is_nil(v.x) -- NaN is null
    assert.has_error(function() tycho.viz.json({ [true] = 1 }) end)
    assert.has_error(function() tycho.viz.json({ f = print }) end, "tycho.viz.json: cannot encode a function")
    local deep = {}
    local cur = deep
    for _ = 1, 70 do cur.x = {} cur = cur.x end
    assert.has_error(function() tycho.viz.json(deep) end)
  end)

  it("puts a grid's cells in a foxglove.Grid, row 0 at the origin", function()
    local g = tycho.grid.new { width = 4, height = 3, resolution = 0.5, origin = { x = -1, y = 2 }, fill = 0 }
    g:set(0, 0, 254)
    g:set(3, 2, 255)
    local m = json.decode(tycho.viz.grid(g, 12.25, "map"))
    assert.are.same({ sec = 12, nsec = 250000000 }, m.timestamp)
    assert.are.equal("map", m.frame_id)
    assert.are.equal(4, m.column_count)
    assert.are.equal(4, m.row_stride)
    assert.are.same({ x = 0.5, y = 0.5 }, m.cell_size)
    assert.are.same({ x = -1, y = 2, z = 0 }, m.pose.position)
    local cells = unbase64(m.data)
    assert.are.equal(12, #cells)
    assert.are.equal(254, cells:byte(1))
    assert.are.equal(255, cells:byte(12))
    assert.are.equal(0, cells:byte(2))
    local d0 = tycho.viz.digest(g)
    assert.are.equal(d0, tycho.viz.digest(g))
    g:set(1, 1, 100)
    assert.are_not.equal(d0, tycho.viz.digest(g))
    assert.has_error(function() tycho.viz.grid(g, 1, 'bad"frame') end)
    assert.has_error(function() tycho.viz.grid(g, -1, "map") end)
  end)

  it("sends only the box round the known cells, placed where those cells are", function()
    local g = tycho.grid.new { width = 10, height = 8, resolution = 0.5, origin = { x = 1, y = 2, yaw = math.pi / 2 },
                               fill = 255 }
    g:set(3, 2, 0)
    g:set(5, 4, 254)
    local m = json.decode(tycho.viz.grid(g, 1, "map"))
    assert.are.equal(3, m.column_count)
    assert.are.equal(3, m.row_stride)
    local cells = unbase64(m.data)
    assert.are.equal(9, #cells) -- cells (3..5, 2..4)
    assert.are.equal(0, cells:byte(1))
    assert.are.equal(254, cells:byte(9))
    assert.are.equal(255, cells:byte(5))
    -- cell (3, 2)'s corner: the origin + R(90 deg) (1.5, 1.0) = (1 - 1.0, 2 + 1.5)
    assert.is_near(0, m.pose.position.x, 1e-9)
    assert.is_near(3.5, m.pose.position.y, 1e-9)
    assert.is_near(math.sin(math.pi / 4), m.pose.orientation.z, 1e-9)
    -- nothing known: one cell at the origin
    g:fill(255)
    m = json.decode(tycho.viz.grid(g, 1, "map"))
    assert.are.equal(1, m.column_count)
    assert.are.equal(1, #unbase64(m.data))
    assert.is_near(1, m.pose.position.x, 1e-9)
  end)

  it("writes a LaserScan with 0 for beams without a return", function()
    local g = tycho.grid.new { width = 40, height = 40, resolution = 0.1, origin = { x = 0, y = 0 }, fill = 0 }
    for cy = 0, 39 do g:set(30, cy, 254) end
    local s = g:scan({ x = 1, y = 2, yaw = 0 },
                     { count = 4, angle_min = 0, angle_increment = math.pi / 2, range_max = 5 })
    local m = json.decode(tycho.viz.scan(s, 1, "laser"))
    assert.are.equal(4, #m.ranges)
    assert.near(s:range(1), m.ranges[1], 0.001)
    assert.are.equal(0, m.ranges[2]) -- open space up to range_max
    assert.near(3 * math.pi / 2, m.end_angle, 1e-6)
  end)

  it("colour-maps an image and picks poses", function()
    local vals = {}
    for i = 1, 64 do vals[i] = 20 end
    vals[1], vals[64] = 70, 45
    local m = json.decode(tycho.viz.image(vals, 8, 8, 20, 70, 3, "camera_1"))
    assert.are.equal("rgb8", m.encoding)
    assert.are.equal(24, m.step)
    local px = unbase64(m.data)
    assert.are.equal(192, #px)
    assert.are.same({ 255, 255, 255 }, { px:byte(1, 3) })   -- hottest: white
    assert.are.same({ 0, 0, 0 }, { px:byte(4, 6) })         -- coldest: black
    local ok, err = pcall(tycho.viz.image, { 1, 2 }, 8, 8, 0, 1, 0, "c")
    assert.is_false(ok)
    assert.matches("bad argument #1 .*64 values expected", err)
    local pts = {}
    for i = 1, 101 do pts[i] = { x = i, y = 0 } end
    local p = json.decode(tycho.viz.poses(pts, 1, "map", 11))
    assert.are.equal(11, #p.poses)
    assert.are.equal(1, p.poses[1].position.x)
    assert.are.equal(101, p.poses[11].position.x)
    assert.are.equal(51, p.poses[6].position.x)
    ok, err = pcall(tycho.viz.poses, { { x = 1 } }, 1, "map")
    assert.is_false(ok)
    assert.matches("point 1: field 'y' must be a number", err, 1, true)
  end)
end)

describe("channels", function()
  local function fake_sink()
    local s = { got = {}, advertised = {} }
    function s.advertise(self, topic, schema, text) self.advertised[topic] = { schema, text } end
    function s.publish(self, topic, t, data) self.got[#self.got + 1] = { topic = topic, t = t, data = data } end
    function s.close() return true end
    return s
  end

  it("sends a topic no faster than its period, to every sink", function()
    local ch = Channels.new()
    assert.is_false(ch:due("/scan", 0)) -- nobody listens: nothing is encoded
    local a, b = ch:add_sink(fake_sink()), ch:add_sink(fake_sink())
    assert.are.equal("foxglove.LaserScan", a.advertised["/scan"][1])
    assert.matches('"title": "foxglove.LaserScan"', a.advertised["/scan"][2], 1, true)
    local sent = 0
    for i = 0, 100 do
      local t = i * 0.01
      if ch:due("/scan", t) then ch:publish("/scan", t, "{}") sent = sent + 1 end
    end
    assert.are.equal(6, sent) -- 5 Hz over t = 0 .. 1 s: 0, 0.2, 0.4, 0.6, 0.8, 1.0
    assert.are.equal(#a.got, #b.got)
    ch:publish("/state", 0.5, { state = "Explore" })
    assert.are.equal('{"state":"Explore"}', a.got[#a.got].data)
    assert.has_error(function() ch:publish("/nope", 0, "{}") end, "channels: unknown topic '/nope'")
    assert.has_error(function() ch:due("/nope", 0) end)
    assert.has_error(function() ch:add_sink({}) end)
    assert.is_true(ch:close())
  end)

  it("paces a live sink (the viewer) by the wall clock too, a recording by the mission's time only", function()
    local wall = 0
    local function run(sinks)
      local ch = Channels.new()
      ch.wall = function() return wall end
      for _, s in ipairs(sinks) do ch:add_sink(s) end
      -- 100 simulated seconds in 1 wall second (a run 100 times faster than real time)
      for i = 0, 2000 do
        local t = i * 0.05
        wall = t / 100
        if ch:due("/tf", t) then ch:publish("/tf", t, "{}") end
        if i % 500 == 0 then ch:publish("/state", t, "{}") end -- every transition goes out
      end
      return ch
    end
    local function count(s, topic)
      local n = 0
      for _, g in ipairs(s.got) do if g.topic == topic then n = n + 1 end end
      return n
    end
    local live = fake_sink()
    live.live = true
    run { live }
    -- 20 Hz of wall time (with the slack for jitter), not 20 Hz of simulated time
    local n = count(live, "/tf")
    assert.is_true(n >= 20 and n <= 1 / (0.05 * Channels.LIVE_SLACK) + 2, "live /tf messages: " .. n)
    assert.are.equal(5, count(live, "/state"))
    -- with a recording beside it the recording gets every period of the mission's time
    local viewer, recording = fake_sink(), fake_sink()
    viewer.live = true
    local ch = run { viewer, recording }
    assert.are.equal(2001, count(recording, "/tf"))
    assert.is_true(count(viewer, "/tf") <= 27, "viewer /tf messages: " .. count(viewer, "/tf"))
    assert.are.equal(2001, ch.counts["/tf"])
    -- at real-time pace a live sink misses nothing to jitter
    live = fake_sink()
    live.live = true
    ch = Channels.new()
    ch.wall = function() return wall end
    ch:add_sink(live)
    for i = 0, 200 do
      local t = i * 0.05
      wall = t + (i % 2 == 0 and 0.004 or -0.004) -- ticks 4 ms either side
      if ch:due("/tf", t) then ch:publish("/tf", t, "{}") end
    end
    assert.are.equal(201, count(live, "/tf"))
  end)

  it("records to MCAP through the sink, and refuses a bad --record", function()
    local path = tmpname(".mcap")
    local ch = Channels.new()
    local sink = assert(Channels.mcap_sink(path))
    ch:add_sink(sink)
    ch:publish("/imu", 1, { timestamp = Channels.stamp(1), pitch = 0.1, roll = 0 })
    ch:publish("/state", 1.5, { timestamp = Channels.stamp(1.5), machine = "m", state = "A" })
    assert.is_true(ch:close())
    local info = assert(tycho.mcap.read(path))
    assert.are.equal(2, info.messages)
    local n = 0
    for _ in pairs(info.channels) do n = n + 1 end
    assert.are.equal(#Channels.TOPICS, n)
    os.remove(path)
    local Session = require "session"
    assert.has_error(function() Session.new { opt = { record = "x.txt", socket = false } } end,
      "--record: the file name must end in .mcap")
  end)
end)

-- every message of a recording, {topic, t, data}, in file order
local function read_all(path)
  local got = {}
  assert(tycho.mcap.read(path, function(topic, t, data) got[#got + 1] = { topic, t, data } end))
  return got
end

describe("messages encoded on the recording's thread", function()
  local function grid_with(cells)
    local g = tycho.grid.new { width = 6, height = 4, resolution = 0.5, fill = 255 }
    for _, c in ipairs(cells) do g:set(c[1], c[2], c[3]) end
    return g
  end

  it("are the bytes tycho.viz makes at once, threaded or not, and a grid only when it changed", function()
    local scan = tycho.scan.new({ range_max = 4, angle_min = -1, angle_increment = 0.5 }, { 1, 2.5, 1 / 0, 3 })
    local tmpl = tycho.viz.template('{"timestamp":%T,"a":%.6g,"b":%.17g,"c":%d,"r":"%F"}')
    local g1 = grid_with { { 1, 1, 0 }, { 2, 3, 254 } }
    local g2 = grid_with { { 1, 1, 0 }, { 2, 3, 254 }, { 5, 0, 0 } }
    local frame = {}
    for i = 1, 64 do frame[i] = 20 + i * 0.5 end
    local trail = tycho.viz.pose_list()
    for i = 1, 50 do trail:add(i * 0.1, -i * 0.05, i * 0.01) end
    local points = { { x = 1, y = 2 }, { x = 1.5, y = 2.25, yaw = 0.5 } }
    local want = {
      tycho.viz.format(tmpl, 1.25, 0.1, 1 / 3, 7, scan),
      tycho.viz.grid(g1, 2, "map"),
      tycho.viz.grid(g2, 4, "map"),
      tycho.viz.scan(scan, 5, "laser"),
      tycho.viz.image(frame, 8, 8, 15, 70, 6, "camera_1"),
      tycho.viz.poses(trail, 7, "map", 10),
      tycho.viz.poses(points, 8, "map"),
    }
    local files = {}
    for _, threaded in ipairs { false, true } do
      local path = tmpname(".mcap")
      local w = assert(tycho.mcap.open(path, { threaded = threaded, chunk_size = 1024 }))
      local id = w:channel("/x", 0, "json")
      assert.is_true(w:format(id, 1.25, tmpl, 0.1, 1 / 3, 7, scan))
      assert.is_true(w:grid(id, 2, g1, "map"))
      assert.is_false(w:grid(id, 3, g1, "map")) -- the same cells: nothing written
      assert.is_true(w:grid(id, 4, g2, "map"))
      assert.is_true(w:scan(id, 5, scan, "laser"))
      assert.is_true(w:image(id, 6, frame, 8, 8, 15, 70, "camera_1"))
      assert.is_true(w:poses(id, 7, trail, "map", 10))
      assert.is_true(w:poses(id, 8, points, "map"))
      assert(w:close())
      local got = read_all(path)
      assert.are.equal(#want, #got)
      for i, m in ipairs(got) do assert.are.equal(want[i], m[3]) end
      local f = assert(io.open(path, "rb"))
      files[#files + 1] = f:read("a")
      f:close()
      os.remove(path)
    end
    assert.are.equal(files[1], files[2]) -- the thread changes nothing in the file
    -- the numbers come back exactly, null where they are not finite
    local v = json.decode(want[1])
    assert.are.equal(1 / 3, v.b)
    assert.are.equal(7, v.c)
    assert.are.same({ 1, 2.5, 1 / 0, 3 }, tycho.viz.unpack(v.r, "f32"))
    assert.matches('"c":null', tycho.viz.format(tmpl, 0, 0 / 0, 1, 1 / 0, {}), 1, true)
  end)

  it("write a grid again when one cell of its known box changed, wherever it is, and only then", function()
    -- the writer keeps a hash of the box, not its cells: one cell changed in
    -- any row or column, a cell changed and changed back, the box moved or
    -- grown; boxes smaller and larger than the 4 KB the writer gathers at a
    -- time (its rows split across two), with runs of 64 bytes, words and a tail
    for _, size in ipairs { { 80, 23 }, { 80, 90 } } do
      local path = tmpname(".mcap")
      local w = assert(tycho.mcap.open(path, { threaded = true }))
      local id = w:channel("/map", 0, "json")
      local g = tycho.grid.new { width = size[1], height = size[2], resolution = 0.1, fill = 255 }
      local x1, y1 = size[1] - 3, size[2] - 3 -- a box 75 cells wide
      for x = 3, x1 do for y = 2, y1 do g:set(x, y, (x * 7 + y * 3) % 100) end end
      local t, want = 0, {}
      local function write(expect)
        t = t + 1
        assert.are.equal(expect, w:grid(id, t, g, "map"), size[2] .. " rows, at " .. t)
        if expect then want[#want + 1] = tycho.viz.grid(g, t, "map") end
      end
      write(true)
      write(false)
      local cells = { { 3, 2 }, { x1, 2 }, { 3, y1 }, { x1, y1 }, { x1 - 1, y1 } } -- the corners, the tail
      for x = 3, x1, 4 do
        for y = 2, y1, size[2] > 50 and 5 or 6 do cells[#cells + 1] = { x, y } end
      end
      for _, c in ipairs(cells) do
        local x, y = c[1], c[2]
        local was = g:get(x, y)
        g:set(x, y, (was + 1) % 100)
        write(true)
        write(false)
        g:set(x, y, was) -- back as it was: changed again
        write(true)
      end
      g:set(0, 0, 50) -- the box grows to the corner
      write(true)
      g:set(0, 0, 255) -- and back: the same cells as the last but one, a smaller box
      write(true)
      write(false)
      assert(w:close())
      local got = read_all(path)
      assert.are.equal(#want, #got)
      for i, m in ipairs(got) do assert.are.equal(want[i], m[3], "message " .. i) end
      os.remove(path)
    end
  end)

  it("keep each template's text for its queued messages: collected templates, and more than it keeps", function()
    -- the writer keeps the texts of the templates it wrote with (the
    -- messages point at them); templates made and dropped as a script goes,
    -- 100 of them (more than a writer keeps), still come out as made
    local path = tmpname(".mcap")
    local w = assert(tycho.mcap.open(path, { threaded = true, chunk_size = 1024 }))
    local id = w:channel("/x", 0, "json")
    local want = {}
    for i = 1, 100 do
      local tmpl = tycho.viz.template('{"n":%d,"k":"' .. ("k"):rep(i) .. '","v":"%F"}')
      want[i] = tycho.viz.format(tmpl, i, i, { i, -i })
      assert.is_true(w:format(id, i, tmpl, i, { i, -i }))
      -- a new template at the address of a collected one is another template
      if i % 10 == 0 then collectgarbage() collectgarbage() end
    end
    local again = tycho.viz.template('{"n":%d,"k":"again","v":"%F"}')
    want[101] = tycho.viz.format(again, 101, 101, {})
    assert.is_true(w:format(id, 101, again, 101, {}))
    collectgarbage()
    assert(w:close())
    local got = read_all(path)
    assert.are.equal(#want, #got)
    for i, m in ipairs(got) do assert.are.equal(want[i], m[3]) end
    os.remove(path)
  end)

  it("refuse bad input with the argument's position and leave the recording whole", function()
    assert.has_error(function() tycho.viz.template("50%") end,
      "bad argument #1 to 'template' (template: bad placeholder at offset 2 (%T, %.Ng, %d, %F, %D or %% expected))")
    local tmpl = tycho.viz.template('{"a":%.6g,"p":"%D"}')
    assert.has_error(function() tycho.viz.format(tmpl, 0, "x", {}) end,
      "bad argument #3 to 'format' (number or nil expected, got string)")
    local path = tmpname(".mcap")
    local w = assert(tycho.mcap.open(path, { threaded = true }))
    local id = w:channel("/x", 0, "json")
    -- a check that raises half way through copying: the message is not written
    assert.has_error(function() w:format(id, 1, tmpl, 1, { 1, 2, "three" }) end,
      "bad argument #5 to 'format' (item 3 is not a number)")
    assert.has_error(function() w:image(id, 1, { 1, 2 }, 2, 2, 0, 1, "cam") end,
      "bad argument #3 to 'image' (4 values expected)")
    assert.has_error(function() w:poses(id, 1, { { x = 1 } }, "map") end)
    assert.has_error(function() w:grid(id, 1, {}, "map") end)
    assert.has_error(function() w:scan(id, -1, tycho.scan.new({ range_max = 1 }, { 1 }), "laser") end)
    assert.has_error(function() w:format(99, 1, tmpl, 1, {}) end)
    assert.has_error(function() w:join(id, 1, "{", { "a", 2 }, "}") end, "bad argument #4 to 'join' (item 2 is not a string)")
    assert.is_true(w:format(id, 2, tmpl, 2, { 0.5 }))
    assert(w:close())
    local got = read_all(path)
    assert.are.equal(1, #got)
    assert.are.equal(2, got[1][2])
    assert.are.same({ 0.5 }, tycho.viz.unpack(json.decode(got[1][3]).p, "f64"))
    os.remove(path)
  end)

  it("go through Channels:emit: a viewer gets the text, a recording encodes the same", function()
    local path = tmpname(".mcap")
    local ch = Channels.new()
    local texts = {}
    ch:add_sink { advertise = function() end, close = function() return true end,
                  publish = function(_, topic, t, data) texts[#texts + 1] = { topic, t, data } end }
    ch:add_sink(assert(Channels.mcap_sink(path)), { raw = true })
    local g = grid_with { { 1, 1, 0 } }
    assert.is_true(ch:emit("/map", 1, "grid", g, "map"))
    assert.is_false(ch:emit("/map", 2, "grid", g, "map")) -- unchanged: to nobody
    assert.is_true(ch:emit("/imu", 2, "format", tycho.viz.template('{"pitch":%.6g}'), 0.5))
    assert.is_true(ch:emit("/raw/odom", 2, "format", tycho.viz.template('{"t":%.17g}'), 2))
    assert.is_true(ch:emit("/scene", 2, "join", '{"a":[', { "1", "2", "3" }, '],"b":[', {}, "]}"))
    assert.has_error(function() ch:emit("/map", 3, "nope", g) end, "channels: unknown message kind 'nope'")
    assert.is_true(ch:close())
    local got = read_all(path)
    assert.are.equal(4, #got)
    assert.are.equal(3, #texts) -- the viewer has no raw samples
    for i = 1, 2 do assert.are.same(texts[i], got[i]) end
    assert.are.same({ "/raw/odom", 2, '{"t":2}' }, got[3])
    assert.are.same({ "/scene", 2, '{"a":[1,2,3],"b":[]}' }, got[4])
    assert.are.same(texts[3], got[4])
    os.remove(path)
  end)

  it("join any mix of strings and lists of them, small and large, byte for byte", function()
    local function piece(n, k)
      local c = string.char(65 + k % 26)
      return c:rep(n)
    end
    local path = tmpname(".mcap")
    local w = assert(tycho.mcap.open(path, { threaded = true }))
    local id = w:channel("/x", 0, "json")
    local want = {}
    for m = 1, 40 do
      -- sizes round the copy's thresholds: a few bytes, a cache line, 256, a staging buffer, more
      local args, parts = {}, {}
      for k = 1, 1 + m % 7 do
        local sizes = { 1, 63, 64, 65, 255, 256, 257, 4095, 4096, 4097, 10000 }
        local n = sizes[(m * 3 + k) % #sizes + 1]
        if (m + k) % 3 == 0 then
          local list = {}
          for i = 1, (m + k) % 5 + 1 do list[i] = piece((n + i) % 300 + 1, i + k) end
          args[#args + 1], parts[#parts + 1] = list, table.concat(list, ",")
        else
          args[#args + 1], parts[#parts + 1] = piece(n, k + m), piece(n, k + m)
        end
      end
      assert.is_true(w:join(id, m * 0.1, table.unpack(args)))
      want[m] = table.concat(parts)
    end
    assert(w:close())
    local got = {}
    assert(tycho.mcap.read(path, function(_, _, data) got[#got + 1] = data end))
    assert.are.equal(#want, #got)
    for m = 1, #want do assert.are.equal(want[m], got[m], "message " .. m) end
    os.remove(path)
  end)
end)

describe("text windows (tycho.viz.text_window)", function()
  it("keep the newest texts joined, sent whole by a recording and a viewer alike", function()
    local w = tycho.viz.text_window(3)
    assert.are.equal("", w:text())
    assert.are.equal(0, #w)
    local added = {}
    for i = 1, 8 do
      -- texts with commas of their own, and an empty one
      local text = i == 5 and "" or ('{"i":%d,"s":"%s"}'):format(i, ("x"):rep(i * 40))
      w:add(text)
      added[#added + 1] = text
      local from = math.max(1, #added - 2)
      assert.are.equal(table.concat(added, ",", from), w:text(), "after " .. i)
      assert.are.equal(#added - from + 1, #w)
    end
    -- as an argument of join: the recording copies its text, a viewer gets the same
    local path = tmpname(".mcap")
    local ch = Channels.new()
    local texts = {}
    ch:add_sink { advertise = function() end, close = function() return true end,
                  publish = function(_, _, _, data) texts[#texts + 1] = data end }
    ch:add_sink(assert(Channels.mcap_sink(path)))
    assert.is_true(ch:emit("/scene", 1, "join", "[", w, "]"))
    assert.is_true(ch:emit("/scene", 2, "join", "[", tycho.viz.text_window(5), "]"))
    assert.is_true(ch:close())
    local got = read_all(path)
    assert.are.same({ "/scene", 1, "[" .. table.concat(added, ",", 6) .. "]" }, got[1])
    assert.are.same({ "/scene", 2, "[]" }, got[2])
    assert.are.same({ got[1][3], got[2][3] }, texts)
    os.remove(path)
    -- bad arguments name themselves
    assert.has_error(function() tycho.viz.text_window(0) end,
      "bad argument #1 to 'text_window' (max: 1 to 1000000 texts expected)")
    assert.has_error(function() w:add({}) end)
    local wr = assert(tycho.mcap.open(tmpname(".mcap"), { threaded = true }))
    assert.has_error(function() wr:join(wr:channel("/x", 0, "json"), 1, "{", tycho.viz.pose_list(), "}") end,
      "bad argument #4 to 'join' (string, list of strings or text window expected)")
    wr:close()
  end)
end)

describe("emitters (Channels:emitter)", function()
  it("send what emit sends: straight to a lone recording, through emit beside a viewer", function()
    local IMU = tycho.viz.template('{"timestamp":%T,"pitch":%.6g}')
    -- a recording alone: its writer called straight away, counted
    local path = tmpname(".mcap")
    local ch = Channels.new()
    ch:add_sink(assert(Channels.mcap_sink(path)))
    local imu = ch:emitter("/imu", "format")
    for i = 1, 5 do assert.is_true(imu(i * 0.05, IMU, i / 10)) end
    assert.are.equal(0.25, ch.last["/imu"])
    assert.are.equal(5, ch:message_count())
    -- a viewer added later: the emitter sees it and goes through emit
    local texts = {}
    ch:add_sink { advertise = function() end, close = function() return true end,
                  publish = function(_, topic, t, data) texts[#texts + 1] = { topic, t, data } end }
    assert.is_true(imu(0.3, IMU, 0.6))
    assert.are.same({ "/imu", 0.3, '{"timestamp":{"sec":0,"nsec":300000000},"pitch":0.6}' }, texts[1])
    assert.are.equal(6, ch:message_count())
    assert.is_true(ch:close())
    -- closed: nobody to send to
    assert.is_false(imu(0.35, IMU, 0.7))
    local got = read_all(path)
    assert.are.equal(6, #got)
    assert.are.same({ texts[1][1], texts[1][3] }, { got[6][1], got[6][3] })
    assert.are.equal('{"timestamp":{"sec":0,"nsec":50000000},"pitch":0.1}', got[1][3])
    os.remove(path)
    assert.has_error(function() ch:emitter("/nope", "format") end, "channels: unknown topic '/nope'")
    assert.has_error(function() ch:emitter("/imu", "nope") end, "channels: unknown message kind 'nope'")
  end)
end)

describe("the robot's scene (robot_channels)", function()
  local RC = require "robot_channels"
  -- a feeder of a robot standing at the origin; the messages it sends on
  -- topic, and tick(): the time 1.1 s on, and a tick
  local function feeder_on(topic, o)
    local ch, got, t = Channels.new(), {}, 0
    ch:add_sink { advertise = function() end, close = function() return true end,
                  publish = function(_, tp, _, data) if tp == topic then got[#got + 1] = data end end }
    local robot = { cameras = {} }
    function robot.pose() return 0, 0, 0 end
    o.robot, o.now = robot, function() return t end
    local feeder = RC.new(ch, o)
    return got, function() t = t + 1.1 feeder:tick() end
  end
  it("shows the newest 200 detections, however many come between two scenes", function()
    local bb = { detections = {}, targets = {}, launches = {} }
    local scenes, tick = feeder_on("/scene", { bb = bb })
    local n = 0
    local function spheres()
      local scene = json.decode(scenes[#scenes])
      for _, e in ipairs(scene.entities) do
        if e.id == "detections" then return e.spheres end
      end
    end
    for _, batch in ipairs { 1, 150, 49, 1, 300, 3, 0, 199, 201 } do
      for _ = 1, batch do
        n = n + 1
        bb.detections[n] = { x = n / 100, y = -n / 1000 }
      end
      tick()
      local s = spheres()
      local want = math.min(n, RC.MAX_DETECTIONS)
      assert.are.equal(want, #s)
      for i = 1, want do
        local d = bb.detections[n - want + i]
        assert.are.equal(d.x, s[i].pose.position.x)
        assert.are.equal(d.y, s[i].pose.position.y)
      end
    end
    -- a new list (a reload): shown from its start
    bb.detections = { { x = 5, y = 6 } }
    tick()
    assert.are.same({ 5, 6 }, { spheres()[1].pose.position.x, spheres()[1].pose.position.y })
    assert.are.equal(1, #spheres())
  end)

  it("shows targets where they are now and green once engaged, and every launch", function()
    local bb = { detections = { { x = 1, y = 1 } }, targets = { { x = 1, y = 2 }, { x = 3, y = 4 } }, launches = {} }
    local world = { heat_sources = { { x = 5, y = 5 } }, ramps = {} }
    local scenes, tick = feeder_on("/scene", { bb = bb, world = world })
    local function entity(id)
      for _, e in ipairs(json.decode(scenes[#scenes]).entities) do if e.id == id then return e end end
    end
    tick()
    local c = entity("targets").cylinders
    assert.are.same({ 1, 2, 3, 4 }, { c[1].pose.position.x, c[1].pose.position.y, c[2].pose.position.x, c[2].pose.position.y })
    assert.are.equal(1, #entity("sources").cubes)
    -- a target moves (the same list, the same count): shown where it is now
    bb.targets[2].x = 3.5
    bb.detections[2] = { x = 2, y = 2 } -- (the scene goes out when a count changed)
    tick()
    assert.are.equal(3.5, entity("targets").cylinders[2].pose.position.x)
    -- engaged: green; a launch: an arrow
    bb.targets[1].engaged = true
    bb.launches[1] = { x = 0.5, y = 0.5, yaw = 0, engaged_source = true }
    tick()
    c = entity("targets").cylinders
    assert.are.same({ 0, 0.8, 0 }, { c[1].color.r, c[1].color.g, c[1].color.b })
    assert.are.same({ 1, 0, 1 }, { c[2].color.r, c[2].color.g, c[2].color.b })
    assert.are.equal(1, #entity("launches").arrows)
    bb.launches[2] = { x = 1.5, y = 0.5, yaw = 0 }
    tick()
    assert.are.equal(2, #entity("launches").arrows)
    assert.are.same({ 0, 0, 0 }, { entity("launches").arrows[2].color.r, entity("launches").arrows[2].color.g,
                                   entity("launches").arrows[2].color.b })
    -- nothing changed: no scene
    local n = #scenes
    tick()
    assert.are.equal(n, #scenes)
  end)

  it("draws the driven trail within RC.TRAIL_TOLERANCE of every point, the newest last", function()
    local bb = { detections = {}, targets = {}, launches = {}, trail = {} }
    local trails, tick = feeder_on("/trail", { bb = bb })
    local function drawn()
      local out = {}
      for i, p in ipairs(json.decode(trails[#trails]).poses) do out[i] = { p.position.x, p.position.y } end
      return out
    end
    local function off_line(px, py, line)
      local best = math.huge
      for k = 1, #line - 1 do
        local a, b = line[k], line[k + 1]
        local dx, dy = b[1] - a[1], b[2] - a[2]
        local u = math.max(0, math.min(1, ((px - a[1]) * dx + (py - a[2]) * dy) / (dx * dx + dy * dy)))
        best = math.min(best, math.sqrt((a[1] + u * dx - px) ^ 2 + (a[2] + u * dy - py) ^ 2))
      end
      return best
    end
    -- a square spiral driven in 5 cm steps with a little weave, sent a second at a time
    local x, y, heading, n = 0, 0, 0, 0
    for leg = 1, 12 do
      for _ = 1, 10 + 4 * leg do
        x, y = x + 0.05 * math.cos(heading), y + 0.05 * math.sin(heading)
        n = n + 1
        bb.trail[n] = { x = x + 0.002 * math.sin(n), y = y }
      end
      heading = heading + math.pi / 2
      tick()
      local line = drawn()
      assert.is_true(math.abs(bb.trail[n].x - line[#line][1]) <= 0.0005)
      assert.is_true(math.abs(bb.trail[n].y - line[#line][2]) <= 0.0005)
    end
    local line = drawn()
    assert.is_true(#line < n / 5, #line .. " of " .. n .. " points drawn")
    for i = 1, n do
      -- the message writes millimetres (%.3f)
      assert.is_true(off_line(bb.trail[i].x, bb.trail[i].y, line) <= RC.TRAIL_TOLERANCE + 0.001, "point " .. i)
    end
    -- a new trail (a reload): drawn from its start
    bb.trail = { { x = 5, y = 6 } }
    tick()
    assert.are.same({ { 5, 6 } }, drawn())
    local ok, err = pcall(tycho.viz.pose_list, -1)
    assert.is_false(ok)
    assert.matches("bad argument #1 .*tolerance", err)
  end)
end)

describe("--viz", function()
  local VizServer = require "viz_server"
  local Session = require "session"

  it("takes an optional [HOST:]PORT", function()
    local opt = {}
    assert.are.equal(2, Session.take_arg({ "--viz", "--quiet" }, 1, opt))
    assert.is_true(opt.viz)
    assert.are.equal(3, Session.take_arg({ "--viz", "0.0.0.0:9000" }, 1, opt))
    assert.are.equal("0.0.0.0:9000", opt.viz)
    assert.are.equal(3, Session.take_arg({ "--viz", "9001" }, 1, opt))
    assert.are.same({ "127.0.0.1", 8765 }, { VizServer.parse_address(true) })
    assert.are.same({ "127.0.0.1", 9001 }, { VizServer.parse_address("9001") })
    assert.are.same({ "localhost", 7 }, { VizServer.parse_address("localhost:7") })
    local h, err = VizServer.parse_address("host:99999")
    assert.is_nil(h)
    assert.matches("expected %[HOST:%]PORT", err)
  end)

  it("serves on the session's loop and says where", function()
    local IoLoop = require "io_loop"
    local loop = IoLoop.new {}
    local srv = VizServer.new { loop = loop, host = "127.0.0.1", port = 0 }
    assert.is_true(srv.port > 0)
    srv:advertise("/imu", "tycho.Imu", Channels.schema("tycho.Imu"))
    srv:publish("/imu", 1, "{}") -- nobody subscribed: nothing to do
    assert.are.equal(0, srv:viewer_count())
    assert.is_true(srv:close())
    assert.has_error(function() VizServer.new { loop = loop, host = "no.such.host.invalid", port = 0 } end)
  end)
end)
