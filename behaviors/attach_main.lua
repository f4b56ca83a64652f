--- `tycho attach [SOCKET]`: the console of a running tycho, from another
-- terminal (Unix socket) or a laptop (--tcp with a token). Evaluation,
-- completion and pretty printing happen on the robot; this side only edits
-- lines and shows what comes back, including the robot's log lines.
local tycho = require "tycho"

local USAGE = [[
usage: tycho attach [SOCKET] [options]
  SOCKET               a runtime's socket (default: the only one running under
                       $XDG_RUNTIME_DIR/tycho or /tmp/tycho-$UID)
  --tcp HOST:PORT      attach over TCP (a runtime started with --listen)
  --token-file FILE    the shared token for --tcp (mode 600)
  -e CODE              run CODE, print its output and exit (repeatable);
                       without -e, an interactive console
  --history PATH       console history (default ~/.tycho_attach_history)
  --timeout S          give up waiting for an answer after S seconds (default 10)
Inside: Lua and :commands as in `tycho repl`; :quit detaches (the robot runs on).]]

local opt, exprs, i = {}, {}, 1
while i <= #arg do
  local a = arg[i]
  if a == "-h" or a == "--help" then print(USAGE) return 0
  elseif a == "--tcp" or a == "--token-file" or a == "--history" or a == "--timeout" or a == "-e" then
    if arg[i + 1] == nil then io.stderr:write("tycho attach: ", a, " needs a value\n") return 2 end
    if a == "-e" then exprs[#exprs + 1] = arg[i + 1] else opt[a:gsub("^%-%-", "")] = arg[i + 1] end
    i = i + 2
  elseif a:sub(1, 1) ~= "-" and not opt.socket then opt.socket = a; i = i + 1
  else io.stderr:write("tycho attach: unknown argument '", a, "'\n", USAGE, "\n") return 2 end
end
local timeout = tonumber(opt.timeout or 10)
if not timeout or timeout <= 0 then io.stderr:write("tycho attach: --timeout expects seconds > 0\n") return 2 end
local function die(msg) io.stderr:write("tycho attach: ", msg, "\n") os.exit(1) end

-- finding the runtime ------------------------------------------------------------
local function live_sockets()
  local dir = tycho.sys.runtime_dir()
  local out = {}
  for _, name in ipairs(dir and tycho.sys.list_dir(dir) or {}) do
    local pid = tonumber(name:match("^tycho%-(%d+)%.sock$"))
    if pid and tycho.sys.alive(pid) then out[#out + 1] = dir .. "/" .. name end
  end
  return out, dir
end

local conn, err
if opt.tcp then
  local host, port = opt.tcp:match("^([%w%.%-]*):(%d+)$")
  if not host then die("--tcp expects HOST:PORT") end
  if not opt["token-file"] then die("--tcp needs --token-file FILE") end
  local token
  token, err = tycho.net.read_secret(opt["token-file"])
  if not token then die(err) end
  conn, err = tycho.net.connect_tcp(host ~= "" and host or "127.0.0.1", tonumber(port))
  if conn then conn:send("A", token) end
else
  if not opt.socket then
    local found, dir = live_sockets()
    if #found == 0 then die(("no running tycho found in %s (give the socket path)"):format(tostring(dir))) end
    if #found > 1 then die("several runtimes are running; name one:\n  " .. table.concat(found, "\n  ")) end
    opt.socket = found[1]
  end
  conn, err = tycho.net.connect_unix(opt.socket)
end
if not conn then die(err) end
conn:set_limit(16 * 1024 * 1024) -- the robot's answers may be long

-- talking to it ---------------------------------------------------------------------
local pending = {} -- frames read while waiting for a particular one

--- Reads frames until one of type `want` arrives (others are handed to
-- `other`); returns its payload, or nil and the reason.
local function await(want, other)
  local deadline = tycho.clock.monotonic() + timeout
  while true do
    while #pending > 0 do
      local f = table.remove(pending, 1)
      if f[1] == want then return f[2] end
      if f[1] == "X" then return nil, f[2] end
      other(f[1], f[2])
    end
    local left = deadline - tycho.clock.monotonic()
    if left <= 0 then return nil, "no answer from the robot" end
    tycho.net.wait({ conn:fd() }, math.min(left, 1))
    local frames, e = conn:recv()
    if not frames then return nil, e == "closed" and "the runtime closed the connection" or e end
    for _, f in ipairs(frames) do pending[#pending + 1] = f end
  end
end

if #exprs > 0 then
  local function show(t, p) if t == "O" then io.write(p, "\n") end end
  local _, e = await("P", show)
  if e then die(e) end
  for _, code in ipairs(exprs) do
    conn:send("E", code)
    _, e = await("P", show)
    if e then die(e) end
  end
  conn:send("Q", "")
  conn:flush()
  conn:close()
  return 0
end

local console
local later = {} -- frames that arrived during a completion, shown after it
local prompt = "tycho> "
local done, exit_code = false, 0
local function show(t, p)
  if t == "O" or t == "L" or t == "H" then console:print(p)
  elseif t == "P" then prompt = p; console:prompt(p)
  elseif t == "X" then console:print("robot: " .. p); done, exit_code = true, 1 end
end
local home = os.getenv("HOME")
console = tycho.console.open {
  prompt = prompt,
  history = opt.history or (home and (home .. "/.tycho_attach_history")),
  complete = function(word, line, pos)
    conn:send("C", ("%s\0%s\0%d"):format(word, line or word, pos or 1))
    local list = await("C", function(t, p) later[#later + 1] = { t, p } end)
    local out = {}
    for c in (list or ""):gmatch("[^\n]+") do out[#out + 1] = c end
    return out
  end,
}
while not done do
  local ready = tycho.net.wait({ 0, conn:fd() }, 1)
  if ready[conn:fd()] or #pending > 0 then
    local frames, e = conn:recv()
    if not frames then
      console:print(e == "closed" and "the runtime closed the connection" or ("connection: " .. tostring(e)))
      exit_code = e == "closed" and 0 or 1
      break
    end
    for _, f in ipairs(pending) do show(f[1], f[2]) end
    pending = {}
    for _, f in ipairs(frames) do show(f[1], f[2]) end
  end
  for _, f in ipairs(later) do show(f[1], f[2]) end
  later = {}
  local lines, why = console:poll(0)
  if not lines and why == "eof" then break end
  for _, line in ipairs(lines or {}) do
    if line:match("^%s*:q") or line:match("^%s*:exit") or line:match("^%s*:detach") then done = true break end
    conn:send("E", line)
  end
end
pcall(conn.send, conn, "Q", "")
pcall(conn.flush, conn)
console:close()
conn:close()
return exit_code
