/**
 * The reference protocol's acked schema (`spec/protocol/acked.wire`, `docs/spec/acked.md`) bound to
 * the runtime's generic machines (`runtime/sessions/acked.ts`), as the Rust codec's
 * `acked::Reference`: records are `EntityState`, changes are `Change` with POSE_FULL and POSE_AGE,
 * events are `Event`, inputs are `Input`. Beside it, the server's {@link Presenter} (each client's
 * S_N from a world, with the near tier's {@link TierBoundary}), and the two session halves: {@link
 * AckedClientHalf}, the facade a browser or native client drives, and {@link AckedServerHalf}, both
 * over kind 6 by default and over any {@link ReferenceSchema} (kind 12's `PackedReference` of
 * `acked_packed.ts`) when given one.
 *
 * The orientation (ChangeMask.ORIENT, StateFlags.ORIENTED, issue 19) is a group of its own: a
 * smallest-three quaternion is absolute, so a change carries it whole whenever it differs from
 * the base's, never as a step; and a record keeps it for the entity's life once it has one (an
 * apply without the group leaves the base's).
 *
 * This file imports the generated codec as `../protocol.js`: `ackwire gen --lang ts` writes it
 * and the runtime beside it, and conformance/testees/ts/build.sh copies this folder next to
 * them (src/gen/reference/).
 */

import {
  type Ack,
  AckFlags,
  type Acked,
  AckedFlags,
  CHECK_EVERY,
  type Change,
  ChangeMask,
  DecodeError,
  EncodeError,
  type EntityState,
  EVENT_TTL,
  type Event,
  HELD_RING,
  type Health,
  type Input,
  type Orientation,
  type PoseFull,
  type PoseStep,
  RELIABLE_ABOVE,
  SENT_RING,
  StateFlags,
  type Vehicle,
  decodeAck,
  decodeAcked,
  encodeAck,
  encodeAcked,
  fromXyzw,
  roundHalfAwayFromZero,
  smallestThreeFault,
} from "../protocol.js";
import {
  type AckContent,
  type AckedFrame,
  type AckedSchema,
  AckedDecoder,
  AckedEncoder,
  type AckVerdict,
  AckWriter,
  type Delivery,
  type EncoderCounters,
  Inapplicable,
  type InputSink,
  type ServerEntry,
  type ServerState,
} from "../runtime/sessions/acked.js";
import { fnv1a32 } from "../runtime/sessions/fnv.js";
import {
  type Now,
  Outbox,
  SessionError,
  type SessionHalf,
  type Transmit,
  expectFrame,
  tick32,
} from "../runtime/sessions/half.js";
import { type InputWindow, ScheduledInputs } from "../runtime/sessions/input_schedule.js";
import { TierBoundary } from "../runtime/sessions/tier.js";

/**
 * CHECK-5: the box a quantized pose lies in: at most this many 1/512 m steps from the origin on
 * every axis (about 32 m). Any two points of the box are at most 32766 steps apart, so a PoseStep
 * (i16 steps) reaches a quantized pose from any base pose in the box, and from the origin.
 */
export const POSE_REACH = 16383;

/** Steps of 1/512 m an f32 holds exactly, all of them: 2^24. */
const F32_EXACT = 16777216;
const YAW_FULL = 360 / 65536;
const YAW_STEP = 360 / 256;

function inBox(r: EntityState): boolean {
  return Math.abs(r.x) <= POSE_REACH && Math.abs(r.y) <= POSE_REACH && Math.abs(r.z) <= POSE_REACH;
}

/**
 * The point a PoseStep counts from: the base's pose when the base holds the entity (same life)
 * and its pose lies in the box, the origin otherwise. Both sides decide it from the base alone.
 */
function stepOrigin(base: EntityState | undefined): [number, number, number] {
  return base !== undefined && inBox(base) ? [base.x, base.y, base.z] : [0, 0, 0];
}

// CHECK-4: positions are whole steps of 1/512 m; a full pose off that grid cannot be held.
function grid(v: number): number {
  const s = v * 512;
  if (!Number.isFinite(s) || s - Math.trunc(s) !== 0 || Math.abs(s) >= F32_EXACT) {
    throw new Inapplicable("a full pose off the 1/512 m grid");
  }
  return s | 0;
}

/** A float cast to u16 as Rust's `as u16` does: saturating, NaN as 0. */
function asU16(v: number): number {
  return v >= 65535 ? 65535 : v > 0 ? Math.trunc(v) : 0;
}

function over(field: string): EncodeError {
  return new EncodeError("over_width", field);
}

/**
 * Whether the pose group says the same of two records: their position, heading, tier
 * (POSE_FULL alone, not the ORIENTED bit, which is the orientation group's) and measurement
 * tick.
 */
function samePose(a: EntityState, b: EntityState): boolean {
  return (
    a.x === b.x &&
    a.y === b.y &&
    a.z === b.z &&
    a.yaw === b.yaw &&
    (a.flags & StateFlags.POSE_FULL) === (b.flags & StateFlags.POSE_FULL) &&
    a.measured === b.measured
  );
}

