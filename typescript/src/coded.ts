// The coded values of kind 13's body (docs/spec/coded.md): what a generated coded frame writes
// its changes' values into and reads them back from, over the range coder (range.ts), and the
// training counts of its tables. The port of rt/src/coded.rs, name for name and error for
// error; vectors/coder/coded_cases.txt holds every runtime to the same bodies.
//
// - A value `v` of at most `W` bits is coded under a model of `modelSlots(W)` slots starting at
//   slot `at` of the frame's tables: its bit length through a bit tree, then the bits below its
//   highest one (CODE-6, CODE-7, CODE-8). Every bit goes through `RangeEncoder.bit`, so the slots
//   adapt within the frame (CODE-9); the caller copies the tables (each `Prob`) for each frame.
// - The body is `u16 coded_len` and the stream, zero-padded to `floorLen` of the changes
//   (CODE-4, CODE-5). `CodedDecoder`'s constructor refuses a `coded_len` under the floor before
//   it decodes anything (`count_too_large`: the taxonomy has no `over_limit`), `value` a bit
//   length over the width (`over_width`), and `finish` anything but the stream the encoder
//   writes.
// - A model's slots past the tables it is given are refused (`over_width`), never indexed.
//
// Within a model, the bits below the first `t` are coded most significant first, each under the
// next slot of its length's block. A value is walked as two 32-bit halves, so that a bigint is
// made only for a 64-bit field's value; `value` and `signed` take numbers (up to 53 bits),
// `bigValue` and `bigSigned` bigints (up to 64), as range.ts's `bits` and `bigBits` do.

import { type BitSet, bitSetFault } from "./bits.js";
import { DecodeError, EncodeError, within } from "./errors.js";
import { bigUnzigzag, bigZigzag, isUint, quantize, unzigzag, zigzag } from "./ints.js";
import { type SmallestThree, smallestThreeFault } from "./quat.js";
import { Prob, RangeDecoder, RangeEncoder } from "./range.js";
import type { RecordJson } from "./json.js";
import type { Reader } from "./reader.js";
import type { Writer } from "./writer.js";

/**
 * The least bits a change takes in the stream (CODE-4): a body's `coded_len` is at least
 * `ceil(changed_count × 10 / 8)`, which bounds the changes a decoder allocates for by its input.
 */
export const CODED_FLOOR_BITS = 12;

const TWO_32 = 2 ** 32;
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;

/** The least `coded_len` of a body of `changedCount` changes: `ceil(changedCount × 10 / 8)`. */
export function floorLen(changedCount: number): number {
  return Math.ceil((changedCount * CODED_FLOOR_BITS) / 8);
}

/**
 * Where the block of bit length `l` (2 and up) starts, past the length tree: the sizes of the
 * blocks of 2 to `l - 1` (1, 3, then `7 + (j - 4)` from 4 on).
 */
function blockOffset(l: number): number {
  if (l <= 2) {
    return 0;
  }
  if (l === 3) {
    return 1;
  }
  return 4 + ((l - 1) * l) / 2 - 6 + 3 * (l - 4);
}

/**
 * The slots of a model of `w` bits (CODE-8): the length tree's `2^k - 1` (`k` the bit length of
 * `w`), then for each bit length `L` from 2 to `w` its tree's `2^t - 1` and its `L - 1 - t`
 * position slots, `t = min(L - 1, 3)`. 0 for `w = 0`, 2388 for 64.
 */
export function modelSlots(w: number): number {
  const tree = (1 << (32 - Math.clz32(w))) - 1;
  return w < 2 ? tree : tree + blockOffset(w + 1);
}

/** The slots of a model of `w` bits starting at `at` fit the `len` slots of the tables. */
function modelFits(at: number, w: number, len: number): boolean {
  return (
    Number.isInteger(w) &&
    w >= 0 &&
    w <= 64 &&
    Number.isInteger(at) &&
    at >= 0 &&
    at + modelSlots(w) <= len
  );
}

