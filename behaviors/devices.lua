--- Subscribing to devices opened with tycho.device: a scheduler task polls
-- each device's latest sample (read never waits) and calls the subscribers
-- with every new one; a device error is reported once per change, never
-- raised. The callbacks run on the scheduler, like every behaviour.
--
--   local devices = require "devices"
--   local sub = devices.subscribe(sched, lidar, function(scan) ... end, { rate = 50, on_error = fn })
--   sub:cancel()
local devices = {}

local Sub = {}
Sub.__index = Sub

function Sub:cancel()
  if self.task then self.task:cancel() end
  self.task = nil
end

--- devices.subscribe(sched, device, fn(sample) [, {rate = 50, name =, on_error = fn(message)}]) -> subscription
function devices.subscribe(sched, dev, fn, o)
  if type(fn) ~= "function" then error("bad argument #3 to 'subscribe' (function expected)", 2) end
  o = o or {}
  local rate = o.rate or 50
  if type(rate) ~= "number" or rate <= 0 or rate > 1000 then
    error("bad field 'rate' (samples per second in (0, 1000] expected)", 2)
  end
  local self = setmetatable({ samples = 0, errors = 0 }, Sub)
  local last_err
  self.task = sched:every(1 / rate, function()
    while true do
      local s, err = dev:read()
      if not s then
        if err and err ~= last_err then
          self.errors = self.errors + 1
          if o.on_error then o.on_error(err) end
        end
        last_err = err
        return
      end
      last_err = nil
      self.samples = self.samples + 1
      fn(s)
    end
  end, o.name or ("device " .. tostring(dev.driver)))
  return self
end

return devices
