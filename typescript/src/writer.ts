// Writes that refuse what the decoders refuse: of bytes, and of the bit stream of a packed body.

import { type BitSet, bigBitSetFault, bitSetFault } from "./bits.js";
import { EncodeError, type ErrorKind, within } from "./errors.js";
import {
  bigBucketOf,
  bigZigzag,
  bucketOf,
  isBigInt,
  isBigUint,
  isInt,
  isUint,
  quantize,
  zigzag,
} from "./ints.js";
import { type SmallestThree, smallestThreeFault } from "./quat.js";

/** A finite number's single-precision bits, and back. */
const SCRATCH = new DataView(new ArrayBuffer(8));

/**
 * What writers share: refusals, presence and quantization checks. Like the readers, writers
 * keep no field path: the generated writers put it on an error as it unwinds through them.
 */
export class Encoder {
  /** An error of `kind`; the writers it unwinds through give it its path. */
  fail(kind: ErrorKind): EncodeError {
    return new EncodeError(kind);
  }

  /**
   * Refuses a value of a bit set that its reader would refuse: one wider than the set (over
   * its width), then a reserved bit or a bit without the bit it requires.
   */
  protected refuseBits<V extends number | bigint>(set: BitSet<V>, value: V): void {
    let fault;
    if (typeof value === "bigint") {
      fault = isBigUint(value, set.width)
        ? bigBitSetFault(set as BitSet<bigint>, value)
        : "over_width";
    } else {
      fault = isUint(value as number, set.width)
        ? bitSetFault(set as BitSet<number>, value as number)
        : "over_width";
    }
    if (fault !== undefined) {
      throw this.fail(fault);
    }
  }

  /** Refuses a ranged integer outside `min..=max` as over its width (WIRE-29). */
  inRange(v: number | bigint, min: number | bigint, max: number | bigint): void {
    if (v < min || v > max) {
      throw this.fail("over_width");
    }
  }

  /** Refuses a value whose presence contradicts its condition (WIRE-11). */
  presence(present: boolean, cond: boolean): void {
    if (present !== cond) {
      throw this.fail("invalid_condition");
    }
  }

  /** A quantized value as a signed wire integer within `[min, max]`. */
  quantizeInt(value: number, scale: number, min: number, max: number): number {
    const q = quantize(value, scale);
    if (q < min || q > max) {
      throw this.fail("over_width");
    }
    return q;
  }

  /** A quantized value as an unsigned wire integer at most `max`. */
  quantizeUint(value: number, scale: number, max: number): number {
    const q = quantize(value, scale);
    if (q < 0 || q > max) {
      throw this.fail("over_width");
    }
    return q;
  }

  /** {@link Encoder.quantizeInt} for a wire integer wider than 53 bits. */
  quantizeBigInt(value: number, scale: number, min: bigint, max: bigint): bigint {
    const q = quantize(value, scale);
    if (q < Number(min) || q > Number(max)) {
      throw this.fail("over_width");
    }
    // The bounds as doubles may round outwards; what passes saturates, as a cast does.
    const v = BigInt(q);
    return v < min ? min : v > max ? max : v;
  }

  /** {@link Encoder.quantizeUint} for a wire integer wider than 53 bits. */
  quantizeBigUint(value: number, scale: number, max: bigint): bigint {
    const q = quantize(value, scale);
    if (q < 0 || q > Number(max) || q >= 2 ** 64) {
      throw this.fail("over_width");
    }
    return BigInt(q);
  }
}

/** Byte-aligned writes into a growing buffer; a value the decoder would refuse is refused. */
export class Writer extends Encoder {
  private buf: Uint8Array;
  private view: DataView;
  private len = 0;

  /** A writer whose buffer starts with room for `capacity` bytes (it grows as needed). */
  constructor(capacity = 64) {
    super();
    this.buf = new Uint8Array(Math.max(capacity, 1));
    this.view = new DataView(this.buf.buffer);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.len;
  }

  /**
   * Makes room for `n` more bytes, and returns where they start. It may replace the buffer:
   * call it before touching `buf` or `view`.
   */
  private room(n: number): number {
    if (this.len + n > this.buf.length) {
      this.grow(n);
    }
    const at = this.len;
    this.len += n;
    return at;
  }

  /** Replaces the buffer with one of room for at least `n` more bytes. */
  private grow(n: number): void {
    const bigger = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    bigger.set(this.buf.subarray(0, this.len));
    this.buf = bigger;
    this.view = new DataView(bigger.buffer);
  }

  /** Appends `bytes` as they are. */
  append(bytes: Uint8Array): void {
    const at = this.room(bytes.length);
    this.buf.set(bytes, at);
  }

