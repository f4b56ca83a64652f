--- Direct read access to grid cells.
-- Under LuaJIT the view maps the grid's C cost array through the FFI: reading
-- `view.cells[cy * view.width + cx]` compiles to a plain load. Under Lua 5.4
-- the same interface falls back to grid:get, so scripts run on both.
-- A view is invalidated when its grid grows (grid:grow_to, scan insertion):
-- take a new one after that. Keep a reference to the grid while using a view.
local M = {}

local ok, ffi = pcall(require, "ffi")
M.available = ok and type(jit) == "table"

local View = {}
View.__index = View

if M.available then
  function M.view(grid)
    return setmetatable({
      grid = grid, -- keeps the grid (and so its memory) alive
      width = grid.width,
      height = grid.height,
      cells = ffi.cast("const uint8_t *", grid:cells_ptr()),
    }, View)
  end

  function View:get(cx, cy)
    if cx < 0 or cy < 0 or cx >= self.width or cy >= self.height then return 255 end
    return self.cells[cy * self.width + cx]
  end
else
  function M.view(grid)
    return setmetatable({ grid = grid, width = grid.width, height = grid.height }, View)
  end

  function View:get(cx, cy)
    return self.grid:get(cx, cy)
  end
end

return M
