local tycho = require "tycho"

describe("grid planners from Lua", function()
  local function corridor()
    -- 10x5 free grid with a wall at x = 5 except a gap at y = 4
    local g = tycho.grid.new { width = 10, height = 5, resolution = 0.1, fill = 0 }
    for y = 0, 3 do g:set(5, y, 254) end
    return g
  end

  it("plans around a wall and reports cost and cells", function()
    local g = corridor()
    local p = g:plan(0, 0, 9, 0)
    assert.is_not_nil(p)
    local sx, sy = p:cell(1)
    local gx, gy = p:cell(#p)
    assert.are.same({ 0, 0, 9, 0 }, { sx, sy, gx, gy })
    for i = 1, #p do
      local cx, cy = p:cell(i)
      assert.are_not.equal(254, g:get(cx, cy))
    end
    assert.is_true(p.cost > 9) -- the detour is longer than the straight line
    assert.matches("tycho.path", tostring(p))
  end)

  it("measures path distances to many points with one field", function()
    local g = corridor()
    -- origin 0,0, 0.1 m cells: from the centre of cell (0,0) to cell (9,0)
    -- the path goes up through the gap at y = 4 and back down
    local d = g:path_distances(0.05, 0.05, { { x = 0.05, y = 0.35 }, { x = 0.95, y = 0.05 },
                                             { x = 0.55, y = 0.05 }, { x = 50, y = 50 } })
    assert.near(0.3, d[1], 1e-6)
    assert.is_true(d[2] > 1.2 and d[2] < 1.6, tostring(d[2])) -- 0.9 m by air
    assert.are.equal(math.huge, d[3]) -- a wall cell
    assert.are.equal(math.huge, d[4]) -- outside
    g:set(5, 4, 254)
    assert.are.equal(math.huge, g:path_distances(0.05, 0.05, { { x = 0.95, y = 0.05 } })[1])
    assert.has_error(function() g:path_distances(0.05, 0.05, { { x = "a" } }) end)
    assert.has_error(function() g:path_distances(0.05, 0.05, { 3 }) end)
  end)

  it("returns nil and a reason when there is no path", function()
    local g = corridor()
    g:set(5, 4, 254)
    local p, why = g:plan(0, 0, 9, 0)
    assert.is_nil(p)
    assert.is_string(why)
    local q, why2 = g:plan(5, 0, 9, 0)
    assert.is_nil(q)
    assert.matches("start", why2)
  end)

  it("plans in world coordinates, shortens, and finds the nearest free cell", function()
    local g = corridor()
    local p = g:plan_world(0.05, 0.05, 0.95, 0.05, { algorithm = "jps", shorten = true })
    local pts = p:world(g)
    assert.is_true(#pts >= 3 and #pts < 12)
    assert.are.near(0.05, pts[1].x, 1e-9)
    local cx, cy, d = g:nearest(5, 2, { max_cost = 0 })
    assert.are.equal(1, d)
    assert.is_true(cx == 4 or cx == 6)
    assert.are.equal(2, cy)
  end)

  it("names bad options", function()
    local g = corridor()
    assert.error_matches(function() g:plan(0, 0, 9, 0, { algorithm = "dfs" }) end, "algorithm")
    assert.error_matches(function() g:plan(0, 0, 9, 0, { blocked_cost = 0 }) end, "blocked_cost")
  end)
end)
