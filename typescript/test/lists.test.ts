// Lists: counts checked before reading, element indices in paths, ascending lists as deltas.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  Ascending,
  ascending,
  ascendingVarintsLen,
  ascendingWriter,
  BigAscending,
  bigAscending,
  bigAscendingVarintsLen,
  bigAscendingWriter,
  keyed,
  keyedWriter,
  Reader,
  readList,
  sumOf,
  Writer,
  writeList,
} from "../src/index.js";
import { assertDecodeFault, assertEncodeFault, bytes } from "./faults.js";

describe("counted lists", () => {
  it("read as many elements as counted", () => {
    const r = new Reader(bytes(3, 10, 20, 30));
    assert.deepEqual(
      readList(r, r.varint(64), 1, (r) => r.uint(1)),
      [10, 20, 30],
    );
    r.finish();
  });

  it("refuse a count whose elements cannot fit before reading any", () => {
    // WIRE-13, WIRE-24.
    const r = new Reader(bytes(3, 0x10, 0x20, 0x30, 0x40, 0x50));
    const n = r.varint(64);
    let calls = 0;
    assertDecodeFault(
      () =>
        readList(r, n, 2, (r) => {
          calls += 1;
          return r.uint(2);
        }),
      "count_too_large",
      { offset: 1, path: "" },
    );
    assert.equal(calls, 0);
  });

  it("write every element, and sum their lengths", () => {
    const w = new Writer();
    writeList(w, [1, 2, 3], (w, v) => w.uint(2, v));
    assert.deepEqual(w.finish(), bytes(1, 0, 2, 0, 3, 0));
    assert.equal(
      sumOf([1, 200, 70000], (v) => (v < 128 ? 1 : v < 16384 ? 2 : 3)),
      6,
    );
  });
});

describe("ascending lists", () => {
  it("carry the first value absolute and each later one as its difference", () => {
    // WIRE-14.
    const w = new Writer();
    writeList(
      w,
      [5, 8, 300],
      ascendingWriter((w, d) => w.varint(64, d)),
    );
    const out = w.finish();
    assert.deepEqual(out, bytes(5, 3, 0xa4, 0x02));
    assert.equal(ascendingVarintsLen([5, 8, 300]), out.length);
    const r = new Reader(out);
    assert.deepEqual(
      readList(
        r,
        3,
        1,
        ascending(16, (r) => r.varint(16)),
      ),
      [5, 8, 300],
    );
  });

  it("refuse a difference of 0 as not_ascending where the element begins", () => {
    // WIRE-14.
    const r = new Reader(bytes(7, 1, 0));
    assertDecodeFault(
      () =>
        readList(
          r,
          3,
          1,
          ascending(16, (r) => r.varint(16)),
        ),
      "not_ascending",
      { offset: 2, path: "[2]" },
    );
  });

  it("refuse a running value beyond the element's width as over_width", () => {
    // WIRE-14.
    const r = new Reader(bytes(200, 100));
    assertDecodeFault(
      () =>
        readList(
          r,
          2,
          1,
          ascending(8, (r) => r.uint(1)),
        ),
      "over_width",
      { offset: 1, path: "[1]" },
    );
    const prev = new Ascending(8);
    const w = new Writer();
    assertEncodeFault(() => prev.write(w, 256, (w, d) => w.varint(64, d)), "over_width");
  });

  it("refuse to write a list that does not ascend", () => {
    // WIRE-14.
    for (const values of [
      [5, 5],
      [5, 4],
    ]) {
      const w = new Writer();
      assertEncodeFault(
        () =>
          writeList(
            w,
            values,
            ascendingWriter((w, d) => w.varint(64, d)),
          ),
        "not_ascending",
        "[1]",
      );
    }
  });

  it("do the same with bigints beyond 53 bits", () => {
    const values = [2n ** 60n, 2n ** 60n + 1n, 2n ** 64n - 1n];
    const w = new Writer();
    writeList(
      w,
      values,
      bigAscendingWriter((w, d) => w.bigVarint(64, d)),
    );
    const out = w.finish();
    assert.equal(bigAscendingVarintsLen(values), out.length);
    const r = new Reader(out);
    assert.deepEqual(
      readList(
        r,
        3,
        1,
        bigAscending(64, (r) => r.bigVarint(64)),
      ),
      values,
    );
    r.finish();
    const again = new Reader(bytes(1, 0));
    assertDecodeFault(
      () =>
        readList(
          again,
          2,
          1,
          bigAscending(64, (r) => r.bigVarint(64)),
        ),
      "not_ascending",
      { offset: 1, path: "[1]" },
    );
    const narrow = new BigAscending(4);
    assertDecodeFault(
      () => narrow.read(new Reader(bytes(16)), (r) => r.bigVarint(64)),
      "over_width",
      { offset: 0 },
    );
  });

  it("step to the difference an element is written as", () => {
    const prev = new Ascending(32);
    assert.deepEqual(
      [10, 15, 15, 40].map((v) => prev.step(v)),
      [10, 5, 15, 25],
    );
  });
});

describe("lists ascending by a key", () => {
  it("hand the same running key to every element", () => {
    const seen: number[] = [];
    const read = keyed(new Ascending(16), (r: Reader, prev: Ascending) =>
      prev.read(r, (r) => r.uint(1)),
    );
    const r = new Reader(bytes(4, 1, 2));
    for (let i = 0; i < 3; i++) {
      seen.push(read(r));
    }
    assert.deepEqual(seen, [4, 5, 7]);
    const w = new Writer();
    const write = keyedWriter(new Ascending(16), (w, v: number, prev) =>
      prev.write(w, v, (w, d) => w.uint(1, d)),
    );
    for (const v of seen) {
      write(w, v);
    }
    assert.deepEqual(w.finish(), bytes(4, 1, 2));
  });
  it("take a difference read in place, as the generated readers do", () => {
    const prev = new Ascending(8);
    const r = new Reader(bytes(250, 3, 0, 9));
    assert.equal(prev.next(r, r.offset, r.uint(1)), 250);
    assert.equal(prev.next(r, r.offset, r.uint(1)), 253);
    assertDecodeFault(() => prev.next(r, r.offset, r.uint(1)), "not_ascending", { offset: 2 });
    assertDecodeFault(() => prev.next(r, r.offset, r.uint(1)), "over_width", { offset: 3 });
    const big = new BigAscending(64);
    const b = new Reader(bytes(5, 0));
    assert.equal(big.next(b, b.offset, b.bigVarint(64)), 5n);
    assertDecodeFault(() => big.next(b, b.offset, b.bigVarint(64)), "not_ascending", {
      offset: 1,
    });
  });
});
