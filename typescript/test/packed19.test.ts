// What packed bodies gained in issue 19: bucket codes (`bucket`, `zbucket`), smallest-three
// quaternions (`quat`) with their canonical rules and float conversions, and ascending lists
// read from bits.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  ascending,
  ascendingBucketsLen,
  ascendingWriter,
  bigAscendingBucketsLen,
  bigBucketLen,
  BitReader,
  BitWriter,
  bucketLen,
  fromJson,
  fromXyzw,
  readList,
  type SmallestThree,
  smallestThreeFault,
  toJson,
  toXyzw,
  writeList,
} from "../src/index.js";
import { assertDecodeFault, assertEncodeFault, bytes } from "./faults.js";

/** The body `write` writes. */
function body(write: (b: BitWriter) => void): Uint8Array {
  const b = new BitWriter();
  write(b);
  return b.finish();
}

/** The first `n` bits of `data`, as 0s and 1s in stream order. */
function bitsOf(data: Uint8Array, n: number): string {
  const b = new BitReader(data, 0);
  let out = "";
  for (let i = 0; i < n; i++) {
    out += b.bool() ? "1" : "0";
  }
  return out;
}

const B048 = [0, 4, 8] as const;

describe("bucket codes", () => {
  it("cost 1, 6 and 10 bits in bucket(0, 4, 8), as LANGUAGE.md counts them", () => {
    assert.equal(bucketLen(B048, 0), 1);
    assert.equal(bucketLen(B048, 1), 6);
    assert.equal(bucketLen(B048, 16), 6);
    assert.equal(bucketLen(B048, 17), 10);
    assert.equal(bucketLen(B048, 272), 10);
  });

  it("write the index in unary, least significant bit first, then the offset in the bucket", () => {
    // WIRE-19.
    assert.deepEqual(
      body((b) => b.bucket(B048, 0)),
      bytes(0x00),
    );
    // 5: bucket 1 (base 1): `1 0`, then 4 in four bits.
    const five = body((b) => b.bucket(B048, 5));
    assert.deepEqual(five, bytes(0x11));
    assert.equal(bitsOf(five, 6), "100010");
    // 17: the last bucket (base 17) has no zero after its ones: `1 1`, then 0 in eight bits.
    assert.deepEqual(
      body((b) => b.bucket(B048, 17)),
      bytes(0x03, 0x00),
    );
    assert.deepEqual(
      body((b) => b.bucket(B048, 272)),
      bytes(0xff, 0x03),
    );
  });

  it("read back every value of bucket(0, 4, 8) and of bucket(1, 3) in sequence", () => {
    for (const widths of [B048, [1, 3]]) {
      const max = widths.reduce((sum, w) => sum + 2 ** w, 0) - 1;
      const values = Array.from({ length: max + 1 }, (_, i) => i);
      const w = new BitWriter();
      let len = 0;
      for (const v of values) {
        w.bucket(widths, v);
        len += bucketLen(widths, v);
      }
      const data = w.finish();
      assert.equal(data.length, Math.ceil(len / 8));
      const b = new BitReader(data, 0);
      assert.deepEqual(
        values.map(() => b.bucket(widths)),
        values,
      );
      assert.equal(b.finish(), data.length);
    }
  });

  it("refuse a value past the last bucket, and anything not an unsigned integer", () => {
    // WIRE-19.
    assertEncodeFault(() => new BitWriter().bucket(B048, 273), "over_width");
    assertEncodeFault(() => new BitWriter().bucket(B048, -1), "over_width");
    assertEncodeFault(() => new BitWriter().bucket(B048, 1.5), "over_width");
    assertEncodeFault(() => new BitWriter().zbucket([2, 5, 9], 275), "over_width");
    assertEncodeFault(() => new BitWriter().bigBucket([64], -1n), "over_width");
  });

  it("read at most k - 1 unary bits: ones only end at the last bucket", () => {
    // `1 1` picks the last bucket of three; the next 8 bits are its value, not more unary.
    const b = new BitReader(bytes(0xff, 0x03), 0);
    assert.equal(b.bucket(B048), 272);
    assert.equal(b.bitOffset, 10);
  });

  it("fail only as truncated, where the input ends", () => {
    // The unary prefix runs out.
    assertDecodeFault(
      () => new BitReader(bytes(0xff), 7).bucket([0, 0, 0, 0, 0, 0, 0, 0, 1]),
      "truncated",
      {
        offset: 1,
        bit: 8,
      },
    );
    // The value runs out: bucket 2 needs 8 bits after `1 1`.
    assertDecodeFault(() => new BitReader(bytes(0x03), 0).bucket(B048), "truncated", {
      offset: 1,
      bit: 8,
    });
  });

  it("zigzag signed values first in zbucket", () => {
    // WIRE-19.
    // -3 zigzags to 5: bucket 1 of zbucket(2, 5, 9) (base 4), `1 0` then 1 in five bits.
    const data = body((b) => b.zbucket([2, 5, 9], -3));
    assert.deepEqual(data, bytes(0x05));
    assert.equal(new BitReader(data, 0).zbucket([2, 5, 9]), -3);
    const w = new BitWriter();
    const values = [0, -1, 1, -2, 2, 17, -18, 273, -274];
    for (const v of values) {
      w.zbucket([2, 5, 9], v);
    }
    const r = new BitReader(w.finish(), 0);
    assert.deepEqual(
      values.map(() => r.zbucket([2, 5, 9])),
      values,
    );
    // 547 is the largest code: 273 zigzags to 546, -274 to 547.
    assertEncodeFault(() => new BitWriter().zbucket([2, 5, 9], 274), "over_width");
  });

  it("carry 64-bit values as bigints, and a width of 0 as no bits", () => {
    const widths = [0, 63];
    const max = (1n << 63n) + 1n - 1n;
    const w = new BitWriter();
    for (const v of [0n, 1n, max]) {
      w.bigBucket(widths, v);
    }
    w.bigZbucket([64], -(1n << 63n));
    w.bigZbucket([64], (1n << 63n) - 1n);
    const data = w.finish();
    assert.equal(
      data.length,
      Math.ceil((bigBucketLen(widths, 0n) + 2 * bigBucketLen(widths, 1n) + 128) / 8),
    );
    const r = new BitReader(data, 0);
    assert.deepEqual(
      [r.bigBucket(widths), r.bigBucket(widths), r.bigBucket(widths)],
      [0n, 1n, max],
    );
    assert.equal(r.bigZbucket([64]), -(1n << 63n));
    assert.equal(r.bigZbucket([64]), (1n << 63n) - 1n);
    assertEncodeFault(() => new BitWriter().bigBucket(widths, max + 1n), "over_width");
  });
});