/** The bit length of the value whose halves are `lo` and `hi`. */
function bitLen(lo: number, hi: number): number {
  return hi !== 0 ? 64 - Math.clz32(hi) : 32 - Math.clz32(lo);
}

/** Bit `pos` of the value whose halves are `lo` and `hi`. */
function bitAt(lo: number, hi: number, pos: number): boolean {
  return (pos < 32 ? (lo >>> pos) & 1 : (hi >>> (pos - 32)) & 1) === 1;
}

/** The halves of the value the last {@link walk} coded. */
const walked = { lo: 0, hi: 0 };

/**
 * Walks the bits of a value of a model of `w` bits (at most 64) whose slots start at `at` and
 * fit the tables: `bit(slot, wanted)` codes one bit under `slot` and returns the bit coded (the
 * encoder `wanted`, the decoder the one it reads), and the value built from the bits returned is
 * left in {@link walked}. `lo` and `hi` are what the encoder codes (0 for the decoder). Returns
 * false for a bit length over `w`, which only a decoder meets.
 */
function walk(
  at: number,
  w: number,
  lo: number,
  hi: number,
  bit: (slot: number, wanted: boolean) => boolean,
): boolean {
  const k = 32 - Math.clz32(w);
  const wantLen = bitLen(lo, hi);
  // The length, most significant bit first, down the tree from node 1.
  let m = 1;
  for (let i = k - 1; i >= 0; i--) {
    m = 2 * m + (bit(at + m - 1, ((wantLen >>> i) & 1) === 1) ? 1 : 0);
  }
  const l = m - (1 << k);
  if (l > w) {
    return false;
  }
  let outLo = 0;
  let outHi = 0;
  const set = (pos: number) => {
    if (pos < 32) {
      outLo = (outLo | (1 << pos)) >>> 0;
    } else {
      outHi = (outHi | (1 << (pos - 32))) >>> 0;
    }
  };
  if (l >= 1) {
    set(l - 1);
  }
  if (l >= 2) {
    const block = at + (1 << k) - 1 + blockOffset(l);
    // The first `t` bits below the highest one, through the block's tree.
    const t = Math.min(l - 1, 3);
    m = 1;
    for (let i = 0; i < t; i++) {
      const pos = l - 2 - i;
      const b = bit(block + m - 1, bitAt(lo, hi, pos));
      if (b) {
        set(pos);
      }
      m = 2 * m + (b ? 1 : 0);
    }
    // The rest, each under a slot of its own.
    const positions = block + (1 << t) - 1;
    for (let j = 0; j < l - 1 - t; j++) {
      const pos = l - 2 - t - j;
      if (bit(positions + j, bitAt(lo, hi, pos))) {
        set(pos);
      }
    }
  }
  walked.lo = outLo;
  walked.hi = outHi;
  return true;
}

/**
 * What a generated coded frame writes its values into: the encoder, or the counts that train its
 * tables (CODE-17). A value wider than its model, or a model past the tables, is refused as
 * `over_width` before anything is coded.
 */
export interface CodedSink {
  /**
   * `v` (< 2^w, `w` at most 53) under the model whose slots start at `at` (CODE-7); a model of
   * 54 to 64 bits is `bigValue`'s.
   */
  value(at: number, w: number, v: number): void;
  /** `value` of a model of up to 64 bits, from a bigint. */
  bigValue(at: number, w: number, v: bigint): void;
  /** `v` as its zigzag code (`w` bits, at most 53). */
  signed(at: number, w: number, v: number): void;
  /** `signed` of a 64-bit value, from a bigint. */
  bigSigned(at: number, w: number, v: bigint): void;
}

/** The halves of the value the last check passed. */
const checked = { lo: 0, hi: 0 };

/** Checks {@link CodedSink.value}'s arguments against tables of `slots` slots. */
function checkValue(slots: number, at: number, w: number, v: number): void {
  if (w > 53 && w <= 64) {
    throw new RangeError(`a value of ${w} bits is coded from a bigint (bigValue)`);
  }
  if (!(w <= 64 && isUint(v, w) && modelFits(at, w, slots))) {
    throw new EncodeError("over_width");
  }
  checked.lo = v % TWO_32;
  checked.hi = (v - checked.lo) / TWO_32;
}

