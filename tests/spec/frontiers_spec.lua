local tycho = require "tycho"

-- Grid from text rows, top row first: '.' free, '#' lethal, '?' unknown.
local function from_text(rows, res)
  local h, w = #rows, #rows[1]
  local g = tycho.grid.new { width = w, height = h, resolution = res or 0.1 }
  for r = 1, h do
    for x = 1, w do
      local c = rows[r]:sub(x, x)
      g:set(x - 1, h - r, c == "." and 0 or c == "#" and 254 or 255)
    end
  end
  return g
end

describe("grid:frontiers", function()
  local rows = {
    "#####################",
    "#...................?",
    "#...................?",
    "#...................?",
    "?...................?",
    "?...................?",
    "#...................?",
    "#####################",
  }

  it("finds and ranks reachable frontiers", function()
    local g = from_text(rows)
    local fs = g:frontiers { robot = { x = 0.25, y = 0.25 }, min_size = 0 }
    assert.are.equal(2, #fs)
    local near, far = fs[1], fs[2]
    assert.are.equal(2, near.size)
    assert.are.equal(6, far.size)
    assert.is_true(near.cost <= far.cost)
    assert.are.near(0.1, near.distance, 1e-9)
    assert.are.near(3 * 0.1 - 0.2, near.cost, 1e-9)
    assert.are.near(0.05, near.centroid.x, 1e-9)
    assert.are.near(0.30, near.centroid.y, 1e-9)
    -- goal is the free cell next to the frontier, nearest is the frontier cell
    assert.are.equal(0, g:get(near.goal_cell.cx, near.goal_cell.cy))
    assert.are.equal(255, g:get(near.nearest_cell.cx, near.nearest_cell.cy))
    assert.are.near(0.15, near.goal.x, 1e-9)
    assert.are.near(0.05, near.nearest.x, 1e-9)
    assert.are.near(1.7, far.distance, 1e-9)
  end)

  it("weights size against distance and filters small frontiers", function()
    local g = from_text(rows)
    local fs = g:frontiers { robot = { x = 0.25, y = 0.25 }, min_size = 0, gain_scale = 50 }
    assert.are.equal(6, fs[1].size)
    fs = g:frontiers { robot = { x = 0.25, y = 0.25 } } -- default min_size 0.5 m = 5 cells
    assert.are.equal(1, #fs)
    assert.are.equal(6, fs[1].size)
    fs = g:frontiers { robot = { x = 0.25, y = 0.25 }, min_size = 0, min_cells = 3 }
    assert.are.equal(1, #fs)
  end)

  it("ignores frontiers the robot cannot reach", function()
    local g = from_text {
      "##########",
      "#....#..??",
      "#....#..??",
      "##########",
    }
    local fs = g:frontiers { robot = { x = 0.25, y = 0.15 }, min_size = 0 }
    assert.are.equal(0, #fs)
    fs = g:frontiers { robot = { x = 0.65, y = 0.15 }, min_size = 0 }
    assert.are.equal(1, #fs)
    assert.are.equal(2, fs[1].size)
  end)

  it("returns the cells on request", function()
    local g = from_text(rows)
    local fs = g:frontiers { robot = { x = 0.25, y = 0.25 }, min_size = 0, cells = true }
    assert.are.equal(2, #fs[1].cells)
    for _, c in ipairs(fs[1].cells) do
      assert.are.equal(0, c.cx)
      assert.are.equal(255, g:get(c.cx, c.cy))
    end
    assert.is_nil(fs[1].cells[3])
  end)

  it("reports a robot off the map as nil, message", function()
    local g = from_text(rows)
    local fs, err = g:frontiers { robot = { x = -5, y = 0 } }
    assert.is_nil(fs)
    assert.matches("outside the grid", err)
    fs, err = g:frontiers { robot = { x = 0.05, y = 0.05 }, start_radius = 0 } -- on a wall
    assert.is_nil(fs)
    assert.matches("no free cell", err)
  end)

  it("names bad arguments", function()
    local g = from_text(rows)
    assert.error_matches(function() g:frontiers() end, "#1")
    assert.error_matches(function() g:frontiers {} end, "bad field 'robot'")
    assert.error_matches(function() g:frontiers { robot = { x = 1 } } end, "bad field 'robot'")
    assert.error_matches(function() g:frontiers { robot = { x = 0.2, y = 0.2 }, free_max = 300 } end,
      "bad field 'free_max'")
    assert.error_matches(function() g:frontiers { robot = { x = 0.2, y = 0.2 }, min_size = -1 } end,
      "min_size")
    assert.error_matches(function() g:frontiers { robot = { x = 0.2, y = 0.2 }, gain_scale = "x" } end,
      "bad field 'gain_scale'")
  end)
end)
