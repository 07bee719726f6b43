// The acked machines (`docs/spec/acked.md`) over a small test schema (records of one byte, frames
// in a layout of the test's own): what the AckedDecoder shows, drops and refuses, what the
// AckedEncoder sends under loss and hostile acks, and the server primitives the encoder feeds (the
// input schedule, the tier boundary). The reference protocol's binding is held to the stream
// vectors by the conformance runner.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DecodeError, EncodeError } from "../src/errors.js";
import { Reader } from "../src/reader.js";
import {
  type AckContent,
  type AckedFrame,
  type AckedSchema,
  AckedDecoder,
  AckedEncoder,
  AckWriter,
  Inapplicable,
  type InputSink,
  MAX_BUFFERED_INPUTS,
  type ServerState,
  emptyFrame,
  serverCheck,
} from "../src/sessions/acked.js";
import { fnv1a32 } from "../src/sessions/fnv.js";
import { InputSchedule, ScheduledInputs } from "../src/sessions/input_schedule.js";
import { TierBoundary } from "../src/sessions/tier.js";
import { Writer } from "../src/writer.js";

/** A record: one byte. */
interface Rec {
  v: number;
}
/** A change: the entity's new byte. Any entity may come whole with it. */
interface Chg {
  eid: number;
  v: number;
}

const ONE = new Uint8Array(1);

/**
 * The test schema: frames are `6, tick u32, base u32, last_seq u32, input_buffer u8, flags u8
 * (1 keyframe, 2 check), check u32?, u16 removed count and ids, u16 change count and (u16 eid,
 * u8 v) each, u8 event count, u32 first serial?, u8 events`; acks are `7, u32 tick, u8
 * keyframe request, u8 count, u32 first seq?, u32 input ticks`. A change of value 255 does not
 * apply.
 */
const Toy: AckedSchema<Rec, Chg, number, number> = {
  FRAME_NAME: "toy",
  ACK_NAME: "toy_ack",
  SENT_RING: 8,
  HELD_RING: 16,
  EVENT_TTL: 5,
  CHECK_EVERY: 4,
  RELIABLE_ABOVE: 40,
  diff(eid, base, next) {
    return base !== undefined && base.v === next.v ? undefined : { eid, v: next.v };
  },
  changeEid: (c) => c.eid,
  apply(_base, c) {
    if (c.v === 255) {
      throw new Inapplicable("255 does not apply");
    }
    return { v: c.v };
  },
  sameRecord: (a, b) => a.v === b.v,
  hashRecord(r, h) {
    ONE[0] = r.v;
    return fnv1a32(ONE, h);
  },
  measured: () => undefined,
  poseFull: () => undefined,
  encodeFrame(f) {
    const w = new Writer();
    w.u8(6);
    w.u32(f.tick);
    w.u32(f.baseTick);
    w.u32(f.lastSeq);
    w.u8(f.inputBuffer);
    w.u8((f.keyframe ? 1 : 0) | (f.check !== undefined ? 2 : 0));
    if (f.check !== undefined) {
      w.u32(f.check);
    }
    w.u16(f.removed.length);
    f.removed.forEach((e) => w.u16(e));
    w.u16(f.changes.length);
    for (const c of f.changes) {
      w.u16(c.eid);
      w.u8(c.v);
    }
    w.u8(f.events.length);
    if (f.events.length > 0) {
      w.u32(f.firstSerial);
    }
    f.events.forEach((e) => w.u8(e));
    return w.finish();
  },
  decodeFrameInto(bytes, out) {
    const r = new Reader(bytes);
    r.constant(6, (r) => r.u8());
    out.tick = r.u32();
    out.baseTick = r.u32();
    out.lastSeq = r.u32();
    out.inputBuffer = r.u8();
    const flags = r.u8();
    if (flags > 3) {
      throw r.fail("reserved_bit", 14);
    }
    out.keyframe = (flags & 1) !== 0;
    out.check = (flags & 2) !== 0 ? r.u32() : undefined;
    out.removed = [];
    for (let n = r.u16(); n > 0; n--) {
      out.removed.push(r.u16());
    }
    out.changes = [];
    for (let n = r.u16(); n > 0; n--) {
      out.changes.push({ eid: r.u16(), v: r.u8() });
    }
    const events = r.u8();
    out.firstSerial = events > 0 ? r.u32() : 0;
    out.events = [];
    for (let n = events; n > 0; n--) {
      out.events.push(r.u8());
    }
    r.finish();
  },
  encodeAck(a) {
    const w = new Writer();
    w.u8(7);
    w.u32(a.ackTick);
    w.u8(a.keyframeRequest ? 1 : 0);
    w.u8(a.inputs.length);
    if (a.inputs.length > 0) {
      w.u32(a.firstSeq);
    }
    a.inputs.forEach((t) => w.u32(t));
    return w.finish();
  },
  decodeAck(bytes) {
    const r = new Reader(bytes);
    r.constant(7, (r) => r.u8());
    const ackTick = r.u32();
    const keyframeRequest = r.u8() === 1;
    const n = r.u8();
    const firstSeq = n > 0 ? r.u32() : 0;
    const inputs: number[] = [];
    for (let i = 0; i < n; i++) {
      inputs.push(r.u32());
    }
    r.finish();
    return { ackTick, keyframeRequest, firstSeq, inputs };
  },
  inputTick: (t) => t,
};