/** Checks {@link CodedSink.bigValue}'s arguments against tables of `slots` slots. */
function checkBigValue(slots: number, at: number, w: number, v: bigint): void {
  if (!(modelFits(at, w, slots) && v >= 0n && v >> BigInt(w) === 0n)) {
    throw new EncodeError("over_width");
  }
  checked.lo = Number(v & 0xffff_ffffn);
  checked.hi = Number(v >> 32n);
}

/** The zigzag code of {@link CodedSink.signed}'s value. */
function signedCode(v: number): number {
  if (!Number.isSafeInteger(v)) {
    throw new EncodeError("over_width");
  }
  return zigzag(v);
}

/** The zigzag code of {@link CodedSink.bigSigned}'s value. */
function bigSignedCode(v: bigint): bigint {
  if (v < I64_MIN || v > I64_MAX) {
    throw new EncodeError("over_width");
  }
  return bigZigzag(v);
}

/** Codes a frame's values under its tables (a copy for this frame: they adapt) and ends the body. */
export class CodedEncoder implements CodedSink {
  private readonly probs: Prob[];
  private readonly enc = new RangeEncoder();
  private readonly code = (slot: number, b: boolean): boolean => {
    this.enc.bit(this.probs[slot]!, b);
    return b;
  };

  /** An encoder over `probs`: the frame's tables, each `Prob` copied by the caller. */
  constructor(probs: Prob[]) {
    this.probs = probs;
  }

  value(at: number, w: number, v: number): void {
    checkValue(this.probs.length, at, w, v);
    walk(at, w, checked.lo, checked.hi, this.code);
  }

  bigValue(at: number, w: number, v: bigint): void {
    checkBigValue(this.probs.length, at, w, v);
    walk(at, w, checked.lo, checked.hi, this.code);
  }

  signed(at: number, w: number, v: number): void {
    this.value(at, w, signedCode(v));
  }

  bigSigned(at: number, w: number, v: bigint): void {
    this.bigValue(at, w, bigSignedCode(v));
  }

  /**
   * Appends `u16 coded_len` then the stream, zero-padded to `floorLen(changedCount)` (CODE-4,
   * CODE-5). A body longer than a `u16` counts is refused as `count_too_large`, before anything
   * is written. The encoder is spent.
   */
  finish(changedCount: number, out: Writer): void {
    const stream = this.enc.finish();
    const codedLen = Math.max(stream.length, floorLen(changedCount));
    if (codedLen > 0xffff) {
      throw new EncodeError("count_too_large");
    }
    out.u16(codedLen);
    out.append(stream);
    out.append(new Uint8Array(codedLen - stream.length));
  }
}

/**
 * Reads a frame's values back under its tables (a copy for this frame: they adapt), refusing a
 * body that is not the one the encoder writes (CODE-4, CODE-5, CODE-7).
 */
export class CodedDecoder {
  private readonly dec: RangeDecoder;
  private readonly probs: Prob[];
  /** `coded_len` is the floor: the stream may be zero-padded. */
  private readonly atFloor: boolean;

  /**
   * Reads `u16 coded_len` at `r`, refuses it under `floorLen(changedCount)` as
   * `count_too_large` at `coded_len` before anything else is read (CODE-4; the spec's
   * `over_limit`), and takes the stream's bytes from `r` (`truncated` if fewer remain).
   */
  constructor(r: Reader, changedCount: number, probs: Prob[]) {
    const at = r.offset;
    const codedLen = r.u16();
    const floor = floorLen(changedCount);
    if (codedLen < floor) {
      throw r.fail("count_too_large", at);
    }
    const base = r.offset;
    this.dec = new RangeDecoder(r.take(codedLen), base);
    this.probs = probs;
    this.atFloor = codedLen === floor;
  }

