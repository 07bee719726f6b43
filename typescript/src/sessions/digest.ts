/**
 * Order-independent set digests, bit for bit as DELTA-3 to DELTA-6 define them (and as the Rust
 * codec's `digest` module computes them), so plaza, Rust, TypeScript and C++ peers can check each
 * other:
 *
 * - `SlotKey = (index << 16) | generation`, with a u32 index and a u16 generation;
 * - `mix64` is the SplitMix64 finalizer: add `0x9E3779B97F4A7C15`, then `x ^= x >> 30`,
 *   `x *= 0xBF58476D1CE4E5B9`, `x ^= x >> 27`, `x *= 0x94D049BB133111EB`, `x ^= x >> 31`
 *   (all wrapping);
 * - a {@link SetDigest} keeps a wrapping u64 sum of `mix64(key)` and a wrapping u32 count, and
 *   its digest is `sum ^ mix64(count)`.
 *
 * The u64 arithmetic is done on pairs of u32 halves (`Math.imul`, and 16-bit partial products
 * for the high half of a product), with nothing allocated per key: in node an insert in
 * `bigint` took several times as long. The `bigint` interface ({@link mix64},
 * {@link SetDigest.digest}) converts only at its edge. A key is a `number` (a SlotKey is at most 48 bits, well inside a double's
 * 53) or a `bigint`.
 */

/** The high and low u32 halves of a u64, the result of {@link mix64Halves}. */
export type U64Halves = [hi: number, lo: number];

// The result of the last mul64 or mix, in halves: module state rather than an array, so a
// digest's hot loop allocates nothing.
let outHi = 0;
let outLo = 0;

/** `(xh, xl) * (mh, ml)` mod 2^64 into (outHi, outLo), for u32 halves. */
function mul64(xh: number, xl: number, mh: number, ml: number): void {
  // xl * ml in full from 16-bit partial products (each below 2^32, exact in a double).
  const a0 = xl & 0xffff;
  const a1 = xl >>> 16;
  const b0 = ml & 0xffff;
  const b1 = ml >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  const carry = a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16);
  outHi = (carry + Math.imul(xh, ml) + Math.imul(xl, mh)) >>> 0;
  outLo = Math.imul(xl, ml) >>> 0;
}

/** mix64 of (hi, lo) into (outHi, outLo). */
function mixInto(hi: number, lo: number): void {
  // x = key + 0x9E3779B97F4A7C15
  let l = (lo >>> 0) + 0x7f4a7c15;
  let h = ((hi >>> 0) + 0x9e3779b9 + (l > 0xffffffff ? 1 : 0)) >>> 0;
  l >>>= 0;
  // x ^= x >> 30; x *= 0xBF58476D1CE4E5B9
  l = (l ^ ((l >>> 30) | (h << 2))) >>> 0;
  h = (h ^ (h >>> 30)) >>> 0;
  mul64(h, l, 0xbf58476d, 0x1ce4e5b9);
  h = outHi;
  l = outLo;
  // x ^= x >> 27; x *= 0x94D049BB133111EB
  l = (l ^ ((l >>> 27) | (h << 5))) >>> 0;
  h = (h ^ (h >>> 27)) >>> 0;
  mul64(h, l, 0x94d049bb, 0x133111eb);
  h = outHi;
  l = outLo;
  // x ^= x >> 31
  outLo = (l ^ ((l >>> 31) | (h << 1))) >>> 0;
  outHi = (h ^ (h >>> 31)) >>> 0;
}

/**
 * {@link mix64} of the u64 whose halves are `hi` and `lo`: the SplitMix64 finalizer after the
 * golden gamma (DELTA-3 to DELTA-6), every step wrapping.
 */
export function mix64Halves(hi: number, lo: number): U64Halves {
  mixInto(hi, lo);
  return [outHi, outLo];
}

