local tycho = require "tycho"

local DEG = math.pi / 180

-- A 360-beam scan (1 degree apart, from angle_min) from pose against a wall
-- line x_r = d perpendicular to the robot-frame bearing b, +-half wide.
local function wall_scan(b, d, half, angle_min)
  local ranges = {}
  for i = 1, 360 do
    local a = angle_min + (i - 1) * DEG
    local rel = math.atan(math.sin(a - b), math.cos(a - b))
    local r = math.huge
    if math.cos(rel) > 1e-9 then
      local t = d / math.cos(rel)
      if math.abs(t * math.sin(rel)) <= half then r = t end
    end
    ranges[i] = r
  end
  return { angle_min = angle_min, angle_increment = DEG, ranges = ranges }
end

local function frame_with(hot)
  local f = {}
  for i = 1, 64 do f[i] = 22 end
  for _, i in ipairs(hot) do f[i] = 40 end
  return f
end

describe("tycho.fusion.locate", function()
  it("puts the heat on the wall the camera looks at", function()
    local pose = { x = 1, y = 2, yaw = 0.5 }
    -- left camera at +30 deg; a 0.6 m wide panel 1.2 m away on its axis
    local scan = wall_scan(30 * DEG, 1.2, 0.3, -math.pi)
    local frame = frame_with { 28, 29, 36, 37 } -- rows 4-5, columns 4-5 (centre)
    local x, y, info = tycho.fusion.locate(pose, scan, frame, { yaw = 30 * DEG })
    local a = pose.yaw + 30 * DEG
    assert.is_number(x)
    assert.are.near(pose.x + 1.2 * math.cos(a), x, 0.01)
    assert.are.near(pose.y + 1.2 * math.sin(a), y, 0.01)
    assert.are.equal("found", info.outcome)
    assert.are.equal(4, info.hot_pixels)
    assert.are.equal(4, info.col_lo) -- 1-based columns
    assert.are.equal(5, info.col_hi)
    assert.are.equal(15, info.beams_in_view)
    assert.are.near(30 * DEG, info.bearing, 1e-9)
  end)

  it("accepts positional poses and nested 8x8 frames", function()
    local scan = wall_scan(0, 1.0, 2, 0)
    local rows = {}
    for r = 1, 8 do
      rows[r] = {}
      for c = 1, 8 do rows[r][c] = (r == 3 and c == 1) and 45 or 21 end
    end
    -- column 1 is the leftmost (most counter-clockwise): bearings 22.5..30 deg
    local x, y, info = tycho.fusion.locate({ 0, 0, 0 }, scan, rows)
    assert.are.near(1.0, x, 0.1)
    assert.is_true(y > 0.4)
    assert.is_true(info.bearing > 22.5 * DEG and info.bearing < 30.1 * DEG)
    -- mirrored sensor: the same column is the clockwise edge
    local _, y2 = tycho.fusion.locate({ 0, 0, 0 }, scan, rows, { mirrored = true })
    assert.are.near(-y, y2, 1e-9)
  end)

  it("works across the +-pi seam and with a scan given as a plain array", function()
    local s = wall_scan(math.pi, 0.8, 0.3, -math.pi)
    -- a bare array of ranges: angles default to 0, 2*pi/#ranges apart
    local plain = wall_scan(math.pi, 0.8, 0.3, 0).ranges
    local pose = { x = 0, y = 0, yaw = 0 }
    local cam = { yaw = math.pi, narrow = false }
    local x1, y1 = tycho.fusion.locate(pose, s, frame_with { 1 }, cam)
    local x2, y2 = tycho.fusion.locate(pose, plain, frame_with { 1 }, cam)
    assert.is_true(x1 < -0.8 and x1 > -0.9)
    assert.are.near(0, y1, 1e-6)
    assert.are.near(x1, x2, 1e-6)
    assert.are.near(y1, y2, 1e-6)
  end)

  it("picks the return at the heat's bearing with a window (a side wall seen at a grazing angle)", function()
    -- heading 65 deg; a side wall x = 0.23 and the corridor's end y = 1.55
    local pose = { x = 0, y = 0, yaw = 65 * DEG }
    local ranges = {}
    for i = 1, 360 do
      local a = pose.yaw + (i - 1) * DEG
      local c, s = math.cos(a), math.sin(a)
      local r = math.huge
      if c > 1e-9 and 0.23 / c * s <= 1.55 then r = 0.23 / c
      elseif s > 1e-9 and 1.55 / s * c <= 0.23 and 1.55 / s * c >= -0.5 then r = 1.55 / s end
      ranges[i] = r
    end
    local scan = { angle_min = 0, angle_increment = DEG, ranges = ranges }
    local f = {}
    for i = 1, 64 do f[i] = 22 end
    for r = 2, 5 do f[r * 8 + 7] = 42 end -- column 7 (1-based), rows 3..6
    for r = 3, 4 do f[r * 8 + 6], f[r * 8 + 8] = 31, 31.5 end
    local cam = { yaw = 30 * DEG }
    local _, y0, info0 = tycho.fusion.locate(pose, scan, f, cam)
    assert.are.near(1.55, y0, 0.02) -- the whole columns: the end wall wins
    assert.is_false(info0.windowed)
    cam.window = 3.75 * DEG
    local x, y, info = tycho.fusion.locate(pose, scan, f, cam)
    assert.is_true(info.windowed)
    assert.are.near(0.23, x, 0.01)
    assert.is_true(y > 0.6 and y < 1.1)
    assert.are.near((30 - 18.81) * DEG, info.heat_bearing, 0.001)
    assert.error_matches(function() tycho.fusion.locate(pose, scan, f, { window = -1 }) end, "window")
  end)

  it("says why it found nothing", function()
    local scan = wall_scan(0, 1.0, 2, -math.pi)
    local x, why = tycho.fusion.locate({ x = 0, y = 0, yaw = 0 }, scan, frame_with {})
    assert.is_nil(x)
    assert.are.equal("no hot pixel", why)
    x, why = tycho.fusion.locate({ x = 0, y = 0, yaw = 0 }, scan, frame_with { 5 }, { max_range = 0.5 })
    assert.is_nil(x)
    assert.are.equal("no return within max range", why)
    local narrow = { angle_min = -0.1, angle_increment = 0.1, ranges = { 1, 1, 1 } }
    x, why = tycho.fusion.locate({ x = 0, y = 0, yaw = 0 }, narrow, frame_with { 5 }, { yaw = math.pi / 2 })
    assert.is_nil(x)
    assert.are.equal("no beams in fov", why)
  end)

  it("names bad arguments", function()
    local scan = wall_scan(0, 1.0, 2, 0)
    local f = frame_with { 1 }
    assert.error_matches(function() tycho.fusion.locate(nil, scan, f) end, "#1")
    assert.error_matches(function() tycho.fusion.locate({ x = 0, y = 0 }, scan, f) end, "yaw")
    assert.error_matches(function() tycho.fusion.locate({ 0, 0, 0 }, "x", f) end, "#2")
    assert.error_matches(function() tycho.fusion.locate({ 0, 0, 0 }, { ranges = { 1, "a" } }, f) end,
      "range 2")
    assert.error_matches(function() tycho.fusion.locate({ 0, 0, 0 }, scan, { 1, 2, 3 }) end,
      "#3.*64 temperatures")
    assert.error_matches(function() tycho.fusion.locate({ 0, 0, 0 }, scan, f, { bin_width = 0 }) end,
      "#4.*bin_width")
    assert.error_matches(function() tycho.fusion.locate({ 0, 0, 0 }, scan, f, { fov = "wide" }) end,
      "bad field 'fov' in argument #4")
    assert.error_matches(function() tycho.fusion.locate({ 0, 0, 0 }, scan, f, { treshold = 3 }) end,
      "unknown field 'treshold'")
  end)
end)