/** Whether two orientations (or their absence) are the same smallest three, bit for bit. */
function sameOrient(a: Orientation | undefined, b: Orientation | undefined): boolean {
  if (a === undefined || b === undefined) {
    return a === b;
  }
  return (
    a.q.largest === b.q.largest &&
    a.q.rest[0] === b.q.rest[0] &&
    a.q.rest[1] === b.q.rest[1] &&
    a.q.rest[2] === b.q.rest[2]
  );
}

/** A copy of `o` that nothing else holds (a change read by {@link fastFrame} is reused). */
function copyOrient(o: Orientation): Orientation {
  return { q: { largest: o.q.largest, rest: [o.q.rest[0], o.q.rest[1], o.q.rest[2]] } };
}

/** The bits of each component of the orientation's smallest three (`Orientation`: quat(9)). */
const ORIENT_BITS = 9;

/**
 * `Orientation`'s 29 bits as the generated writer puts them in its 4 bytes, least significant
 * first: `largest` (2 bits), then the three components (9 bits each, two's complement), then
 * three zero padding bits.
 */
function orientWord(o: Orientation): number {
  const c = (i: 0 | 1 | 2) => o.q.rest[i] & 0x1ff;
  return (o.q.largest & 3) | (c(0) << 2) | (c(1) << 11) | (c(2) << 20);
}

/** The scratch bytes of a record: all 28 with an orientation, the first 24 without. */
const RECORD = new Uint8Array(28);
const RECORD_VIEW = new DataView(RECORD.buffer);
const RECORD_PLAIN = RECORD.subarray(0, 24);

/**
 * The reference protocol's records, changes, events and inputs in frames of one kind, with the
 * name its frames go by in a session (the Rust codec's `AckedSchema::FRAME_NAME`): kind 6's
 * {@link Reference} (`acked`) or kind 12's `PackedReference` (`acked_packed`, in
 * acked_packed.ts). The session halves of this file run over either.
 */
export interface ReferenceSchema extends AckedSchema<EntityState, Change, Event, Input> {
  /** The frame name of the schema's frames: `acked` for kind 6, `acked_packed` for kind 12. */
  readonly FRAME_NAME: string;
}

