-- ---------------------------------------------------------------------------------------
-- The reader: a cursor over the frame's bytes that makes every check of the canonical
-- decoding rule (WIRE-21: a decoder accepts exactly the bytes its encoder can produce) and
-- adds one tree item per field, as `ackwire explain` prints one row per field.
--
-- Lua 5.2 (Wireshark 4.0) has only doubles, so integers wider than 32 bits are read as
-- Wireshark's UInt64 and Int64 objects; narrower ones are plain numbers, exact either way.
-- A decode error is raised as a table { kind, offset, bit, path } with `error` and caught
-- by the frame's dissector, which shows it as expert info of its kind.
-- ---------------------------------------------------------------------------------------

local Reader = {}
Reader.__index = Reader

--- A reader over `tvb`, adding items under `tree` (nil: decode only, for the heuristic).
local function new_reader(tvb, tree)
    return setmetatable({ tvb = tvb, len = tvb:len(), pos = 0, bit = 0, packed = false }, Reader)
end

--- The frame is refused: `kind` from the shared taxonomy, at byte `offset` (or frame bit
--- `bit` inside a packed body), within field `path`.
function Reader:fail(kind, at, path)
    if self.packed then
        error({ kind = kind, offset = math.floor(at / 8), bit = at, path = path }, 0)
    end
    error({ kind = kind, offset = at, path = path }, 0)
end

--- Where the next field starts: a byte, or a bit of the frame inside a packed body.
function Reader:here()
    if self.packed then
        return self.bit
    end
    return self.pos
end

--- `n` bytes from the cursor; "truncated" is reported where the input ends.
function Reader:take(n, path)
    if n > self.len - self.pos then
        self:fail("truncated", self.len, path)
    end
    local at = self.pos
    self.pos = at + n
    return self.tvb(at, n)
end

--- An unsigned integer of `n` bytes: a number up to 4 bytes, a UInt64 above.
function Reader:uint(n, big, path)
    local r = self:take(n, path)
    if n > 4 then
        return big and r:uint64() or r:le_uint64()
    end
    return big and r:uint() or r:le_uint()
end

--- A signed integer of `n` bytes: a number up to 4 bytes, an Int64 above.
function Reader:int(n, big, path)
    local r = self:take(n, path)
    if n > 4 then
        return big and r:int64() or r:le_int64()
    end
    return big and r:int() or r:le_int()
end

--- A bool byte: 0 or 1; "a `bool` byte above 1" is over its width.
function Reader:bool(path)
    local at = self.pos
    local b = self:take(1, path):uint()
    if b > 1 then
        self:fail("over_width", at, path)
    end
    return b == 1
end

--- An IEEE 754 float of `n` bytes; "a non-finite float" is an error.
function Reader:float(n, big, path)
    local at = self.pos
    local r = self:take(n, path)
    local v = big and r:float() or r:le_float()
    if v ~= v or v == math.huge or v == -math.huge then
        self:fail("non_finite", at, path)
    end
    return v
end

--- A float of `bits` bits in a packed body, least significant bit first, refused when not
--- finite as a byte-aligned one is.
function Reader:packed_float(bits, path)
    local at = self.bit
    local raw = self:bits(bits, path)
    local v
    if bits == 32 then
        v = Struct.unpack("<f", Struct.pack("<I4", raw))
    else
        v = Struct.unpack("<d", Struct.pack("<I4", raw:lower()) .. Struct.pack("<I4", raw:higher()))
    end
    if v ~= v or v == math.huge or v == -math.huge then
        self:fail("non_finite", at, path)
    end
    return v
end

--- An unsigned LEB128 varint of at most `bits` bits (a number up to 32 bits, a UInt64
--- above): "at most 10 bytes"; a varint "longer than needed" or "a value over its field's
--- width" is refused, every fault at the varint's first byte.
function Reader:varint(bits, path)
    local at = self.pos
    local v = UInt64(0)
    for i = 0, 9 do
        local byte = self:take(1, path):uint()
        if i == 9 and byte > 1 then
            -- The tenth byte holds bit 63 only.
            self:fail("over_width", at, path)
        end
        v = v:bor(UInt64(byte % 128):lshift(7 * i))
        if byte < 128 then
            if i > 0 and byte == 0 then
                self:fail("non_canonical_varint", at, path)
            end
            if bits < 64 and v:rshift(bits) ~= UInt64(0) then
                self:fail("over_width", at, path)
            end
            if bits <= 32 then
                return v:tonumber()
            end
            return v
        end
    end
    self:fail("over_width", at, path)
