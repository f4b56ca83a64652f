-- The LuaLS stubs (bindings/meta/tycho.lua) cover the whole bound API: every
-- function of the tycho module and every method of its userdata classes.
local exe = require "helpers.exe"
local tycho = require "tycho"

local SRC = exe.SRC

local function bound_api()
  local out, seen = {}, {}
  local function walk(t, prefix)
    for k, v in pairs(t) do
      if type(v) == "function" then out[prefix .. "." .. k] = true
      elseif type(v) == "table" and not seen[v] then
        seen[v] = true
        walk(v, prefix .. "." .. k)
      end
    end
  end
  walk(tycho, "tycho")
  for name, mt in pairs(debug.getregistry()) do
    if type(name) == "string" and name:match("^tycho%.") and type(mt) == "table" then
      local methods = rawget(mt, "methods")
      local idx = rawget(mt, "__index")
      if type(methods) ~= "table" and type(idx) == "table" then methods = idx end
      if type(methods) ~= "table" and type(idx) == "function" then
        local _, up = debug.getupvalue(idx, 1)
        if type(up) == "table" then methods = up end
      end
      for k, v in pairs(type(methods) == "table" and methods or {}) do
        if type(v) == "function" then out[name .. ":" .. k] = true end
      end
    end
  end
  return out
end

local function stubbed()
  local f = assert(io.open(SRC .. "/bindings/meta/tycho.lua"))
  local out, alias, class = {}, {}, nil
  for line in f:lines() do
    local c = line:match("^%-%-%-@class ([%w_.]+)")
    if c then class = c end
    local var = line:match("^local ([%w_]+) = {}")
    if var and class then alias[var] = class end
    local fn = line:match("^function ([%w_.]+)%(")
    if fn then out[fn] = true end
    local obj, m = line:match("^function ([%w_]+):([%w_]+)%(")
    if obj then out[(alias[obj] or obj) .. ":" .. m] = true end
  end
  f:close()
  return out
end

describe("LuaLS stubs", function()
  it("declare every bound function and method", function()
    local stubs, missing = stubbed(), {}
    for name in pairs(bound_api()) do
      if not stubs[name] then missing[#missing + 1] = name end
    end
    table.sort(missing)
    assert.are.same({}, missing)
  end)

  it("declare nothing that is not bound (no stale stubs)", function()
    local api, stale = bound_api(), {}
    for name in pairs(stubbed()) do
      if not api[name] then stale[#stale + 1] = name end
    end
    table.sort(stale)
    assert.are.same({}, stale)
  end)

  it("are a valid Lua chunk", function()
    local f = assert(io.open(SRC .. "/bindings/meta/tycho.lua"))
    local text = f:read("*a")
    f:close()
    assert.is_truthy((loadstring or load)(text))
  end)
end)