/** The reference protocol's acked schema (acked.wire), its frames kind 6. */
export const Reference: ReferenceSchema = {
  FRAME_NAME: "acked",
  SENT_RING,
  HELD_RING,
  EVENT_TTL,
  CHECK_EVERY,
  RELIABLE_ABOVE,

  /**
   * ACK-21: every change says if its pose is full (POSE_FULL), the base being any recent frame, and
   * a pose taken before the frame's tick carries its age (POSE_AGE) so that the client dates it
   * right (ACK-33).
   */
  diff(eid, base, next, tick) {
    const pose = base === undefined || !samePose(base, next);
    const health = base === undefined || base.hp !== next.hp || base.armor !== next.armor;
    const vehicle = base === undefined || base.vehicle !== next.vehicle || base.seat !== next.seat;
    const oriented = (next.flags & StateFlags.ORIENTED) !== 0;
    if (oriented !== (next.orient !== undefined)) {
      // A record whose ORIENTED bit and orientation disagree: the writer of EntityState refuses
      // it too (its condition is `flags.ORIENTED`).
      throw new EncodeError("invalid_condition", "orient");
    }
    // ACK-22: once an entity has an orientation it keeps it for its life: a change can send a new
    // one but cannot take one away (no group says "none"), so a record that drops the base's
    // orientation is refused rather than sent as a change the client would apply keeping the old
    // one (its check would then differ from the server's).
    if (base !== undefined && base.orient !== undefined && next.orient === undefined) {
      throw new EncodeError("invalid_condition", "orient");
    }
    // Smallest three is absolute: the group goes whole whenever it differs from the base's (and
    // with every whole entity that has one).
    const orient =
      next.orient !== undefined && (base === undefined || !sameOrient(base.orient, next.orient));
    if (!pose && !health && !vehicle && !orient) {
      return undefined;
    }
    // ACK-6: the mask selects the groups that follow; POSE_FULL and POSE_AGE say how the pose travels.
    const change: Change = { eid, mask: 0 };
    if (pose) {
      change.mask |= ChangeMask.POSE;
      const age = tick - next.measured;
      if (age < 0) {
        throw over("age");
      }
      if (age > 0) {
        change.mask |= ChangeMask.POSE_AGE;
        if (age > 255) {
          throw over("age");
        }
        change.age = age;
      }
      if ((next.flags & StateFlags.POSE_FULL) !== 0) {
        change.mask |= ChangeMask.POSE_FULL;
        for (const v of [next.x, next.y, next.z]) {
          if (Math.abs(v) >= F32_EXACT) {
            throw over("pose_full");
          }
        }
        change.pose_full = {
          x: next.x / 512,
          y: next.y / 512,
          z: next.z / 512,
          yaw: next.yaw * YAW_FULL,
        };
      } else {
        const [ox, oy, oz] = stepOrigin(base);
        if ((next.yaw & 0xff) !== 0) {
          throw over("pose_step.yaw");
        }
        const d = (to: number, from: number) => {
          const v = to - from;
          if (v < -32768 || v > 32767) {
            throw over("pose_step");
          }
          return v;
        };
        change.pose_step = {
          dx: d(next.x, ox),
          dy: d(next.y, oy),
          dz: d(next.z, oz),
          yaw: (next.yaw >> 8) * YAW_STEP,
        };
      }
    }
    if (health) {
      change.mask |= ChangeMask.HEALTH;
      change.health = { hp: next.hp, armor: next.armor };
    }
    if (vehicle) {
      change.mask |= ChangeMask.VEHICLE;
      change.vehicle = { vehicle: next.vehicle, seat: next.seat };
    }
    if (orient) {
      change.mask |= ChangeMask.ORIENT;
      change.orient = next.orient;
    }
    return change;
  },

  changeEid(change) {
    return change.eid;
  },

  /**
   * ACK-33: a pose sent with its age is recorded at the tick it was true: the record's `measured`
   * is the frame's tick minus the age.
   */
  apply(base, change, tick) {
    const mask = change.mask;
    let r: EntityState;
    if (base !== undefined) {
      r = {
        x: base.x,
        y: base.y,
        z: base.z,
        yaw: base.yaw,
        flags: base.flags,
        measured: base.measured,
        hp: base.hp,
        armor: base.armor,
        vehicle: base.vehicle,
        seat: base.seat,
        orient: base.orient,
      };
    } else {
      const whole = ChangeMask.POSE | ChangeMask.HEALTH | ChangeMask.VEHICLE;
      if ((mask & whole) !== whole) {
        throw new Inapplicable("an entity comes whole without every group");
      }
      r = {
        x: 0,
        y: 0,
        z: 0,
        yaw: 0,
        flags: 0,
        measured: 0,
        hp: 0,
        armor: 0,
        vehicle: 0,
        seat: 0,
        orient: undefined,
      };
    }
    const full = change.pose_full;
    if (full !== undefined) {
      r.x = grid(full.x);
      r.y = grid(full.y);
      r.z = grid(full.z);
      r.yaw = asU16(roundHalfAwayFromZero(full.yaw / YAW_FULL));
      // The tier is the pose's; ORIENTED is the orientation's and stays.
      r.flags |= StateFlags.POSE_FULL;
    }
    const step = change.pose_step;
    if (step !== undefined) {
      const [ox, oy, oz] = stepOrigin(base);
      // The origin lies in the box and a step is an i16: the sum is always an i32.
      r.x = ox + step.dx;
      r.y = oy + step.dy;
      r.z = oz + step.dz;
      r.yaw = (asU16(roundHalfAwayFromZero(step.yaw / YAW_STEP)) << 8) & 0xffff;
      r.flags &= ~StateFlags.POSE_FULL;
    }
    if ((mask & ChangeMask.POSE) !== 0) {
      const measured = tick - (change.age ?? 0);
      if (measured < 0) {
        throw new Inapplicable("a pose measured before tick 0");
      }
      r.measured = measured;
    }
    const health = change.health;
    if (health !== undefined) {
      r.hp = health.hp;
      r.armor = health.armor;
    }
    const v = change.vehicle;
    if (v !== undefined) {
      r.vehicle = v.vehicle;
      r.seat = v.seat;
    }
    const o = change.orient;
    if (o !== undefined) {
      r.orient = copyOrient(o);
      r.flags |= StateFlags.ORIENTED;
    }
    return r;
  },

  sameRecord(a, b) {
    return (
      samePose(a, b) &&
      a.flags === b.flags &&
      a.hp === b.hp &&
      a.armor === b.armor &&
      a.vehicle === b.vehicle &&
      a.seat === b.seat &&
      sameOrient(a.orient, b.orient)
    );
  },

  /**
   * The generated `writeEntityState`'s 24 bytes (28 with an orientation: its 29 bits padded to
   * 4 bytes, as the generated `writeOrientation` puts them), written at once into one scratch
   * buffer. A record applied from a frame or presented holds a quaternion its decoder or
   * `fromXyzw` made, which the rules accept; nothing here checks them again.
   */
  hashRecord(r, hash) {
    const v = RECORD_VIEW;
    v.setInt32(0, r.x, true);
    v.setInt32(4, r.y, true);
    v.setInt32(8, r.z, true);
    v.setUint16(12, r.yaw, true);
    v.setUint8(14, r.flags);
    v.setUint32(15, r.measured, true);
    v.setUint8(19, r.hp);
    v.setUint8(20, r.armor);
    v.setUint16(21, r.vehicle, true);
    v.setUint8(23, r.seat);
    const o = r.orient;
    if (o === undefined) {
      return fnv1a32(RECORD_PLAIN, hash);
    }
    v.setUint32(24, orientWord(o) >>> 0, true);
    return fnv1a32(RECORD, hash);
  },

  measured(r) {
    return r.measured;
  },

  poseFull(r) {
    return (r.flags & StateFlags.POSE_FULL) !== 0;
  },

  encodeFrame(f) {
    if (f.events.length > 255) {
      throw over("event_count");
    }
    const acked: Acked = {
      tick: f.tick,
      base_tick: f.baseTick,
      last_seq: f.lastSeq,
      input_buffer: f.inputBuffer,
      flags:
        (f.keyframe ? AckedFlags.KEYFRAME : 0) | (f.check !== undefined ? AckedFlags.CHECK : 0),
      check: f.check,
      removed: f.removed,
      changes: f.changes,
      first_serial: f.events.length > 0 ? f.firstSerial : undefined,
      events: f.events,
    };
    return encodeAcked(acked);
  },

  /**
   * The generated `decodeAcked`, with a reader of the common frame at once in front of it
   * ({@link fastFrame}): what that accepts the generated reader accepts as the same frame, and
   * anything else (a fault, events) goes through the generated reader, which tells the error
   * where it is.
   */
  decodeFrameInto(bytes, out) {
    if (fastFrame(bytes, out)) {
      return;
    }
    const f = decodeAcked(bytes);
    headerInto(f, out);
    out.changes = f.changes;
  },

  encodeAck(a) {
    const ack: Ack = {
      ack_tick: a.ackTick,
      flags: a.keyframeRequest ? AckFlags.KEYFRAME_REQUEST : 0,
      first_seq: a.inputs.length > 0 ? a.firstSeq : undefined,
      inputs: a.inputs,
    };
    return encodeAck(ack);
  },

  decodeAck(bytes) {
    const a = decodeAck(bytes);
    return {
      ackTick: a.ack_tick,
      keyframeRequest: (a.flags & AckFlags.KEYFRAME_REQUEST) !== 0,
      firstSeq: a.first_seq ?? 0,
      inputs: a.inputs,
    };
  },

  inputTick(input) {
    return input.tick;
  },
};

