--- The central route distributor: holds every robot's route (segments) and
-- preconditions from the planner, collects the progress the supervisors
-- report, and tells each robot how far it may go. Robot B may enter its
-- segment k once every robot A named in k's preconditions has completed
-- (driven past) the segment of its own route named there; completed means
-- A has arrived at the vertex after it, so B never closes in on A.
--
--   local d = Distributor.new(n)
--   d:load(planner)              -- routes and preconditions of the last plan
--   d:report(i, k, now)          -- robot i arrived at its segment k (1-based)
--   d:grant(i) -> k              -- the furthest segment robot i may enter now
--   d:blockers(i) -> {robot, ...} -- whom robot i is waiting for
local Distributor = {}
Distributor.__index = Distributor

function Distributor.new(n)
  local self = setmetatable({ n = n, routes = {}, pre = {}, reached = {}, progress_t = {}, grant_t = {},
                              granted = {} }, Distributor)
  for i = 1, n do self.reached[i], self.progress_t[i], self.grant_t[i], self.granted[i] = 0, 0, 0, 0 end
  return self
end

--- Routes and preconditions from a tycho.fleet planner after a successful plan.
-- Progress restarts: every robot is at segment 1 of its new route.
function Distributor:load(planner, now)
  for i = 1, self.n do
    local r = planner:route(i)
    self.routes[i] = r
    local pre = {}
    for k = 1, #r do pre[k] = planner:preconditions(i, k) end
    self.pre[i] = pre
    self.reached[i] = 1
    self.progress_t[i] = now or 0
    self.grant_t[i] = now or 0
    self.granted[i] = 1
  end
end

function Distributor:report(i, k, now)
  if k > self.reached[i] then
    self.reached[i] = k
    self.progress_t[i] = now
  end
end

function Distributor:finished(i) return self.reached[i] >= #self.routes[i] end

-- Unmet preconditions of robot i's segment k (robots it waits for).
function Distributor:unmet(i, k)
  local out = {}
  for _, p in ipairs(self.pre[i][k] or {}) do
    -- completed segment s = arrived at segment s + 1 (or s is its last)
    local r = self.routes[p.robot]
    if self.reached[p.robot] < math.min(p.segment + 1, #r) then out[#out + 1] = p.robot end
  end
  return out
end

--- The furthest segment robot i may enter: each one up the route whose
-- preconditions are all met (progress only grows, so a grant stays valid).
function Distributor:grant(i, lookahead, now)
  local k = self.reached[i]
  local last = math.min(#self.routes[i], k + (lookahead or 4))
  while k < last and #self:unmet(i, k + 1) == 0 do k = k + 1 end
  if k > self.granted[i] then
    -- the clock for "no progress" starts when it may move, not when it last arrived
    if self.granted[i] <= self.reached[i] then self.grant_t[i] = now or self.grant_t[i] end
    self.granted[i] = k
  end
  return k
end

function Distributor:blockers(i)
  local k = self.reached[i]
  if k >= #self.routes[i] then return {} end
  return self:unmet(i, k + 1)
end

--- Robots held up for good: {{robot = i, cause = j, why = "stopped" | "deadlock"}, ...}.
-- For each holding robot the chain of whom it waits for is followed: if it
-- ends at a robot that may drive but has made no progress for `after`
-- seconds (broken down, or an injected stop), or loops back on itself (a
-- deadlock), the robot is stuck. A chain ending at a robot that is moving
-- is just a queue.
function Distributor:stuck(now, after, holding)
  local out = {}
  for i = 1, self.n do
    if holding(i) then
      local seen, j, why = { [i] = true }, i, nil
      while true do
        local b = self:blockers(j)[1]
        if not b then break end
        if seen[b] then why = "deadlock" j = b break end
        seen[b] = true
        j = b
        if not holding(j) then
          local free_since = math.max(self.progress_t[j], self.grant_t[j])
          if not self:finished(j) and now - free_since >= after then why = "stopped" end
          break
        end
      end
      if why then out[#out + 1] = { robot = i, cause = j, why = why } end
    end
  end
  return out
end

return Distributor
