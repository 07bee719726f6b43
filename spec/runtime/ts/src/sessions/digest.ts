/**
 * Order-independent set digests, bit for bit as DESIGN.md §4 pins them (and as the Rust codec's
 * `digest` module computes them), so plaza, Rust, TypeScript and C++ peers can check each other:
 *
 * - `SlotKey = (index << 16) | generation`, with a u32 index and a u16 generation;
 * - `mix64` is the SplitMix64 finalizer: add `0x9E3779B97F4A7C15`, then `x ^= x >> 30`,
 *   `x *= 0xBF58476D1CE4E5B9`, `x ^= x >> 27`, `x *= 0x94D049BB133111EB`, `x ^= x >> 31`
 *   (all wrapping);
 * - a {@link SetDigest} keeps a wrapping u64 sum of `mix64(key)` and a wrapping u32 count, and
 *   its digest is `sum ^ mix64(count)`.
 *
 * The u64 arithmetic is `bigint` reduced with `BigInt.asUintN(64, ...)` after every step. A key
 * is a `number`: a SlotKey is at most 48 bits, well inside a double's 53.
 */

const MASK64 = (1n << 64n) - 1n;
const GOLDEN_GAMMA = 0x9e3779b97f4a7c15n;
const M1 = 0xbf58476d1ce4e5b9n;
const M2 = 0x94d049bb133111ebn;

/** The SplitMix64 finalizer of `key + 0x9E3779B97F4A7C15` (DESIGN.md §4); `mix64(0n)` is
 * `0xE220A8397B1DCDAFn`. `key` is taken mod 2^64. */
export function mix64(key: bigint): bigint {
  let x = (key + GOLDEN_GAMMA) & MASK64;
  x ^= x >> 30n;
  x = (x * M1) & MASK64;
  x ^= x >> 27n;
  x = (x * M2) & MASK64;
  x ^= x >> 31n;
  return x;
}

/** `(index << 16) | generation` (DESIGN.md §4) for a u32 index and a u16 generation. */
export function slotKey(index: number, generation: number): number {
  return (index >>> 0) * 65536 + (generation & 0xffff);
}

/**
 * A slot index and the generation of its occupant (seed 004 §7: "The key must be the key the
 * digest hashes"), so a respawn in the same slot is a different key.
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
 * An order-independent checksum of a set of u64 keys, maintained incrementally. Seed 004 §5:
 * "Summation of a mixed hash per key, so it is order independent and maintainable
 * incrementally: adding then removing the same key returns to the previous digest exactly."
 *
 * It does not remember which keys it holds: insert a key only when it enters the set and remove
 * it only when it leaves.
 */
export class SetDigest {
  private sum = 0n;
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
    this.sum = (this.sum + mix64(BigInt(key))) & MASK64;
    this.count = (this.count + 1) >>> 0;
  }

  /** Takes `key` out: the exact inverse of {@link SetDigest.insert}. */
  remove(key: number | bigint): void {
    this.sum = (this.sum - mix64(BigInt(key))) & MASK64;
    this.count = (this.count - 1) >>> 0;
  }

  /** Back to the digest of the empty set. */
  clear(): void {
    this.sum = 0n;
    this.count = 0;
  }

  /** How many keys are held (a wrapping u32). */
  get length(): number {
    return this.count;
  }

  /** The value two ends compare: `sum ^ mix64(count)`. */
  digest(): bigint {
    return this.sum ^ mix64(BigInt(this.count));
  }
}