/**
 * The lists and records a frame read by {@link fastFrame} into one `out` are made of, reused by
 * the next frame read into it (the AckedDecoder reads every frame into the same `out` and is
 * done with it before the next), so that a warm delivery makes no garbage of its own frame.
 */
interface Pool {
  removed: number[];
  changes: Change[];
  fulls: PoseFull[];
  steps: PoseStep[];
  healths: Health[];
  vehicles: Vehicle[];
  orients: Orientation[];
}

const POOLS = new WeakMap<ReferenceFrame, Pool>();

/** The events of a frame without any (never written to: the decoder only reads a frame). */
const NO_EVENTS: Event[] = [];

/**
 * Reads an acked frame without events at once into `out` (its lists and their records are
 * reused by the next frame read into the same `out`), with the generated reader's checks
 * (the kind, reserved bits, the mask's `requires`, counts against the bytes left, finite floats,
 * no trailing byte); returns false, having read nothing that counts, for anything else: a frame
 * with events, or one the generated reader refuses (it then says why and where). Throws the
 * generated path's error for a keyframe naming a base, as `decodeFrameInto` does after it.
 */
function fastFrame(bytes: Uint8Array, out: ReferenceFrame): boolean {
  let pool = POOLS.get(out);
  if (pool === undefined) {
    pool = {
      removed: [],
      changes: [],
      fulls: [],
      steps: [],
      healths: [],
      vehicles: [],
      orients: [],
    };
    POOLS.set(out, pool);
  }
  const n = bytes.length;
  if (n < 20 || bytes[0] !== 6) {
    return false;
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, n);
  const flags = bytes[14]!;
  if ((flags & ~(AckedFlags.KEYFRAME | AckedFlags.CHECK)) !== 0) {
    return false;
  }
  const removedCount = dv.getUint16(15, true);
  const changedCount = dv.getUint16(17, true);
  let p = 19;
  let check: number | undefined;
  if ((flags & AckedFlags.CHECK) !== 0) {
    if (n - p < 4) {
      return false;
    }
    check = dv.getUint32(p, true);
    p += 4;
  }
  if (removedCount * 2 > n - p) {
    return false;
  }
  const removed = pool.removed;
  removed.length = removedCount;
  for (let i = 0; i < removedCount; i++, p += 2) {
    removed[i] = dv.getUint16(p, true);
  }
  if (changedCount * 4 > n - p) {
    return false;
  }
  const changes = pool.changes;
  for (let i = 0; i < changedCount; i++) {
    if (n - p < 4) {
      return false;
    }
    const eid = dv.getUint16(p, true);
    const mask = dv.getUint16(p + 2, true);
    // acked.wire's ChangeMask: bits 0 to 3, 14 and 15 named, 14 and 15 requiring bit 0.
    if ((mask & ~0xc00f) !== 0 || ((mask & 0xc000) !== 0 && (mask & 1) === 0)) {
      return false;
    }
    const pose = (mask & ChangeMask.POSE) !== 0;
    const full = (mask & ChangeMask.POSE_FULL) !== 0;
    const len =
      4 +
      ((mask & ChangeMask.POSE_AGE) !== 0 ? 1 : 0) +
      (pose ? (full ? 14 : 7) : 0) +
      ((mask & ChangeMask.HEALTH) !== 0 ? 2 : 0) +
      ((mask & ChangeMask.VEHICLE) !== 0 ? 3 : 0) +
      ((mask & ChangeMask.ORIENT) !== 0 ? 4 : 0);
    if (n - p < len) {
      return false;
    }
    p += 4;
    let c = changes[i];
    if (c === undefined) {
      c = {
        eid,
        mask,
        age: undefined,
        pose_full: undefined,
        pose_step: undefined,
        health: undefined,
        vehicle: undefined,
        orient: undefined,
      };
      changes.push(c);
    }
    c.eid = eid;
    c.mask = mask;
    c.age = undefined;
    c.pose_full = undefined;
    c.pose_step = undefined;
    c.health = undefined;
    c.vehicle = undefined;
    c.orient = undefined;
    if ((mask & ChangeMask.POSE_AGE) !== 0) {
      c.age = bytes[p]!;
      p += 1;
    }
    if (pose && full) {
      const x = dv.getFloat32(p, true);
      const y = dv.getFloat32(p + 4, true);
      const z = dv.getFloat32(p + 8, true);
      if (!(Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z))) {
        return false;
      }
      const f = pool.fulls[i] ?? (pool.fulls[i] = { x: 0, y: 0, z: 0, yaw: 0 });
      f.x = x;
      f.y = y;
      f.z = z;
      f.yaw = dv.getUint16(p + 12, true) * (360 / 65536);
      c.pose_full = f;
      p += 14;
    } else if (pose) {
      const st = pool.steps[i] ?? (pool.steps[i] = { dx: 0, dy: 0, dz: 0, yaw: 0 });
      st.dx = dv.getInt16(p, true);
      st.dy = dv.getInt16(p + 2, true);
      st.dz = dv.getInt16(p + 4, true);
      st.yaw = bytes[p + 6]! * (360 / 256);
      c.pose_step = st;
      p += 7;
    }
    if ((mask & ChangeMask.HEALTH) !== 0) {
      const h = pool.healths[i] ?? (pool.healths[i] = { hp: 0, armor: 0 });
      h.hp = bytes[p]!;
      h.armor = bytes[p + 1]!;
      c.health = h;
      p += 2;
    }
    if ((mask & ChangeMask.VEHICLE) !== 0) {
      const v = pool.vehicles[i] ?? (pool.vehicles[i] = { vehicle: 0, seat: 0 });
      v.vehicle = dv.getUint16(p, true);
      v.seat = bytes[p + 2]!;
      c.vehicle = v;
      p += 3;
    }
    if ((mask & ChangeMask.ORIENT) !== 0) {
      // `Orientation`: 29 bits least significant first (largest: u2, then three i9), three
      // zero padding bits; anything else (and any value the quaternion's rules refuse) is left
      // to the generated reader, which says where and why. The record applied from it is a
      // copy (the schema's `apply`), since this object is the next frame's too.
      const word = dv.getUint32(p, true);
      const component = (shift: number) => (((word >>> shift) & 0x1ff) << 23) >> 23;
      const o = pool.orients[i] ?? (pool.orients[i] = { q: { largest: 0, rest: [0, 0, 0] } });
      o.q.largest = word & 3;
      o.q.rest[0] = component(2);
      o.q.rest[1] = component(11);
      o.q.rest[2] = component(20);
      if (word >>> 29 !== 0 || smallestThreeFault(o.q, ORIENT_BITS) !== undefined) {
        return false;
      }
      c.orient = o;
      p += 4;
    }
  }
  changes.length = changedCount;
  // No events, and nothing after: anything else is the generated reader's.
  if (p !== n - 1 || bytes[p] !== 0) {
    return false;
  }
  const baseTick = dv.getUint32(5, true);
  const keyframe = (flags & AckedFlags.KEYFRAME) !== 0;
  if (keyframe && baseTick !== 0) {
    throw new DecodeError("invalid_condition", 5, undefined, "base_tick");
  }
  out.tick = dv.getUint32(1, true);
  out.baseTick = baseTick;
  out.lastSeq = dv.getUint32(9, true);
  out.inputBuffer = bytes[13]!;
  out.keyframe = keyframe;
  out.check = check;
  out.removed = removed;
  out.changes = changes;
  out.firstSerial = 0;
  out.events = NO_EVENTS;
  return true;
}

