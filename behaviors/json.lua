--- JSON for tycho's output files (summary.json, --json, log sinks): an
-- encoder that always writes valid JSON, and the decoder (json_decode.lua).
--
--   local json = require "json"
--   json.encode { a = 0.1, b = json.object {}, c = json.array {} }
--     --> {"a":0.1,"b":{},"c":[]}
--   json.decode('{"a":[1,2]}')
--
-- What "valid" takes in Lua:
-- * Strings are bytes. Valid UTF-8 is written as is; a byte that is not
--   part of a valid UTF-8 sequence is written as the code point of the same
--   value (\u00XX, reading it as Latin-1), so the output is valid UTF-8 and
--   no byte is lost silently. Control characters are escaped.
-- * Numbers are written in the shortest form that reads back to the same
--   double (0.1, not 0.10000000000000001); integral values as integers;
--   NaN and infinities, which JSON has no form for, as null.
-- * An empty Lua table is ambiguous: it is written as [] unless marked with
--   json.object(t) (or it is an object's known-empty field: mark it). A
--   table with any non-array key is an object with sorted keys, so the
--   output is stable from run to run.
local decode = require "json_decode"

local json = {}

local OBJECT, ARRAY = decode.OBJECT, decode.ARRAY -- decoded tables carry them too
--- The value decode(text, {null = json.null}) gives null, and encode writes as null.
json.null = setmetatable({}, { __name = "json.null", __tostring = function() return "null" end })

--- Marks t (default a new table) to be written as an object, even empty.
function json.object(t)
  t = t or {}
  if type(t) ~= "table" then error("bad argument #1 to 'object' (table expected)", 2) end
  return setmetatable(t, OBJECT)
end

--- Marks t (default a new table) to be written as an array, even empty
-- (a marked table that gains other keys is written by its content: an object).
function json.array(t)
  t = t or {}
  if type(t) ~= "table" then error("bad argument #1 to 'array' (table expected)", 2) end
  return setmetatable(t, ARRAY)
end

local ESC = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
              ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

local byte, char, fmt, concat = string.byte, string.char, string.format, table.concat

-- Length of the valid UTF-8 sequence starting at s[i] (lead byte b), or nil.
-- Rejects overlong forms, surrogates and code points past U+10FFFF.
local function utf8_len(s, i, b)
  local n, lo, hi
  if b >= 0xC2 and b <= 0xDF then n = 2
  elseif b >= 0xE0 and b <= 0xEF then n = 3
  elseif b >= 0xF0 and b <= 0xF4 then n = 4
  else return nil end
  local c2 = byte(s, i + 1)
  if not c2 then return nil end
  lo, hi = 0x80, 0xBF
  if b == 0xE0 then lo = 0xA0 elseif b == 0xED then hi = 0x9F
  elseif b == 0xF0 then lo = 0x90 elseif b == 0xF4 then hi = 0x8F end
  if c2 < lo or c2 > hi then return nil end
  for k = 2, n - 1 do
    local c = byte(s, i + k)
    if not c or c < 0x80 or c > 0xBF then return nil end
  end
  return n
end

local function encode_string(s)
  -- fast path: printable ASCII without quotes or backslashes
  if not s:find('[%c"\\\128-\255]') then return '"' .. s .. '"' end
  local out, i, n = { '"' }, 1, #s
  while i <= n do
    local b = byte(s, i)
    if b < 0x80 then
      local c = char(b)
      if b < 0x20 or b == 0x7F or c == '"' or c == "\\" then
        out[#out + 1] = ESC[c] or fmt("\\u%04x", b)
      else
        out[#out + 1] = c
      end
      i = i + 1
    else
      local len = utf8_len(s, i, b)
      if len then
        out[#out + 1] = s:sub(i, i + len - 1)
        i = i + len
      else
        out[#out + 1] = fmt("\\u%04x", b) -- a stray byte, as Latin-1
        i = i + 1
      end
    end
  end
  out[#out + 1] = '"'
  return concat(out)
end
json.encode_string = encode_string

local function encode_number(v)
  if v ~= v or v == math.huge or v == -math.huge then return "null" end
  if math.type and math.type(v) == "integer" then return fmt("%d", v) end
  if v == math.floor(v) and math.abs(v) < 2 ^ 53 then
    if v == 0 and 1 / v < 0 then return "-0" end
    return fmt("%d", v)
  end
  -- the shortest of %.1g .. %.17g that reads back to the same double
  for p = 1, 16 do
    local text = fmt("%." .. p .. "g", v)
    if tonumber(text) == v then return text end
  end
  return fmt("%.17g", v)
end
json.encode_number = encode_number

local function is_array(t)
  local n = 0
  for k in pairs(t) do
    if type(k) ~= "number" or k < 1 or k ~= math.floor(k) then return false end
    n = n + 1
  end
  for i = 1, n do if t[i] == nil then return false end end
  return true, n
end

local encode
encode = function(v, out, seen, depth)
  local tv = type(v)
  if tv == "nil" then out[#out + 1] = "null"
  elseif tv == "boolean" then out[#out + 1] = tostring(v)
  elseif tv == "number" then out[#out + 1] = encode_number(v)
  elseif tv == "string" then out[#out + 1] = encode_string(v)
  elseif v == json.null then out[#out + 1] = "null"
  elseif tv == "table" then
    if seen[v] then error("json.encode: cycle in table", 0) end
    if depth > 64 then error("json.encode: nested deeper than 64", 0) end
    seen[v] = true
    local mt = getmetatable(v)
    local arr, n = is_array(v)
    if mt == OBJECT and arr and n > 0 then arr = false end
    if mt == OBJECT and n == 0 then arr = false end
    if arr then
      out[#out + 1] = "["
      for i = 1, n do
        if i > 1 then out[#out + 1] = "," end
        encode(v[i], out, seen, depth + 1)
      end
      out[#out + 1] = "]"
    else
      local keys = {}
      for k in pairs(v) do
        local tk = type(k)
        if tk ~= "string" and tk ~= "number" then
          error("json.encode: object key of type " .. tk .. " (strings and numbers only)", 0)
        end
        keys[#keys + 1] = k
      end
      table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
      out[#out + 1] = "{"
      for i, k in ipairs(keys) do
        if i > 1 then out[#out + 1] = "," end
        out[#out + 1] = encode_string(type(k) == "number" and encode_number(k) or k)
        out[#out + 1] = ":"
        encode(v[k], out, seen, depth + 1)
      end
      out[#out + 1] = "}"
    end
    seen[v] = nil
  else
    out[#out + 1] = encode_string(tostring(v)) -- userdata (grids, tasks): their tostring
  end
end

--- json.encode(value) -> string. Raises on a cycle, nesting deeper than
-- 64, or a key that is neither a string nor a number.
function json.encode(v)
  local out = {}
  encode(v, out, {}, 0)
  return concat(out)
end

--- json.decode(text [, {null = json.null}]) -> value; raises "json: <why> at byte N near '...'".
json.decode = decode.decode

return json
