-- What checking an option table against its declared spec costs a call
-- (bindings/l_options.c): tycho.diffdrive.to_wheels with its four options
-- given against the same call with none (the defaults), and grid:raycast with
-- and without its two options. The difference is the check plus the reads.
--
--   build/tycho run tests/bench/options_bench.lua
local tycho = require "tycho"
local result = require "tests.spec.helpers.result" -- run from the source folder

local N = 2000000
local function per_call(f)
  local best = math.huge
  for _ = 1, 3 do
    local t0 = os.clock()
    for _ = 1, N do f() end
    best = math.min(best, (os.clock() - t0) / N)
  end
  return best * 1e9
end

local dd = { wheel_separation = 0.16, wheel_radius = 0.033, max_v = 0.22, max_w = 2.84 }
local plain = per_call(function() return tycho.diffdrive.to_wheels(0.1, 0.5) end)
local with = per_call(function() return tycho.diffdrive.to_wheels(0.1, 0.5, dd) end)
print(("diffdrive.to_wheels: %.0f ns without options, %.0f ns with 4 (+%.0f ns for the table)")
  :format(plain, with, with - plain))
result("options.to_wheels_ns", with, "ns", nil, nil, "`tycho.diffdrive.to_wheels` with 4 options checked "
  .. "against its declared spec, per call")
result("options.to_wheels_plain_ns", plain, "ns", nil, nil, "… the same call without options")

local g = tycho.grid.new { width = 64, height = 64, resolution = 0.05, fill = 0 }
local ray = { threshold = 254, unknown_blocked = true }
plain = per_call(function() return g:raycast(1, 1, 0.3, 1.0) end)
with = per_call(function() return g:raycast(1, 1, 0.3, 1.0, ray) end)
print(("grid:raycast (1 m through free cells): %.0f ns without options, %.0f ns with 2 (+%.0f ns)")
  :format(plain, with, with - plain))
result("options.raycast_ns", with, "ns", nil, nil, "`grid:raycast` (1 m through free cells) with 2 options, "
  .. "per call")
result("options.raycast_plain_ns", plain, "ns", nil, nil, "… the same call without options")
