// CODE-2 and CODE-3 (docs/spec/coded.md) in the runtime's acked machines, proved independently of
// the coder, as the Rust codec's codec/src/acked/coded_tests.rs proves them: a test-only coded
// schema, `probe`, whose frames are kind 12's (the reference protocol's PackedReference, which
// test.sh generates into gen/) with the `older` byte and, for every change, a digest of the
// records its basis gives, so that a client whose basis differs from the server's refuses the
// frame. Run through the acked session halves over a lossy network (loss, duplication and
// reordering each way), every frame the client applies was decoded against the server's basis;
// older snapshots are named; a frame whose older snapshot the client does not hold is dropped and
// counted; a schema that is not coded is written and read exactly as before.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DecodeError,
  EncodeError,
  type EntityState,
  type Event,
  type Input,
  type PackedChange,
  StateFlags,
} from "../gen/protocol.js";
import {
  ACKED_CODED_MODELS,
  ACKED_CODED_SLOTS,
  ACKED_CODED_TABLES,
  type AckedCoded,
  AckedFlags,
  PackedMask,
  countAckedCoded,
  decodeAckedCoded,
  encodeAckedCoded,
  readAckedCodedBasis,
} from "../gen/protocol.js";
import { CodedReference, PackedReference } from "../gen/reference.js";
import { Presenter, type WorldEntity, defaultView } from "../gen/reference/presenter.js";
import {
  type CodedBasis,
  type CodedBasisTicks,
  NoBasis,
  SlotCounts,
  modelSlots,
} from "../gen/runtime/coded.js";
import {
  type AckedFrame,
  type AckedSchema,
  AckedDecoder,
  AckedEncoder,
  type InputSink,
  LiveState,
  type ServerState,
  emptyFrame,
  serverCheck,
} from "../gen/runtime/sessions/acked.js";
import { AckedClientHalf, AckedServerHalf } from "../gen/runtime/sessions/acked_half.js";
import { fnv1a32 } from "../gen/runtime/sessions/fnv.js";
import type { Transmit } from "../gen/runtime/sessions/half.js";

type Schema = AckedSchema<EntityState, PackedChange, Event, Input>;
type Frame = AckedFrame<PackedChange, Event>;

/** What the probe's decoder checked. */
interface Checked {
  /** Frames read against a basis that names an older snapshot. */
  framesWithOlder: number;
  /** Changes whose basis digest matched. */
  changes: number;
  /** Of those, changes of an entity held in both the base and the older snapshot. */
  inBoth: number;
}

/** The probe schema, and what its decoder checked. */
interface Probe extends Schema {
  readonly checked: Checked;
}

const ONE = new Uint8Array(2);

/**
 * FNV-1a of the change's id and the records its basis gives (base, then older), each as a
 * presence byte and the record's canonical bytes.
 */
function digest(eid: number, base: EntityState | undefined, older: EntityState | undefined) {
  ONE[0] = eid & 0xff;
  ONE[1] = eid >>> 8;
  let h = fnv1a32(ONE);
  for (const r of [base, older]) {
    ONE[0] = r === undefined ? 0 : 1;
    h = fnv1a32(ONE, h, 1);
    if (r !== undefined) {
      h = PackedReference.hashRecord(r, h);
    }
  }
  return h;
}

function bad(at: number, field: string): DecodeError {
  return new DecodeError("invalid_condition", at, undefined, field);
}

/**
 * Kind 12's frames with a coded frame's basis made visible: `u8 older | u32 len | len bytes of
 * kind 12 | u32 digest × changed_count` (little-endian), a digest being {@link digest} of the
 * change's id and the records its basis gives (the older one when `older` is not 0). `held` is
 * its HELD_RING (the protocol's, unless a test shrinks it under SENT_RING to make older
 * snapshots go).
 */
