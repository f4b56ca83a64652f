-- The cost of tycho's budgeted pattern matcher (bindings/l_pattern.c)
-- against Lua 5.4's own on ordinary work (gmatch over words and key=value
-- pairs, gsub of blanks, a %b() search, a trim), and how fast a
-- pathological pattern is stopped by a 1 s budget.
--
--   build/tycho run tests/bench/pattern_bench.lua
local tycho = require "tycho"
local result = require "tests.spec.helpers.result" -- run from the source folder

local P, stock = tycho.pattern, tycho.pattern.stock
if P.find == stock.find then
  print("pattern_bench: LuaJIT keeps its own pattern functions; nothing to compare")
  return 0
end

local text = ("name = value # comment, x=1.5e3 and (nested (parens)) "):rep(2000)
local function work(S)
  local n = 0
  for _ in S.gmatch(text, "%a+") do n = n + 1 end
  S.gsub(text, "%s+", " ")
  S.find(text, "%b()", 1000)
  for _ in S.gmatch(text, "(%w+)%s*=%s*([%w%.]+)") do n = n + 1 end
  S.match(text, "^%s*(.-)%s*$")
  return n
end

local best = {}
for _, impl in ipairs { { "stock", stock }, { "tycho", P } } do
  local b = math.huge
  for _ = 1, 5 do
    local t0 = os.clock()
    for _ = 1, 10 do work(impl[2]) end
    b = math.min(b, os.clock() - t0)
  end
  best[impl[1]] = b
end
print(("pattern_bench: ordinary work, best of 5: Lua 5.4 %.1f ms, tycho %.1f ms (%+.0f %%)"):format(
  best.stock * 100, best.tycho * 100, (best.tycho / best.stock - 1) * 100))
result("patterns.overhead_pct", (best.tycho / best.stock - 1) * 100, "%", nil, nil, "the budgeted pattern "
  .. "matcher against Lua 5.4's own on ordinary work (gmatch, gsub, %b(), a trim; best of 5)")

-- the pathological pattern in a coroutine under a 1 s CPU budget
local co = coroutine.create(function() return string.find(("a"):rep(30), ("a*"):rep(30) .. "b") end)
local t0 = os.clock()
tycho.watchdog.arm_time(co, 1.0)
coroutine.resume(co)
tycho.watchdog.disarm_time(co)
local stopped_after = os.clock() - t0
print(("pattern_bench: (a*)^30 b on 30 a's stopped by the 1 s budget after %.3f s of CPU (tripped: %s)"):format(
  stopped_after, tostring(tycho.watchdog.tripped(co))))
result("patterns.budget_stop_s", stopped_after, "s", "<=", 1.1, "(a*)^30 b on 30 a's in a task with a 1 s "
  .. "CPU budget: CPU seconds until it was stopped")
return 0
