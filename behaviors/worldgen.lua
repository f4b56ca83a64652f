--- Seeded maze worlds for the heat-seeking mission: a map_server map (PGM +
-- YAML) and a simulator world file (heat sources, ramp, start), so the
-- mission can be judged on mazes nobody tuned it on.
--
-- The maze is a grid of cols x rows cells. Each cell's free interior is
-- `cell` metres square; walls are `wall` metres thick, on a pitch of
-- cell + wall. A perfect maze (randomised depth-first search: one way
-- between any two cells, long corridors, many dead ends) is carved first;
-- `loops` extra walls are then removed (cycles), and `rooms` rectangles of
-- 2x2 to 3x2 cells are opened up (walls and the posts inside removed).
--
-- Heat sources sit against wall faces (their centre `radius` + 1 cm off the
-- face), each of one kind: `any` (a random face), `dead_end` (the end wall
-- of a cell with one opening), `corner` (beside a perpendicular wall),
-- `pair` (two sources, one on each face of the same wall segment, level
-- with each other). Sources keep `min_separation` from each other (a
-- pair's two members excepted), and stay out of the ramp's cells.
--
-- The ramp is `doorway` (across the opening between two cells that is the
-- only way between the two parts of the maze; at least one source is put
-- beyond it, on the side the robot does not start on), `corridor` (along
-- a straight corridor cell), `any` (either, doorway first) or `none`.
--
-- Every random draw comes from one Park-Miller generator computed in
-- doubles, so a seed gives the same world under Lua 5.4 and LuaJIT.
local M = {}

local RES = 0.05 -- map resolution, m

-- Park-Miller minimal standard generator: exact in doubles (16807 * 2^31 <
-- 2^53), identical on every Lua.
local function new_rng(seed)
  local s = math.floor(seed) % 2147483646 + 1
  local r = {}
  local function next_u()
    s = (s * 16807) % 2147483647
    return s
  end
  -- adjacent seeds give proportional states (s * a^k): fold the high half
  -- into the low half a few times (not linear) so seeds 1, 2, 3 differ
  for _ = 1, 4 do
    next_u()
    s = ((s % 65536) * 32719 + math.floor(s / 65536) * 7 + 11) % 2147483646 + 1
  end
  for _ = 1, 8 do next_u() end
  function r.uniform(a, b) return a + (b - a) * (next_u() - 1) / 2147483646 end
  function r.int(a, b) return a + next_u() % (b - a + 1) end
  function r.pick(t) return t[r.int(1, #t)] end
  function r.shuffle(t)
    for i = #t, 2, -1 do
      local j = r.int(1, i)
      t[i], t[j] = t[j], t[i]
    end
    return t
  end
  return r
end
M.new_rng = new_rng

local function snap(v) return math.floor(v / RES + 0.5) * RES end

--- The knobs, their ranges and the default family each is drawn from
-- when not given (documented in README "World generator").
M.KNOBS = {
  { name = "cols", type = "integer", min = 2, max = 40, doc = "maze cells across (default: about 4.5-7 m wide)" },
  { name = "rows", type = "integer", min = 2, max = 40, doc = "maze cells up (default: about 3.5-6 m high)" },
  { name = "cell", type = "number", min = 0.4, max = 3, doc = "corridor width, free space between walls, m (default 0.5-1.5)" },
  { name = "wall", type = "number", min = 0.05, max = 0.5, doc = "wall thickness, m (default 0.05-0.3)" },
  { name = "loops", type = "integer", min = 0, max = 400, doc = "extra walls removed to make cycles (default 0-3)" },
  { name = "rooms", type = "integer", min = 0, max = 20, doc = "open rooms of 2x2 or 3x2 cells (default 0-1)" },
  { name = "sources", type = "integer", min = 1, max = 16, doc = "heat sources (default 3-6)" },
  { name = "temp", type = "range", min = 23, max = 100, doc = "source temperatures LO,HI in C (default 34,60)" },
  { name = "ramp", type = "choice", choices = { "any", "doorway", "corridor", "none" },
    doc = "where the ramp goes (default any)" },
  { name = "ramp_pitch", type = "number", min = 0.05, max = 0.4, doc = "ramp slope, rad (default 0.2)" },
  { name = "kinds", type = "list", doc = "source kinds to draw from: any,dead_end,corner,pair (default all)" },
  { name = "min_separation", type = "number", min = 0.3, max = 5, doc = "least distance between sources, m (default 1.0)" },
  { name = "odom_noise", type = "number", min = 0, max = 1, doc = "odom.noise_v and noise_w of the world (default 0)" },
  { name = "thermal_noise", type = "number", min = 0, max = 5, doc = "camera noise, C (default: the simulator's 0.1)" },
  { name = "errors", type = "choice", choices = { "none", "turtlebot3" },
    doc = "systematic odometry/IMU errors of the robot: robot.errors of the world (default none)" },
}

local KIND_SET = { any = true, dead_end = true, corner = true, pair = true }

-- Draws the knobs not given.
local function resolve(o, rng)
  local k = {}
  for key, v in pairs(o) do k[key] = v end
  k.cell = snap(k.cell or rng.uniform(0.5, 1.5))
  k.wall = math.max(RES, snap(k.wall or rng.uniform(0.05, 0.3)))
  local pitch = k.cell + k.wall
  k.cols = k.cols or math.max(3, math.min(12, math.floor(rng.uniform(4.5, 7) / pitch + 0.5)))
  k.rows = k.rows or math.max(3, math.min(12, math.floor(rng.uniform(3.5, 6) / pitch + 0.5)))
  k.loops = k.loops or rng.int(0, 3)
  k.rooms = k.rooms or rng.int(0, 1)
  k.sources = k.sources or rng.int(3, 6)
  k.temp = k.temp or { 34, 60 }
  k.ramp = k.ramp or "any"
  k.ramp_pitch = k.ramp_pitch or 0.2
  k.kinds = k.kinds or { "any", "dead_end", "corner", "pair" }
  k.min_separation = k.min_separation or 1.0
  for _, name in ipairs(k.kinds) do
    if not KIND_SET[name] then
      error(("kinds: unknown source kind '%s' (any, dead_end, corner, pair)"):format(name), 0)
    end
  end
  if k.cell < 0.4 then error(("cell %.2f m: corridors narrower than 0.4 m do not fit the robot"):format(k.cell), 0) end
  return k
end

-- The maze graph -------------------------------------------------------------
-- Cells are numbered id = i + j * cols (i across, j up, from 0). open[id][d]
-- is true when the side d (1 E, 2 N, 3 W, 4 S) has no wall.
local DX, DY, OPP = { 1, 0, -1, 0 }, { 0, 1, 0, -1 }, { 3, 4, 1, 2 }

local function neighbour(k, i, j, d)
  local ni, nj = i + DX[d], j + DY[d]
  if ni < 0 or nj < 0 or ni >= k.cols or nj >= k.rows then return nil end
  return ni, nj
end

local function carve(k, rng)
  local n = k.cols * k.rows
  local open = {}
  for id = 0, n - 1 do open[id] = { false, false, false, false } end
  local function link(i, j, d)
    local ni, nj = neighbour(k, i, j, d)
    open[i + j * k.cols][d] = true
    open[ni + nj * k.cols][OPP[d]] = true
  end
  -- randomised depth-first search from a random cell (iterative)
  local seen = {}
  local si, sj = rng.int(0, k.cols - 1), rng.int(0, k.rows - 1)
  local stack = { { si, sj } }
  seen[si + sj * k.cols] = true
  while #stack > 0 do
    local top = stack[#stack]
    local i, j = top[1], top[2]
    local dirs = {}
    for d = 1, 4 do
      local ni, nj = neighbour(k, i, j, d)
      if ni and not seen[ni + nj * k.cols] then dirs[#dirs + 1] = d end
    end
    if #dirs == 0 then
      stack[#stack] = nil
    else
      local d = rng.pick(dirs)
      local ni, nj = neighbour(k, i, j, d)
      link(i, j, d)
      seen[ni + nj * k.cols] = true
      stack[#stack + 1] = { ni, nj }
    end
  end
  -- loops: knock out walls between cells
  local walls = {}
  for j = 0, k.rows - 1 do
    for i = 0, k.cols - 1 do
      for d = 1, 2 do
        if neighbour(k, i, j, d) and not open[i + j * k.cols][d] then walls[#walls + 1] = { i, j, d } end
      end
    end
  end
  rng.shuffle(walls)
  for w = 1, math.min(k.loops, #walls) do link(walls[w][1], walls[w][2], walls[w][3]) end
  -- rooms: open every wall inside a rectangle of cells
  local rooms = {}
  for _ = 1, k.rooms do
    local w, h = rng.int(2, 3), 2
    if rng.int(0, 1) == 1 then w, h = h, w end
    w, h = math.min(w, k.cols), math.min(h, k.rows)
    local i0, j0 = rng.int(0, k.cols - w), rng.int(0, k.rows - h)
    for j = j0, j0 + h - 1 do
      for i = i0, i0 + w - 1 do
        if i < i0 + w - 1 then link(i, j, 1) end
        if j < j0 + h - 1 then link(i, j, 2) end
      end
    end
    rooms[#rooms + 1] = { i0 = i0, j0 = j0, w = w, h = h }
  end
  return open, rooms
end

-- Cells reachable from `from` without crossing the passage (a, d).
local function reach(k, open, from, cut_id, cut_d)
  local seen, queue, n = { [from] = true }, { from }, 1
  local h = 1
  while h <= #queue do
    local id = queue[h]
    h = h + 1
    local i, j = id % k.cols, math.floor(id / k.cols)
    for d = 1, 4 do
      if open[id][d] then
        local ni, nj = neighbour(k, i, j, d)
        local nid = ni + nj * k.cols
        local cut = (id == cut_id and d == cut_d) or (nid == cut_id and OPP[d] == cut_d)
        if not cut and not seen[nid] then
          seen[nid] = true
          n = n + 1
          queue[#queue + 1] = nid
        end
      end
    end
  end
  return seen, n
end

-- Geometry -------------------------------------------------------------------
-- Cell (i, j)'s free interior box.
local function cell_box(k, i, j)
  local p = k.cell + k.wall
  local x0, y0 = k.wall + i * p, k.wall + j * p
  return x0, y0, x0 + k.cell, y0 + k.cell
end

local function degree(open, id)
  local n = 0
  for d = 1, 4 do if open[id][d] then n = n + 1 end end
  return n
end

-- Wall rectangles (x0, y0, x1, y1) of the maze: outer walls, the segments
-- between closed neighbours, and every post touched by a wall.
local function wall_rects(k, open)
  local p, w = k.cell + k.wall, k.wall
  local W, H = k.cols * p + w, k.rows * p + w
  local rects = { { 0, 0, W, w }, { 0, H - w, W, H }, { 0, 0, w, H }, { W - w, 0, W, H } }
  for j = 0, k.rows - 1 do
    for i = 0, k.cols - 1 do
      local id = i + j * k.cols
      local x0, y0, x1, y1 = cell_box(k, i, j)
      if i < k.cols - 1 and not open[id][1] then rects[#rects + 1] = { x1, y0, x1 + w, y1 } end
      if j < k.rows - 1 and not open[id][2] then rects[#rects + 1] = { x0, y1, x1, y1 + w } end
    end
  end
  -- posts at interior lattice points: solid unless all four walls meeting
  -- there are open (inside a room)
  for pj = 1, k.rows - 1 do
    for pi = 1, k.cols - 1 do
      local sw = (pi - 1) + (pj - 1) * k.cols -- cell south-west of the post
      local ne = pi + pj * k.cols
      local any_wall = not open[sw][1] or not open[sw][2] or not open[ne][3] or not open[ne][4]
      if any_wall then
        local x, y = pi * p, pj * p
        rects[#rects + 1] = { x, y, x + w, y + w }
      end
    end
  end
  return rects, W, H
end

-- A point on the face of cell (i, j)'s side d, `t` of the way along it
-- (counter-clockwise), `off` metres into the cell; returns x, y and the
-- face's inward normal.
local function face_point(k, i, j, d, t, off)
  local x0, y0, x1, y1 = cell_box(k, i, j)
  if d == 1 then return x1 - off, y0 + t * (y1 - y0), -1, 0 end
  if d == 3 then return x0 + off, y1 - t * (y1 - y0), 1, 0 end
  if d == 2 then return x1 - t * (x1 - x0), y1 - off, 0, -1 end
  return x0 + t * (x1 - x0), y0 + off, 0, 1
end

-- Sources ----------------------------------------------------------------------
local SOURCE_RADIUS = 0.1

local function place_sources(k, rng, open, ramp_cells, far_side)
  local sources = {}
  local margin = SOURCE_RADIUS + 0.01
  local function ok_at(x, y, ignore)
    for _, s in ipairs(sources) do
      if s ~= ignore and (s.x - x) ^ 2 + (s.y - y) ^ 2 < k.min_separation ^ 2 then return false end
    end
    return true
  end
  local function faces_of(filter)
    local out = {}
    for j = 0, k.rows - 1 do
      for i = 0, k.cols - 1 do
        local id = i + j * k.cols
        if not ramp_cells[id] and (not filter or filter(id)) then
          for d = 1, 4 do if not open[id][d] then out[#out + 1] = { i = i, j = j, d = d, id = id } end end
        end
      end
    end
    return out
  end
  local function add(f, t, kind, ignore)
    local x, y = face_point(k, f.i, f.j, f.d, t, margin)
    if not ok_at(x, y, ignore) then return nil end
    local lo, hi = k.temp[1], k.temp[2]
    local s = { x = x, y = y, temp = math.floor(rng.uniform(lo, hi) * 2 + 0.5) / 2, kind = kind,
                cell = { f.i, f.j }, face = ({ "E", "N", "W", "S" })[f.d] }
    sources[#sources + 1] = s
    return s
  end
  -- t keeping a source clear of the cell's corners
  local tmin = math.min(0.45, (SOURCE_RADIUS + 0.05) / k.cell)
  local function try_kind(kind, filter)
    if kind == "dead_end" then
      local faces = rng.shuffle(faces_of(function(id) return degree(open, id) == 1 and (not filter or filter(id)) end))
      for _, f in ipairs(faces) do
        if open[f.id][OPP[f.d]] then return add(f, 0.5, kind) end
      end
    elseif kind == "corner" then
      for _, f in ipairs(rng.shuffle(faces_of(filter))) do
        -- the perpendicular sides at the face's two ends (counter-clockwise)
        local ends = { { t = tmin, d = (f.d + 2) % 4 + 1 }, { t = 1 - tmin, d = f.d % 4 + 1 } }
        local e = ends[rng.int(1, 2)]
        if not open[f.id][e.d] then
          local s = add(f, e.t, kind)
          if s then return s end
        end
      end
    elseif kind == "pair" then
      for _, f in ipairs(rng.shuffle(faces_of(filter))) do
        local ni, nj = neighbour(k, f.i, f.j, f.d)
        if ni and not ramp_cells[ni + nj * k.cols] then
          local t = rng.uniform(0.3, 0.7)
          local a = add(f, t, kind)
          if a then
            -- the other face of the same segment runs the other way
            local b = add({ i = ni, j = nj, d = OPP[f.d] }, 1 - t, kind, a)
            if b then
              a.pair, b.pair = #sources, #sources - 1
              return a
            end
            sources[#sources] = nil
          end
        end
      end
    else
      for _, f in ipairs(rng.shuffle(faces_of(filter))) do
        local s = add(f, rng.uniform(tmin, 1 - tmin), kind)
        if s then return s end
      end
    end
  end
  -- one source beyond a doorway ramp first, then the rest by kind
  if far_side then
    local s = try_kind(rng.pick({ "any", "dead_end", "corner" }), function(id) return far_side[id] end)
      or try_kind("any", function(id) return far_side[id] end)
    if not s then error("no room for a source beyond the ramp", 0) end
  end
  local guard = 0
  while #sources < k.sources and guard < 200 do
    guard = guard + 1
    local kind = rng.pick(k.kinds)
    if kind == "pair" and k.sources - #sources < 2 then kind = "any" end
    if not try_kind(kind) and guard > 100 then try_kind("any") end
  end
  if #sources < k.sources then
    error(("only %d of %d sources fit %.1f m apart; use fewer --sources or a larger maze"):format(
      #sources, k.sources, k.min_separation), 0)
  end
  return sources
end

-- Ramp -----------------------------------------------------------------------
local RAMP_LENGTH = 0.8

local function place_ramp(k, rng, open)
  local want = k.ramp
  if want == "none" then return nil end
  local n = k.cols * k.rows
  local function doorway()
    local cands = {}
    for id = 0, n - 1 do
      for d = 1, 2 do
        if open[id][d] then
          local _, size = reach(k, open, id, id, d)
          if size < n and size >= 2 and n - size >= 2 then cands[#cands + 1] = { id = id, d = d } end
        end
      end
    end
    if #cands == 0 then return nil end
    local c = rng.pick(cands)
    local i, j = c.id % k.cols, math.floor(c.id / k.cols)
    local ni, nj = neighbour(k, i, j, c.d)
    local x0, y0, x1, y1 = cell_box(k, i, j)
    local r
    local up = rng.int(0, 1) == 1
    if c.d == 1 then
      local xc = x1 + k.wall / 2
      r = { x0 = xc - RAMP_LENGTH / 2, y0 = y0, x1 = xc + RAMP_LENGTH / 2, y1 = y1, dir = up and 0 or math.pi }
    else
      local yc = y1 + k.wall / 2
      r = { x0 = x0, y0 = yc - RAMP_LENGTH / 2, x1 = x1, y1 = yc + RAMP_LENGTH / 2,
            dir = up and math.pi / 2 or -math.pi / 2 }
    end
    r.kind = "doorway"
    r.cells = { c.id, ni + nj * k.cols }
    r.cut = { id = c.id, d = c.d }
    return r
  end
  local function corridor()
    local cands = {}
    for id = 0, n - 1 do
      local o = open[id]
      if degree(open, id) == 2 and ((o[1] and o[3]) or (o[2] and o[4])) then cands[#cands + 1] = id end
    end
    if #cands == 0 then return nil end
    local id = rng.pick(cands)
    local i, j = id % k.cols, math.floor(id / k.cols)
    local x0, y0, x1, y1 = cell_box(k, i, j)
    local xc, yc = (x0 + x1) / 2, (y0 + y1) / 2
    local L = math.min(RAMP_LENGTH, k.cell + k.wall) / 2
    local up = rng.int(0, 1) == 1
    local r
    if open[id][1] then
      r = { x0 = xc - L, y0 = y0, x1 = xc + L, y1 = y1, dir = up and 0 or math.pi }
    else
      r = { x0 = x0, y0 = yc - L, x1 = x1, y1 = yc + L, dir = up and math.pi / 2 or -math.pi / 2 }
    end
    r.kind, r.cells = "corridor", { id }
    return r
  end
  local r
  if want == "doorway" then r = doorway()
  elseif want == "corridor" then r = corridor()
  else
    if rng.int(1, 10) <= 7 then r = doorway() or corridor() else r = corridor() or doorway() end
  end
  if not r then error(("no place for the ramp (--ramp %s) in this maze"):format(want), 0) end
  r.pitch = k.ramp_pitch
  return r
end

--- worldgen.generate(seed, knobs) -> world. `world` has the resolved knobs
-- (`knobs`), `width`, `height`, `rects` (wall rectangles), `start`,
-- `heat_sources` (with `kind`), `ramp` (or nil). Raises "message" strings
-- (no position) for impossible combinations.
function M.generate(seed, knobs)
  local rng = new_rng(seed)
  -- a drawn maze can lack a place for the ramp or room for the sources:
  -- draw again from the same stream (still deterministic), a few times
  local last
  for _ = 1, 20 do
    local ok, w = pcall(M._attempt, rng, knobs or {})
    if ok then
      w.seed = seed
      return w
    end
    last = w
  end
  error(last, 0)
end

function M._attempt(rng, knobs)
  local k = resolve(knobs, rng)
  local open, rooms = carve(k, rng)
  local ramp = place_ramp(k, rng, open)
  local ramp_cells = {}
  for _, id in ipairs(ramp and ramp.cells or {}) do ramp_cells[id] = true end
  -- start: any free cell but the ramp's; a doorway ramp's far side is the
  -- part the start is not in
  local n = k.cols * k.rows
  local starts = {}
  for id = 0, n - 1 do if not ramp_cells[id] then starts[#starts + 1] = id end end
  local start_id = rng.pick(starts)
  local far
  if ramp and ramp.cut then
    local side = reach(k, open, ramp.cut.id, ramp.cut.id, ramp.cut.d)
    if side[start_id] then
      far = {}
      for id = 0, n - 1 do if not side[id] then far[id] = true end end
    else
      far = side
    end
  end
  local sources = place_sources(k, rng, open, ramp_cells, far)
  local si, sj = start_id % k.cols, math.floor(start_id / k.cols)
  local x0, y0, x1, y1 = cell_box(k, si, sj)
  local m = 0.105 + 0.06
  local start
  for _ = 1, 50 do
    local x, y = snap(rng.uniform(x0 + m, x1 - m) * 2) / 2, snap(rng.uniform(y0 + m, y1 - m) * 2) / 2
    local clear = true
    for _, s in ipairs(sources) do
      if (s.x - x) ^ 2 + (s.y - y) ^ 2 < 0.5 ^ 2 then clear = false end
    end
    start = { x = x, y = y, yaw = math.floor(rng.uniform(-math.pi, math.pi) * 1000 + 0.5) / 1000 }
    if clear then break end
  end
  local rects, W, H = wall_rects(k, open)
  return { knobs = k, width = W, height = H, rects = rects, rooms = rooms,
           start = start, heat_sources = sources, ramp = ramp, resolution = RES }
end

-- Files ------------------------------------------------------------------------
local function num(v) return (("%.4f"):format(v):gsub("0+$", ""):gsub("%.$", ".0")) end

--- The map raster as PGM bytes (0 wall, 254 free; top row = largest y).
function M.pgm(w)
  local res = w.resolution
  local nx, ny = math.floor(w.width / res + 0.5), math.floor(w.height / res + 0.5)
  local rows = {}
  for r = 0, ny - 1 do rows[r] = {} end
  for _, rc in ipairs(w.rects) do
    local cx0, cx1 = math.floor(rc[1] / res + 0.5), math.floor(rc[3] / res + 0.5) - 1
    local cy0, cy1 = math.floor(rc[2] / res + 0.5), math.floor(rc[4] / res + 0.5) - 1
    for cy = math.max(0, cy0), math.min(ny - 1, cy1) do
      local row = rows[ny - 1 - cy]
      for cx = math.max(0, cx0), math.min(nx - 1, cx1) do row[cx] = true end
    end
  end
  local out = { ("P5\n# tycho worldgen seed %s\n%d %d\n255\n"):format(tostring(w.seed), nx, ny) }
  local free, wall = string.char(254), string.char(0)
  for r = 0, ny - 1 do
    local row, line = rows[r], {}
    for cx = 0, nx - 1 do line[cx + 1] = row[cx] and wall or free end
    out[#out + 1] = table.concat(line)
  end
  return table.concat(out)
end

function M.yaml(w, image)
  return ("image: %s\nmode: trinary\nresolution: %s\norigin: [0.0, 0.0, 0.0]\nnegate: 0\n" ..
          "occupied_thresh: 0.65\nfree_thresh: 0.25\n"):format(image, num(w.resolution))
end

--- The world file text (Lua, read by tycho.sim.load).
function M.world_lua(w, name, map_file)
  local k = w.knobs
  local L = {
    ("-- Generated by behaviors/gen_world.lua --seed %s: %dx%d cells, corridors %s m, walls %s m,"):format(
      tostring(w.seed), k.cols, k.rows, num(k.cell), num(k.wall)),
    ("-- %d extra openings, %d rooms, %d sources, ramp: %s."):format(k.loops, k.rooms, #w.heat_sources,
      w.ramp and w.ramp.kind or "none"),
    "return {",
    ("  name = %q,"):format(name),
    ("  map = %q,"):format(map_file),
    ("  start = { x = %s, y = %s, yaw = %s },"):format(num(w.start.x), num(w.start.y), num(w.start.yaw)),
    "  heat_sources = {",
  }
  for _, s in ipairs(w.heat_sources) do
    L[#L + 1] = ("    { x = %s, y = %s, temp = %s }, -- %s, %s face of cell (%d, %d)"):format(
      num(s.x), num(s.y), num(s.temp), s.kind, s.face, s.cell[1], s.cell[2])
  end
  L[#L + 1] = "  },"
  if w.ramp then
    local r = w.ramp
    L[#L + 1] = ("  ramps = { { x0 = %s, y0 = %s, x1 = %s, y1 = %s, pitch = %s, dir = %s } }, -- %s"):format(
      num(r.x0), num(r.y0), num(r.x1), num(r.y1), num(r.pitch), num(r.dir), r.kind)
  else
    L[#L + 1] = "  ramps = {},"
  end
  if k.odom_noise and k.odom_noise > 0 then
    L[#L + 1] = ("  odom = { noise_v = %s, noise_w = %s },"):format(num(k.odom_noise), num(k.odom_noise))
  end
  if k.thermal_noise then L[#L + 1] = ("  thermal = { noise = %s },"):format(num(k.thermal_noise)) end
  if k.errors and k.errors ~= "none" then L[#L + 1] = ("  robot = { errors = %q },"):format(k.errors) end
  L[#L + 1] = "  ambient = 22,"
  L[#L + 1] = ("  seed = %d,"):format(math.floor(w.seed) % 2147483647)
  L[#L + 1] = "}"
  return table.concat(L, "\n") .. "\n"
end

--- Writes DIR/world.lua, DIR/map.yaml, DIR/map.pgm (atomically). Returns
-- the world file's path, or nil, message.
function M.write(w, dir, name)
  local tycho = require "tycho"
  local files = {
    { "map.pgm", M.pgm(w) },
    { "map.yaml", M.yaml(w, "map.pgm") },
    { "world.lua", M.world_lua(w, name, "map.yaml") },
  }
  for _, f in ipairs(files) do
    local ok, err = tycho.write_atomic(dir .. "/" .. f[1], f[2])
    if not ok then return nil, err end
  end
  return dir .. "/world.lua"
end

return M
