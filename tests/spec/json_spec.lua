-- The JSON encoder of every output file: valid UTF-8, {} vs [], shortest
-- round-trip numbers, and decode(encode(x)) == x.
local json = require "json"

local function is_valid_utf8(s)
  local i, n = 1, #s
  while i <= n do
    local b = s:byte(i)
    local len = b < 0x80 and 1 or (b >= 0xC2 and b <= 0xDF) and 2 or (b >= 0xE0 and b <= 0xEF) and 3
      or (b >= 0xF0 and b <= 0xF4) and 4 or nil
    if not len then return false end
    for k = 1, len - 1 do
      local c = s:byte(i + k)
      if not c or c < 0x80 or c > 0xBF then return false end
    end
    i = i + len
  end
  return true
end

describe("json.encode", function()
  it("writes numbers in their shortest round-trip form", function()
    assert.are.equal("0.1", json.encode(0.1))
    assert.are.equal("[0.1,0.2,0.30000000000000004]", json.encode { 0.1, 0.2, 0.1 + 0.2 })
    assert.are.equal("1e-07", json.encode(1e-7))
    assert.are.equal("3", json.encode(3.0))
    assert.are.equal("-2", json.encode(-2))
    assert.are.equal("-0", json.encode(-0.0))
    assert.are.equal("1.5e+300", json.encode(1.5e300))
    assert.are.equal("null", json.encode(0 / 0))
    assert.are.equal("null", json.encode(math.huge))
    -- every double reads back to itself, whatever its form
    local seed = 12345
    for _ = 1, 2000 do
      seed = (seed * 1103515245 + 12345) % 2147483648
      local v = (seed / 2147483648 - 0.5) * 10 ^ ((seed % 40) - 20)
      local text = json.encode(v)
      assert.are.equal(v, tonumber(text))
      assert.is_true(#text <= 24, text)
    end
  end)

  it("writes empty objects as {} when marked, arrays as []", function()
    assert.are.equal("{}", json.encode(json.object {}))
    assert.are.equal("[]", json.encode(json.array {}))
    assert.are.equal("[]", json.encode {})
    assert.are.equal('{"a":{},"b":[]}', json.encode { a = json.object(), b = {} })
    -- an object whose keys happen to be 1..n stays an object
    assert.are.equal('{"1":"x"}', json.encode(json.object { "x" }))
    -- the marks only decide for empty tables: content wins otherwise
    assert.are.equal('{"a":1}', json.encode(json.array { a = 1 }))
  end)

  it("keeps valid UTF-8 and escapes everything else", function()
    assert.are.equal('"35 \u{b0}C \u{2192} \u{1F525}"', json.encode("35 \u{b0}C \u{2192} \u{1F525}"))
    assert.are.equal('"a\\nb\\t\\"\\\\\\u0001\\u007f"', json.encode('a\nb\t"\\\1\127'))
    -- stray bytes, overlong forms, surrogates, truncated sequences
    for _, bad in ipairs { "\xff", "abc\x80", "\xc0\xaf", "\xed\xa0\x80", "\xe2\x82", "\xf4\x90\x80\x80", "x\xc3" } do
      local out = json.encode(bad)
      assert.is_true(is_valid_utf8(out), out)
      assert.matches("\\u00", out, 1, true)
      -- and it decodes to the bytes read as Latin-1 code points, not to garbage
      local back = json.decode(out)
      assert.is_true(is_valid_utf8(back))
    end
    assert.are.equal('"\\u00ff"', json.encode("\xff"))
    assert.are.equal('"x\\u00c3"', json.encode("x\xc3"))
  end)

  it("round-trips through json.decode, {} and [] included", function()
    local v = { name = "maze \u{e9}", list = { 1, 2.5, -0.001, true, false }, nested = { empty = json.object(), none = {} },
                big = 2 ^ 53 + 2, tiny = 5e-324 }
    local text = json.encode(v)
    local back = json.decode(text)
    assert.are.equal(text, json.encode(back))
    assert.are.equal(json.encode(json.decode('{"a":{},"b":[],"c":[{}]}')), '{"a":{},"b":[],"c":[{}]}')
    assert.are.equal("\u{1F525}", json.decode('"\\ud83d\\udd25"'))
    assert.are.equal("\u{e9}", json.decode('"\\u00e9"'))
    assert.error_matches(function() json.decode('"\\ud83d"') end, "unpaired surrogate")
    assert.are.equal(json.null, json.decode("[null]", { null = json.null })[1])
    assert.are.equal("[null]", json.encode { json.null })
  end)

  it("sorts object keys and refuses cycles and odd keys", function()
    assert.are.equal('{"a":1,"b":2,"c":3}', json.encode { c = 3, a = 1, b = 2 })
    local t = {}
    t.self = t
    assert.error_matches(function() json.encode(t) end, "cycle")
    assert.error_matches(function() json.encode { [true] = 1 } end, "object key of type boolean")
  end)
end)
