-- Potential-field avoidance from Lua (tycho.swarm).
local tycho = require "tycho"

describe("tycho.swarm", function()
  it("evaluates the shapes by name", function()
    assert.is_true(math.abs(tycho.swarm.shape("exp", 0.5) - 0.4142) < 1e-4)
    assert.is_true(math.abs(tycho.swarm.shape("sin", 0.25) - 0.1464) < 1e-4)
    assert.error_matches(function() tycho.swarm.shape("cubic", 0.5) end, "#1")
  end)

  it("pushes away from a close neighbour and pulls to the goal", function()
    local s = tycho.swarm.new {}
    local vx, vy, info = s:command(0, { x = 0, y = 0 }, { x = 20, y = 0 }, { { x = 0, y = 4 } })
    assert.is_true(vx > 0 and vy < 0)
    assert.are.equal(4, info.closest)
    vx, vy, info = s:command(0.1, { x = 0, y = 0 }, { x = 20, y = 0 }, {})
    assert.are.equal(1, vx)
    assert.are.equal(0, vy)
    assert.is_false(info.escaping)
  end)

  it("gives position set-points, and is off in listed states", function()
    local s = tycho.swarm.new { mode = "position", horizon = 2, off_in = { "Docking" } }
    local x, y = s:command(0, { x = 1, y = 1 }, { x = 11, y = 1 }, {})
    assert.are.same({ 3, 1 }, { x, y })
    local off, why = s:command(0, { x = 1, y = 1 }, { x = 11, y = 1 }, {}, "Docking")
    assert.is_nil(off)
    assert.are.equal("off", why)
  end)

  it("keeps off_in names whole, or refuses them", function()
    local long = string.rep("W", 31) -- the longest name kept
    local s = tycho.swarm.new { off_in = { "Docking", long } }
    assert.are.same({ nil, "off" }, { s:command(0, { x = 0, y = 0 }, { x = 1, y = 0 }, {}, long) })
    assert.is_number((s:command(0, { x = 0, y = 0 }, { x = 1, y = 0 }, {}, long:sub(1, 30))))
    -- a name cut to fit would never match its state: avoidance would stay on
    assert.error_matches(function() tycho.swarm.new { off_in = { long .. "X" } } end, "off_in")
    assert.error_matches(function() tycho.swarm.new { off_in = { "a\0b" } } end, "off_in")
    assert.error_matches(function() tycho.swarm.new { off_in = { {} } } end, "off_in")
  end)

  it("names bad parameters", function()
    assert.error_matches(function() tycho.swarm.new { dist_attract = 1 } end, "dist_attract")
    assert.error_matches(function() tycho.swarm.new { repulse_shape = "cubic" } end, "repulse_shape")
    assert.error_matches(function() tycho.swarm.new { mode = "teleport" } end, "mode")
    local s = tycho.swarm.new {}
    assert.error_matches(function() s:command(0, { x = 0 }, { x = 1, y = 1 }, {}) end, "#2")
  end)
end)
