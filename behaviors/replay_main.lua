--- tycho replay FILE.mcap: serves a recording to Foxglove / Lichtblick.
--
--   tycho replay out/run.mcap                   # ws://127.0.0.1:8765, at the recorded pace
--   tycho replay out/run.mcap --viz 9000 --speed 10 --loop
--   tycho replay out/run.mcap --info            # what the file holds, then exit
--
-- The whole file is checked first (CRCs, indexes: tycho.mcap.read), then
-- every channel is advertised with its JSON Schema (the ones in viz/schemas;
-- a schema tycho does not know goes out empty) and the messages are sent in
-- file order, paced by their log times divided by --speed, with the `time`
-- capability following the recording's clock; a viewer that reads slower
-- than that slows the replay rather than losing messages. Playback starts when the
-- first viewer's subscriptions have settled (--now: at once), so a viewer sees the recording
-- from its start. Exit 0 at the end (--loop: play again until Ctrl-C),
-- 2 for a bad command line or a file that is not a whole MCAP recording.
local tycho = require "tycho"
local cli = require "cli"
local IoLoop = require "io_loop"
local VizServer = require "viz_server"
local Channels = require "channels"
local logmod = require "log"
local Session = require "session"

local viz_option
for _, o in ipairs(Session.OPTIONS) do
  if o.name == "viz" then viz_option = o end
end

local spec = cli.spec {
  prog = "tycho replay", command = "tycho replay", usage_line = "FILE.mcap [options]", positional = "FILE",
  summary = "serve an MCAP recording (--record) to Foxglove / Lichtblick over their WebSocket protocol",
  options = {
    { name = "viz", type = "string", metavar = "[HOST:]PORT", bare = true, takes = viz_option.takes,
      doc = "where to serve (default 127.0.0.1:8765; port 0 picks a free one)" },
    { name = "speed", type = "number", default = 1, min = 1e-3, metavar = "X",
      doc = "recorded seconds per wall second" },
    { name = "loop", type = "boolean", doc = "play again from the start at the end, until Ctrl-C" },
    { name = "now", type = "boolean", doc = "start at once instead of at the first viewer's subscription" },
    { name = "info", type = "boolean", doc = "print what the recording holds and exit" },
    { name = "quiet", type = "boolean", doc = "only warnings and the final line" },
  } }

local opt, usage_err = spec:parse(arg)
if not opt then return cli.usage_error(spec, usage_err) end
if opt.help then io.write(spec:usage()) return 0 end
local files = opt._rest
if #files ~= 1 then return cli.usage_error(spec, "one recording (FILE.mcap) expected") end
local path = files[1]

local info, err = tycho.mcap.read(path)
if not info then
  io.stderr:write("tycho replay: ", tostring(err), "\n")
  return 2
end
local topics = {}
for topic in pairs(info.channels) do topics[#topics + 1] = topic end
table.sort(topics)
local duration = info.end_time - info.start_time
print(("replay: %s: %d messages on %d channels, %.1f s recorded (%s)"):format(path, info.messages, #topics,
  duration, info.library))
if opt.info or not opt.quiet then
  for _, topic in ipairs(topics) do
    local ch = info.channels[topic]
    print(("  %-12s %-26s %7d messages"):format(topic, ch.schema, ch.messages))
  end
end
if opt.info then return 0 end

local log = logmod.new { level = opt.quiet and "warn" or (os.getenv("TYCHO_LOG") or "info") }
local loop = IoLoop.new { on_error = function(msg) log:error("%s", msg) end }
local host, port = VizServer.parse_address(opt.viz)
if not host then return cli.usage_error(spec, port) end
local ok, server = pcall(VizServer.new, { loop = loop, host = host, port = port, log = log, name = "replay" })
if not ok then
  io.stderr:write("tycho replay: ", tostring(server), "\n")
  return 1
end
for _, topic in ipairs(topics) do
  local name = info.channels[topic].schema
  local has, schema = pcall(Channels.schema, name)
  server:advertise(topic, name, has and schema or "")
end
print(("replay: Foxglove live view on ws://%s:%d"):format(host, server.port))
io.stdout:flush()

-- subscriptions so far (a viewer subscribes channel by channel)
local function subscriptions()
  local n = 0
  for _, ch in ipairs(server.channels) do
    for _ in pairs(ch.subs) do n = n + 1 end
  end
  return n
end
if not opt.now then
  print("replay: waiting for a viewer to subscribe (--now starts at once)")
  io.stdout:flush()
  while subscriptions() == 0 do loop:poll(0.1) end
  -- then until its subscriptions have settled (none new for 0.5 s)
  local n, since = subscriptions(), tycho.clock.monotonic()
  while tycho.clock.monotonic() - since < 0.5 do
    loop:poll(0.05)
    if subscriptions() ~= n then n, since = subscriptions(), tycho.clock.monotonic() end
  end
end

local clock = tycho.clock.monotonic
local sent_total, rounds = 0, 0
repeat
  rounds = rounds + 1
  local wall0, sent = clock(), 0
  local _, read_err = tycho.mcap.read(path, function(topic, t, data)
    local due = wall0 + (t - info.start_time) / opt.speed
    while true do
      local now = clock()
      if now >= due then break end
      loop:poll(math.min(due - now, 0.05))
    end
    -- a viewer that reads slower than --speed slows the replay down rather
    -- than losing messages (the live view drops them instead: a robot never waits)
    while server:backlog() > VizServer.QUEUE_LIMIT / 2 do loop:poll(0.01) end
    server:publish(topic, t, data)
    sent = sent + 1
    -- let the viewers' sockets take what was queued every few hundred messages
    if sent % 256 == 0 then loop:poll(0) end
  end)
  if read_err then
    io.stderr:write("tycho replay: ", tostring(read_err), "\n")
    return 2
  end
  sent_total = sent_total + sent
  -- drain what is queued before ending or starting again
  local t_end = clock() + 1
  repeat loop:poll(0.02) until clock() > t_end

  if not opt.quiet then
    log:info("replay: round %d: %d messages in %.1f s", rounds, sent, clock() - wall0)
  end
until not opt.loop
server:close()
print(("replay: done, %d messages sent (%d round%s)"):format(sent_total, rounds, rounds == 1 and "" or "s"))
return 0
