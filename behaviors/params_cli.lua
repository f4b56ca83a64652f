--- The parameter options every mission with a params group shares, declared
-- once for cli.lua: --set, --params (--json, --yaml), --params-file, --strict.
--
--   local spec = cli.spec { ..., options = cli.options(OPTIONS, params_cli.OPTIONS, Session.OPTIONS) }
--   local opt = spec:parse(arg) ...
--   local code = params_cli.apply(spec, opt, P)   -- nil: carry on; else the exit code
--   if code then return code end
local cli = require "cli"
local params = require "params"

local M = {}

M.OPTIONS = {
  { name = "set", type = "string", repeatable = true, metavar = "NAME=VALUE",
    doc = "set a parameter (wins over --params-file; --params lists them)" },
  { name = "params", type = "boolean", doc = "list the parameters with defaults, ranges and docs, and exit" },
  { name = "json", type = "boolean", doc = "with --params: as JSON" },
  { name = "yaml", type = "boolean", doc = "with --params: as a ROS 2 parameter file (loadable with --params-file)" },
  { name = "params-file", type = "string", metavar = "F",
    doc = "load parameters from F at start: `name = value` lines or a ROS 2 YAML parameter file (GROUP: ros__parameters: name: value); bad lines are reported and keep their defaults" },
  { name = "strict", type = "boolean", doc = "with --params-file: refuse a file with any bad line (exit 2)" },
}

local function is_yaml(path)
  return path:match("%.ya?ml$") ~= nil
end

--- Loads a parameter file into P: problems are warnings (the default is
-- kept) or, with strict, a refusal. Returns nil to carry on, or an exit code.
function M.load_file(P, path, strict, prog)
  local f = io.open(path)
  if not f then
    if strict then
      io.stderr:write(prog, ": ", path, ": no such file (--strict)\n")
      return 2
    end
    io.stderr:write(prog, ": ", path, " does not exist yet: defaults (:save writes it)\n")
    return nil
  end
  f:close()
  local ok, problems
  if strict then
    -- check the whole file on a copy first: a refused file changes nothing
    if is_yaml(path) then ok, problems = P:load_yaml(path, { dry = true })
    else ok, problems = P:load(path, { dry = true }) end
    if not ok then
      for _, msg in ipairs(problems) do io.stderr:write(prog, ": ", msg, "\n") end
      io.stderr:write(prog, ": ", path, ": refused (--strict): ", #problems, " bad line(s)\n")
      return 2
    end
  end
  if is_yaml(path) then ok, problems = P:load_yaml(path) else ok, problems = P:load(path) end
  for _, msg in ipairs(problems) do io.stderr:write(prog, ": ", msg, " (kept the default)\n") end
  if ok then io.stderr:write(prog, ": parameters from ", path, "\n") end
  return nil
end

--- Applies the parsed parameter options to P, in order: --params (print,
-- exit 0), --params-file, --set. Returns nil to carry on or an exit code.
function M.apply(spec, opt, P)
  if (opt.json or opt.yaml) and not opt.params then return cli.usage_error(spec, "--json and --yaml go with --params") end
  if opt.json and opt.yaml then return cli.usage_error(spec, "--params --json or --params --yaml, not both") end
  if opt.strict and not opt["params-file"] then return cli.usage_error(spec, "--strict goes with --params-file") end
  local argv = {}
  for _, assign in ipairs(opt.set or {}) do argv[#argv + 1] = "--set=" .. assign end
  -- a bad --set is a usage error before anything else happens
  local ok_set, problems = params.apply_args(argv, P)
  if not ok_set then return cli.usage_error(spec, table.concat(problems, "; ")) end
  if opt["params-file"] then
    local code = M.load_file(P, opt["params-file"], opt.strict, spec.prog)
    if code then return code end
    params.apply_args(argv, P) -- --set wins over the file
  end
  if opt.params then
    if opt.json then io.write(P:describe_json(), "\n")
    elseif opt.yaml then io.write(P:describe_yaml(), "\n")
    else io.write(P:describe(), "\n") end
    return 0
  end
  return nil
end

--- The command line of a mission with a parameter group, one way for every
-- mission: its own options + the parameter options + the session's, parsed;
-- --help printed; the session's fields set; `defaults(opt, P)`, if given,
-- called (defaults that depend on the options, e.g. on --robot); then
-- --params/--params-file/--set applied to P, so the command line wins.
-- Returns opt, spec to go on, or nil, exit code to return.
--   params_cli.parse_mission{prog =, usage_line =, options =, epilog =, params = P, argv = arg[, defaults =]}
function M.parse_mission(o)
  local Session = require "session"
  local spec = cli.spec { prog = o.prog, usage_line = o.usage_line, epilog = o.epilog,
                          options = cli.options(o.options, M.OPTIONS, Session.OPTIONS) }
  local opt, usage_err = spec:parse(o.argv)
  if not opt then return nil, cli.usage_error(spec, usage_err) end
  if opt.help then io.write(spec:usage()) return nil, 0 end
  Session.from_cli(opt)
  if o.defaults then o.defaults(opt, o.params) end
  local code = M.apply(spec, opt, o.params) -- --params (exit 0), --params-file, --set
  if code then return nil, code end
  return opt, spec
end

--- Applies --params-file and --set again, quietly (apply has reported
-- their problems): for a mission that sets other values in between (the
-- terrain world's params), so that the command line still wins.
function M.reapply(opt, P)
  local path = opt["params-file"]
  if path and io.open(path) then
    if is_yaml(path) then P:load_yaml(path) else P:load(path) end
  end
  local argv = {}
  for _, assign in ipairs(opt.set or {}) do argv[#argv + 1] = "--set=" .. assign end
  params.apply_args(argv, P)
end

return M
