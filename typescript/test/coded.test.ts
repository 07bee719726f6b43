// The coded values of kind 13's body (src/coded.ts) held to the Rust runtime's cases,
// vectors/coder/coded_cases.txt (written from rt/src/coded.rs by
// `ACKWIRE_WRITE_CASES=1 cargo test -p ackwire-rt --lib coded`): every `ok` case encodes to its
// bytes and decodes back to its values (through numbers where they fit, and through bigints
// throughout), every `err` case is refused with its kind at its offset, every `train` case
// trains its probabilities and every `extrapolate` case rounds as Rust does. Then what the
// cases leave to the API: the slot counts of CODE-8, values refused before they are coded,
// seeded round trips and hostile bodies (refused, or the one body the encoder writes for what
// was read), and the body's offset in errors.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  bigExtrapolate,
  CodedDecoder,
  CodedEncoder,
  type CodedSink,
  DecodeError,
  extrapolate,
  floorLen,
  fromHex,
  modelSlots,
  NoBasis,
  Prob,
  Reader,
  SlotCounts,
  toHex,
  Writer,
} from "../src/index.js";
import { assertDecodeFault, assertEncodeFault, bytes } from "./faults.js";

/** One value of a case: `uAT:W=V` or `iAT:W=V` (the value left out in `err` cases). */
interface Val {
  signed: boolean;
  at: number;
  w: number;
  v: bigint;
}

function parseVal(text: string): Val {
  const [head, value] = text.split("=") as [string, string | undefined];
  const [at, w] = head.slice(1).split(":");
  return { signed: head[0] === "i", at: Number(at), w: Number(w), v: BigInt(value ?? "0") };
}

function parseList(text: string): Val[] {
  return text === "-" ? [] : text.split(",").map(parseVal);
}

/** A case's tables, `SLOTS:P` then `,S=P` for each slot listed: a fresh set of cells. */
function parseTable(text: string): Prob[] {
  const [head, ...listed] = text.split(",");
  const [slots, flat] = head!.split(":").map(Number);
  const probs = Array.from({ length: slots! }, () => Prob.of(flat!)!);
  for (const l of listed) {
    const [s, p] = l.split("=").map(Number);
    probs[s!] = Prob.of(p!)!;
  }
  return probs;
}

/** Puts `val` into `sink`, through numbers where its model is 53 bits or less unless `big`. */
function put(sink: CodedSink, val: Val, big: boolean): void {
  if (big || val.w > 53) {
    if (val.signed) {
      sink.bigSigned(val.at, val.w, val.v);
    } else {
      sink.bigValue(val.at, val.w, val.v);
    }
  } else if (val.signed) {
    sink.signed(val.at, val.w, Number(val.v));
  } else {
    sink.value(val.at, val.w, Number(val.v));
  }
}

function encode(table: string, count: number, vals: readonly Val[], big = false): Uint8Array {
  const e = new CodedEncoder(parseTable(table));
  for (const val of vals) {
    put(e, val, big);
  }
  const out = new Writer();
  e.finish(count, out);
  return out.finish();
}

/** `shape`'s values read from `body` (the whole input: a byte after the body is refused). */
function decode(
  table: string,
  count: number,
  shape: readonly Val[],
  body: Uint8Array,
  big = false,
): Val[] {
  const r = new Reader(body);
  const d = new CodedDecoder(r, count, parseTable(table));
  const out = shape.map((val) => {
    let v: bigint;
    if (big || val.w > 53) {
      v = val.signed ? d.bigSigned(val.at, val.w) : d.bigValue(val.at, val.w);
    } else {
      v = BigInt(val.signed ? d.signed(val.at, val.w) : d.value(val.at, val.w));
    }
    return { ...val, v };
  });
  d.finish();
  r.finish();
  return out;
}

