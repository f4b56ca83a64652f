--- One robot's route supervisor: watches its robot's progress along the
-- route, reports it to the distributor, and passes the distributor's grant
-- on to the robot (how far it may drive). On a real robot the same object
-- sits between the distributor and the robot's navigation; here the robot
-- is one of the fleet simulator's.
--
--   local s = Supervisor.new { id = i, sim = fleet_sim, distributor = d, on_arrival = fn(i, k) }
--   s:tick(now)     -- each supervisor period
local Supervisor = {}
Supervisor.__index = Supervisor

function Supervisor.new(o)
  return setmetatable({ id = o.id, sim = o.sim, d = o.distributor, on_arrival = o.on_arrival,
                        last = 0, granted = 0, arrived_at = nil }, Supervisor)
end

--- A new route was loaded: start again from its first segment.
function Supervisor:reset()
  self.last, self.granted, self.arrived_at = 0, 0, nil
end

function Supervisor:tick(now)
  local i, sim, d = self.id, self.sim, self.d
  local k = sim:reached(i)
  if k > self.last then
    self.last = k
    d:report(i, k, now)
    if k >= #d.routes[i] and not self.arrived_at then self.arrived_at = now end
    if self.on_arrival then self.on_arrival(i, k) end
  end
  local g = d:grant(i, 4, now)
  if g ~= self.granted then
    self.granted = g
    sim:allow(i, g)
  end
end

--- Holding: at a vertex, not allowed further, not at its goal.
function Supervisor:holding()
  local i = self.id
  return not self.sim:moving(i) and not self.sim:stopped(i) and self.sim:reached(i) < #self.d.routes[i]
end

return Supervisor
