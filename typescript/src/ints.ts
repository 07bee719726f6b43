// Integer ranges, zigzag and quantization: the arithmetic of the wire's integer types.

/**
 * 2^n for n from 0 to 64: a table, since `2 ** bits` of a variable `bits` is a call of the
 * engine's `pow` on every check (most of what a write cost before).
 */
const POW2: readonly number[] = Array.from({ length: 65 }, (_, n) => 2 ** n);

/** Whether `v` is an integer of at most `bits` bits (at most 64). */
export function isUint(v: number, bits: number): boolean {
  return Number.isInteger(v) && v >= 0 && v < POW2[bits]!;
}

/** Whether `v` is an integer that fits `bits` bits of two's complement (1 to 64). */
export function isInt(v: number, bits: number): boolean {
  const half = POW2[bits - 1]!;
  return Number.isInteger(v) && v >= -half && v < half;
}

/** Whether `v` is a bigint of at most `bits` bits. */
export function isBigUint(v: bigint, bits: number): boolean {
  return typeof v === "bigint" && v >= 0n && v < 1n << BigInt(bits);
}

/** Whether `v` is a bigint that fits `bits` bits of two's complement. */
export function isBigInt(v: bigint, bits: number): boolean {
  const half = 1n << BigInt(bits - 1);
  return typeof v === "bigint" && v >= -half && v < half;
}

/** Maps a signed value onto an unsigned one: (n << 1) ^ (n >> 63). */
export function zigzag(n: number): number {
  return n >= 0 ? n * 2 : -n * 2 - 1;
}

/** {@link zigzag} of a 64-bit value. */
export function bigZigzag(n: bigint): bigint {
  return BigInt.asUintN(64, (n << 1n) ^ (n >> 63n));
}

/** The inverse of {@link zigzag}. */
export function unzigzag(n: number): number {
  return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
}

/** The inverse of {@link bigZigzag}: a code below 2^64 to its signed 64-bit value. */
export function bigUnzigzag(n: bigint): bigint {
  return (n >> 1n) ^ -(n & 1n);
}

/**
 * `x` rounded to the nearest integer, halves away from zero, as Rust's `f64::round` (not
 * `Math.round`, which rounds halves up). `x - trunc(x)` is exact, so the comparison is too.
 */
export function roundHalfAwayFromZero(x: number): number {
  const t = Math.trunc(x);
  const frac = x - t;
  if (frac >= 0.5) {
    return t + 1;
  }
  if (frac <= -0.5) {
    return t - 1;
  }
  return t;
}

/**
 * The wire integer of a quantized value: round(value / scale), halves away from zero, a
 * non-finite value as 0 (LANGUAGE.md, "Quantization").
 */
export function quantize(value: number, scale: number): number {
  return Number.isFinite(value) ? roundHalfAwayFromZero(value / scale) : 0;
}

/**
 * The bucket of `v` among the buckets of `widths` (LANGUAGE.md, `bucket(w1, ..., wk)`), or -1
 * when `v` is past the last: bucket `i` holds `[base_i, base_i + 2^w_i)`, `base_0 = 0`,
 * `base_{i+1} = base_i + 2^w_i`, so that every value has one code and no code is redundant.
 * Returns the index and the bucket's base. `v` is an integer of at most 53 bits.
 */
export function bucketOf(widths: readonly number[], v: number): [number, number] {
  let base = 0;
  for (let i = 0; i < widths.length; i++) {
    const size = POW2[widths[i]!]!;
    if (v - base < size) {
      return [i, base];
    }
    base += size;
  }
  return [-1, base];
}

/** {@link bucketOf} of a bigint, for buckets whose values pass 53 bits. */
export function bigBucketOf(widths: readonly number[], v: bigint): [number, bigint] {
  let base = 0n;
  for (let i = 0; i < widths.length; i++) {
    const size = 1n << BigInt(widths[i]!);
    if (v - base < size) {
      return [i, base];
    }
    base += size;
  }
  return [-1, base];
}

/**
 * The bits of the code of `v` in the buckets of `widths`: the bucket index in unary (`i` one
 * bits and a zero, the last bucket's `k - 1` ones without one), then `w_i` bits. A value past
 * the last bucket counts as the last bucket's code (its encoder refuses it anyway).
 */
export function bucketLen(widths: readonly number[], v: number): number {
  return unaryLen(widths, bucketOf(widths, v)[0]);
}

/** {@link bucketLen} of a bigint. */
export function bigBucketLen(widths: readonly number[], v: bigint): number {
  return unaryLen(widths, bigBucketOf(widths, v)[0]);
}

function unaryLen(widths: readonly number[], i: number): number {
  const k = widths.length;
  const at = i < 0 ? k - 1 : i;
  return (at < k - 1 ? at + 1 : at) + widths[at]!;
}