/** The acked frame of the reference schema. */
export type ReferenceFrame = AckedFrame<Change, Event>;

/**
 * A generated frame's header: every field of kind 6's `Acked` but its changes. Kind 12's
 * `AckedPacked` has them all, under the same names (its header is kind 6's field for field).
 */
export type FrameHeader = Omit<Acked, "changes">;

/**
 * A frame's header, as the generated reader gave it, into `out`: everything but the changes,
 * which are the caller's (kind 6's as read, kind 12's converted). Kind 6's `decodeFrameInto` and
 * kind 12's `unpackFrame` both come through here, before anything else is read into `out`.
 *
 * ACK-4: a keyframe applies onto nothing, and its base_tick is 0: a keyframe naming a base is
 * `invalid_condition` at byte 5, `base_tick` (both kinds' base_tick starts there), thrown before
 * `out` is touched.
 */
export function headerInto(f: FrameHeader, out: ReferenceFrame): void {
  const keyframe = (f.flags & AckedFlags.KEYFRAME) !== 0;
  if (keyframe && f.base_tick !== 0) {
    throw new DecodeError("invalid_condition", 5, undefined, "base_tick");
  }
  out.tick = f.tick;
  out.baseTick = f.base_tick;
  out.lastSeq = f.last_seq;
  out.inputBuffer = f.input_buffer;
  out.keyframe = keyframe;
  out.check = f.check;
  out.removed = f.removed;
  out.firstSerial = f.first_serial ?? 0;
  out.events = f.events;
}

/** The client's AckedDecoder of the reference schema. */
export type ReferenceDecoder = AckedDecoder<EntityState, Change, Event, Input>;

/** The server's acked encoder of the reference schema. */
export type ReferenceEncoder = AckedEncoder<EntityState, Change, Event, Input>;

