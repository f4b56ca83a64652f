local tycho = require "tycho"
local tycho_ffi = require "tycho_ffi"

describe("tycho_ffi grid views", function()
  it("reads the same cells as grid:get", function()
    local g = tycho.grid.new { width = 17, height = 9, fill = 0 }
    for i = 0, 16 do g:set(i, (i * 3) % 9, 254) end
    g:set(5, 5, 77)
    local v = tycho_ffi.view(g)
    assert.are.equal(17, v.width)
    for cy = 0, 8 do
      for cx = 0, 16 do
        assert.are.equal(g:get(cx, cy), v:get(cx, cy))
      end
    end
    assert.are.equal(255, v:get(-1, 0))
  end)

  it("maps the C memory directly under LuaJIT", function()
    if not tycho_ffi.available then
      assert.are.equal("Lua 5.4", tycho.lua)
      return
    end
    local g = tycho.grid.new { width = 4, height = 4, fill = 0 }
    local v = tycho_ffi.view(g)
    g:set(2, 3, 200)
    assert.are.equal(200, v.cells[3 * 4 + 2]) -- same memory, no copy
  end)
end)
