// The adaptive binary range coder (src/range.ts) held to the Rust one's cases,
// vectors/coder/range_coder_cases.txt (written from rt/src/range.rs by
// `ACKWIRE_WRITE_CASES=1 cargo test -p ackwire-rt --lib range`): every `ok` case encodes to its
// bytes and decodes back to its values, every `err` case is refused with its kind at its
// offset. Then what the cases leave to the API: probabilities that never reach either end,
// values wider than their field, seeded round trips and hostile streams (refused, or the one
// stream the encoder writes for what was read), the stream's offset in errors.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  BitTree,
  DecodeError,
  fromHex,
  Prob,
  RangeDecoder,
  RangeEncoder,
  toHex,
  TREE_SLOTS,
} from "../src/index.js";
import { assertDecodeFault, assertEncodeFault } from "./faults.js";

/** One op of a case: `aC=B`, `sC=B` or `tC:W=V` (the value left out in `err` cases). */
interface Op {
  kind: "a" | "s" | "t";
  context: number;
  width: number;
  value: bigint;
}

function parseOp(text: string): Op {
  const [head, value] = text.split("=") as [string, string | undefined];
  const kind = head[0] as Op["kind"];
  const [context, width] = head.slice(1).split(":");
  return {
    kind,
    context: Number(context),
    width: width === undefined ? 1 : Number(width),
    value: value === undefined ? 0n : BigInt(value),
  };
}

/**
 * The contexts' probabilities, and a tree per context, made when it is first used with every
 * slot at its context's probability as it is then (as rt/src/range/tests.rs's model does).
 */
class Model {
  readonly probs: Prob[];
  private readonly trees = new Map<number, BitTree>();

  constructor(starts: readonly number[]) {
    this.probs = starts.map((p) => Prob.of(p)!);
  }

  tree(c: number): BitTree {
    let t = this.trees.get(c);
    if (t === undefined) {
      t = new BitTree(this.probs[c]!);
      this.trees.set(c, t);
    }
    return t;
  }
}

function encode(starts: readonly number[], ops: readonly Op[]): Uint8Array {
  const m = new Model(starts);
  const e = new RangeEncoder();
  for (const op of ops) {
    const p = m.probs[op.context]!;
    if (op.kind === "a") {
      e.bit(p, op.value === 1n);
    } else if (op.kind === "s") {
      e.bitStatic(p, op.value === 1n);
    } else if (op.width <= 53) {
      e.bits(m.tree(op.context), op.width, Number(op.value));
    } else {
      e.bigBits(m.tree(op.context), op.width, op.value);
    }
  }
  return e.finish();
}

/** The values of `shape` read from `bytes`, the stream then finished. */
function decode(starts: readonly number[], shape: readonly Op[], bytes: Uint8Array): Op[] {
  const m = new Model(starts);
  const d = new RangeDecoder(bytes, 0);
  const out = shape.map((op) => {
    const p = m.probs[op.context]!;
    let value: bigint;
    if (op.kind === "a") {
      value = d.bit(p) ? 1n : 0n;
    } else if (op.kind === "s") {
      value = d.bitStatic(p) ? 1n : 0n;
    } else if (op.width <= 53) {
      value = BigInt(d.bits(m.tree(op.context), op.width));
    } else {
      value = d.bigBits(m.tree(op.context), op.width);
    }
    return { ...op, value };
  });
  d.finish();
  return out;
}

describe("the range coder's cases (vectors/coder/range_coder_cases.txt)", () => {
  const text = readFileSync(
    new URL("../../../vectors/coder/range_coder_cases.txt", import.meta.url),
    "utf8",
  );
  const lines = text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));

  it("has the cases", () => {
    assert.ok(lines.length >= 30, `${lines.length} cases`);
  });

  for (const line of lines) {
    const f = line.split(" ");
    const name = f[1]!;
    const starts = f[2]!.split(",").map(Number);
    const ops = f[3] === "-" ? [] : f[3]!.split(",").map(parseOp);
    const bytes = f[4] === "-" ? new Uint8Array(0) : fromHex(f[4]!);
    if (f[0] === "ok") {
      it(`${name}: encodes to its bytes and decodes to its values`, () => {
        assert.equal(toHex(encode(starts, ops)), toHex(bytes));
        assert.deepEqual(decode(starts, ops, bytes), ops);
      });
    } else {
      it(`${name}: is refused with ${f[5]} at byte ${f[6]}`, () => {
        assert.equal(f[0], "err");
        assertDecodeFault(() => decode(starts, ops, bytes), f[5] as DecodeError["kind"], {
          offset: Number(f[6]),
        });
      });
    }
  }
});

