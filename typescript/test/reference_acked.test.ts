// The reference protocol's acked binding (gen/reference.ts, which `ackwire gen --lang ts` writes
// for `state Reference` of spec/protocol/acked.wire) and its hand-written presenter
// (reference/presenter.ts), over the codec `ackwire gen` writes beside it (test.sh generates both
// into gen/): issue 19's orientation group in kind 6's diff, apply, records and check, the
// presenter's world orientation, and kind 12's schema, which carries every record kind 6 does
// (`over_width` where a kind 12 code has no kind 6 value), as the Rust codec's tests hold theirs.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type AckedPacked,
  ChangeMask,
  DecodeError,
  EncodeError,
  type EntityState,
  type Event,
  type Orientation,
  type PackedChange,
  PackedMask,
  StateFlags,
  Writer,
  decodeAcked,
  encodeAckedPacked,
  fromXyzw,
  writeEntityState,
} from "../gen/protocol.js";
import {
  POSE_REACH,
  PackedReference,
  type PackedReferenceFrame,
  Reference,
  type ReferenceFrame,
} from "../gen/reference.js";
import { Presenter, type WorldEntity, defaultView } from "../gen/reference/presenter.js";
import { delta, emptyFrame } from "../gen/runtime/sessions/acked.js";
import { fnv1a32 } from "../gen/runtime/sessions/fnv.js";
import { TierBoundary } from "../gen/runtime/sessions/tier.js";

/** xorshift64 over a bigint: the same draws on every run. */
class Rng {
  private s: bigint;
  constructor(seed: bigint) {
    this.s = seed;
  }
  /** 32 random bits. */
  u32(): number {
    let x = this.s;
    x ^= (x << 13n) & 0xffffffffffffffffn;
    x ^= x >> 7n;
    x ^= (x << 17n) & 0xffffffffffffffffn;
    this.s = x;
    return Number(x >> 32n);
  }
  below(n: number): number {
    return this.u32() % n;
  }
  /** An integer of `lo..=hi`. */
  within(lo: number, hi: number): number {
    return lo + this.below(hi - lo + 1);
  }
  f32(): number {
    const dv = new DataView(new ArrayBuffer(4));
    dv.setUint32(0, this.u32());
    return dv.getFloat32(0);
  }
}

function orientation(x: number, y: number, z: number, w: number): Orientation {
  return { q: fromXyzw([x, y, z, w], 9) };
}

/**
 * A record the server may send at `tick` after `base` (`undefined`: the entity comes whole): a
 * full pose anywhere an f32 holds 1/512 m exactly, or a quantized one (yaw a multiple of 256)
 * that a PoseStep reaches from the base (within the box, or within an i16 of the origin when the
 * base's pose lies outside it), measured up to 255 ticks ago; an orientation kept once the base
 * has one.
 */
function nextRecord(rng: Rng, base: EntityState | undefined, tick: number): EntityState {
  const full = rng.below(3) === 0;
  const inBox =
    base !== undefined &&
    Math.abs(base.x) <= POSE_REACH &&
    Math.abs(base.y) <= POSE_REACH &&
    Math.abs(base.z) <= POSE_REACH;
  const axis = (from: number) => {
    if (full) {
      return rng.within(-16777215, 16777215);
    }
    // A step of the cube scene's size most often, any reach sometimes.
    const o = inBox ? from : 0;
    const d = rng.below(4) === 0 ? rng.within(-16383, 16383) : rng.within(-300, 300);
    return Math.max(-16383, Math.min(16383, o + d));
  };
  // The base's position again (a quantized one only from within the box, where steps reach it).
  const keep = base !== undefined && (full || inBox) && rng.below(3) === 0;
  const orient =
    base?.orient !== undefined && rng.below(2) === 0
      ? base.orient
      : base?.orient !== undefined || rng.below(2) === 0
        ? orientation(rng.f32(), rng.f32(), rng.f32(), rng.below(3) - 1)
        : undefined;
  const measured = Math.max(0, tick - (rng.below(4) === 0 ? rng.below(256) : 0));
  return {
    x: keep ? base.x : axis(base?.x ?? 0),
    y: keep ? base.y : axis(base?.y ?? 0),
    z: keep ? base.z : rng.below(2) === 0 ? 0 : axis(base?.z ?? 0),
    yaw: full ? rng.below(65536) : rng.below(256) << 8,
    flags: (full ? StateFlags.POSE_FULL : 0) | (orient !== undefined ? StateFlags.ORIENTED : 0),
    measured,
    hp: keep ? base.hp : rng.below(256),
    armor: keep ? base.armor : rng.below(256),
    vehicle: rng.below(4) === 0 ? rng.below(65536) : (base?.vehicle ?? 0),
    seat: rng.below(256),
    orient,
  };
}

