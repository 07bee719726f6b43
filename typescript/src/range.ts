// The adaptive binary range coder the coded profile of issue 39 codes its fields with
// (docs/perf/coding.md says why this one): LZMA's coder, in integer arithmetic that every
// language reproduces byte for byte. The port of rt/src/range.rs, name for name and error for
// error; vectors/coder/range_coder_cases.txt holds every runtime to the same streams.
//
// - A `Prob` is the chance that the next bit is 0, in 4096ths, 1 to 4095. Coding a bit with
//   `RangeEncoder.bit` moves it a sixteenth of the way towards the bit seen; the decoder moves
//   its copy the same way, so both stay equal as long as they start equal (a frame starts from
//   trained tables and adapts within itself only).
// - The state is a 32-bit range and a 33-bit low; a byte leaves whenever the range falls under
//   2^24, a carry travelling back through a cached byte and its run of `0xff`.
// - The stream ends with the interval's bottom, flushed whole, and drops what a decoder can
//   supply: the first byte (always 0) and up to `MAX_IMPLICIT_ZEROS` zero bytes at its end,
//   which the decoder reads back as zeros.
//
// Untrusted input: the decoder allocates nothing and reads at most `MAX_IMPLICIT_ZEROS` bytes
// past the end before it refuses the stream as truncated; each bit costs at most two byte
// reads, and the caller's layout bounds the bits, so no input makes it spin. A stream is
// canonical (what the encoder writes, and only that): `RangeDecoder.finish` refuses bytes the
// decode did not reach and a last zero byte the encoder would have dropped, and a code outside
// its range (which no encoder writes) is refused at the bit that finds it.
//
// In numbers, exactly: the range and the code stay below 2^32, the low below 2^33 and every
// bound below 2^32, so each step is exact in a double. Bitwise operators are used only where
// their 32-bit truncation is what is meant (`low >>> 24` is the low's bits 24 to 31); a shift
// left by 8 is `* 256`, which cannot turn a value negative. A 64-bit field is coded from two
// 32-bit halves, so a bigint is made only for its value.

import { DecodeError, EncodeError } from "./errors.js";
import { isUint } from "./ints.js";

/** Bits of a probability's scale: 4096ths. */
export const PROB_BITS = 12;
/** Each coded bit moves its probability `1 / 2^ADAPT_SHIFT` of the way. */
export const ADAPT_SHIFT = 4;
/**
 * The most zero bytes the encoder drops from a stream's end, and so the most a decoder reads
 * past the end.
 */
export const MAX_IMPLICIT_ZEROS = 4;
/** The range is renormalised, a byte at a time, whenever it falls under this. */
const TOP = 2 ** 24;
const PROB_ONE = 1 << PROB_BITS;
const TWO_32 = 2 ** 32;

/**
 * The chance that the next bit is 0, in 4096ths: 1 to 4095, so that neither bit is ever
 * impossible. A mutable cell (Rust's `&mut Prob`): an adaptive bit moves it in place, so each
 * context holds its own, and `HALF`, `MIN` and `MAX` make a new one each time they are read.
 */
export class Prob {
  private p: number;

  private constructor(p: number) {
    this.p = p;
  }

  /** Even odds. */
  static get HALF(): Prob {
    return new Prob(1 << (PROB_BITS - 1));
  }

  /** The least chance of a 0. */
  static get MIN(): Prob {
    return new Prob(1);
  }

  /** The greatest chance of a 0. */
  static get MAX(): Prob {
    return new Prob(PROB_ONE - 1);
  }

  /** `p` 4096ths, or none outside 1 to 4095. */
  static of(p: number): Prob | undefined {
    return Number.isInteger(p) && p >= 1 && p < PROB_ONE ? new Prob(p) : undefined;
  }

  /** Its 4096ths. */
  get(): number {
    return this.p;
  }

  /** A cell of its own at the same chance. */
  copy(): Prob {
    return new Prob(this.p);
  }

