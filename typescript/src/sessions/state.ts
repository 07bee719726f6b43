/**
 * What the bindings `ackwire gen --lang ts` writes for a `state` (spec/LANGUAGE.md, "Replicated
 * state") call: the parts of an acked frame that are ACK-2's and the same for every state
 * (its header kept into an {@link AckedFrame}, a reader at once of the header, the removed ids
 * and the frame's end), and the arithmetic every group's fields share (an age, a step, a
 * coarser integer, a float's whole units), each refusing what LANGUAGE.md's rule refuses. The
 * generated code spells out each state's own fields; the rules live here once.
 *
 * Encoding refuses with an {@link EncodeError} (`over_width`, at the field's path inside its
 * change), applying with {@link Inapplicable} (the frame is then not applied at all).
 */

import { DecodeError, EncodeError } from "../errors.js";
import { roundHalfAwayFromZero } from "../ints.js";
import { Reader } from "../reader.js";
import { type SmallestThree, smallestThreeFault } from "../quat.js";
import { type AckContent, type AckedFrame, Inapplicable } from "./acked.js";

/**
 * The acked session's constants (acked.wire's values), which a binding uses for those its
 * spec does not declare.
 */
export const SESSION_DEFAULTS = {
  SENT_RING: 32,
  HELD_RING: 64,
  EVENT_TTL: 60,
  CHECK_EVERY: 30,
  RELIABLE_ABOVE: 1200,
} as const;

// ---- encoding a change: the wire value of a field, or over_width ----

/**
 * The age a change carries for a group measured at `measured`, in a frame of `tick`
 * (LANGUAGE.md: "the frame's tick less it ... present exactly when the age is not 0"):
 * `undefined` for 0; before the frame's tick or past `max`, `over_width` at `path`.
 */
export function ageOf(
  tick: number,
  measured: number,
  max: number,
  path: string,
): number | undefined {
  const age = tick - measured;
  if (age === 0) {
    return undefined;
  }
  if (age < 0 || age > max) {
    throw new EncodeError("over_width", path);
  }
  return age;
}

/** `to` less `from` (a step from the base's value), within `lo..=hi`, else `over_width`. */
export function stepOf(to: number, from: number, lo: number, hi: number, path: string): number {
  const d = to - from;
  if (d < lo || d > hi) {
    throw new EncodeError("over_width", path);
  }
  return d;
}

/** Whether `to` less `from` lies within `lo..=hi`: the step form can carry it. */
export function stepFits(to: number, from: number, lo: number, hi: number): boolean {
  const d = to - from;
  return d >= lo && d <= hi;
}

/**
 * `v` in a unit `by` times coarser (the wire's integer of a `quant` whose unit is a whole
 * multiple of the field's): refused (`over_width`) when `by` does not divide it or the quotient
 * leaves `lo..=hi`.
 */
export function coarser(v: number, by: number, lo: number, hi: number, path: string): number {
  const q = v / by;
  if (!Number.isInteger(q) || q < lo || q > hi) {
    throw new EncodeError("over_width", path);
  }
  return q;
}

/** Whether {@link coarser} takes `v`. */
export function coarserFits(v: number, by: number, lo: number, hi: number): boolean {
  const q = v / by;
  return Number.isInteger(q) && q >= lo && q <= hi;
}

/**
 * An integer field's value as a float of the wire: `v` units of `unit` (a power of two, so the
 * product is exact), refused (`over_width`) at a magnitude of `limit` or more, which the float
 * does not hold exactly.
 */
export function floatOf(v: number, unit: number, limit: number, path: string): number {
  if (!(Math.abs(v) < limit)) {
    throw new EncodeError("over_width", path);
  }
  return v * unit;
}

/**
 * The wire's integer of a quantized value of a nested group's record (a float of `unit`s), for
 * a packed code: round(v / unit), refused (`over_width`) outside `lo..=hi`, as its byte-aligned
 * writer refuses it.
 */
