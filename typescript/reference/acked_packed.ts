/**
 * The bit-packed acked schema (`spec/protocol/acked_packed.wire`, kind 12), as the Rust codec's
 * `acked::PackedReference`: the reference protocol's records, changes and events
 * ({@link Reference}'s: the same diff, apply and check), with each frame written and read as
 * kind 12 instead of kind 6.
 *
 * Kind 12 carries exactly kind 6's information: its header is kind 6's, its events are kind 6's,
 * and each `PackedChange` is a kind 6 `Change` in variable widths (the id as a gap from the
 * previous change's, the mask in its six named bits, the steps and the yaw in buckets). So {@link
 * PackedReference} converts between the two at the frame's edge ({@link packFrame}, {@link
 * unpackFrame}) and every session machine (the AckedEncoder, the AckedDecoder, the halves of
 * acked.ts) runs over it unchanged. The conversion is lossless both ways: every kind 6 frame whose
 * changes ascend by id (the only ones the machines apply: ACK-8's changes in ascending id, enforced
 * by the decoder) has exactly one kind 12 frame, and back.
 *
 * ACK-16: every rule of the acked stream holds unchanged, since the machines and the schema's diff
 * and apply are kind 6's: frame N carries what turns the acknowledged S_B into S_N (ACK-19,
 * ACK-21), and each change says whether its pose is full and how old it is (ACK-21): kind 12
 * carries the same bits for both.
 *
 * A kind 6 frame whose changes do not ascend has no kind 12 form: encoding it is
 * `not_ascending`. A few kind 12 codes have no kind 6 value (a bucket list that holds every u16
 * holds more: an id past 65535, a step past an i16, a yaw or an age past a u8): decoding them is
 * `over_width`, reported at the packed body's first byte (no bit: the code itself was read
 * whole) with the field's path (`body.changes[3].pose_step.dx`).
 *
 * Like acked.ts, this file imports the generated codec as `../protocol.js`;
 * conformance/testees/ts/build.sh copies it beside the codec with the rest of this folder.
 */

import {
  type AckedPacked,
  AckedFlags,
  type Change,
  ChangeMask,
  DecodeError,
  EncodeError,
  type PackedChange,
  PackedMask,
  type PoseStep,
  decodeAckedPacked,
  encodeAckedPacked,
  roundHalfAwayFromZero,
} from "../protocol.js";
import { Reference, type ReferenceFrame, type ReferenceSchema, headerInto } from "./acked.js";

/** Kind 6's yaw steps (PoseStep: `quant(u8, 360/256)`). */
const YAW_STEP = 360 / 256;

/** The kind 6 mask bits and the kind 12 bits they become, in the same meaning. */
const MASK_BITS: readonly (readonly [ChangeMask, PackedMask])[] = [
  [ChangeMask.POSE, PackedMask.POSE],
  [ChangeMask.HEALTH, PackedMask.HEALTH],
  [ChangeMask.VEHICLE, PackedMask.VEHICLE],
  [ChangeMask.ORIENT, PackedMask.ORIENT],
  [ChangeMask.POSE_FULL, PackedMask.POSE_FULL],
  [ChangeMask.POSE_AGE, PackedMask.POSE_AGE],
];

/** The kind 6 mask bits kind 12 names: every other is reserved in kind 6 too. */
const NAMED = MASK_BITS.reduce((m, [wide]) => m | wide, 0);

/**
 * Kind 6's mask as kind 12's; a reserved bit of kind 6's (which no decoded change holds, and kind
 * 6's writer refuses) is `reserved_bit`.
 */
function packMask(mask: ChangeMask): PackedMask {
  if (!Number.isInteger(mask) || mask < 0 || (mask & ~NAMED) !== 0 || mask > 0xffff) {
    throw new EncodeError("reserved_bit", "mask");
  }
  let packed = 0;
  for (const [wide, narrow] of MASK_BITS) {
    if ((mask & wide) !== 0) {
      packed |= narrow;
    }
  }
  return packed;
}

function unpackMask(mask: PackedMask): ChangeMask {
  let wide = 0;
  for (const [w, narrow] of MASK_BITS) {
    if ((mask & narrow) !== 0) {
      wide |= w;
    }
  }
  return wide;
}

/**
 * A PoseStep's yaw (degrees) as kind 6's writer quantizes it: `round(yaw / (360/256))`, halves
 * away from zero, a non-finite value as 0, past a u8 `over_width`. The degrees kind 6's model
 * holds are `steps * 360/256`, so the count is recovered exactly for any value kind 6 decodes.
 */
function yawSteps(yaw: number): number {
  const steps = Number.isFinite(yaw) ? roundHalfAwayFromZero(yaw / YAW_STEP) : 0;
  if (!(steps >= 0 && steps <= 255)) {
    throw new EncodeError("over_width", "pose_step.yaw");
  }
  // `+ 0`: a yaw of -0 degrees is step 0, not -0.
  return steps + 0;
}