describe("the coded values' cases (vectors/coder/coded_cases.txt)", () => {
  const text = readFileSync(
    new URL("../../../vectors/coder/coded_cases.txt", import.meta.url),
    "utf8",
  );
  const lines = text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));

  it("has the cases", () => {
    const kinds = (k: string) => lines.filter((l) => l.startsWith(`${k} `)).length;
    assert.ok(kinds("ok") >= 25, `${kinds("ok")} ok cases`);
    assert.ok(kinds("err") >= 15, `${kinds("err")} err cases`);
    assert.ok(kinds("train") >= 3 && kinds("extrapolate") >= 10);
  });

  for (const line of lines) {
    const f = line.split(" ");
    const name = f[1]!;
    if (f[0] === "ok") {
      const [count, table, vals] = [Number(f[2]), f[3]!, parseList(f[4]!)];
      const body = f[5] === "-" ? new Uint8Array(0) : fromHex(f[5]!);
      it(`${name}: encodes to its bytes and decodes to its values`, () => {
        for (const big of [false, true]) {
          assert.equal(toHex(encode(table, count, vals, big)), toHex(body));
          assert.deepEqual(decode(table, count, vals, body, big), vals);
        }
      });
    } else if (f[0] === "err") {
      const [count, table, shape] = [Number(f[2]), f[3]!, parseList(f[4]!)];
      const body = f[5] === "-" ? new Uint8Array(0) : fromHex(f[5]!);
      it(`${name}: is refused with ${f[6]} at byte ${f[7]}`, () => {
        for (const big of [false, true]) {
          assertDecodeFault(
            () => decode(table, count, shape, body, big),
            f[6] as DecodeError["kind"],
            { offset: Number(f[7]) },
          );
        }
      });
    } else if (f[0] === "train") {
      it(`${name}: trains its probabilities`, () => {
        const counts = new SlotCounts(Number(f[2]));
        for (const val of parseList(f[3]!)) {
          put(counts, val, false);
        }
        const probs = counts.probs().map((p) => p.get());
        assert.equal(probs.length === 0 ? "-" : probs.join(","), f[4]);
      });
    } else {
      it(`${name}: extrapolates as Rust does`, () => {
        assert.equal(f[0], "extrapolate");
        const [v, num, den] = [BigInt(f[2]!), Number(f[3]), Number(f[4])];
        assert.equal(bigExtrapolate(v, num, den).toString(), f[5]);
        if (Number.isSafeInteger(Number(v)) && BigInt(Number(v)) === v) {
          const r = BigInt(f[5]!);
          if (Number.isSafeInteger(Number(r))) {
            assert.equal(extrapolate(Number(v), num, den), Number(r));
          }
        }
      });
    }
  }
});

/** CODE-8's count, summed term by term. */
function specSlots(w: number): number {
  let k = 0;
  while (w >= 1 << k) {
    k += 1;
  }
  let n = (1 << k) - 1;
  for (let l = 2; l <= w; l++) {
    const t = Math.min(l - 1, 3);
    n += (1 << t) - 1 + (l - 1 - t);
  }
  return n;
}

