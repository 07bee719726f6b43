// The byte writer: every width in both byte orders, refusing what the reader would refuse.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  bytesLen,
  EncodeError,
  optBytesLen,
  Reader,
  within,
  Writer,
  writeList,
} from "../src/index.js";
import { assertEncodeFault, bytes } from "./faults.js";

function written(write: (w: Writer) => void): Uint8Array {
  const w = new Writer();
  write(w);
  return w.finish();
}

describe("Writer integers", () => {
  it("writes unsigned integers of 1, 2 and 4 bytes, little and big endian", () => {
    assert.deepEqual(
      written((w) => w.uint(1, 0xfe)),
      bytes(0xfe),
    );
    assert.deepEqual(
      written((w) => w.uint(2, 0x0102)),
      bytes(0x02, 0x01),
    );
    assert.deepEqual(
      written((w) => w.uint(2, 0x0102, true)),
      bytes(0x01, 0x02),
    );
    assert.deepEqual(
      written((w) => w.uint(4, 0x01020304)),
      bytes(0x04, 0x03, 0x02, 0x01),
    );
    assert.deepEqual(
      written((w) => w.uint(4, 0xffffffff, true)),
      bytes(0xff, 0xff, 0xff, 0xff),
    );
  });

  it("writes two's complement integers and 64-bit integers", () => {
    assert.deepEqual(
      written((w) => w.int(1, -1)),
      bytes(0xff),
    );
    assert.deepEqual(
      written((w) => w.int(2, -32768)),
      bytes(0x00, 0x80),
    );
    assert.deepEqual(
      written((w) => w.int(4, -2, true)),
      bytes(0xff, 0xff, 0xff, 0xfe),
    );
    assert.deepEqual(
      written((w) => w.u64(2n ** 63n + 1n)),
      bytes(0x01, 0, 0, 0, 0, 0, 0, 0x80),
    );
    assert.deepEqual(
      written((w) => w.i64(-2n, true)),
      bytes(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe),
    );
  });

  it("refuses a value outside the width or not an integer as over_width", () => {
    // WIRE-4, WIRE-18.
    const w = new Writer();
    assertEncodeFault(() => w.uint(1, 256), "over_width");
    assertEncodeFault(() => w.uint(1, -1), "over_width");
    assertEncodeFault(() => w.uint(2, 65536), "over_width");
    assertEncodeFault(() => w.uint(4, 2 ** 32), "over_width");
    assertEncodeFault(() => w.uint(4, 0.5), "over_width");
    assertEncodeFault(() => w.int(1, 128), "over_width");
    assertEncodeFault(() => w.int(1, -129), "over_width");
    assertEncodeFault(() => w.int(2, 32768), "over_width");
    assertEncodeFault(() => w.int(4, 2 ** 31), "over_width");
    assertEncodeFault(() => w.u64(2n ** 64n), "over_width");
    assertEncodeFault(() => w.u64(-1n), "over_width");
    assertEncodeFault(() => w.i64(2n ** 63n), "over_width");
    assertEncodeFault(() => w.i64(-(2n ** 63n) - 1n), "over_width");
    assert.equal(w.length, 0, "a refused value writes nothing");
  });

  it("round-trips every boundary value through the reader", () => {
    const w = new Writer();
    const cases: [1 | 2 | 4, number, number][] = [
      [1, -128, 127],
      [2, -32768, 32767],
      [4, -(2 ** 31), 2 ** 31 - 1],
    ];
    for (const [size, min, max] of cases) {
      w.int(size, min, true);
      w.int(size, max);
      w.uint(size, 2 ** (8 * size) - 1, true);
    }
    const r = new Reader(w.finish());
    for (const [size, min, max] of cases) {
      assert.equal(r.int(size, true), min);
      assert.equal(r.int(size), max);
      assert.equal(r.uint(size, true), 2 ** (8 * size) - 1);
    }
    r.finish();
  });
});