  /** An unsigned integer of 1, 2 or 4 bytes; a value that needs more is over its width (WIRE-4). */
  uint(bytes: 1 | 2 | 4, v: number, bigEndian = false): void {
    if (!isUint(v, bytes * 8)) {
      throw this.fail("over_width");
    }
    const at = this.room(bytes);
    if (bytes === 1) {
      this.view.setUint8(at, v);
    } else if (bytes === 2) {
      this.view.setUint16(at, v, !bigEndian);
    } else {
      this.view.setUint32(at, v, !bigEndian);
    }
  }

  /** A two's complement integer of 1, 2 or 4 bytes. */
  int(bytes: 1 | 2 | 4, v: number, bigEndian = false): void {
    if (!isInt(v, bytes * 8)) {
      throw this.fail("over_width");
    }
    const at = this.room(bytes);
    if (bytes === 1) {
      this.view.setInt8(at, v);
    } else if (bytes === 2) {
      this.view.setInt16(at, v, !bigEndian);
    } else {
      this.view.setInt32(at, v, !bigEndian);
    }
  }

  // u8 ... i32 make room themselves rather than through `room`, small enough for the engine
  // to inline into the generated writers. Their range checks are exact for any number: a
  // fraction, NaN, an infinity or a value out of range changes when cut to the width and back
  // (-0 passes, as 0).

  /** A `u8`; a value outside 0..=255 is over its width. */
  u8(v: number): void {
    if (!((v & 0xff) === v)) {
      throw this.fail("over_width");
    }
    const at = this.len;
    if (at + 1 > this.buf.length) {
      this.grow(1);
    }
    this.len = at + 1;
    this.buf[at] = v;
  }

  /** A `u16`. */
  u16(v: number, bigEndian = false): void {
    if (!((v & 0xffff) === v)) {
      throw this.fail("over_width");
    }
    const at = this.len;
    if (at + 2 > this.buf.length) {
      this.grow(2);
    }
    this.len = at + 2;
    this.view.setUint16(at, v, !bigEndian);
  }

  /** A `u32`. */
  u32(v: number, bigEndian = false): void {
    if (!(v >>> 0 === v)) {
      throw this.fail("over_width");
    }
    const at = this.len;
    if (at + 4 > this.buf.length) {
      this.grow(4);
    }
    this.len = at + 4;
    this.view.setUint32(at, v, !bigEndian);
  }

  /** An `i8`. */
  i8(v: number): void {
    if (!((v << 24) >> 24 === v)) {
      throw this.fail("over_width");
    }
    const at = this.len;
    if (at + 1 > this.buf.length) {
      this.grow(1);
    }
    this.len = at + 1;
    this.view.setInt8(at, v);
  }

  /** An `i16`. */
  i16(v: number, bigEndian = false): void {
    if (!((v << 16) >> 16 === v)) {
      throw this.fail("over_width");
    }
    const at = this.len;
    if (at + 2 > this.buf.length) {
      this.grow(2);
    }
    this.len = at + 2;
    this.view.setInt16(at, v, !bigEndian);
  }

  /** An `i32`. */
  i32(v: number, bigEndian = false): void {
    if (!((v | 0) === v)) {
      throw this.fail("over_width");
    }
    const at = this.len;
    if (at + 4 > this.buf.length) {
      this.grow(4);
    }
    this.len = at + 4;
    this.view.setInt32(at, v, !bigEndian);
  }

  /** An unsigned integer of 8 bytes. */
  u64(v: bigint, bigEndian = false): void {
    if (!isBigUint(v, 64)) {
      throw this.fail("over_width");
    }
    const at = this.room(8);
    this.view.setBigUint64(at, v, !bigEndian);
  }

  /** A two's complement integer of 8 bytes. */
  i64(v: bigint, bigEndian = false): void {
    if (!isBigInt(v, 64)) {
      throw this.fail("over_width");
    }
    const at = this.room(8);
    this.view.setBigInt64(at, v, !bigEndian);
  }

  /** A `bool`: one byte, 0 or 1. */
  bool(v: boolean): void {
    this.uint(1, v ? 1 : 0);
  }

  /** A finite single (the value rounded to single precision must be finite too; WIRE-6). */
  f32(v: number, bigEndian = false): void {
    if (!Number.isFinite(Math.fround(v))) {
      throw this.fail("non_finite");
    }
    const at = this.room(4);
    this.view.setFloat32(at, v, !bigEndian);
  }

  /** A finite double. */
  f64(v: number, bigEndian = false): void {
    if (!Number.isFinite(v)) {
      throw this.fail("non_finite");
    }
    const at = this.room(8);
    this.view.setFloat64(at, v, !bigEndian);
  }

