--- Parameters: declared in one place with type, default, range, unit and doc;
-- validated on every change; tunable live (REPL) and from the command line.
--
--   local p = params.declare("heat_seek", {
--     temperature_threshold = { type = "number", default = 40, min = 0, max = 80,
--                               unit = "°C", doc = "a pixel above this is hot" },
--     mode = { type = "enum", values = { "explore", "patrol" }, default = "explore",
--              doc = "what to do first" },
--   })
--   p.temperature_threshold            --> 40
--   p:set("temperature_threshold", 95) --> nil, "temperature_threshold: 95 is out of range 0..80 °C"
--   p.temperature_threshold = 95       --> raises the same message
--   p:set_string("mode", "patrol")     -- text from the CLI, parsed by type
--   params.apply_args(arg)             -- every "--set [group.]name=value"
--
-- Types: number, integer, boolean, string, enum. A map of specs lists in
-- name order; an array of specs with `name` fields keeps its order.
-- Declaring a group again (hot reload) updates the same object in place and
-- keeps each current value that is still valid under the new spec.
local params = {}

local groups = {}      -- name -> params object
params.groups = groups

local TYPES = { number = true, integer = true, boolean = true, string = true, enum = true }
local SPEC_FIELDS = { type = true, default = true, min = true, max = true, values = true,
                      unit = true, doc = true, name = true }
local S = {} -- private key of each object's state

local Params = {}     -- methods
local MT = {}

--- Where callback errors go (the log module may replace it).
function params.report(msg) io.stderr:write("params: ", msg, "\n") end

local function num(v)
  if v ~= v then return "NaN" end
  if v == math.huge then return "inf" elseif v == -math.huge then return "-inf" end
  if v == math.floor(v) and math.abs(v) < 1e15 then return ("%d"):format(v) end
  return ("%.10g"):format(v)
end

local function repr(v)
  if type(v) == "string" then return ("'%s'"):format(v) end
  if type(v) == "number" then return num(v) end
  return tostring(v)
end

local function unit_suffix(spec) return spec.unit and spec.unit ~= "" and (" " .. spec.unit) or "" end

--- Human form of a spec's range: "0..80 °C", ">= 0 s", "'a', 'b'" or "".
local function range_text(spec)
  if spec.type == "enum" then
    local vs = {}
    for i, v in ipairs(spec.values) do vs[i] = repr(v) end
    return table.concat(vs, ", ")
  end
  local u = unit_suffix(spec)
  if spec.min and spec.max then return num(spec.min) .. ".." .. num(spec.max) .. u end
  if spec.min then return ">= " .. num(spec.min) .. u end
  if spec.max then return "<= " .. num(spec.max) .. u end
  return ""
end

-- Returns the normalised value or nil, message.
local function check_value(name, spec, v)
  local t = spec.type
  if t == "number" or t == "integer" then
    if type(v) ~= "number" then
      return nil, ("%s: expected %s %s, got %s %s"):format(name, t == "integer" and "an" or "a",
        t, type(v), repr(v))
    end
    if v ~= v then return nil, name .. ": NaN is not a number" end
    if t == "integer" then
      if v ~= math.floor(v) or v == math.huge or v == -math.huge then
        return nil, ("%s: %s is not an integer"):format(name, num(v))
      end
      v = math.tointeger and math.tointeger(v) or v
    end
    local lo, hi = spec.min, spec.max
    if (lo and v < lo) or (hi and v > hi) then
      if lo and hi then
        return nil, ("%s: %s is out of range %s"):format(name, num(v), range_text(spec))
      elseif lo then
        return nil, ("%s: %s is below the minimum %s%s"):format(name, num(v), num(lo), unit_suffix(spec))
      end
      return nil, ("%s: %s is above the maximum %s%s"):format(name, num(v), num(hi), unit_suffix(spec))
    end
    return v
  elseif t == "boolean" then
    if type(v) ~= "boolean" then
      return nil, ("%s: expected a boolean, got %s %s"):format(name, type(v), repr(v))
    end
    return v
  elseif t == "string" then
    if type(v) ~= "string" then
      return nil, ("%s: expected a string, got %s %s"):format(name, type(v), repr(v))
    end
    return v
  end
  for _, x in ipairs(spec.values) do if x == v then return v end end
  return nil, ("%s: %s is not one of %s"):format(name, repr(v), range_text(spec))
