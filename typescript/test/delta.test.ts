// The delta machines (`docs/spec/delta.md`) and the digests of DELTA-4 and DELTA-5, against the
// Rust codec's doc and test values (codec/src/digest.rs, codec/src/delta/{ack,mirror,baseline}.rs),
// and the mirror's limit against a hostile server. The machines see a small test schema, not a
// codec.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  AckWindow,
  DeltaBaseline,
  DeltaClient,
  DeltaMirror,
  DeltaServer,
  SlotAllocator,
  type AckFrame,
  type DeltaSchema,
  type PlanFrame,
  compareDigests,
} from "../src/sessions/delta.js";
import { SetDigest, decodeSlotKey, mix64, slotKey } from "../src/sessions/digest.js";
import { SessionError } from "../src/sessions/half.js";

describe("mix64 and SetDigest", () => {
  it("match the values DELTA-4 and DELTA-5 give (codec/src/digest.rs)", () => {
    // DELTA-4, DELTA-5.
    assert.equal(mix64(0n), 0xe220a8397b1dcdafn);
    assert.equal(mix64(1n), 0x910a2dec89025cc1n);
    assert.equal(mix64(2n), 0x975835de1c9756cen);
    assert.equal(mix64(5n), 0x63033b0ca389c35an);
    assert.equal(mix64(BigInt(slotKey(7, 3))), 0xa924d7ebad36b5acn);
    assert.equal(new SetDigest().digest(), 0xe220a8397b1dcdafn);
    assert.equal(SetDigest.fromKeys([5]).digest(), 0xf20916e02a8b9f9bn);
    // The sum overflows u64 and wraps.
    assert.equal(SetDigest.fromKeys([1, 2]).digest(), 0xbf3a5614b90ee541n);
  });
  it("computes on u32 halves exactly what the u64 definition gives, over 20,000 keys", () => {
    // DELTA-4 and DELTA-5 in bigint, step by step, as the reference.
    const M = (1n << 64n) - 1n;
    const reference = (key: bigint): bigint => {
      let x = (key + 0x9e3779b97f4a7c15n) & M;
      x ^= x >> 30n;
      x = (x * 0xbf58476d1ce4e5b9n) & M;
      x ^= x >> 27n;
      x = (x * 0x94d049bb133111ebn) & M;
      return x ^ (x >> 31n);
    };
    let k = 0x243f6a8885a308d3n;
    for (let i = 0; i < 20_000; i++) {
      k = (k * 6364136223846793005n + 1442695040888963407n) & M;
      const key = i % 2 === 0 ? k : k >> 16n;
      assert.equal(mix64(key), reference(key), `mix64(${key})`);
    }
    for (const edge of [0n, 1n, M, M - 0x9e3779b97f4a7c15n, 0xffffffffn, 1n << 32n]) {
      assert.equal(mix64(edge), reference(edge));
    }
    let sum = 0n;
    const d = new SetDigest();
    for (let i = 0; i < 1000; i++) {
      const key = i * 65536 + (i % 7);
      d.insert(key);
      sum = (sum + reference(BigInt(key))) & M;
    }
    assert.equal(d.digest(), sum ^ reference(1000n));
  });
  it("is order independent, and removing undoes inserting exactly", () => {
    // DELTA-5.
    const a = SetDigest.fromKeys([1, 2, 3, 99, 2 ** 40]);
    const b = SetDigest.fromKeys([2 ** 40, 99, 3, 2, 1]);
    assert.equal(a.digest(), b.digest());
    const before = a.digest();
    a.insert(40);
    assert.notEqual(a.digest(), before);
    a.remove(40);
    assert.equal(a.digest(), before);
  });
  it("wraps its count instead of going negative", () => {
    // DELTA-5.
    const d = new SetDigest();
    d.remove(9);
    assert.equal(d.length, 0xffffffff);
    d.insert(9);
    assert.equal(d.digest(), new SetDigest().digest());
  });
  it("packs and splits SlotKeys as (index << 16) | generation", () => {
    // DELTA-3.
    assert.equal(slotKey(7, 3), (7 << 16) | 3);
    assert.equal(slotKey(0xffffffff, 0xffff), 0xffffffffffff);
    assert.deepEqual(decodeSlotKey(0x000100020003), { index: 0x10002, generation: 3 });
  });
  it("is not absurdly slow: 100,000 inserts well under a second", () => {
    const d = new SetDigest();
    const start = Date.now();
    for (let k = 0; k < 100_000; k++) {
      d.insert(k * 65536 + 1);
    }
    const ms = Date.now() - start;
    assert.ok(ms < 1000, `100,000 inserts took ${ms} ms`);
  });
});