  /**
   * Moved a sixteenth of the way towards `bit`. It never leaves 1 to 4095: a step is rounded
   * down, so it stops short of either end.
   */
  adapt(bit: boolean): void {
    if (bit) {
      this.p -= this.p >>> ADAPT_SHIFT;
    } else {
      this.p += (PROB_ONE - this.p) >>> ADAPT_SHIFT;
    }
  }

  /** Where the range splits: the 0s below, the 1s from here. */
  bound(range: number): number {
    return (range >>> PROB_BITS) * this.p;
  }
}

/** The first bits of a field whose probabilities depend on the bits before them. */
export const TREE_BITS = 8;
/**
 * Slots of a {@link BitTree}: a binary tree over a field's first {@link TREE_BITS} bits (slot
 * `1 << i | prefix` for bit `i`, the bits before it as the prefix; slot 0 unused) and one slot
 * for each bit after, up to 64.
 */
export const TREE_SLOTS = (1 << TREE_BITS) + 64;

/**
 * The probabilities of one field's bits, coded least significant first: a binary tree over the
 * first {@link TREE_BITS} (each bit's probability chosen by the bits before it) and one per bit
 * position after.
 */
export class BitTree {
  /** @internal The slots the coders adapt. */
  readonly probs: Prob[];

  /** Every slot at `p`. */
  constructor(p: Prob) {
    this.probs = Array.from({ length: TREE_SLOTS }, () => p.copy());
  }

  /**
   * Slots from a trained table, {@link TREE_SLOTS} of them in slot order (copied); none if the
   * table has another length.
   */
  static fromSlots(slots: readonly Prob[]): BitTree | undefined {
    if (slots.length !== TREE_SLOTS) {
      return undefined;
    }
    const tree = new BitTree(Prob.HALF);
    slots.forEach((p, i) => {
      tree.probs[i] = p.copy();
    });
    return tree;
  }

  /** The slots, in slot order. */
  slots(): readonly Prob[] {
    return this.probs;
  }

  /**
   * The slot of bit `i` of a field whose lower bits are `prefix` (a number: only its low
   * {@link TREE_BITS} bits matter; a static model codes each bit under `slots()[slot(i,
   * prefix)]` itself).
   */
  static slot(i: number, prefix: number): number {
    return i < TREE_BITS ? (1 << i) | (prefix & ((1 << i) - 1)) : (1 << TREE_BITS) + i;
  }
}

/** Codes bits into a stream; {@link RangeEncoder.finish} ends it. */
export class RangeEncoder {
  /** The bottom of the interval; 2^32 and above is a carry not yet added to the cached byte. */
  private low = 0;
  private range = TWO_32 - 1;
  /**
   * The byte waiting for a possible carry, and how many bytes wait with it (it and the `0xff`s
   * after it, which a carry turns to `0x00`).
   */
  private cache = 0;
  private cacheSize = 1;
  private out = new Uint8Array(16);
  private len = 0;

  private push(byte: number): void {
    if (this.len === this.out.length) {
      const bigger = new Uint8Array(this.out.length * 2);
      bigger.set(this.out);
      this.out = bigger;
    }
    this.out[this.len++] = byte;
  }

  /** The top byte of `low` leaves, unless it may still take a carry. */
  private shiftLow(): void {
    if (this.low < 0xff00_0000 || this.low >= TWO_32) {
      const carry = this.low >= TWO_32 ? 1 : 0;
      let byte = this.cache;
      while (this.cacheSize > 0) {
        this.push((byte + carry) & 0xff);
        byte = 0xff;
        this.cacheSize -= 1;
      }
      this.cache = (this.low >>> 24) & 0xff;
    }
    this.cacheSize += 1;
    this.low = (this.low & 0x00ff_ffff) * 256;
  }

  private put(prob: Prob, bit: boolean): void {
    const bound = prob.bound(this.range);
    if (bit) {
      this.low += bound;
      this.range -= bound;
    } else {
      this.range = bound;
    }
    while (this.range < TOP) {
      this.range *= 256;
      this.shiftLow();
    }
  }

  /** `bit` under `prob`, which then moves towards it. */
  bit(prob: Prob, bit: boolean): void {
    this.put(prob, bit);
    prob.adapt(bit);
  }