/** R for `quat(9)`. */
const R9 = 255;

describe("smallest-three quaternions", () => {
  it("are written as largest (2 bits) then the three sent components, 2 + 3B bits", () => {
    // WIRE-20.
    const q: SmallestThree = { largest: 2, rest: [12, -4, 250] };
    const data = body((b) => b.quat(9, q));
    // 2 | 12 << 2 | (512 - 4) << 11 | 250 << 20, in 29 bits.
    assert.deepEqual(data, bytes(0x32, 0xe0, 0xaf, 0x0f));
    const b = new BitReader(data, 0);
    assert.deepEqual(b.quat(9), q);
    assert.equal(b.bitOffset, 29);
  });

  it("refuse -2^(B-1) as over_width and a larger sent component as non_canonical, at the field's bit", () => {
    // WIRE-20.
    // After 3 bits of something else: largest 3, rest [-256, 0, 0].
    const over = body((b) => {
      b.uint(3, 0);
      b.uint(2, 3);
      b.uint(9, 256);
      b.uint(9, 0);
      b.uint(9, 0);
    });
    const r = new BitReader(over, 0);
    r.uint(3);
    assertDecodeFault(() => r.quat(9), "over_width", { offset: 0, bit: 3 });
    // largest 3 (w), x = R: x squared equals D = 2 R^2 - R^2; x comes before w, so it must be
    // strictly smaller (the lowest index wins a tie): x should have been dropped.
    const tie = body((b) => {
      b.uint(9, 0);
      b.uint(2, 3);
      b.int(9, R9);
      b.int(9, 0);
      b.int(9, 0);
    });
    const t = new BitReader(tie, 0);
    t.uint(9);
    assertDecodeFault(() => t.quat(9), "non_canonical", { offset: 1, bit: 9 });
    assertEncodeFault(
      () => new BitWriter().quat(9, { largest: 3, rest: [R9, 0, 0] }),
      "non_canonical",
    );
    assertEncodeFault(
      () => new BitWriter().quat(9, { largest: 3, rest: [-256, 0, 0] }),
      "over_width",
    );
    assertEncodeFault(() => new BitWriter().quat(9, { largest: 4, rest: [0, 0, 0] }), "over_width");
    assertDecodeFault(() => new BitReader(bytes(0, 0, 0, 0), 1).quat(9), "truncated", {
      offset: 4,
      bit: 32,
    });
  });

  it("accept a tie with a component after the dropped one, refuse one before it", () => {
    // WIRE-20.
    // x = w = R: dropping x (index 0) leaves w = R after it: canonical.
    assert.equal(smallestThreeFault({ largest: 0, rest: [0, 0, R9] }, 9), undefined);
    // dropping w leaves x = R before it: not canonical.
    assert.equal(smallestThreeFault({ largest: 3, rest: [R9, 0, 0] }, 9), "non_canonical");
    // Three sent components whose squares sum past 2 R^2: nothing was dropped that could be
    // the largest.
    assert.equal(smallestThreeFault({ largest: 1, rest: [200, 200, 200] }, 9), "non_canonical");
    assert.equal(smallestThreeFault({ largest: 1, rest: [100, -100, 100] }, 9), undefined);
  });

  it("agree, at 2 bits a component, with dropping the largest magnitude, lowest on a tie", () => {
    // R = 1: every value, judged by the definition on the squares (the dropped one squared
    // is D in the same units).
    let canonical = 0;
    for (let largest = 0; largest < 4; largest++) {
      for (const a of [-2, -1, 0, 1])
        for (const b of [-2, -1, 0, 1])
          for (const c of [-2, -1, 0, 1]) {
            const s: SmallestThree = { largest, rest: [a, b, c] };
            const fault = smallestThreeFault(s, 2);
            if ([a, b, c].includes(-2)) {
              assert.equal(fault, "over_width");
              continue;
            }
            const d = 2 - (a * a + b * b + c * c);
            const squares = [a * a, b * b, c * c];
            squares.splice(largest, 0, d);
            let first = 0;
            for (let i = 1; i < 4; i++) {
              if (squares[i]! > squares[first]!) {
                first = i;
              }
            }
            assert.equal(fault === undefined, first === largest, JSON.stringify(s));
            canonical += fault === undefined ? 1 : 0;
          }
    }
    assert.ok(canonical > 0);
  });

  it("come from four floats as every runtime makes them", () => {
    assert.deepEqual(fromXyzw([0, 0, 0, 1], 9), { largest: 3, rest: [0, 0, 0] });
    assert.deepEqual(fromXyzw([0, 0, 0, -1], 9), { largest: 3, rest: [0, 0, 0] });
    assert.deepEqual(fromXyzw([0, 0, 0, 0], 9), { largest: 3, rest: [0, 0, 0] });
    assert.deepEqual(fromXyzw([NaN, 0, 0, 1], 9), { largest: 3, rest: [0, 0, 0] });
    assert.deepEqual(fromXyzw([Infinity, 0, 0, 1], 9), { largest: 3, rest: [0, 0, 0] });
    // Not normalised: scaled first. The largest is negative: all four negated.
    assert.deepEqual(fromXyzw([0, -2, 0, 0], 9), { largest: 1, rest: [0, 0, 0] });
    // A tie of x and w: the lowest index is dropped; w = 1/sqrt 2 is R steps.
    assert.deepEqual(fromXyzw([Math.SQRT1_2, 0, 0, Math.SQRT1_2], 9), {
      largest: 0,
      rest: [0, 0, R9],
    });
    assert.deepEqual(fromXyzw([-0.5, 0.5, -0.5, 0.5], 9), {
      largest: 0,
      rest: [-180, 180, -180],
    });
  });

  it("agree with the values rt/src/quat.rs works by hand from LANGUAGE.md's steps", () => {
    assert.deepEqual(fromXyzw([0.5, 0.5, 0.5, 0.5], 9), { largest: 0, rest: [180, 180, 180] });
    assert.deepEqual(fromXyzw([0, 0, 0.6, 0.8], 9), { largest: 3, rest: [0, 0, 216] });
    assert.deepEqual(fromXyzw([0, -0.8, 0.6, 0], 9), { largest: 1, rest: [0, -216, 0] });
    // 23170 each breaks rule 3 at 16 bits (D = 536805878 < 23170^2): the lowest steps once.
    assert.deepEqual(fromXyzw([0.5, 0.5, 0.5, 0.5], 16), {
      largest: 0,
      rest: [23169, 23170, 23170],
    });
    assert.equal(
      smallestThreeFault({ largest: 0, rest: [23170, 23170, 23170] }, 16),
      "non_canonical",
    );
  });

  it("always pass the rules, and come back within a step of the rotation", () => {
    let seed = 0x9e3779b9;
    const random = () => {
      // xorshift32: deterministic, so that a failure repeats.
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    for (const bits of [2, 5, 9, 12, 16]) {
      const r = 2 ** (bits - 1) - 1;
      for (let n = 0; n < 2000; n++) {
        const q = [random() * 2 - 1, random() * 2 - 1, random() * 2 - 1, random() * 2 - 1] as [
          number,
          number,
          number,
          number,
        ];
        const s = fromXyzw(q, bits);
        assert.equal(smallestThreeFault(s, bits), undefined, `${JSON.stringify(q)} ${bits}`);
        const back = toXyzw(s, bits);
        const norm = Math.hypot(...q);
        // The same rotation: q or -q, each component within about a step (1/(sqrt 2 R)),
        // the dropped one within what the others' errors make of it.
        const dot = back.reduce((sum, v, i) => sum + v * (q[i]! / norm), 0);
        assert.ok(Math.abs(dot) > 1 - 4 / (r * r) - 1e-6, `${JSON.stringify(q)} ${bits} ${dot}`);
        // The integers survive the floats when no component ties with the dropped one.
        const again = fromXyzw(back, bits);
        if (bits >= 5) {
          assert.deepEqual(again, s, `${JSON.stringify(s)} ${bits}`);
        }
      }
    }
  });

  it("are what the Rust runtime makes of the same floats, bit for bit", () => {
    // vectors/quat/smallest_three_cases.txt, written from rt/src/quat.rs by
    // rt/tests/smallest_three_cases.rs.
    const text = readFileSync(
      new URL("../../../vectors/quat/smallest_three_cases.txt", import.meta.url),
      "utf8",
    );
    const view = new DataView(new ArrayBuffer(4));
    const single = (hex: string) => {
      view.setUint32(0, parseInt(hex, 16));
      return view.getFloat32(0);
    };
    const bitsOf = (v: number) => {
      view.setFloat32(0, v);
      return view.getUint32(0).toString(16).padStart(8, "0");
    };
    let cases = 0;
    for (const line of text.split("\n")) {
      if (line === "" || line.startsWith("#")) {
        continue;
      }
      const f = line.split(" ");
      const bits = Number(f[0]);
      const q = [single(f[1]!), single(f[2]!), single(f[3]!), single(f[4]!)] as const;
      const s = fromXyzw(q, bits);
      assert.deepEqual(
        s,
        { largest: Number(f[5]), rest: [Number(f[6]), Number(f[7]), Number(f[8])] },
        line,
      );
      assert.deepEqual(toXyzw(s, bits).map(bitsOf), f.slice(9, 13), line);
      cases++;
    }
    assert.ok(cases > 1000, `${cases} cases`);
  });

  it("turn into floats rounded to singles", () => {
    const back = toXyzw({ largest: 2, rest: [12, -4, 250] }, 9);
    const f = Math.SQRT1_2 / R9;
    const sent = [12 * f, -4 * f, 250 * f];
    assert.deepEqual(back, [
      Math.fround(sent[0]!),
      Math.fround(sent[1]!),
      Math.fround(Math.sqrt(1 - (sent[0]! ** 2 + sent[1]! ** 2 + sent[2]! ** 2))),
      Math.fround(sent[2]!),
    ]);
  });

  it("have a JSON form of their integers, read strictly", () => {
    const q: SmallestThree = { largest: 2, rest: [12, -4, 255] };
    assert.deepEqual(toJson("quat", q), { largest: 2, rest: [12, -4, 255] });
    assert.deepEqual(fromJson("quat", { largest: 2, rest: [12, -4, 255] }), q);
    assert.throws(() => fromJson("quat", { largest: 2, rest: [1, 2] }), /three integers/);
    assert.throws(() => fromJson("quat", { largest: 2, rest: [1, 2, 40000] }), /outside/);
    assert.throws(() => fromJson("quat", { largest: 256, rest: [1, 2, 3] }), /outside/);
    assert.throws(() => fromJson("quat", { rest: [1, 2, 3] }), /missing field `largest`/);
    assert.throws(
      () => fromJson("quat", { largest: 0, rest: [1, 2, 3], w: 1 }),
      /unknown field `w`/,
    );
  });
});

describe("ascending lists of bits", () => {
  it("carry bucket differences, and refuse a difference of 0 at the element's bit", () => {
    const values = [3, 4, 20, 272];
    const w = new BitWriter();
    writeList(
      w,
      values,
      ascendingWriter((w, d) => w.bucket(B048, d)),
    );
    const data = w.finish();
    // 3 (6 bits), 1 (6), 16 (6), 252 (10).
    assert.equal(ascendingBucketsLen(B048, values), 28);
    assert.equal(bigAscendingBucketsLen(B048, values.map(BigInt)), 28);
    assert.equal(data.length, 4);
    const b = new BitReader(data, 0);
    assert.deepEqual(
      readList(
        b,
        4,
        1,
        ascending(9, (b: BitReader) => b.bucket(B048), 272),
      ),
      values,
    );
    // 3, then a difference of 0 (one bit, at bit 6).
    const zero = body((b) => {
      b.bucket(B048, 3);
      b.bucket(B048, 0);
    });
    assertDecodeFault(
      () =>
        readList(
          new BitReader(zero, 0),
          2,
          1,
          ascending(9, (b: BitReader) => b.bucket(B048), 272),
        ),
      "not_ascending",
      { offset: 0, bit: 6, path: "[1]" },
    );
    // 272 then 1: past the largest value of the bucket.
    const past = body((b) => {
      b.bucket(B048, 272);
      b.bucket(B048, 1);
    });
    assertDecodeFault(
      () =>
        readList(
          new BitReader(past, 0),
          2,
          1,
          ascending(9, (b: BitReader) => b.bucket(B048), 272),
        ),
      "over_width",
      { offset: 1, bit: 10, path: "[1]" },
    );
    assertEncodeFault(
      () =>
        writeList(
          new BitWriter(),
          [5, 5],
          ascendingWriter((w: BitWriter, d) => w.bucket(B048, d)),
        ),
      "not_ascending",
      "[1]",
    );
    // 300 is 28 past 272, within a bucket as a difference but not as an element.
    assertEncodeFault(
      () =>
        writeList(
          new BitWriter(),
          [5, 300],
          ascendingWriter((w: BitWriter, d) => w.bucket(B048, d), 272),
        ),
      "over_width",
      "[1]",
    );
  });
});
