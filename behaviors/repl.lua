--- The console's brain: evaluation, pretty printing, completion and the
-- ":" commands. The terminal side (line editing, history, non-blocking
-- input) is tycho.console; this module is plain Lua so it runs the same on
-- the robot's console and in the specs.
--
--   local repl = Repl.new { env = env, host = host, print = fn(text) }
--   repl:feed(line)          -- evaluates (or waits for the rest of a chunk)
--   repl:prompt()            -- "tycho> " or ">> " inside a multi-line chunk
--   repl:complete(word, line, pos) -> {candidates}
--
-- An expression is printed without typing `return`; an incomplete chunk
-- (a `function` without its `end`...) continues on the next line, as in
-- lua5.4. Errors are printed with their traceback and never leave the
-- console. `host` (all optional) lets the commands reach the runtime:
-- params (a params group), machine (an fsm), scheduler, log, safe_stop(),
-- reload(), pause(), resume(), step().
local Repl = {}
Repl.__index = Repl

local function pack(...) return { n = select("#", ...), ... } end
local load = load
if _VERSION == "Lua 5.1" then -- LuaJIT: load(string, name, mode, env)
  local loadstring, setfenv = loadstring, setfenv
  load = function(src, name, _, env)
    local f, err = loadstring(src, name)
    if f and env then setfenv(f, env) end
    return f, err
  end
end

-- pretty printing -------------------------------------------------------------

local function is_ident(k) return type(k) == "string" and k:match("^[%a_][%w_]*$") ~= nil end