/**
 * A frame of each kind from random draws: up to 24 entities, ascending by id, each coming whole
 * or changed from a base, with removals and events; the records the frames turn the bases into.
 */
function frames(rng: Rng): {
  six: ReferenceFrame;
  twelve: PackedReferenceFrame;
  bases: (EntityState | undefined)[];
  nexts: EntityState[];
} {
  const keyframe = rng.below(4) === 0;
  const tick = rng.within(300, 1_000_000);
  const bases: (EntityState | undefined)[] = [];
  const nexts: EntityState[] = [];
  const six: ReferenceFrame = emptyFrame();
  const twelve: PackedReferenceFrame = emptyFrame();
  let eid = 0;
  for (let i = rng.below(24); i > 0; i--) {
    eid += nexts.length === 0 ? rng.below(40) : 1 + (rng.below(5) === 0 ? rng.below(3000) : 0);
    if (eid > 65535) {
      break;
    }
    const base = keyframe || rng.below(3) === 0 ? undefined : nextRecord(rng, undefined, tick - 5);
    const next = nextRecord(rng, base, tick);
    const c6 = Reference.diff(eid, base, next, tick);
    const c12 = PackedReference.diff(eid, base, next, tick);
    assert.equal(c6 === undefined, c12 === undefined, "both kinds send a change, or neither");
    if (c6 === undefined || c12 === undefined) {
      continue;
    }
    bases.push(base);
    nexts.push(next);
    six.changes.push(c6);
    twelve.changes.push(c12);
  }
  const events: Event[] = [];
  for (let i = rng.below(3); i > 0; i--) {
    events.push(
      rng.below(2) === 0
        ? { kind: "shot", value: { shooter: rng.below(65536), weapon: 2, yaw: 90 } }
        : { kind: "blast", value: { x: 1.5, y: -2, z: 0.25, radius: 0.375 } },
    );
  }
  const lastSeq = rng.u32();
  const inputBuffer = rng.below(256);
  const check = rng.below(2) === 0 ? rng.u32() : undefined;
  const removed = Array.from({ length: rng.below(4) }, () => rng.below(65536));
  const firstSerial = events.length > 0 ? rng.u32() : 0;
  for (const f of [six, twelve] as const) {
    f.tick = tick;
    f.baseTick = keyframe ? 0 : tick - 5;
    f.lastSeq = lastSeq;
    f.inputBuffer = inputBuffer;
    f.keyframe = keyframe;
    f.check = check;
    f.removed = removed;
    f.firstSerial = firstSerial;
    f.events = events;
  }
  return { six, twelve, bases, nexts };
}

/** A plain copy of a decoded value (lists and records a reader may reuse copied out). */
function plain(f: unknown): unknown {
  return JSON.parse(JSON.stringify(f, (_k, v: unknown) => (v === undefined ? null : v)));
}

