-- The point map (core/pointmap.c, tycho.pointmap): the mean of the hits in
-- a wall's cell lies on the wall, finer than the cell; refining a pose a
-- few centimetres off against those means lands within millimetres of the
-- truth where the matcher on cells cannot; bad input is refused with the
-- argument named.
local tycho = require "tycho"

-- a 6 x 4 m room with a box, as cells of a truth grid whose walls sit on
-- boundaries the robot's point map does not share (origin off by a fraction)
local function room()
  local g = tycho.grid.new { width = 120, height = 80, resolution = 0.05, fill = 0,
                             origin = { x = -0.013, y = -0.021 } }
  for x = 0, 119 do g:set(x, 0, 254); g:set(x, 79, 254) end
  for y = 0, 79 do g:set(0, y, 254); g:set(119, y, 254) end
  for x = 30, 40 do for y = 20, 30 do g:set(x, y, 254) end end
  return g
end

local function scan(g, p) return g:scan(p, { count = 360, range_max = 3.5 }) end

describe("tycho.pointmap", function()
  it("keeps the hits' mean on the wall and refines a pose to millimetres", function()
    local g = room()
    local pm = tycho.pointmap { resolution = 0.05 }
    for k = 0, 10 do
      local p = { x = 1.0 + 0.3 * k, y = 1.7 + 0.05 * k, yaw = 0.1 * k }
      pm:add_scan(scan(g, p), p)
    end
    assert.is_true(pm:cells() > 200)
    -- the east wall's face: the truth grid's cell 119 starts at x = -0.013 + 119 * 0.05
    local face = -0.013 + 119 * 0.05
    local mx = pm:mean_at(face + 0.01, 2.0)
    assert.is_truthy(mx)
    assert.is_true(math.abs(mx - face) < 0.003, "mean at " .. mx .. ", face at " .. face)
    assert.is_nil(pm:mean_at(2.5, 2.0)) -- open floor: no hits

    local truth = { x = 2.33, y = 1.61, yaw = 0.4 }
    local s = scan(g, truth)
    local r = pm:refine(s, { x = truth.x + 0.021, y = truth.y - 0.017, yaw = truth.yaw + math.rad(0.6) })
    assert.is_true(r.ok)
    assert.is_true(r.pairs > 150, r.pairs)
    assert.is_true(math.abs(r.x - truth.x) < 0.004, r.x - truth.x)
    assert.is_true(math.abs(r.y - truth.y) < 0.004, r.y - truth.y)
    assert.is_true(math.abs(r.yaw - truth.yaw) < math.rad(0.15))
    -- a refinement asked to stay within 5 mm of a guess 3 cm off refuses
    r = pm:refine(s, { x = truth.x + 0.03, y = truth.y, yaw = truth.yaw }, { max_shift = 0.005 })
    assert.is_false(r.ok)
    assert.are.equal(truth.x + 0.03, r.x)
  end)

  it("refuses bad input with the argument named", function()
    local pm = tycho.pointmap()
    local s = room():scan({ x = 1, y = 1, yaw = 0 }, { count = 36, range_max = 3.5 })
    assert.has_error(function() tycho.pointmap { resolution = 0 } end)
    assert.has_error(function() tycho.pointmap { resoluton = 0.05 } end)
    local ok, err = pcall(pm.add_scan, pm, s, { x = 0 / 0, y = 0, yaw = 0 })
    assert.is_false(ok)
    assert.matches("pose", err)
    ok, err = pcall(pm.refine, pm, s, { x = 1, y = 1, yaw = 0 }, { iterations = 0 })
    assert.is_false(ok)
    assert.matches("iterations", err)
    ok, err = pcall(pm.add_scan, pm, "scan", { x = 1, y = 1, yaw = 0 })
    assert.is_false(ok)
    assert.matches("#2", err)
    assert.matches("tycho.pointmap %(0 cells", tostring(pm))
  end)
end)