end

local BOOL_WORDS = { ["true"] = true, yes = true, on = true, ["1"] = true,
                     ["false"] = false, no = false, off = false, ["0"] = false }

-- Text (CLI, console) to a typed value, or nil, message.
local function parse_text(name, spec, text)
  local t = spec.type
  local s = text:match("^%s*(.-)%s*$")
  if t == "number" or t == "integer" then
    local v = tonumber(s)
    if v == nil then return nil, ("%s: '%s' is not a number"):format(name, text) end
    return v
  elseif t == "boolean" then
    local v = BOOL_WORDS[s:lower()]
    if v == nil then
      return nil, ("%s: '%s' is not a boolean (true/false, yes/no, on/off, 1/0)"):format(name, text)
    end
    return v
  elseif t == "enum" then
    for _, x in ipairs(spec.values) do
      if tostring(x) == s then return x end
    end
    return nil, ("%s: '%s' is not one of %s"):format(name, text, range_text(spec))
  end
  return text
end

local RESERVED = {}

local function check_spec(name, spec, problems)
  local function bad(fmt, ...) problems[#problems + 1] = name .. ": " .. fmt:format(...) end
  if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then
    problems[#problems + 1] = ("parameter names must be identifiers, got %s"):format(repr(name))
    return nil
  end
  if RESERVED[name] then bad("name is reserved (a method of the params object)") return nil end
  if type(spec) ~= "table" then bad("spec must be a table, got %s", type(spec)) return nil end
  local n0 = #problems
  for k in pairs(spec) do
    if not SPEC_FIELDS[k] then bad("unknown field '%s'", tostring(k)) end
  end
  if not TYPES[spec.type] then
    bad("type must be number, integer, boolean, string or enum, got %s", repr(spec.type))
    return nil
  end
  local numeric = spec.type == "number" or spec.type == "integer"
  for _, k in ipairs { "min", "max" } do
    if spec[k] ~= nil and (not numeric or type(spec[k]) ~= "number" or spec[k] ~= spec[k]) then
      bad("%s only applies to number and integer parameters and must be a number", k)
    end
  end
  if numeric and type(spec.min) == "number" and type(spec.max) == "number" and spec.min > spec.max then
    bad("min %s is greater than max %s", num(spec.min), num(spec.max))
  end
  if spec.type == "enum" then
    if type(spec.values) ~= "table" or #spec.values == 0 then
      bad("an enum needs values = { ... }")
    end
  elseif spec.values ~= nil then
    bad("values only applies to enum parameters")
  end
  if spec.unit ~= nil and type(spec.unit) ~= "string" then bad("unit must be a string") end
  if type(spec.doc) ~= "string" or spec.doc == "" then bad("needs a doc string") end
  if #problems > n0 then return nil end
  local out = { name = name, type = spec.type, min = spec.min, max = spec.max, unit = spec.unit,
                doc = spec.doc, values = spec.values }
  if spec.default == nil then bad("needs a default") return nil end
  local v, msg = check_value(name, out, spec.default)
  if v == nil then
    problems[#problems + 1] = msg:gsub("^(" .. name .. ": )", "%1default ", 1)
    return nil
  end
  out.default = v
  return out
end

-- Normalises the declaration to an ordered array of checked specs.
local function check_specs(group, specs)
  local problems, list = {}, {}
  if type(specs) ~= "table" then return nil, { "specs must be a table" } end
  if #specs > 0 then
    for i, sp in ipairs(specs) do
      if type(sp) ~= "table" then
        problems[#problems + 1] = ("spec #%d must be a table"):format(i)
      else
        local c = check_spec(sp.name, sp, problems)
        if c then list[#list + 1] = c end
      end
    end
  else
    local names = {}
    for k in pairs(specs) do names[#names + 1] = k end
    table.sort(names, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(names) do
      local sp = specs[k]
      if type(sp) == "table" and sp.name ~= nil and sp.name ~= k then
        problems[#problems + 1] = ("%s: name field '%s' differs from its key"):format(k, tostring(sp.name))
      else
        local c = check_spec(k, sp, problems)
        if c then list[#list + 1] = c end
      end
    end
  end
  local seen = {}
  for _, c in ipairs(list) do
    if seen[c.name] then problems[#problems + 1] = c.name .. ": declared twice" end
    seen[c.name] = true
  end
  if #problems > 0 then return nil, problems end
  return list
end

--- params.declare(group, specs) -> params object, notes (array of strings:
-- values reset on re-declaration). Raises one error listing every problem.
function params.declare(group, specs)
  if type(group) ~= "string" or group == "" then
    error("bad argument #1 to 'declare' (group name expected)", 2)
  end
  local list, problems = check_specs(group, specs)
  if not list then
    error(("params '%s' declaration is invalid:\n  %s"):format(group, table.concat(problems, "\n  ")), 2)
  end
  local p = groups[group]
  local notes = {}
  local st
  if p then
    st = rawget(p, S)
  else
    p = setmetatable({}, MT)
    st = { group = group, values = {}, callbacks = {}, any = {} }
    rawset(p, S, st)
    groups[group] = p
  end
  local old_specs, old_values = st.specs or {}, st.values
  st.specs, st.order, st.values = {}, list, {}
  for _, c in ipairs(list) do
    st.specs[c.name] = c
    local ov = old_values[c.name]
    local keep = ov ~= nil and old_specs[c.name] and check_value(c.name, c, ov)
    if keep ~= nil and keep ~= false then
      st.values[c.name] = keep
    else
      st.values[c.name] = c.default
      if ov ~= nil then
        notes[#notes + 1] = ("%s: %s no longer valid, reset to %s"):format(c.name, repr(ov), repr(c.default))
      end
    end
  end
  for name in pairs(st.callbacks) do
    if not st.specs[name] then st.callbacks[name] = nil end
  end
  return p, notes
end

--- params.get(group) -> the declared object or nil; params.release(group) forgets it.
function params.get(group) return groups[group] end
function params.release(group) groups[group] = nil end

local function state(p)
  local st = type(p) == "table" and rawget(p, S)
  if not st then error("params method called on something else (use p:method(), not p.method())", 3) end
  return st
end

local function notify(st, name, new, old)
  local function call(fn)
    local ok, err = xpcall(fn, debug.traceback, new, old, name)
    if not ok then params.report(("%s.%s on_change callback failed: %s"):format(st.group, name, err)) end
  end
  for _, fn in ipairs(st.callbacks[name] or {}) do call(fn) end
  for _, fn in ipairs(st.any) do call(fn) end
end

--- p:set(name, value) -> true | nil, message
function Params:set(name, value)
  local st = state(self)
  local spec = st.specs[name]
  if not spec then return nil, ("unknown parameter '%s' in group '%s'"):format(tostring(name), st.group) end
  local v, msg = check_value(name, spec, value)
  if v == nil then return nil, msg end
  local old = st.values[name]
  st.values[name] = v
  if old ~= v then notify(st, name, v, old) end
  return true
end

--- p:set_string(name, text) parses text by the parameter's type, then sets.
function Params:set_string(name, text)
  local st = state(self)
  local spec = st.specs[name]
  if not spec then return nil, ("unknown parameter '%s' in group '%s'"):format(tostring(name), st.group) end
  if type(text) ~= "string" then return nil, name .. ": text expected" end
  local v, msg = parse_text(name, spec, text)
  if v == nil then return nil, msg end
  return self:set(name, v)
end

function Params:get(name)
  local st = state(self)
  if not st.specs[name] then return nil, ("unknown parameter '%s' in group '%s'"):format(tostring(name), st.group) end
  return st.values[name]
end

--- p:reset([name]) back to the default(s).
function Params:reset(name)
  local st = state(self)
  if name ~= nil then
    local spec = st.specs[name]
    if not spec then return nil, ("unknown parameter '%s' in group '%s'"):format(tostring(name), st.group) end
    return self:set(name, spec.default)
  end
  for _, c in ipairs(st.order) do self:set(c.name, c.default) end
  return true
end

--- p:on_change(name | "*", fn(value, old, name)) -> unsubscribe function
function Params:on_change(name, fn)
  local st = state(self)
  if type(fn) ~= "function" then error("bad argument #2 to 'on_change' (function expected)", 2) end
  local list
  if name == "*" then
    list = st.any
  else
    if not st.specs[name] then
      error(("bad argument #1 to 'on_change' (unknown parameter '%s')"):format(tostring(name)), 2)
    end
    st.callbacks[name] = st.callbacks[name] or {}
    list = st.callbacks[name]
  end
  list[#list + 1] = fn
  return function()
    for i = #list, 1, -1 do if list[i] == fn then table.remove(list, i) return true end end
    return false
  end
end

--- p:list() -> array of {name, type, value, default, unit, min, max, values, range, doc}
function Params:list()
  local st = state(self)
  local out = {}
  for i, c in ipairs(st.order) do
    out[i] = { name = c.name, type = c.type, value = st.values[c.name], default = c.default,
               unit = c.unit, min = c.min, max = c.max, values = c.values,
               range = range_text(c), doc = c.doc }
  end
  return out
end

--- p:describe() -> the group as text, a line per parameter: name, value,
-- unit, range, doc (what a mission's --params prints).
function Params:describe()
  local lines = {}
  for _, e in ipairs(self:list()) do
    lines[#lines + 1] = ("%-24s %-8s %s%s  %s"):format(e.name, tostring(e.value), e.unit and (e.unit .. " ") or "",
      e.min and ("[" .. tostring(e.min) .. ".." .. tostring(e.max) .. "]") or "", e.doc or "")
  end
  return table.concat(lines, "\n")
end

--- p:describe_json() -> the group as JSON: {"group":..., "parameters":[{name, type,
-- value, default, unit, min, max, values, doc}, ...]} (what --params --json prints).
function Params:describe_json()
  local json = require "json"
  local list = {}
  for i, e in ipairs(self:list()) do
    list[i] = { name = e.name, type = e.type, value = e.value, default = e.default, unit = e.unit,
                min = e.min, max = e.max, values = e.values, doc = e.doc }
  end
  return json.encode { group = self:group(), parameters = list }
end

--- p:describe_yaml() -> the group's current values as a ROS 2 parameter file
-- (`group: ros__parameters: name: value`), each with its doc and range as a
-- comment: what --params --yaml prints, and what --params-file reads back.
function Params:describe_yaml()
  local json = require "json"
  local lines = { ("# tycho parameters, group %s (ROS 2 parameter file layout)"):format(self:group()),
                  self:group() .. ":", "  ros__parameters:" }
  for _, e in ipairs(self:list()) do
    local comment = (e.doc or "") .. (e.range ~= "" and (" [" .. e.range .. "]") or "")
    lines[#lines + 1] = "    # " .. comment:gsub("[%c]", " ")
    local v = e.value
    local text
    if type(v) == "string" then text = json.encode_string(v) -- a JSON string is a YAML double-quoted scalar
    elseif type(v) == "number" then
      if v ~= v then text = ".nan" elseif v == math.huge then text = ".inf" elseif v == -math.huge then text = "-.inf"
      else text = json.encode_number(v) end
    else text = tostring(v) end
    lines[#lines + 1] = ("    %s: %s"):format(e.name, text)
  end
  return table.concat(lines, "\n")
end

--- p:spec(name) -> the checked declaration of one parameter.
function Params:spec(name) return state(self).specs[name] end

function Params:group() return state(self).group end

function Params:to_table()
  local st = state(self)
  local t = {}
  for _, c in ipairs(st.order) do t[c.name] = st.values[c.name] end
  return t
end

--- p:apply_table(t) -> ok, problems. Applies every valid entry (in name
-- order) and reports each bad one; never stops at the first.
function Params:apply_table(t)
  if type(t) ~= "table" then error("bad argument #1 to 'apply_table' (table expected)", 2) end
  local problems = {}
  local names = {}
  for k in pairs(t) do names[#names + 1] = k end
  table.sort(names, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(names) do
    local ok, msg = self:set(k, t[k])
    if not ok then problems[#problems + 1] = msg end
  end
  return #problems == 0, problems
end

-- The setters a loader uses: the object's own, or (dry run, for --strict's
-- check before anything changes) ones that only check.
local function setters(self, dry)
  if not dry then
    return function(n, v) return self:set(n, v) end, function(n, t) return self:set_string(n, t) end
  end
  local st = state(self)
  local function set(n, v)
    local spec = st.specs[n]
    if not spec then return nil, ("unknown parameter '%s' in group '%s'"):format(tostring(n), st.group) end
    local ok, msg = check_value(n, spec, v)
    if ok == nil then return nil, msg end
    return true
  end
  local function set_string(n, t)
    local spec = st.specs[n]
    if not spec then return nil, ("unknown parameter '%s' in group '%s'"):format(tostring(n), st.group) end
    local v, msg = parse_text(n, spec, t)
    if v == nil then return nil, msg end
    return set(n, v)
  end
  return set, set_string
end

-- Values in a parameter file. Strings are quoted with every byte that could
-- end the line or the string escaped (\" \\ \n \r \t, other control bytes
-- as \ddd; bytes >= 128, UTF-8, as they are), so any string comes back
-- exactly; numbers are written with as many digits as they need to come
-- back exactly (an integer as one, inf as 1e999).
local ESCAPES = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

local function encode_string(v)
  return '"' .. v:gsub('[%c"\\]', function(c) return ESCAPES[c] or ("\\%03d"):format(c:byte()) end) .. '"'
end

local UNESCAPES = { n = "\n", r = "\r", t = "\t", a = "\a", b = "\b", f = "\f", v = "\v",
                    ['"'] = '"', ["'"] = "'", ["\\"] = "\\" }

-- The text between the quotes back to the string; nil, why for a malformed one.
local function decode_string(body)
  local out, i, n = {}, 1, #body
  while i <= n do
    local c = body:sub(i, i)
    if c == '"' then return nil, "an unescaped '\"' inside the string" end
    if c ~= "\\" then
      local j = body:find('[\\"]', i) or n + 1
      out[#out + 1] = body:sub(i, j - 1)
      i = j
    else
      local e = body:sub(i + 1, i + 1)
      if UNESCAPES[e] then
        out[#out + 1] = UNESCAPES[e]
        i = i + 2
      elseif e:match("%d") then
        local digits = body:match("^%d%d?%d?", i + 1)
        local b = tonumber(digits)
        if b > 255 then return nil, "escape \\" .. digits .. " is not a byte" end
        out[#out + 1] = string.char(b)
        i = i + 1 + #digits
      elseif e == "x" and body:match("^%x%x", i + 2) then
        out[#out + 1] = string.char(tonumber(body:sub(i + 2, i + 3), 16))
        i = i + 4
      else
        return nil, ("unknown escape '\\%s'"):format(e)
      end
    end
  end
  return table.concat(out)
end

local function encode_number(v)
  if v == math.huge then return "1e999" elseif v == -math.huge then return "-1e999" end
  if math.type and math.type(v) == "integer" then return ("%d"):format(v) end
  if v == math.floor(v) and math.abs(v) < 2 ^ 53 then return ("%.0f"):format(v) end
  for digits = 15, 17 do
    local text = ("%." .. digits .. "g"):format(v)
    if tonumber(text) == v then return text end
  end
  return ("%.17g"):format(v)
end

local function encode_value(v)
  if type(v) == "string" then return encode_string(v) end
  if type(v) == "number" then return encode_number(v) end
  return tostring(v)
end

--- p:save(path) -> true | nil, message. One "name = value" line per
-- parameter (with its unit, range and doc as a comment above), written
-- atomically (temp file, fsync, rename): a power cut leaves the old file or
-- the new one, never a torn one. Every value loads back exactly (strings
-- with any bytes, numbers to the last bit).
function Params:save(path)
  if type(path) ~= "string" then error("bad argument #1 to 'save' (path expected)", 2) end
  if path:match("%.ya?ml$") then -- a ROS 2 parameter file, as load_yaml reads
    return require("tycho").write_atomic(path, self:describe_yaml() .. "\n")
  end
  local st = state(self)
  local out = { ("# tycho parameters, group %s"):format(st.group) }
  for _, c in ipairs(st.order) do
    local spec = st.specs[c.name]
    local range = range_text(spec)
    local comment = ("%s%s"):format(spec.doc or "", range ~= "" and (" [" .. range .. "]") or "")
    out[#out + 1] = "# " .. comment:gsub("[%c]", " ") -- a line break in a doc must not start a line
    out[#out + 1] = ("%s = %s"):format(c.name, encode_value(st.values[c.name]))
  end
  local tycho = require "tycho"
  return tycho.write_atomic(path, table.concat(out, "\n") .. "\n")
end

--- p:load(path [, {dry = true}]) -> ok, problems. Reads a file written by
-- save (or by hand): every valid line is applied, every bad one reported as
-- "path:line: message" and left at its current value (the default at
-- start-up). A missing file is one problem, nothing changes. dry: only
-- check, change nothing.
function Params:load(path, opts)
  if type(path) ~= "string" then error("bad argument #1 to 'load' (path expected)", 2) end
  if opts ~= nil and type(opts) ~= "table" then error("bad argument #2 to 'load' (table expected)", 2) end
  local set, set_string = setters(self, opts and opts.dry)
  local f, err = io.open(path, "r")
  if not f then return false, { tostring(err) } end
  -- a folder opens on Linux and fails on the first read: a problem, not a traceback
  local probe, read_err = f:read(0)
  if probe == nil and read_err then
    f:close()
    return false, { ("%s: %s"):format(path, tostring(read_err)) }
  end
  local st = state(self)
  local problems, n = {}, 0
  for line in f:lines() do
    n = n + 1
    local body = line:gsub("^%s+", ""):gsub("%s+$", "")
    if body ~= "" and body:sub(1, 1) ~= "#" then
      local name, text = body:match("^([%a_][%w_%.]*)%s*=%s*(.-)$")
      if not name then
        problems[#problems + 1] = ("%s:%d: expected 'name = value'"):format(path, n)
      else
        name = name:match("^[^%.]+%.(.+)$") or name -- "group.name" works too
        local q = text:match('^"(.*)"$')
        local ok, msg
        local ty = st.specs[name] and st.specs[name].type
        if q and (ty == "string" or ty == "enum") then
          local v, why = decode_string(q)
          if v == nil then ok, msg = nil, ("%s: %s"):format(name, why)
          else ok, msg = set(name, v) end
        else ok, msg = set_string(name, text) end
        if not ok then problems[#problems + 1] = ("%s:%d: %s"):format(path, n, tostring(msg)) end
      end
    end
  end
  f:close()
  return #problems == 0, problems
end

local YAML_SPECIAL = { [".inf"] = math.huge, [".Inf"] = math.huge, [".INF"] = math.huge,
                      ["-.inf"] = -math.huge, ["-.Inf"] = -math.huge, ["-.INF"] = -math.huge,
                      ["+.inf"] = math.huge }

--- p:load_yaml(path [, {dry = true}]) -> ok, problems. Reads a ROS 2 parameter file:
--   GROUP:                 (or /GROUP, or /** for every node)
--     ros__parameters:
--       name: value
-- (libyaml parses it). Like load, every valid entry is applied and every
-- bad one reported as "path:line: message" and left as it was: an unknown
-- name, a value of the wrong type or out of range, a quoted value for a
-- number or boolean, a list, another node's section. Malformed YAML is one
-- problem, and nothing changes.
function Params:load_yaml(path, opts)
  if type(path) ~= "string" then error("bad argument #1 to 'load_yaml' (path expected)", 2) end
  if opts ~= nil and type(opts) ~= "table" then error("bad argument #2 to 'load_yaml' (table expected)", 2) end
  local set, set_string = setters(self, opts and opts.dry)
  local f, err = io.open(path, "r")
  if not f then return false, { tostring(err) } end
  local text, read_err = f:read("a")
  f:close()
  if not text then return false, { ("%s: %s"):format(path, tostring(read_err)) } end
  local tycho = require "tycho"
  local leaves, yerr = tycho.yaml_leaves(text, path)
  if not leaves then return false, { yerr } end
  local st = state(self)
  local group = st.group
  local problems = {}
  local function bad(leaf, fmt, ...) problems[#problems + 1] = ("%s:%d: " .. fmt):format(path, leaf.line, ...) end
  for _, leaf in ipairs(leaves) do
    local k = leaf.keys
    local node = k[1]
    if #k == 0 then bad(leaf, "expected '%s: ros__parameters: name: value'", group)
    elseif node ~= group and node ~= "/" .. group and node ~= "/**" then
      bad(leaf, "section '%s' is not for %s (expected '%s:' or '/**:')", node, group, group)
    elseif k[2] ~= "ros__parameters" then
      bad(leaf, "expected 'ros__parameters:' under '%s:'", node)
    elseif #k ~= 3 then
      bad(leaf, #k < 3 and "no parameter name under ros__parameters" or "nested parameter '%s' (%s has flat names)",
        table.concat(k, ".", 3), group)
    else
      local name = k[3]
      local spec = st.specs[name]
      if not spec then bad(leaf, "%s: unknown parameter of %s", name, group)
      elseif leaf.kind ~= "scalar" then bad(leaf, "%s: a %s, not a single value", name, leaf.kind)
      else
        local ty, ok, msg = spec.type
        if leaf.quoted and ty ~= "string" and ty ~= "enum" then
          ok, msg = nil, ("%s: a quoted value is a string; %s is of type %s"):format(name, name, ty)
        elseif not leaf.quoted and ty == "number" and YAML_SPECIAL[leaf.value] then
          ok, msg = set(name, YAML_SPECIAL[leaf.value])
        elseif leaf.quoted then ok, msg = set(name, leaf.value)
        else ok, msg = set_string(name, leaf.value) end
        if not ok then bad(leaf, "%s", tostring(msg)) end
      end
    end
  end
  return #problems == 0, problems
end

--- params.apply_args(argv [, group]) -> ok, problems, rest
-- Applies every "--set NAME=VALUE" (or "--set=NAME=VALUE"); NAME is
-- "group.name" or a bare name declared in exactly one group (or in `group`,
-- a params object, when given). rest is argv without those arguments.
function params.apply_args(argv, only)
  if type(argv) ~= "table" then error("bad argument #1 to 'apply_args' (table expected)", 2) end
  local problems, rest = {}, {}
  local i = 1
  while i <= #argv do
    local a = argv[i]
    local assign
    if a == "--set" then
      assign = argv[i + 1]
      i = i + 2
      if assign == nil then problems[#problems + 1] = "--set needs NAME=VALUE" end
    elseif type(a) == "string" and a:match("^%-%-set=") then
      assign = a:sub(7)
      i = i + 1
    else
      rest[#rest + 1] = a
      i = i + 1
    end
    if assign then
      local name, value = tostring(assign):match("^%s*([%w_%.]+)%s*=(.*)$")
      if not name then
        problems[#problems + 1] = ("--set expects NAME=VALUE, got '%s'"):format(tostring(assign))
      else
        local g, n = name:match("^([%w_]+)%.([%w_]+)$")
        local target
        if g then
          target = groups[g]
          if not target or (only and target ~= only) then
            problems[#problems + 1] = ("unknown parameter group '%s' in --set %s"):format(g, assign)
            target = nil
          end
        else
          n = name
          local found = {}
          local pool = only and { [state(only).group] = only } or groups
          for gname, obj in pairs(pool) do
            if rawget(obj, S).specs[n] then found[#found + 1] = gname end
          end
          table.sort(found)
          if #found == 1 then
            target = pool[found[1]]
          elseif #found == 0 then
            problems[#problems + 1] = ("unknown parameter '%s' in --set %s"):format(n, assign)
          else
            problems[#problems + 1] = ("ambiguous parameter '%s' (in groups %s): use group.%s"):format(
              n, table.concat(found, ", "), n)
          end
        end
        if target then
          local ok, msg = target:set_string(n, value)
          if not ok then problems[#problems + 1] = msg end
        end
      end
    end
  end
  return #problems == 0, problems, rest
end

for k in pairs(Params) do RESERVED[k] = true end

MT.__index = function(p, k)
  local m = Params[k]
  if m then return m end
  local st = rawget(p, S)
  if st.specs[k] then return st.values[k] end
  error(("unknown parameter '%s' in group '%s'"):format(tostring(k), st.group), 2)
end

MT.__newindex = function(p, k, v)
  local ok, msg = Params.set(p, k, v)
  if not ok then error(msg, 2) end
end

MT.__pairs = function(p)
  local st = rawget(p, S)
  local i = 0
  return function()
    i = i + 1
    local c = st.order[i]
    if c then return c.name, st.values[c.name] end
  end, p, nil
end

MT.__tostring = function(p)
  local st = rawget(p, S)
  return ("params '%s' (%d parameters)"):format(st.group, #st.order)
end

return params
