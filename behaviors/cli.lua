--- One command-line parser for tycho's tools and missions.
--
-- A tool declares its options once (name, type, default, range, doc) and
-- gets `--opt value` and `--opt=value`, `--help` generated from the
-- declaration, type and range checks, and one exit-code rule: 0 success,
-- 1 the run failed, 2 bad usage or a bad input file (a one-line message on
-- stderr naming the option, or the file and line; the usage after a usage
-- error; a traceback only with TYCHO_LOG=debug). Results and summaries go
-- to stdout, log lines to stderr.
--
--   local cli = require "cli"
--   local spec = cli.spec { prog = "gen_world", summary = "...", options = {
--     { name = "seed", type = "integer", default = 1, min = 0, doc = "random seed" },
--     { name = "temp", type = "range", default = { 34, 60 }, doc = "source temperatures" },
--     { name = "out", type = "string", required = true, metavar = "DIR", doc = "..." },
--     { name = "quiet", type = "boolean", doc = "..." },
--     { name = "set", type = "string", repeatable = true, metavar = "NAME=VALUE", doc = "..." },
--   } }
-- A repeatable option collects its values in order in an array (default {}).
-- An option with an optional value declares `bare` (its value when given
-- alone) and `takes(s)` (whether the next argument is its value).
-- cli.options(list, ...) concatenates option lists (a mission's own and the
-- session's --socket, --listen ...), so each is declared once.
--   local opt, err = spec:parse(arg)   -- nil, message on misuse
--   return cli.run(spec, arg, function(opt) ... return 0 end)
local M = {}

local Spec = {}
Spec.__index = Spec

local TYPES = { string = true, number = true, integer = true, boolean = true, range = true,
                pair = true, choice = true, list = true }

--- cli.spec{prog=, summary=, usage=, options={...}, positional=NAME} -> spec
-- Raises on a malformed declaration (that is the tool author's bug).
function M.spec(s)
  assert(type(s.prog) == "string", "cli.spec: prog must be a string")
  local by_name = {}
  for i, o in ipairs(s.options or {}) do
    assert(type(o.name) == "string", ("cli.spec: options[%d].name must be a string"):format(i))
    assert(TYPES[o.type], ("cli.spec: option --%s has unknown type %s"):format(o.name, tostring(o.type)))
    assert(o.type ~= "choice" or type(o.choices) == "table", "cli.spec: --" .. o.name .. " needs choices")
    assert(not by_name[o.name], "cli.spec: option --" .. o.name .. " declared twice")
    if o.short then
      assert(type(o.short) == "string" and #o.short == 1 and o.short ~= "h", "cli.spec: --" .. o.name .. ": short must be one letter (not h)")
      assert(not by_name["-" .. o.short], "cli.spec: -" .. o.short .. " declared twice")
      by_name["-" .. o.short] = o
    end
    assert(not o.repeatable or o.type ~= "boolean", "cli.spec: --" .. o.name .. ": a boolean cannot repeat")
    assert(o.bare == nil or type(o.takes) == "function", "cli.spec: --" .. o.name .. ": bare needs takes(value)")
    by_name[o.name] = o
  end
  s.by_name = by_name
  s.options = s.options or {}
  return setmetatable(s, Spec)
end

--- cli.options(list1, list2, ...) -> one list with every declaration, in order.
function M.options(...)
  local out = {}
  for i = 1, select("#", ...) do
    for _, o in ipairs((select(i, ...))) do out[#out + 1] = o end
  end
  return out
end

local function fmt_default(o)
  local d = o.default
  if d == nil then return nil end
  if o.type == "range" or o.type == "pair" then return ("%s,%s"):format(d[1], d[2]) end
  if o.type == "list" then return table.concat(d, ",") end
  return tostring(d)
end

--- The usage text, generated from the declaration.
function Spec:usage()
  local lines = { self.command and ("usage: %s %s"):format(self.command, self.usage_line or "[options]")
                  or ("usage: tycho run behaviors/%s.lua %s"):format(self.prog, self.usage_line or "[options]") }
  if self.summary then lines[#lines + 1] = self.summary end
  lines[#lines + 1] = "options (--opt VALUE or --opt=VALUE):"
  for _, o in ipairs(self.options) do
    local head = (o.short and ("  -" .. o.short .. ", --") or "  --") .. o.name
    if o.type ~= "boolean" then head = head .. " " .. (o.metavar or o.type:upper()) end
    local doc = o.doc or ""
    if o.type == "choice" then doc = doc .. " (" .. table.concat(o.choices, "|") .. ")" end
    if o.min or o.max then doc = doc .. (" [%s..%s]"):format(o.min or "", o.max or "") end
    local d = fmt_default(o)
    if d then doc = doc .. " (default " .. d .. ")" end
    if o.required then doc = doc .. " (required)" end
    if o.repeatable then doc = doc .. " (repeatable)" end
    if #head < 24 then lines[#lines + 1] = head .. (" "):rep(24 - #head) .. doc
    else lines[#lines + 1] = head .. "\n" .. (" "):rep(24) .. doc end
  end
  lines[#lines + 1] = "  --help                show this text"
  if self.epilog then lines[#lines + 1] = self.epilog end
  return table.concat(lines, "\n") .. "\n"
end

local function check_range(o, v)
  if (o.min and v < o.min) or (o.max and v > o.max) then
    return nil, ("--%s must be in [%s, %s] (got %s)"):format(o.name, o.min or "-inf", o.max or "inf", v)
  end
  return v
end

local function convert(o, raw)
  local t = o.type
  if t == "string" then
    if raw == "" and not o.allow_empty then return nil, "--" .. o.name .. " must not be empty" end
    return raw
  elseif t == "number" or t == "integer" then
    local v = tonumber(raw)
    if not v or v ~= v or v == math.huge or v == -math.huge then
      return nil, ("--%s expects a number (got '%s')"):format(o.name, raw)
    end
    if t == "integer" and v ~= math.floor(v) then
      return nil, ("--%s expects an integer (got '%s')"):format(o.name, raw)
    end
    if t == "integer" then v = math.floor(v) end
    return check_range(o, v)
  elseif t == "range" then
    local a, b = raw:match("^%s*([^,]+)%s*,%s*([^,]+)%s*$")
    if not a then a = raw:match("^%s*([^,]+)%s*$") b = a end
    a, b = tonumber(a), tonumber(b)
    if not a or not b then return nil, ("--%s expects LO,HI (got '%s')"):format(o.name, raw) end
    if a > b then return nil, ("--%s: LO must be <= HI (got %s,%s)"):format(o.name, a, b) end
    local ok, err = check_range(o, a)
    if ok then ok, err = check_range(o, b) end
    if not ok then return nil, err end
    return { a, b }
  elseif t == "pair" then -- X,Y (a point)
    local a, b = raw:match("^%s*([^,]+)%s*,%s*([^,]+)%s*$")
    a, b = tonumber(a), tonumber(b)
    if not a or not b or a ~= a or b ~= b or math.abs(a) == math.huge or math.abs(b) == math.huge then
      return nil, ("--%s expects X,Y (got '%s')"):format(o.name, raw)
    end
    return { a, b }
  elseif t == "choice" then
    for _, c in ipairs(o.choices) do if c == raw then return raw end end
    return nil, ("--%s must be one of %s (got '%s')"):format(o.name, table.concat(o.choices, ", "), raw)
  elseif t == "list" then
    local out = {}
    for item in raw:gmatch("[^,]+") do out[#out + 1] = item end
    return out
  end
end

--- spec:parse(argv) -> opt | nil, message. `opt` has every option (the
-- default when not given), `opt._given[name]` for the ones on the command
-- line, `opt._rest` the positional arguments, `opt.help` for --help.
function Spec:parse(argv)
  local opt, given, rest = {}, {}, {}
  local i = 1
  while i <= #argv do
    local a = argv[i]
    if a == "--help" or a == "-h" then
      opt.help = true
      i = i + 1
    elseif a == "--" then
      for k = i + 1, #argv do rest[#rest + 1] = argv[k] end
      break
    elseif a:sub(1, 2) == "--" or (#a == 2 and a:sub(1, 1) == "-" and self.by_name[a]) then
      local name, inline = a:match("^%-%-([^=]+)=(.*)$")
      name = name or a:sub(3)
      local o = self.by_name[name]
      if a:sub(2, 2) ~= "-" then o = self.by_name[a] name = o.name end
      if not o then
        return nil, ("unknown option '--%s'"):format(name)
      end
      if given[name] and o.type ~= "list" and not o.repeatable then return nil, "--" .. name .. " given twice" end
      if o.type == "boolean" then
        if inline == nil then opt[name] = true
        elseif inline == "true" or inline == "1" or inline == "yes" then opt[name] = true
        elseif inline == "false" or inline == "0" or inline == "no" then opt[name] = false
        else return nil, ("--%s expects no value or true/false (got '%s')"):format(name, inline) end
        i = i + 1
      elseif inline == nil and o.bare ~= nil and not (argv[i + 1] and o.takes(argv[i + 1])) then
        -- an option whose value is optional (`--viz` or `--viz 9000`): the next
        -- argument is its value only when o.takes says it looks like one
        opt[name] = o.bare
        i = i + 1
      else
        local raw = inline
        if raw == nil then
          raw = argv[i + 1]
          if raw == nil then return nil, "--" .. name .. " needs a value" end
          i = i + 2
        else
          i = i + 1
        end
        local v, err = convert(o, raw)
        if v == nil then return nil, err end
        if o.repeatable then
          opt[name] = opt[name] or {}
          opt[name][#opt[name] + 1] = v
        elseif o.type == "list" and given[name] then
          for _, item in ipairs(v) do opt[name][#opt[name] + 1] = item end
        else
          opt[name] = v
        end
      end
      given[name] = true
    else
      if not self.positional then return nil, ("unexpected argument '%s'"):format(a) end
      rest[#rest + 1] = a
      i = i + 1
    end
  end
  if not opt.help then
    for _, o in ipairs(self.options) do
      if o.required and not given[o.name] then return nil, "--" .. o.name .. " is required" end
    end
  end
  for _, o in ipairs(self.options) do
    if opt[o.name] == nil and o.default ~= nil then opt[o.name] = o.default end
    if opt[o.name] == nil and o.repeatable then opt[o.name] = {} end
  end
  opt._given, opt._rest = given, rest
  return opt
end

--- The arguments back as strings, for a tool that runs another with the
-- same options: {"--name=value", ...} for the given ones, in declaration order.
function Spec:argv_of(opt)
  local out = {}
  for _, o in ipairs(self.options) do
    if opt._given and opt._given[o.name] then
      local v = opt[o.name]
      if o.type == "boolean" then out[#out + 1] = "--" .. o.name .. "=" .. tostring(v)
      elseif o.repeatable then for _, x in ipairs(v) do out[#out + 1] = "--" .. o.name .. "=" .. tostring(x) end
      elseif o.type == "range" or o.type == "pair" then out[#out + 1] = ("--%s=%s,%s"):format(o.name, v[1], v[2])
      elseif o.type == "list" then out[#out + 1] = "--" .. o.name .. "=" .. table.concat(v, ",")
      else out[#out + 1] = "--" .. o.name .. "=" .. tostring(v) end
    end
  end
  return out
end

--- The first line of an error message (file:line: why), without the
-- traceback unless TYCHO_LOG=debug.
local function one_line(err, tb)
  local msg = type(err) == "table" and err.cli_input or tostring(err)
  if os.getenv("TYCHO_LOG") == "debug" and tb then return msg .. "\n" .. tb end
  return (msg:match("^[^\n]*"))
end

--- cli.load(prog, fn, ...) -> fn's results | nil, 2. Runs a loader of an
-- input file (a world, a map, a parameter file) that raises on a bad file
-- or returns nil, message (tycho.map.load); its failure is a bad input:
-- "prog: file:line: why" on stderr, exit code 2.
function M.load(prog, fn, ...)
  if type(fn) ~= "function" then error("bad argument #2 to 'load' (function expected)", 2) end
  local function pack(...) return { n = select("#", ...), ... } end
  local res = pack(xpcall(fn, debug.traceback, ...))
  if not res[1] then
    local err = res[2]
    local msg, tb = tostring(err):match("^(.-)\n(stack traceback:.*)$")
    io.stderr:write(prog, ": ", one_line(msg or err, tb), "\n")
    return nil, 2
  end
  -- a loader that reports a bad file as nil, message (tycho.map.load)
  if res[2] == nil and type(res[3]) == "string" then
    io.stderr:write(prog, ": ", one_line(res[3]), "\n")
    return nil, 2
  end
  return (table.unpack or unpack)(res, 2, res.n)
end

--- Prints a usage error on stderr (one line, naming what is wrong and
-- where the usage is) and returns the exit code 2.
function M.usage_error(spec, msg)
  io.stderr:write(spec.prog, ": ", (tostring(msg):gsub("\n", " ")), " (--help for usage)\n")
  return 2
end

--- cli.run(spec, argv, main) -> exit code: parses (exit 2 on misuse,
-- 0 after --help), then returns main(opt)'s code. An error raised by main
-- whose message is a table {usage = "..."} is also a usage error.
function M.run(spec, argv, main)
  local opt, err = spec:parse(argv)
  if not opt then return M.usage_error(spec, err) end
  if opt.help then io.write(spec:usage()) return 0 end
  return main(opt)
end

return M
