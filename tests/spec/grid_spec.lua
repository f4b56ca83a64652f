local tycho = require "tycho"

describe("tycho.grid", function()
  it("creates a grid with fields and cells", function()
    local g = tycho.grid.new { width = 40, height = 30, resolution = 0.05,
                               origin = { x = -1, y = -0.5 }, fill = 0 }
    assert.are.equal(40, g.width)
    assert.are.equal(30, g.height)
    assert.are.equal(0.05, g.resolution)
    assert.are.equal(-1, g.origin.x)
    assert.are.equal(1200, #g)
    assert.are.equal(0, g:get(3, 4))
    assert.is_true(g:set(3, 4, tycho.grid.LETHAL))
    assert.are.equal(254, g:get(3, 4))
    assert.are.equal(255, g:get(-1, 0)) -- outside reads as unknown
    assert.matches("tycho.grid 40x30 @ 0.050 m", tostring(g))
  end)

  it("converts between world and cells", function()
    local g = tycho.grid.new { width = 10, height = 10, resolution = 0.5, origin = { x = 1, y = 2 } }
    local cx, cy, inside = g:world_to_cell(1.26, 2.74)
    assert.are.same({ 0, 1, true }, { cx, cy, inside })
    local x, y = g:cell_to_world(2, 3)
    assert.are.near(2.25, x, 1e-12)
    assert.are.near(3.75, y, 1e-12)
  end)

  it("copies, crops, grows and counts", function()
    local g = tycho.grid.new { width = 8, height = 6, resolution = 0.25, fill = 0 }
    g:set(5, 4, 254)
    local c = g:copy()
    c:set(5, 4, 0)
    assert.are.equal(254, g:get(5, 4))
    local k = g:crop(4, 3, 4, 3)
    assert.are.equal(254, k:get(1, 1))
    local s = g:stats()
    assert.are.equal(1, s.lethal)
    assert.are.equal(47, s.free)
    g:grow_to(-2, -2, 1)
    assert.is_true(g.width > 8)
    assert.are.equal(1, g:stats().lethal) -- the lethal cell survived the growth
  end)

  it("names the bad argument", function()
    assert.has_error(function() tycho.grid.new { width = 0, height = 3 } end)
    assert.error_matches(function() tycho.grid.new { width = 3, height = 3, resolution = "x" } end,
      "bad field 'resolution'")
    local g = tycho.grid.new { width = 3, height = 3 }
    assert.error_matches(function() g:set(0, 0, 300) end, "#3")
    assert.error_matches(function() g:get("a", 0) end, "#1")
    assert.error_matches(function() tycho.grid.new { width = 3, height = 3, resolution = -1 } end,
      "field 'resolution' in argument #1 to 'grid.new' %(must be > 0%)")
  end)

  it("updates log-odds from observations", function()
    local g = tycho.grid.new { width = 4, height = 4 }
    assert.are.equal(254, g:observe(1, 1, true))
    for _ = 1, 4 do g:observe(2, 2, false) end
    assert.are.equal(0, g:get(2, 2))
    g:set_logodds_params { p_hit = 0.9 }
    assert.error_matches(function() g:set_logodds_params { p_hit = 1.5 } end, "p_hit")
  end)
end)
