// The byte reader: every width in both byte orders, and each fault at the byte it names.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DecodeError, pathText, pathWithin, Reader, readList, within } from "../src/index.js";
import { assertDecodeFault, bytes } from "./faults.js";

describe("Reader integers", () => {
  it("reads unsigned integers of 1, 2 and 4 bytes, little and big endian", () => {
    // WIRE-1.
    const data = bytes(0x01, 0x02, 0x03, 0x04);
    assert.equal(new Reader(data).uint(1), 0x01);
    assert.equal(new Reader(data).uint(2), 0x0201);
    assert.equal(new Reader(data).uint(2, true), 0x0102);
    assert.equal(new Reader(data).uint(4), 0x04030201);
    assert.equal(new Reader(data).uint(4, true), 0x01020304);
    assert.equal(new Reader(bytes(0xff, 0xff, 0xff, 0xff)).uint(4), 0xffffffff);
  });

  it("reads two's complement integers of 1, 2 and 4 bytes", () => {
    assert.equal(new Reader(bytes(0xff)).int(1), -1);
    assert.equal(new Reader(bytes(0x80)).int(1), -128);
    assert.equal(new Reader(bytes(0x7f)).int(1), 127);
    assert.equal(new Reader(bytes(0x00, 0x80)).int(2), -32768);
    assert.equal(new Reader(bytes(0x80, 0x00)).int(2, true), -32768);
    assert.equal(new Reader(bytes(0xff, 0x7f)).int(2), 32767);
    assert.equal(new Reader(bytes(0x00, 0x00, 0x00, 0x80)).int(4), -(2 ** 31));
    assert.equal(new Reader(bytes(0xfe, 0xff, 0xff, 0xff)).int(4), -2);
    assert.equal(new Reader(bytes(0xff, 0xff, 0xff, 0xfe)).int(4, true), -2);
  });

  it("reads 64-bit integers as bigints", () => {
    const ones = new Uint8Array(8).fill(0xff);
    assert.equal(new Reader(ones).u64(), 2n ** 64n - 1n);
    assert.equal(new Reader(ones).i64(), -1n);
    const one = bytes(0x01, 0, 0, 0, 0, 0, 0, 0x80);
    assert.equal(new Reader(one).u64(), 2n ** 63n + 1n);
    assert.equal(new Reader(one).u64(true), 2n ** 56n + 0x80n);
    assert.equal(new Reader(one).i64(), -(2n ** 63n) + 1n);
  });

  it("moves past what it reads and reads from a view's own offset", () => {
    const backing = bytes(0xee, 0x34, 0x12, 0x56, 0xee);
    const r = new Reader(backing.subarray(1, 4));
    assert.equal(r.remaining, 3);
    assert.equal(r.uint(2), 0x1234);
    assert.equal(r.offset, 2);
    assert.equal(r.uint(1), 0x56);
    assert.equal(r.remaining, 0);
    r.finish();
  });

  it("reports the end of input as truncated, at the length of the input", () => {
    // WIRE-25.
    assertDecodeFault(() => new Reader(bytes(1, 2, 3)).uint(4), "truncated", { offset: 3 });
    const r = new Reader(bytes(1, 2, 3));
    r.uint(2);
    assertDecodeFault(() => r.uint(2), "truncated", { offset: 3 });
    assertDecodeFault(() => new Reader(bytes()).uint(1), "truncated", { offset: 0 });
    assertDecodeFault(() => new Reader(new Uint8Array(7)).u64(), "truncated", { offset: 7 });
    assertDecodeFault(() => new Reader(new Uint8Array(7)).f64(), "truncated", { offset: 7 });
  });
});

describe("Reader bool and floats", () => {
  it("reads a bool byte of 0 or 1 and refuses anything else where it is", () => {
    // WIRE-7.
    assert.equal(new Reader(bytes(0)).bool(), false);
    assert.equal(new Reader(bytes(1)).bool(), true);
    const r = new Reader(bytes(0x01, 0x02));
    r.uint(1);
    assertDecodeFault(() => r.bool(), "over_width", { offset: 1 });
  });

  it("reads finite singles and doubles in both byte orders", () => {
    assert.equal(new Reader(bytes(0, 0, 0xc0, 0x3f)).f32(), 1.5);
    assert.equal(new Reader(bytes(0x3f, 0xc0, 0, 0)).f32(true), 1.5);
    assert.equal(new Reader(bytes(0, 0, 0, 0, 0, 0, 0xf8, 0x3f)).f64(), 1.5);
    assert.equal(new Reader(bytes(0x3f, 0xf8, 0, 0, 0, 0, 0, 0)).f64(true), 1.5);
    assert.ok(Object.is(new Reader(bytes(0, 0, 0, 0x80)).f32(), -0));
  });

  it("refuses NaN and infinities as non_finite at the float's first byte", () => {
    // WIRE-6.
    const nan32 = bytes(0xaa, 0, 0, 0xc0, 0x7f);
    const r = new Reader(nan32);
    r.uint(1);
    assertDecodeFault(() => r.f32(), "non_finite", { offset: 1 });
    assertDecodeFault(() => new Reader(bytes(0, 0, 0x80, 0x7f)).f32(), "non_finite", {
      offset: 0,
    });
    const inf64 = bytes(0, 0, 0, 0, 0, 0, 0xf0, 0xff);
    assertDecodeFault(() => new Reader(inf64).f64(), "non_finite", { offset: 0 });
  });
});