describe("kind 12 through the packed schema", () => {
  it("carries every record kind 6 carries, ORIENT among them, in fewer bytes", () => {
    // ACK-15.
    const rng = new Rng(0x2545f4914f6cdd1dn);
    let orients = 0;
    let changes = 0;
    let six = 0;
    let twelve = 0;
    for (let n = 0; n < 600; n++) {
      const f = frames(rng);
      const bytes6 = Reference.encodeFrame(f.six);
      const bytes12 = PackedReference.encodeFrame(f.twelve);
      assert.equal(bytes12[0], 12, "a kind 12 frame");
      const d6: ReferenceFrame = emptyFrame();
      const d12: PackedReferenceFrame = emptyFrame();
      Reference.decodeFrameInto(bytes6, d6);
      PackedReference.decodeFrameInto(bytes12, d12);
      // The same header; each change applies onto its base as the record it was made of.
      const { changes: _a, ...h6 } = d6;
      const { changes: _b, ...h12 } = d12;
      assert.deepEqual(plain(h12), plain(h6), `frame ${n}`);
      for (let i = 0; i < f.nexts.length; i++) {
        const a6 = Reference.apply(f.bases[i], d6.changes[i]!, d6.tick);
        const a12 = PackedReference.apply(f.bases[i], d12.changes[i]!, d12.tick);
        assert.deepEqual(a6, f.nexts[i], `frame ${n}, change ${i}, kind 6`);
        assert.deepEqual(a12, f.nexts[i], `frame ${n}, change ${i}, kind 12`);
        assert.ok(PackedReference.sameRecord(a12, a6));
        orients += d12.changes[i]!.orient !== undefined ? 1 : 0;
      }
      // What each reads, it writes again as the same bytes.
      assert.deepEqual(Reference.encodeFrame(d6), bytes6, `frame ${n} as kind 6 again`);
      assert.deepEqual(PackedReference.encodeFrame(d12), bytes12, `frame ${n} as kind 12 again`);
      changes += f.nexts.length;
      six += bytes6.length;
      twelve += bytes12.length;
    }
    assert.ok(changes > 3000 && orients > 1000, `too few drawn: ${changes}, ${orients}`);
    assert.ok(twelve < six, `kind 12 took ${twelve} bytes against kind 6's ${six}`);
  });

  it("sends a typical cube change in 28 bytes where kind 6 takes 35", () => {
    // A step of tens of 1/512 m on x and y, none on z, yaw 0, a new orientation: 19 header + 4
    // eid and mask + 7 step + 4 orientation + 1 event count; 17 header + 76 bits in 10 bytes +
    // 1 event count.
    const base = record({ x: 0, y: 0, yaw: 0, measured: 5 });
    const next = record({
      x: 40,
      y: -60,
      yaw: 0,
      measured: 5,
      flags: StateFlags.ORIENTED,
      orient: orientation(0.1, 0.2, 0.3, 0.9),
    });
    const six: ReferenceFrame = { ...emptyFrame(), tick: 5, baseTick: 4, lastSeq: 1 };
    const twelve: PackedReferenceFrame = { ...emptyFrame(), tick: 5, baseTick: 4, lastSeq: 1 };
    six.changes = [Reference.diff(5, base, next, 5)!];
    twelve.changes = [PackedReference.diff(5, base, next, 5)!];
    assert.equal(six.changes[0]!.mask, ChangeMask.POSE | ChangeMask.ORIENT);
    assert.equal(twelve.changes[0]!.mask, PackedMask.POSE | PackedMask.ORIENT);
    assert.equal(Reference.encodeFrame(six).length, 35);
    assert.equal(PackedReference.encodeFrame(twelve).length, 28);
  });

  it("refuses changes that do not ascend (not_ascending): kind 12 has no form for them", () => {
    // ACK-14, WIRE-14.
    for (const ids of [
      [4, 4],
      [9, 2],
    ]) {
      const f: PackedReferenceFrame = { ...emptyFrame(), tick: 5, baseTick: 4 };
      f.changes = ids.map((eid) => ({ eid, mask: PackedMask.HEALTH, health: { hp: 7, armor: 7 } }));
      assert.throws(
        () => PackedReference.encodeFrame(f),
        (e: unknown) => e instanceof EncodeError && e.kind === "not_ascending",
        `${ids}`,
      );
    }
  });

  it("refuses a quantized yaw off its 256 steps, in either kind, at the change", () => {
    const base = record();
    const next = record({ yaw: 0x4001, measured: 9 });
    for (const schema of [Reference, PackedReference] as const) {
      assert.throws(
        () =>
          delta(
            schema,
            [{ eid: 3, life: 1, record: base }],
            [{ eid: 3, life: 1, record: next }],
            9,
          ),
        (e: unknown) =>
          e instanceof EncodeError &&
          e.kind === "over_width" &&
          e.path === "changes[0].pose_step.yaw",
        schema.FRAME_NAME,
      );
    }
  });

  it("refuses the codes past kind 6's ranges as over_width at the body's first byte", () => {
    // ACK-15.
    const body = (c: PackedChange): AckedPacked => ({
      tick: 9,
      base_tick: 8,
      last_seq: 0,
      input_buffer: 0,
      flags: 0,
      check: undefined,
      removed: [1],
      body: { changes: [c] },
      first_serial: undefined,
      events: [],
    });
    const step = (dx: number, yaw: number): PackedChange => ({
      eid: 1,
      mask: PackedMask.POSE,
      pose_step: { dx, dy: 0, dz: 0, yaw },
    });
    const cases: [PackedChange, string][] = [
      [{ eid: 65536, mask: 0 }, "body.changes[0].eid"],
      [step(32768, 0), "body.changes[0].pose_step.dx"],
      [step(-32769, 0), "body.changes[0].pose_step.dx"],
      [step(0, 256), "body.changes[0].pose_step.yaw"],
      [
        {
          eid: 1,
          mask: PackedMask.POSE | PackedMask.POSE_AGE,
          age: 256,
          pose_step: { dx: 0, dy: 0, dz: 0, yaw: 0 },
        },
        "body.changes[0].age",
      ],
    ];
    for (const [c, path] of cases) {
      // The generated kind 12 codec writes every one of them: they are kind 12 codes.
      const bytes = encodeAckedPacked(body(c));
      assert.throws(
        () => PackedReference.decodeFrameInto(bytes, emptyFrame()),
        (e: unknown) => {
          assert.ok(e instanceof DecodeError, String(e));
          assert.deepEqual([e.kind, e.offset, e.bit, e.path], ["over_width", 19, undefined, path]);
          return true;
        },
        path,
      );
    }
    // The edges themselves are kind 6 values, and decode (a packed yaw is its step count).
    const f: PackedReferenceFrame = emptyFrame();
    PackedReference.decodeFrameInto(encodeAckedPacked(body(step(32767, 255))), f);
    assert.deepEqual(f.changes[0]!.pose_step, { dx: 32767, dy: 0, dz: 0, yaw: 255 });
  });

  it("refuses a keyframe naming a base, as kind 6 does, before reading its changes", () => {
    // ACK-4.
    const packed: AckedPacked = {
      tick: 9,
      base_tick: 3,
      last_seq: 0,
      input_buffer: 0,
      flags: 1,
      check: undefined,
      removed: [],
      // A step past an i16: a kind 12 code with no kind 6 value, refused after the header.
      body: {
        changes: [
          { eid: 1, mask: PackedMask.POSE, pose_step: { dx: 33000, dy: 0, dz: 0, yaw: 0 } },
        ],
      },
      first_serial: undefined,
      events: [],
    };
    assert.throws(
      () => PackedReference.decodeFrameInto(encodeAckedPacked(packed), emptyFrame()),
      (e: unknown) =>
        e instanceof DecodeError &&
        e.kind === "invalid_condition" &&
        e.offset === 5 &&
        e.path === "base_tick",
    );
  });

  it("lets nothing but a DecodeError out of mutated kind 12 frames", () => {
    const rng = new Rng(7n);
    let accepted = 0;
    for (let n = 0; n < 3000; n++) {
      const bytes = PackedReference.encodeFrame(frames(rng).twelve);
      const i = rng.below(bytes.length);
      bytes[i] = bytes[i]! ^ (1 + rng.below(255));
      const f: PackedReferenceFrame = emptyFrame();
      try {
        PackedReference.decodeFrameInto(bytes, f);
      } catch (e) {
        assert.ok(e instanceof DecodeError, String(e));
        continue;
      }
      // What it accepts has its one kind 12 form: the same bytes again.
      assert.deepEqual(PackedReference.encodeFrame(f), bytes);
      accepted += 1;
    }
    assert.ok(accepted > 100, `too few mutations accepted to mean anything: ${accepted}`);
  });
});

