-- Turns an ASCII maze into a map_server map (PGM + YAML).
--   lua5.4 maps/ascii2pgm.lua maps/maze_small.txt maps/maze_small [cell_m] [px_per_cell]
-- '#' is wall, anything else free; each character is a square cell of cell_m
-- metres (default 0.1), drawn as px_per_cell x px_per_cell pixels (default 2,
-- so a 0.05 m map). The first text line is the top (largest y) of the map.
local src, stem, cell, scale = arg[1], arg[2], tonumber(arg[3] or "0.1"), tonumber(arg[4] or "2")
assert(src and stem, "usage: ascii2pgm.lua MAZE.txt OUT_STEM [cell_m] [px_per_cell]")
local rows = {}
for line in io.lines(src) do
  if line:match("%S") then rows[#rows + 1] = line end
end
local w = 0
for _, r in ipairs(rows) do w = math.max(w, #r) end
local W, H = w * scale, #rows * scale
local out = assert(io.open(stem .. ".pgm", "wb"))
out:write(string.format("P5\n# generated from %s by maps/ascii2pgm.lua\n%d %d\n255\n", src, W, H))
for _, r in ipairs(rows) do
  local px = {}
  for i = 1, w do
    local v = (r:sub(i, i) == "#") and 0 or 254
    for _ = 1, scale do px[#px + 1] = string.char(v) end
  end
  local line = table.concat(px)
  for _ = 1, scale do out:write(line) end
end
out:close()
local name = stem:match("[^/]+$")
local y = assert(io.open(stem .. ".yaml", "w"))
y:write(string.format("image: %s.pgm\nmode: trinary\nresolution: %.3f\norigin: [0.0, 0.0, 0.0]\n" ..
  "negate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.25\n", name, cell / scale))
y:close()
print(string.format("%s.pgm: %dx%d px at %.3f m", stem, W, H, cell / scale))
