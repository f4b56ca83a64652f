-- The string library's pattern functions, replaced by tycho's budgeted
-- matcher (bindings/l_pattern.c), against Lua 5.4's own: the same results
-- and the same errors on random patterns and subjects, and the usual cases.
local tycho = require "tycho"

local P = tycho.pattern
local stock = P.stock
local luajit = rawget(_G, "jit") ~= nil

-- results of f(...) as a comparable list: {true, results...} or {false, message}
local function outcome(f, ...)
  local r = table.pack(pcall(f, ...))
  if not r[1] then
    -- the function's name in "bad argument" depends on how it was reached
    return { false, (tostring(r[2]):gsub("^[^:]*:%d+: ", ""):gsub("(bad argument #%d to )'[^']*'", "%1'?'")) }
  end
  return r
end

local function gmatch_all(gm, s, p, init)
  local out = {}
  for a, b, c in gm(s, p, init) do
    out[#out + 1] = { a, b, c }
    if #out > 50 then break end
  end
  return out
end

local TOKENS = { "a", "b", "x", ".", "%a", "%d", "%s", "%W", "%.", "%%", "[ab]", "[^a]", "[a-c]", "[%d.]", "[]a]",
  "[^]]", "*", "+", "-", "?", "(", ")", "()", "%1", "%2", "%b()", "%bab", "%f[%w]", "%f[%s]", "^", "$", "%", "[",
  "]", "\0", " ", "(a*)", "(.-)", "%0" }
local CHARS = { "a", "b", "x", "(", ")", ".", " ", "1", "2", "\0", "%", "]" }

local seed = 12345
local function rnd(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n + 1
end

local function random_pattern()
  local parts = {}
  for i = 1, rnd(7) do parts[i] = TOKENS[rnd(#TOKENS)] end
  return table.concat(parts)
end

local function random_subject()
  local parts = {}
  for i = 1, rnd(12) - 1 do parts[i] = CHARS[rnd(#CHARS)] end
  return table.concat(parts)
end

describe("tycho's pattern matcher", function()
  if luajit then
    it("is LuaJIT's own under LuaJIT", function()
      assert.are.equal(string.find, P.find)
      assert.are.equal(string.find, stock.find)
    end)
    return
  end

  it("is the string library's now, and the method form uses it", function()
    assert.are.equal(P.find, string.find)
    assert.are.equal(P.gsub, ("").gsub)
    assert.are_not.equal(stock.find, string.find)
  end)

  it("agrees with Lua 5.4 on the usual cases", function()
    local cases = {
      { "hello world", "o w" }, { "hello world", "l+" }, { "hello", "()ll()" }, { "key = value", "^(%w+)%s*=%s*(%w+)$" },
      { "THE (quick) fox", "%((%a+)%)" }, { "f(a(b)c)d", "%b()" }, { "THE (quick) fox", "%f[%a]%a+" },
      { "abcabc", "(abc)%1" }, { "aaa", "a-" }, { "aaa", "a-$" }, { "x = 1.5e3", "[%d%.e]+" }, { "", "" },
      { "abc", "" }, { "a.b", ".", 1, true }, { "a]b", "[]]" }, { "a^b", "a^b" }, { "a$b", "a$b" },
      { "hello", "l", -2 }, { "hello", "l", 10 }, { "hello", "", 6 }, { "hello", "", 7 },
      { "\0a\0", "%z" }, { "\0a\0", "[\0]" }, { "  trim  ", "^%s*(.-)%s*$" },
    }
    for _, c in ipairs(cases) do
      local s, p, init, plain = c[1], c[2], c[3], c[4]
      assert.are.same(outcome(stock.find, s, p, init, plain), outcome(P.find, s, p, init, plain), p)
      assert.are.same(outcome(stock.match, s, p, init), outcome(P.match, s, p, init), p)
      assert.are.same(outcome(gmatch_all, stock.gmatch, s, p, init), outcome(gmatch_all, P.gmatch, s, p, init), p)
      for _, r in ipairs { "<%0>", "%1", "%%", "[%2]", "%", "x" } do
        assert.are.same(outcome(stock.gsub, s, p, r), outcome(P.gsub, s, p, r), p .. " -> " .. r)
      end
    end
  end)

  it("agrees with Lua 5.4 on 20000 random patterns and subjects, errors included", function()
    local repls = { "<%0>", "%1", "%%", "[%2]", "%", "x%1y",
                    function(a, b) return b or a end, function() return false end, function() return {} end,
                    { a = "A", ["("] = 7 }, 42 }
    for _ = 1, 20000 do
      local s, p = random_subject(), random_pattern()
      local init = rnd(3) == 1 and (rnd(#s + 3) - 2) or nil
      local where = ("%q on %q (init %s)"):format(p, s, tostring(init))
      assert.are.same(outcome(stock.find, s, p, init), outcome(P.find, s, p, init), where)
      assert.are.same(outcome(stock.match, s, p, init), outcome(P.match, s, p, init), where)
      assert.are.same(outcome(gmatch_all, stock.gmatch, s, p, init), outcome(gmatch_all, P.gmatch, s, p, init), where)
      local r = repls[rnd(#repls)]
      local max = rnd(4) == 1 and rnd(3) - 1 or nil
      assert.are.same(outcome(stock.gsub, s, p, r, max), outcome(P.gsub, s, p, r, max), where)
    end
  end)

  it("checks its arguments as the string library does", function()
    for _, args in ipairs { { nil, "a" }, { "a", nil }, { "a", "a", "x" }, { {}, "a" } } do
      assert.are.same(outcome(stock.find, table.unpack(args, 1, 3)), outcome(P.find, table.unpack(args, 1, 3)))
    end
    assert.are.same(outcome(stock.gsub, "a", "a"), outcome(P.gsub, "a", "a"))
    assert.are.same(outcome(stock.gsub, "a", "a", true), outcome(P.gsub, "a", "a", true))
  end)

  it("is stopped by a watchdog budget inside a pathological match", function()
    local subject, pat = ("a"):rep(40), ("a*"):rep(40) .. "b"
    local co = coroutine.create(function() return pcall(string.find, subject, pat) end)
    local t0 = os.clock()
    assert.is_true(tycho.watchdog.arm_time(co, 0.2))
    local ok = coroutine.resume(co)
    tycho.watchdog.disarm_time(co)
    local took = os.clock() - t0
    assert.is_true(ok)
    -- suspended by the budget (a pcall inside did not catch it), within the budget and a bit
    assert.are.equal("suspended", coroutine.status(co))
    assert.is_true(tycho.watchdog.tripped(co))
    assert.is_true(took < 0.5, "took " .. took .. " s")
  end)
end)
