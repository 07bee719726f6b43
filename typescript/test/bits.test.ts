// Bit streams of packed bodies (least significant bit first) and bit sets, in bytes and in bits.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  BitReader,
  type BitSet,
  bitSetNames,
  bitSetValue,
  BitWriter,
  Reader,
  Writer,
} from "../src/index.js";
import { assertDecodeFault, assertEncodeFault, bytes } from "./faults.js";

/** The body `write` writes. */
function body(write: (b: BitWriter) => void): Uint8Array {
  const b = new BitWriter();
  write(b);
  return b.finish();
}

/** A bit reader over `data` from byte `start`. */
function bits(data: Uint8Array, start = 0): BitReader {
  return new BitReader(data, start);
}

describe("bit streams", () => {
  it("put each field at the least significant free bit", () => {
    // WIRE-18.
    assert.deepEqual(
      body((b) => {
        b.uint(3, 5);
        b.uint(5, 0x1f);
      }),
      bytes(0xfd),
    );
    const b = bits(bytes(0xfd));
    assert.equal(b.uint(3), 5);
    assert.equal(b.uint(5), 0x1f);
    assert.equal(b.finish(), 1);
  });

  it("carry a field across bytes, low bits first", () => {
    const data = body((b) => {
      b.uint(4, 0xa);
      b.uint(12, 0xbcd);
    });
    assert.deepEqual(data, bytes(0xda, 0xbc));
    const b = bits(data);
    assert.equal(b.uint(4), 0xa);
    assert.equal(b.uint(12), 0xbcd);
    assert.equal(b.remaining, 0);
  });

  it("read and write every width up to 53 bits as numbers and 64 as bigints", () => {
    for (let width = 1; width <= 53; width++) {
      const max = 2 ** width - 1;
      const data = body((b) => {
        b.bool(true);
        b.uint(width, max);
        b.uint(width, 1);
      });
      assert.equal(data.length, Math.ceil((1 + 2 * width) / 8));
      const b = bits(data);
      assert.equal(b.bool(), true);
      assert.equal(b.uint(width), max, `uint(${width})`);
      assert.equal(b.uint(width), 1);
      b.finish();
    }
    for (let width = 1; width <= 64; width++) {
      const max = (1n << BigInt(width)) - 1n;
      const data = body((b) => {
        b.uint(3, 0);
        b.bigUint(width, max);
      });
      const b = bits(data);
      b.uint(3);
      assert.equal(b.bigUint(width), max, `bigUint(${width})`);
    }
  });

  it("sign-extend two's complement fields", () => {
    assert.equal(bits(bytes(0x0f)).int(4), -1);
    assert.equal(bits(bytes(0x08)).int(4), -8);
    assert.equal(bits(bytes(0x07)).int(4), 7);
    const data = body((b) => {
      b.int(4, -8);
      b.int(4, 7);
      b.bigInt(64, -(2n ** 63n));
      b.bigInt(60, -1n);
    });
    const b = bits(data);
    assert.equal(b.int(4), -8);
    assert.equal(b.int(4), 7);
    assert.equal(b.bigInt(64), -(2n ** 63n));
    assert.equal(b.bigInt(60), -1n);
  });

  it("refuse to write a field wider than its width", () => {
    // WIRE-18.
    const b = new BitWriter();
    assertEncodeFault(() => b.uint(3, 8), "over_width");
    assertEncodeFault(() => b.uint(3, -1), "over_width");
    assertEncodeFault(() => b.int(4, 8), "over_width");
    assertEncodeFault(() => b.int(4, -9), "over_width");
    assertEncodeFault(() => b.bigUint(60, 1n << 60n), "over_width");
    assertEncodeFault(() => b.bigInt(64, 1n << 63n), "over_width");
    assert.deepEqual(b.finish(), bytes());
  });

  it("carry singles and doubles as their bits, refusing what is not finite", () => {
    const data = body((b) => {
      b.uint(3, 1);
      b.f32(1.5);
      b.f64(-2.25);
    });
    const b = bits(data);
    b.uint(3);
    assert.equal(b.f32(), 1.5);
    assert.equal(b.f64(), -2.25);
    const nan = body((b) => {
      b.uint(3, 0);
      b.uint(32, 0x7fc00000);
    });
    const r = bits(nan);
    r.uint(3);
    assertDecodeFault(() => r.f32(), "non_finite", { offset: 0, bit: 3 });
    assertEncodeFault(() => new BitWriter().f32(1e39), "non_finite");
    assertEncodeFault(() => new BitWriter().f64(Number.NEGATIVE_INFINITY), "non_finite");
  });

  it("count bits from the start of the frame in their errors", () => {
    // A body starting at byte 2: 3 bits read, then a set padding bit at bit 3 of the body.
    const data = bytes(0xaa, 0xbb, 0x09);
    const b = bits(data, 2);
    assert.equal(b.bitOffset, 16);
    assert.equal(b.uint(3), 1);
    assertDecodeFault(() => b.finish(), "reserved_bit", { offset: 2, bit: 19 });
    const short = bits(data, 2);
    assertDecodeFault(() => short.uint(9), "truncated", { offset: 3, bit: 24 });
  });

  it("check a count of elements against the bits that remain", () => {
    // WIRE-13.
    const b = bits(bytes(0, 0));
    b.uint(4);
    assert.equal(b.count(4, 3), 4);
    assertDecodeFault(() => b.count(5, 3), "count_too_large", { offset: 0, bit: 4 });
  });

  it("sit inside a byte frame: the reader moves past the body and its padding", () => {
    // WIRE-18.
    const r = new Reader(bytes(0x01, 0x35, 0x02, 0x03));
    assert.equal(r.uint(1), 1);
    assert.deepEqual(
      r.packed((b) => [b.uint(4), b.uint(8)]),
      [5, 0x23],
    );
    assert.equal(r.offset, 3);
    assert.equal(r.uint(1), 3);
    r.finish();
    const padded = new Reader(bytes(0x01, 0x35, 0x12));
    padded.uint(1);
    assertDecodeFault(() => padded.packed((b) => [b.uint(4), b.uint(8)]), "reserved_bit", {
      offset: 2,
      bit: 20,
    });
  });

  it("are written inside a byte frame, padded to a byte with zeros", () => {
    const w = new Writer();
    w.uint(1, 1);
    w.packed(
      (b, v: readonly number[]) => {
        b.uint(4, v[0] ?? 0);
        b.uint(8, v[1] ?? 0);
      },
      [5, 0x23],
    );
    w.uint(1, 3);
    assert.deepEqual(w.finish(), bytes(0x01, 0x35, 0x02, 0x03));
  });
});