local function key_order(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return ta < tb end
  if ta == "number" or ta == "string" then return a < b end
  return tostring(a) < tostring(b)
end

local function scalar(v)
  local t = type(v)
  if t == "string" then return ("%q"):format(v) end
  if t == "table" or t == "userdata" then
    local mt = getmetatable(v)
    if type(mt) == "table" and mt.__tostring then
      local ok, s = pcall(tostring, v)
      return ok and s or ("<" .. t .. ": __tostring failed>")
    end
  end
  return tostring(v)
end

--- Repl.pretty(v [, {depth = 3, items = 40, indent = "  "}]) -> string.
-- Nested tables up to `depth`, at most `items` entries per table, cycles
-- shown as <cycle>, tables and userdata with __tostring through it.
function Repl.pretty(v, o)
  o = o or {}
  local max_depth, max_items, ind = o.depth or 3, o.items or 40, o.indent or "  "
  local seen = {}
  local function go(x, depth, pad)
    if type(x) ~= "table" then return scalar(x) end
    local mt = getmetatable(x)
    if type(mt) == "table" and mt.__tostring then return scalar(x) end
    if seen[x] then return "<cycle>" end
    if depth >= max_depth then return "{...}" end
    seen[x] = true
    local keys = {}
    for k in pairs(x) do keys[#keys + 1] = k end
    table.sort(keys, key_order)
    local n, parts = #x, {}
    local shown = 0
    for _, k in ipairs(keys) do
      if shown >= max_items then
        parts[#parts + 1] = ("... (%d more)"):format(#keys - shown)
        break
      end
      local val = go(x[k], depth + 1, pad .. ind)
      if type(k) == "number" and k >= 1 and k <= n and k % 1 == 0 then
        parts[#parts + 1] = val
      elseif is_ident(k) then
        parts[#parts + 1] = k .. " = " .. val
      else
        parts[#parts + 1] = "[" .. go(k, max_depth, pad) .. "] = " .. val
      end
      shown = shown + 1
    end
    seen[x] = nil
    if #parts == 0 then return "{}" end
    local flat = "{ " .. table.concat(parts, ", ") .. " }"
    if #flat <= 72 and not flat:find("\n") then return flat end
    return "{\n" .. pad .. ind .. table.concat(parts, ",\n" .. pad .. ind) .. "\n" .. pad .. "}"
  end
  return go(v, 0, "")
end

-- evaluation ------------------------------------------------------------------

-- os.exit typed at the console is a request, not the end of the process:
-- the exit request travels as an error object to the console (see _exit).
local EXIT_MT = { __tostring = function(e) return ("os.exit(%s)"):format(tostring(e.code)) end }

local function exit_code(code)
  if code == nil or code == true then return 0 end
  if code == false then return 1 end
  if type(code) == "number" and code == code then return math.floor(code) % 256 end
  return 1
end

local function console_os()
  local t = {}
  for k, v in pairs(os) do t[k] = v end
  t.exit = function(code) error(setmetatable({ exit_request = true, code = exit_code(code) }, EXIT_MT), 0) end
  return t
end

-- The traceback down to the console's own chunk (the frames below it are
-- the console's machinery, not the user's code).
local function traceback(e)
  if getmetatable(e) == EXIT_MT then return e end
  local tb = debug.traceback(tostring(e), 2)
  local cut = tb:find("\n%s*%[C%]: in function 'xpcall'")
  return cut and tb:sub(1, cut - 1) or tb
end

-- Code typed at the console runs on the runtime's thread, between ticks: a
-- runaway loop there would freeze the control loop. It gets the behaviours'
-- safety net: a CPU-time budget (EVAL_BUDGET_S) whose hook suspends it (Lua
-- 5.4; a pcall in the typed code cannot swallow it), and C functions that
-- loop (pattern matching) stop at the same budget. A host that steps its
-- consoles (Repl.new{sliced = true}: the attach server, the local console)
-- gets evaluation in slices of SLICE_S of CPU time: feed() runs the first
-- slice, busy() says whether more is left, step() runs the next; the loop
-- between two slices is the control loop's, so a long evaluation delays a
-- tick by one slice at most. C functions cannot be cut in slices: one long
-- C call runs until it returns or the whole budget is spent.
Repl.EVAL_BUDGET_S = 1
Repl.HISTORY = 500 -- lines kept per console
Repl.SLICE_S = 0.01

local function stopped_msg(budget)
  return { n = 2, false, ("stopped after %.3g s of CPU (the console's budget; the runtime goes on)"):format(budget) }
end

-- Runs a slice (sliced) or all (not sliced) of a job; returns the results
-- pack {ok, values...} when finished, nil while there is more to run.
function Repl:_slice(job, slice)
  local ok_wd, tycho = pcall(require, "tycho")
  local wd = ok_wd and tycho.watchdog
  local budget = self.budget_s
  if not wd or not budget or rawget(_G, "jit") then return pack(xpcall(job.f, traceback)) end
  local left = budget - job.used
  if left <= 0 then return stopped_msg(budget) end
  local t0 = os.clock()
  local armed
  if self.sliced then armed = wd.arm_time(job.co, math.min(slice or self.slice_s, left), left)
  else armed = wd.arm_time(job.co, left) end
  local res = pack(coroutine.resume(job.co))
  wd.disarm_time(job.co)
  job.used = job.used + (os.clock() - t0)
  if armed then
    local tripped, how = wd.tripped(job.co)
    if tripped then
      if how == "c" or not self.sliced or job.used >= budget then return stopped_msg(budget) end
      wd.untrip(job.co) -- the end of a slice: resumed at the next step
      return nil
    end
  end
  if not res[1] then return { n = 2, false, tostring(res[2]) } end
  if coroutine.status(job.co) ~= "dead" then return { n = 2, false, "console code cannot yield" } end
  return pack(select(2, (table.unpack or unpack)(res, 1, res.n)))
end

function Repl:_run(f)
  local job = { f = f, used = 0, co = coroutine.create(function() return xpcall(f, traceback) end) }
  local res = self:_slice(job)
  if res then return res end
  self.job = job
  return nil
end

--- Repl.new{env =, host =, print = fn(text), budget_s = Repl.EVAL_BUDGET_S | false,
--            sliced = false, slice_s = Repl.SLICE_S} -> repl
function Repl.new(o)
  o = o or {}
  local self = setmetatable({
    env = o.env or setmetatable({}, { __index = _G }),
    host = o.host or {},
    print = o.print or function(s) io.write(s, "\n") end,
    buffer = nil,
    history = {},
    budget_s = o.budget_s == nil and Repl.EVAL_BUDGET_S or o.budget_s,
    sliced = o.sliced == true,
    slice_s = o.slice_s or Repl.SLICE_S,
  }, Repl)
  -- the console's os.exit asks for a safe stop instead of ending the process
  local env_os = rawget(self.env, "os")
  if env_os == nil or env_os == os then rawset(self.env, "os", console_os()) end
  return self
end

function Repl:prompt() return self.buffer and ">> " or "tycho> " end

--- True while an evaluation started by feed() has slices left (sliced mode).
function Repl:busy() return self.job ~= nil end

--- Runs the next slice of a long evaluation (`slice` seconds of CPU at
-- most); returns true while there is more to run. Prints the results when
-- it finishes.
function Repl:step(slice)
  if not self.job then return false end
  local res = self:_slice(self.job, slice)
  if not res then return true end
  self.job = nil
  self:_finish(res)
  return false
end

-- os.exit from the console: the host's exit (tycho repl: leave as :quit
-- does), else the running mission's guard (stop safely, write the outputs,
-- exit with the code), else a safe stop.
function Repl:_exit(code)
  local h = self.host
  if h.exit then
    h.exit(code)
    self.print(("os.exit(%d): leaving after a safe stop"):format(code))
    return
  end
  local ok, Guard = pcall(require, "mission_guard")
  if ok and Guard.current then
    Guard.current:stop("os.exit from the console", code)
    self.print(("os.exit(%d): the mission stops safely, writes its outputs and ends"):format(code))
    return
  end
  if h.safe_stop then
    h.safe_stop()
    self.print("os.exit from the console: safe stop (the runtime goes on; :quit leaves)")
    return
  end
  self.print("os.exit is not available from the console (:quit leaves)")
end

function Repl:_finish(res)
  if not res[1] then
    if getmetatable(res[2]) == EXIT_MT then return self:_exit(res[2].code) end
    self.failed = true
    self.print("error: " .. tostring(res[2]))
    return
  end
  local out = {}
  for i = 2, res.n do out[#out + 1] = Repl.pretty(res[i]) end
  if #out > 0 then self.print(table.concat(out, "\t")) end
end

local function incomplete(err) return err and err:find("<eof>", 1, true) ~= nil end

--- Evaluates one line (or a ":" command). Returns true when something ran
-- (or started: see busy()); nil, "busy" while an evaluation is running.
-- After it, self.failed tells whether the line failed: a Lua error (syntax
-- or run time) or a refused, unknown or unavailable command (`tycho attach
-- -e` exits non-zero on it).
function Repl:feed(line)
  if self.job then return nil, "busy" end
  self.failed = false
  if not self.buffer and line:match("^%s*:") then
    local ran = self:command(line:match("^%s*:(.*)$"))
    if ran == false then self.failed = true end
    return ran
  end
  local src = self.buffer and (self.buffer .. "\n" .. line) or line
  if src:match("^%s*$") then self.buffer = nil return false end
  -- the last HISTORY lines only: a console attached for days must not grow
  self.history[#self.history + 1] = line
  local h = self.history
  if #h > 2 * Repl.HISTORY then
    local keep = {}
    for i = #h - Repl.HISTORY + 1, #h do keep[#keep + 1] = h[i] end
    self.history = keep
  end
  -- an expression first (print its value), then a statement
  local f, err = load("return " .. src, "=console", "t", self.env)
  if not f then f, err = load(src, "=console", "t", self.env) end
  if not f then
    if incomplete(err) then
      self.buffer = src
      return false
    end
    self.buffer = nil
    self.failed = true
    self.print("error: " .. tostring(err))
    return false
  end
  self.buffer = nil
  local res = self:_run(f)
  if res then self:_finish(res) end
  return true
end

-- completion ------------------------------------------------------------------

-- Fields reachable from v: its own keys (tables) and those of its
-- metatables' __index tables, followed up to a few levels.
local function fields(v, out, depth)
  out = out or {}
  depth = depth or 0
  if depth > 4 then return out end
  if type(v) == "table" then
    for k, x in pairs(v) do
      if type(k) == "string" and out[k] == nil then out[k] = x end
    end
  end
  local mt = (type(v) == "table" or type(v) == "userdata" or type(v) == "string") and getmetatable(v)
  if type(mt) == "table" then
    local idx = rawget(mt, "__index")
    if type(idx) == "table" then fields(idx, out, depth + 1) end
    -- a C __index closing over its method table (tycho's classes)
    if type(idx) == "function" and debug and debug.getupvalue and debug.getinfo(idx, "S").what == "C" then
      local _, up = debug.getupvalue(idx, 1)
      if type(up) == "table" then fields(up, out, depth + 1) end
    end
    -- tycho's grid metatable keeps its methods here
    if type(rawget(mt, "methods")) == "table" then fields(rawget(mt, "methods"), out, depth + 1) end
  end
  return out
end

-- Walks a dotted path ("a.b.c") from env without calling anything.
local function resolve(env, path)
  local v = env
  for name in path:gmatch("[^%.:]+") do
    local ok, x = pcall(function() return v[name] end)
    if not ok or x == nil then return nil end
    v = x
  end
  return v
end

-- Inside a string literal at `pos` of `line`? (quotes before it unbalanced)
local function in_string(line, pos)
  local quote, i, before = nil, 1, line:sub(1, (pos or (#line + 1)) - 1)
  while i <= #before do
    local ch = before:sub(i, i)
    if quote then
      if ch == "\\" then i = i + 1 elseif ch == quote then quote = nil end
    elseif ch == '"' or ch == "'" then
      quote = ch
    end
    i = i + 1
  end
  return quote ~= nil
end

-- File names for a word typed inside a string ("behaviors/he" -> "behaviors/heat_seek.lua", ...).
local function complete_file(word)
  local ok, tycho = pcall(require, "tycho")
  if not ok or not tycho.sys then return {} end
  local dir, prefix = word:match("^(.*/)([^/]*)$")
  if not dir then dir, prefix = "", word end
  local names = tycho.sys.list_dir(dir == "" and "." or dir) or {}
  local out = {}
  for _, name in ipairs(names) do
    if name:sub(1, #prefix) == prefix and (prefix:sub(1, 1) == "." or name:sub(1, 1) ~= ".") then
      out[#out + 1] = dir .. name
    end
  end
  return out
end

--- Candidates for the word being typed (as readline gives it: the text
-- after the last blank, bracket or quote, e.g. "grid:pl" or "tycho.sim.lo");
-- with the whole line and the word's position, a word inside a string
-- literal completes as a file name.
function Repl:complete(word, line, pos)
  if line and in_string(line, pos) then return complete_file(word) end
  local base, sep, prefix = word:match("^(.*)([%.:])([%w_]*)$")
  local scope, only_functions
  if base then
    scope = resolve(self.env, base)
    if scope == nil then return {} end
    only_functions = sep == ":"
  else
    prefix, base, sep = word, "", ""
    scope = self.env
  end
  local pool = fields(scope)
  if not base or base == "" then
    -- globals reached through the environment's __index (usually _G)
    for k, x in pairs(fields(_G)) do if pool[k] == nil then pool[k] = x end end
  end
  local out = {}
  for k, x in pairs(pool) do
    if k:sub(1, #prefix) == prefix and is_ident(k) and (not only_functions or type(x) == "function") then
      out[#out + 1] = base .. sep .. k
    end
  end
  table.sort(out)
  if #out > 200 then for i = #out, 201, -1 do out[i] = nil end end
  return out
end

-- ":" commands ----------------------------------------------------------------

local HELP = [[
console commands (anything else is Lua; an expression prints its value):
  :help                 this text
  :state                state machine: current state and recent history
  :params [NAME]        list parameters (or one, with its range and doc)
  :set NAME=VALUE       set a parameter (checked against its type and range)
  :save [PATH]          save the parameters (atomically) to PATH or the default file
  :reload               reload the behaviour (build, validate, swap)
  :pause / :resume      pause or resume the scheduler
  :step [N]             run N scheduler steps while paused (default 1)
  :stop                 safe stop: wheels stopped, launcher disarmed
  :log [N]              the last N log lines (default 20)]]

function Repl:command(text)
  local cmd, rest = text:match("^%s*(%S*)%s*(.-)%s*$")
  local h = self.host
  local function need(x, what)
    if x == nil then self.print(("%s: not available in this session"):format(what)) end
    return x ~= nil
  end
  if cmd == "help" or cmd == "" then
    self.print(HELP)
  elseif cmd == "state" then
    if not need(h.machine, ":state") then return false end
    local m = h.machine
    local lines = { ("state: %s%s"):format(tostring(m.state), m.finished and " (finished)" or "") }
    local hist = h.history and h.history() or {}
    for i = math.max(1, #hist - 9), #hist do
      lines[#lines + 1] = ("  %8.2f s  %s"):format(hist[i].t or 0, tostring(hist[i].state))
    end
    self.print(table.concat(lines, "\n"))
  elseif cmd == "params" then
    if not need(h.params, ":params") then return false end
    for _, e in ipairs(h.params:list()) do
      if rest == "" or e.name == rest then
        self.print(("%-24s = %-8s %s%s  %s"):format(e.name, tostring(e.value), e.unit and (e.unit .. " ") or "",
          e.min and ("[" .. tostring(e.min) .. ".." .. tostring(e.max) .. "]") or "", e.doc or ""))
      end
    end
  elseif cmd == "set" then
    if not need(h.params, ":set") then return false end
    local name, value = rest:match("^([%w_]+)%s*=%s*(.+)$")
    if not name then self.print("usage: :set NAME=VALUE") return false end
    local ok, set, err = pcall(h.params.set_string, h.params, name, value)
    if ok and set then
      self.print(("%s = %s"):format(name, tostring(h.params[name])))
    else
      self.print("refused: " .. tostring(ok and err or set))
      return false
    end
  elseif cmd == "save" then
    if not need(h.save_params, ":save") then return false end
    local ok, err = h.save_params(rest ~= "" and rest or nil)
    self.print(ok and ("saved " .. tostring(ok)) or ("not saved: " .. tostring(err)))
    if not ok then return false end
  elseif cmd == "reload" then
    if not need(h.reload, ":reload") then return false end
    local ok, err = h.reload()
    self.print(ok and "reloaded" or ("reload refused, the old behaviour keeps running: " .. tostring(err)))
    if not ok then return false end
  elseif cmd == "pause" or cmd == "resume" then
    if not need(h[cmd], ":" .. cmd) then return false end
    h[cmd]()
    self.print(cmd == "pause" and "paused" or "running")
  elseif cmd == "step" then
    if not need(h.step, ":step") then return false end
    h.step(tonumber(rest) or 1)
  elseif cmd == "stop" then
    if not need(h.safe_stop, ":stop") then return false end
    h.safe_stop()
    self.print("safe stop: wheels stopped, launcher disarmed")
  elseif cmd == "log" then
    if not need(h.log_tail, ":log") then return false end
    for _, l in ipairs(h.log_tail(tonumber(rest) or 20)) do self.print(l) end
  else
    self.print(("unknown command ':%s' (try :help)"):format(cmd))
    return false
  end
  return true
end

return Repl
