-- Every userdata class of the tycho module comes from the one class helper
-- (bindings/l_class.c) and every option-taking function checks its table
-- against a declared spec (bindings/l_options.c). These walks read the two
-- registries the helpers fill, so a class or an option table added without
-- them, or without a line here, fails.
local tycho = require "tycho"

local registry = debug.getregistry()
local classes = registry["tycho.classes"]
local options = registry["tycho.options"]

local function sorted_keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out)
  return out
end

local function grid(fill)
  return tycho.grid.new { width = 8, height = 8, resolution = 0.5, fill = fill or 0 }
end

local function socket_path()
  return os.tmpname() .. ".sock"
end

-- A live instance of each class a script can hold. Workspaces that live only
-- in C closures are listed apart, with why no script can reach them.
local internal = {
  ["tycho.planner"] = "the planner workspace behind grid:plan",
  ["tycho.inflation_workspace"] = "the workspace behind grid:inflate",
  ["tycho.regions_ws"] = "the workspace behind grid:flood_fill",
  ["tycho.frontier_search"] = "the workspace behind grid:frontiers",
  ["tycho.scan_inserter"] = "the workspace behind grid:insert_scan",
  ["tycho.kmeans_workspace"] = "a scratch object inside tycho.kmeans",
  ["tycho.console"] = "needs the process's terminal (repl_spec drives it)",
  ["tycho.device"] = "needs a driver plugin (device_spec drives it)",
  ["tycho.viz_json_buffer"] = "the scratch buffer inside tycho.viz.json",
}