export function quantized(v: number, unit: number, lo: number, hi: number, path: string): number {
  const q = Number.isFinite(v) ? roundHalfAwayFromZero(v / unit) + 0 : 0;
  if (q < lo || q > hi) {
    throw new EncodeError("over_width", path);
  }
  return q;
}

/** Whether {@link floatOf} takes `v`. */
export function floatFits(v: number, limit: number): boolean {
  return Math.abs(v) < limit;
}

/** {@link stepOf} of a 64-bit field (a `bigint`). */
export function stepOfBig(to: bigint, from: bigint, lo: bigint, hi: bigint, path: string): bigint {
  const d = to - from;
  if (d < lo || d > hi) {
    throw new EncodeError("over_width", path);
  }
  return d;
}

/** {@link stepFits} of a 64-bit field. */
export function stepFitsBig(to: bigint, from: bigint, lo: bigint, hi: bigint): boolean {
  const d = to - from;
  return d >= lo && d <= hi;
}

/** {@link coarser} of a 64-bit field. */
export function coarserBig(v: bigint, by: bigint, lo: bigint, hi: bigint, path: string): bigint {
  const q = v / by;
  if (q * by !== v || q < lo || q > hi) {
    throw new EncodeError("over_width", path);
  }
  return q;
}

/** {@link coarserFits} of a 64-bit field. */
export function coarserFitsBig(v: bigint, by: bigint, lo: bigint, hi: bigint): boolean {
  const q = v / by;
  return q * by === v && q >= lo && q <= hi;
}

/** {@link floatOf} of a 64-bit field. */
export function floatOfBig(v: bigint, unit: number, limit: bigint, path: string): number {
  if (!(v < limit && -v < limit)) {
    throw new EncodeError("over_width", path);
  }
  return Number(v) * unit;
}

/** Whether {@link floatOfBig} takes `v`. */
export function floatFitsBig(v: bigint, limit: bigint): boolean {
  return v < limit && -v < limit;
}

// ---- applying a change: the field's value from the wire, or Inapplicable ----

/**
 * The field's integer of a float carried on the wire: `v` times `perUnit` (the inverse of the
 * field's unit), which must be a whole number within `lo..=hi`; anything else (off the field's
 * grid, past what the float holds exactly, not finite) throws {@link Inapplicable} with `why`.
 */
export function wholeUnits(
  v: number,
  perUnit: number,
  lo: number,
  hi: number,
  why: string,
): number {
  const s = v * perUnit;
  if (!Number.isInteger(s) || s < lo || s > hi) {
    throw new Inapplicable(why);
  }
  // `+ 0`: -0 is the integer 0.
  return s + 0;
}

/**
 * The wire's integer of a quantized float as the generated reader made it (`n * unit`):
 * `round(v / unit)`, halves away from zero, saturating at `lo` and `hi` and NaN as 0, as a
 * Rust `as` cast (a decoded value gives back its integer exactly).
 */
export function wireSteps(v: number, unit: number, lo: number, hi: number): number {
  const n = roundHalfAwayFromZero(v / unit);
  if (n >= hi) {
    return hi;
  }
  if (n <= lo) {
    return lo;
  }
  // NaN fails both tests above: it is 0, as Rust casts it.
  return n === n ? n + 0 : 0;
}

/** `v` when it lies within `lo..=hi` (a field's type), else {@link Inapplicable} with `why`. */
export function inRange(v: number, lo: number, hi: number, why: string): number {
  if (v < lo || v > hi) {
    throw new Inapplicable(why);
  }
  return v;
}

/** {@link inRange} of a 64-bit field. */
export function inRangeBig(v: bigint, lo: bigint, hi: bigint, why: string): bigint {
  if (v < lo || v > hi) {
    throw new Inapplicable(why);
  }
  return v;
}

/** A group's tick from a change's age in a frame of `tick`; before 0 {@link Inapplicable}. */
export function measuredAt(tick: number, age: number | undefined, why: string): number {
  const m = tick - (age ?? 0);
  if (m < 0) {
    throw new Inapplicable(why);
  }
  return m;
}