  /** `bit` under `prob`, which stays as it is (a static model). */
  bitStatic(prob: Prob, bit: boolean): void {
    this.put(prob, bit);
  }

  /**
   * The low `width` bits of `value` (0 to 53 of them), least significant first, under `tree`'s
   * slots, which adapt. A value wider than `width` (or not a whole number), and a width over
   * 64, are refused as over width; a field of 54 to 64 bits is {@link bigBits}'s.
   */
  bits(tree: BitTree, width: number, value: number): void {
    if (width > 64) {
      throw new EncodeError("over_width");
    }
    if (width > 53) {
      throw new RangeError(`a field of ${width} bits is coded from a bigint (bigBits)`);
    }
    if (!isUint(value, width)) {
      throw new EncodeError("over_width");
    }
    const lo = value % TWO_32;
    this.putBits(tree, width, lo, (value - lo) / TWO_32);
  }

  /** {@link bits} of a field of up to 64 bits, from a bigint. */
  bigBits(tree: BitTree, width: number, value: bigint): void {
    if (width > 64 || value < 0n || value >> BigInt(Math.max(width, 0)) !== 0n) {
      throw new EncodeError("over_width");
    }
    this.putBits(tree, width, Number(value & 0xffff_ffffn), Number(value >> 32n));
  }

  /** The `width` low bits of the value whose halves are `lo` and `hi`. */
  private putBits(tree: BitTree, width: number, lo: number, hi: number): void {
    for (let i = 0; i < width; i++) {
      const b = i < 32 ? (lo >>> i) & 1 : (hi >>> (i - 32)) & 1;
      this.bit(tree.probs[BitTree.slot(i, lo)]!, b === 1);
    }
  }

  /**
   * Ends the stream and returns it: the interval's bottom flushed, the first byte (always 0)
   * and up to {@link MAX_IMPLICIT_ZEROS} trailing zero bytes dropped. The encoder is spent.
   */
  finish(): Uint8Array {
    for (let i = 0; i < 5; i++) {
      this.shiftLow();
    }
    // The interval starts within [0, 2^32) and only narrows, so nothing carries into the
    // first byte: it is the initial cache, 0.
    let end = this.len;
    while (end > 1 && this.len - end < MAX_IMPLICIT_ZEROS && this.out[end - 1] === 0) {
      end -= 1;
    }
    return this.out.slice(Math.min(1, end), end);
  }
}

/** Reads bits back from a stream, refusing one that is not what an encoder writes. */
export class RangeDecoder {
  private code = 0;
  private range = TWO_32 - 1;
  private readonly bytes: Uint8Array;
  /** Bytes taken, those past the end (read as zeros) included. */
  private at = 0;
  /** Offset of the stream within the frame, for error positions. */
  private readonly base: number;
  /** The halves of the last field {@link getBits} read. */
  private lo = 0;
  private hi = 0;

  /**
   * A decoder over `bytes`, which start at byte `base` of the frame; it reads its first four
   * bytes (zeros past the end).
   */
  constructor(bytes: Uint8Array, base: number) {
    this.bytes = bytes;
    this.base = base;
    for (let i = 0; i < 4; i++) {
      this.code = this.code * 256 + this.next();
    }
    this.check();
  }

  /**
   * The next byte; past the end, a zero the encoder dropped, at most
   * {@link MAX_IMPLICIT_ZEROS} of them.
   */
  private next(): number {
    const len = this.bytes.length;
    if (this.at < len) {
      return this.bytes[this.at++]!;
    }
    if (this.at - len < MAX_IMPLICIT_ZEROS) {
      this.at += 1;
      return 0;
    }
    throw new DecodeError("truncated", this.base + len, undefined);
  }

  /** The code lies inside the range, as every encoder leaves it. */
  private check(): void {
    if (this.code >= this.range) {
      throw new DecodeError(
        "non_canonical",
        this.base + Math.min(this.at, this.bytes.length),
        undefined,
      );
    }
  }