local made = {}
local factories = {
  ["tycho.grid"] = function() return grid() end,
  ["tycho.clock"] = function() return tycho.clock.new() end,
  ["tycho.path"] = function() return assert(grid():plan(0, 0, 5, 5)) end,
  ["tycho.distance_field"] = function() return grid():distance_transform() end,
  ["tycho.labels"] = function() local _, labels = grid():components(); return labels end,
  ["tycho.scan"] = function() return tycho.scan.new({ range_max = 4 }, { 1, 2, 3 }) end,
  ["tycho.raymap"] = function() return grid():raycaster() end,
  ["tycho.picture"] = function() return tycho.picture(grid()) end,
  ["tycho.scheduler"] = function() return tycho.scheduler.new() end,
  ["tycho.task"] = function()
    made.sched = made.sched or tycho.scheduler.new()
    return made.sched:every(1, function() end)
  end,
  ["tycho.follower"] = function() return tycho.follower() end,
  ["tycho.pitch_detector"] = function() return tycho.pitch_detector() end,
  ["tycho.scan_matcher"] = function() return tycho.scan_matcher() end,
  ["tycho.pointmap"] = function() return tycho.pointmap() end,
  ["tycho.slam"] = function() return tycho.slam.new() end,
  ["tycho.cell_set"] = function() return tycho.cell_set { resolution = 0.05 } end,
  ["tycho.swarm"] = function() return tycho.swarm.new() end,
  ["tycho.fleet_planner"] = function() return tycho.fleet.planner(grid(), { cell = 1 }) end,
  ["tycho.fleet_sim"] = function() return tycho.fleet.sim(2) end,
  ["tycho.sim"] = function() return tycho.sim.new(grid(), { start = { x = 1, y = 1 } }) end,
  ["tycho.heightfield"] = function() return tycho.terrain.heightfield { width = 4, height = 4 } end,
  ["tycho.terrain_map"] = function() return tycho.terrain.map { width = 4, height = 4 } end,
  ["tycho.terrain_robot"] = function() return tycho.terrain.robot() end,
  ["tycho.watch"] = function()
    local path = os.tmpname()
    return tycho.watch { path }
  end,
  ["tycho.net.server"] = function()
    made.sock = made.sock or socket_path()
    made.server = made.server or assert(tycho.net.listen_unix(made.sock))
    return made.server
  end,
  ["tycho.mcap_writer"] = function()
    made.mcap = made.mcap or (os.tmpname() .. ".mcap")
    return assert(tycho.mcap.open(made.mcap))
  end,
  ["tycho.viz_template"] = function() return tycho.viz.template('{"v":%.6g}') end,
  ["tycho.viz_pose_list"] = function() return tycho.viz.pose_list() end,
  ["tycho.viz_text_window"] = function() return tycho.viz.text_window(3) end,
  ["tycho.odom_history"] = function() return tycho.odom_history() end,
  ["tycho.ws.server"] = function() return assert(tycho.ws.listen("127.0.0.1", 0)) end,
  ["tycho.ws.conn"] = function()
    made.ws = made.ws or assert(tycho.ws.listen("127.0.0.1", 0))
    local client = assert(tycho.net.connect_tcp("127.0.0.1", made.ws:port()))
    made.ws_clients = made.ws_clients or {}
    made.ws_clients[#made.ws_clients + 1] = client -- kept open while the accepted side is used
    local conn
    for _ = 1, 200 do
      conn = made.ws:accept()
      if conn then break end
      tycho.net.wait({ made.ws:fd() }, 0.01)
    end
    return assert(conn)
  end,
  ["tycho.net.conn"] = function()
    made.sock = made.sock or socket_path()
    made.server = made.server or assert(tycho.net.listen_unix(made.sock))
    return assert(tycho.net.connect_unix(made.sock))
  end,
}

describe("every binding class", function()
  it("is made by the class helper", function()
    -- a metatable named tycho.* that the helper did not record was made by hand
    for name, value in pairs(registry) do
      if type(name) == "string" and name:match("^tycho%.") and type(value) == "table"
          and value.__name and not name:match(" %(closed%)$") then
        assert(classes[name] == value, name .. " was not made by tycho_l_newclass")
      end
    end
    assert.is_true(#sorted_keys(classes) >= 31)
  end)

  it("has __name, methods, __index, __gc or nothing to free, __close and __tostring", function()
    for _, name in ipairs(sorted_keys(classes)) do
      local mt = classes[name]
      assert.are.equal(name, mt.__name)
      assert.are.equal("table", type(mt.methods), name)
      assert.is_not_nil(mt.__index, name)
      assert.are.equal("function", type(mt.__close), name)
      assert.are.equal("function", type(mt.__tostring), name)
    end
  end)

  it("has a live instance here, or is a workspace no script reaches", function()
    for _, name in ipairs(sorted_keys(classes)) do
      assert(factories[name] or internal[name], name .. ": add a factory to bindings_spec")
      assert(not (factories[name] and internal[name]), name)
    end
  end)

  it("closes: tostring says so, every method and field raises, closing again is harmless", function()
    for _, name in ipairs(sorted_keys(factories)) do
      local obj = factories[name]()
      local mt = getmetatable(obj)
      assert.are.equal(name, mt.__name)
      local live = tostring(obj)
      assert.is_truthy(#live > 0 and live ~= name .. " (closed)", name)
      mt.__close(obj)
      assert.are.equal(name .. " (closed)", tostring(obj))
      for method_name, method in pairs(mt.methods) do
        -- (the error may be about another argument checked first; what
        -- matters is that nothing ran on the freed C side)
        assert(not pcall(method, obj), name .. ":" .. method_name .. " ran on a closed object")
        local ok2, err2 = pcall(function() return obj[method_name] end)
        assert.is_false(ok2)
        assert.is_truthy(err2:find(name .. " is closed", 1, true))
      end
      getmetatable(obj).__close(obj)
      assert.has_error(function() mt.__close({}) end)
    end
    if made.sock then os.remove(made.sock) end -- the server itself was closed above
  end)

  if tycho.lua ~= "LuaJIT" then
    it("closes a to-be-closed variable at the end of its scope", function()
      local chunk = assert(load([[
        local tycho = ...
        local kept
        do
          local g <close> = tycho.grid.new { width = 2, height = 2 }
          kept = g
        end
        return kept
      ]]))
      assert.are.equal("tycho.grid (closed)", tostring(chunk(tycho)))
    end)
  end
end)

-- Each option-taking function called with valid arguments and `opts`.
local function scan() return tycho.scan.new({ range_max = 4 }, { 1, 2, 3 }) end
local pose = { x = 1, y = 1, yaw = 0 }
local calls = {
  ["clock.new"] = function(o) return tycho.clock.new(o) end,
  ["console.open"] = function(o) return tycho.console.open(o) end,
  ["diffdrive.from_wheels"] = function(o) return tycho.diffdrive.from_wheels(0, 0, o) end,
  ["diffdrive.limit"] = function(o) return tycho.diffdrive.limit(0, 0, o) end,
  ["diffdrive.to_wheels"] = function(o) return tycho.diffdrive.to_wheels(0, 0, o) end,
  ["fleet.graph"] = function(o) return tycho.fleet.graph(grid(), o) end,
  ["fleet.planner"] = function(o) return tycho.fleet.planner(grid(), o) end,
  ["fleet.sim"] = function(o) return tycho.fleet.sim(2, o) end,
  ["follower"] = function(o) return tycho.follower(o) end,
  ["follower:blocked"] = function(o) return tycho.follower():blocked(grid(), o) end,
  ["follower:set_params"] = function(o) return tycho.follower():set_params(o) end,
  ["fusion.locate"] = function(o) return tycho.fusion.locate(pose, scan(), {}, o) end,
  ["grid.new"] = function(o)
    local t = { width = 2, height = 2 }
    for k, v in pairs(o) do t[k] = v end
    return tycho.grid.new(t)
  end,
  ["grid:arc_hit"] = function(o) return grid():arc_hit(1, 1, 0, 0.2, 0, 1, o) end,
  ["grid:components"] = function(o) return grid():components(o) end,
  ["grid:distance_transform"] = function(o) return grid():distance_transform(o) end,
  ["grid:flood_fill"] = function(o) return grid():flood_fill(1, 1, o) end,
  ["grid:frontiers"] = function(o)
    local t = { robot = { x = 1, y = 1 } }
    for k, v in pairs(o) do t[k] = v end
    return grid(255):frontiers(t)
  end,
  ["grid:inflate"] = function(o) return grid():inflate(o) end,
  ["grid:inflate_into"] = function(o) local g = grid(); return g:inflate_into(g, o) end,
  ["grid:insert_scan"] = function(o) return grid():insert_scan(pose, scan(), o) end,
  ["grid:nearest"] = function(o) return grid():nearest(1, 1, o) end,
  ["grid:path_blocked"] = function(o) return grid():path_blocked({ { 0, 0 }, { 1, 1 } }, o) end,
  ["grid:path_distances"] = function(o) return grid():path_distances(1, 1, {}, o) end,
  ["grid:plan"] = function(o) return grid():plan(0, 0, 5, 5, o) end,
  ["grid:plan_world"] = function(o) return grid():plan_world(0.2, 0.2, 2, 2, o) end,
  ["grid:raycast"] = function(o) return grid():raycast(1, 1, 0, 2, o) end,
  ["grid:raycaster"] = function(o) return grid():raycaster(o) end,
  ["grid:scan"] = function(o)
    local t = { range_max = 3 }
    for k, v in pairs(o) do t[k] = v end
    return grid():scan(pose, t)
  end,
  ["grid:seal_line"] = function(o) return grid():seal_line(0, 0, 3, 3, o) end,
  ["grid:seal_region"] = function(o) return grid():seal_region(1, 1, o) end,
  ["grid:set_logodds_params"] = function(o) return grid():set_logodds_params(o) end,
  ["grid:wall_faces"] = function(o) return grid():wall_faces(o) end,
  ["heightfield:roughness"] = function(o)
    return tycho.terrain.heightfield { width = 4, height = 4 }:roughness(o)
  end,
  ["heightfield:sweep"] = function(o)
    return tycho.terrain.heightfield { width = 4, height = 4 }:sweep({ x = 0, y = 0, z = 0 }, o)
  end,
  ["kmeans"] = function(o) return tycho.kmeans({ { 0, 0 }, { 1, 1 } }, 1, o) end,
  ["mcap.open"] = function(o)
    local w = assert(tycho.mcap.open(os.tmpname() .. ".mcap", o))
    w:close()
    return w
  end,
  ["mcap.read"] = function(o) return tycho.mcap.read(os.tmpname() .. "-none.mcap", nil, o) end,
  ["load_data"] = function(o)
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write("return {}\n")
    f:close()
    local ok, err = pcall(tycho.load_data, path, o)
    os.remove(path)
    if not ok then error(err, 0) end
  end,
  ["picture"] = function(o) return tycho.picture(grid(), o) end,
  ["picture:path"] = function(o) return tycho.picture(grid()):path({ { x = 0, y = 0 }, { x = 1, y = 1 } }, o) end,
  ["picture:point"] = function(o) return tycho.picture(grid()):point(1, 1, o) end,
  ["picture:pose"] = function(o) return tycho.picture(grid()):pose(1, 1, 0, o) end,
  ["picture:annotate"] = function(o) return tycho.picture(grid()):annotate(o) end,
  ["cell_set"] = function(o) return tycho.cell_set(o) end,
  ["pitch_detector"] = function(o) return tycho.pitch_detector(o) end,
  ["raycaster:scan"] = function(o)
    local t = { range_max = 3 }
    for k, v in pairs(o) do t[k] = v end
    return grid():raycaster():scan(pose, t)
  end,
  ["scan.new"] = function(o)
    local t = { range_max = 3 }
    for k, v in pairs(o) do t[k] = v end
    return tycho.scan.new(t, { 1, 2 })
  end,
  ["scan_matcher"] = function(o) return tycho.scan_matcher(o) end,
  ["sim:tap_frames"] = function(o)
    local sim = tycho.sim.new(grid(), { start = { x = 1, y = 1 } })
    local w = assert(tycho.mcap.open(os.tmpname() .. ".mcap"))
    local T = tycho.viz.template
    local ok, err = pcall(sim.tap_frames, sim, w, tycho.clock.new { mode = "sim" }, { tf = 1, imu = 2, cmd = 3 },
      { tf = T("%.1g %.1g %.1g %.1g"), imu = T("%.1g %.1g %.1g"), cmd = T("%.1g %.1g") }, 0.05, nil, o)
    sim:untap_frames()
    w:close()
    if not ok then error(err, 0) end
  end,
  ["carmen.load"] = function(o)
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write("FLASER 3 1 2 3 0 0 0 0 0 0 1\n")
    f:close()
    local ok, log = pcall(tycho.carmen.load, path, o)
    os.remove(path)
    if not ok then error(log, 0) end
    return log
  end,
  ["pointmap"] = function(o) return tycho.pointmap(o) end,
  ["pointmap:refine"] = function(o)
    local s = tycho.scan.new({ angle_min = 0, angle_increment = 0.1, range_min = 0.1, range_max = 3 }, { 1, 1, 1 })
    return tycho.pointmap():refine(s, { x = 0, y = 0, yaw = 0 }, o)
  end,
  ["ros.scan"] = function(o) return tycho.ros.scan("", o) end,
  ["scan_matcher:set_map"] = function(o) return tycho.scan_matcher():set_map(grid(), o) end,
  ["scheduler.new"] = function(o) return tycho.scheduler.new(o) end,
  ["slam.new"] = function(o) return tycho.slam.new(o) end,
  ["slam:map"] = function(o) return tycho.slam.new():map(o) end,
  ["scheduler:after"] = function(o) return tycho.scheduler.new():after(1, function() end, o) end,
  ["scheduler:every"] = function(o) return tycho.scheduler.new():every(1, function() end, o) end,
  ["scheduler:run"] = function(o)
    local t = { max_steps = 1 }
    for k, v in pairs(o) do t[k] = v end
    return tycho.scheduler.new():run(t)
  end,
  ["swarm.new"] = function(o) return tycho.swarm.new(o) end,
  ["terrain.compare"] = function(o) return tycho.terrain.compare({ { 0, 0 }, { 1, 0 } }, { { 0, 0 }, { 1, 0 } }, o) end,
  ["terrain.heightfield"] = function(o)
    local t = { width = 4, height = 4 }
    for k, v in pairs(o) do t[k] = v end
    return tycho.terrain.heightfield(t)
  end,
  ["terrain.map"] = function(o)
    local t = { width = 4, height = 4 }
    for k, v in pairs(o) do t[k] = v end
    return tycho.terrain.map(t)
  end,
  ["terrain.robot"] = function(o) return tycho.terrain.robot(o) end,
  ["terrain_map:plan"] = function(o) return tycho.terrain.map { width = 4, height = 4 }:plan(0, 0, 3, 3, o) end,
  ["terrain_map:traversability"] = function(o)
    return tycho.terrain.map { width = 4, height = 4 }:traversability(o)
  end,
}

describe("every option-taking function", function()
  it("has a call here", function()
    for _, fn in ipairs(sorted_keys(options)) do
      assert(calls[fn], fn .. ": add a call to bindings_spec")
    end
    for fn in pairs(calls) do assert(options[fn], fn .. " declares no option spec") end
  end)

  it("refuses an unknown key, naming it, the function and every accepted key", function()
    for _, fn in ipairs(sorted_keys(options)) do
      local ok, err = pcall(calls[fn], { no_such_option = 1 })
      assert(not ok, fn .. " accepted an unknown option")
      local pattern = "unknown field 'no_such_option' in argument #%d+ to '" .. fn:gsub("%p", "%%%0") .. "'"
      assert(err:find(pattern), fn .. ": " .. err)
      for key in pairs(options[fn]) do
        assert(err:find(key, 1, true), fn .. ": " .. key .. " missing from " .. err)
      end
    end
  end)

  it("refuses a value of the wrong type, naming the key", function()
    for _, fn in ipairs(sorted_keys(options)) do
      for key, kind in pairs(options[fn]) do
        if kind ~= "any" then
          local wrong = kind == "boolean" and 1 or true
          local ok, err = pcall(calls[fn], { [key] = wrong })
          assert(not ok, fn .. " accepted " .. key .. " = " .. tostring(wrong))
          assert(err:find("'" .. key .. "'", 1, true), fn .. ": " .. err)
        end
      end
    end
  end)

  it("names a field engineer's typos", function()
    assert.error_matches(function() tycho.grid.new { width = 4, height = 4, resolutoin = 1 } end,
      "unknown field 'resolutoin' in argument #1 to 'grid.new' %(accepted: width, height, resolution, origin, fill%)")
    local g = grid()
    assert.error_matches(function() g:plan(0, 0, 5, 5, { connectivity = 4 }) end,
      "unknown field 'connectivity' in argument #5 to 'grid:plan' %(accepted: algorithm, weight, blocked_cost, " ..
      "allow_unknown, shorten%)")
  end)

  it("checks ranges", function()
    assert.error_matches(function() tycho.grid.new { width = 4, height = 4, fill = 300 } end,
      "bad field 'fill' in argument #1 to 'grid.new' %(must be in 0..255, got 300%)")
    assert.error_matches(function() grid():plan(0, 0, 5, 5, { weight = -1 }) end, "'weight'.*must be >= 0")
    assert.error_matches(function() tycho.grid.new { width = 4, height = 4, origin = { x = 0 } } end,
      "bad field 'y' in argument #1 %(origin")
  end)

  it("leaves a valid call as it was", function()
    local g = grid()
    local p = assert(g:plan(0, 0, 5, 5, { algorithm = "jps", allow_unknown = false }))
    assert.are.equal(6, #p)
    local g2 = tycho.grid.new { width = 3, height = 2, resolution = 0.25, origin = { 1, 2 }, fill = 7 }
    assert.are.same({ 3, 2, 0.25, 7 }, { g2.width, g2.height, g2.resolution, g2:get(0, 0) })
  end)
end)