  /**
   * Reads a value into {@link walked}: a bit length over `w`, a width over 64 and slots past the
   * tables are `over_width`, at the byte the decoder has reached.
   */
  private get(at: number, w: number): void {
    if (modelFits(at, w, this.probs.length)) {
      if (walk(at, w, 0, 0, (slot) => this.dec.bit(this.probs[slot]!))) {
        return;
      }
    }
    throw new DecodeError("over_width", this.dec.offset(), undefined);
  }

  /** The byte the decoder has reached: where a value it cannot take is reported. */
  offset(): number {
    return this.dec.offset();
  }

  /** A value of at most `w` bits (53) under the model whose slots start at `at`. */
  value(at: number, w: number): number {
    if (w > 53 && w <= 64) {
      throw new RangeError(`a value of ${w} bits is read as a bigint (bigValue)`);
    }
    this.get(at, w);
    return walked.hi * TWO_32 + walked.lo;
  }

  /** {@link value} of a model of up to 64 bits, as a bigint. */
  bigValue(at: number, w: number): bigint {
    this.get(at, w);
    return (BigInt(walked.hi) << 32n) | BigInt(walked.lo);
  }

  /** A signed value: {@link value} unzigzagged. */
  signed(at: number, w: number): number {
    return unzigzag(this.value(at, w));
  }

  /** {@link signed} of a 64-bit value, as a bigint. */
  bigSigned(at: number, w: number): bigint {
    return bigUnzigzag(this.bigValue(at, w));
  }

  /**
   * Ends the body once every value is read (CODE-5): above the floor, the stream must be exactly
   * what the encoder writes (`RangeDecoder.finish`); at the floor, the code must be the
   * interval's bottom and every byte not reached 0 (`trailing_bytes` at the first that is not).
   */
  finish(): void {
    if (this.atFloor) {
      this.dec.finishPadded();
    } else {
      this.dec.finish();
    }
  }
}

/**
 * The 0s and 1s coded under each slot, walking the bits {@link CodedEncoder} would code with none
 * of its adaptation: what `ackwire train` sums over recorded frames (CODE-17).
 */
export class SlotCounts implements CodedSink {
  private readonly c: [number, number][];
  private readonly count = (slot: number, b: boolean): boolean => {
    this.c[slot]![b ? 1 : 0] += 1;
    return b;
  };

  /** No bits yet, over `slots` slots. */
  constructor(slots: number) {
    this.c = Array.from({ length: slots }, () => [0, 0]);
  }

  value(at: number, w: number, v: number): void {
    checkValue(this.c.length, at, w, v);
    walk(at, w, checked.lo, checked.hi, this.count);
  }

  bigValue(at: number, w: number, v: bigint): void {
    checkBigValue(this.c.length, at, w, v);
    walk(at, w, checked.lo, checked.hi, this.count);
  }

  signed(at: number, w: number, v: number): void {
    this.value(at, w, signedCode(v));
  }

  bigSigned(at: number, w: number, v: bigint): void {
    this.bigValue(at, w, bigSignedCode(v));
  }

  /** `other`'s counts added to these, slot by slot (growing to the longer of the two). */
  add(other: SlotCounts): void {
    other.c.forEach(([c0, c1], i) => {
      const mine = (this.c[i] ??= [0, 0]);
      mine[0] += c0;
      mine[1] += c1;
    });
  }

  /** Each slot's count of 0s and of 1s, in slot order. */
  counts(): readonly (readonly [number, number])[] {
    return this.c;
  }

  /**
   * Trained starting probabilities: p = (c0+1)*4096/(c0+c1+2), rounded down, clamped to
   * 32..=4064 so that a slot never seen one way can still code it at a bounded cost.
   */
  probs(): Prob[] {
    return this.c.map(([c0, c1]) => {
      // In bigints: the product passes 2^53 long before a count could.
      const p = Number(((BigInt(c0) + 1n) * 4096n) / (BigInt(c0) + BigInt(c1) + 2n));
      return Prob.of(Math.min(Math.max(p, 32), 4064))!;
    });
  }
}

/**
 * `v × num / den` rounded to the nearest integer, halves away from zero (CODE-13), saturating at
 * i64's ends; a `den` of 0 is taken as 1.
 */
