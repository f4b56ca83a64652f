-- Every example command in README.md is run by a test, so the README cannot
-- drift from the program. The commands are read from the README's ```sh
-- blocks (continuation lines joined, `# comments` and `[optional ...]`
-- parts dropped) and each is classified:
--
--   run      `build/tycho ...` that ends by itself: run in a scratch folder
--            (with links to the tree's behaviors/, maps/, robots/, tests/ ...)
--            in README order (later examples read what earlier ones wrote),
--            and must exit 0;
--   check    `build/tycho ...` that waits for a person, a robot or a long
--            campaign (--repl, --realtime, --paused, --robot, attach, repl, --watch,
--            --viz, a 200-world campaign): the same command line with --help
--            appended must exit 0, so every option it names exists and parses;
--   elsewhere  commands other tests and CI run (scripts/test.sh is CI itself;
--            install, .deb, rock, fuzzing each have their test): listed here
--            with the test that runs them.
--
-- A README command that fits none of these fails the spec: a new example must
-- be made runnable or say where it is tested.
local exe = require "helpers.exe"

local SRC = exe.SRC

-- commands run by other tests (pattern on the command line -> where)
local ELSEWHERE = {
  { "^bash scripts/main%.sh", "CI's first step builds the same way; mission_spec runs heat_seek on maze_small" },
  { "^bash scripts/test%.sh", ".ci/run is this command" },
  { "^cmake ", "install_relocated (cmake --install into a prefix, moved, run)" },
  { "^/opt/tycho/", "install_relocated (the installed heat_seek from a moved prefix)" },
  { "^bash scripts/deb%.sh", "package_deb" },
  { "^sudo dpkg", "package_deb (dpkg -i, the mission from /usr, dpkg -r)" },
  { "^sudo bash scripts/deb_chroot%.sh", "package_deb_chroot (the .deb on a clean Debian 12 chroot)" },
  { "^tycho run /usr/", "package_deb" },
  { "^lua5%.4 %-e", "install_relocated and package_deb (require \"tycho\" from the stock interpreter)" },
  { "^scripts/bench%.sh", "bench_report_spec (the report), the benches themselves are not tests" },
  { "^scripts/figures%.sh %-%-check", "the ctest readme_figures runs it" },
  { "^scripts/warthog_anchor%.sh", "warthog_anchor_spec (with a stand-in: warthog is built outside the repository)" },
  { "^CC=clang cmake .*TYCHO_FUZZ", "the fuzz targets: built by hand (libFuzzer), see Fuzzing" },
  { "^build%-fuzz/", "the fuzz targets: built by hand (libFuzzer), see Fuzzing" },
  { "^build/tycho run script%.lua", "a placeholder for the user's own script (tycho run is in every spec)" },
  { "^build/tycho run behaviors/campaign%.lua %-%-worlds DIR", "campaign_spec (--worlds on generated worlds)" },
  { "^build/tycho run behaviors/slam_log%.lua %-%-carmen tests/data/carmen/",
    "slam_log_spec (the first 150 scans of the Intel log, --odometry-drift; a whole log takes seconds to minutes, minutes more under the sanitizers) and bench_slam_logs (every log, as it is and drifted)" },
  { "^build/tycho run behaviors/slam_log%.lua %-%-bag ", "node_rosbag_slam_test (a bag written by @mcap/core and @foxglove/cdr)" },
}

-- `build/tycho` commands that do not end by themselves or need a person,
-- a robot, or minutes: only their command line is checked (with --help)
local CHECK_ONLY = { "%-%-repl", "%-%-realtime", "%-%-paused", "%-%-robot", "%-%-watch", "%-%-viz", "^build/tycho attach",
                     "^build/tycho repl%s", "%-%-generate 200" }

local function read(path)
  local f = assert(io.open(path))
  local t = f:read("*a")
  f:close()
  return t
end

-- the README's example commands, in order
local function examples()
  local text = read(SRC .. "/README.md")
  local out = {}
  for block in text:gmatch("```sh\n(.-)```") do
    local joined = block:gsub("\\\n%s*", " ")
    for line in joined:gmatch("[^\n]+") do
      line = line:gsub("%s+#%s.*$", "") -- a trailing comment
      line = line:gsub("%s*%[[^%]]*%]", "") -- [optional parts]
      line = line:match("^%s*(.-)%s*$")
      if line ~= "" and not line:match("^#") then out[#out + 1] = line end
    end
  end
  return out
end

local function classify(cmd)
  for _, e in ipairs(ELSEWHERE) do
    if cmd:match(e[1]) then return "elsewhere", e[2] end
  end
  if not cmd:match("^build/tycho ") then return nil end
  for _, p in ipairs(CHECK_ONLY) do
    if cmd:match(p) then return "check" end
  end
  return "run"
end

describe("README examples #e2e", function()
  local cmds = examples()

  it("are found, and each is run, checked, or tested elsewhere", function()
    assert.is_true(#cmds >= 30, "only " .. #cmds .. " example commands found in README.md")
    for _, cmd in ipairs(cmds) do
      assert.is_truthy(classify(cmd), "README example not covered by any test: " .. cmd)
    end
  end)

  it("run as written (those that end by themselves) and parse (the others)", function()
    -- a scratch folder that looks like the top of the tree
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute(("mkdir -p %s/build"):format(exe.quote(dir))))
    for _, name in ipairs { "behaviors", "bindings", "maps", "robots", "tests", "schemas", "viz" } do
      os.execute(("[ -e %s/%s ] && ln -s %s/%s %s/%s"):format(exe.quote(SRC), name, exe.quote(SRC), name,
        exe.quote(dir), name))
    end
    -- build/tycho is the executable under test (whichever flavour ctest built)
    assert(os.execute(("ln -s %s %s/build/tycho"):format(exe.quote(exe.EXE), exe.quote(dir))))
    local ran, checked = 0, 0
    for _, cmd in ipairs(cmds) do
      local kind = classify(cmd)
      if kind == "run" or kind == "check" then
        local line = kind == "check" and (cmd .. " --help") or cmd
        local p = assert(io.popen(("cd %s && timeout 120 %s > .example.log 2>&1; echo $?"):format(exe.quote(dir),
          line)))
        local rc = tonumber(p:read("*a"))
        p:close()
        local log = read(dir .. "/.example.log")
        assert.are.equal(0, rc, ("README example (%s) exited %s:\n  %s\n%s"):format(kind, tostring(rc), line,
          log:sub(-2000)))
        if kind == "run" then ran = ran + 1 else checked = checked + 1 end
      end
    end
    os.execute("rm -rf " .. exe.quote(dir))
    print(("\nREADME examples: %d run, %d command lines checked with --help, %d tested elsewhere")
      :format(ran, checked, #cmds - ran - checked))
    assert.is_true(ran >= 10)
  end)
end)
