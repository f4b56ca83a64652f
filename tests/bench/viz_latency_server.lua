-- The publishing side of the live-view latency benchmark (tests/bench/viz_bench.js):
-- a viz server on an I/O loop, as a session runs it, publishing a small /log
-- message every 10 ms whose text is the monotonic clock at publish time;
-- the viewer compares it with its own clock (the same CLOCK_MONOTONIC).
--   tycho run tests/bench/viz_latency_server.lua PORT COUNT
local tycho = require "tycho"
local IoLoop = require "io_loop"
local Channels = require "channels"
local VizServer = require "viz_server"

local port, count = tonumber(arg[1] or "0"), tonumber(arg[2] or "2000")
local loop = IoLoop.new {}
local ch = Channels.new()
local viz = VizServer.new { loop = loop, host = "127.0.0.1", port = port, name = "latency" }
ch:add_sink(viz)
print(("viz: ws://127.0.0.1:%d"):format(viz.port))
io.stdout:flush()
-- wait for the viewer to subscribe to /log
local log_ch = viz.by_topic["/log"]
local t_end = tycho.clock.monotonic() + 20
while next(log_ch.subs) == nil and tycho.clock.monotonic() < t_end do loop:poll(0.01) end
local t0 = tycho.clock.monotonic()
for i = 1, count do
  local now = tycho.clock.monotonic()
  ch:publish("/log", now - t0, { timestamp = Channels.stamp(now - t0), level = 2, name = "bench", file = "", line = i,
                                 message = ("%.9f"):format(now) })
  loop:poll(0.01)
end
loop:poll(0.2)
ch:close()
