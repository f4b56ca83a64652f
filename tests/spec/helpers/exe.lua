-- The one way a spec runs the tycho executable and reads what it wrote.
--
--   local exe = require "helpers.exe"
--   local code, output = exe.run { "run", "behaviors/fleet.lua", "--out", dir }
--   local summary = exe.read_json(dir .. "/summary.json")
--
-- ctest sets TYCHO_EXE (the executable built with the spec's flavour) and
-- TYCHO_SOURCE_DIR; a spec run by hand from the top of the tree falls back
-- to build/tycho and ".". Commands run from the source folder, so the
-- bundled paths (behaviors/…, maps/…) resolve as in the README.
local json = require "json_decode"

local M = {}

-- absolute, so that a spec writing a file elsewhere (a world in /tmp) can
-- still name the tree's maps and data from it
local function cwd()
  local pwd = os.getenv("PWD")
  if pwd and pwd:sub(1, 1) == "/" then return pwd end
  local p = io.popen("pwd")
  local d = p and p:read("*l")
  if p then p:close() end
  return d or "."
end
M.SRC = os.getenv("TYCHO_SOURCE_DIR") or cwd()
M.EXE = os.getenv("TYCHO_EXE") or (M.SRC .. "/build/tycho")
M.DATA = os.getenv("TYCHO_TEST_DATA") or (M.SRC .. "/tests/data")

-- A word for the shell, whatever it holds.
function M.quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

-- Runs a shell command line from the source folder; returns the exit code
-- and everything it printed (stdout and stderr together).
-- opts.timeout: seconds before `timeout` stops it (exit code 124)
function M.shell(command, opts)
  opts = opts or {}
  if opts.timeout then command = ("timeout %d %s"):format(opts.timeout, command) end
  local p = assert(io.popen(("cd %s && { %s ; } 2>&1; echo \"rc=$?\""):format(M.quote(M.SRC), command)))
  local text = p:read("*a")
  p:close()
  local code = tonumber(text:match("rc=(%d+)%s*$"))
  return code, (text:gsub("rc=%d+%s*$", ""))
end

-- Runs the executable with a list of arguments (each quoted) or with an
-- argument string already written for the shell; returns exit code, output.
function M.run(args, opts)
  if type(args) == "table" then
    local q = {}
    for i, a in ipairs(args) do q[i] = M.quote(a) end
    args = table.concat(q, " ")
  end
  return M.shell(M.quote(M.EXE) .. " " .. args, opts)
end

-- Starts the executable without waiting for it; returns a handle whose
-- :wait() blocks until it has ended and returns its exit code and output
-- (kept in a file meanwhile: a run that writes much never blocks on a pipe).
function M.start(args)
  if type(args) == "table" then
    local q = {}
    for i, a in ipairs(args) do q[i] = M.quote(a) end
    args = table.concat(q, " ")
  end
  local log = os.tmpname()
  local p = assert(io.popen(("cd %s && { %s %s > %s 2>&1; echo \"rc=$?\"; }"):format(M.quote(M.SRC), M.quote(M.EXE),
    args, M.quote(log)), "r"))
  return {
    wait = function()
      local rc = tonumber(p:read("*a"):match("rc=(%d+)"))
      p:close()
      local f = io.open(log)
      local output = f and f:read("*a") or ""
      if f then f:close() end
      os.remove(log)
      return rc, output
    end,
  }
end

-- A fresh folder name (not created) and a way to remove one with its contents.
function M.tmpdir()
  local d = os.tmpname()
  os.remove(d)
  return d
end

function M.remove_tree(path)
  os.execute("rm -rf " .. M.quote(path))
end

-- The decoded JSON file, or nil when it is missing.
function M.read_json(path)
  local f = io.open(path)
  if not f then return nil end
  local text = f:read("*a")
  f:close()
  return json.decode(text)
end

-- Writes text to a file (raising when it cannot).
function M.write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

function M.exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

return M
