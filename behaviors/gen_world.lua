--- Writes a seeded maze world for the simulator (see behaviors/worldgen.lua):
--
--   tycho run behaviors/gen_world.lua --seed N --out DIR [--cols C --rows R --cell M --wall M
--       --loops K --rooms K --sources K --temp LO,HI --ramp any|doorway|corridor|none ...]
--
-- DIR gets world.lua (the world file: start, heat sources, ramp), map.yaml
-- and map.pgm (the map_server map it names). Knobs not given are drawn from
-- the seed. Exit 0 written, 2 bad arguments or an impossible combination.
local cli = require "cli"
local worldgen = require "worldgen"

local options = {
  { name = "seed", type = "integer", required = true, min = 0, max = 2 ^ 31 - 2, doc = "random seed" },
  { name = "out", type = "string", required = true, metavar = "DIR", doc = "output folder (created)" },
  { name = "name", type = "string", doc = "world name (default gen_<seed>)" },
}
for _, k in ipairs(worldgen.KNOBS) do
  options[#options + 1] = { name = k.name:gsub("_", "-"), key = k.name, type = k.type, min = k.min, max = k.max,
                            choices = k.choices, doc = k.doc }
end
local spec = cli.spec { prog = "gen_world", options = options,
  usage_line = "--seed N --out DIR [knobs]",
  summary = "Writes a seeded maze world (world.lua + map.yaml + map.pgm) for the simulator." }

return cli.run(spec, arg, function(opt)
  local knobs = {}
  for _, o in ipairs(options) do
    if o.key and opt._given[o.name] then knobs[o.key] = opt[o.name] end
  end
  local ok, w = pcall(worldgen.generate, opt.seed, knobs)
  if not ok then
    io.stderr:write("gen_world: ", tostring(w), "\n")
    return 2
  end
  local out = opt.out
  if out == "/" then return cli.usage_error(spec, "--out must not be /") end
  os.execute(("mkdir -p '%s'"):format(out:gsub("'", "'\\''")))
  local path, err = worldgen.write(w, out, opt.name or ("gen_" .. opt.seed))
  if not path then
    io.stderr:write("gen_world: ", err, "\n")
    return 1
  end
  local k = w.knobs
  print(("gen_world: %s: %.1f x %.1f m, %dx%d cells of %.2f m, walls %.2f m, %d loops, %d rooms, %d sources (%s), ramp %s"):format(
    path, w.width, w.height, k.cols, k.rows, k.cell, k.wall, k.loops, k.rooms, #w.heat_sources,
    (function()
      local kinds = {}
      for _, s in ipairs(w.heat_sources) do kinds[#kinds + 1] = s.kind end
      return table.concat(kinds, ",")
    end)(), w.ramp and w.ramp.kind or "none"))
  return 0
end)
