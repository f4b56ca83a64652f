-- Targets from thermal detections (behaviors/targets.lua): the fused point
-- moved onto the wall face that was seen, and a source on each face of one
-- thin wall kept as two targets on the right faces.
local tycho = require "tycho"
local Targets = require "targets"

-- 4 m x 2 m, 0.05 m cells, free; a 0.2 m thick wall along y = 0.9 .. 1.1
-- from x = 0.5 to 3.5 (cells 18..21 in y).
local function thin_wall_map()
  local g = tycho.grid.new { width = 80, height = 40, resolution = 0.05, fill = 0 }
  for cx = 10, 69 do
    for cy = 18, 21 do g:set(cx, cy, 254) end
  end
  return g
end

local P = { cluster_k = 0, cluster_k_max = 8, cluster_radius = 0.35, target_merge_distance = 0.5,
            confirm_min_detections = 3 }

describe("targets.on_face", function()
  it("moves a point fused inside the wall onto the face the LiDAR saw", function()
    local map = thin_wall_map()
    -- seen from below: the point 0.1 m inside the wall comes to the lower face (y = 0.9)
    local x, y = Targets.on_face(map, { x = 1.0, y = 0.2 }, 1.5, 1.0, 0.25)
    assert.is_near(0.9, y, 0.051)
    assert.is_true(x > 1.3 and x < 1.5)
    -- seen from above: onto the upper face (y = 1.1)
    x, y = Targets.on_face(map, { x = 2.0, y = 1.8 }, 1.5, 1.0, 0.25)
    assert.is_near(1.1, y, 0.051)
    assert.is_true(x > 1.5 and x < 1.7)
  end)

  it("leaves the point when the first wall on the line is far in front of it (an obstacle, not its face)", function()
    local map = thin_wall_map()
    -- from below the wall to a point beyond it: the wall is 0.9 m nearer
    local x, y = Targets.on_face(map, { x = 1.5, y = 0.1 }, 1.5, 1.9, 0.25)
    assert.are.equal(1.5, x)
    assert.are.equal(1.9, y)
  end)

  it("leaves the point when no face is mapped near it, or snapping is off", function()
    local map = tycho.grid.new { width = 80, height = 40, resolution = 0.05, fill = 0 }
    local x, y = Targets.on_face(map, { x = 1.0, y = 0.2 }, 1.5, 1.0, 0.25)
    assert.are.same({ 1.5, 1.0 }, { x, y })
    x, y = Targets.on_face(thin_wall_map(), { x = 1.0, y = 0.2 }, 1.5, 1.0, 0)
    assert.are.same({ 1.5, 1.0 }, { x, y })
  end)
end)

