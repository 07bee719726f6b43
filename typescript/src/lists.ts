// Lists: counted reads and writes, and lists ascending by value or by key, carried as deltas.

import type { BitReader, Reader } from "./reader.js";
import type { BitWriter, Encoder, Writer } from "./writer.js";
import { within } from "./errors.js";
import { bigBucketLen, bucketLen } from "./ints.js";
import { bigVarintLen, sumOf, varintLen } from "./lengths.js";

/**
 * Reads `count` elements with `elem`, after checking that they can fit in what remains; an
 * element's error gets its index in front of its path.
 */
export function readList<S extends Reader | BitReader, T>(
  src: S,
  count: number | bigint,
  min: number,
  elem: (src: S) => T,
): T[] {
  const n = src.count(count, min);
  const items: T[] = [];
  let i = 0;
  try {
    for (; i < n; i++) {
      items.push(elem(src));
    }
  } catch (e) {
    throw within(e, i);
  }
  return items;
}

/** Writes every element of `items` with `elem`; an element's error gets its index. */
export function writeList<D extends Writer | BitWriter, T>(
  dst: D,
  items: readonly T[],
  elem: (dst: D, item: T) => void,
): void {
  let i = 0;
  try {
    for (; i < items.length; i++) {
      elem(dst, items[i]!);
    }
  } catch (e) {
    throw within(e, i);
  }
}

/** Where a reader is, in the unit of its errors' offsets: bytes, or bits of a packed body. */
function position(src: Reader | BitReader): number {
  return "bitOffset" in src ? src.bitOffset : src.offset;
}

/**
 * The running value of an ascending list: the first element is carried absolute, each later one
 * as its difference from the previous one, which is at least 1. The same in a packed body (a
 * list of `uN` or `bucket(...)` values, or of records keyed by one), where offsets are bits.
 */
export class Ascending {
  private prev: number | undefined = undefined;
  private readonly max: number;

  /**
   * A list of values of at most `bits` bits (at most 53), or at most `max` when given (the
   * largest value of a `bucket(...)`): a sum past it is over the element's width.
   */
  constructor(bits: number, max = 2 ** bits - 1) {
    this.max = max;
  }

  /** Reads an element whose difference `raw` reads: a difference of 0 does not ascend. */
  read<S extends Reader | BitReader>(r: S, raw: (r: S) => number): number {
    const at = position(r);
    return this.next(r, at, raw(r));
  }

  /**
   * The element whose difference `delta` was read from `r` at offset `at` (as `prev.next(r,
   * r.offset, r.varint(32))`, which makes no function to read it with; `b.bitOffset` in a
   * packed body).
   */
  next(r: Reader | BitReader, at: number, delta: number): number {
    let v = delta;
    if (this.prev !== undefined) {
      if (delta === 0) {
        throw r.fail("not_ascending", at);
      }
      v = this.prev + delta;
    }
    if (v > this.max) {
      throw r.fail("over_width", at);
    }
    this.prev = v;
    return v;
  }

  /** Writes an element as its difference with `raw`; the element itself must fit its width. */
  write<W extends Encoder>(w: W, v: number, raw: (w: W, delta: number) => void): void {
    if (v > this.max) {
      throw w.fail("over_width");
    }
    let delta = v;
    if (this.prev !== undefined) {
      if (!(v > this.prev)) {
        throw w.fail("not_ascending");
      }
      delta = v - this.prev;
    }
    this.prev = v;
    raw(w, delta);
  }

  /** The difference an element is written as (the value itself when it does not ascend). */
  step(v: number): number {
    const delta = this.prev !== undefined && v > this.prev ? v - this.prev : v;
    this.prev = v;
    return delta;
  }
}

/** {@link Ascending} for values wider than 53 bits. */
export class BigAscending {
  private prev: bigint | undefined = undefined;
  private readonly max: bigint;

  /** A list of values of at most `bits` bits (at most 64), or at most `max` when given. */
  constructor(bits: number, max = (1n << BigInt(bits)) - 1n) {
    this.max = max;
  }

  /** Reads an element whose difference `raw` reads. */
  read<S extends Reader | BitReader>(r: S, raw: (r: S) => bigint): bigint {
    const at = position(r);
    return this.next(r, at, raw(r));
  }