describe("AckWindow", () => {
  const window = (seqs: number[]): AckWindow => {
    const w = new AckWindow();
    for (const s of seqs) {
      w.observe(BigInt(s));
    }
    return w;
  };
  it("bit i means newest - 1 - i (DELTA-6)", () => {
    assert.deepEqual(window([10, 9, 7]).encode(), [10n, 0b101n]);
  });
  it("keeps stragglers in their slot and reports each fresh once", () => {
    // DELTA-6.
    const w = new AckWindow();
    assert.ok(w.observe(20n) && w.observe(25n) && w.observe(22n));
    assert.ok(!w.observe(22n) && !w.observe(25n));
    assert.ok(w.contains(22n) && !w.contains(23n) && !w.contains(26n));
  });
  it("a shift of exactly the window keeps the old newest, one more drops it", () => {
    const w = window([0]);
    w.observe(64n);
    assert.ok(w.contains(0n));
    assert.equal(w.mask, 1n << 63n);
    w.observe(65n);
    assert.ok(!w.contains(0n));
    assert.ok(!w.observe(0n));
  });
  it("stops the contiguous base at the first gap", () => {
    // DELTA-7.
    const w = window([1, 2, 3, 5, 6, 7]);
    assert.equal(w.contiguousBase(1n), 3n);
    assert.equal(w.contiguousBase(4n), undefined);
    w.observe(4n);
    assert.equal(w.contiguousBase(1n), 7n);
  });
  it("takes any encoded pair, u64::MAX included", () => {
    const w = AckWindow.fromEncoded((1n << 64n) - 1n, (1n << 64n) - 1n);
    assert.equal(w.contiguousBase(0n), undefined);
    assert.ok(w.contains((1n << 64n) - 2n));
  });
});

const plan = (seq: number, full: boolean, entered: number[], left: number[] = []): PlanFrame => ({
  flags: full ? 1 : 0,
  sequence: BigInt(seq),
  baseline_seq: undefined,
  entered,
  left,
});

