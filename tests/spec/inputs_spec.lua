-- Reliability (issue 14): inputs never silently shrink. Fleet inputs with
-- an unknown robot, missing goals or a cut-off stage.world are refused
-- with file:line (they used to run with the robots left and report
-- success); absurd but finite numbers (a resolution of 1e-300, an origin
-- of 1e308, a start at x = 1e10) are refused as out of range before any
-- conversion to cells.
local tycho = require "tycho"
local inputs = require "fleet.inputs"

local exe = require "helpers.exe"
local EXE = exe.EXE
local SRC = exe.SRC
local DATA = (os.getenv("TYCHO_TEST_DATA") or (SRC .. "/tests/data")) .. "/warehouse"
local TMP = os.tmpname()
os.remove(TMP)
os.execute("mkdir -p '" .. TMP .. "'")

local function read(path)
  local f = assert(io.open(path))
  local t = f:read("*a")
  f:close()
  return t
end

local function write(name, text)
  local path = TMP .. "/" .. name
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

local MAP, STARTS, GOALS = DATA .. "/map.yaml", DATA .. "/stage.world", DATA .. "/goals032/goals000.txt"

local function load_error(starts, goals, count)
  local ok, err = pcall(inputs.from_files, MAP, starts, goals, count)
  assert.is_false(ok, "loaded")
  return err
end

describe("fleet inputs never shrink #reliability", function()
  it("reads the whole warehouse set", function()
    local _, robots = inputs.from_files(MAP, STARTS, GOALS)
    assert.are.equal(32, #robots)
    local _, some = inputs.from_files(MAP, STARTS, GOALS, 5)
    assert.are.equal(5, #some)
  end)

  it("refuses a robot whose goal is missing or misnamed (it used to run the rest: 31/31)", function()
    local goals = read(GOALS):gsub("robot_5\n", "robot_999\n", 1)
    local err = load_error(STARTS, write("goals_renamed.txt", goals))
    assert.matches("stage%.world:%d+: robot_5 has no goal in .*goals_renamed%.txt", err)
  end)

  it("refuses a goal for a robot the world does not have", function()
    -- robot_5's block taken out of the world: its goal names an unknown robot
    local world = read(STARTS):gsub('%(\n  name "robot_5".-\n%)\n', "", 1)
    local err = load_error(write("no_robot5.world", world), GOALS)
    assert.matches("goals000%.txt:%d+: robot_5 is not a robot of .*no_robot5%.world", err)
  end)

  it("refuses fewer goals than robots", function()
    local lines, out = {}, {}
    for l in read(GOALS):gmatch("[^\n]*\n") do lines[#lines + 1] = l end
    for i = 1, 3 + 2 * 30 do out[i] = lines[i] end -- the header and robot_0..robot_29
    local err = load_error(STARTS, write("goals_short.txt", table.concat(out)))
    assert.matches("stage%.world:%d+: robot_30 has no goal in .*goals_short%.txt.*%(and 1 more", err)
  end)

  it("refuses a stage.world cut off part-way, with file:line", function()
    local text = read(STARTS)
    local at = text:find('name "robot_3"', 1, true)
    for _, cut in ipairs { at + 5, at + 20, at + 40 } do -- in robot_3's name, in its block, in its pose line
      local err = load_error(write("cut.world", text:sub(1, cut)), GOALS)
      assert.is_truthy(err:find("cut%.world:%d+: the file ends inside the block opened at line %d+")
        or err:find("cut%.world:%d+: pose %[") or err:find("cut%.world:%d+: robot_3 has no pose"), err)
    end
    -- cut exactly between two blocks it is a smaller world: said, not hidden
    local block_start = text:sub(1, at):match(".*()%(")
    local _, robots, notes = inputs.from_files(MAP, write("three.world", text:sub(1, block_start - 1)), GOALS)
    assert.are.equal(3, #robots)
    assert.are.same({ robots = 3, unused_goals = 97, unused_range = "robot_3..robot_99" }, notes)
  end)

  it("exits 2 (bad input) from the fleet mission with the message", function()
    local goals = write("goals_renamed2.txt", (read(GOALS):gsub("robot_7\n", "robot_777\n", 1)))
    local p = io.popen(("cd '%s' && '%s' run behaviors/fleet.lua --map '%s' --starts '%s' --goals '%s' --out '%s/o' 2>&1; "
      .. "echo rc=$?"):format(SRC, EXE, MAP, STARTS, goals, TMP))
    local text = p:read("*a")
    p:close()
    assert.matches("robot_7 has no goal", text)
    assert.matches("rc=2", text) -- a bad input file
  end)
end)

describe("absurd numbers are out of range #reliability", function()
  local function yaml(extra)
    return write("map.yaml", "image: " .. SRC .. "/maps/maze_small.pgm\nnegate: 0\noccupied_thresh: 0.65\n"
      .. "free_thresh: 0.196\n" .. extra)
  end

  it("in map files: resolution 1e-300, origin 1e308", function()
    local map, err = tycho.map.load(yaml("resolution: 1e-300\norigin: [0, 0, 0]\n"))
    assert.is_nil(map)
    assert.matches("resolution 1e%-300 m is out of range", err)
    map, err = tycho.map.load(yaml("resolution: 0.05\norigin: [1e308, 0, 0]\n"))
    assert.is_nil(map)
    assert.matches("origin x = 1e%+308 m is out of range", err)
    assert.is_truthy(tycho.map.load(yaml("resolution: 0.05\norigin: [-1, 2, 0]\n")))
  end)

  it("in map files: an image that is a symbolic link loop is not reported as missing", function()
    os.execute(("cd '%s' && ln -sf loop_b.pgm loop_a.pgm && ln -sf loop_a.pgm loop_b.pgm"):format(TMP))
    local path = write("loop.yaml", "image: loop_a.pgm\nresolution: 0.05\norigin: [0, 0, 0]\nnegate: 0\n"
      .. "occupied_thresh: 0.65\nfree_thresh: 0.196\n")
    local map, err = tycho.map.load(path)
    assert.is_nil(map)
    assert.matches("loop%.yaml: image '.*loop_a%.pgm': Too many levels of symbolic links", err)
  end)

  it("in world files: a start far off the map, integers too large", function()
    local world = [[return { map = "%s/maps/maze_small.yaml", start = {x = %s, y = 0.5, yaw = 0}, %s }]]
    local ok, err = pcall(tycho.sim.load, write("far.lua", world:format(SRC, "1e10", "")))
    assert.is_false(ok)
    assert.matches("far%.lua.*start %(10000000000%.000, 0%.500%).*leaves the map", err)
    ok, err = pcall(tycho.sim.load, write("big.lua", world:format(SRC, "0.5", "lidar = {beams = 1e12}")))
    assert.is_false(ok)
    assert.matches("lidar%.beams = 1e%+12 is out of range", err)
  end)

  it("in terrain worlds: coordinates of 1e308 and infinities", function()
    local world = [[return { size = {width = 10, height = 10}, start = {x = 1, y = 1}, goal = {x = 8, y = 8},
      obstacles = {{type = "box", x0 = %s, y0 = 1, x1 = 2, y1 = 2, top = 0.5}} }]]
    for _, v in ipairs { "1e308", "math.huge", "-1e7" } do
      local ok, err = pcall(require("terrain.world").load, write("terrain_far.lua", world:format(v)))
      assert.is_false(ok)
      assert.matches("terrain_far%.lua: obstacles%[1%] %(box%): 'x0'", err)
      assert.is_truthy(err:find("out of range") or err:find("must be finite"), err)
    end
  end)
end)