end

--- A zigzag varint of at most `bits` bits: a number up to 32 bits, an Int64 above.
function Reader:zigzag(bits, path)
    local n = self:varint(bits, path)
    if type(n) == "number" then
        if n % 2 == 0 then
            return n / 2
        end
        return -(n + 1) / 2
    end
    local half = n:rshift(1)
    if n:lower() % 2 == 1 then
        half = half:bnot()
    end
    return Int64.new(half:lower(), half:higher())
end

--- `width` bits of a packed body, least significant first: a number up to 32 bits, a
--- UInt64 above. "truncated" is reported at the input's end, as a bit.
function Reader:bits(width, path)
    if width > self.len * 8 - self.bit then
        self:fail("truncated", self.len * 8, path)
    end
    local wide = width > 32
    local v = wide and UInt64(0) or 0
    for i = 0, width - 1 do
        local at = self.bit + i
        local byte = self.tvb(math.floor(at / 8), 1):uint()
        if math.floor(byte / 2 ^ (at % 8)) % 2 == 1 then
            if wide then
                v = v:bor(UInt64(1):lshift(i))
            else
                v = v + 2 ^ i
            end
        end
    end
    self.bit = self.bit + width
    return v
end

--- A ranged integer (WIRE-29) read by `read`: a value outside `min..=max` is over its width,
--- at its first byte. A 64-bit value is compared as a Lua number.
function Reader:ranged(read, min, max, path)
    local at = self:here()
    local v = read()
    local n = type(v) == "number" and v or v:tonumber()
    if n < min or n > max then
        self:fail("over_width", at, path)
    end
    return v
end

--- A ranged integer of a packed body (WIRE-29): the value less `min` in `width` bits; a value
--- past `max` is over its width, at the field's first bit.
function Reader:ranged_bits(width, min, max, path)
    local at = self.bit
    local offset = self:bits(width, path)
    local v = min + (type(offset) == "number" and offset or offset:tonumber())
    if v > max then
        self:fail("over_width", at, path)
    end
    return v
end

--- `width` bits of a packed body as a two's-complement signed integer.
function Reader:signed_bits(width, path)
    local v = self:bits(width, path)
    if type(v) == "number" then
        if v >= 2 ^ (width - 1) then
            return v - 2 ^ width
        end
        return v
    end
    if width < 64 and v:rshift(width - 1):lower() % 2 == 1 then
        v = v:bor(UInt64(0):bnot():lshift(width))
    end
    return Int64.new(v:lower(), v:higher())
end