describe("DeltaMirror", () => {
  it("replaces on a full baseline and acknowledges a late packet without applying it", () => {
    // DELTA-20, DELTA-21.
    const m = new DeltaMirror();
    const [a, b] = [slotKey(1, 0), slotKey(9, 0)];
    m.apply(plan(1, true, [a, b]), 1);
    assert.deepEqual(m.keys(), [a, b]);
    m.apply(plan(3, false, [], [a]), 1);
    const late = m.apply(plan(2, false, [a]), 1);
    assert.ok(!late.applied);
    assert.deepEqual(m.keys(), [b], "no phantom brought back");
    assert.equal(m.ack()?.newest, 3n);
    assert.equal(m.framesLost, 1n);
    assert.equal(m.stalePackets, 1);
  });
  it("refuses a reference to a dead occupant rather than removing its replacement", () => {
    // DELTA-22.
    const m = new DeltaMirror();
    m.insert({ index: 41, generation: 7 });
    m.insert({ index: 41, generation: 8 });
    assert.equal(m.size, 1);
    assert.ok(!m.remove({ index: 41, generation: 7 }));
    assert.equal(m.staleRefs, 1);
    assert.equal(m.digest(), SetDigest.fromKeys([slotKey(41, 8)]).digest());
    assert.equal(m.agreementWith(SetDigest.fromKeys([slotKey(41, 8)]).digest()).kind, "agrees");
  });
  it("names extra and missing keys", () => {
    const m = new DeltaMirror();
    const k = (i: number) => slotKey(i, 1);
    m.apply(plan(1, true, [k(1), k(2), k(3)]), 1);
    const d = m.divergenceFrom([k(2), k(3), k(4)]);
    assert.deepEqual(d.extra, [{ index: 1, generation: 1 }]);
    assert.deepEqual(d.missing, [{ index: 4, generation: 1 }]);
  });
  it("refuses a plan past max_keys whole, unacknowledged", () => {
    // DELTA-24.
    const m = new DeltaMirror({ maxKeys: 4 });
    const [a, b, c] = [slotKey(1, 0), slotKey(2, 0), slotKey(3, 0)];
    m.apply(plan(1, true, [a, b, c]), 1);
    assert.throws(
      () => m.apply(plan(2, false, [slotKey(5, 0), slotKey(6, 0)]), 1),
      (e: unknown) => e instanceof SessionError && e.kind === "limit",
    );
    assert.deepEqual(m.keys(), [a, b, c]);
    assert.equal(m.ack()?.newest, 1n, "the refused plan is not recorded as arrived");
    // Many generations of one slot take one place.
    m.apply(plan(3, false, [slotKey(5, 0), slotKey(5, 1), slotKey(5, 2)]), 1);
    assert.equal(m.size, 4);
  });
});

describe("DeltaBaseline", () => {
  it("plans a full baseline, then a diff against the acknowledged state (the Rust doc example)", () => {
    // DELTA-11, DELTA-12.
    const b = new DeltaBaseline(32);
    b.reset();
    const first = b.plan(new Set([1, 2, 3]), 1n);
    assert.ok(first.fullBaseline);
    assert.deepEqual(first.entered, [1, 2, 3]);
    b.observeAck(1n, 0n, SetDigest.fromKeys([1, 2, 3]).digest());
    const next = b.plan(new Set([1, 2, 4]), 2n);
    assert.equal(next.baselineSeq, 1n);
    assert.deepEqual([next.entered, next.left], [[4], [3]]);
  });
  it("rebuilds on a digest that disagrees once the frontier is reached", () => {
    // DELTA-15.
    const b = new DeltaBaseline(32);
    b.plan(new Set([1, 2]), 1n);
    const a = b.observeAck(1n, 0n, SetDigest.fromKeys([1]).digest());
    assert.equal(a.kind, "disagrees");
    const p = b.plan(new Set([1, 2]), 2n);
    assert.ok(p.fullBaseline);
    assert.equal(b.fullRebuilds, 1);
    assert.equal(compareDigests(5n, 5n).kind, "agrees");
  });
  it("throttles a stalled subscriber to keepalives and resumes on its ack", () => {
    // DELTA-18.
    const b = new DeltaBaseline(32, "ack_recovery", { stalledAfter: 100, keepaliveEvery: 50 });
    assert.ok(b.shouldSend(0));
    assert.ok(!b.stalled(100) && b.stalled(101));
    assert.ok(b.shouldSend(200), "the first keepalive");
    assert.ok(!b.shouldSend(220));
    assert.ok(b.shouldSend(250));
    assert.equal(b.observeAckAt(1n, 0n, 0n, 260).kind, "unchecked");
    assert.ok(!b.stalled(260));
  });
  it("forgets a stale acknowledgement from before a rebuild", () => {
    // DELTA-17.
    const b = new DeltaBaseline(24);
    b.plan(new Set([1]), 1n);
    b.plan(new Set([1]), 2n);
    b.requestFullBaseline();
    assert.ok(b.plan(new Set([1, 2]), 3n).fullBaseline);
    b.observeAck(2n, 1n, SetDigest.fromKeys([1]).digest());
    assert.equal(b.ackedSeq, undefined, "the old epoch's states are gone");
    assert.ok(b.plan(new Set([1, 2]), 4n).fullBaseline);
  });
  it("answers a dropped mirror's empty digest with a full baseline, unless the check is off", () => {
    // DELTA-16, DELTA-25.
    for (const [check, full] of [
      [true, true],
      [false, false],
    ] as const) {
      const b = new DeltaBaseline(24, "ack_recovery", undefined, check);
      b.plan(new Set([1, 2, 3]), 1n);
      b.observeAck(1n, 0n, SetDigest.fromKeys([1, 2, 3]).digest());
      assert.ok(!b.plan(new Set([1, 2, 3]), 2n).fullBaseline);
      const a = b.observeAck(2n, 1n, SetDigest.fromKeys([]).digest());
      assert.equal(a.kind, check ? "disagrees" : "unchecked");
      assert.equal(b.plan(new Set([1, 2, 3]), 3n).fullBaseline, full);
    }
  });
  it("starts over on reset: the next plan is a full baseline, not a rebuild", () => {
    // DELTA-19.
    const b = new DeltaBaseline(24);
    b.plan(new Set([1, 2]), 1n);
    b.observeAck(1n, 0n, SetDigest.fromKeys([1, 2]).digest());
    assert.ok(!b.plan(new Set([1, 2]), 2n).fullBaseline);
    b.reset();
    assert.ok(b.plan(new Set([1, 2]), 3n).fullBaseline);
    assert.equal(b.fullRebuilds, 0);
  });
  it("rebuilds when the acknowledged baseline ages out of the history", () => {
    // DELTA-9, DELTA-13.
    const b = new DeltaBaseline(4);
    b.plan(new Set([1, 2]), 1n);
    b.observeAck(1n, 0n, SetDigest.fromKeys([1, 2]).digest());
    for (let seq = 2n; seq <= 6n; seq++) {
      b.plan(new Set([1, 2]), seq);
    }
    assert.ok(b.heldStates <= 4);
    assert.ok(b.plan(new Set([1, 2]), 7n).fullBaseline, "a baseline older than the history");
    assert.equal(b.fullRebuilds, 1);
  });
});