/** Sets (outHi, outLo) to the halves of `key`. */
function split(key: number | bigint): void {
  if (typeof key === "bigint") {
    const k = BigInt.asUintN(64, key);
    outHi = Number(k >> 32n);
    outLo = Number(k & 0xffffffffn);
  } else {
    // An integer below 2^53: exact in both halves.
    outHi = Math.floor(key / 4294967296) >>> 0;
    outLo = key >>> 0;
  }
}

function joined(h: number, l: number): bigint {
  return (BigInt(h) << 32n) | BigInt(l);
}

/**
 * The SplitMix64 finalizer of `key + 0x9E3779B97F4A7C15` (DELTA-3 to DELTA-6), `key` taken mod
 * 2^64: `mix64(0n)` is `0xE220A8397B1DCDAFn`.
 */
export function mix64(key: bigint): bigint {
  split(key);
  mixInto(outHi, outLo);
  return joined(outHi, outLo);
}

/** `(index << 16) | generation` (DELTA-3 to DELTA-6) for a u32 index and a u16 generation. */
export function slotKey(index: number, generation: number): number {
  return (index >>> 0) * 65536 + (generation & 0xffff);
}

/**
 * A slot index and the generation of its occupant (DELTA-3: the key is what the digest hashes), so
 * a respawn in the same slot is a different key.
 */
export interface SlotKey {
  /** The slot (u32). */
  readonly index: number;
  /** The occupant's generation (u16), bumped each time the slot is reused. */
  readonly generation: number;
}

/** The key `key` encodes: bits above the 48 a SlotKey sets are ignored, so any key decodes. */
export function decodeSlotKey(key: number): SlotKey {
  // Exact for any integer key below 2^53: the wire's keys are 48 bits.
  return { index: Math.floor(key / 65536) % 4294967296, generation: key % 65536 };
}

/** `(index << 16) | generation`. */
export function encodeSlotKey(key: SlotKey): number {
  return slotKey(key.index, key.generation);
}

/**
 * An order-independent checksum of a set of u64 keys, maintained incrementally. DELTA-5: a sum of a
 * mixed hash per key, so independent of order and kept incrementally: inserting then removing a key
 * gives back the digest before.
 *
 * It does not remember which keys it holds: insert a key only when it enters the set and remove
 * it only when it leaves.
 */
export class SetDigest {
  private sumHi = 0;
  private sumLo = 0;
  private count = 0;

  /** The digest of `keys`, in any order. */
  static fromKeys(keys: Iterable<number | bigint>): SetDigest {
    const d = new SetDigest();
    for (const k of keys) {
      d.insert(k);
    }
    return d;
  }

  /** Folds `key` into the set. */
  insert(key: number | bigint): void {
    split(key);
    mixInto(outHi, outLo);
    const lo = this.sumLo + outLo;
    this.sumHi = (this.sumHi + outHi + (lo > 0xffffffff ? 1 : 0)) >>> 0;
    this.sumLo = lo >>> 0;
    this.count = (this.count + 1) >>> 0;
  }

  /** Takes `key` out: the exact inverse of {@link SetDigest.insert}. */
  remove(key: number | bigint): void {
    split(key);
    mixInto(outHi, outLo);
    const lo = this.sumLo - outLo;
    this.sumHi = (this.sumHi - outHi - (lo < 0 ? 1 : 0)) >>> 0;
    this.sumLo = lo >>> 0;
    this.count = (this.count - 1) >>> 0;
  }

  /** Back to the digest of the empty set. */
  clear(): void {
    this.sumHi = 0;
    this.sumLo = 0;
    this.count = 0;
  }

  /** How many keys are held (a wrapping u32). */
  get length(): number {
    return this.count;
  }

  /** The value two ends compare: `sum ^ mix64(count)`. */
  digest(): bigint {
    mixInto(0, this.count);
    return joined((this.sumHi ^ outHi) >>> 0, (this.sumLo ^ outLo) >>> 0);
  }
}
