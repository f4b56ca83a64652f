local tycho = require "tycho"

-- Nav2's rules, written out independently (inflation_layer.hpp computeCost
-- and updateCosts), for a brute-force check.
local function nav2(grid, p)
  local res = grid.resolution
  local ins, rad, csf = p.inscribed_radius or 0, p.inflation_radius or 0.55, p.cost_scaling_factor or 10
  local cell_radius = math.max(0, math.ceil(rad / res))
  local sources = {}
  for y = 0, grid.height - 1 do
    for x = 0, grid.width - 1 do
      local c = grid:get(x, y)
      if c == 254 or (p.inflate_around_unknown and c == 255) then sources[#sources + 1] = { x, y } end
    end
  end
  local out = {}
  for y = 0, grid.height - 1 do
    for x = 0, grid.width - 1 do
      local old = grid:get(x, y)
      local best
      for _, s in ipairs(sources) do
        local d = math.sqrt((s[1] - x) ^ 2 + (s[2] - y) ^ 2)
        if not best or d < best then best = d end
      end
      local v = old
      if cell_radius > 0 and best and best <= cell_radius then
        local cost
        if best == 0 then cost = 254
        elseif best * res <= ins then cost = 253
        else cost = math.floor(252 * math.exp(-1.0 * csf * (best * res - ins))) end
        if old == 255 and ((p.inflate_unknown and cost > 0) or (not p.inflate_unknown and cost >= 253)) then
          v = cost
        else
          v = math.max(old, cost)
        end
      end
      out[#out + 1] = v
    end
  end
  return out
end

local function cells(grid)
  local t = {}
  for y = 0, grid.height - 1 do
    for x = 0, grid.width - 1 do t[#t + 1] = grid:get(x, y) end
  end
  return t
end

describe("grid:inflate", function()
  it("applies Nav2's costs and leaves the source alone", function()
    local g = tycho.grid.new { width = 21, height = 21, resolution = 0.05, fill = 0,
                               origin = { x = 1, y = 2, yaw = 0.5 } }
    g:set(10, 10, 254)
    g:set(10, 14, 200)
    local d = g:inflate { inscribed_radius = 0.1, inflation_radius = 0.3, cost_scaling_factor = 10 }
    assert.are.equal(21, d.width)
    assert.are.equal(0.5, d.origin.yaw)
    assert.are.equal(254, d:get(10, 10))
    assert.are.equal(253, d:get(9, 10))  -- 0.05 m
    assert.are.equal(253, d:get(10, 8))  -- 0.1 m = inscribed: inclusive
    assert.are.equal(152, d:get(7, 10))  -- 252 exp(-0.5) = 152.8, truncated
    assert.are.equal(200, d:get(10, 14)) -- max with what was there
    assert.are.equal(34, d:get(4, 10))   -- 6 cells = ceil(0.3 / 0.05): inclusive
    assert.are.equal(0, d:get(4, 9))     -- sqrt(37) cells: beyond
    assert.are.equal(0, g:get(9, 10))
  end)

  it("handles unknown cells as Nav2 does", function()
    local g = tycho.grid.new { width = 15, height = 3, resolution = 0.05, fill = 255 }
    g:set(0, 1, 254)
    local p = { inscribed_radius = 0.1, inflation_radius = 0.3 }
    local d = g:inflate(p)
    assert.are.equal(253, d:get(1, 1)) -- unknown within the inscribed radius: 253
    assert.are.equal(255, d:get(3, 1)) -- lower costs leave unknown alone
    p.inflate_unknown = true
    d = g:inflate(p)
    assert.are.equal(152, d:get(3, 1)) -- ... unless inflate_unknown
    assert.are.equal(255, d:get(7, 1)) -- beyond the radius
    p.inflate_unknown, p.inflate_around_unknown = false, true
    d = g:inflate(p)
    assert.are.equal(254, d:get(7, 1)) -- unknown cells are obstacles themselves
  end)

  it("matches a brute-force Nav2 on random grids", function()
    math.randomseed(11)
    local palette = { 0, 0, 0, 0, 0, 0, 50, 200, 253, 254, 255 }
    for trial = 1, 12 do
      local g = tycho.grid.new { width = math.random(1, 14), height = math.random(1, 11),
                                 resolution = ({ 0.05, 0.1 })[math.random(2)], fill = 0 }
      for y = 0, g.height - 1 do
        for x = 0, g.width - 1 do g:set(x, y, palette[math.random(#palette)]) end
      end
      local p = { inscribed_radius = ({ 0, 0.1, 0.17 })[math.random(3)],
                  inflation_radius = ({ 0, 0.05, 0.3, 0.55 })[math.random(4)],
                  cost_scaling_factor = ({ 0, 3, 10, 50 })[math.random(4)],
                  inflate_unknown = math.random() < 0.5,
                  inflate_around_unknown = math.random() < 0.25 }
      assert.are.same(nav2(g, p), cells(g:inflate(p)), "trial " .. trial)
    end
  end)

  it("inflates into another grid or in place", function()
    local g = tycho.grid.new { width = 10, height = 10, resolution = 0.1, fill = 0 }
    g:set(5, 5, 254)
    local dst = tycho.grid.new { width = 10, height = 10, resolution = 0.1, fill = 7 }
    assert.are.equal(dst, g:inflate_into(dst, { inflation_radius = 0.2 }))
    assert.are.equal(92, dst:get(4, 5)) -- 252 exp(-10 * 0.1); the old 7s are gone
    assert.are.same(cells(g:inflate { inflation_radius = 0.2 }), cells(dst)) -- dst fully rewritten
    g:inflate_into(g, { inflation_radius = 0.2 })
    assert.are.same(cells(dst), cells(g))
    local wrong = tycho.grid.new { width = 9, height = 10, resolution = 0.1 }
    assert.error_matches(function() g:inflate_into(wrong, {}) end, "source's size")
  end)

  it("names the bad field", function()
    local g = tycho.grid.new { width = 4, height = 4, resolution = 0.05 }
    assert.error_matches(function() g:inflate { inflation_radius = -1 } end, "bad field 'inflation_radius'")
    assert.error_matches(function() g:inflate { cost_scaling_factor = "x" } end,
      "bad field 'cost_scaling_factor'")
    assert.error_matches(function() g:inflate { inscribed_radius = 0 / 0 } end,
      "bad field 'inscribed_radius'")
    assert.error_matches(function() g:inflate { inflate_unknown = 1 } end, "bad field 'inflate_unknown'")
    assert.error_matches(function() g:inflate { inflation_radius = 1000 } end,
      "bad field 'inflation_radius'.*4096")
  end)
end)

describe("grid:distance_transform", function()
  it("gives metric distances to the nearest obstacle", function()
    local g = tycho.grid.new { width = 30, height = 20, resolution = 0.1, fill = 0 }
    g:set(3, 4, 254)
    g:set(20, 10, 120)
    g:set(25, 2, 255)
    local f = g:distance_transform()
    assert.are.equal(600, #f)
    assert.are.equal(30, f.width)
    assert.are.equal(0, f:get(3, 4))
    assert.are.near(0.5, f:get(6, 8), 1e-6) -- (3, 4) cells away
    assert.are.equal(math.huge, f:get(-1, 0))
    local f2 = g:distance_transform { threshold = 100, unknown_blocked = true, max_distance = 0.25 }
    assert.are.equal(0, f2:get(20, 10))
    assert.are.equal(0, f2:get(25, 2))
    assert.are.near(0.2, f2:get(22, 10), 1e-6)
    assert.are.equal(math.huge, f2:get(3, 10)) -- nothing within 0.25 m
    assert.matches("tycho.distance_field 30x20", tostring(f))
    local empty = tycho.grid.new { width = 3, height = 3, fill = 0 }:distance_transform()
    assert.are.equal(math.huge, empty:get(1, 1))
    assert.error_matches(function() g:distance_transform { max_distance = -1 } end,
      "bad field 'max_distance'")
  end)
end)
