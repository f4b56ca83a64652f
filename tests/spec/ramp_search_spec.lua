-- A ramp the mission never drove onto while exploring (the LiDAR mapped its
-- dead-end corridor from the mouth): at the end the robot drives to where
-- its wheels have not been, nearest first, until the IMU meets the ramp,
-- and climbs it. Generated maze 70038 (exact odometry) is such a world:
-- before the search existed its run ended with the ramp never found. If a
-- change to the mission makes it meet this ramp while exploring, the first
-- assertion says so: pick another world the campaign shows needing the
-- search (its log has "looking where the wheels have not been").
local exe = require "helpers.exe"

describe("heat_seek: looking for a ramp never met #e2e", function()
  local dir = exe.tmpdir()

  it("drives where the wheels have not been until the IMU meets it, then climbs it", function()
    local code, text = exe.run { "run", "behaviors/gen_world.lua", "--seed", "70038", "--out", dir .. "/world" }
    assert.are.equal(0, code, text)
    code, text = exe.run { "run", "behaviors/heat_seek.lua", "--world", dir .. "/world/world.lua",
                           "--out", dir .. "/out" }
    assert.are.equal(0, code, text)
    assert.truthy(text:find("ramp: none met yet; looking where the wheels have not been", 1, true),
      "the ramp was met while exploring: this world no longer tests the search")
    local s = exe.read_json(dir .. "/out/summary.json")
    assert.is_true(s.ramp.detected)
    assert.is_true(s.ramp.climbed)
    assert.are.equal(0, s.collisions)
    -- and with the search off, the mission ends without the ramp, as it did
    code, text = exe.run { "run", "behaviors/heat_seek.lua", "--world", dir .. "/world/world.lua",
                           "--out", dir .. "/off", "--quiet", "--set", "ramp_search_time=0" }
    assert.are.equal(0, code, text)
    s = exe.read_json(dir .. "/off/summary.json")
    assert.is_false(s.ramp.detected)
  end)

  teardown(function() exe.remove_tree(dir) end)
end)