type Frame = AckedFrame<Chg, number>;

function frame(f: Partial<Frame> & { tick: number }): Uint8Array {
  return Toy.encodeFrame({ ...emptyFrame<Chg, number>(), ...f });
}

const ch = (eid: number, v: number): Chg => ({ eid, v });

function state(d: AckedDecoder<Rec, Chg, number, number>): [number, number][] {
  const out: [number, number][] = [];
  d.state().forEach((eid, r) => out.push([eid, r.v]));
  return out;
}

/** A server state of `entries` (eid, value), all of life 1. */
function server(entries: [number, number][]): ServerState<Rec> {
  return entries.map(([eid, v]) => ({ eid, life: 1, record: { v } }));
}

/** A sink that holds every input it is given. */
class Held implements InputSink<number> {
  readonly got: number[] = [];
  submit(_seq: number, tick: number): void {
    this.got.push(tick);
  }
  pending(): number {
    return this.got.length;
  }
}

/** SplitMix64's little brother for tests: a seeded 32-bit generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("AckedDecoder", () => {
  it("applies a frame onto the base it names, whatever came between", () => {
    // ACK-19, ACK-29: onto any base still held.
    const d = new AckedDecoder(Toy);
    assert.equal(
      d.deliver(frame({ tick: 1, keyframe: true, changes: [ch(1, 1), ch(2, 1)] })).kind,
      "shown",
    );
    assert.equal(d.deliver(frame({ tick: 2, baseTick: 1, changes: [ch(1, 2)] })).kind, "shown");
    assert.deepEqual(state(d), [
      [1, 2],
      [2, 1],
    ]);
    // Onto frame 1: entity 1 is 1 again there, and the report says it changed from frame 2.
    const r = d.deliver(frame({ tick: 3, baseTick: 1, changes: [ch(2, 5)] }));
    assert.equal(r.kind, "shown");
    assert.deepEqual(state(d), [
      [1, 1],
      [2, 5],
    ]);
    if (r.kind === "shown") {
      assert.deepEqual(r.report.changed, [1, 2]);
      assert.deepEqual(r.report.gone, []);
    }
    // Onto frame 2 (still held): entity 1 is 2 there, entity 2 is 1.
    d.deliver(frame({ tick: 4, baseTick: 2, removed: [2] }));
    assert.deepEqual(state(d), [[1, 2]]);
    assert.equal(d.ackTick(), 4);
    assert.equal(d.stateHash(), serverCheck(Toy, server([[1, 2]])));
  });

  it("drops stale frames and frames onto an unknown base without a word", () => {
    // ACK-30, ACK-31.
    const d = new AckedDecoder(Toy);
    d.deliver(frame({ tick: 5, keyframe: true, changes: [ch(1, 1)] }));
    const hash = d.stateHash();
    assert.deepEqual(d.deliver(frame({ tick: 5, keyframe: true })), { kind: "stale", tick: 5 });
    assert.deepEqual(d.deliver(frame({ tick: 4, keyframe: true })), { kind: "stale", tick: 4 });
    assert.deepEqual(d.deliver(frame({ tick: 6, baseTick: 3, changes: [ch(1, 9)] })), {
      kind: "unknown_base",
      tick: 6,
      baseTick: 3,
    });
    assert.equal(d.stateHash(), hash);
    assert.equal(d.counters.stale, 2);
    assert.equal(d.counters.unknownBase, 1);
  });

  it("holds at most HELD_RING states, the newest", () => {
    // ACK-29.
    const d = new AckedDecoder(Toy);
    d.deliver(frame({ tick: 1, keyframe: true, changes: [ch(1, 0)] }));
    for (let t = 2; t <= Toy.HELD_RING + 10; t++) {
      assert.equal(
        d.deliver(frame({ tick: t, baseTick: t - 1, changes: [ch(1, t & 0xff)] })).kind,
        "shown",
      );
    }
    assert.equal(d.heldCount(), Toy.HELD_RING);
    const newest = Toy.HELD_RING + 10;
    const oldest = newest - Toy.HELD_RING + 1;
    assert.equal(d.deliver(frame({ tick: newest + 1, baseTick: oldest - 1 })).kind, "unknown_base");
    assert.equal(
      d.deliver(frame({ tick: newest + 1, baseTick: oldest, changes: [ch(2, 2)] })).kind,
      "shown",
    );
    assert.deepEqual(state(d), [
      [1, oldest],
      [2, 2],
    ]);
  });

  it("refuses a frame that does not apply, whole, and counts it", () => {
    // ACK-32.
    const d = new AckedDecoder(Toy);
    d.deliver(frame({ tick: 1, keyframe: true, changes: [ch(1, 1), ch(2, 2)] }));
    const cases: [Partial<Frame>, string][] = [
      [{ removed: [3] }, "a removed id the base does not hold"],
      [{ removed: [1, 1] }, "a removed id the base does not hold"],
      [{ changes: [ch(2, 1), ch(1, 1)] }, "changes not in ascending id order"],
      [{ changes: [ch(1, 7), ch(2, 255)] }, "255 does not apply"],
      // A removal fault wins over a change's.
      [{ removed: [9], changes: [ch(1, 255)] }, "a removed id the base does not hold"],
    ];
    for (const [f, why] of cases) {
      assert.deepEqual(d.deliver(frame({ tick: 2, baseTick: 1, ...f })), {
        kind: "inapplicable",
        tick: 2,
        why,
      });
      assert.deepEqual(state(d), [
        [1, 1],
        [2, 2],
      ]);
    }
    assert.equal(d.counters.inapplicable, cases.length);
    // Nothing of the refused frames lingers: the next frame applies onto the same base.
    d.deliver(frame({ tick: 2, baseTick: 1, changes: [ch(3, 3)] }));
    assert.deepEqual(state(d), [
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    assert.equal(d.deliver(frame({ tick: 3, keyframe: true, removed: [1] })).kind, "inapplicable");
  });

  it("shows each event once, above the newest serial shown", () => {
    // ACK-35.
    const d = new AckedDecoder(Toy);
    const shown: number[] = [];
    const take = (bytes: Uint8Array) => {
      const r = d.deliver(bytes);
      if (r.kind === "shown") {
        shown.push(...r.report.eventSerials);
      }
    };
    take(frame({ tick: 1, keyframe: true, firstSerial: 1, events: [10, 11] }));
    take(frame({ tick: 2, baseTick: 1, firstSerial: 1, events: [10, 11, 12] }));
    take(frame({ tick: 3, baseTick: 1, firstSerial: 2, events: [11, 12, 13] }));
    assert.deepEqual(shown, [1, 2, 3, 4]);
    // Serials wrap modulo 2^32 without a fault.
    const w = new AckedDecoder(Toy);
    const r = w.deliver(
      frame({ tick: 1, keyframe: true, firstSerial: 0xffffffff, events: [1, 2] }),
    );
    assert.equal(r.kind, "shown");
    if (r.kind === "shown") {
      assert.deepEqual(r.report.eventSerials, [0xffffffff]);
    }
  });

  it("asks for a keyframe after a failed check, holding and acknowledging nothing", () => {
    // ACK-36, ACK-13.
    const d = new AckedDecoder(Toy);
    const good = serverCheck(Toy, server([[1, 1]]));
    const r = d.deliver(frame({ tick: 1, keyframe: true, check: good, changes: [ch(1, 1)] }));
    assert.equal(r.kind === "shown" && r.report.check, true);
    const bad = d.deliver(frame({ tick: 2, baseTick: 1, check: good ^ 1, changes: [ch(1, 2)] }));
    assert.equal(bad.kind === "shown" && bad.report.check, false);
    assert.equal(d.keyframeWanted(), true);
    assert.equal(d.ackTick(), 0);
    assert.equal(d.heldCount(), 0);
    assert.equal(d.deliver(frame({ tick: 3, baseTick: 2 })).kind, "unknown_base");
    assert.equal(d.deliver(frame({ tick: 4, keyframe: true, changes: [ch(1, 4)] })).kind, "shown");
    assert.equal(d.keyframeWanted(), false);
    assert.equal(d.ackTick(), 4);
    assert.deepEqual(state(d), [[1, 4]]);
  });

  it("catches a tampered state with the next check", () => {
    // ACK-36, CHECK-2.
    const d = new AckedDecoder(Toy);
    d.deliver(frame({ tick: 1, keyframe: true, changes: [ch(1, 1), ch(2, 2)] }));
    d.deliver(frame({ tick: 2, baseTick: 1, changes: [ch(1, 3)] }));
    d.tamper((_eid, r) => {
      r.v ^= 0x55;
    });
    // Onto frame 1, which the tampering reached through the undo edits.
    const expect = serverCheck(
      Toy,
      server([
        [1, 1],
        [2, 2],
        [3, 3],
      ]),
    );
    const r = d.deliver(frame({ tick: 3, baseTick: 1, check: expect, changes: [ch(3, 3)] }));
    assert.equal(r.kind === "shown" && r.report.check, false);
  });

  it("never throws on hostile bytes", () => {
    // GEN-5.
    const d = new AckedDecoder(Toy);
    const next = rng(7);
    let shown = 0;
    for (let i = 0; i < 20000; i++) {
      const base = frame({
        tick: 1 + Math.floor(next() * 40),
        baseTick: Math.floor(next() * 40),
        keyframe: next() < 0.2,
        removed: next() < 0.3 ? [Math.floor(next() * 8)] : [],
        changes: [ch(Math.floor(next() * 8), Math.floor(next() * 256))],
      });
      const bytes = base.slice(0, Math.floor(next() * (base.length + 1)));
      if (bytes.length > 0 && next() < 0.3) {
        bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
      }
      const r = d.deliver(bytes);
      shown += r.kind === "shown" ? 1 : 0;
      assert.ok(d.heldCount() <= Toy.HELD_RING);
    }
    assert.ok(shown > 0, "some frames applied");
    assert.ok(d.counters.undecodable > 0 && d.counters.inapplicable > 0);
  });
});

describe("AckedEncoder", () => {
  it("streams under loss: every frame shown is the server's state of its tick", () => {
    // GEN-3, ACK-19, ACK-21.
    for (let seed = 1; seed <= 20; seed++) {
      const next = rng(seed);
      const enc = new AckedEncoder(Toy, new Held());
      const dec = new AckedDecoder(Toy);
      const states = new Map<number, number>();
      const world = new Map<number, number>();
      const inFlight: Uint8Array[] = [];
      let shown = 0;
      for (let t = 1; t <= 300; t++) {
        for (let k = 0; k < 3; k++) {
          const eid = Math.floor(next() * 12);
          if (next() < 0.2) {
            world.delete(eid);
          } else {
            world.set(eid, Math.floor(next() * 255));
          }
        }
        const s = server([...world.entries()].sort((a, b) => a[0] - b[0]));
        states.set(t, serverCheck(Toy, s));
        const out = enc.encode(t, s, next() < 0.1 ? [t & 0xff] : []);
        assert.equal(out.reliable, out.bytes.length > Toy.RELIABLE_ABOVE);
        assert.ok(enc.kept() <= Toy.SENT_RING);
        inFlight.push(out.bytes);
        // Delivered late, duplicated, reordered or lost.
        while (inFlight.length > 0 && next() < 0.7) {
          const bytes = inFlight.splice(Math.floor(next() * inFlight.length), 1)[0]!;
          if (next() < 0.3) {
            continue;
          }
          const r = dec.deliver(bytes);
          if (r.kind === "shown") {
            shown += 1;
            assert.equal(
              dec.stateHash(),
              states.get(r.report.tick),
              `seed ${seed} tick ${r.report.tick}`,
            );
          }
          if (next() < 0.1) {
            inFlight.push(bytes);
          }
          if (next() < 0.6) {
            enc.receive(
              t,
              Toy.encodeAck({
                ackTick: dec.ackTick(),
                keyframeRequest: false,
                firstSeq: 0,
                inputs: [],
              }),
            );
          }
        }
      }
      assert.ok(shown > 50, `seed ${seed}: ${shown} shown`);
      assert.equal(dec.counters.checksFailed, 0);
      assert.ok(dec.counters.checksPassed > 0);
    }
  });

  it("never takes a base off its ring, whatever the acks say", () => {
    // ACK-19, ACK-20, ACK-26.
    const enc = new AckedEncoder(Toy, new Held());
    const sent: number[] = [];
    for (let t = 1; t <= 200; t++) {
      const out = enc.encode(t, server([[1, t & 0xff]]), []);
      if (!out.frame.keyframe) {
        assert.ok(sent.includes(out.frame.baseTick));
        assert.ok(out.frame.baseTick + Toy.SENT_RING >= t);
      }
      sent.push(t);
      for (const ack of [t + 1, t + 1000, 0xffffffff, 0, Math.max(0, t - 20), t >> 1, t]) {
        enc.onAck(t, { ackTick: ack, keyframeRequest: t % 17 === 0, firstSeq: 0, inputs: [] });
      }
    }
    const c = enc.counters;
    assert.ok(c.acksUnknown > 0 && c.acksOld > 0 && c.keyframeRequests > 0);
    // Acks from before a keyframe request never come back as a base.
    const e = new AckedEncoder(Toy, new Held());
    for (let t = 1; t <= 5; t++) {
      e.encode(t, server([[1, t]]), []);
    }
    assert.equal(
      e.onAck(5, { ackTick: 0, keyframeRequest: true, firstSeq: 0, inputs: [] }),
      "keyframe_requested",
    );
    assert.equal(
      e.onAck(5, { ackTick: 4, keyframeRequest: false, firstSeq: 0, inputs: [] }),
      "old",
    );
    assert.equal(e.encode(6, server([[1, 6]]), []).frame.keyframe, true);
    assert.equal(
      e.onAck(6, { ackTick: 6, keyframeRequest: false, firstSeq: 0, inputs: [] }),
      "taken",
    );
    assert.equal(e.encode(7, server([[1, 7]]), []).frame.keyframe, false);
    assert.throws(() => e.encode(7, server([]), []), EncodeError);
  });

  it("takes each input once and holds at most MAX_BUFFERED_INPUTS", () => {
    // ACK-25.
    const sink = new Held();
    const enc = new AckedEncoder(Toy, sink);
    const ack = (firstSeq: number, n: number): AckContent<number> => ({
      ackTick: 0,
      keyframeRequest: false,
      firstSeq,
      inputs: Array.from({ length: n }, (_, i) => firstSeq + i),
    });
    enc.onAck(0, ack(1, 200));
    enc.onAck(0, ack(100, 200));
    assert.equal(enc.counters.inputsRepeated, 101);
    assert.equal(sink.got.length, MAX_BUFFERED_INPUTS);
    assert.equal(enc.counters.inputsOverflow, 299 - MAX_BUFFERED_INPUTS);
    // A sequence near 2^32 stops at the end of the u32 range.
    enc.onAck(0, ack(0xfffffff0, 255));
    assert.equal(enc.lastSeq(), 0xffffffff);
    assert.throws(() => enc.receive(0, Uint8Array.of(7, 1)), DecodeError);
  });

  it("sends events until acknowledged or for EVENT_TTL frames", () => {
    // ACK-23.
    const enc = new AckedEncoder(Toy, new Held());
    let carried = 0;
    for (let t = 1; t <= 20; t++) {
      carried += enc.encode(t, server([]), t === 1 ? [9] : []).frame.events.length;
    }
    assert.equal(carried, Toy.EVENT_TTL);
    assert.equal(enc.counters.eventsExpired, 1);
  });
});

describe("AckWriter", () => {
  it("repeats the inputs not yet covered, at most `keep`", () => {
    // ACK-12.
    const w = new AckWriter<number>(3);
    for (let i = 0; i < 5; i++) {
      w.push(i);
    }
    assert.deepEqual(w.frame(9, false), {
      ackTick: 9,
      keyframeRequest: false,
      firstSeq: 3,
      inputs: [2, 3, 4],
    });
    w.confirm(4);
    assert.deepEqual(w.frame(9, true), {
      ackTick: 0,
      keyframeRequest: true,
      firstSeq: 5,
      inputs: [4],
    });
    assert.equal(new AckWriter<number>(1000).frame(0, false).inputs.length, 0);
  });
});

describe("InputSchedule and TierBoundary", () => {
  it("judges inputs by the window and runs the newest due", () => {
    // SRV-13, SRV-15.
    const s = new InputSchedule<string>();
    const window = { maxLate: 2, maxEarly: 5 };
    assert.equal(s.submit(16, "ahead", 10, window), "too_far_ahead");
    assert.equal(s.submit(7, "closed", 10, window), "tick_closed");
    assert.equal(s.submit(8, "late", 10, window), "late");
    assert.equal(s.submit(12, "a", 10, window), "scheduled");
    assert.equal(s.submit(11, "b", 10, window), "scheduled");
    assert.equal(s.pending(), 3);
    assert.equal(s.executeDue(10), "late");
    assert.equal(s.executeDue(12), "a");
    assert.equal(s.pending(), 0);
    // Never behind what already ran: an input for tick 11 now runs on 12 at the earliest.
    assert.equal(s.submit(11, "c", 11, window), "scheduled");
    assert.equal(s.executeDue(11), undefined);
    assert.equal(s.executeDue(12), "c");
    const q = new ScheduledInputs<number>(window);
    q.submit(1, 3, 3, 0);
    assert.equal(q.pending(), 1);
  });

  it("keeps a member until past leave and admits within enter, in f32", () => {
    // SRV-8.
    const t = new TierBoundary(10, 12);
    assert.ok(t.admits(false, 10) && !t.admits(false, 11));
    assert.ok(t.admits(true, 12) && !t.admits(true, 12.5));
    assert.ok(!t.admits(true, NaN));
    assert.equal(new TierBoundary(10, 5).leave, 10);
    // 0.1 as an f32 is above 0.1: a distance of exactly 0.1 is within a radius of 0.1 (f32).
    assert.ok(new TierBoundary(0.1, 0.1).admits(false, 0.1));
  });
});
