local tycho = require "tycho"

local function corridor()
  -- 30 x 8, a 4-cell-wide corridor (rows 2..5) between walls
  local g = tycho.grid.new { width = 30, height = 8, resolution = 0.1, fill = 254 }
  for y = 2, 5 do
    for x = 0, 29 do g:set(x, y, 0) end
  end
  return g
end

describe("regions", function()
  it("flood fills with 4 or 8 connectivity", function()
    local g = tycho.grid.new { width = 10, height = 10, fill = 0 }
    for i = 0, 9 do g:set(i, 9 - i, 254) end -- anti-diagonal wall
    assert.are.equal(45, g:flood_fill(0, 0, { connectivity = 4 }))
    assert.are.equal(90, g:flood_fill(0, 0, { connectivity = 8 }))
    assert.are.equal(90, g:flood_fill(0, 0)) -- default 8, cost 0..252
    assert.are.equal(0, g:flood_fill(0, 9)) -- seed on the wall
    assert.are.equal(10, g:flood_fill(0, 9, { min_cost = 254, max_cost = 254 }))
    local n, cells = g:flood_fill(0, 0, { connectivity = 4, cells = true })
    assert.are.equal(45, n)
    assert.are.equal(45, #cells)
    assert.are.same({ cx = 0, cy = 0 }, cells[1])
    -- writing a value
    assert.are.equal(45, g:flood_fill(0, 0, { connectivity = 4, value = 9 }))
    assert.are.equal(9, g:get(4, 4))
    assert.are.equal(0, g:get(9, 9))
  end)

  it("labels connected components", function()
    local g = tycho.grid.new { width = 8, height = 6, fill = 254 }
    for _, c in ipairs { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 2, 2 }, { 3, 2 }, { 3, 3 }, { 4, 4 }, { 6, 5 }, { 7, 5 } } do
      g:set(c[1], c[2], 0)
    end
    local n, labels = g:components { max_cost = 0, connectivity = 4 }
    assert.are.equal(4, n)
    assert.are.equal(4, #labels)
    assert.are.equal(4, labels.count)
    assert.are.equal(1, labels:get(0, 1))
    assert.are.equal(3, labels:get(4, 4))
    assert.are.equal(0, labels:get(5, 5))
    assert.are.equal(0, labels:get(-1, 0))
    assert.are.equal(3, labels:size(1))
    assert.are.equal(0, labels:size(9))
    assert.matches("tycho.labels 8x6, 4 components", tostring(labels))
    n, labels = g:components { max_cost = 0, connectivity = 8 }
    assert.are.equal(3, n)
    assert.are.equal(labels:get(2, 2), labels:get(4, 4))
    assert.are.equal(4, labels:size(labels:get(4, 4)))
  end)

  it("seal_line blocks a corridor", function()
    local g = corridor()
    assert.are.equal(120, g:flood_fill(0, 3))
    local x0, y0 = g:cell_to_world(10, 0)
    local x1, y1 = g:cell_to_world(14, 7)
    local sealed = g:seal_line(x0, y0, x1, y1, { world = true })
    assert.is_true(sealed >= 4)
    local left = g:flood_fill(0, 3)
    local right = g:flood_fill(29, 3)
    assert.is_true(left < 120 and right < 120)
    assert.are.equal(120, left + right + sealed)
    assert.are.equal(0, g:seal_line(x0, y0, x1, y1, { world = true })) -- already sealed
    -- cells, thick
    assert.are.equal(12, g:seal_line(20, 0, 20, 7, { thickness = 3 }))
    assert.are.equal(254, g:get(19, 3))
    assert.are.equal(0, g:get(18, 3))
  end)

  it("seals a region", function()
    local g = tycho.grid.new { width = 12, height = 12, fill = 0 }
    for y = 3, 6 do
      for x = 4, 8 do g:set(x, y, 100) end -- a ramp
    end
    assert.are.equal(20, g:seal_region(5, 4, { min_cost = 100, max_cost = 100 }))
    assert.are.equal(20, g:stats().lethal)
    assert.are.equal(0, g:seal_region(0, 0, { min_cost = 100, max_cost = 100 }))
  end)

  it("names bad arguments", function()
    local g = corridor()
    assert.error_matches(function() g:flood_fill(0, 3, { connectivity = 6 }) end,
      "bad field 'connectivity'")
    assert.error_matches(function() g:flood_fill(0, 3, { min_cost = 300 }) end, "bad field 'min_cost'")
    assert.error_matches(function() g:flood_fill(0, 3, { min_cost = 200, max_cost = 100 }) end,
      "min_cost 200 is above max_cost 100")
    assert.error_matches(function() g:flood_fill(0, 3, { value = 256 }) end, "bad field 'value'")
    assert.error_matches(function() g:flood_fill("a", 3) end, "#1")
    assert.error_matches(function() g:seal_line(0, 0, 1, 1, { thickness = 0 }) end,
      "bad field 'thickness'")
    if tycho.lua ~= "LuaJIT" then -- LuaJIT truncates non-integers silently
      assert.error_matches(function() g:seal_line(0, 0, 1.5, 1) end, "#3")
    end
    assert.error_matches(function() g:components { connectivity = 5 } end, "bad field 'connectivity'")
    assert.error_matches(function() g:components(5) end, "#1")
  end)
  it("lists wall faces with their normals, and checks its options", function()
    local g = tycho.grid.new { width = 6, height = 4, resolution = 0.5 }
    g:fill(254)
    for y = 1, 2 do for x = 1, 4 do g:set(x, y, 0) end end
    local faces = g:wall_faces()
    assert.are.equal(12, #faces)
    local f = faces[1] -- row-major: bottom wall, cell (1, 0), facing up
    assert.are.same({ 1, 0, 0, 1 }, { f.cx, f.cy, f.nx, f.ny })
    assert.are.equal(0.75, f.x)
    assert.error_matches(function() g:wall_faces { threshold = 0 } end, "bad field 'threshold'")
    assert.error_matches(function() g:wall_faces { free_max = 254 } end, "bad field 'free_max'")
  end)
end)
