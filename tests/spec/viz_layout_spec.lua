-- The ready-made Foxglove / Lichtblick layout (viz/layouts/tycho.json):
-- every panel placed once and configured, of a panel type both viewers
-- have, and every topic and message path it names is one the runtime
-- publishes, with the field in that channel's schema. (That the viewers
-- draw it as meant was not checked here: neither runs on this machine.)
local exe = require "helpers.exe"
local json = require "json_decode"
local Channels = require "channels"

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return json.decode(s)
end

-- panel types of Foxglove's and Lichtblick's built-in panels used here
local PANELS = { ["3D"] = true, Image = true, Plot = true, StateTransitions = true, RosOut = true, Parameters = true }

describe("viz/layouts/tycho.json", function()
  local layout = read(exe.SRC .. "/viz/layouts/tycho.json")
  local topics = {}
  for _, t in ipairs(Channels.TOPICS) do topics[t.topic] = t end

  -- the message path's topic and field ("/imu.pitch" -> "/imu", "pitch"),
  -- checked against the channel's JSON Schema
  local function check_path(path, where)
    local topic, field = path:match("^(/[%w_/]+)%.([%w_]+)$")
    assert.is_truthy(topic, where .. ": message path " .. path)
    assert.is_truthy(topics[topic], where .. ": no channel " .. topic)
    local schema = json.decode(Channels.schema(topics[topic].schema))
    assert.is_truthy(schema.properties[field], ("%s: %s has no field %s"):format(where, topics[topic].schema, field))
  end

  it("places every configured panel once, and configures every panel placed", function()
    local placed = {}
    local function walk(node)
      if type(node) == "string" then
        assert.is_nil(placed[node], node .. " placed twice")
        placed[node] = true
        return
      end
      assert.is_true(node.direction == "row" or node.direction == "column")
      assert.is_true(node.splitPercentage > 0 and node.splitPercentage < 100)
      walk(node.first)
      walk(node.second)
    end
    walk(layout.layout)
    for id in pairs(layout.configById) do assert.is_true(placed[id], id .. " configured but not placed") end
    for id in pairs(placed) do assert.is_table(layout.configById[id], id .. " placed but not configured") end
    for id in pairs(placed) do
      local kind = id:match("^(.-)!")
      assert.is_true(PANELS[kind] == true, "panel type " .. tostring(kind))
    end
  end)

  it("names only channels the runtime publishes, and fields their schemas have", function()
    local three_d = layout.configById["3D!tycho-map"]
    local n = 0
    for topic in pairs(three_d.topics) do
      assert.is_truthy(topics[topic], "3D panel: no channel " .. topic)
      n = n + 1
    end
    assert.is_true(n >= 6)
    assert.are.equal("map", three_d.followTf) -- north up, the map still
    for id, cfg in pairs(layout.configById) do
      if cfg.imageMode and cfg.imageMode.imageTopic then
        assert.are.equal("foxglove.RawImage", topics[cfg.imageMode.imageTopic].schema, id)
      end
      for _, p in ipairs(cfg.paths or {}) do check_path(p.value, id) end
    end
    -- the grid's colour field is the one tycho.viz.grid writes
    assert.are.equal("cost", three_d.topics["/map"].colorField)
  end)

  it("covers what a person watching the mission wants: map, scan, both cameras, state, IMU, log, parameters", function()
    local three_d = layout.configById["3D!tycho-map"]
    for _, t in ipairs { "/map", "/scan", "/path", "/trail", "/scene" } do
      assert.is_true(three_d.topics[t].visible, t .. " shown")
    end
    local images = {}
    for _, cfg in pairs(layout.configById) do
      if cfg.imageMode and cfg.imageMode.imageTopic then images[cfg.imageMode.imageTopic] = true end
    end
    assert.are.same({ ["/thermal/1"] = true, ["/thermal/2"] = true }, images)
    assert.is_table(layout.configById["StateTransitions!tycho-fsm"])
    assert.is_table(layout.configById["RosOut!tycho-log"])
    assert.is_table(layout.configById["Parameters!tycho-params"])
  end)
end)
