--- The machine-readable line a trial prints per figure (the format of
-- tests/bench/result.h), so that scripts/trials.sh can collect the figures
-- of the reliability trials and soaks into bench/results.json and the
-- README's trials table:
--
--   local result = require "helpers.result"
--   result("flood.p99_ms", p99, "ms", "<=", 5, "attach flood: good client p99")
--
-- cmp is "<=", ">=" or nil (no target). The line starts on a line of its
-- own whatever busted printed before it.
return function(name, value, unit, cmp, target, description)
  assert(name:match "^[%w_.%-]+$", "result: bad name")
  assert(not unit:find "%s", "result: a unit has no spaces")
  local t = cmp and (cmp .. ("%.6g"):format(target)) or "-"
  io.stdout:write(("\nRESULT %s %.6g %s %s %s\n"):format(name, value, unit, t, description))
  io.stdout:flush()
end