/** A fresh AckedDecoder of the reference schema (kind 6, or the one given). */
export function referenceDecoder(schema: ReferenceSchema = Reference): ReferenceDecoder {
  return new AckedDecoder(schema);
}

/**
 * An acked encoder of the reference schema (kind 6, or the one given) whose inputs go to the
 * schedule of `window`.
 */
export function referenceEncoder(
  window: InputWindow,
  schema: ReferenceSchema = Reference,
): {
  encoder: ReferenceEncoder;
  inputs: ScheduledInputs<Input>;
} {
  const inputs = new ScheduledInputs<Input>(window);
  return { encoder: new AckedEncoder(schema, inputs), inputs };
}

// ---- the presenter: each client's S_N ----

/** One entity of the server's world (the reference schema), in world units (f32 values). */
export interface WorldEntity {
  /** Which life of its id; bumped by every spawn under the id. */
  life: number;
  /** East, metres. */
  x: number;
  /** North, metres. */
  y: number;
  /** Up, metres. */
  z: number;
  /** Heading, degrees. */
  yaw: number;
  /** Hit points. */
  hp: number;
  /** Armour points. */
  armor: number;
  /** The vehicle it is in, 0 on foot. */
  vehicle: number;
  /** The seat taken. */
  seat: number;
  /**
   * Its orientation, a unit quaternion `[x, y, z, w]` (any norm: it is normalised), or
   * `undefined` for an entity without one. An entity keeps the orientation it was last given
   * for its life: `undefined` after a quaternion presents the last one again (the wire has no
   * way to take an orientation away, see `Reference.diff`).
   */
  orient?: readonly [number, number, number, number] | undefined;
}

/** The server's world: entities by id. */
export type World = ReadonlyMap<number, WorldEntity>;

/** A pose is measured again at least this often (in ticks), so that its age fits POSE_AGE's u8. */
export const POSE_REFRESH = 255;

/** How a client sees the world: its own entities, the near tier's boundary, the far rate. */
export interface ViewConfig {
  /** The client's own entities; the lowest present is where it stands. */
  readonly own: readonly number[];
  /** The near tier, with hysteresis (SRV-5 to SRV-9). */
  readonly tier: TierBoundary;
  /** A far entity's pose is due on the ticks where `(tick + eid) % farEvery == 0`. */
  readonly farEvery: number;
}

/** The default view: no own entity, near within 12 m (leaving past 14 m), far every 6 ticks. */
export function defaultView(): ViewConfig {
  return { own: [], tier: new TierBoundary(12, 14), farEvery: 6 };
}

/** Metres (an f32) as whole steps of 1/512 m (acked.wire, EntityState). */
function steps(v: number): number {
  if (!Number.isFinite(v)) {
    return 0;
  }
  // `| 0`, as Rust's `as i32`: a pose just below zero is step 0, never -0 (an f32 -0 on the wire).
  return Math.min(16777215, Math.max(-16777215, roundHalfAwayFromZero(v * 512))) | 0;
}

/** Degrees (an f32) as 65536 steps a turn. */
function yawSteps(deg: number): number {
  if (!Number.isFinite(deg)) {
    return 0;
  }
  let r = deg % 360;
  if (r < 0) {
    r += 360;
  }
  return (roundHalfAwayFromZero((r / 360) * 65536) >>> 0) & 0xffff;
}

/**
 * Computes each tick's S_N for one client of the reference schema, as the Rust codec's `Presenter`.
 * ACK-17, ACK-18: per client, the server computes S_N, the state an ordered client holds after
 * frame N (records, pose full or not, tier, measurement tick), as the ordered encoder would: the
 * changes, far poses only when due or when their rest changed, the client's own entities with full
 * poses.
 *
 * Per entity of the world: new (or a new life), whole, its pose measured now; near (the
 * client's own, or within the tier boundary, judged with hysteresis against the tier it was
 * sent at last) or outside the quantized box (POSE_REACH), the pose comes full whenever it
 * differs; far, the pose comes quantized (1/512 m, 256 yaw steps) only when it is due, its
 * rest or its tier changed, and it differs; any pose is measured again when POSE_REFRESH old.
 * The orientation (issue 19) is kept current on every tick it changes, like health, whatever
 * the pose's tier and rate, quantized with `fromXyzw(q, 9)` (acked.wire's `quat(9)`), and kept
 * for the entity's life when the world drops it.
 */
export class Presenter {
  /** The view it computes for. */
  readonly config: ViewConfig;
  private prev: ServerEntry<EntityState>[] = [];
  private near: boolean[] = [];

  /** A presenter for a client that holds nothing yet. */
  constructor(config: ViewConfig) {
    this.config = config;
  }

