// Checked reads: of a frame's bytes, and of the bit stream of a packed body.

import { type BitSet, bigBitSetFault, bitSetFault } from "./bits.js";
import { DecodeError, type ErrorKind, within } from "./errors.js";
import { type SmallestThree, smallestThreeFault } from "./quat.js";

/** A finite number's single-precision bits, and back. */
const SCRATCH = new DataView(new ArrayBuffer(8));

/**
 * A cursor over a frame's bytes that only makes checked reads: every fault is a
 * {@link DecodeError} at the byte where it was found, never an exception of the engine. It
 * keeps no field path: the generated readers put it on an error as it unwinds through them.
 */
export class Reader {
  private readonly buf: Uint8Array;
  private readonly view: DataView;
  private pos = 0;

  /** A reader at the start of `bytes`. */
  constructor(bytes: Uint8Array) {
    this.buf = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Bytes read so far: the offset of the next byte. */
  get offset(): number {
    return this.pos;
  }

  /** Bytes not read yet. */
  get remaining(): number {
    return this.buf.length - this.pos;
  }

  /** An error of `kind` at byte `offset`; the readers it unwinds through give it its path. */
  fail(kind: ErrorKind, offset: number): DecodeError {
    return new DecodeError(kind, offset, undefined);
  }

  /** Moves past `n` bytes, and returns where they start; the end of input is `truncated`. */
  private need(n: number): number {
    if (n > this.buf.length - this.pos) {
      throw this.fail("truncated", this.buf.length);
    }
    const at = this.pos;
    this.pos += n;
    return at;
  }

  /** Consumes `n` bytes and returns a copy of them. */
  take(n: number): Uint8Array {
    const at = this.need(n);
    return this.buf.slice(at, at + n);
  }

  /** An unsigned integer of 1, 2 or 4 bytes. */
  uint(bytes: 1 | 2 | 4, bigEndian = false): number {
    const at = this.need(bytes);
    if (bytes === 1) {
      return this.view.getUint8(at);
    }
    return bytes === 2 ? this.view.getUint16(at, !bigEndian) : this.view.getUint32(at, !bigEndian);
  }

  /** A two's complement integer of 1, 2 or 4 bytes. */
  int(bytes: 1 | 2 | 4, bigEndian = false): number {
    const at = this.need(bytes);
    if (bytes === 1) {
      return this.view.getInt8(at);
    }
    return bytes === 2 ? this.view.getInt16(at, !bigEndian) : this.view.getInt32(at, !bigEndian);
  }

  /** A `u8`. */
  u8(): number {
    return this.view.getUint8(this.need(1));
  }

  /** A `u16`. */
  u16(bigEndian = false): number {
    return this.view.getUint16(this.need(2), !bigEndian);
  }

  /** A `u32`. */
  u32(bigEndian = false): number {
    return this.view.getUint32(this.need(4), !bigEndian);
  }

  /** An `i8`. */
  i8(): number {
    return this.view.getInt8(this.need(1));
  }

  /** An `i16`. */
  i16(bigEndian = false): number {
    return this.view.getInt16(this.need(2), !bigEndian);
  }

  /** An `i32`. */
  i32(bigEndian = false): number {
    return this.view.getInt32(this.need(4), !bigEndian);
  }

  /** An unsigned integer of 8 bytes. */
  u64(bigEndian = false): bigint {
    return this.view.getBigUint64(this.need(8), !bigEndian);
  }

  /** A two's complement integer of 8 bytes. */
  i64(bigEndian = false): bigint {
    return this.view.getBigInt64(this.need(8), !bigEndian);
  }

  /**
   * A ranged integer read by `read` (its type's own bytes): a value outside `min..=max` is over
   * its width, at its first byte (WIRE-29).
   */
  ranged<T extends number | bigint>(min: T, max: T, read: (r: Reader) => T): T {
    const at = this.pos;
    const v = read(this);
    if (v < min || v > max) {
      throw this.fail("over_width", at);
    }
    return v;
  }

  /** A `bool` byte: 0 or 1, anything else is over its width (WIRE-7). */
  bool(): boolean {
    const at = this.pos;
    const byte = this.uint(1);
    if (byte > 1) {
      throw this.fail("over_width", at);
    }
    return byte === 1;
  }

  /** An IEEE 754 single; NaN and infinities are refused, as no encoder writes them (WIRE-6). */
  f32(bigEndian = false): number {
    const at = this.need(4);
    const v = this.view.getFloat32(at, !bigEndian);
    if (!Number.isFinite(v)) {
      throw this.fail("non_finite", at);
    }
    return v;
  }

  /** An IEEE 754 double; NaN and infinities are refused (WIRE-6). */
  f64(bigEndian = false): number {
    const at = this.need(8);
    const v = this.view.getFloat64(at, !bigEndian);
    if (!Number.isFinite(v)) {
      throw this.fail("non_finite", at);
    }
    return v;
  }

  /**
   * An unsigned LEB128 varint of a value of at most `bits` bits, as a number: exact for `bits`
   * up to 53; with `bits` 64 (a count or a length, checked against the remaining bytes next)
   * a value beyond 2^53 is approximate.
   *
   * WIRE-2: unsigned LEB128, at most 10 bytes. WIRE-3: a varint longer than needed (a last byte of
   * 0 after the first) is non-canonical. WIRE-4: a value over `bits` bits is over its width.
   */
  varint(bits: number): number {
    const start = this.pos;
    let value = 0;
    for (let i = 0; i < 10; i++) {
      const byte = this.uint(1);
      if (i === 9 && byte > 1) {
        // The tenth byte holds bit 63 only; like every varint fault, it is reported at the
        // varint's first byte.
        throw this.fail("over_width", start);
      }
      value += (byte & 0x7f) * 2 ** (7 * i);
      if ((byte & 0x80) === 0) {
        if (i > 0 && byte === 0) {
          throw this.fail("non_canonical_varint", start);
        }
        if (bits < 64 && value >= 2 ** bits) {
          throw this.fail("over_width", start);
        }
        return value;
      }
    }
    throw this.fail("over_width", start);
  }

  /** An unsigned LEB128 varint of a value of at most `bits` bits, as a bigint. */
  bigVarint(bits: number): bigint {
    const start = this.pos;
    let value = 0n;
    for (let i = 0; i < 10; i++) {
      const byte = this.uint(1);
      if (i === 9 && byte > 1) {
        throw this.fail("over_width", start);
      }
      value |= BigInt(byte & 0x7f) << BigInt(7 * i);
      if ((byte & 0x80) === 0) {
        if (i > 0 && byte === 0) {
          throw this.fail("non_canonical_varint", start);
        }
        if (bits < 64 && value >> BigInt(bits) !== 0n) {
          throw this.fail("over_width", start);
        }
        return value;
      }
    }
    throw this.fail("over_width", start);
  }

  /** A zigzag varint of a signed value of at most `bits` bits (at most 53; WIRE-5). */
  zigzag(bits: number): number {
    const n = this.varint(bits);
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  /** A zigzag varint of a signed value of at most `bits` bits, as a bigint. */
  bigZigzag(bits: number): bigint {
    const n = this.bigVarint(bits);
    return (n >> 1n) ^ -(n & 1n);
  }

  /**
   * `bytes` (WIRE-15): a varint length, then that many bytes. Like a list's count, a length too
   * large is reported where the bytes would begin.
   */
  bytes(): Uint8Array {
    const n = this.varint(64);
    return this.take(this.count(n, 1));
  }

  /** `bytes?`: a varint (length + 1), then that many bytes; 0 means absent (WIRE-15). */
  optBytes(): Uint8Array | null {
    const n = this.varint(64);
    return n === 0 ? null : this.take(this.count(n - 1, 1));
  }

  /**
   * Checks that `count` elements of at least `min` bytes each can fit in what remains, before
   * anything is read for them (WIRE-13); a count that cannot is reported here, where they would
   * begin.
   */
  count(count: number | bigint, min: number): number {
    const n = Number(count);
    if (n * Math.max(min, 1) > this.remaining) {
      throw this.fail("count_too_large", this.pos);
    }
    return n;
  }

  /** Reads a constant field with `read`: another value is `bad_constant` (WIRE-10). */
  constant<T extends number | bigint>(want: T, read: (r: this) => T): void {
    const at = this.pos;
    if (read(this) !== want) {
      throw this.fail("bad_constant", at);
    }
  }

  /** Reads a bit set, refusing a reserved bit and a bit without the bit it requires (WIRE-12). */
  bits<V extends number | bigint>(set: BitSet<V>): V {
    const at = this.pos;
    const be = set.bigEndian === true;
    if (typeof set.known === "bigint") {
      const raw = this.u64(be);
      const fault = bigBitSetFault(set as BitSet<bigint>, raw);
      if (fault !== undefined) {
        throw this.fail(fault, at);
      }
      return raw as V;
    }
    const width = set.width;
    const raw = width === 8 ? this.u8() : width === 16 ? this.u16(be) : this.u32(be);
    // Most values set no bit of the guard, and need no closer look.
    if ((raw & (set as BitSet<number>).guard) !== 0) {
      const fault = bitSetFault(set as BitSet<number>, raw);
      if (fault !== undefined) {
        throw this.fail(fault, at);
      }
    }
    return raw as V;
  }

  /**
   * Reads a bit-packed body from here with `read`; its zero padding to the next byte is then
   * checked, and the reader moves past it.
   */
  packed<T>(read: (b: BitReader) => T): T {
    const b = new BitReader(this.buf, this.pos);
    const value = read(b);
    this.pos += b.finish();
    return value;
  }

  /** Reads with `read` inside `name` (a union's variant): its errors' paths begin there. */
  inside<T>(name: string, read: (r: Reader) => T): T {
    try {
      return read(this);
    } catch (e) {
      throw within(e, name);
    }
  }

  /** Ends a frame: every byte must have been read (WIRE-17). */
  finish(): void {
    if (this.remaining !== 0) {
      throw this.fail("trailing_bytes", this.pos);
    }
  }
}

/**
 * A bit stream over the bytes of a packed body: fields are read least significant bit first,
 * starting at the least significant bit of each byte (WIRE-18). Offsets in its errors count from
 * the start of the frame. Like the byte reader, it keeps no field path.
 */
export class BitReader {
  private readonly bytes: Uint8Array;
  /** Byte offset of the body in the frame. */
  private readonly start: number;
  /** Bits read from the start of the body. */
  private pos = 0;

  /** A bit reader over `bytes` from byte `start`. */
  constructor(bytes: Uint8Array, start: number) {
    this.bytes = bytes;
    this.start = start;
  }

  /** The bit offset of the next bit, from the start of the frame. */
  get bitOffset(): number {
    return this.start * 8 + this.pos;
  }

  /** Bits not read yet. */
  get remaining(): number {
    return (this.bytes.length - this.start) * 8 - this.pos;
  }

  /**
   * An error of `kind` at bit `bit` of the frame; the readers it unwinds through give it its path.
   */
  fail(kind: ErrorKind, bit: number): DecodeError {
    return new DecodeError(kind, Math.floor(bit / 8), bit);
  }

  /**
   * Moves past `width` bits, and returns where they start. Too few is `truncated`, reported
   * where the input ends, as in the byte reader.
   */
  private need(width: number): number {
    if (width > this.remaining) {
      throw this.fail("truncated", this.bytes.length * 8);
    }
    const at = this.pos;
    this.pos += width;
    return at;
  }

  /** An unsigned field of `width` bits (at most 53). */
  uint(width: number): number {
    const at = this.need(width);
    let value = 0;
    for (let got = 0; got < width;) {
      const bit = at + got;
      const shift = bit % 8;
      const take = Math.min(8 - shift, width - got);
      // The byte exists: `need` has checked that the body holds these bits.
      const chunk = (this.bytes[this.start + Math.floor(bit / 8)]! >> shift) & ((1 << take) - 1);
      value += chunk * 2 ** got;
      got += take;
    }
    return value;
  }

  /** An unsigned field of `width` bits (1 to 64), as a bigint. */
  bigUint(width: number): bigint {
    const at = this.need(width);
    let value = 0n;
    for (let got = 0; got < width;) {
      const bit = at + got;
      const shift = bit % 8;
      const take = Math.min(8 - shift, width - got);
      // The byte exists: `need` has checked that the body holds these bits.
      const chunk = (this.bytes[this.start + Math.floor(bit / 8)]! >> shift) & ((1 << take) - 1);
      value |= BigInt(chunk) << BigInt(got);
      got += take;
    }
    return value;
  }

  /** A two's complement field of `width` bits (2 to 53), sign-extended. */
  int(width: number): number {
    const v = this.uint(width);
    return v >= 2 ** (width - 1) ? v - 2 ** width : v;
  }

  /** A two's complement field of `width` bits (2 to 64), as a bigint. */
  bigInt(width: number): bigint {
    return BigInt.asIntN(width, this.bigUint(width));
  }

  /** One bit. */
  bool(): boolean {
    return this.uint(1) === 1;
  }

  /**
   * A ranged integer of a packed record: the value less `min` in `width` bits (at most 53); a
   * value past `max` is over its width, at the field's first bit (WIRE-29).
   */
  ranged(width: number, min: number, max: number): number {
    const at = this.bitOffset;
    const v = min + this.uint(width);
    if (v > max) {
      throw this.fail("over_width", at);
    }
    return v;
  }

  /** A ranged integer of a packed record, as a bigint (WIRE-29). */
  bigRanged(width: number, min: bigint, max: bigint): bigint {
    const at = this.bitOffset;
    const v = min + this.bigUint(width);
    if (v > max) {
      throw this.fail("over_width", at);
    }
    return v;
  }

  /**
   * The bucket index of a `bucket(...)` code: in unary, least significant bit first, a one bit
   * per bucket passed and a zero after; the last bucket has no zero. At most `k - 1` bits are
   * read, so a stream of ones ends at the last bucket, never past it.
   */
  private bucketIndex(widths: readonly number[]): number {
    let i = 0;
    while (i < widths.length - 1 && this.bool()) {
      i++;
    }
    return i;
  }

  /**
   * An unsigned `bucket(widths)` value of at most 53 bits: the bucket index in unary, then the
   * value less the bucket's base in its width (WIRE-19). Every code is a value: only the end of the
   * input is an error.
   */
  bucket(widths: readonly number[]): number {
    const i = this.bucketIndex(widths);
    let base = 0;
    for (let j = 0; j < i; j++) {
      base += 2 ** widths[j]!;
    }
    return base + this.uint(widths[i]!);
  }

  /** {@link bucket} of a value wider than 53 bits, as a bigint. */
  bigBucket(widths: readonly number[]): bigint {
    const i = this.bucketIndex(widths);
    let base = 0n;
    for (let j = 0; j < i; j++) {
      base += 1n << BigInt(widths[j]!);
    }
    return base + (widths[i] === 0 ? 0n : this.bigUint(widths[i]!));
  }

  /** A signed `zbucket(widths)` value: a bucket code, zigzag-decoded (`(u >> 1) ^ -(u & 1)`). */
  zbucket(widths: readonly number[]): number {
    const n = this.bucket(widths);
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  /** {@link zbucket} of a value wider than 53 bits, as a bigint. */
  bigZbucket(widths: readonly number[]): bigint {
    const n = this.bigBucket(widths);
    return BigInt.asIntN(64, (n >> 1n) ^ -(n & 1n));
  }

  /**
   * A `quat(bits)` value: `largest` in 2 bits, then the three sent components, each a signed
   * `bits`-bit field; then its canonical rules ({@link smallestThreeFault}), a fault reported at
   * the field's first bit: `over_width` for a component of `-2^(bits-1)`, `non_canonical` for
   * a sent component larger than the one dropped.
   */
  quat(bits: number): SmallestThree {
    const at = this.bitOffset;
    const largest = this.uint(2);
    const rest: [number, number, number] = [this.int(bits), this.int(bits), this.int(bits)];
    const value = { largest, rest };
    const fault = smallestThreeFault(value, bits);
    if (fault !== undefined) {
      throw this.fail(fault, at);
    }
    return value;
  }

  /** A finite IEEE 754 single of 32 bits. */
  f32(): number {
    const at = this.bitOffset;
    SCRATCH.setUint32(0, this.uint(32));
    const v = SCRATCH.getFloat32(0);
    if (!Number.isFinite(v)) {
      throw this.fail("non_finite", at);
    }
    return v;
  }

  /** A finite IEEE 754 double of 64 bits. */
  f64(): number {
    const at = this.bitOffset;
    SCRATCH.setBigUint64(0, this.bigUint(64));
    const v = SCRATCH.getFloat64(0);
    if (!Number.isFinite(v)) {
      throw this.fail("non_finite", at);
    }
    return v;
  }

  /**
   * Checks that `count` elements of at least `min` bits each can fit in what remains; a count
   * that cannot is reported here, where they would begin.
   */
  count(count: number | bigint, min: number): number {
    const n = Number(count);
    if (n * Math.max(min, 1) > this.remaining) {
      throw this.fail("count_too_large", this.bitOffset);
    }
    return n;
  }

  /** Reads a constant field with `read`: another value is `bad_constant` (WIRE-10). */
  constant<T extends number | bigint>(want: T, read: (b: this) => T): void {
    const at = this.bitOffset;
    if (read(this) !== want) {
      throw this.fail("bad_constant", at);
    }
  }

  /** Reads a bit set of `set.width` bits. */
  bits<V extends number | bigint>(set: BitSet<V>): V {
    const at = this.bitOffset;
    let fault;
    let raw;
    if (typeof set.known === "bigint") {
      raw = this.bigUint(set.width);
      fault = bigBitSetFault(set as BitSet<bigint>, raw);
    } else {
      raw = this.uint(set.width);
      fault = bitSetFault(set as BitSet<number>, raw);
    }
    if (fault !== undefined) {
      throw this.fail(fault, at);
    }
    return raw as V;
  }

  /**
   * Ends the body: the bits up to the next byte boundary are padding and must be zero (WIRE-18).
   * Returns the whole bytes the body took.
   */
  finish(): number {
    const end = Math.ceil(this.pos / 8) * 8;
    for (let i = this.pos; i < end; i++) {
      // Padding bits share the byte of the last bit read, which exists.
      if (((this.bytes[this.start + Math.floor(i / 8)]! >> (i % 8)) & 1) === 1) {
        throw this.fail("reserved_bit", this.start * 8 + i);
      }
    }
    return end / 8;
  }
}
