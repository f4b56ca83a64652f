--- What the Lua scripts in scripts/ share (they run under a plain lua5.4,
-- not the runtime, so behaviors/cli.lua is not theirs): reading a file,
-- writing one atomically, and a small command line (--flag, --name VALUE,
-- -h/--help) that exits 2 with one line on a bad option.
local M = {}

--- A file's contents, or nil when it cannot be read.
function M.read_file(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read "*a"
  f:close()
  return s
end

--- Writes text beside path and renames it over path: a reader sees the old
-- file or the whole new one. Returns true, or nil and the reason.
function M.write_atomic(path, text)
  local tmp = path .. ".tmp"
  local f, err = io.open(tmp, "wb")
  if not f then return nil, err end
  local ok, werr = f:write(text)
  f:close()
  if not ok then
    os.remove(tmp)
    return nil, werr
  end
  return os.rename(tmp, path)
end

--- args.parse(argv, {prog =, usage = {lines}, flags = {name = true}, values = {name = true}}, o)
-- -> o with o[name] = true for a flag and the value for a valued option.
function M.parse_args(argv, spec, o)
  local i = 1
  while i <= #argv do
    local a = argv[i]
    local name = a:match "^%-%-([%w_-]+)$"
    if a == "-h" or a == "--help" then
      for _, line in ipairs(spec.usage) do print(line) end
      os.exit(0)
    elseif name and spec.flags and spec.flags[name] then
      o[name] = true
    elseif name and spec.values and spec.values[name] then
      if argv[i + 1] == nil then
        io.stderr:write(spec.prog, ": ", a, " needs a value\n")
        os.exit(2)
      end
      o[name] = argv[i + 1]
      i = i + 1
    else
      io.stderr:write(spec.prog, ": unknown option '", a, "' (see --help)\n")
      os.exit(2)
    end
    i = i + 1
  end
  return o
end

return M