describe("Reader bytes, counts, constants and the end of a frame", () => {
  it("takes a copy of the bytes it consumes", () => {
    const data = bytes(1, 2, 3);
    const got = new Reader(data).take(2);
    data[0] = 9;
    assert.deepEqual(got, bytes(1, 2));
  });

  it("reads bytes and bytes? with their varint lengths", () => {
    // WIRE-15.
    assert.deepEqual(new Reader(bytes(2, 7, 8)).bytes(), bytes(7, 8));
    assert.deepEqual(new Reader(bytes(0)).bytes(), bytes());
    assert.equal(new Reader(bytes(0)).optBytes(), null);
    assert.deepEqual(new Reader(bytes(1)).optBytes(), bytes());
    assert.deepEqual(new Reader(bytes(3, 7, 8)).optBytes(), bytes(7, 8));
  });

  it("refuses a length longer than what remains where the bytes would begin", () => {
    assertDecodeFault(() => new Reader(bytes(3, 7, 8)).bytes(), "count_too_large", {
      offset: 1,
    });
    assertDecodeFault(() => new Reader(bytes(4, 7, 8)).optBytes(), "count_too_large", {
      offset: 1,
    });
  });

  it("checks a count against what remains before anything is read", () => {
    // WIRE-13.
    const r = new Reader(bytes(0, 1, 2, 3, 4, 5));
    r.uint(1);
    assert.equal(r.count(2, 2), 2);
    assert.equal(r.count(5n, 1), 5);
    assertDecodeFault(() => r.count(3, 2), "count_too_large", { offset: 1 });
    // An element of no bytes still counts as one, so a count cannot be unbounded.
    assertDecodeFault(() => r.count(6, 0), "count_too_large", { offset: 1 });
    assert.equal(r.offset, 1);
  });

  it("refuses another value of a constant at the constant's first byte", () => {
    // WIRE-10.
    const r = new Reader(bytes(0xff, 0x2c, 0x01, 0x2d, 0x01));
    r.uint(1);
    r.constant(300, (r) => r.uint(2));
    assertDecodeFault(() => r.constant(300, (r) => r.uint(2)), "bad_constant", { offset: 3 });
    const big = new Reader(bytes(0x05));
    assertDecodeFault(() => big.constant(6n, (r) => r.bigVarint(64)), "bad_constant", {
      offset: 0,
    });
  });

  it("refuses bytes after the end of a frame at the first of them", () => {
    // WIRE-17.
    const r = new Reader(bytes(1, 2, 3));
    r.uint(2);
    assertDecodeFault(() => r.finish(), "trailing_bytes", { offset: 2 });
  });
});

describe("Reader integers by type", () => {
  it("read what uint and int read, named by their type", () => {
    const data = bytes(0xfe, 0xff, 0xff, 0x80);
    assert.equal(new Reader(data).u8(), 0xfe);
    assert.equal(new Reader(data).i8(), -2);
    assert.equal(new Reader(data).u16(), 0xfffe);
    assert.equal(new Reader(data).i16(), -2);
    assert.equal(new Reader(data).u16(true), 0xfeff);
    assert.equal(new Reader(data).u32(), 0x80fffffe);
    assert.equal(new Reader(data).i32(), -0x7f000002);
    assert.equal(new Reader(data).i32(true), -0x1000080);
    assertDecodeFault(() => new Reader(bytes(1)).u16(), "truncated", { offset: 1 });
  });
});

describe("Reader field paths", () => {
  it("come from what an error unwinds through: fields, list indices, variants", () => {
    // WIRE-22.
    const r = new Reader(bytes(1, 2, 3, 4));
    r.uint(1);
    const changes = () => {
      try {
        return readList(r, 2, 1, (r) => r.uint(2));
      } catch (e) {
        throw within(e, "changes");
      }
    };
    assertDecodeFault(changes, "truncated", { offset: 4, path: "changes[1]" });
  });

  it("name a nested record's field and a union's variant, outermost first", () => {
    const r = new Reader(bytes(1));
    const read = () => {
      try {
        return r.inside("pose", (r) => r.uint(2));
      } catch (e) {
        throw within(within(e, "inner"), "outer");
      }
    };
    assertDecodeFault(read, "truncated", { offset: 1, path: "outer.inner.pose" });
  });

  it("are empty for a fault outside every record, and say so in the message", () => {
    const e = new DecodeError("truncated", 3, undefined);
    assert.equal(e.path, "");
    assert.equal(e.message, "truncated at byte 3");
    within(within(within(e, 2), "changes"), 0);
    assert.equal(e.path, "[0].changes[2]");
    assert.equal(e.message, "truncated at byte 3, field [0].changes[2]");
  });

  it("leave an exception that is not a decode error as it is", () => {
    const e = new RangeError("engine");
    assert.equal(within(e, "x"), e);
    assert.equal(e.message, "engine");
  });

  it("are put together as pathText writes a whole path", () => {
    const path = ["changes", 3, "pose", 1, 2];
    let text = "";
    for (const s of [...path].reverse()) {
      text = pathWithin(s, text);
    }
    assert.equal(text, pathText(path));
    assert.equal(text, "changes[3].pose[1][2]");
  });
});