  /** S_N for tick `tick` of `world`. */
  present(tick: number, world: World): ServerState<EntityState> {
    const config = this.config;
    // Where the client stands: its own entity with the lowest id present, or the origin.
    let viewer: [number, number, number] = [0, 0, 0];
    let lowest = Infinity;
    for (const eid of config.own) {
      const w = world.get(eid);
      if (w !== undefined && eid < lowest) {
        lowest = eid;
        viewer = [steps(w.x), steps(w.y), steps(w.z)];
      }
    }
    const eids = [...world.keys()].sort((a, b) => a - b);
    const next: ServerEntry<EntityState>[] = [];
    const nearNext: boolean[] = [];
    let h = 0;
    for (const eid of eids) {
      const w = world.get(eid)!;
      while (h < this.prev.length && this.prev[h]!.eid < eid) {
        h += 1;
      }
      let prev: EntityState | undefined;
      let wasNear = false;
      if (h < this.prev.length && this.prev[h]!.eid === eid) {
        const last = this.prev[h]!;
        if (last.life === w.life) {
          prev = last.record;
          wasNear = this.near[h]!;
        }
        h += 1;
      }
      const x = steps(w.x);
      const y = steps(w.y);
      const z = steps(w.z);
      const own = config.own.includes(eid);
      const tier = config.tier;
      // A distance is never negative: a negative (or NaN) radius admits nothing.
      const radius = wasNear ? tier.leave : tier.enter;
      let near = own;
      if (!near && radius >= 0) {
        const dx = (x - viewer[0]) / 512;
        const dy = (y - viewer[1]) / 512;
        const dz = (z - viewer[2]) / 512;
        near = tier.admits(wasNear, Math.fround(Math.sqrt(dx * dx + dy * dy + dz * dz)));
      }
      const box =
        Math.abs(x) <= POSE_REACH && Math.abs(y) <= POSE_REACH && Math.abs(z) <= POSE_REACH;
      const full = near || !box;
      const yawFull = yawSteps(w.yaw);
      // 256 steps a turn, kept as a multiple of 256 of the 65536.
      const yaw = full ? yawFull : (((yawFull + 128) >> 8) << 8) & 0xffff;
      // The orientation is kept current on every tick it changes, like health, whatever the
      // pose's tier and rate; the entity keeps its last one when the world drops it.
      let orient: Orientation | undefined;
      if (w.orient !== undefined) {
        orient = { q: fromXyzw(w.orient, ORIENT_BITS) };
      } else if (prev !== undefined) {
        orient = prev.orient;
      }
      const oriented = orient !== undefined ? StateFlags.ORIENTED : 0;
      const flags = (full ? StateFlags.POSE_FULL : 0) | oriented;
      let record: EntityState;
      if (prev === undefined) {
        record = {
          x,
          y,
          z,
          yaw,
          flags,
          measured: tick,
          hp: w.hp,
          armor: w.armor,
          vehicle: w.vehicle,
          seat: w.seat,
          orient,
        };
      } else {
        const p = prev;
        const restChanged =
          p.hp !== w.hp || p.armor !== w.armor || p.vehicle !== w.vehicle || p.seat !== w.seat;
        const tierChanged = near !== wasNear;
        // The pose's tier alone: ORIENTED is the orientation's.
        const differs =
          p.x !== x ||
          p.y !== y ||
          p.z !== z ||
          p.yaw !== yaw ||
          ((p.flags & StateFlags.POSE_FULL) !== 0) !== full;
        const refresh = Math.max(0, tick - p.measured) >= POSE_REFRESH;
        const due =
          near ||
          restChanged ||
          tierChanged ||
          ((tick + eid) % 4294967296) % Math.max(1, config.farEvery) === 0;
        const send = refresh || (due && differs);
        record = send
          ? {
              x,
              y,
              z,
              yaw,
              flags,
              measured: tick,
              hp: w.hp,
              armor: w.armor,
              vehicle: w.vehicle,
              seat: w.seat,
              orient,
            }
          : {
              x: p.x,
              y: p.y,
              z: p.z,
              yaw: p.yaw,
              flags: (p.flags & ~StateFlags.ORIENTED) | oriented,
              measured: p.measured,
              hp: w.hp,
              armor: w.armor,
              vehicle: w.vehicle,
              seat: w.seat,
              orient,
            };
      }
      next.push({ eid, life: w.life, record });
      nearNext.push(near);
    }
    this.prev = next;
    this.near = nearNext;
    return next;
  }
}

// ---- the session halves ----

/**
 * The client's half of acked snapshots, the facade a browser or native client drives (the
 * Rust codec's `session::AckedClient`): an AckedDecoder and the kind 7 AckWriter. A frame is an
 * `acked` frame (or an `acked_packed` one, over kind 12's `PackedReference`: the schema's
 * FRAME_NAME), reported as its {@link Delivery}; a tick takes the player's input (or none)
 * and sends one `ack` acknowledging the newest frame applied, with the inputs `last_seq` does
 * not cover yet, KEYFRAME_REQUEST set after a failed check until a keyframe applies.
 *
 * Sans-IO: the page owns the socket and the clock; poll {@link pollTransmit} after each call.
 */
export class AckedClientHalf implements SessionHalf<Input | undefined, Delivery<Event>> {
  /** The decoder, for its lower-level methods (its counters, its held states). */
  readonly decoder: ReferenceDecoder;
  private readonly schema: ReferenceSchema;
  private readonly writer: AckWriter<Input>;
  private readonly out = new Outbox();

  /**
   * A fresh client; the writer repeats at most `keep` inputs (1 to 255) until covered. Its
   * frames are `schema`'s: kind 6 (`acked`) unless given kind 12's `PackedReference`.
   */
  constructor(keep = 16, schema: ReferenceSchema = Reference) {
    this.schema = schema;
    this.decoder = new AckedDecoder(schema);
    this.writer = new AckWriter<Input>(keep);
  }