/** Bits 0, 3 and 5 named, B and C requiring A; every other bit reserved. */
const F = { A: 0x1, B: 0x8, C: 0x20 } as const;
const FLAGS: BitSet = {
  width: 8,
  names: [
    ["A", F.A],
    ["B", F.B],
    ["C", F.C],
  ],
  known: 0x29,
  guard: 0xd6 | F.B | F.C,
  requires: [[F.B | F.C, F.A]],
};

/** A 64-bit set written most significant byte first. */
const W = { LOW: 0x1n, HIGH: 0x8000000000000000n } as const;
const WIDE: BitSet<bigint> = {
  width: 64,
  names: [
    ["LOW", W.LOW],
    ["HIGH", W.HIGH],
  ],
  known: 0x8000000000000001n,
  guard: 0x7ffffffffffffffen,
  requires: [],
  bigEndian: true,
};

/** A 32-bit set with bit 31 named: `&` of numbers makes it negative, which must not matter. */
const TOP = { LOW: 0x1, TOP: 0x80000000 } as const;
const TOP_SET: BitSet = {
  width: 32,
  names: [
    ["LOW", TOP.LOW],
    ["TOP", TOP.TOP],
  ],
  known: 0x80000001,
  guard: 0xffffffff,
  requires: [[TOP.TOP, TOP.LOW]],
};