  /**
   * An unsigned LEB128 varint, in its shortest form, of a value of at most `bits` bits (WIRE-2 to
   * WIRE-4).
   */
  varint(bits: number, v: number): void {
    if (!isUint(v, bits)) {
      throw this.fail("over_width");
    }
    let rest = v;
    while (rest >= 0x80) {
      const at = this.room(1);
      this.buf[at] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    const at = this.room(1);
    this.buf[at] = rest;
  }

  /** An unsigned LEB128 varint of a bigint of at most `bits` bits. */
  bigVarint(bits: number, v: bigint): void {
    if (!isBigUint(v, bits)) {
      throw this.fail("over_width");
    }
    let rest = v;
    while (rest >= 0x80n) {
      const at = this.room(1);
      this.buf[at] = Number(rest & 0x7fn) | 0x80;
      rest >>= 7n;
    }
    const at = this.room(1);
    this.buf[at] = Number(rest);
  }

  /** A zigzag varint of a signed value of at most `bits` bits (at most 53; WIRE-5). */
  zigzag(bits: number, v: number): void {
    if (!isInt(v, bits)) {
      throw this.fail("over_width");
    }
    this.varint(64, zigzag(v));
  }

  /** A zigzag varint of a signed bigint of at most `bits` bits. */
  bigZigzag(bits: number, v: bigint): void {
    if (!isBigInt(v, bits)) {
      throw this.fail("over_width");
    }
    this.bigVarint(64, bigZigzag(v));
  }

  /** `bytes`: a varint length, then the bytes (WIRE-15). */
  bytes(v: Uint8Array): void {
    this.varint(64, v.length);
    this.append(v);
  }

  /** `bytes?`: a varint (length + 1), then the bytes; 0 when absent. */
  optBytes(v: Uint8Array | null): void {
    if (v === null) {
      this.varint(64, 0);
    } else {
      this.varint(64, v.length + 1);
      this.append(v);
    }
  }

  /** Writes a bit set, refusing what its decoder refuses. */
  bits<V extends number | bigint>(set: BitSet<V>, value: V): void {
    const be = set.bigEndian === true;
    this.refuseBits(set, value);
    if (typeof value === "bigint") {
      this.u64(value, be);
    } else {
      const v = value as number;
      if (set.width === 8) {
        this.u8(v);
      } else if (set.width === 16) {
        this.u16(v, be);
      } else {
        this.u32(v, be);
      }
    }
  }

  /** Writes a bit-packed body with `write`, padded with zero bits to a byte. */
  packed<T>(write: (b: BitWriter, value: T) => void, value: T): void {
    const b = new BitWriter();
    write(b, value);
    this.append(b.finish());
  }

  /** Writes with `write` inside `name` (a union's variant): its errors' paths begin there. */
  inside<T>(name: string, write: (w: Writer, value: T) => void, value: T): void {
    try {
      write(this, value);
    } catch (e) {
      throw within(e, name);
    }
  }

  /**
   * The bytes written: the buffer itself when they fill it (as when it was made with the
   * frame's encoded length), which is safe, as any later write must then replace the buffer.
   */
  finish(): Uint8Array {
    return this.len === this.buf.length ? this.buf : this.buf.slice(0, this.len);
  }
}

/** Writes a bit-packed body: fields least significant bit first, padded to a byte at the end. */
export class BitWriter extends Encoder {
  private readonly out: number[] = [];
  /** Bits written. */
  private len = 0;

  /** An unsigned field of `width` bits (at most 53); a value that needs more is over its width. */
  uint(width: number, v: number): void {
    if (!isUint(v, width)) {
      throw this.fail("over_width");
    }
    let rest = v;
    for (let put = 0; put < width;) {
      const shift = this.len % 8;
      const take = Math.min(8 - shift, width - put);
      if (shift === 0) {
        this.out.push(0);
      }
      // A byte was pushed when the first of its bits was written.
      this.out[this.out.length - 1]! |= (rest % 2 ** take) << shift;
      rest = Math.floor(rest / 2 ** take);
      this.len += take;
      put += take;
    }
  }

  /** An unsigned field of `width` bits (1 to 64), from a bigint. */
  bigUint(width: number, v: bigint): void {
    if (!isBigUint(v, width)) {
      throw this.fail("over_width");
    }
    let rest = v;
    for (let put = 0; put < width;) {
      const shift = this.len % 8;
      const take = Math.min(8 - shift, width - put);
      if (shift === 0) {
        this.out.push(0);
      }
      // A byte was pushed when the first of its bits was written.
      this.out[this.out.length - 1]! |= Number(rest & BigInt(2 ** take - 1)) << shift;
      rest >>= BigInt(take);
      this.len += take;
      put += take;
    }
  }