  private get(prob: Prob): boolean {
    const bound = prob.bound(this.range);
    let bit;
    if (this.code < bound) {
      this.range = bound;
      bit = false;
    } else {
      this.code -= bound;
      this.range -= bound;
      bit = true;
    }
    while (this.range < TOP) {
      this.range *= 256;
      // The code is below the range, so below 2^24 here: no bit is lost.
      this.code = this.code * 256 + this.next();
    }
    this.check();
    return bit;
  }

  /** A bit under `prob`, which then moves towards it. */
  bit(prob: Prob): boolean {
    const bit = this.get(prob);
    prob.adapt(bit);
    return bit;
  }

  /** A bit under `prob`, which stays as it is. */
  bitStatic(prob: Prob): boolean {
    return this.get(prob);
  }

  /**
   * `width` bits (0 to 53), least significant first, under `tree`'s slots, which adapt. A width
   * over 64 is refused as over width; a field of 54 to 64 bits is {@link bigBits}'s.
   */
  bits(tree: BitTree, width: number): number {
    if (width > 53 && width <= 64) {
      throw new RangeError(`a field of ${width} bits is read as a bigint (bigBits)`);
    }
    this.getBits(tree, width);
    return this.hi * TWO_32 + this.lo;
  }

  /** {@link bits} of a field of up to 64 bits, as a bigint. */
  bigBits(tree: BitTree, width: number): bigint {
    this.getBits(tree, width);
    return (BigInt(this.hi) << 32n) | BigInt(this.lo);
  }

  /** Reads a field of `width` bits into {@link lo} and {@link hi}. */
  private getBits(tree: BitTree, width: number): void {
    if (width > 64) {
      throw new DecodeError(
        "over_width",
        this.base + Math.min(this.at, this.bytes.length),
        undefined,
      );
    }
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < width; i++) {
      if (this.bit(tree.probs[BitTree.slot(i, lo)]!)) {
        if (i < 32) {
          lo = (lo | (1 << i)) >>> 0;
        } else {
          hi = (hi | (1 << (i - 32))) >>> 0;
        }
      }
    }
    this.lo = lo;
    this.hi = hi;
  }

  /**
   * @internal The byte of the frame the decoder has reached, for the position of a fault found
   * in what it decoded.
   */
  offset(): number {
    return this.base + Math.min(this.at, this.bytes.length);
  }

  /**
   * @internal Ends a stream that was zero-padded to a floor (the coded profile's CODE-5), once
   * every bit is read: every byte not reached must be 0 (else trailing bytes, at the first that
   * is not), and the code must be the interval's bottom (else not canonical). With
   * {@link finish}'s rules for a stream above its floor, a padded stream that passes is the one
   * the encoder writes and pads. Returns the stream's length.
   */
  finishPadded(): number {
    const len = this.bytes.length;
    for (let i = this.at; i < len; i++) {
      if (this.bytes[i] !== 0) {
        throw new DecodeError("trailing_bytes", this.base + i, undefined);
      }
    }
    if (this.code !== 0) {
      throw new DecodeError(
        "non_canonical",
        this.base + Math.max(Math.min(this.at, len) - 1, 0),
        undefined,
      );
    }
    return len;
  }

  /**
   * Ends the stream once every bit the layout holds is read: every byte must have been reached
   * (else trailing bytes), the code must be the interval's bottom, which is what the encoder
   * flushes, and a last zero byte is only the encoder's when it dropped as many zeros as it may
   * (else not canonical). A stream that passes is the one stream the encoder writes for the
   * bits read. Returns the stream's length.
   */
  finish(): number {
    const len = this.bytes.length;
    if (this.at < len) {
      throw new DecodeError("trailing_bytes", this.base + this.at, undefined);
    }
    if (this.code !== 0) {
      throw new DecodeError("non_canonical", this.base + Math.max(len - 1, 0), undefined);
    }
    if (len > 0 && this.bytes[len - 1] === 0 && this.at - len < MAX_IMPLICIT_ZEROS) {
      throw new DecodeError("non_canonical", this.base + len - 1, undefined);
    }
    return len;
  }
}