export function bigExtrapolate(v: bigint, num: number, den: number): bigint {
  const d = BigInt(Math.max(den, 1));
  const p = v * BigInt(num);
  const abs = p < 0n ? -p : p;
  let q = (abs * 2n + d) / (2n * d);
  if (p < 0n) {
    q = -q;
  }
  return q < I64_MIN ? I64_MIN : q > I64_MAX ? I64_MAX : q;
}

/**
 * {@link bigExtrapolate} of a safe integer, computed exactly; the result is exact whenever it is
 * a safe integer itself.
 */
export function extrapolate(v: number, num: number, den: number): number {
  return Number(bigExtrapolate(BigInt(v), num, den));
}

/**
 * What a coded frame's changes are predicted from (CODE-13, CODE-14): the entity's record in the
 * frame's base and in its older snapshot. Implemented by the session machines.
 */
export interface CodedBasis<R> {
  /** The entity's record in the frame's base, if the base holds it. */
  base(eid: number): R | undefined;
  /** The entity's record in the older snapshot, if there is one and it holds the entity. */
  older(eid: number): R | undefined;
}

/** A basis with nothing in it (a keyframe; tests). */
export class NoBasis implements CodedBasis<never> {
  base(): undefined {
    return undefined;
  }

  older(): undefined {
    return undefined;
  }
}

/**
 * What a coded frame's basis is looked up by, read from its prefix before its body (CODE-2,
 * CODE-3): its tick and its base's, whether it is a keyframe, and its `older` distance.
 */
export interface CodedBasisTicks {
  /** The frame's tick. */
  tick: number;
  /** The tick of the frame's base. */
  baseTick: number;
  /** The frame is a keyframe: it has no base. */
  keyframe: boolean;
  /** Ticks from the base back to the older snapshot; 0 for none. */
  older: number;
}

// ---- What a generated coded frame's changes call (CODE-10..CODE-14) ----
//
// The rules a generated frame's reader and coder share, as the Rust printer's helpers: each
// refuses what kind 12 would refuse of the same packed change, with the same error kind; a
// reader's fault is reported at `at`, the stream's first byte, unless the rule says otherwise.

/** A frame's tables as the cells its coder adapts: one `Prob` each, its own (CODE-9). */
export function codedProbs(tables: readonly number[]): Prob[] {
  return tables.map((p) => Prob.of(p) ?? Prob.HALF);
}

/**
 * The ids of a frame's changes (CODE-10): the first as it is, each after it as its gap from the
 * previous one, at least 1; none past `max`.
 */
export class CodedIds {
  private prev: number | undefined = undefined;
  private readonly max: number;

  /** No id yet; none may be past `max`. */
  constructor(max: number) {
    this.max = max;
  }

  /** The id whose gap was decoded: `not_ascending` for a gap of 0, past `max` `over_width`. */
  next(gap: number, at: number): number {
    let v = gap;
    if (this.prev !== undefined) {
      if (gap === 0) {
        throw new DecodeError("not_ascending", at, undefined);
      }
      v = this.prev + gap;
    }
    if (v > this.max) {
      throw new DecodeError("over_width", at, undefined);
    }
    this.prev = v;
    return v;
  }

  /** The gap `id` is coded as: past `max` `over_width`, not above the previous `not_ascending`. */
  gap(id: number): number {
    if (!Number.isSafeInteger(id) || id < 0 || id > this.max) {
      throw new EncodeError("over_width");
    }
    const gap = this.prev === undefined ? id : id - this.prev;
    if (this.prev !== undefined && gap <= 0) {
      throw new EncodeError("not_ascending");
    }
    this.prev = id;
    return gap;
  }
}

/** A value present exactly when its condition holds, as kind 12 writes it (`invalid_condition`). */
export function codedPresence(present: boolean, cond: boolean): void {
  if (present !== cond) {
    throw new EncodeError("invalid_condition");
  }
}

/** A decoded code its packed code can hold: within `min..=max`, else `over_width` at `at`. */
export function codedWithin(v: number, min: number, max: number, at: number): number {
  if (v < min || v > max) {
    throw new DecodeError("over_width", at, undefined);
  }
  return v;
}

