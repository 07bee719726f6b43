// LEB128 varints and zigzag: canonical forms only, every fault at the varint's first byte.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bigVarintLen, bigZigzag, Reader, varintLen, Writer, zigzag } from "../src/index.js";
import { assertDecodeFault, assertEncodeFault, bytes } from "./faults.js";

/** Values and their canonical LEB128 bytes, worked out by hand. */
const CANONICAL: readonly (readonly [number, readonly number[]])[] = [
  [0, [0x00]],
  [1, [0x01]],
  [127, [0x7f]],
  [128, [0x80, 0x01]],
  [300, [0xac, 0x02]],
  [16383, [0xff, 0x7f]],
  [16384, [0x80, 0x80, 0x01]],
  [2 ** 32 - 1, [0xff, 0xff, 0xff, 0xff, 0x0f]],
  [2 ** 53 - 1, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f]],
];

function written(write: (w: Writer) => void): Uint8Array {
  const w = new Writer();
  write(w);
  return w.finish();
}

describe("varints", () => {
  it("read and write the canonical bytes of each value", () => {
    // WIRE-2.
    for (const [value, form] of CANONICAL) {
      assert.equal(new Reader(Uint8Array.from(form)).varint(64), value, `reading ${value}`);
      assert.equal(new Reader(Uint8Array.from(form)).bigVarint(64), BigInt(value));
      assert.deepEqual(
        written((w) => w.varint(64, value)),
        Uint8Array.from(form),
      );
      assert.deepEqual(
        written((w) => w.bigVarint(64, BigInt(value))),
        Uint8Array.from(form),
      );
      assert.equal(varintLen(value), form.length, `varintLen(${value})`);
      assert.equal(bigVarintLen(BigInt(value)), form.length);
    }
  });

  it("take ten bytes for the largest 64-bit value, and no more", () => {
    // WIRE-2.
    const max = bytes(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
    assert.equal(new Reader(max).bigVarint(64), 2n ** 64n - 1n);
    assert.deepEqual(
      written((w) => w.bigVarint(64, 2n ** 64n - 1n)),
      max,
    );
    assert.equal(bigVarintLen(2n ** 64n - 1n), 10);
    const top = bytes(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
    assert.equal(new Reader(top).bigVarint(64), 2n ** 63n);
  });

  it("refuse an overlong form as non_canonical_varint at the first byte", () => {
    // WIRE-3.
    for (const form of [
      [0x80, 0x00],
      [0x81, 0x00],
      [0xff, 0x80, 0x00],
    ]) {
      const data = Uint8Array.from([0xaa, ...form]);
      const r = new Reader(data);
      r.uint(1);
      assertDecodeFault(() => r.varint(64), "non_canonical_varint", { offset: 1 });
      const big = new Reader(data);
      big.uint(1);
      assertDecodeFault(() => big.bigVarint(64), "non_canonical_varint", { offset: 1 });
    }
  });

  it("refuse a tenth byte beyond bit 63, and an eleventh byte, as over_width", () => {
    // WIRE-2.
    const nine = new Array<number>(9).fill(0xff);
    for (const form of [
      [...nine, 0x02],
      [...nine, 0x81, 0x00],
      [...nine, 0xff, 0x01],
      new Array<number>(11).fill(0x80),
    ]) {
      const data = Uint8Array.from([0xaa, 0xbb, ...form]);
      const r = new Reader(data);
      r.uint(2);
      assertDecodeFault(() => r.varint(64), "over_width", { offset: 2 });
      const big = new Reader(data);
      big.uint(2);
      assertDecodeFault(() => big.bigVarint(64), "over_width", { offset: 2 });
    }
  });

  it("refuse a value wider than its type as over_width at the first byte", () => {
    // WIRE-4.
    assert.equal(new Reader(bytes(0xff, 0x01)).varint(8), 255);
    assertDecodeFault(() => new Reader(bytes(0x80, 0x02)).varint(8), "over_width", {
      offset: 0,
    });
    const wide = bytes(0x80, 0x80, 0x80, 0x80, 0x10);
    assert.equal(new Reader(wide).varint(33), 2 ** 32);
    assertDecodeFault(() => new Reader(wide).varint(32), "over_width", { offset: 0 });
    assertDecodeFault(() => new Reader(wide).bigVarint(32), "over_width", { offset: 0 });
  });

  it("report a varint cut short as truncated at the end of input", () => {
    assertDecodeFault(() => new Reader(bytes(0x80)).varint(64), "truncated", { offset: 1 });
    assertDecodeFault(() => new Reader(bytes(0xff, 0xff)).bigVarint(64), "truncated", {
      offset: 2,
    });
  });

  it("refuse to write a value their decoder would refuse", () => {
    const w = new Writer();
    assertEncodeFault(() => w.varint(8, 256), "over_width");
    assertEncodeFault(() => w.varint(64, -1), "over_width");
    assertEncodeFault(() => w.varint(64, 1.5), "over_width");
    assertEncodeFault(() => w.varint(64, Number.NaN), "over_width");
    assertEncodeFault(() => w.bigVarint(64, 2n ** 64n), "over_width");
    assertEncodeFault(() => w.bigVarint(16, -1n), "over_width");
    assert.equal(w.length, 0);
  });
});

describe("zigzag", () => {
  /** Signed values and their zigzag numbers: 0, -1, 1, -2, 2, ... */
  const PAIRS: readonly (readonly [number, number])[] = [
    [0, 0],
    [-1, 1],
    [1, 2],
    [-2, 3],
    [2, 4],
    [-64, 127],
    [64, 128],
    [-(2 ** 52), 2 ** 53 - 1],
  ];

  it("maps signed values onto unsigned ones, small magnitudes first", () => {
    // WIRE-5.
    for (const [signed, unsigned] of PAIRS) {
      assert.equal(zigzag(signed), unsigned, `zigzag(${signed})`);
      assert.equal(bigZigzag(BigInt(signed)), BigInt(unsigned));
    }
    assert.equal(bigZigzag(-(2n ** 63n)), 2n ** 64n - 1n);
    assert.equal(bigZigzag(2n ** 63n - 1n), 2n ** 64n - 2n);
  });

  it("reads and writes zigzag varints of a width", () => {
    for (const [signed] of PAIRS) {
      const form = written((w) => w.zigzag(53, signed));
      assert.equal(new Reader(form).zigzag(53), signed);
      assert.equal(new Reader(form).bigZigzag(64), BigInt(signed));
    }
    assert.deepEqual(
      written((w) => w.zigzag(8, -128)),
      bytes(0xff, 0x01),
    );
    assert.equal(new Reader(bytes(0xff, 0x01)).zigzag(8), -128);
    assert.equal(new Reader(bytes(0xfe, 0x01)).zigzag(8), 127);
    const min = bytes(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
    assert.equal(new Reader(min).bigZigzag(64), -(2n ** 63n));
    assert.deepEqual(
      written((w) => w.bigZigzag(64, -(2n ** 63n))),
      min,
    );
  });

  it("refuses a value outside its signed width", () => {
    assertDecodeFault(() => new Reader(bytes(0x80, 0x02)).zigzag(8), "over_width", {
      offset: 0,
    });
    const w = new Writer();
    assertEncodeFault(() => w.zigzag(8, 128), "over_width");
    assertEncodeFault(() => w.zigzag(8, -129), "over_width");
    assertEncodeFault(() => w.bigZigzag(8, 128n), "over_width");
    assertEncodeFault(() => w.zigzag(16, 0.5), "over_width");
  });
});