// ---- a quaternion in byte-aligned bytes ----

/**
 * Writes `q`, a `quat(bits)`, as a byte-aligned record holds it (its packed record's bits,
 * least significant first: `largest` in 2 bits, then each component in `bits` bits of two's
 * complement, zero bits to the byte) at byte `at` of `view`; returns the bytes written.
 */
export function putQuat(view: DataView, at: number, q: SmallestThree, bits: number): number {
  const total = 2 + 3 * bits;
  const bytes = (total + 7) >> 3;
  if (total <= 32) {
    // One word: the common case (quat(9) takes 29 bits).
    const m = (1 << bits) - 1;
    const word =
      ((q.largest & 3) |
        ((q.rest[0] & m) << 2) |
        ((q.rest[1] & m) << (2 + bits)) |
        ((q.rest[2] & m) << (2 + 2 * bits))) >>>
      0;
    if (bytes === 4) {
      view.setUint32(at, word, true);
    } else {
      for (let i = 0; i < bytes; i++) {
        view.setUint8(at + i, (word >>> (8 * i)) & 0xff);
      }
    }
    return bytes;
  }
  const top = 2 ** bits;
  // Up to 2 + 3 * 32 bits, kept as whole numbers below 2^53 and written a byte at a time.
  let acc = q.largest & 3;
  let held = 2;
  let p = at;
  for (let i = 0; i < 3; i++) {
    const v = q.rest[i]!;
    acc += (v < 0 ? v + top : v) * 2 ** held;
    held += bits;
    while (held >= 8) {
      view.setUint8(p++, acc % 256);
      acc = Math.floor(acc / 256);
      held -= 8;
    }
  }
  if (held > 0) {
    view.setUint8(p, acc);
  }
  return bytes;
}

/** A copy of `q` that nothing else holds (a change read at once is reused by the next frame). */
export function copyQuat(q: SmallestThree): SmallestThree {
  return { largest: q.largest, rest: [q.rest[0], q.rest[1], q.rest[2]] };
}

/**
 * Reads a `quat(bits)` at byte `at` of `view` into `q`, as {@link putQuat} writes it; false
 * when a padding bit is set or the value breaks the canonical rules (`smallestThreeFault`),
 * which the generated reader then reports. The bytes must be there.
 */
export function takeQuat(view: DataView, at: number, bits: number, q: SmallestThree): boolean {
  const total = 2 + 3 * bits;
  const bytes = (total + 7) >> 3;
  if (total <= 32) {
    let word = 0;
    if (bytes === 4) {
      word = view.getUint32(at, true);
    } else {
      for (let i = 0; i < bytes; i++) {
        word |= view.getUint8(at + i) << (8 * i);
      }
    }
    // Each component's bits moved to the top of the word and back: its sign extended.
    const up = 32 - bits;
    q.largest = word & 3;
    q.rest[0] = ((word >>> 2) << up) >> up;
    q.rest[1] = ((word >>> (2 + bits)) << up) >> up;
    q.rest[2] = ((word >>> (2 + 2 * bits)) << up) >> up;
    return (total === 32 || word >>> total === 0) && smallestThreeFault(q, bits) === undefined;
  }
  const top = 2 ** bits;
  let acc = 0;
  let held = 0;
  let p = at;
  const take = (width: number): number => {
    while (held < width) {
      acc += view.getUint8(p++) * 2 ** held;
      held += 8;
    }
    const scale = 2 ** width;
    const v = acc % scale;
    acc = (acc - v) / scale;
    held -= width;
    return v;
  };
  q.largest = take(2);
  for (let i = 0; i < 3; i++) {
    const v = take(bits);
    q.rest[i] = v >= top / 2 ? v - top : v;
  }
  // What is left of the last byte must be zero.
  return acc === 0 && smallestThreeFault(q, bits) === undefined;
}

// ---- the frame: ACK-2's header, the same in every acked frame ----