/** A value its packed code can hold, as kind 12 refuses it: within `min..=max` (`over_width`). */
export function codedBounded(v: number, min: number, max: number): number {
  if (!Number.isSafeInteger(v) || v < min || v > max) {
    throw new EncodeError("over_width");
  }
  return v;
}

/** A decoded bit set (CODE-11), refused as its byte-aligned reader refuses it, at `at`. */
export function codedBits(set: BitSet<number>, v: number, at: number): number {
  const fault = bitSetFault(set, v);
  if (fault !== undefined) {
    throw new DecodeError(fault, at, undefined);
  }
  return v;
}

/** A bit set's value to code (CODE-11), refused as its writer refuses it. */
export function codedBitsValue(set: BitSet<number>, v: number): number {
  const fault = isUint(v, set.width) ? bitSetFault(set, v) : "over_width";
  if (fault !== undefined) {
    throw new EncodeError(fault);
  }
  return v;
}

/** A quantized value as its unsigned wire integer at most `max` (`over_width`). */
export function codedQuantizeUint(value: number, scale: number, max: number): number {
  const q = quantize(value, scale);
  if (!(q >= 0 && q <= max)) {
    throw new EncodeError("over_width");
  }
  return q;
}

/** A quantized value as its signed wire integer within `min..=max` (`over_width`). */
export function codedQuantizeInt(value: number, scale: number, min: number, max: number): number {
  const q = quantize(value, scale);
  if (!(q >= min && q <= max)) {
    throw new EncodeError("over_width");
  }
  return q;
}

const F32 = new DataView(new ArrayBuffer(8));

/** The single whose 32 bits are `bits` (CODE-12: an `f32` is coded as its bits). */
export function f32FromBits(bits: number): number {
  F32.setUint32(0, bits);
  return F32.getFloat32(0);
}

/** The 32 bits of `v` as a single. */
export function f32Bits(v: number): number {
  F32.setFloat32(0, v);
  return F32.getUint32(0);
}

/** The double whose 64 bits are `bits`. */
export function f64FromBits(bits: bigint): number {
  F32.setBigUint64(0, bits);
  return F32.getFloat64(0);
}

/** The 64 bits of `v` as a double. */
export function f64Bits(v: number): bigint {
  F32.setFloat64(0, v);
  return F32.getBigUint64(0);
}

/**
 * CODE-13: the step the entity's motion from the older snapshot to the base predicts `gap` ticks
 * on, `extrapolate(base - older, gap, older)` clamped to `min..=max`; 0 without both records.
 */
export function codedVelocity(
  base: number | undefined,
  older: number | undefined,
  ticks: CodedBasisTicks,
  min: number,
  max: number,
): number {
  if (base === undefined || older === undefined || ticks.older === 0) {
    return 0;
  }
  const gap = Math.min((ticks.tick - ticks.baseTick) >>> 0, 65535);
  const p = extrapolate(base - older, gap, ticks.older);
  return p < min ? min : p > max ? max : p;
}

/** A predicted value from its difference `d` from the prediction `p`: within `min..=max`. */
export function codedPredicted(d: number, p: number, min: number, max: number, at: number): number {
  const v = p + d;
  if (!(v >= min && v <= max)) {
    throw new DecodeError("over_width", at, undefined);
  }
  return v;
}

/** What a predicted value codes: its difference from the prediction `p`, within `min..=max`. */
export function codedResidual(v: number, p: number, min: number, max: number): number {
  if (!Number.isSafeInteger(v) || v < min || v > max) {
    throw new EncodeError("over_width");
  }
  return v - p;
}

/**
 * A `quat(bits)` (CODE-14). When `base` holds one: whether the largest component is the base's
 * (model `onBase[0]`), and if so the three components as differences from the base's
 * (`onBase[1..]`, `bits + 1` bits). Otherwise the largest's index and the three as kind 12 codes
 * them (`whole`). The canonical rules then hold as kind 12's, a fault reported at `at`.
 */