/** xorshift32: any fixed sequence will do. */
function rng(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

/** A random value of at most `w` bits, of a bit length drawn evenly. */
function randomValue(below: (n: number) => number, w: number): bigint {
  const l = below(w + 1);
  if (l === 0) {
    return 0n;
  }
  const random = (BigInt(below(2 ** 32)) << 32n) | BigInt(below(2 ** 32));
  return (1n << BigInt(l - 1)) | (random & ((1n << BigInt(l - 1)) - 1n));
}

describe("the coded values", () => {
  it("lay out the slots CODE-8 counts", () => {
    for (let w = 0; w <= 64; w++) {
      assert.equal(modelSlots(w), specSlots(w), `W = ${w}`);
    }
    assert.deepEqual(
      [0, 1, 2, 3, 7, 8, 16, 17, 32, 64].map(modelSlots),
      [0, 1, 4, 7, 45, 64, 204, 224, 676, 2388],
    );
    assert.deepEqual([0, 1, 2, 3, 4, 5, 8, 43690].map(floorLen), [0, 2, 3, 5, 6, 8, 12, 65535]);
  });

  it("refuse a value wider than its model, or a model past the tables, before coding it", () => {
    const e = new CodedEncoder(Array.from({ length: modelSlots(8) }, () => Prob.HALF));
    assertEncodeFault(() => e.value(0, 3, 8), "over_width");
    assertEncodeFault(() => e.value(0, 3, 1.5), "over_width");
    assertEncodeFault(() => e.value(0, 0, 1), "over_width");
    assertEncodeFault(() => e.value(0, 65, 0), "over_width");
    assertEncodeFault(() => e.value(1, 8, 0), "over_width");
    assertEncodeFault(() => e.value(-1, 0, 0), "over_width");
    assertEncodeFault(() => e.bigValue(0, 8, 256n), "over_width");
    assertEncodeFault(() => e.bigValue(0, 8, -1n), "over_width");
    assertEncodeFault(() => e.signed(0, 3, -5), "over_width");
    assertEncodeFault(() => e.signed(0, 8, 0.5), "over_width");
    assertEncodeFault(() => e.bigSigned(0, 8, 1n << 63n), "over_width");
    assert.throws(() => e.value(0, 54, 0), RangeError);
    e.signed(0, 3, -4);
    e.value(64, 0, 0);
    const counts = new SlotCounts(4);
    assertEncodeFault(() => counts.value(0, 3, 0), "over_width");
    assert.deepEqual(counts.counts(), [
      [0, 0],
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
    // A body longer than a u16 counts.
    const out = new Writer();
    assertEncodeFault(() => new CodedEncoder([]).finish(43691, out), "count_too_large");
    assert.equal(out.length, 0);
    new CodedEncoder([]).finish(43690, out);
    assert.equal(out.length, 2 + 65535);
  });

  it("count what the encoder codes, and train by the formula", () => {
    const counts = new SlotCounts(modelSlots(8));
    for (const v of [0, 0, 1, 5, 255]) {
      counts.value(0, 8, v);
    }
    // Each value codes its 4 length bits and the L - 1 below its highest one.
    const total = counts.counts().reduce((n, [c0, c1]) => n + c0 + c1, 0);
    assert.equal(total, 5 * 4 + 0 + 0 + 0 + 2 + 7);
    const more = new SlotCounts(modelSlots(8) + 1);
    more.value(modelSlots(8), 0, 0);
    counts.add(more);
    assert.equal(counts.counts().length, modelSlots(8) + 1);
    const one = new SlotCounts(3);
    one.add(one);
    assert.deepEqual(
      one.probs().map((p) => p.get()),
      [2048, 2048, 2048],
    );
    // One slot (W = 1): a 0 codes a 0 under it, a 1 a 1.
    const train = (zeros: number, ones: number) => {
      const c = new SlotCounts(1);
      for (let i = 0; i < zeros + ones; i++) {
        c.value(0, 1, i < zeros ? 0 : 1);
      }
      return c;
    };
    assert.equal(train(3, 1).probs()[0]!.get(), 2730);
    assert.equal(train(100_000, 0).probs()[0]!.get(), 4064);
    assert.equal(train(0, 100_000).probs()[0]!.get(), 32);
    // Counts past 2^53 / 4096, where the formula's product is no longer exact in a number.
    const big = train(1, 1);
    for (let i = 0; i < 52; i++) {
      big.add(big);
    }
    assert.deepEqual(big.counts(), [[2 ** 52, 2 ** 52]]);
    assert.equal(big.probs()[0]!.get(), 2048);
    const skewed = train(0, 1);
    for (let i = 0; i < 50; i++) {
      skewed.add(skewed);
    }
    skewed.add(train(3, 0));
    // (3 + 1) * 4096 / (3 + 2^50 + 2): 0, clamped to 32.
    assert.equal(skewed.probs()[0]!.get(), 32);
  });

  it("refuse a body under its floor before reading it, and padding that is not zeros", () => {
    const table = "64:2048";
    for (const body of [
      bytes(11, 0, ...new Array<number>(11).fill(0)),
      bytes(0, 0),
      bytes(11, 0),
    ]) {
      assertDecodeFault(() => decode(table, 8, [], body), "count_too_large", { offset: 0 });
    }
    assertDecodeFault(() => decode(table, 8, [], bytes(12, 0)), "truncated", { offset: 2 });
    assertDecodeFault(() => decode(table, 0, [], bytes(0)), "truncated", { offset: 1 });
    // At an offset within the frame.
    const r = new Reader(bytes(1, 2, 3, 1, 0, 0));
    r.take(3);
    assertDecodeFault(() => new CodedDecoder(r, 1, []), "count_too_large", { offset: 3 });
    // A padded body, each of its padding bytes set in turn: refused, never read as values.
    const vals = [200n, 3n].map((v) => ({ signed: false, at: 0, w: 8, v }));
    const body = encode(table, 20, vals);
    assert.equal(body.length, 2 + 30);
    assert.deepEqual(decode(table, 20, vals, body), vals);
    for (let at = 2 + encode(table, 0, vals).length; at < body.length; at++) {
      const bad = Uint8Array.from(body);
      bad[at] = 1;
      assert.throws(() => decode(table, 20, vals, bad), DecodeError);
    }
    const bad = Uint8Array.from(body);
    bad[body.length - 1] = 1;
    assertDecodeFault(() => decode(table, 20, vals, bad), "trailing_bytes", {
      offset: body.length - 1,
    });
  });

  it("refuse slots past the tables and a length over the width, at the stream", () => {
    const r = new Reader(bytes(0, 0));
    const d = new CodedDecoder(
      r,
      0,
      Array.from({ length: 7 }, () => Prob.HALF),
    );
    assertDecodeFault(() => d.value(1, 3), "over_width", { offset: 2 });
    assertDecodeFault(() => d.value(0, 65), "over_width", { offset: 2 });
    assert.throws(() => d.value(0, 54), RangeError);
    assert.equal(d.value(0, 3), 0);
    d.finish();
    const nothing = new NoBasis();
    assert.equal(nothing.base(), undefined);
    assert.equal(nothing.older(), undefined);
  });

  it("round-trip seeded random cases, and take hostile bodies as refused or canonical", () => {
    const below = rng(0x9e3779b9);
    for (let n = 0; n < 300; n++) {
      const models: [number, number][] = [];
      let slots = 0;
      for (let i = 0, m = 1 + below(3); i < m; i++) {
        const w = below(2) === 0 ? 64 : below(65);
        models.push([slots, w]);
        slots += modelSlots(w);
      }
      const table = `${slots}:${1 + below(4095)}`;
      const vals: Val[] = Array.from({ length: below(30) }, () => {
        const [at, w] = models[below(models.length)]!;
        const v = randomValue(below, w);
        const signed = w > 0 && below(3) === 0;
        return { signed, at, w, v: signed ? (v >> 1n) ^ -(v & 1n) : v };
      });
      const count = below(30);
      const body = encode(table, count, vals);
      assert.ok(body.length >= 2 + floorLen(count));
      assert.deepEqual(decode(table, count, vals, body), vals);
      assert.deepEqual(decode(table, count, vals, body, true), vals);
      // The body changed in a byte, cut short, lengthened inside its stream, or random bytes:
      // read as this case's values, it is refused at an offset within it, or it is the one
      // body the encoder writes for what was read.
      const changed = Uint8Array.from(body);
      const at = below(changed.length);
      changed[at] = changed[at]! ^ (1 << below(8));
      const longer = Uint8Array.from([...body, below(256)]);
      new DataView(longer.buffer).setUint16(0, longer.length - 2, true);
      const random = Uint8Array.from({ length: 2 + below(24) }, () => below(256));
      if (below(2) === 0) {
        new DataView(random.buffer).setUint16(0, random.length - 2, true);
      }
      const hostile = [changed, body.subarray(0, below(body.length)), longer, random];
      for (const h of hostile) {
        let back: Val[] | undefined;
        try {
          back = decode(table, count, vals, h);
        } catch (e) {
          assert.ok(e instanceof DecodeError, String(e));
          assert.ok(e.offset <= h.length, `${e.offset} past ${h.length}`);
        }
        if (back !== undefined) {
          assert.equal(toHex(encode(table, count, back)), toHex(h));
        }
      }
    }
  });
});