describe("the range coder", () => {
  it("keeps a probability within 1 to 4095 however long it adapts", () => {
    for (const start of [1, 2, 15, 16, 17, 2048, 4079, 4080, 4094, 4095]) {
      for (const bit of [false, true]) {
        const p = Prob.of(start)!;
        for (let i = 0; i < 1000; i++) {
          p.adapt(bit);
          assert.ok(Prob.of(p.get()) !== undefined, `${start} ${bit}: ${p.get()}`);
        }
      }
    }
    assert.equal(Prob.of(0), undefined);
    assert.equal(Prob.of(4096), undefined);
    assert.equal(Prob.of(2.5), undefined);
    assert.equal(Prob.of(4095)!.get(), Prob.MAX.get());
    assert.equal(Prob.of(1)!.get(), Prob.MIN.get());
    assert.equal(Prob.HALF.get(), 2048);
  });

  it("refuses a value wider than its field, and a field over 64 bits", () => {
    const e = new RangeEncoder();
    const t = new BitTree(Prob.HALF);
    assertEncodeFault(() => e.bits(t, 3, 8), "over_width");
    assertEncodeFault(() => e.bits(t, 3, -1), "over_width");
    assertEncodeFault(() => e.bits(t, 3, 1.5), "over_width");
    assertEncodeFault(() => e.bits(t, 65, 0), "over_width");
    assertEncodeFault(() => e.bigBits(t, 3, 8n), "over_width");
    assertEncodeFault(() => e.bigBits(t, 64, 1n << 64n), "over_width");
    assertEncodeFault(() => e.bigBits(t, 65, 0n), "over_width");
    assert.throws(() => e.bits(t, 54, 0), RangeError);
    e.bits(t, 3, 7);
    e.bigBits(t, 64, (1n << 64n) - 1n);
    assert.equal(BitTree.fromSlots([Prob.HALF, Prob.HALF, Prob.HALF]), undefined);
    const trained = BitTree.fromSlots(Array.from({ length: TREE_SLOTS }, () => Prob.MAX))!;
    assert.equal(trained.slots()[5]!.get(), Prob.MAX.get());
  });

  it("codes a field through bits and bigBits alike", () => {
    const e = new RangeEncoder();
    e.bits(new BitTree(Prob.HALF), 53, 2 ** 53 - 1);
    const big = new RangeEncoder();
    big.bigBits(new BitTree(Prob.HALF), 53, 2n ** 53n - 1n);
    const bytes = e.finish();
    assert.equal(toHex(bytes), toHex(big.finish()));
    const d = new RangeDecoder(bytes, 0);
    assert.equal(d.bits(new BitTree(Prob.HALF), 53), 2 ** 53 - 1);
    assert.equal(d.finish(), bytes.length);
  });

  it("round-trips seeded random cases, and takes hostile bytes as refused or canonical", () => {
    // xorshift32: any fixed sequence will do.
    let s = 0x9e3779b9;
    const below = (n: number) => {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      return (s >>> 0) % n;
    };
    const kinds = ["a", "s", "t"] as const;
    let accepted = 0;
    for (let n = 0; n < 400; n++) {
      const starts = [1 + below(4095), 1 + below(4095), 1 + below(4095)];
      const ops: Op[] = Array.from({ length: below(40) }, () => {
        const kind = kinds[below(3)]!;
        const width = kind === "t" ? below(65) : 1;
        const random = (BigInt(below(2 ** 32)) << 32n) | BigInt(below(2 ** 32));
        const value = kind === "t" ? random & ((1n << BigInt(width)) - 1n) : BigInt(below(2));
        return { kind, context: below(3), width, value };
      });
      const bytes = encode(starts, ops);
      assert.deepEqual(decode(starts, ops, bytes), ops);
      // The stream cut short, lengthened, changed in a byte, or random bytes: read as this
      // case's fields, it is refused at an offset within it, or it is the one stream the
      // encoder writes for what was read.
      const changed = Uint8Array.from(bytes);
      if (changed.length > 0) {
        const at = below(changed.length);
        changed[at] = changed[at]! ^ (1 << below(8));
      }
      const hostile = [
        bytes.subarray(0, Math.max(bytes.length - 1 - below(3), 0)),
        Uint8Array.from([...bytes, below(256)]),
        changed,
        Uint8Array.from({ length: below(24) }, () => below(256)),
      ];
      for (const h of hostile) {
        let back: Op[] | undefined;
        try {
          back = decode(starts, ops, h);
        } catch (e) {
          assert.ok(e instanceof DecodeError, String(e));
          assert.ok(e.offset <= h.length, `${e.offset} past ${h.length}`);
        }
        if (back !== undefined) {
          accepted += 1;
          assert.equal(toHex(encode(starts, back)), toHex(h));
        }
      }
    }
    // Some hostile streams are canonical ones (those the last byte's change leaves canonical).
    assert.ok(accepted > 0);
  });

  it("names the stream's offset within its frame in its errors", () => {
    // The stream starts at byte 10 of its frame.
    assertDecodeFault(() => new RangeDecoder(new Uint8Array(4).fill(0xff), 10), "non_canonical", {
      offset: 14,
    });
    const d = new RangeDecoder(new Uint8Array(0), 10);
    assertDecodeFault(
      () => {
        for (let i = 0; i < 8; i++) {
          d.bitStatic(Prob.MIN);
        }
      },
      "truncated",
      { offset: 10 },
    );
  });
});