/** A record of the reference schema, its pose quantized. */
function record(fields: Partial<EntityState> = {}): EntityState {
  return {
    x: 100,
    y: -200,
    z: 0,
    yaw: 0x4000,
    flags: 0,
    measured: 7,
    hp: 100,
    armor: 5,
    vehicle: 0,
    seat: 0,
    orient: undefined,
    ...fields,
  };
}

const A = orientation(0.1, 0.2, 0.3, 0.9);
const B = orientation(-0.5, 0.5, 0.5, 0.5);

describe("the orientation group in kind 6's schema", () => {
  it("sends the whole orientation when it differs from the base's, and applies it", () => {
    // ACK-7.
    const base = record({ flags: StateFlags.ORIENTED, orient: A });
    const next = record({ flags: StateFlags.ORIENTED, orient: B });
    const c = Reference.diff(3, base, next, 7)!;
    assert.equal(c.mask, ChangeMask.ORIENT, "the orientation alone differs");
    assert.deepEqual(c.orient, B);
    const applied = Reference.apply(base, c, 8);
    assert.deepEqual(applied, next);
    assert.ok(Reference.sameRecord(applied, next));
    assert.ok(!Reference.sameRecord(applied, base));
  });

  it("sends nothing of an orientation equal to the base's", () => {
    const base = record({ flags: StateFlags.ORIENTED, orient: A });
    // Equal in value, another object: compared by its smallest three.
    const same = record({ flags: StateFlags.ORIENTED, orient: orientation(0.1, 0.2, 0.3, 0.9) });
    assert.equal(Reference.diff(3, base, same, 7), undefined);
    const hurt = record({ flags: StateFlags.ORIENTED, orient: same.orient, hp: 40 });
    const c = Reference.diff(3, base, hurt, 7)!;
    assert.equal(c.mask, ChangeMask.HEALTH);
    assert.equal(c.orient, undefined);
    // Applied without the group, the base's orientation stays, ORIENTED with it.
    assert.deepEqual(Reference.apply(base, c, 8), hurt);
  });

  it("sends the orientation with a whole entity, and one given to an entity without", () => {
    const next = record({ flags: StateFlags.ORIENTED, orient: A });
    const whole = Reference.diff(3, undefined, next, 7)!;
    assert.notEqual(whole.mask & ChangeMask.ORIENT, 0);
    assert.deepEqual(Reference.apply(undefined, whole, 7), next);
    const first = Reference.diff(3, record(), next, 7)!;
    assert.equal(first.mask, ChangeMask.ORIENT);
    assert.deepEqual(Reference.apply(record(), first, 8), next);
  });

  it("refuses a record that drops the base's orientation, or whose ORIENTED bit disagrees", () => {
    // ACK-22.
    const base = record({ flags: StateFlags.ORIENTED, orient: A });
    const refused = (e: unknown) =>
      e instanceof EncodeError && e.kind === "invalid_condition" && e.path === "orient";
    assert.throws(() => Reference.diff(3, base, record(), 7), refused, "dropped");
    assert.throws(
      () => Reference.diff(3, undefined, record({ flags: StateFlags.ORIENTED }), 7),
      refused,
      "ORIENTED without an orientation",
    );
    assert.throws(
      () => Reference.diff(3, undefined, record({ orient: A }), 7),
      refused,
      "an orientation without ORIENTED",
    );
  });

  it("keeps ORIENTED across a pose that changes tier, and POSE_FULL off the orientation", () => {
    const base = record({ flags: StateFlags.ORIENTED, orient: A });
    const full = record({
      x: 512,
      flags: StateFlags.ORIENTED | StateFlags.POSE_FULL,
      orient: A,
      measured: 9,
    });
    const c = Reference.diff(3, base, full, 9)!;
    assert.equal(c.mask, ChangeMask.POSE | ChangeMask.POSE_FULL, "a pose, no orientation");
    const applied = Reference.apply(base, c, 9);
    assert.deepEqual(applied, full);
    const back = record({ flags: StateFlags.ORIENTED, orient: A, measured: 10 });
    assert.deepEqual(Reference.apply(applied, Reference.diff(3, applied, back, 10)!, 10), back);
  });

  it("hashes the generated writer's bytes: 24, and 28 with an orientation", () => {
    // CHECK-3.
    for (const r of [
      record(),
      record({ flags: StateFlags.ORIENTED, orient: A }),
      record({ flags: StateFlags.ORIENTED | StateFlags.POSE_FULL, orient: B, x: -70000 }),
      record({ flags: StateFlags.ORIENTED, orient: orientation(0, 0, 0, 1) }),
    ]) {
      const w = new Writer();
      writeEntityState(w, r);
      const bytes = w.finish();
      assert.equal(bytes.length, r.orient === undefined ? 24 : 28);
      assert.equal(Reference.hashRecord(r, 0x811c9dc5), fnv1a32(bytes, 0x811c9dc5));
      assert.equal(Reference.hashRecord(r, 12345), fnv1a32(bytes, 12345));
    }
    assert.notEqual(
      Reference.hashRecord(record({ flags: StateFlags.ORIENTED, orient: A }), 1),
      Reference.hashRecord(record({ flags: StateFlags.ORIENTED, orient: B }), 1),
    );
  });

  it("reads an orientation at once as the generated reader does, and leaves it a bad one", () => {
    const f: ReferenceFrame = emptyFrame();
    f.tick = 9;
    f.baseTick = 8;
    f.changes = [
      { eid: 2, mask: ChangeMask.ORIENT, orient: A },
      {
        eid: 4,
        mask: ChangeMask.HEALTH | ChangeMask.ORIENT,
        health: { hp: 1, armor: 2 },
        orient: B,
      },
    ];
    const bytes = Reference.encodeFrame(f);
    const fast: ReferenceFrame = emptyFrame();
    Reference.decodeFrameInto(bytes, fast);
    assert.deepEqual(plain(fast.changes), plain(decodeAcked(bytes).changes));
    assert.deepEqual(fast.changes[1]!.orient, B);
    // A component past the rules (the w it drops is smaller than the x it sends): refused by
    // the generated reader, which says where. Change 0's orientation is bytes 23 to 26.
    const bad = Uint8Array.from(bytes);
    new DataView(bad.buffer).setUint32(23, 3 | (255 << 2), true);
    assert.throws(
      () => Reference.decodeFrameInto(bad, emptyFrame()),
      (e: unknown) =>
        e instanceof DecodeError &&
        e.kind === "non_canonical" &&
        e.path.startsWith("changes[0].orient"),
    );
  });

  it("gives a record its own orientation, not the reused one of the frame read", () => {
    const recordA = record({ flags: StateFlags.ORIENTED, orient: A });
    const f: ReferenceFrame = emptyFrame();
    f.tick = 7;
    f.keyframe = true;
    f.changes = [Reference.diff(2, undefined, recordA, 7)!];
    const out: ReferenceFrame = emptyFrame();
    Reference.decodeFrameInto(Reference.encodeFrame(f), out);
    const held = Reference.apply(undefined, out.changes[0]!, 7);
    assert.deepEqual(held, recordA);
    // The next frame read into the same `out` reuses its change objects.
    f.changes = [
      Reference.diff(2, undefined, record({ flags: StateFlags.ORIENTED, orient: B }), 7)!,
    ];
    Reference.decodeFrameInto(Reference.encodeFrame(f), out);
    assert.deepEqual(out.changes[0]!.orient, B);
    assert.deepEqual(held.orient, A);
  });
});

