--- A small JSON decoder (summary.json, campaign results): objects, arrays,
-- strings with every escape (\uXXXX and surrogate pairs to UTF-8), numbers,
-- true/false/null (null -> nil, or opts.null when given). Objects and arrays
-- carry the metatables M.OBJECT and M.ARRAY, so an empty {} and [] stay
-- apart (json.lua's encoder writes them back the same way). Errors name
-- the byte offset.
local M = {}
M.OBJECT = { __name = "json.object" }
M.ARRAY = { __name = "json.array" }
local NULL -- opts.null of the current decode call

local function utf8_char(cp)
  if cp < 0x80 then return string.char(cp) end
  if cp < 0x800 then return string.char(0xC0 + math.floor(cp / 64), 0x80 + cp % 64) end
  if cp < 0x10000 then
    return string.char(0xE0 + math.floor(cp / 4096), 0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
  end
  return string.char(0xF0 + math.floor(cp / 262144), 0x80 + math.floor(cp / 4096) % 64,
                     0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
end

local function fail(s, i, what) error(("json: %s at byte %d near '%s'"):format(what, i, s:sub(i, i + 10)), 0) end

local function skip(s, i) return s:find("[^ \t\r\n]", i) or #s + 1 end

local value

local function str(s, i)
  local out, j = {}, i + 1
  while true do
    local c = s:sub(j, j)
    if c == "" then fail(s, i, "unterminated string") end
    if c == '"' then return table.concat(out), j + 1 end
    if c == "\\" then
      local e = s:sub(j + 1, j + 1)
      local map = { n = "\n", t = "\t", r = "\r", b = "\b", f = "\f", ['"'] = '"', ["\\"] = "\\", ["/"] = "/" }
      if map[e] then out[#out + 1] = map[e]; j = j + 2
      elseif e == "u" then
        local hex = s:match("^%x%x%x%x", j + 2)
        if not hex then fail(s, j, "bad \\u escape") end
        local cp = tonumber(hex, 16)
        j = j + 6
        if cp >= 0xD800 and cp <= 0xDBFF then
          local lo = s:match("^\\u([dD][c-fC-F]%x%x)", j)
          if not lo then fail(s, j, "unpaired surrogate") end
          cp = 0x10000 + (cp - 0xD800) * 1024 + (tonumber(lo, 16) - 0xDC00)
          j = j + 6
        elseif cp >= 0xDC00 and cp <= 0xDFFF then fail(s, j - 6, "unpaired surrogate") end
        out[#out + 1] = utf8_char(cp)
      else fail(s, j, "bad escape") end
    else
      out[#out + 1] = c; j = j + 1
    end
  end
end

function value(s, i)
  i = skip(s, i)
  local c = s:sub(i, i)
  if c == "{" then
    local t = setmetatable({}, M.OBJECT)
    i = skip(s, i + 1)
    if s:sub(i, i) == "}" then return t, i + 1 end
    while true do
      if s:sub(i, i) ~= '"' then fail(s, i, "key expected") end
      local k
      k, i = str(s, i)
      i = skip(s, i)
      if s:sub(i, i) ~= ":" then fail(s, i, "':' expected") end
      t[k], i = value(s, i + 1)
      i = skip(s, i)
      local d = s:sub(i, i)
      if d == "}" then return t, i + 1 end
      if d ~= "," then fail(s, i, "',' or '}' expected") end
      i = skip(s, i + 1)
    end
  elseif c == "[" then
    local t, n = setmetatable({}, M.ARRAY), 0
    i = skip(s, i + 1)
    if s:sub(i, i) == "]" then return t, i + 1 end
    while true do
      n = n + 1
      t[n], i = value(s, i)
      i = skip(s, i)
      local d = s:sub(i, i)
      if d == "]" then return t, i + 1 end
      if d ~= "," then fail(s, i, "',' or ']' expected") end
      i = i + 1
    end
  elseif c == '"' then return str(s, i)
  elseif s:sub(i, i + 3) == "true" then return true, i + 4
  elseif s:sub(i, i + 4) == "false" then return false, i + 5
  elseif s:sub(i, i + 3) == "null" then return NULL, i + 4
  else
    local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", i)
    if not num or num == "" then fail(s, i, "value expected") end
    return tonumber(num), i + #num
  end
end

--- M.decode(text [, opts]) -> value. opts.null: the value for null (default nil).
function M.decode(s, opts)
  if type(s) ~= "string" then error("bad argument #1 to 'decode' (string expected)", 2) end
  if opts ~= nil and type(opts) ~= "table" then error("bad argument #2 to 'decode' (table expected)", 2) end
  NULL = opts and opts.null
  local v, i = value(s, 1)
  i = skip(s, i)
  if i <= #s then fail(s, i, "trailing data") end
  return v
end

return M
