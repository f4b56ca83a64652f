--- A small JSON decoder (summary.json, campaign results): objects, arrays,
-- strings with the common escapes, numbers, true/false/null (null -> nil).
-- Errors name the byte offset.
local M = {}

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
      elseif e == "u" then out[#out + 1] = "?"; j = j + 6
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
    local t = {}
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
    local t, n = {}, 0
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
  elseif s:sub(i, i + 3) == "null" then return nil, i + 4
  else
    local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", i)
    if not num or num == "" then fail(s, i, "value expected") end
    return tonumber(num), i + #num
  end
end

function M.decode(s)
  local v, i = value(s, 1)
  i = skip(s, i)
  if i <= #s then fail(s, i, "trailing data") end
  return v
end

return M