describe("tycho.kmeans", function()
  local function blobs(centres, per, sigma, seed)
    local pts, s = {}, seed
    local function rnd() -- small LCG, deterministic across Lua versions
      s = (s * 1103515245 + 12345) % 2147483648
      return s / 2147483648
    end
    for _, c in ipairs(centres) do
      for _ = 1, per do
        pts[#pts + 1] = { c[1] + sigma * (rnd() - 0.5), c[2] + sigma * (rnd() - 0.5) }
      end
    end
    return pts
  end

  it("recovers well separated blobs with a fixed k", function()
    local centres = { { 0, 0 }, { 4, 0 }, { 2, 3 } }
    local pts = blobs(centres, 30, 0.4, 7)
    local cents, assign, info = tycho.kmeans(pts, 3, { seed = 42 })
    assert.are.equal(3, #cents)
    assert.are.equal(90, #assign)
    assert.is_true(info.converged)
    for _, c in ipairs(centres) do
      local best = math.huge
      for _, k in ipairs(cents) do best = math.min(best, math.sqrt((k.x - c[1]) ^ 2 + (k.y - c[2]) ^ 2)) end
      assert.is_true(best < 0.15)
    end
    for _, k in ipairs(cents) do assert.are.equal(30, k.count) end
    -- members of a blob share a cluster (assignments are 1-based)
    for b = 0, 2 do
      for i = 1, 30 do assert.are.equal(assign[b * 30 + 1], assign[b * 30 + i]) end
    end
    -- deterministic for a seed
    local again = tycho.kmeans(pts, 3, { seed = 42 })
    for i = 1, 3 do
      assert.are.equal(cents[i].x, again[i].x)
      assert.are.equal(cents[i].y, again[i].y)
    end
  end)

  it("chooses k from a cluster radius", function()
    local pts = blobs({ { 0, 0 }, { 3, 0 }, { 0, 3 }, { 3, 3 } }, 20, 0.5, 3)
    local cents, _, info = tycho.kmeans(pts, { k_max = 8, radius = 0.6 })
    assert.are.equal(4, #cents)
    assert.are.equal(4, info.k)
    assert.is_true(info.satisfied)
    for _, c in ipairs(cents) do assert.is_true(c.radius <= 0.6) end
    local one = tycho.kmeans({ { 1, 1 }, { 1.1, 1 }, { x = 1, y = 1.1 } }, { radius = 0.5 })
    assert.are.equal(1, #one)
  end)

  it("handles degenerate input", function()
    local c = tycho.kmeans({ { 1, 2 }, { 1, 2 }, { 1, 2 } }, 3)
    assert.are.equal(1, #c)
    assert.are.same({ x = 1, y = 2, count = 3, radius = 0 }, c[1])
    c = tycho.kmeans({ { 0, 0 }, { 5, 5 } }, 4)
    assert.are.equal(2, #c)
    assert.error_matches(function() tycho.kmeans({ { 0, 0 } }, 0) end, "#2")
    assert.error_matches(function() tycho.kmeans({}, 2) end, "#1.*no points")
    assert.error_matches(function() tycho.kmeans({ { 0, 0 }, { 1 } }, 1) end, "#1.*point 2")
    assert.error_matches(function() tycho.kmeans({ { 0, 0 } }, { k_max = 3 }) end, "radius")
    assert.error_matches(function() tycho.kmeans({ { 0, 0 } }, 1, { sead = 1 }) end, "unknown field 'sead'")
  end)
end)

describe("tycho.pitch_detector", function()
  it("ignores flat noise and a spike, flags a ramp, resets", function()
    local d = tycho.pitch_detector { window = 0.5 }
    local t = 0
    local s = 1
    local function noise()
      s = (s * 1103515245 + 12345) % 2147483648
      return (s / 2147483648 - 0.5) * 0.01
    end
    for _ = 1, 1000 do
      assert.is_false(d:push(t, noise()))
      t = t + 0.02
    end
    assert.is_false(d:push(t, 0.9)) -- one bad sample
    t = t + 0.02
    for _ = 1, 50 do
      assert.is_false((d:push(t, noise())))
      t = t + 0.02
    end
    local onset, hit = t, nil
    for _ = 1, 100 do
      if d:push(t, 0.2 + noise()) and not hit then hit = t end
      t = t + 0.02
    end
    assert.is_not_nil(hit)
    assert.is_true(hit - onset <= 0.5)
    assert.is_true(d.anomaly)
    local st = d:state()
    assert.is_true(st.absolute and st.relative)
    assert.is_true(st.long_avg < 0.01)
    assert.matches("ANOMALY", tostring(d))
    d:reset()
    assert.is_false(d.anomaly)
    assert.are.equal(0, d.samples)
  end)

  it("names bad arguments", function()
    local d = tycho.pitch_detector()
    d:push(1.0, 0)
    -- method calls count arguments after self
    assert.error_matches(function() d:push(0.5, 0) end, "#1.*backwards")
    assert.error_matches(function() d:push(2, 0 / 0) end, "#2.*pitch")
    assert.error_matches(function() tycho.pitch_detector { window = -1 } end, "#1.*window")
    assert.error_matches(function() tycho.pitch_detector { windw = 1 } end, "unknown field 'windw'")
  end)
end)

describe("tycho.diffdrive", function()
  it("integrates arcs and converts wheel speeds", function()
    local x, y, yaw = tycho.diffdrive.step({ x = 0, y = 0, yaw = 0 }, 1.0, 0.5, math.pi)
    assert.are.near(2, x, 1e-12)
    assert.are.near(2, y, 1e-12)
    assert.are.near(math.pi / 2, yaw, 1e-12)
    local wl, wr = tycho.diffdrive.to_wheels(0.1, 0.5)
    local v, w = tycho.diffdrive.from_wheels(wl, wr)
    assert.are.near(0.1, v, 1e-12)
    assert.are.near(0.5, w, 1e-12)
    v, w = tycho.diffdrive.limit(0.44, 2.0)
    assert.are.near(0.22, v, 1e-12)
    assert.are.near(1.0, w, 1e-12)
    assert.are.equal(0.22, tycho.diffdrive.defaults().max_v)
  end)
end)

describe("tycho.follower", function()
  local function drive(f, pose, dt, steps, clearance)
    local maxv, maxw, status = 0, 0, nil
    for _ = 1, steps do
      local v, w, st = f:step(pose, dt, clearance)
      status = st
      if st == "arrived" then break end
      maxv, maxw = math.max(maxv, math.abs(v)), math.max(maxw, math.abs(w))
      pose.x, pose.y, pose.yaw = tycho.diffdrive.step(pose, v, w, dt)
    end
    return status, maxv, maxw
  end

  it("follows an L-shaped path to the goal within limits", function()
    local f = tycho.follower { xy_tolerance = 0.1 }
    f:set_path({ { 0, 0 }, { 1.5, 0 }, { 1.5, 1.5 } }, math.pi / 2)
    assert.are.equal(3, #f)
    assert.are.equal("following", f.status)
    local pose = { x = 0, y = 0.05, yaw = 0 }
    local status, maxv, maxw = drive(f, pose, 0.05, 2000)
    assert.are.equal("arrived", status)
    assert.is_true(math.sqrt((pose.x - 1.5) ^ 2 + (pose.y - 1.5) ^ 2) <= 0.1)
    assert.is_true(math.abs(pose.yaw - math.pi / 2) <= 0.25)
    assert.is_true(maxv <= 0.22 and maxw <= 2.84)
    assert.matches("arrived", tostring(f))
    local v, w, st = f:step(pose, 0.05)
    assert.are.same({ 0, 0, "arrived" }, { v, w, st })
  end)

  it("turns in place towards a path behind it and reports progress", function()
    local f = tycho.follower()
    f:set_path { { 0, 0 }, { -1, 0 }, { -2, 0 } }
    local v, w, st, nearest, remaining = f:step({ x = 0, y = 0, yaw = 0.1 }, 0.05)
    assert.are.equal("rotating", st)
    assert.are.equal(0, v)
    assert.is_true(w > 0)
    assert.are.equal(1, nearest)
    assert.are.near(2, remaining, 1e-9)
    local p = f:progress()
    assert.are.equal("rotating", p.status)
  end)

  it("finds a wall across the path ahead", function()
    local g = tycho.grid.new { width = 100, height = 100, resolution = 0.05, fill = 0 }
    for cy = 0, 99 do g:set(40, cy, 254) end -- x in [2.0, 2.05)
    local path = { { 0.5, 0.52 }, { 4.0, 0.52 } }
    local blocked, dist, x, _, cx = g:path_blocked(path)
    assert.is_true(blocked)
    assert.are.near(1.5, dist, 1e-9)
    assert.are.near(2.0, x, 1e-9)
    assert.are.equal(40, cx)
    assert.is_false(g:path_blocked(path, { lookahead = 1.0 }))
    local f = tycho.follower()
    f:set_path(path)
    assert.is_false(f:blocked(g, { lookahead = 1.0 }))
    assert.is_true(f:blocked(g)) -- default lookahead: 2 x max_lookahead = 1.8 m
    assert.error_matches(function() g:path_blocked(path, { threshold = 300 }) end, "#2.*threshold")
  end)

  it("validates parameters and arguments", function()
    assert.error_matches(function() tycho.follower { max_vel = 1 } end, "unknown field 'max_vel' in argument #1")
    assert.error_matches(function() tycho.follower { desired_v = 1 } end, "#1.*desired_v")
    assert.error_matches(function() tycho.follower { rotate_to_heading = 1 } end,
      "bad field 'rotate_to_heading'")
    local f = tycho.follower()
    assert.error_matches(function() f:set_path { { 0, 0 }, { "a", 1 } } end, "#1.*point 2")
    assert.error_matches(function() f:step({ x = 0, y = 0, yaw = 0 }, 0) end, "#2.*dt")
    assert.error_matches(function() f:step({ x = 0, y = 0 }, 0.1) end, "#1.*yaw")
    local v, w, st = f:step({ x = 0, y = 0, yaw = 0 }, 0.1)
    assert.are.same({ 0, 0, "idle" }, { v, w, st })
    f:set_params { desired_v = 0.1 }
    assert.are.equal(0.1, f:params().desired_v)
    assert.are.equal(0.22, f:params().max_v)
  end)
end)