export function readCodedQuat(
  stream: CodedDecoder,
  base: SmallestThree | undefined,
  onBase: readonly number[],
  whole: readonly number[],
  bits: number,
  at: number,
): SmallestThree {
  const half = 2 ** (bits - 1);
  let same = false;
  if (base !== undefined) {
    try {
      same = stream.value(onBase[0]!, 1) === 1;
    } catch (e) {
      throw within(e, "same");
    }
  }
  let q: SmallestThree;
  if (base !== undefined && same) {
    const rest: [number, number, number] = [0, 0, 0];
    for (let i = 0; i < 3; i++) {
      let d: number;
      try {
        d = stream.signed(onBase[i + 1]!, bits + 1);
      } catch (e) {
        throw within(e, "d");
      }
      const v = base.rest[i]! + d;
      if (v < -half || v >= half) {
        throw new DecodeError("over_width", at, undefined);
      }
      rest[i] = v;
    }
    q = { largest: base.largest, rest };
  } else {
    let largest: number;
    try {
      largest = stream.value(whole[0]!, 2);
    } catch (e) {
      throw within(e, "largest");
    }
    // CODE-14: the base's largest component travels as `same`, never again whole.
    if (base !== undefined && base.largest === largest) {
      throw new DecodeError("non_canonical", stream.offset(), undefined, "largest");
    }
    const rest: [number, number, number] = [0, 0, 0];
    for (let i = 0; i < 3; i++) {
      let raw: number;
      try {
        raw = stream.value(whole[i + 1]!, bits);
      } catch (e) {
        throw within(e, "c");
      }
      // Two's complement in `bits` bits, as kind 12 lays it.
      rest[i] = raw >= half ? raw - 2 * half : raw;
    }
    q = { largest, rest };
  }
  const fault = smallestThreeFault(q, bits);
  if (fault !== undefined) {
    throw new DecodeError(fault, at, undefined);
  }
  return q;
}

/** Codes a `quat(bits)` as {@link readCodedQuat} reads it, refusing what kind 12 refuses. */
export function codeCodedQuat(
  sink: CodedSink,
  q: SmallestThree,
  base: SmallestThree | undefined,
  onBase: readonly number[],
  whole: readonly number[],
  bits: number,
): void {
  const fault = smallestThreeFault(q, bits);
  if (fault !== undefined) {
    throw new EncodeError(fault);
  }
  if (base !== undefined) {
    const same = base.largest === q.largest;
    try {
      sink.value(onBase[0]!, 1, same ? 1 : 0);
    } catch (e) {
      throw within(e, "same");
    }
    if (same) {
      for (let i = 0; i < 3; i++) {
        try {
          sink.signed(onBase[i + 1]!, bits + 1, q.rest[i]! - base.rest[i]!);
        } catch (e) {
          throw within(e, "d");
        }
      }
      return;
    }
  }
  try {
    sink.value(whole[0]!, 2, q.largest);
  } catch (e) {
    throw within(e, "largest");
  }
  const mask = 2 ** bits;
  for (let i = 0; i < 3; i++) {
    try {
      const c = q.rest[i]!;
      sink.value(whole[i + 1]!, bits, c < 0 ? c + mask : c);
    } catch (e) {
      throw within(e, "c");
    }
  }
}

/**
 * A generated module's coded frame by name (its `CODED_FRAMES`), for what serves frames by name
 * (the testee): the JSON forms of the frame and of the state's record, and the frame read and
 * written against a basis of such records.
 */
export interface CodedFrameCodec {
  /** The frame's fields in the JSON form. */
  readonly frame: RecordJson;
  /** The state's record's fields in the JSON form (a basis's records). */
  readonly record: RecordJson;
  /** Decodes a whole frame against `basis`; throws a DecodeError. */
  readonly decode: (bytes: Uint8Array, basis: CodedBasis<unknown>) => unknown;
  /** Encodes a frame against `basis`; throws an EncodeError. */
  readonly encode: (value: unknown, basis: CodedBasis<unknown>) => Uint8Array;
}