/** Kind 6's change as kind 12's. */
function packChange(c: Change): PackedChange {
  const mask = packMask(c.mask);
  const full = c.pose_full;
  const step = c.pose_step;
  const h = c.health;
  const v = c.vehicle;
  return {
    eid: c.eid,
    mask,
    age: c.age,
    pose_full: full === undefined ? undefined : { x: full.x, y: full.y, z: full.z, yaw: full.yaw },
    pose_step:
      step === undefined
        ? undefined
        : { dx: step.dx, dy: step.dy, dz: step.dz, yaw: yawSteps(step.yaw) },
    health: h === undefined ? undefined : { hp: h.hp, armor: h.armor },
    vehicle: v === undefined ? undefined : { vehicle: v.vehicle, seat: v.seat },
    orient: c.orient,
  };
}

/**
 * Kind 12's change as kind 6's (ACK-15); a code with no kind 6 value is `over_width` at `at` (the
 * packed body's first byte), with the field's path. The checks run in the Rust codec's order (the
 * id, the age, then the step's yaw and its axes), so that a change with two such codes names the
 * same one.
 */
function unpackChange(c: PackedChange, at: number): Change {
  const over = (field: string) => new DecodeError("over_width", at, undefined, field);
  if (c.eid > 0xffff) {
    throw over("eid");
  }
  if (c.age !== undefined && c.age > 0xff) {
    throw over("age");
  }
  const full = c.pose_full;
  let step: PoseStep | undefined;
  if (c.pose_step !== undefined) {
    const p = c.pose_step;
    if (p.yaw > 0xff) {
      throw over("pose_step.yaw");
    }
    const narrow = (d: number, field: string) => {
      if (d < -0x8000 || d > 0x7fff) {
        throw over(field);
      }
      return d;
    };
    step = {
      dx: narrow(p.dx, "pose_step.dx"),
      dy: narrow(p.dy, "pose_step.dy"),
      dz: narrow(p.dz, "pose_step.dz"),
      yaw: p.yaw * YAW_STEP,
    };
  }
  const h = c.health;
  const v = c.vehicle;
  return {
    eid: c.eid,
    mask: unpackMask(c.mask),
    age: c.age,
    pose_full: full === undefined ? undefined : { x: full.x, y: full.y, z: full.z, yaw: full.yaw },
    pose_step: step,
    health: h === undefined ? undefined : { hp: h.hp, armor: h.armor },
    vehicle: v === undefined ? undefined : { vehicle: v.vehicle, seat: v.seat },
    orient: c.orient,
  };
}

/** `e` inside `body.changes[i]`, when it is a codec error; anything else as it is. */
function inChange(e: unknown, i: number): unknown {
  if (e instanceof DecodeError || e instanceof EncodeError) {
    e.within(i).within("changes").within("body");
  }
  return e;
}

/**
 * A kind 6 frame as kind 12's. An event list past a u8 is `over_width` (`event_count`), a
 * reserved mask bit `reserved_bit` and a step's yaw past a u8 `over_width`, each at its change
 * (`body.changes[3].mask`); changes that do not ascend are refused by the generated writer
 * (`not_ascending`).
 */
export function packFrame(f: ReferenceFrame): AckedPacked {
  if (f.events.length > 255) {
    throw new EncodeError("over_width", "event_count");
  }
  const changes: PackedChange[] = [];
  for (let i = 0; i < f.changes.length; i++) {
    try {
      changes.push(packChange(f.changes[i]!));
    } catch (e) {
      throw inChange(e, i);
    }
  }
  return {
    tick: f.tick,
    base_tick: f.baseTick,
    last_seq: f.lastSeq,
    input_buffer: f.inputBuffer,
    flags: (f.keyframe ? AckedFlags.KEYFRAME : 0) | (f.check !== undefined ? AckedFlags.CHECK : 0),
    check: f.check,
    removed: f.removed,
    body: { changes },
    first_serial: f.events.length > 0 ? f.firstSerial : undefined,
    events: f.events,
  };
}

/**
 * A kind 12 frame as kind 6's, into `out`: its header through kind 6's {@link headerInto} (which
 * checks ACK-4 (a keyframe applies onto nothing, its base_tick 0) as kind 6's decoder checks it,
 * before the changes), then every change converted ({@link unpackChange}'s `over_width`; on that
 * error `out` holds the new header and its old changes, as any frame a decoder failed to read holds
 * anything).
 */
export function unpackFrame(f: AckedPacked, out: ReferenceFrame): void {
  headerInto(f, out);
  // The packed body's first byte: kind 12's header is kind 6's without changed_count.
  const at = 17 + (f.check !== undefined ? 4 : 0) + 2 * f.removed.length;
  const packed = f.body.changes;
  const changes: Change[] = [];
  for (let i = 0; i < packed.length; i++) {
    try {
      changes.push(unpackChange(packed[i]!, at));
    } catch (e) {
      throw inChange(e, i);
    }
  }
  out.changes = changes;
}

/**
 * The bit-packed reference schema: {@link Reference} (its rings, diff, apply, records, check and
 * acks, shared, not copied) with frames of kind 12, named `acked_packed` in a session.
 */
export const PackedReference: ReferenceSchema = {
  ...Reference,
  FRAME_NAME: "acked_packed",

  encodeFrame(f) {
    return encodeAckedPacked(packFrame(f));
  },

  /** The generated `decodeAckedPacked` (the whole frame, nothing after it), then {@link unpackFrame}. */
  decodeFrameInto(bytes, out) {
    unpackFrame(decodeAckedPacked(bytes), out);
  },
};
