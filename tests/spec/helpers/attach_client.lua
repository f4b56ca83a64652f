--- A console client for specs: the frames `tycho attach` sends and reads,
-- over tycho.net, against a runtime the spec started.
--
--   local client = require "helpers.attach_client"
--   local c = client.connect_unix(sock)
--   client.read_until(c, "P")                -- the first prompt
--   local text, ok = client.eval(c, "1 + 1") -- "2", true
local tycho = require "tycho"

local M = {}

function M.sleep(s) tycho.net.wait({}, s) end

--- The runtime's Unix socket, tried every 50 ms while the runtime starts
-- (`tries` times, 100 by default; an error after the last).
function M.connect_unix(path, tries)
  for _ = 1, tries or 100 do
    local c = tycho.net.connect_unix(path)
    if c then return c end
    M.sleep(0.05)
  end
  error("no runtime listening on " .. path, 2)
end

--- Frames until one of type `want`: its payload and every frame read. At
-- the timeout (seconds, 10 by default), or when the runtime closed the
-- connection (got.closed: why), nil and the frames read.
function M.read_until(c, want, timeout)
  local got, deadline = {}, tycho.clock.monotonic() + (timeout or 10)
  while tycho.clock.monotonic() < deadline do
    tycho.net.wait({ c:fd() }, 0.05)
    local frames, err = c:recv()
    if not frames then got.closed = err return nil, got end
    for _, f in ipairs(frames) do
      got[#got + 1] = f
      if f[1] == want then return f[2], got end
    end
  end
  return nil, got
end

--- Evaluates a line: its output lines joined, true when the next prompt
-- came (within `timeout`), and every frame read.
function M.eval(c, line, timeout)
  c:send("E", line)
  local prompt, got = M.read_until(c, "P", timeout)
  local out = {}
  for _, f in ipairs(got) do if f[1] == "O" then out[#out + 1] = f[2] end end
  return table.concat(out, "\n"), prompt ~= nil, got
end

return M
