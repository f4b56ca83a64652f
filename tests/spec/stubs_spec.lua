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
  -- every class comes from the one class helper, which keeps its methods in
  -- mt.methods and records the class (bindings/l_class.c)
  for name, mt in pairs(debug.getregistry()["tycho.classes"]) do
    for k, v in pairs(mt.methods) do
      if type(v) == "function" then out[name .. ":" .. k] = true end
    end
  end
  return out
end

-- The option keys each stubbed function documents: its `---@param x? {...}`
-- tables, or the `---@alias` such a parameter names. Keyed like stubbed().
local function stubbed_options()
  local f = assert(io.open(SRC .. "/bindings/meta/tycho.lua"))
  local out, alias_of, class, pending = {}, {}, nil, {}
  local aliases = {}
  -- the top-level keys of a table type, each with its type's text: split at
  -- the commas outside nested tables, function types and strings
  local function keys_of(text)
    local inner, items, depth, quote, cur = text:sub(2, -2), {}, 0, nil, {}
    for ch in inner:gmatch(".") do
      if quote then
        if ch == quote then quote = nil end
      elseif ch == '"' or ch == "'" then quote = ch
      elseif ch == "(" or ch == "{" or ch == "[" then depth = depth + 1
      elseif ch == ")" or ch == "}" or ch == "]" then depth = depth - 1 end
      if ch == "," and depth == 0 and not quote then
        items[#items + 1] = table.concat(cur)
        cur = {}
      else
        cur[#cur + 1] = ch
      end
    end
    items[#items + 1] = table.concat(cur)
    local set = {}
    for _, item in ipairs(items) do
      local k, t = item:match("^%s*([%w_]+)%??%s*:%s*(.-)%s*$")
      if k then set[k] = t end
    end
    return set
  end
  for line in f:lines() do
    local c = line:match("^%-%-%-@class ([%w_.]+)")
    if c then class = c end
    local var = line:match("^local ([%w_]+) = {}")
    if var and class then alias_of[var] = class end
    local a, body = line:match("^%-%-%-@alias ([%w_.]+) (%b{})")
    if a then aliases[a] = keys_of(body) end
    local table_type = line:match("^%-%-%-@param [%w_]+%??%s+[^{]*(%b{})")
    if table_type then pending[#pending + 1] = keys_of(table_type) end
    local named = line:match("^%-%-%-@param [%w_]+%??%s+([%w_.]+)")
    if named and aliases[named] then pending[#pending + 1] = aliases[named] end
    local fn = line:match("^function ([%w_.]+)%(")
    local obj, m = line:match("^function ([%w_]+):([%w_]+)%(")
    local name = fn or (obj and (alias_of[obj] or obj) .. ":" .. m)
    if name then
      if #pending > 0 then out[name] = pending end
      pending = {}
    elseif not line:match("^%-%-%-") then
      pending = {}
    end
  end
  f:close()
  return out
end

-- How a declared option spec (bindings/l_options.c) names a function, in the
-- stubs' spelling: "grid:plan" -> "tycho.grid:plan", "clock.new" -> "tycho.clock.new".
local CLASS_OF = { raycaster = "tycho.raymap" }
local function stub_name(fn)
  local cls, m = fn:match("^([%w_]+):([%w_]+)$")
  if cls then return (CLASS_OF[cls] or "tycho." .. cls) .. ":" .. m end
  return "tycho." .. fn
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

  it("document exactly the option keys each function accepts", function()
    local documented, wrong = stubbed_options(), {}
    for fn, spec in pairs(debug.getregistry()["tycho.options"]) do
      local name = stub_name(fn)
      local found = false
      for _, keys in ipairs(documented[name] or {}) do
        local same = true
        for k in pairs(spec) do same = same and keys[k] ~= nil end
        for k in pairs(keys) do same = same and spec[k] ~= nil end
        found = found or same
      end
      if not found then
        local want = {}
        for k in pairs(spec) do want[#want + 1] = k end
        table.sort(want)
        wrong[#wrong + 1] = name .. " {" .. table.concat(want, ", ") .. "}"
      end
    end
    table.sort(wrong)
    assert.are.same({}, wrong)
  end)

  it("give each option the type its declared spec checks", function()
    -- what a spec's type (bindings/l_options.c) allows the stub to write
    local FITS = {
      number = function(t) return t == "number" end,
      integer = function(t) return t == "integer" or t:match("^%d+[|%d]*$") ~= nil end,
      boolean = function(t) return t == "boolean" end,
      string = function(t) return t == "string" or t:match('^"[^"]*"[|"%w_]*$') ~= nil end,
      pose = function(t) return t == "tycho.pose" or t:match("^{x: number, y: number") ~= nil end,
      table = function(t) return t:match("^{") ~= nil or t:match("%[%]$") ~= nil or t == "table"
        or t:match("^tycho%.") ~= nil end,
      ["function"] = function(t) return t:match("^fun%(") ~= nil or t == "function" end,
      any = function() return true end,
    }
    local documented, wrong = stubbed_options(), {}
    for fn, spec in pairs(debug.getregistry()["tycho.options"]) do
      local name = stub_name(fn)
      for _, keys in ipairs(documented[name] or {}) do
        for k, want in pairs(spec) do
          local got = keys[k]
          local fits = FITS[want]
          if got and fits and not fits(got) then
            wrong[#wrong + 1] = ("%s: option '%s' is %s in the stub, the spec checks %s"):format(name, k, got, want)
          end
        end
      end
    end
    table.sort(wrong)
    assert.are.same({}, wrong)
  end)

  it("are what scripts/gen_stubs.lua makes of the blocks in bindings/*.c", function()
    local code, out = exe.shell("lua5.4 scripts/gen_stubs.lua --check --src " .. exe.quote(SRC))
    assert.are.equal(0, code, out)
  end)

  it("are a valid Lua chunk", function()
    local f = assert(io.open(SRC .. "/bindings/meta/tycho.lua"))
    local text = f:read("*a")
    f:close()
    assert.is_truthy((loadstring or load)(text))
  end)
end)
