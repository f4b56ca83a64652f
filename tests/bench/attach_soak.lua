-- Soak (issue 14, a benchmark, not CI): `tycho repl --world maps/maze_large.lua`
-- with two attached clients evaluating every 10 ms for MINUTES minutes; every
-- answer is checked, the runtime's RSS is sampled each minute.
--
--   build/tycho run tests/bench/attach_soak.lua [MINUTES (default 60)] [EXE (default build/tycho)]
--
-- Prints the answers lost (target 0) and the RSS growth after the first 10
-- minutes (target <= 1 MB; with shorter runs, after the first fifth).
local tycho = require "tycho"
local result = require "tests.spec.helpers.result" -- run from the source folder

local minutes = tonumber(arg[1] or "60")
local exe = arg[2] or "build/tycho"
local dir = os.tmpname()
os.remove(dir)
assert(tycho.sys.mkdir(dir))
local sock = dir .. "/soak.sock"

local rt = io.popen(("exec '%s' repl --world maps/maze_large.lua --history '%s/h' --socket '%s' > '%s/repl.log' 2>&1")
  :format(exe, dir, sock, dir), "w")

local function connect()
  for _ = 1, 200 do
    local c = tycho.net.connect_unix(sock)
    if c then return c end
    tycho.net.wait({}, 0.05)
  end
  error("no runtime on " .. sock)
end

local function rss_kb(pid)
  local f = io.open("/proc/" .. pid .. "/status")
  if not f then return nil end
  local kb = tonumber(f:read("*a"):match("VmRSS:%s*(%d+)"))
  f:close()
  return kb
end

local clients = {}
for i = 1, 2 do
  local c = connect()
  clients[i] = { conn = c, n = 0, lost = 0, wrong = 0, pending = nil, buf = {} }
end
-- each greeting (H, then the first prompt); it names the pid
local pid
for _, c in ipairs(clients) do
  local prompt = false
  while not prompt do
    tycho.net.wait({ c.conn:fd() }, 0.1)
    for _, f in ipairs(c.conn:recv() or {}) do
      if f[1] == "H" then pid = tonumber(f[2]:match("pid (%d+)")) end
      if f[1] == "P" then prompt = true end
    end
  end
end

local t0 = tycho.clock.monotonic()
local samples, next_sample = {}, t0
local period = 0.01
local next_send = t0
while tycho.clock.monotonic() - t0 < minutes * 60 do
  local now = tycho.clock.monotonic()
  if now >= next_sample then
    samples[#samples + 1] = { t = now - t0, kb = rss_kb(pid) }
    next_sample = next_sample + 60
  end
  if now >= next_send then
    for i, c in ipairs(clients) do
      if c.pending then
        -- no answer within the period: counted once it is overdue by 5 s
        if now - c.sent > 5 then c.lost = c.lost + 1 c.pending = nil end
      else
        c.n = c.n + 1
        c.pending = ("%d"):format(c.n * 7 + i)
        c.sent = now
        c.conn:send("E", ("%d * 7 + %d"):format(c.n, i))
      end
    end
    next_send = next_send + period
  end
  local fds = { clients[1].conn:fd(), clients[2].conn:fd() }
  tycho.net.wait(fds, math.max(0, math.min(next_send, next_sample) - tycho.clock.monotonic()))
  for _, c in ipairs(clients) do
    local frames = c.conn:recv()
    for _, f in ipairs(frames or {}) do
      if f[1] == "O" then c.out = f[2]
      elseif f[1] == "P" and c.pending then
        if c.out ~= c.pending then c.wrong = c.wrong + 1 end
        c.pending, c.out = nil, nil
      end
    end
  end
end
samples[#samples + 1] = { t = tycho.clock.monotonic() - t0, kb = rss_kb(pid) }
rt:close()

local base_i = 1
for i, s in ipairs(samples) do
  if s.t <= math.min(600, minutes * 60 / 5) + 1 then base_i = i end
end
local base, last = samples[base_i], samples[#samples]
local answered = clients[1].n + clients[2].n
print(("soak: %.1f min, %d evaluations, %d answers lost, %d wrong; RSS %d kB at %.0f s -> %d kB at %.0f s (%+d kB)")
  :format(minutes, answered, clients[1].lost + clients[2].lost, clients[1].wrong + clients[2].wrong,
    base.kb or -1, base.t, last.kb or -1, last.t, (last.kb or 0) - (base.kb or 0)))
local line = {}
for _, s in ipairs(samples) do line[#line + 1] = ("%.0f:%d"):format(s.t / 60, s.kb or -1) end
print("soak: RSS by minute (kB): " .. table.concat(line, " "))
local what = ("`tycho repl --world maps/maze_large.lua`, two attached clients evaluating every 10 ms for %g min "
  .. "(%d answers):"):format(minutes, answered)
result("soak.answers_lost", clients[1].lost + clients[2].lost + clients[1].wrong + clients[2].wrong, "answers",
  "<=", 0, what .. " answers lost or wrong")
if base.kb and last.kb then
  result("soak.rss_growth_mb", (last.kb - base.kb) / 1024, "MB", "<=", 1, ("… the runtime's RSS growth from "
    .. "minute %.0f (%d kB) to the end"):format(base.t / 60, base.kb))
end
os.execute(("rm -rf '%s'"):format(dir))
return (clients[1].lost + clients[2].lost + clients[1].wrong + clients[2].wrong == 0) and 0 or 1