function probe(held: number = PackedReference.HELD_RING): Probe {
  const checked: Checked = { framesWithOlder: 0, changes: 0, inBoth: 0 };
  /**
   * The older byte, the kind 12 frame read into `out`, and the digests, held to `basis` when
   * there is one.
   */
  const read = (bytes: Uint8Array, basis: CodedBasis<EntityState> | undefined, out: Frame) => {
    if (bytes.length < 1) {
      throw bad(0, "older");
    }
    const older = bytes[0]!;
    if (bytes.length < 5) {
      throw bad(1, "len");
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const len = view.getUint32(1, true);
    if (len > bytes.length - 5) {
      throw bad(1, "len");
    }
    PackedReference.decodeFrameInto(bytes.subarray(5, 5 + len), out);
    if (out.keyframe && older !== 0) {
      throw bad(0, "older");
    }
    if (bytes.length - 5 - len !== 4 * out.changes.length) {
      throw bad(5 + len, "digests");
    }
    if (basis === undefined) {
      return older;
    }
    let changes = 0;
    let inBoth = 0;
    for (let i = 0; i < out.changes.length; i++) {
      const eid = out.changes[i]!.eid;
      const base = basis.base(eid);
      const old = older === 0 ? undefined : basis.older(eid);
      if (digest(eid, base, old) !== view.getUint32(5 + len + 4 * i, true)) {
        throw bad(5 + len + 4 * i, "basis");
      }
      changes += 1;
      inBoth += base !== undefined && old !== undefined ? 1 : 0;
    }
    checked.framesWithOlder += older !== 0 ? 1 : 0;
    checked.changes += changes;
    checked.inBoth += inBoth;
    return older;
  };
  const encodeFrameOn = (frame: Frame, older: number, basis: CodedBasis<EntityState>) => {
    assert.ok(Number.isInteger(older) && older >= 0 && older <= 255, `older ${older}`);
    assert.ok(!(frame.keyframe && older !== 0), "CODE-2: a keyframe names no older");
    const packed = PackedReference.encodeFrame(frame);
    const out = new Uint8Array(5 + packed.length + 4 * frame.changes.length);
    const view = new DataView(out.buffer);
    out[0] = older;
    view.setUint32(1, packed.length, true);
    out.set(packed, 5);
    frame.changes.forEach((c, i) => {
      const old = older === 0 ? undefined : basis.older(c.eid);
      view.setUint32(5 + packed.length + 4 * i, digest(c.eid, basis.base(c.eid), old), true);
    });
    return out;
  };
  return {
    ...PackedReference,
    HELD_RING: held,
    checked,
    coded: () => true,
    readBasis(bytes): CodedBasisTicks {
      const f: Frame = emptyFrame();
      const older = read(bytes, undefined, f);
      return { tick: f.tick, baseTick: f.baseTick, keyframe: f.keyframe, older };
    },
    encodeFrame: (frame) => encodeFrameOn(frame, 0, new NoBasis()),
    decodeFrameInto(bytes, out) {
      read(bytes, undefined, out);
    },
    encodeFrameOn,
    decodeFrameOnInto(bytes, basis, out) {
      read(bytes, basis, out);
    },
  };
}

/** mulberry32: the same draws on every run. */
class Rng {
  private a: number;
  constructor(seed: number) {
    this.a = seed >>> 0;
  }
  next(): number {
    this.a = (this.a + 0x6d2b79f5) >>> 0;
    let t = this.a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  below(n: number): number {
    return Math.floor(this.next() * n);
  }
}

/** The network each way and the world of a run (the Rust harness's `Shape`). */
interface Shape {
  /** An unreliable frame is lost with this chance... */
  loss: number;
  /** ... duplicated with this one... */
  duplicate: number;
  /** ... and delayed 0 to `jitter` steps (so reordered). */
  jitter: number;
  /** Ticks of churn over the lossy network; a clean network for 40 more follows. */
  ticks: number;
  /** Entity ids 1 to `entities`. */
  entities: number;
  /** Moved entities also turn, so that frames carry the orientation. */
  turn: boolean;
}

const SHAPE: Shape = {
  loss: 0.25,
  duplicate: 0.1,
  jitter: 3,
  ticks: 160,
  entities: 12,
  turn: true,
};

/**
 * One direction of the network (lossy.test.ts's Link, with the duplication and jitter of the
 * shape): a reliable frame arrives next step, in order.
 */
class Link {
  private queue: [number, Transmit][] = [];
  private readonly rng: Rng;
  private readonly shape: Shape;
  /** Once set, every frame arrives next step, in order. */
  clean = false;
  constructor(rng: Rng, shape: Shape) {
    this.rng = rng;
    this.shape = shape;
  }
  send(step: number, t: Transmit): void {
    if (t.reliable || this.clean) {
      this.queue.push([step + 1, t]);
      return;
    }
    const copies = this.rng.next() < this.shape.duplicate ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      if (this.rng.next() < this.shape.loss) {
        continue;
      }
      this.queue.push([step + this.rng.below(this.shape.jitter + 1), t]);
    }
  }
  arrived(step: number): Transmit[] {
    // Reliable frames keep their order; a stable sort by arrival step keeps it.
    const due = this.queue.filter(([at]) => at <= step).sort((a, b) => a[0] - b[0]);
    this.queue = this.queue.filter(([at]) => at > step);
    return due.map(([, t]) => t);
  }
}

/** What a run did. */
interface Outcome {
  /** Frames the client showed. */
  shown: number;
  /** Frames it dropped as stale or onto an unknown base. */
  dropped: number;
  /** Of those, coded frames dropped because it did not hold their older snapshot (CODE-3). */
  droppedOlder: number;
  /** Keyframes sent. */
  keyframes: number;
  /** Coded frames sent that named an older snapshot (CODE-2). */
  olderNamed: number;
}

/**
 * The acked session halves of `schema` over a lossy network of `shape`, the world churning for
 * `shape.ticks` ticks and then still over a clean network: every frame the client shows must be
 * the server's S_N of its tick (its state hash the check of the state the presenter gave the
 * encoder), none refused, and at the end it shows the server's last state.
 */
function run(schema: Schema, shape: Shape, seed: number): Outcome {
  const rng = new Rng(seed);
  const checks = new Map<number, number>();
  const presenter = new Presenter({ ...defaultView(), own: [1] });
  const sink: InputSink<Input> = { submit: () => undefined, pending: () => 0 };
  const server = new AckedServerHalf(
    schema,
    {
      present(tick: number, world: ReadonlyMap<number, WorldEntity>): ServerState<EntityState> {
        const s = presenter.present(tick, world);
        checks.set(tick, serverCheck(schema, s));
        return s;
      },
    },
    sink,
  );
  const client = new AckedClientHalf(schema);
  const down = new Link(new Rng(seed * 2 + 1), shape);
  const up = new Link(new Rng(seed * 2 + 2), shape);
  const world = new Map<number, WorldEntity>();
  let life = 0;
  const end = shape.ticks + 40;
  // One step past the last tick, for its frame to land.
  for (let step = 1; step <= end + 1; step++) {
    const now = { tick: step, ms: step * 20 };
    if (step <= shape.ticks) {
      for (let n = 0; n < 4; n++) {
        const eid = 1 + rng.below(shape.entities);
        const w = world.get(eid);
        if (w === undefined) {
          life += 1;
          const at = () => (rng.next() - 0.5) * 40;
          world.set(eid, {
            life,
            x: at(),
            y: at(),
            z: 0,
            yaw: 0,
            hp: 100,
            armor: 0,
            vehicle: 0,
            seat: 0,
          });
        } else if (rng.below(25) === 0) {
          world.delete(eid);
        } else {
          w.x += (rng.next() - 0.5) * 2;
          w.y += (rng.next() - 0.5) * 2;
          w.yaw = (w.yaw + rng.below(30)) % 360;
          if (rng.below(5) === 0) {
            w.hp = rng.below(101);
          }
          if (shape.turn) {
            const a = Math.atan2(w.y, w.x) / 2;
            w.orient = [0, 0, Math.sin(a), Math.cos(a)];
          }
        }
      }
    } else {
      down.clean = true;
      up.clean = true;
    }
    if (step <= end) {
      const events: Event[] =
        rng.below(8) === 0
          ? [{ kind: "shot", value: { shooter: 1, weapon: 2, yaw: step % 360 } }]
          : [];
      server.handleTick(now, { world, events });
    }
    client.handleTick(now);
    for (let t = server.pollTransmit(); t !== undefined; t = server.pollTransmit()) {
      down.send(step, t);
    }
    for (const t of down.arrived(step)) {
      const d = client.handleFrame(now, t.frame, t.bytes);
      if (d.kind === "undecodable" || d.kind === "inapplicable") {
        assert.fail(`seed ${seed}, step ${step}: ${JSON.stringify(d)}`);
      }
      if (d.kind === "shown") {
        assert.equal(
          client.stateHash(),
          checks.get(d.report.tick),
          `seed ${seed}, frame ${d.report.tick}`,
        );
        assert.notEqual(d.report.check, false, `seed ${seed}, frame ${d.report.tick}: the check`);
      }
    }
    for (let t = client.pollTransmit(); t !== undefined; t = client.pollTransmit()) {
      up.send(step, t);
    }
    for (const t of up.arrived(step)) {
      server.handleFrame(now, t.frame, t.bytes);
    }
  }
  assert.equal(client.shownTick(), end, `seed ${seed}: the last frame shown`);
  assert.equal(client.stateHash(), checks.get(end), `seed ${seed}: the server's last state`);
  const c = client.decoder.counters;
  assert.equal(c.checksFailed, 0, `seed ${seed}`);
  const e = server.encoder.counters;
  return {
    shown: c.applied,
    dropped: c.stale + c.unknownBase,
    droppedOlder: c.unknownOlder,
    keyframes: e.keyframes,
    olderNamed: e.olderNamed,
  };
}

/** A position-only record of `x` steps, its pose full, measured at `measured`. */
function record(x: number, measured: number): EntityState {
  return {
    x,
    y: 0,
    z: 0,
    yaw: 0,
    flags: StateFlags.POSE_FULL,
    measured,
    hp: 1,
    armor: 0,
    vehicle: 0,
    seat: 0,
    orient: undefined,
  };
}

/** Entities 1 and 2 at tick `tick`, each moved since the tick before. */
function world(tick: number): ServerState<EntityState> {
  return [1, 2].map((eid) => ({ eid, life: 1, record: record(512 * tick * eid, tick) }));
}

const sink: InputSink<Input> = { submit: () => undefined, pending: () => 0 };

/** An ack of `ackTick` alone (or a keyframe request). */
const ack = (ackTick: number, keyframeRequest = false) => ({
  ackTick,
  keyframeRequest,
  firstSeq: 0,
  inputs: [],
});

describe("a coded schema's session rules (CODE-2, CODE-3)", () => {
  it("reads every frame the client applies against the server's basis, under loss, duplication and reordering", () => {
    // CODE-2, CODE-3: the probe refuses a frame read against another basis than the server's,
    // and the run fails on a refused frame; HELD_RING above SENT_RING (ACK-1) keeps every older
    // snapshot held.
    const p = probe();
    let olderDropped = 0;
    for (let seed = 0; seed < 12; seed++) {
      const shape: Shape = {
        ...SHAPE,
        loss: [0.1, 0.25, 0.45][seed % 3]!,
        jitter: [1, 3, 8][seed % 3]!,
        turn: seed % 2 === 1,
      };
      const out = run(p, shape, seed);
      assert.ok(out.shown > 0 && out.dropped > 0, `seed ${seed}: ${JSON.stringify(out)}`);
      assert.ok(out.olderNamed > 0, `seed ${seed}: ${JSON.stringify(out)}`);
      olderDropped += out.droppedOlder;
    }
    assert.ok(
      p.checked.framesWithOlder > 1000 && p.checked.inBoth > 1000,
      `older snapshots hardly named: ${JSON.stringify(p.checked)}`,
    );
    assert.equal(olderDropped, 0, "ACK-1 keeps every older snapshot held");
  });

  it("drops and counts the frames whose older snapshot the client let go", () => {
    // CODE-3 with HELD_RING at 6, under SENT_RING (a client ACK-1 forbids): the stream still
    // shows only the server's states and converges.
    const p = probe(6);
    let olderDropped = 0;
    for (let seed = 0; seed < 12; seed++) {
      const out = run(p, { ...SHAPE, loss: 0.3, jitter: 6 }, 100 + seed);
      assert.ok(out.dropped >= out.droppedOlder);
      olderDropped += out.droppedOlder;
    }
    assert.ok(olderDropped > 0, "no frame lost its older snapshot");
  });

  it("drops a frame whose older snapshot is not held before reading its changes", () => {
    // CODE-3, step by step: the client holds 3 frames; frame 5 goes onto frame 2, which it still
    // holds, naming frame 1, which it let go: dropped as a frame without its base is, counted
    // apart, the acknowledgement unchanged.
    const p = probe(3);
    const enc = new AckedEncoder(p, sink);
    const dec = new AckedDecoder(p);
    const olders: number[] = [];
    for (let t = 1; t <= 5; t++) {
      const out = enc.encode(t, world(t), []);
      olders.push(out.bytes[0]!);
      const d = dec.deliver(out.bytes);
      assert.equal(d.kind, t < 5 ? "shown" : "unknown_base", `tick ${t}`);
      if (t <= 2) {
        enc.onAck(t, ack(dec.ackTick()));
      }
    }
    // Frames 3 to 5 go onto 2 and name 1, the frame before it the client acknowledged.
    assert.deepEqual(olders, [0, 0, 1, 1, 1]);
    const c = dec.counters;
    assert.deepEqual([c.applied, c.unknownBase, c.unknownOlder, c.undecodable], [4, 1, 1, 0]);
    assert.equal(dec.ackTick(), 4);
    assert.equal(enc.counters.olderNamed, 3);
    // The changes read so far were all read against the records the server wrote them against.
    assert.ok(p.checked.framesWithOlder === 2 && p.checked.inBoth === 4, JSON.stringify(p.checked));
  });

  it("names the newest acknowledged frame within 255 ticks before the base as the older snapshot", () => {
    // CODE-2 on the server: an acknowledgement too old to move the base counts; none past 255
    // ticks; none for a keyframe, and none acknowledged before a keyframe request.
    const p = probe();
    const enc = new AckedEncoder(p, sink);
    const older = (e: AckedEncoder<EntityState, PackedChange, Event, Input>, t: number) => {
      const out = e.encode(t, world(t), []);
      return [out.frame.keyframe, out.frame.baseTick, out.bytes[0]];
    };
    for (let t = 1; t <= 4; t++) {
      older(enc, t);
    }
    // Acks of 3 then, reordered, 1: the base is 3, and 1 is acknowledged too.
    enc.onAck(4, ack(3));
    assert.equal(enc.onAck(4, ack(1)), "old");
    assert.deepEqual(older(enc, 5), [false, 3, 2]);
    // The ack of 2, late: the newest acknowledged before the base now.
    enc.onAck(5, ack(2));
    assert.deepEqual(older(enc, 6), [false, 3, 1]);
    // 254 ticks before the base, 3 is still named; 256 ticks before it, 1 is not.
    assert.deepEqual(older(enc, 257), [false, 3, 1]);
    enc.onAck(257, ack(257));
    assert.deepEqual(older(enc, 258), [false, 257, 254]);
    enc.onAck(258, ack(258));
    assert.deepEqual(older(enc, 259), [false, 258, 1]);
    const far = new AckedEncoder(p, sink);
    older(far, 1);
    far.onAck(1, ack(1));
    older(far, 257);
    far.onAck(257, ack(257));
    assert.deepEqual(older(far, 258), [false, 257, 0]);
    // A keyframe request: keyframes, naming nothing, then frames whose older snapshot is
    // acknowledged after the request only.
    enc.onAck(259, ack(0, true));
    assert.deepEqual(older(enc, 260), [true, 0, 0]);
    enc.onAck(260, ack(260));
    assert.deepEqual(older(enc, 261), [false, 260, 0]);
    enc.onAck(261, ack(261));
    assert.deepEqual(older(enc, 262), [false, 261, 1]);
  });

  it("looks a coded frame's basis up at a cost of its changes, never the world", () => {
    // The same 16 movers among 64 and among 8,192 entities, acknowledged 4 ticks late so that
    // every frame names a base and an older snapshot: the client reads its live state (each
    // entity read, or visited by a walk) as many times for each frame in both worlds, a frame
    // that carries a check (which hashes the world) aside.
    const moving = 16;
    const counts: number[][] = [];
    const get = LiveState.prototype.get;
    const forEach = LiveState.prototype.forEach;
    let reads = 0;
    LiveState.prototype.get = function (this: LiveState<unknown>, eid: number) {
      reads += 1;
      return get.call(this, eid);
    };
    LiveState.prototype.forEach = function (
      this: LiveState<unknown>,
      f: (eid: number, r: unknown) => void,
    ) {
      forEach.call(this, (eid, r) => {
        reads += 1;
        f(eid, r);
      });
    };
    try {
      for (const n of [64, 8192]) {
        const p = probe();
        const enc = new AckedEncoder(p, sink);
        const dec = new AckedDecoder(p);
        const perFrame: number[] = [];
        for (let t = 1; t <= 60; t++) {
          const state: ServerState<EntityState> = Array.from({ length: n }, (_, eid) => {
            const at = eid < moving ? t : 1;
            return { eid, life: 1, record: record(eid * 8 + at, at) };
          });
          if (t > 4) {
            enc.onAck(t, ack(t - 4));
          }
          const out = enc.encode(t, state, []);
          reads = 0;
          assert.equal(dec.deliver(out.bytes).kind, "shown", `frame ${t}`);
          if (t > 10 && out.frame.check === undefined) {
            assert.ok(out.bytes[0]! > 0, `frame ${t} names no older snapshot`);
            assert.equal(out.frame.changes.length, moving);
            perFrame.push(reads);
          }
        }
        assert.ok(p.checked.inBoth > 0);
        counts.push(perFrame);
      }
    } finally {
      LiveState.prototype.get = get;
      LiveState.prototype.forEach = forEach;
    }
    assert.ok(counts[0]!.length > 40);
    assert.deepEqual(counts[1], counts[0], "the world's size changed the work");
  });

  it("refuses a coded frame that is not the one its prefix said", () => {
    // What a frame is read against is looked up by its prefix: a frame whose body names another
    // base would apply onto a state it was not read against.
    const p = probe();
    // The liar's prefix names base 1 for every frame that is not a keyframe, and it reads the
    // body without holding it to the basis: only the prefix check can catch it.
    const liar: Probe = {
      ...p,
      readBasis(bytes) {
        const ticks = p.readBasis!(bytes);
        return ticks.keyframe ? ticks : { ...ticks, baseTick: 1, older: 0 };
      },
      decodeFrameOnInto(bytes, _basis, out) {
        p.decodeFrameInto(bytes, out);
      },
    };
    const enc = new AckedEncoder(p, sink);
    const dec = new AckedDecoder(liar);
    for (let t = 1; t <= 3; t++) {
      const out = enc.encode(t, world(t), []);
      const d = dec.deliver(out.bytes);
      if (t < 3) {
        assert.equal(d.kind, "shown", `tick ${t}`);
      } else {
        // Frame 3 goes onto 2; its prefix (as the liar reads it) says 1.
        assert.equal(out.frame.baseTick, 2);
        assert.ok(d.kind === "undecodable", d.kind);
        assert.deepEqual([d.error.kind, d.error.path], ["invalid_condition", "base_tick"]);
      }
      enc.onAck(t, ack(dec.ackTick()));
    }
    assert.equal(dec.counters.undecodable, 1);
  });

  it("writes and reads a schema that is not coded exactly as before, never calling the coded members", () => {
    // Kinds 6 and 12: `coded` absent or false, the machines never call the other members.
    const never = () => assert.fail("a coded member was called");
    for (const coded of [undefined, () => false]) {
      const plain: Schema = {
        ...PackedReference,
        ...(coded === undefined ? {} : { coded }),
        readBasis: never,
        encodeFrameOn: never,
        decodeFrameOnInto: never,
      };
      const out = run(plain, SHAPE, 7);
      assert.ok(out.shown > 0 && out.dropped > 0, JSON.stringify(out));
      assert.equal(out.olderNamed, 0);
      assert.equal(out.droppedOlder, 0);
      // The same bytes as the generated schema's, frame for frame, whatever the acks.
      const a = new AckedEncoder(PackedReference, sink);
      const b = new AckedEncoder(plain, sink);
      const da = new AckedDecoder(PackedReference);
      const db = new AckedDecoder(plain);
      for (let t = 1; t <= 40; t++) {
        const x = a.encode(t, world(t), []);
        const y = b.encode(t, world(t), []);
        assert.deepEqual(y.bytes, x.bytes, `tick ${t}`);
        assert.equal(db.deliver(y.bytes).kind, da.deliver(x.bytes).kind, `tick ${t}`);
        if (t % 3 !== 0) {
          a.onAck(t, ack(da.ackTick()));
          b.onAck(t, ack(db.ackTick()));
        }
      }
      assert.deepEqual(db.counters, da.counters);
    }
  });
});

/** A basis of the records in `base` and `older`, by id (what the machines hand the schema). */
function basisOf(
  base: ReadonlyMap<number, EntityState>,
  older: ReadonlyMap<number, EntityState>,
): CodedBasis<EntityState> {
  return { base: (eid) => base.get(eid), older: (eid) => older.get(eid) };
}

/** Entity `eid` at tick `tick`, moving at a steady pace of its own, turned. */
function mover(eid: number, tick: number): EntityState {
  const q = { largest: 3, rest: [0, 0, (eid * 7) % 200] as [number, number, number] };
  return {
    x: 512 * eid + tick * (3 + eid),
    y: -300 * eid + tick * (eid % 5),
    z: 0,
    yaw: 256 * ((eid + tick) % 200),
    flags: StateFlags.ORIENTED,
    measured: tick,
    hp: 100,
    armor: 0,
    vehicle: 0,
    seat: 0,
    orient: { q },
  };
}

/** The state of `n` steady movers at `tick`. */
function movers(n: number, tick: number): ServerState<EntityState> {
  return Array.from({ length: n }, (_, i) => ({ eid: i + 1, life: 1, record: mover(i + 1, tick) }));
}

describe("the generated CodedReference (kind 13)", () => {
  it("shows only the server's states through the acked halves over a lossy network", () => {
    // The session rules of CODE-2 and CODE-3 with the generated coder: every frame shown is the
    // server's state of its tick (run() holds each to its check), none refused, and the stream
    // names older snapshots, so that predictions from both records are made and read back.
    let named = 0;
    for (let seed = 0; seed < 9; seed++) {
      const shape: Shape = {
        ...SHAPE,
        loss: [0.1, 0.25, 0.45][seed % 3]!,
        jitter: [1, 3, 8][seed % 3]!,
        turn: seed % 2 === 0,
      };
      const out = run(CodedReference, shape, 40 + seed);
      assert.ok(out.shown > 0 && out.dropped > 0, `seed ${seed}: ${JSON.stringify(out)}`);
      named += out.olderNamed;
    }
    assert.ok(named > 500, `older snapshots named ${named} times`);
  });

  it("writes smaller frames than kind 12 on the same world, and the client holds the same state", () => {
    // The same states and the same acknowledgements (three ticks late) through PackedReference
    // and CodedReference: the same changes, fewer bytes; both clients show the same states.
    const packed = new AckedEncoder(PackedReference, sink);
    const coded = new AckedEncoder(CodedReference, sink);
    const dp = new AckedDecoder(PackedReference);
    const dc = new AckedDecoder(CodedReference);
    let [bp, bc] = [0, 0];
    for (let t = 1; t <= 120; t++) {
      const state = movers(24, t);
      const x = packed.encode(t, state, []);
      const y = coded.encode(t, state, []);
      assert.equal(y.bytes[0], 13);
      assert.deepEqual(y.frame.changes, x.frame.changes, `tick ${t}`);
      [bp, bc] = [bp + x.bytes.length, bc + y.bytes.length];
      assert.equal(dp.deliver(x.bytes).kind, "shown", `tick ${t}`);
      assert.equal(dc.deliver(y.bytes).kind, "shown", `tick ${t}`);
      assert.equal(dc.stateHash(), dp.stateHash(), `tick ${t}`);
      if (t > 3) {
        packed.onAck(t, ack(t - 3));
        coded.onAck(t, ack(t - 3));
      }
    }
    assert.ok(coded.counters.olderNamed > 100, JSON.stringify(coded.counters));
    assert.ok(bc < bp, `kind 13 ${bc} bytes, kind 12 ${bp}`);
  });

  it("round-trips a frame against its basis, and refuses it against another", () => {
    // A frame onto a base, naming an older snapshot: its steps are predicted from both, its
    // orientation from the base's; read back against the same basis it is the same frame.
    const base = new Map(movers(6, 10).map((e) => [e.eid, e.record]));
    const older = new Map(movers(6, 8).map((e) => [e.eid, e.record]));
    const basis = basisOf(base, older);
    const changes = movers(6, 12).flatMap((e) => {
      const c = PackedReference.diff(e.eid, base.get(e.eid), e.record, 12);
      return c === undefined ? [] : [c];
    });
    assert.equal(changes.length, 6);
    const frame: AckedCoded = {
      tick: 12,
      base_tick: 10,
      last_seq: 0,
      input_buffer: 0,
      flags: 0,
      check: undefined,
      removed: [],
      older: 2,
      body: { changes },
      first_serial: undefined,
      events: [],
    };
    const bytes = encodeAckedCoded(frame, basis);
    assert.deepEqual(decodeAckedCoded(bytes, basis), frame);
    assert.deepEqual(readAckedCodedBasis(bytes), {
      tick: 12,
      baseTick: 10,
      keyframe: false,
      older: 2,
    });
    // Steady movers are predicted exactly: each step codes as 0, in far fewer bytes than
    // against no basis.
    const blind = encodeAckedCoded(frame, new NoBasis());
    assert.ok(bytes.length < blind.length, `${bytes.length} against ${blind.length}`);
    // Against no basis, the same bytes read other values (or fail), never the frame.
    let other: unknown;
    try {
      other = decodeAckedCoded(bytes, new NoBasis());
    } catch (e) {
      other = e;
    }
    assert.notDeepEqual(other, frame);
  });

  it("refuses what the coded profile refuses, with its kind, offset and field", () => {
    // CODE-2: a keyframe naming an older snapshot; on the writer's side, the same frame.
    const key: AckedCoded = {
      tick: 1,
      base_tick: 0,
      last_seq: 0,
      input_buffer: 0,
      flags: AckedFlags.KEYFRAME,
      check: undefined,
      removed: [],
      older: 0,
      body: { changes: [] },
      first_serial: undefined,
      events: [],
    };
    const bytes = encodeAckedCoded(key);
    assert.deepEqual(decodeAckedCoded(bytes), key);
    const bad = bytes.slice();
    bad[17] = 1;
    assert.throws(
      () => decodeAckedCoded(bad),
      (e: unknown) =>
        e instanceof DecodeError &&
        e.kind === "invalid_condition" &&
        e.offset === 17 &&
        e.path === "older",
    );
    assert.throws(
      () => encodeAckedCoded({ ...key, older: 1 }),
      (e: unknown) =>
        e instanceof EncodeError && e.kind === "invalid_condition" && e.path === "older",
    );
    // CODE-4: a coded_len under the floor of 12 bits a change, at coded_len.
    const short = encodeAckedCoded({ ...key, body: { changes: [] } });
    const view = new DataView(short.buffer);
    view.setUint16(18, 1, true);
    assert.throws(
      () => decodeAckedCoded(short),
      (e: unknown) =>
        e instanceof DecodeError &&
        e.kind === "count_too_large" &&
        e.offset === 20 &&
        e.path === "body.coded_len",
    );
    // Ids that do not ascend, on the writer's side: at the change's id.
    const c = {
      eid: 3,
      mask: PackedMask.HEALTH,
      age: undefined,
      pose_full: undefined,
      pose_step: undefined,
      health: { hp: 1, armor: 2 },
      vehicle: undefined,
      orient: undefined,
    };
    assert.throws(
      () => encodeAckedCoded({ ...key, flags: 0, base_tick: 0, body: { changes: [c, c] } }),
      (e: unknown) =>
        e instanceof EncodeError && e.kind === "not_ascending" && e.path === "body.changes[1].eid",
    );
  });

  it("counts the bits it codes over the tables' slots", () => {
    // CODE-8, CODE-17: the models' slots follow each other, and a frame's counts walk them.
    let at = 0;
    for (const [, w] of ACKED_CODED_MODELS) {
      at += modelSlots(w);
    }
    assert.equal(at, ACKED_CODED_SLOTS);
    assert.equal(ACKED_CODED_TABLES.length, ACKED_CODED_SLOTS);
    const counts = new SlotCounts(ACKED_CODED_SLOTS);
    const frame: AckedCoded = {
      tick: 1,
      base_tick: 0,
      last_seq: 0,
      input_buffer: 0,
      flags: AckedFlags.KEYFRAME,
      check: undefined,
      removed: [],
      older: 0,
      body: {
        changes: movers(3, 1).map((e) => PackedReference.diff(e.eid, undefined, e.record, 1)!),
      },
      first_serial: undefined,
      events: [],
    };
    countAckedCoded(frame, counts, new NoBasis());
    const bits = counts.counts().reduce((n, [a, b]) => n + a + b, 0);
    assert.ok(bits > 3 * 20, `${bits} bits counted`);
  });
});