describe("Writer bools, floats and bytes", () => {
  it("writes a bool as one byte", () => {
    assert.deepEqual(
      written((w) => {
        w.bool(true);
        w.bool(false);
      }),
      bytes(1, 0),
    );
  });

  it("writes finite floats and refuses the others", () => {
    // WIRE-6.
    assert.deepEqual(
      written((w) => w.f32(1.5)),
      bytes(0, 0, 0xc0, 0x3f),
    );
    assert.deepEqual(
      written((w) => w.f64(1.5, true)),
      bytes(0x3f, 0xf8, 0, 0, 0, 0, 0, 0),
    );
    const w = new Writer();
    assertEncodeFault(() => w.f32(Number.NaN), "non_finite");
    // Finite as a double, but not as a single.
    assertEncodeFault(() => w.f32(1e39), "non_finite");
    assertEncodeFault(() => w.f64(Number.POSITIVE_INFINITY), "non_finite");
    assert.equal(w.length, 0);
  });

  it("writes bytes and bytes? after their varint lengths", () => {
    const long = new Uint8Array(200).fill(7);
    const w = new Writer();
    w.bytes(bytes(1, 2));
    w.optBytes(null);
    w.optBytes(bytes(3));
    w.bytes(long);
    const out = w.finish();
    assert.deepEqual(out.subarray(0, 6), bytes(2, 1, 2, 0, 2, 3));
    assert.deepEqual(out.subarray(6, 8), bytes(0xc8, 0x01));
    assert.equal(out.length, 8 + 200);
    assert.equal(bytesLen(bytes(1, 2)) + optBytesLen(null) + optBytesLen(bytes(3)), 6);
    assert.equal(bytesLen(long), 202);
    const r = new Reader(out);
    assert.deepEqual(r.bytes(), bytes(1, 2));
    assert.equal(r.optBytes(), null);
    assert.deepEqual(r.optBytes(), bytes(3));
    assert.deepEqual(r.bytes(), long);
    r.finish();
  });

  it("grows past its first buffer and hands out a copy of what it wrote", () => {
    const w = new Writer();
    for (let i = 0; i < 1000; i++) {
      w.uint(2, i);
    }
    assert.equal(w.length, 2000);
    const first = w.finish();
    first[0] = 0xff;
    const second = w.finish();
    assert.equal(second[0], 0);
    const r = new Reader(second);
    for (let i = 0; i < 1000; i++) {
      assert.equal(r.uint(2), i);
    }
  });
});

describe("Writer integers by type", () => {
  it("write what uint and int write, refusing exactly what does not fit", () => {
    assert.deepEqual(
      written((w) => {
        w.u8(0xfe);
        w.i8(-2);
        w.u16(0xfffe);
        w.i16(-2, true);
        w.u32(0x80fffffe);
        w.i32(-1);
      }),
      bytes(0xfe, 0xfe, 0xfe, 0xff, 0xff, 0xfe, 0xfe, 0xff, 0xff, 0x80, 0xff, 0xff, 0xff, 0xff),
    );
    const w = new Writer();
    for (const v of [256, -1, 0.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assertEncodeFault(() => w.u8(v), "over_width");
    }
    for (const v of [0x10000, -1, 1.5]) {
      assertEncodeFault(() => w.u16(v), "over_width");
    }
    for (const v of [2 ** 32, -1, 2 ** 40 + 1]) {
      assertEncodeFault(() => w.u32(v), "over_width");
    }
    for (const v of [128, -129]) {
      assertEncodeFault(() => w.i8(v), "over_width");
    }
    for (const v of [0x8000, -0x8001, -0.5]) {
      assertEncodeFault(() => w.i16(v), "over_width");
    }
    for (const v of [2 ** 31, -(2 ** 31) - 1, 2 ** 32]) {
      assertEncodeFault(() => w.i32(v), "over_width");
    }
    w.u8(255);
    w.i8(-128);
    w.i16(-0x8000);
    w.i32(-(2 ** 31));
    w.u32(2 ** 32 - 1);
    assert.equal(w.length, 12);
  });

  it("start with the room asked for, and grow past it", () => {
    const exact = new Writer(2);
    exact.u16(0x0201);
    const out = exact.finish();
    assert.deepEqual(out, bytes(1, 2));
    exact.u8(3);
    assert.deepEqual(out, bytes(1, 2), "a write after finish leaves its bytes alone");
    assert.deepEqual(exact.finish(), bytes(1, 2, 3));
  });
});

describe("Writer field paths and presence", () => {
  it("name the field and the element at fault", () => {
    const w = new Writer();
    w.u8(1);
    const ids = () => {
      try {
        writeList(w, [1, 2, 300], (w, id) => w.u8(id));
      } catch (e) {
        throw within(e, "ids");
      }
    };
    assertEncodeFault(ids, "over_width", "ids[2]");
  });

  it("refuses a field whose presence contradicts its condition", () => {
    // WIRE-11.
    const w = new Writer();
    w.presence(true, true);
    w.presence(false, false);
    assertEncodeFault(() => w.presence(true, false), "invalid_condition");
    assertEncodeFault(() => w.presence(false, true), "invalid_condition");
  });

  it("names a union's variant in the path", () => {
    const w = new Writer();
    const body = () => {
      try {
        w.inside(
          "ack",
          (w, v: number) => {
            try {
              w.u16(v);
            } catch (e) {
              throw within(e, "seq");
            }
          },
          70000,
        );
      } catch (e) {
        throw within(e, "body");
      }
    };
    assertEncodeFault(body, "over_width", "body.ack.seq");
    const e = new EncodeError("over_width");
    within(e, "seq");
    assert.equal(e.message, "cannot encode: over_width in seq");
  });
});
