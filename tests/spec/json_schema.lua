--- A JSON Schema (draft 2020-12) validator for the subset tycho's schemas
-- use (schemas/*.schema.json): type, const, enum, minimum, maximum,
-- properties, required, additionalProperties, items, anyOf, and $ref to
-- "#/$defs/NAME" or "OTHER.schema.json#/$defs/NAME" beside the schema.
-- Any other keyword is an error, so a schema cannot quietly rely on one this
-- validator would skip. Values come from json.decode(text, {null = json.null})
-- (objects and arrays carry json_decode's OBJECT and ARRAY metatables).
local json = require "json"
local jd = require "json_decode"

local M = {}

local ANNOTATIONS = { ["$schema"] = true, ["$id"] = true, title = true, description = true, ["$defs"] = true }
local KEYWORDS = { type = true, const = true, enum = true, minimum = true, maximum = true, properties = true,
                   required = true, additionalProperties = true, items = true, anyOf = true, ["$ref"] = true }

local function json_type(v)
  if v == json.null then return "null" end
  local t = type(v)
  if t == "boolean" or t == "string" then return t end
  if t == "number" then return v == math.floor(v) and "integer" or "number" end
  if t == "table" then
    local mt = getmetatable(v)
    if mt == jd.OBJECT then return "object" end
    if mt == jd.ARRAY then return "array" end
  end
  error("json_schema: not a decoded JSON value: " .. tostring(v))
end

local function type_ok(want, v)
  local have = json_type(v)
  return have == want or (want == "number" and have == "integer")
end

local function equal(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) ~= "table" then return a == b end
  for k, x in pairs(a) do if not equal(x, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

local function read(path)
  local f = assert(io.open(path))
  local text = f:read("a")
  f:close()
  return json.decode(text, { null = json.null })
end

--- M.load(path) -> validator: v:errors(value) -> list of "where: why" (empty: valid).
function M.load(path)
  local dir = path:match("^(.*)/[^/]*$") or "."
  local docs = {}
  local function doc(name)
    docs[name] = docs[name] or read(dir .. "/" .. name)
    return docs[name]
  end
  local root_name = path:match("([^/]*)$")
  local function resolve(ref, current)
    local file, pointer = ref:match("^([^#]*)#(.*)$")
    if not file then error("json_schema: unsupported $ref " .. ref) end
    local base = file == "" and current or file
    local node = doc(base)
    for part in pointer:gmatch("[^/]+") do
      node = node[part]
      if node == nil then error(("json_schema: $ref %s not found"):format(ref)) end
    end
    return node, base
  end

  local check
  check = function(schema, v, where, errs, file)
    if schema == true then return end
    if schema == false then errs[#errs + 1] = where .. ": no value allowed here" return end
    for k in pairs(schema) do
      if not KEYWORDS[k] and not ANNOTATIONS[k] then error(("json_schema: keyword %s is not supported (%s)"):format(k, file)) end
    end
    if schema["$ref"] then
      local target, tfile = resolve(schema["$ref"], file)
      check(target, v, where, errs, tfile)
    end
    if schema.type then
      local types = type(schema.type) == "table" and schema.type or { schema.type }
      local ok = false
      for _, t in ipairs(types) do if type_ok(t, v) then ok = true end end
      if not ok then
        errs[#errs + 1] = ("%s: %s expected, got %s"):format(where, table.concat(types, " or "), json_type(v))
        return
      end
    end
    if schema.const ~= nil and not equal(schema.const, v) then
      errs[#errs + 1] = ("%s: must be %s, got %s"):format(where, json.encode(schema.const), json.encode(v))
    end
    if schema.enum then
      local ok = false
      for _, c in ipairs(schema.enum) do if equal(c, v) then ok = true end end
      if not ok then errs[#errs + 1] = ("%s: %s is not one of %s"):format(where, json.encode(v), json.encode(schema.enum)) end
    end
    if type(v) == "number" then
      if schema.minimum and v < schema.minimum then errs[#errs + 1] = ("%s: %s < minimum %s"):format(where, v, schema.minimum) end
      if schema.maximum and v > schema.maximum then errs[#errs + 1] = ("%s: %s > maximum %s"):format(where, v, schema.maximum) end
    end
    if schema.anyOf then
      local ok = false
      for _, sub in ipairs(schema.anyOf) do
        local e = {}
        check(sub, v, where, e, file)
        if #e == 0 then ok = true break end
      end
      if not ok then errs[#errs + 1] = ("%s: %s matches none of anyOf"):format(where, json.encode(v)) end
    end
    local vt = json_type(v)
    if vt == "object" then
      for _, name in ipairs(schema.required or {}) do
        if v[name] == nil then errs[#errs + 1] = ("%s: required field '%s' missing"):format(where, name) end
      end
      local props = schema.properties or {}
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = k end
      table.sort(keys)
      for _, k in ipairs(keys) do
        local sub = props[k]
        if sub == nil then sub = schema.additionalProperties end
        if sub == false then errs[#errs + 1] = ("%s: unknown field '%s'"):format(where, k)
        elseif sub ~= nil then check(sub, v[k], where .. "/" .. k, errs, file) end
      end
    elseif vt == "array" and schema.items then
      for i, item in ipairs(v) do check(schema.items, item, where .. "/" .. (i - 1), errs, file) end
    end
  end

  return {
    errors = function(_, value)
      local errs = {}
      check(doc(root_name), value, "$", errs, root_name)
      return errs
    end,
  }
end

--- M.read(path): a JSON file decoded for the validator (null kept as json.null).
M.read = read

return M
