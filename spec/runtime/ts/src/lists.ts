// Lists: counted reads and writes, and lists ascending by value or by key, carried as deltas.

import type { BitReader, Reader } from "./reader.js";
import type { BitWriter, Writer } from "./writer.js";
import { within } from "./errors.js";
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

/**
 * The running value of an ascending list: the first element is carried absolute, each later one
 * as its difference from the previous one, which is at least 1.
 */
export class Ascending {
  private prev: number | undefined = undefined;
  private readonly bits: number;

  /** A list of values of at most `bits` bits (at most 53). */
  constructor(bits: number) {
    this.bits = bits;
  }

  /** Reads an element whose difference `raw` reads: a difference of 0 does not ascend. */
  read(r: Reader, raw: (r: Reader) => number): number {
    const at = r.offset;
    return this.next(r, at, raw(r));
  }

  /**
   * The element whose difference `delta` was read from `r` at offset `at` (as `prev.next(r,
   * r.offset, r.varint(32))`, which makes no function to read it with).
   */
  next(r: Reader, at: number, delta: number): number {
    let v = delta;
    if (this.prev !== undefined) {
      if (delta === 0) {
        throw r.fail("not_ascending", at);
      }
      v = this.prev + delta;
    }
    if (v >= 2 ** this.bits) {
      throw r.fail("over_width", at);
    }
    this.prev = v;
    return v;
  }

  /** Writes an element as its difference with `raw`; the element itself must fit its width. */
  write(w: Writer, v: number, raw: (w: Writer, delta: number) => void): void {
    if (v >= 2 ** this.bits) {
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
  private readonly bits: number;

  /** A list of values of at most `bits` bits (at most 64). */
  constructor(bits: number) {
    this.bits = bits;
  }

  /** Reads an element whose difference `raw` reads. */
  read(r: Reader, raw: (r: Reader) => bigint): bigint {
    const at = r.offset;
    return this.next(r, at, raw(r));
  }

  /** {@link Ascending.next} of a bigint. */
  next(r: Reader, at: number, delta: bigint): bigint {
    let v = delta;
    if (this.prev !== undefined) {
      if (delta === 0n) {
        throw r.fail("not_ascending", at);
      }
      v = this.prev + delta;
    }
    if (v >> BigInt(this.bits) !== 0n) {
      throw r.fail("over_width", at);
    }
    this.prev = v;
    return v;
  }

  /** Writes an element as its difference with `raw`; the element itself must fit its width. */
  write(w: Writer, v: bigint, raw: (w: Writer, delta: bigint) => void): void {
    if (v >> BigInt(this.bits) !== 0n) {
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

/** An element reader of an ascending list of numbers, each difference read by `raw`. */
export function ascending(bits: number, raw: (r: Reader) => number): (r: Reader) => number {
  const prev = new Ascending(bits);
  return (r) => prev.read(r, raw);
}

/** An element reader of an ascending list of bigints. */
export function bigAscending(bits: number, raw: (r: Reader) => bigint): (r: Reader) => bigint {
  const prev = new BigAscending(bits);
  return (r) => prev.read(r, raw);
}

/** An element writer of an ascending list of numbers, each difference written by `raw`. */
export function ascendingWriter(
  raw: (w: Writer, delta: number) => void,
): (w: Writer, v: number) => void {
  const prev = new Ascending(64);
  return (w, v) => prev.write(w, v, raw);
}

/** An element writer of an ascending list of bigints. */
export function bigAscendingWriter(
  raw: (w: Writer, delta: bigint) => void,
): (w: Writer, v: bigint) => void {
  const prev = new BigAscending(64);
  return (w, v) => prev.write(w, v, raw);
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
export function keyedWriter<K, T>(
  prev: K,
  write: (w: Writer, v: T, prev: K) => void,
): (w: Writer, v: T) => void {
  return (w, v) => write(w, v, prev);
}