/** The acked frames' flags (ACK-4): bit 0 KEYFRAME, bit 1 CHECK. */
const KEYFRAME = 1;
const CHECK = 2;

/**
 * A generated acked frame's header (the same fields in every state's byte-aligned and packed
 * frames: ACK-2's header field for field), as the generated reader gives it.
 */
export interface FrameHeader<E> {
  /** `tick`. */
  tick: number;
  /** `base_tick`. */
  base_tick: number;
  /** `last_seq`. */
  last_seq: number;
  /** `input_buffer`. */
  input_buffer: number;
  /** `flags` (KEYFRAME, CHECK). */
  flags: number;
  /** `check`, present with CHECK. */
  check?: number | undefined;
  /** `removed`. */
  removed: number[];
  /** `first_serial`, present with any event. */
  first_serial?: number | undefined;
  /** `events`. */
  events: E[];
}

/**
 * A frame's header, as the generated reader gave it, into `out`: everything but the changes,
 * which are the caller's.
 *
 * ACK-4: flags bit 0, KEYFRAME, means the frame applies onto nothing (base_tick is then 0): a
 * keyframe naming a base is `invalid_condition` at byte 5 (every acked frame's base_tick
 * starts there), `base_tick`, thrown before `out` is touched.
 */
export function keepHeader<C, E>(f: FrameHeader<E>, out: AckedFrame<C, E>): void {
  const keyframe = (f.flags & KEYFRAME) !== 0;
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

/** A frame's header in the generated frame's fields, for its writer (the changes are the caller's). */
export function frameHeader<C, E>(f: AckedFrame<C, E>): FrameHeader<E> {
  return {
    tick: f.tick,
    base_tick: f.baseTick,
    last_seq: f.lastSeq,
    input_buffer: f.inputBuffer,
    flags: (f.keyframe ? KEYFRAME : 0) | (f.check !== undefined ? CHECK : 0),
    check: f.check,
    removed: f.removed,
    first_serial: f.events.length > 0 ? f.firstSerial : undefined,
    events: f.events,
  };
}

/**
 * The first byte of a packed frame's body: ACK-14, kind 6's header without `changed_count` (17
 * bytes), the check, the removed ids. A packed change's code past its byte-aligned field is
 * reported there (no bit: the code itself was read whole).
 */
export function packedBodyAt<E>(f: FrameHeader<E>): number {
  return 17 + (f.check !== undefined ? 4 : 0) + 2 * f.removed.length;
}

/** The events of a frame without any (never written to: a decoder only reads a frame). */
const NO_EVENTS: never[] = [];

/**
 * A reader at once of the byte-aligned acked frame's parts that are ACK-2's (the header, the
 * removed ids, and the end: the events, through the generated reader of one), for a binding's
 * reader of the changes between them:
 * it refuses nothing, it only says whether the frame is one it reads (anything else goes to the
 * generated reader, which says what is wrong and where). The removed ids are read into one
 * list it keeps, reused by the next frame, as the binding reuses its changes.
 */
export class FrameAtOnce {
  /** The frame's bytes as a view, after {@link head}. */
  view: DataView = new DataView(new ArrayBuffer(0));
  /** The first byte after the removed ids, after {@link head}. */
  at = 0;
  /** The frame's `changed_count`, after {@link head}. */
  changed = 0;
  private check: number | undefined = undefined;
  private readonly removed: number[] = [];

  /**
   * Reads the header of a frame of `kind` and its removed ids; false (having kept nothing that
   * counts) when they are not there whole or a reserved flag is set.
   */
  head(bytes: Uint8Array, kind: number): boolean {
    const n = bytes.length;
    // The header, the change count and the event count: 20 bytes at least.
    if (n < 20 || bytes[0] !== kind) {
      return false;
    }
    const dv = new DataView(bytes.buffer, bytes.byteOffset, n);
    const flags = bytes[14]!;
    if ((flags & ~(KEYFRAME | CHECK)) !== 0) {
      return false;
    }
    const removedCount = dv.getUint16(15, true);
    this.changed = dv.getUint16(17, true);
    let p = 19;
    this.check = undefined;
    if ((flags & CHECK) !== 0) {
      if (n - p < 4) {
        return false;
      }
      this.check = dv.getUint32(p, true);
      p += 4;
    }
    if (removedCount * 2 > n - p) {
      return false;
    }
    const removed = this.removed;
    removed.length = removedCount;
    for (let i = 0; i < removedCount; i++, p += 2) {
      removed[i] = dv.getUint16(p, true);
    }
    this.view = dv;
    this.at = p;
    return true;
  }

  /**
   * The frame's end at `p`, after its changes: true, with the frame kept into `out` (its
   * changes `changes`), when its events follow whole (each read by `readEvent`, the generated
   * codec's reader of one) and nothing after them; false otherwise, for the generated reader to
   * say what is wrong and where (an element it reads may not be less than the bytes its list's
   * count is checked against, so a list this refuses is one it refuses). A keyframe naming a
   * base throws as {@link keepHeader} does.
   */
  end<C, E>(p: number, out: AckedFrame<C, E>, changes: C[], readEvent: (r: Reader) => E): boolean {
    const dv = this.view;
    const n = dv.byteLength;
    if (p >= n) {
      return false;
    }
    const count = dv.getUint8(p);
    let firstSerial = 0;
    let events: E[] = NO_EVENTS;
    if (count === 0) {
      if (p !== n - 1) {
        return false;
      }
    } else {
      // event_count, first_serial, then the events to the frame's end.
      if (n - p < 5) {
        return false;
      }
      firstSerial = dv.getUint32(p + 1, true);
      const r = new Reader(new Uint8Array(dv.buffer, dv.byteOffset + p + 5, n - p - 5));
      events = [];
      try {
        for (let i = 0; i < count; i++) {
          events.push(readEvent(r));
        }
      } catch (e) {
        if (e instanceof DecodeError) {
          return false;
        }
        throw e;
      }
      if (r.remaining !== 0) {
        return false;
      }
    }
    const flags = dv.getUint8(14);
    const baseTick = dv.getUint32(5, true);
    const keyframe = (flags & KEYFRAME) !== 0;
    if (keyframe && baseTick !== 0) {
      throw new DecodeError("invalid_condition", 5, undefined, "base_tick");
    }
    out.tick = dv.getUint32(1, true);
    out.baseTick = baseTick;
    out.lastSeq = dv.getUint32(9, true);
    out.inputBuffer = dv.getUint8(13);
    out.keyframe = keyframe;
    out.check = this.check;
    out.removed = this.removed;
    out.changes = changes;
    out.firstSerial = firstSerial;
    out.events = events;
    return true;
  }
}

// ---- the ack frame: the same fields for every state ----

/** The fields of a generated ack frame (kind 7 of the reference protocol). */
export interface AckFields<I> {
  /** `ack_tick`. */
  ack_tick: number;
  /** `flags` (KEYFRAME_REQUEST, bit 0). */
  flags: number;
  /** `first_seq`, present with any input. */
  first_seq?: number | undefined;
  /** `inputs`. */
  inputs: I[];
}

/** The ack frame's KEYFRAME_REQUEST bit. */
const KEYFRAME_REQUEST = 1;

/** A client's ack content in the generated ack frame's fields, for its writer. */
export function ackFields<I>(a: AckContent<I>): AckFields<I> {
  return {
    ack_tick: a.ackTick,
    flags: a.keyframeRequest ? KEYFRAME_REQUEST : 0,
    first_seq: a.inputs.length > 0 ? a.firstSeq : undefined,
    inputs: a.inputs,
  };
}

/** A generated ack frame as the machines take it. */
export function ackContent<I>(f: AckFields<I>): AckContent<I> {
  return {
    ackTick: f.ack_tick,
    keyframeRequest: (f.flags & KEYFRAME_REQUEST) !== 0,
    firstSeq: f.first_seq ?? 0,
    inputs: f.inputs,
  };
}