describe("the presenter's world orientation", () => {
  const entity = (orient?: [number, number, number, number]): WorldEntity => ({
    life: 1,
    x: 20,
    y: 0,
    z: 0,
    yaw: 10,
    hp: 1,
    armor: 0,
    vehicle: 0,
    seat: 0,
    orient,
  });

  it("quantizes it every tick it changes and keeps it for the entity's life", () => {
    // Entity 2 is far (20 m from the origin, the near tier 12 m): its pose is due every 6
    // ticks, its orientation every tick it changes.
    const p = new Presenter({ own: [], tier: new TierBoundary(12, 14), farEvery: 6 });
    const world = new Map<number, WorldEntity>([[2, entity()]]);
    const at = (tick: number) => p.present(tick, world)[0]!.record;
    assert.equal(at(1).orient, undefined);
    assert.equal(at(1).flags & StateFlags.ORIENTED, 0);
    const q: [number, number, number, number] = [0.1, 0.2, 0.3, 0.9];
    world.get(2)!.orient = q;
    // Tick 2 is not a due tick of entity 2 ((2 + 2) % 6 != 0): the orientation comes anyway.
    const r2 = at(2);
    assert.deepEqual(r2.orient, { q: fromXyzw(q, 9) });
    assert.equal(r2.flags, StateFlags.ORIENTED, "ORIENTED, the pose still quantized");
    assert.equal(r2.measured, 1, "the pose was not due");
    // Dropped by the world: the last one stays.
    world.get(2)!.orient = undefined;
    assert.deepEqual(at(3).orient, { q: fromXyzw(q, 9) });
    // A new life under the id without one: none.
    world.set(2, { ...entity(), life: 2 });
    const reborn = at(4);
    assert.equal(reborn.orient, undefined);
    assert.equal(reborn.flags & StateFlags.ORIENTED, 0);
  });

  it("does not count an orientation as a change of the pose", () => {
    // Entity 1 is the client's own (near: its pose is due every tick it differs): given an
    // orientation while it stands still, its pose is the one measured at tick 1.
    const p = new Presenter({ own: [1], tier: new TierBoundary(12, 14), farEvery: 6 });
    const world = new Map<number, WorldEntity>([[1, entity()]]);
    const first = p.present(1, world)[0]!.record;
    assert.equal(first.flags, StateFlags.POSE_FULL);
    world.get(1)!.orient = [0, 0, 0.6, 0.8];
    const r = p.present(2, world)[0]!.record;
    assert.equal(r.flags, StateFlags.POSE_FULL | StateFlags.ORIENTED);
    assert.equal(r.measured, 1, "the pose did not change");
    const c = Reference.diff(1, first, r, 2)!;
    assert.equal(c.mask, ChangeMask.ORIENT, "the orientation alone is sent");
  });

  it("gives the encoder states it can send: every tick's diff applies to the next record", () => {
    const p = new Presenter(defaultView());
    const world = new Map<number, WorldEntity>([[1, entity([0, 0, 0, 1])]]);
    let held: EntityState | undefined;
    let orients = 0;
    for (let tick = 1; tick <= 40; tick++) {
      const w = world.get(1)!;
      w.x = 20 + tick / 10;
      w.orient = tick % 5 === 0 ? undefined : [Math.sin(tick / 7), 0, 0, Math.cos(tick / 7)];
      const next = p.present(tick, world)[0]!.record;
      const c = Reference.diff(1, held, next, tick);
      if (c !== undefined) {
        orients += c.orient !== undefined ? 1 : 0;
        held = Reference.apply(held, c, tick);
      }
      assert.ok(held !== undefined && Reference.sameRecord(held, next), `tick ${tick}`);
    }
    assert.ok(orients >= 30, `the orientation was sent ${orients} times`);
  });
});