describe("bit sets", () => {
  it("read as the integer of their bits", () => {
    assert.equal(new Reader(bytes(0x09)).bits(FLAGS), F.A | F.B);
    assert.equal(new Reader(bytes(0x01)).bits(FLAGS), F.A);
    assert.equal(new Reader(bytes(0x00)).bits(FLAGS), 0);
    const wide = bytes(0x80, 0, 0, 0, 0, 0, 0, 0x01);
    assert.equal(new Reader(wide).bits(WIDE), W.LOW | W.HIGH);
    assert.equal(new Reader(bytes(0x80, 0, 0, 0, 0, 0, 0, 0)).bits(WIDE), W.HIGH);
    assert.equal(new Reader(bytes(0x01, 0, 0, 0x80)).bits(TOP_SET), 0x80000001);
  });

  it("refuse a reserved bit before a broken requirement", () => {
    // WIRE-12.
    const r = new Reader(bytes(0x00, 0x02));
    r.uint(1);
    assertDecodeFault(() => r.bits(FLAGS), "reserved_bit", { offset: 1 });
    assertDecodeFault(() => new Reader(bytes(0x0a)).bits(FLAGS), "reserved_bit", { offset: 0 });
    assertDecodeFault(() => new Reader(bytes(0x08)).bits(FLAGS), "invalid_condition", {
      offset: 0,
    });
    assertDecodeFault(() => new Reader(bytes(0x20)).bits(FLAGS), "invalid_condition", {
      offset: 0,
    });
    const reserved = bytes(0, 0, 0, 0, 0, 0, 0x01, 0);
    assertDecodeFault(() => new Reader(reserved).bits(WIDE), "reserved_bit", { offset: 0 });
    const top = bytes(0, 0, 0, 0x80);
    assertDecodeFault(() => new Reader(top).bits(TOP_SET), "invalid_condition", { offset: 0 });
  });

  it("write their bits", () => {
    const w = new Writer();
    w.bits(FLAGS, F.B | F.A);
    w.bits(WIDE, W.HIGH | W.LOW);
    w.bits(TOP_SET, TOP.TOP + TOP.LOW);
    assert.deepEqual(w.finish(), bytes(0x09, 0x80, 0, 0, 0, 0, 0, 0, 0x01, 0x01, 0, 0, 0x80));
  });

  it("refuse to write what their reader refuses, and a value wider than the set", () => {
    const w = new Writer();
    assertEncodeFault(() => w.bits(FLAGS, F.B), "invalid_condition");
    assertEncodeFault(() => w.bits(FLAGS, F.A | 0x2), "reserved_bit");
    assertEncodeFault(() => w.bits(FLAGS, 0x100), "over_width");
    assertEncodeFault(() => w.bits(FLAGS, -1), "over_width");
    assertEncodeFault(() => w.bits(FLAGS, 0.5), "over_width");
    assertEncodeFault(() => w.bits(WIDE, 1n << 64n), "over_width");
    assertEncodeFault(() => w.bits(TOP_SET, TOP.TOP), "invalid_condition");
    assert.equal(w.length, 0);
  });

  it("take their width in a bit stream", () => {
    const small: BitSet = {
      width: 3,
      names: [
        ["X", 0x1],
        ["Y", 0x4],
      ],
      known: 0x5,
      guard: 0x2,
      requires: [],
    };
    const data = body((b) => {
      b.bits(small, 0x4);
      b.bits(WIDE, W.HIGH);
    });
    assert.equal(data.length, 9);
    const b = bits(data);
    assert.equal(b.bits(small), 0x4);
    assert.equal(b.bits(WIDE), W.HIGH);
    assertDecodeFault(() => bits(bytes(0x02)).bits(small), "reserved_bit", { offset: 0, bit: 0 });
    assertEncodeFault(() => new BitWriter().bits(small, 0x8), "over_width");
    assertEncodeFault(() => new BitWriter().bits(small, 0x2), "reserved_bit");
  });

  it("name their bits in declaration order in the JSON form, and back", () => {
    // WIRE-28.
    assert.deepEqual(bitSetNames(FLAGS, F.C | F.A), ["A", "C"]);
    assert.deepEqual(bitSetNames(WIDE, W.HIGH), ["HIGH"]);
    assert.deepEqual(bitSetNames(TOP_SET, 0x80000001), ["LOW", "TOP"]);
    assert.equal(bitSetValue(FLAGS, ["C", "A", "A"]), F.A | F.C);
    assert.equal(bitSetValue(WIDE, ["HIGH", "LOW"]), W.HIGH | W.LOW);
    assert.equal(bitSetValue(TOP_SET, ["TOP"]), 0x80000000);
  });
});