  /** {@link Ascending.next} of a bigint. */
  next(r: Reader | BitReader, at: number, delta: bigint): bigint {
    let v = delta;
    if (this.prev !== undefined) {
      if (delta === 0n) {
        throw r.fail("not_ascending", at);
      }
      v = this.prev + delta;
    }
    if (v > this.max) {
      throw r.fail("over_width", at);
    }
    this.prev = v;
    return v;
  }

  /** Writes an element as its difference with `raw`; the element itself must fit its width. */
  write<W extends Encoder>(w: W, v: bigint, raw: (w: W, delta: bigint) => void): void {
    if (v > this.max) {
      throw w.fail("over_width");
    }
    let delta = v;
    if (this.prev !== undefined) {
      if (!(v > this.prev)) {
        throw w.fail("not_ascending");
      }
      delta = v - this.prev;
    }
    this.prev = v;
    raw(w, delta);
  }

  /** The difference an element is written as (the value itself when it does not ascend). */
  step(v: bigint): bigint {
    const delta = this.prev !== undefined && v > this.prev ? v - this.prev : v;
    this.prev = v;
    return delta;
  }
}

/**
 * An element reader of an ascending list of numbers, each difference read by `raw` (from bytes,
 * or from a packed body's bits); a sum past `max` (by default the largest of `bits` bits) is
 * over its width.
 */
export function ascending<S extends Reader | BitReader>(
  bits: number,
  raw: (r: S) => number,
  max?: number,
): (r: S) => number {
  const prev = new Ascending(bits, max);
  return (r) => prev.read(r, raw);
}

/** An element reader of an ascending list of bigints. */
export function bigAscending<S extends Reader | BitReader>(
  bits: number,
  raw: (r: S) => bigint,
  max?: bigint,
): (r: S) => bigint {
  const prev = new BigAscending(bits, max);
  return (r) => prev.read(r, raw);
}

/**
 * An element writer of an ascending list of numbers, each difference written by `raw`; an
 * element past `max` (when given: a `bucket(...)`'s largest value, or a packed `uN`'s) is over
 * its width, as its decoder finds the sum.
 */
export function ascendingWriter<W extends Writer | BitWriter>(
  raw: (w: W, delta: number) => void,
  max?: number,
): (w: W, v: number) => void {
  const prev = new Ascending(64, max);
  return (w, v) => prev.write(w, v, raw);
}

/** An element writer of an ascending list of bigints. */
export function bigAscendingWriter<W extends Writer | BitWriter>(
  raw: (w: W, delta: bigint) => void,
  max?: bigint,
): (w: W, v: bigint) => void {
  const prev = new BigAscending(64, max);
  return (w, v) => prev.write(w, v, raw);
}

/**
 * The bits of an ascending list of `bucket(widths)` values in a packed body: the first value's
 * code, then each difference's.
 */
export function ascendingBucketsLen(widths: readonly number[], items: readonly number[]): number {
  const prev = new Ascending(64);
  return sumOf(items, (v) => bucketLen(widths, prev.step(v)));
}

/** {@link ascendingBucketsLen} of bigints. */
export function bigAscendingBucketsLen(
  widths: readonly number[],
  items: readonly bigint[],
): number {
  const prev = new BigAscending(64);
  return sumOf(items, (v) => bigBucketLen(widths, prev.step(v)));
}

/** The encoded length of an ascending list of varints. */
export function ascendingVarintsLen(items: readonly number[]): number {
  const prev = new Ascending(64);
  return sumOf(items, (v) => varintLen(prev.step(v)));
}

/** The encoded length of an ascending list of 64-bit varints. */
export function bigAscendingVarintsLen(items: readonly bigint[]): number {
  const prev = new BigAscending(64);
  return sumOf(items, (v) => bigVarintLen(prev.step(v)));
}

/** `f` with the running key of a list of records ascending by a key: a reader or a length. */
export function keyed<A, K, T>(prev: K, f: (a: A, prev: K) => T): (a: A) => T {
  return (a) => f(a, prev);
}

/** A writer of the records of a list ascending by a key. */
export function keyedWriter<K, T, W extends Writer | BitWriter = Writer>(
  prev: K,
  write: (w: W, v: T, prev: K) => void,
): (w: W, v: T) => void {
  return (w, v) => write(w, v, prev);
}