describe("the delta halves", () => {
  // A test schema: a plan is its JSON text, an ack three decimal numbers.
  const text = new TextEncoder();
  const untext = new TextDecoder();
  const schema: DeltaSchema = {
    planFrame: "plan",
    ackFrame: "ack",
    fullBaseline: 1,
    baseline: 2,
    decodePlan: (b) => {
      const o = JSON.parse(untext.decode(b)) as { [k: string]: unknown };
      return {
        flags: o["flags"] as number,
        sequence: BigInt(o["sequence"] as string),
        baseline_seq: undefined,
        entered: o["entered"] as number[],
        left: o["left"] as number[],
      };
    },
    encodePlan: (p) =>
      text.encode(JSON.stringify({ ...p, sequence: String(p.sequence), baseline_seq: undefined })),
    decodeAck: (b): AckFrame => {
      const [newest, mask, digest] = untext.decode(b).split(" ").map(BigInt);
      return { newest: newest!, mask: mask!, digest: digest! };
    },
    encodeAck: (a) => text.encode(`${a.newest} ${a.mask} ${a.digest}`),
  };
  it("converge over a lossless link, and a bad frame is a SessionError", () => {
    const server = new DeltaServer(schema, new DeltaBaseline(8));
    const client = new DeltaClient(schema);
    const now = (ms: number) => ({ tick: 0, ms });
    const k = (i: number) => slotKey(i, 0);
    const worlds = [
      new Set([k(1), k(2), k(3)]),
      new Set([k(2), k(3), k(4)]),
      new Set([k(4), k(5)]),
    ];
    worlds.forEach((w, i) => {
      server.handleTick(now(i), w);
      for (let t = server.pollTransmit(); t !== undefined; t = server.pollTransmit()) {
        client.handleFrame(now(i), t.frame, t.bytes);
      }
      for (let t = client.pollTransmit(); t !== undefined; t = client.pollTransmit()) {
        server.handleFrame(now(i), t.frame, t.bytes);
      }
      assert.deepEqual(
        client.mirror.keys(),
        [...w].sort((a, b) => a - b),
      );
    });
    assert.equal(server.baseline.ackedSeq, 3n);
    assert.throws(
      () => client.handleFrame(now(9), "plan", Uint8Array.of(0xff)),
      (e: unknown) => e instanceof SessionError && e.kind === "decode",
    );
    assert.throws(
      () => client.handleFrame(now(9), "ack", Uint8Array.of()),
      (e: unknown) => e instanceof SessionError && e.kind === "unexpected_frame",
    );
  });
});