  /** The server's `acked` (or the schema's) frame arrives; any other name is a SessionError. */
  handleFrame(_now: Now, frame: string, bytes: Uint8Array): Delivery<Event> {
    expectFrame(frame, this.schema.FRAME_NAME);
    // The writer stops repeating what the frame's `last_seq` covers at the next tick.
    return this.decoder.deliver(bytes);
  }

  /** A client tick: queues one `ack` frame, with `input` added to those repeated. */
  handleTick(_now: Now, input?: Input): void {
    this.writer.confirm(this.decoder.lastSeq());
    if (input !== undefined) {
      this.writer.push(input);
    }
    const ack = this.writer.frame(this.decoder.ackTick(), this.decoder.keyframeWanted());
    let bytes: Uint8Array;
    try {
      bytes = this.schema.encodeAck(ack);
    } catch (e) {
      throw new SessionError("encode", (e as Error).message, e);
    }
    this.out.push({ frame: "ack", bytes, reliable: false });
  }

  /** The next frame to send, or `undefined`. */
  pollTransmit(): Transmit | undefined {
    return this.out.poll();
  }

  /** The FNV-1a 32 of the shown state (the check's value: CHECK-2). */
  stateHash(): number {
    return this.decoder.stateHash();
  }

  /** The tick of the last frame shown, if any. */
  shownTick(): number | undefined {
    return this.decoder.shown();
  }

  /** How many entities are shown. */
  get shownCount(): number {
    return this.decoder.state().size;
  }

  /** The shown record of `eid` (read-only: it is the decoder's). */
  entity(eid: number): Readonly<EntityState> | undefined {
    return this.decoder.state().get(eid);
  }

  /**
   * Calls `f` with every shown entity, ascending by id, for drawing: positions are whole steps
   * of 1/512 m (divide by 512 for metres, {@link metres}), yaw is 65536 steps a turn.
   */
  forEachShown(f: (eid: number, entity: Readonly<EntityState>) => void): void {
    this.decoder.state().forEach(f);
  }
}

/** Steps of 1/512 m as metres. */
export function metres(steps: number): number {
  return steps / 512;
}

/** Yaw steps (65536 a turn) as degrees. */
export function degrees(yaw: number): number {
  return yaw * YAW_FULL;
}

/** What the acked server's world is on a tick. */
export interface AckedTick {
  /** The world. */
  readonly world: World;
  /** The tick's new events. */
  readonly events: readonly Event[];
}

/** What an `ack` did to the acked server. */
export interface AckedAckReport {
  /** The encoder's verdict. */
  readonly verdict: AckVerdict;
  /** The acknowledged base now. */
  readonly base: number | undefined;
  /** The newest input sequence received. */
  readonly lastSeq: number;
  /** The encoder's counters. */
  readonly counters: Readonly<EncoderCounters>;
}

/**
 * The server's half of acked snapshots (the Rust codec's `session::AckedServer`): a
 * {@link Presenter} and an acked encoder over an input sink. A tick takes the world and the
 * tick's events and queues one `acked` frame (the schema's: `acked_packed` over kind 12's
 * `PackedReference`; reliable over RELIABLE_ABOVE bytes); a frame is the client's `ack`,
 * judged against the tick of `now`.
 */
export class AckedServerHalf implements SessionHalf<AckedTick, AckedAckReport> {
  /** The client's view. */
  readonly presenter: Presenter;
  /** The encoder, for its lower-level methods. */
  readonly encoder: ReferenceEncoder;
  private readonly frameName: string;
  private readonly out = new Outbox();

  /**
   * The half over `presenter`, its encoder's inputs going to `inputs`, its frames `schema`'s
   * (kind 6 unless given kind 12's `PackedReference`).
   */
  constructor(presenter: Presenter, inputs: InputSink<Input>, schema: ReferenceSchema = Reference) {
    this.presenter = presenter;
    this.encoder = new AckedEncoder(schema, inputs);
    this.frameName = schema.FRAME_NAME;
  }

  /** The client's `ack` frame arrives; an undecodable one is a SessionError of kind `decode`. */
  handleFrame(now: Now, frame: string, bytes: Uint8Array): AckedAckReport {
    expectFrame(frame, "ack");
    let verdict: AckVerdict;
    try {
      verdict = this.encoder.receive(now.tick, bytes);
    } catch (e) {
      if (e instanceof DecodeError) {
        throw new SessionError("decode", e.message, e);
      }
      throw e;
    }
    return {
      verdict,
      base: this.encoder.acked(),
      lastSeq: this.encoder.lastSeq(),
      counters: { ...this.encoder.counters },
    };
  }

  /** Tick `now.tick` passes: presents the world and queues its frame. */
  handleTick(now: Now, input: AckedTick): void {
    const tick = tick32(now.tick);
    const state = this.presenter.present(tick, input.world);
    let sent;
    try {
      sent = this.encoder.encode(tick, state, input.events);
    } catch (e) {
      if (e instanceof EncodeError) {
        throw new SessionError("encode", e.message, e);
      }
      throw e;
    }
    this.out.push({ frame: this.frameName, bytes: sent.bytes, reliable: sent.reliable });
  }

  /** The next frame to send, or `undefined`. */
  pollTransmit(): Transmit | undefined {
    return this.out.poll();
  }
}

/** The kind 7 content type, re-exported for callers of the halves. */
export type { AckContent };