describe("targets.build", function()
  -- detections of a source on each face of the thin wall at x = 2, each
  -- seen from its own corridor, snapped as the mission does
  local function pair_detections(map)
    local dets = {}
    for i = 0, 29 do
      local rx = 1.2 + i * 0.05
      for _, side in ipairs { { ry = 0.3, fy = 0.95 }, { ry = 1.7, fy = 1.05 } } do
        local x, y = Targets.on_face(map, { x = rx, y = side.ry }, 2.0 + 0.02 * ((i % 5) - 2), side.fy, 0.25)
        dets[#dets + 1] = { x = x, y = y, rx = rx, ry = side.ry }
      end
    end
    return dets
  end

  it("keeps a source on each face of a thin wall as two targets, each on its own face", function()
    local map = thin_wall_map()
    local ts = Targets.build(pair_detections(map), P, map)
    assert.are.equal(2, #ts)
    table.sort(ts, function(a, b) return a.y < b.y end)
    assert.is_near(0.9, ts[1].y, 0.06)
    assert.is_near(1.1, ts[2].y, 0.06)
    assert.is_true(ts[1].uy < -0.5) -- seen from below
    assert.is_true(ts[2].uy > 0.5) -- seen from above
    for _, t in ipairs(ts) do assert.is_near(2.0, t.x, 0.1) end
  end)

  it("keeps one source seen from two sides of an open room as one target", function()
    local map = tycho.grid.new { width = 80, height = 40, resolution = 0.05, fill = 0 }
    for cx = 39, 41 do map:set(cx, 19, 254) end -- a post at (2.0, 0.97)
    local dets = {}
    for i = 0, 19 do
      dets[#dets + 1] = { x = 2.0, y = 0.95 + 0.005 * (i % 3), rx = 1.0 + 0.02 * i, ry = 0.3 }
      dets[#dets + 1] = { x = 2.0, y = 0.95 + 0.005 * (i % 3), rx = 3.0 - 0.02 * i, ry = 0.3 }
    end
    local ts = Targets.build(dets, P, map)
    assert.are.equal(1, #ts)
  end)
end)

describe("targets.same_source", function()
  it("takes the same spot seen from the same side as one source, even inside a wall's cells", function()
    local map = thin_wall_map()
    -- a cluster centred in the wall, seen along it from the left: both test
    -- points fall in wall cells, and the ray between them is blocked at once
    local a = { x = 2.0, y = 1.0, ux = -0.98, uy = 0.2 }
    local b = { x = 2.03, y = 1.02, ux = -0.97, uy = 0.24 }
    assert.is_true(Targets.wall_between(map, a, b))
    assert.is_true(Targets.same_source(map, a, b, 0.5))
    -- the two faces of the thin wall, 0.2 m apart: two sources
    local below = { x = 2.0, y = 0.9, ux = 0, uy = -1 }
    local above = { x = 2.0, y = 1.1, ux = 0, uy = 1 }
    assert.is_false(Targets.same_source(map, below, above, 0.5))
    -- nearer than SAME_SPOT but seen from opposite sides: still two
    local above_near = { x = 2.0, y = 1.0, ux = 0, uy = 1 }
    local below_near = { x = 2.0, y = 0.95, ux = 0, uy = -1 }
    assert.is_false(Targets.same_source(map, below_near, above_near, 0.5))
    -- beyond the merge distance: two, whatever the sides
    assert.is_false(Targets.same_source(map, a, { x = 2.6, y = 1.0, ux = -1, uy = 0 }, 0.5))
  end)
end)

describe("targets.consume", function()
  it("uses up what was seen of the source fired at, from its side of a thin wall only", function()
    local map = thin_wall_map()
    local nx, ny = Targets.wall_normal(map, 2.0, 0.9)
    assert.is_near(0, nx, 1e-6)
    assert.is_near(1, math.abs(ny), 1e-6)
    -- a source on each face at x = 2, seen at a grazing angle from the
    -- wall's east end (x 3.5 ..), smeared along the wall
    local dets = {}
    for i = 0, 19 do
      dets[#dets + 1] = { x = 2.0 + 0.02 * i, y = 0.9, rx = 3.8, ry = 0.6 + 0.01 * i }  -- below
      dets[#dets + 1] = { x = 2.0 + 0.02 * i, y = 1.1, rx = 3.8, ry = 1.4 - 0.01 * i }  -- above
    end
    -- fired at the lower one from beyond the wall's end, below its line
    local n = Targets.consume(map, dets, { { x = 2.1, y = 0.9 } }, 0.5, 3.7, 0.7)
    assert.are.equal(20, n)
    for _, d in ipairs(dets) do assert.are.equal(d.ry < 1.0, d.consumed == true) end
    local left = Targets.unconsumed(dets)
    assert.are.equal(20, #left)
    -- what is left makes the other source's target, on the upper face
    local ts = Targets.build(left, P, map)
    assert.are.equal(1, #ts)
    assert.is_near(1.1, ts[1].y, 0.01)
  end)

  it("does not use up detections of a source out of reach or out of sight of the launch", function()
    local map = thin_wall_map()
    local dets = { { x = 1.0, y = 0.9, rx = 1.0, ry = 0.3 }, { x = 2.0, y = 0.9, rx = 2.0, ry = 0.3 } }
    -- fired at (2, 0.9) from below: the one 1 m away is another source
    assert.are.equal(1, Targets.consume(map, dets, { { x = 2.0, y = 0.9 } }, 0.5, 2.0, 0.4))
    assert.is_nil(dets[1].consumed)
    assert.is_true(dets[2].consumed)
  end)
end)