describe("SlotAllocator", () => {
  it("hands out the next generation on each reuse (the Rust doc example)", () => {
    // DELTA-8.
    const slots = new SlotAllocator(8);
    const a = slots.allocate()!;
    const b = slots.allocate()!;
    assert.deepEqual(
      [a, b],
      [
        { index: 0, generation: 0 },
        { index: 1, generation: 0 },
      ],
    );
    assert.ok(slots.free(a));
    assert.ok(!slots.free(a), "a second free of the same occupant is refused");
    assert.deepEqual(slots.allocate(), { index: 0, generation: 1 });
  });
  it("wraps the generation rather than growing it", () => {
    // DELTA-8.
    const a = new SlotAllocator(1);
    let key = a.allocate()!;
    for (let i = 0; i <= 0xffff; i++) {
      assert.ok(a.free(key));
      key = a.allocate()!;
    }
    assert.deepEqual(key, { index: 0, generation: 0 });
  });
  it("reuses the lowest free index, or under fifo the longest free", () => {
    // DELTA-8.
    const low = new SlotAllocator(8);
    const keys = [0, 1, 2, 3, 4].map(() => low.allocate()!);
    assert.ok(low.free(keys[3]!) && low.free(keys[1]!));
    assert.deepEqual(low.allocate(), { index: 1, generation: 1 });
    assert.deepEqual(low.allocate(), { index: 3, generation: 1 });
    assert.deepEqual(low.allocate(), { index: 5, generation: 0 });
    const fifo = new SlotAllocator(8, { kind: "fifo", quarantine: 0 });
    const f = [0, 1, 2, 3].map(() => fifo.allocate()!);
    assert.ok(fifo.free(f[2]!) && fifo.free(f[0]!));
    assert.deepEqual(fifo.allocate(), { index: 2, generation: 1 });
    assert.deepEqual(fifo.allocate(), { index: 0, generation: 1 });
    const q = new SlotAllocator(8, { kind: "fifo", quarantine: 2 });
    const k = [0, 1, 2, 3].map(() => q.allocate()!);
    assert.ok(q.free(k[1]!) && q.free(k[3]!));
    assert.deepEqual(q.allocate(), { index: 4, generation: 0 }, "two wait: a fresh index");
    assert.ok(q.free(k[0]!));
    assert.deepEqual(q.allocate(), { index: 1, generation: 1 }, "three wait: the oldest");
    assert.deepEqual(
      [0, 1, 2].map(() => q.allocate()!.index),
      [5, 6, 7],
    );
    // With the capacity used up the quarantine gives way rather than refusing.
    assert.deepEqual(q.allocate(), { index: 3, generation: 1 });
    assert.deepEqual(q.allocate(), { index: 0, generation: 1 });
    assert.equal(q.allocate(), undefined);
    assert.equal(q.size, 8);
  });
  it("places an occupant where asked, skipping slots that stay fresh", () => {
    const a = new SlotAllocator(4);
    assert.deepEqual(a.allocateAt(2), { index: 2, generation: 0 });
    assert.equal(a.allocateAt(2), undefined);
    assert.equal(a.allocateAt(4), undefined);
    assert.deepEqual(a.allocate(), { index: 0, generation: 0 });
    assert.deepEqual(
      a.live().map((k) => k.index),
      [0, 2],
    );
    assert.deepEqual(a.occupant(2), { index: 2, generation: 0 });
  });
});