--- A `bucket(w1, ..., wk)` value (`widths` a list of the k widths): the bucket's index in
--- unary, least significant bit first ("bucket i < k-1 as i one bits then one zero bit; the
--- last bucket as k-1 one bits and no zero"), so at most k - 1 bits, then "value - base_i as
--- an unsigned w_i-bit field". Buckets are offset (bucket i holds [base_i, base_i + 2^w_i)),
--- so every code is a distinct value and only "truncated" can fail. A number while every
--- value is below 2^32 (the sum of the 2^w_i at most 2^32), a UInt64 otherwise; and the
--- bucket's index (from 0). The bucket and the bits the code took are kept for the row's text
--- (`note_code`).
function Reader:bucket(widths, path)
    local k = #widths
    local total = 0
    for j = 1, k do
        total = total + 2 ^ widths[j]
    end
    local wide = total > 2 ^ 32
    local i = 1
    while i < k and self:bits(1, path) == 1 do
        i = i + 1
    end
    -- The unary prefix: i - 1 one bits, and a zero bit unless it is the last bucket.
    self.code = { index = i - 1, count = k, bits = (i < k and i or k - 1) + widths[i] }
    local base = wide and UInt64(0) or 0
    for j = 1, i - 1 do
        if wide then
            base = base + UInt64(1):lshift(widths[j])
        else
            base = base + 2 ^ widths[j]
        end
    end
    local raw = self:bits(widths[i], path)
    if wide and type(raw) == "number" then
        raw = UInt64(raw)
    end
    return base + raw, i - 1
end

--- A `zbucket(w1, ..., wk)` value: a bucket code of the zigzag mapping, "unzigzag(u) =
--- (u >> 1) ^ -(u & 1)": a number, or an Int64 when a width is 32 or more; and the bucket's
--- index.
function Reader:zbucket(widths, path)
    local n, i = self:bucket(widths, path)
    if type(n) == "number" then
        if n % 2 == 0 then
            return n / 2, i
        end
        return -(n + 1) / 2, i
    end
    local half = n:rshift(1)
    if n:lower() % 2 == 1 then
        half = half:bnot()
    end
    return Int64.new(half:lower(), half:higher()), i
end

--- A `quat(bits)` value, smallest three: `largest` as a u2 (0 = x, 1 = y, 2 = z, 3 = w, the
--- component dropped), then the other three as signed `bits`-bit integers, refused unless
--- canonical, in integers (exact in doubles: 2R^2 < 2^31), each fault at the field's first
--- bit: a component outside [-R, R], R = 2^(bits-1) - 1, is "over_width"; then with D = 2R^2
--- minus the sum of their squares (the dropped component squared), a component below
--- `largest` whose square is not below D, or above it whose square is above D, is
--- "non_canonical" ("the dropped component is the one of largest magnitude, the lowest
--- index on a tie, and it is made non-negative, so it is never sent"). Returns `largest`
--- and the list of the three.
function Reader:quat(bits, path)
    local at = self.bit
    local largest = self:bits(2, path)
    local a = self:signed_bits(bits, path)
    local b = self:signed_bits(bits, path)
    local c = self:signed_bits(bits, path)
    local rest = { a, b, c }
    local r = 2 ^ (bits - 1) - 1
    for k = 1, 3 do
        if rest[k] < -r or rest[k] > r then
            self:fail("over_width", at, path)
        end
    end
    local d = 2 * r * r - (a * a + b * b + c * c)
    for k = 1, 3 do
        local j = k - 1
        if j >= largest then
            j = k
        end
        local sq = rest[k] * rest[k]
        if (j < largest and not (sq < d)) or (j > largest and not (sq <= d)) then
            self:fail("non_canonical", at, path)
        end
    end
    return largest, rest
end

-- ---- values and their text, as `ackwire explain` prints them ----

--- Bit `i` of `v` (a number or a UInt64) is set; an absent field (nil) has none set.
local function has(v, i)
    if v == nil then
        return false
    end
    if type(v) == "number" then
        return math.floor(v / 2 ^ i) % 2 == 1
    end
    return v:rshift(i):lower() % 2 == 1
end

--- An integer in decimal: a number, a UInt64 or an Int64.
local function int_text(v)
    if type(v) == "number" then
        return string.format("%d", v)
    end
    return tostring(v)
end

--- An integer as a number: exact up to 2^53, larger ones above every count that fits.
local function to_number(v)
    if type(v) == "number" then
        return v
    end
    return v:tonumber()
end

--- A presence test's integer operand is not zero (an absent field is zero).
local function nonzero(v)
    return v ~= nil and v ~= false and int_text(v) ~= "0"
end

--- A presence test's integer operand is greater than the literal `n` (a number, or a
--- UInt64 past 2^53), compared exactly at any width.
local function greater(v, n)
    if v == nil then
        v = 0
    end
    if type(v) == "number" and type(n) == "number" then
        return v > n
    end
    if typeof(v) == "Int64" then
        if type(n) ~= "number" then
            -- Past 2^53, above every Int64 that is not above 2^63 - 1.
            return v > Int64(0) and UInt64.new(v:lower(), v:higher()) > n
        end
        return v > Int64(n)
    end
    if type(v) == "number" then
        v = UInt64(v)
    end
    if type(n) == "number" then
        n = UInt64(n)
    end
    return v > n
end

--- The value of a uint64 or int64 field: Wireshark takes UInt64 or Int64 objects there.
local function wide(v, signed)
    if type(v) ~= "number" then
        return v
    end
    if signed then
        return Int64(v)
    end
    return UInt64(v)
end

--- The f32 nearest `v`.
local function to_f32(v)
    return Struct.unpack("<f", Struct.pack("<f", v))
end

--- A string of decimal digits plus one in its last place ("129" -> "130", "99" -> "100").
local function increment(digits)
    local out = {}
    local carry = 1
    for i = #digits, 1, -1 do
        local d = digits:byte(i) - 48 + carry
        carry = d == 10 and 1 or 0
        out[i] = string.char(48 + d % 10)
    end
    local text = table.concat(out)
    if carry == 1 then
        text = "1" .. text
    end
    return text
end

--- A float as Rust's `Display` prints it (what `ackwire explain` shows): the fewest digits
--- that read back as the same value (as an f32 when `single`), written out without an
--- exponent.
local function float_text(v, single)
    if v == 0 then
        return (1 / v < 0) and "-0" or "0"
    end
    local function reads_back(text)
        local back = tonumber(text)
        if single then
            back = to_f32(back)
        end
        return back == v
    end
    local s, digits
    for n = 1, 17 do
        s = string.format("%." .. (n - 1) .. "e", v)
        digits = n
        if reads_back(s) then
            break
        end
    end
    -- A tie: `v` lies exactly halfway between two candidates of that many digits. printf
    -- rounds it to even; Rust's shortest form takes the one above, so this does too.
    local exact = string.format("%.99e", v)
    local xsign, xint, xfrac, xexp = exact:match("^(-?)(%d)%.(%d*)e([-+]%d+)$")
    local all = xint .. xfrac
    if all:sub(digits + 1):match("^50*$") then
        local up = increment(all:sub(1, digits))
        local exp = tonumber(xexp)
        if #up > digits then
            up = up:sub(1, digits)
            exp = exp + 1
        end
        local candidate = xsign .. up:sub(1, 1) .. "." .. up:sub(2) .. string.format("e%+03d", exp)
        if reads_back(candidate) then
            s = candidate
        end
    end
    local sign, int, frac, exp = s:match("^(-?)(%d)%.?(%d*)e([-+]%d+)$")
    local mantissa = (int .. frac):gsub("0+$", "")
    if mantissa == "" then
        mantissa = "0"
    end
    local point = tonumber(exp) + 1
    if point <= 0 then
        return sign .. "0." .. string.rep("0", -point) .. mantissa
    end
    if point >= #mantissa then
        return sign .. mantissa .. string.rep("0", point - #mantissa)
    end
    return sign .. mantissa:sub(1, point) .. "." .. mantissa:sub(point + 1)
end

--- A quantized value: the wire integer times the scale `num / den`.
local function scaled(wire, num, den)
    return to_number(wire) * (num / den)
end

--- A quantized value's text: "1.5 (wire 768)".
local function quant_text(wire, num, den)
    return float_text(scaled(wire, num, den), false) .. " (wire " .. int_text(wire) .. ")"
end

--- Byte strings longer than this are elided with "…", as in `ackwire explain`.
local SHOWN_BYTES = 16

--- 1/sqrt 2 to the nearest double (Rust's FRAC_1_SQRT_2).
local FRAC_1_SQRT_2 = 0.707106781186547524400844362104849039

--- The quaternion of a smallest three as every language computes it: each sent component
--- "rest[i] as f64 * (FRAC_1_SQRT_2 / R)", the dropped one "sqrt(max(0, 1 - sum of their
--- squares))", each then rounded to f32; as the list x, y, z, w.
local function quat_xyzw(largest, rest, bits)
    local scale = FRAC_1_SQRT_2 / (2 ^ (bits - 1) - 1)
    local a, b, c = rest[1] * scale, rest[2] * scale, rest[3] * scale
    local dropped = math.sqrt(math.max(0, 1 - (a * a + b * b + c * c)))
    local sent = { a, b, c }
    local out = {}
    local k = 1
    for j = 0, 3 do
        if j == largest then
            out[j + 1] = to_f32(dropped)
        else
            out[j + 1] = to_f32(sent[k])
            k = k + 1
        end
    end
    return out
end

--- The names of a quaternion's components, by index.
local COMPONENTS = { [0] = "x", [1] = "y", [2] = "z", [3] = "w" }

--- A quaternion's text as `ackwire explain` prints it: the component dropped, the three sent,
--- and the quaternion they stand for (each component rounded to f32, as to_xyzw does, then
--- printed to 4 decimals as Rust's `{:.4}` does: the exact value, a tie to even, like C's
--- printf): "z dropped, rest [12, -4, 200]: (0.0333, -0.0111, 0.8314, 0.5546)".
local function quat_text(largest, rest, q)
    return COMPONENTS[largest] .. " dropped, rest [" .. int_text(rest[1]) .. ", "
        .. int_text(rest[2]) .. ", " .. int_text(rest[3]) .. "]: ("
        .. string.format("%.4f, %.4f, %.4f, %.4f", q[1], q[2], q[3], q[4]) .. ")"
end

--- A byte string: "2 bytes: aabb".
local function bytes_text(range, len)
    -- Through int_text: Lua 5.3 and later would write a float count as "2.0".
    local text = int_text(len) .. " bytes"
    if len > 0 then
        local shown = math.min(len, SHOWN_BYTES)
        text = text .. ": " .. range:range(0, shown):bytes():tohex(true)
        if len > SHOWN_BYTES then
            text = text .. "…"
        end
    end
    return text
end

--- A field's path below `path`, as in decode errors: `changes[3].mask`.
local function join(path, name)
    if path == "" then
        return name
    end
    return path .. "." .. name
end

--- Element `i` of the list at `path`.
local function index(path, i)
    return path .. "[" .. i .. "]"
end

-- ---- tree items ----

--- The bytes a field read since `at` covers: for a packed field, every byte it touches.
function Reader:range(at)
    if self.packed then
        local first = math.floor(at / 8)
        local last = math.min(math.max(math.ceil(self.bit / 8), first + 1), self.len)
        return self.tvb(first, last - first)
    end
    return self.tvb(at, self.pos - at)
end

--- One row of `ackwire explain`: an item of `field` holding `value` over the bytes read
--- since `at`, shown as `label: text`, with the row's path and text as the hidden fields
--- ackwire.path and ackwire.value (for filters, and for tests that read tshark's JSON).
function Reader:row(tree, field, label, path, at, value, text)
    if tree == nil then
        return nil
    end
    local range = self:range(at)
    local item = tree:add(field, range, value)
    item:set_text(label and (label .. ": " .. text) or text)
    tree:add(F_PATH, range, path):set_hidden()
    tree:add(F_VALUE, range, text):set_hidden()
    return item
end

--- A quaternion's row, read with `quat`: its text (with the quaternion it stands for), and
--- under it the dropped component's index and each component sent, with its value.
function Reader:quat_row(tree, field, label, path, at, bits, largest, rest)
    local q = quat_xyzw(largest, rest, bits)
    local text = quat_text(largest, rest, q)
    local item = self:row(tree, field, label, path, at, text, text)
    if item == nil then
        return
    end
    local floats = {}
    for j = 1, 4 do
        floats[j] = float_text(q[j], true)
    end
    local range = self:range(at)
    item:add(F_QUAT_LARGEST, range, largest)
    local k = 1
    for j = 0, 3 do
        if j ~= largest then
            item:add(F_QUAT_REST, range, rest[k]):set_text(COMPONENTS[j] .. ": " .. int_text(rest[k])
                .. " (" .. floats[j + 1] .. ")")
            k = k + 1
        end
    end
end

--- Which bucket the last bucket code read was in and the bits it took, as `ackwire explain`
--- prints a bucket field: " (bucket 2 of 3, 10 bits)".
function Reader:code_text()
    if self.code == nil then
        return ""
    end
    return " (bucket " .. (self.code.index + 1) .. " of " .. self.code.count .. ", "
        .. self.code.bits .. " bits)"
end

--- Appends `code_text` to the item of a bucket code whose row says only its value (an
--- ascending element's, a quantized one's).
function Reader:note_code(item)
    if item ~= nil then
        item:append_text(self:code_text())
    end
end

--- A subtree for a record, a list or a union's variant, its length set when it ends.
function Reader:subtree(tree, label, at)
    if tree == nil then
        return nil
    end
    return tree:add(self.tvb(math.min(at, self.len), 0), label)
end

--- Ends a subtree begun at `at`.
function Reader:close(item, at)
    if item ~= nil then
        local stop = self.packed and math.ceil(self.bit / 8) or self.pos
        local first = self.packed and math.floor(at / 8) or at
        item:set_len(math.max(stop - first, 0))
    end
end

--- A bit set's raw bits, refusing a reserved bit ("every bit not named is reserved: a
--- decoder rejects it when set"), then a bit without the bit it `requires`.
function Reader:bit_set(set, raw, at, path)
    for i = 0, set.width - 1 do
        if has(raw, i) and set.named[i] == nil then
            self:fail("reserved_bit", at, path)
        end
    end
    for _, bit in ipairs(set.bits) do
        if bit.requires ~= nil and has(raw, bit.index) and not has(raw, bit.requires) then
            self:fail("invalid_condition", at, path)
        end
    end
    return raw
end

--- The names of the bits set in `raw`, in declaration order: "POSE | POSE_FULL".
local function bit_names(set, raw)
    local names = {}
    for _, bit in ipairs(set.bits) do
        if has(raw, bit.index) then
            names[#names + 1] = bit.name
        end
    end
    if #names == 0 then
        return "(none)"
    end
    return table.concat(names, " | ")
end

--- A bit set's row, with one named bit a line under it.
function Reader:bit_set_row(tree, field, label, path, at, set, raw)
    local item = self:row(tree, field, label, path, at, raw, bit_names(set, raw))
    if item ~= nil then
        for _, bit in ipairs(set.bits) do
            item:add(bit.field, self:range(at), has(raw, bit.index))
        end
    end
    return item
end

--- A count checked against what is left before anything is read: "a count that the
--- remaining bytes cannot hold" is refused where the elements would begin, each element
--- taking at least `least` bytes (bits in a packed body).
function Reader:count(n, least, path)
    local room = self.packed and (self.len * 8 - self.bit) or (self.len - self.pos)
    local count = to_number(n)
    if count < 0 or count * math.max(least, 1) > room then
        self:fail("count_too_large", self:here(), path)
    end
    return count
end

--- A byte string: a varint length (plus one for `bytes?`, 0 for none) and the bytes.
function Reader:bytes(tree, field, label, path, optional)
    local at = self.pos
    local n = to_number(self:varint(64, path))
    local text
    local data = ""
    if optional and n == 0 then
        text = "none"
    else
        local len = optional and n - 1 or n
        -- A length is a count: refused where the bytes would begin.
        if len > self.len - self.pos then
            self:fail("count_too_large", self.pos, path)
        end
        local range = self:take(len, path)
        data = range:raw()
        text = bytes_text(range, len)
    end
    self:row(tree, field, label, path, at, data, text)
end

--- The next element of an ascending list (or its key field): the first absolute, each later
--- one its difference from the previous one, which is at least 1 (WIRE-14);
--- the sum must stay within the key's `bits`, or, for a `bucket(...)` key, at most `max`
--- (its largest value, a number or a UInt64: "a sum past the type's range is over_width").
function Reader:ascend(asc, delta, bits, at, path, max)
    local v = delta
    if asc.prev ~= nil then
        if int_text(delta) == "0" then
            self:fail("not_ascending", at, path)
        end
        v = asc.prev + delta
        if type(delta) == "number" then
            if (max == nil and bits < 64 and v >= 2 ^ bits) or (max ~= nil and v > max) then
                self:fail("over_width", at, path)
            end
        elseif v < asc.prev or (max == nil and bits < 64 and v:rshift(bits) ~= UInt64(0))
            or (max ~= nil and v > max) then
            self:fail("over_width", at, path)
        end
    elseif type(delta) == "number" and ((max == nil and bits < 64 and v >= 2 ^ bits)
        or (max ~= nil and v > max)) then
        self:fail("over_width", at, path)
    end
    local text = int_text(v)
    if asc.prev ~= nil then
        text = text .. " (delta " .. int_text(delta) .. ")"
    end
    asc.prev = v
    return v, text
end

--- The outermost packed record from the current byte: `body` reads its fields as a bit
--- stream, "padded with zero bits to a byte at the end of the outermost packed record"
--- (LANGUAGE.md); a padding bit that is set is a reserved bit.
function Reader:packed_body(tree, path, body)
    self.packed = true
    self.bit = self.pos * 8
    body()
    local used = self.bit
    local stop = math.ceil(used / 8) * 8
    for b = used, stop - 1 do
        if has(self.tvb(math.floor(b / 8), 1):uint(), b % 8) then
            self:fail("reserved_bit", b, path)
        end
    end
    if stop > used then
        self.bit = stop
        self:row(tree, F_PADDING, nil, path, used, stop - used,
            "padding, " .. (stop - used) .. " zero bits")
    end
    self.packed = false
    -- math.floor keeps it an integer in Lua 5.3 and later, where `/` makes a float.
    self.pos = math.floor(stop / 8)
end

--- A decode error's text, as the generated decoders print it: "truncated at byte 12 (bit
--- 99), field changes[0].pose_full.x".
local function error_text(e)
    local text = e.kind .. " at byte " .. e.offset
    if e.bit ~= nil then
        text = text .. " (bit " .. e.bit .. ")"
    end
    if e.path ~= nil and e.path ~= "" then
        text = text .. ", field " .. e.path
    end
    return text
end
