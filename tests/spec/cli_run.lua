--- Runs the real tycho executable for the CLI specs: exit code, stdout and
-- stderr kept apart (the conventions put results on stdout, log lines on
-- stderr).
local M = {}

M.EXE = os.getenv("TYCHO_EXE") or "build/tycho"

function M.shq(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local function slurp(path)
  local f = io.open(path)
  if not f then return "" end
  local text = f:read("*a")
  f:close()
  os.remove(path)
  return text
end

--- M.run({"run", "behaviors/x.lua", "--opt=v", ...} [, env]) -> code, stdout, stderr
function M.run(argv, env)
  local out, err = os.tmpname(), os.tmpname()
  local q = {}
  for k, v in pairs(env or {}) do q[#q + 1] = k .. "=" .. M.shq(v) end
  q[#q + 1] = M.shq(M.EXE)
  for _, a in ipairs(argv) do q[#q + 1] = M.shq(a) end
  local a, _, c = os.execute(table.concat(q, " ") .. " < /dev/null > " .. out .. " 2> " .. err)
  local code = c
  if type(a) == "number" then code = a >= 256 and math.floor(a / 256) or a end -- Lua 5.1 / LuaJIT
  return code, slurp(out), slurp(err)
end

function M.tmpdir()
  local d = os.tmpname()
  os.remove(d)
  return d
end

return M