  /** A ranged integer: the value less `min` in `width` bits (at most 53) (WIRE-29). */
  ranged(width: number, min: number, max: number, v: number): void {
    this.inRange(v, min, max);
    this.uint(width, v - min);
  }

  /** A ranged integer from a bigint: the value less `min` in `width` bits (WIRE-29). */
  bigRanged(width: number, min: bigint, max: bigint, v: bigint): void {
    this.inRange(v, min, max);
    this.bigUint(width, v - min);
  }

  /** A two's complement field of `width` bits (2 to 53). */
  int(width: number, v: number): void {
    if (!isInt(v, width)) {
      throw this.fail("over_width");
    }
    this.uint(width, v < 0 ? v + 2 ** width : v);
  }

  /** A two's complement field of `width` bits (2 to 64), from a bigint. */
  bigInt(width: number, v: bigint): void {
    if (!isBigInt(v, width)) {
      throw this.fail("over_width");
    }
    this.bigUint(width, BigInt.asUintN(width, v));
  }

  /** One bit. */
  bool(v: boolean): void {
    this.uint(1, v ? 1 : 0);
  }

  /** The unary bucket index `i` of a code in `k` buckets: `i` ones, then a zero unless last. */
  private bucketIndex(i: number, k: number): void {
    for (let j = 0; j < i; j++) {
      this.uint(1, 1);
    }
    if (i < k - 1) {
      this.uint(1, 0);
    }
  }

  /**
   * An unsigned `bucket(widths)` value of at most 53 bits: its bucket index in unary, then the
   * value less the bucket's base in the bucket's width. A value past the last bucket (or not
   * an unsigned integer) is over its width.
   */
  bucket(widths: readonly number[], v: number): void {
    if (!Number.isSafeInteger(v) || v < 0) {
      throw this.fail("over_width");
    }
    const [i, base] = bucketOf(widths, v);
    if (i < 0) {
      throw this.fail("over_width");
    }
    this.bucketIndex(i, widths.length);
    this.uint(widths[i]!, v - base);
  }

  /** {@link bucket} of a bigint. */
  bigBucket(widths: readonly number[], v: bigint): void {
    if (typeof v !== "bigint" || v < 0n) {
      throw this.fail("over_width");
    }
    const [i, base] = bigBucketOf(widths, v);
    if (i < 0) {
      throw this.fail("over_width");
    }
    this.bucketIndex(i, widths.length);
    if (widths[i] !== 0) {
      this.bigUint(widths[i]!, v - base);
    }
  }

  /** A signed `zbucket(widths)` value: zigzag-mapped, then a bucket code. */
  zbucket(widths: readonly number[], v: number): void {
    if (!Number.isSafeInteger(v)) {
      throw this.fail("over_width");
    }
    this.bucket(widths, zigzag(v));
  }

  /** {@link zbucket} of a bigint. */
  bigZbucket(widths: readonly number[], v: bigint): void {
    if (!isBigInt(v, 64)) {
      throw this.fail("over_width");
    }
    this.bigBucket(widths, bigZigzag(v));
  }

  /**
   * A `quat(bits)` value: `largest` in 2 bits, then the three sent components in `bits` bits
   * each; a value its decoder would refuse is refused first ({@link smallestThreeFault}):
   * `over_width` (a `largest` past 3, a component outside `[-R, R]`), `non_canonical`.
   */
  quat(bits: number, v: SmallestThree): void {
    const fault = smallestThreeFault(v, bits);
    if (fault !== undefined) {
      throw this.fail(fault);
    }
    this.uint(2, v.largest);
    for (const c of v.rest) {
      this.int(bits, c);
    }
  }

  /** A finite single. */
  f32(v: number): void {
    if (!Number.isFinite(Math.fround(v))) {
      throw this.fail("non_finite");
    }
    SCRATCH.setFloat32(0, v);
    this.uint(32, SCRATCH.getUint32(0));
  }

  /** A finite double. */
  f64(v: number): void {
    if (!Number.isFinite(v)) {
      throw this.fail("non_finite");
    }
    SCRATCH.setFloat64(0, v);
    this.bigUint(64, SCRATCH.getBigUint64(0));
  }

  /** Writes a bit set of `set.width` bits. */
  bits<V extends number | bigint>(set: BitSet<V>, value: V): void {
    this.refuseBits(set, value);
    if (typeof value === "bigint") {
      this.bigUint(set.width, value);
    } else {
      this.uint(set.width, value as number);
    }
  }

  /** The body, padded with zero bits to a byte. */
  finish(): Uint8Array {
    return Uint8Array.from(this.out);
  }
}
