// Unit quaternions as smallest three (LANGUAGE.md, `quat(B)`): the integers a packed field
// carries, their canonical rules, and the conversions from and to four floats.
//
// The value is the integers, not floats, so that every language agrees bit for bit; the rules
// are checked on integers only. With `R = 2^(B-1) - 1`, a sent component is `q * (1/sqrt 2) / R`.

import type { ErrorKind } from "./errors.js";

/**
 * A unit quaternion as smallest three: `largest` is the component dropped (0 = x, 1 = y,
 * 2 = z, 3 = w), `rest` the other three in x, y, z, w order, each an integer in `[-R, R]` with
 * `R = 2^(B-1) - 1`. The JSON form is `{"largest": 2, "rest": [12, -4, 255]}`.
 */
export interface SmallestThree {
  /** The component dropped: 0 = x, 1 = y, 2 = z, 3 = w. */
  largest: number;
  /** The three components sent, in x, y, z, w order without the dropped one. */
  rest: [number, number, number];
}

/** `R = 2^(bits-1) - 1`: the largest magnitude of a sent component of `quat(bits)`. */
export function quatRange(bits: number): number {
  return 2 ** (bits - 1) - 1;
}

/**
 * Why `s` is not a canonical `quat(bits)` value, or `undefined` when it is. The rules, in the
 * order they are checked (LANGUAGE.md):
 *
 * 1. `largest` is any of 0..=3 (2 bits on the wire, always valid when decoded);
 * 2. every `rest[i]` lies in `[-R, R]`: the raw value `-2^(B-1)` is `over_width`;
 * 3. with `S` the sum of their squares and `D = 2 R^2 - S` (the dropped component squared, in
 *    the same units), a sent component before the dropped one (in x, y, z, w order) has
 *    `rest[i]^2 < D`, one after it `rest[i]^2 <= D`: "the dropped component is the one of
 *    largest magnitude, the lowest index on a tie", else `non_canonical`.
 *
 * Every quantity is an integer below 2^33, exact in a double.
 */
export function smallestThreeFault(s: SmallestThree, bits: number): ErrorKind | undefined {
  const r = quatRange(bits);
  const largest: unknown = s.largest;
  if (typeof largest !== "number" || !Number.isInteger(largest) || largest < 0 || largest > 3) {
    return "over_width";
  }
  const rest: unknown = s.rest;
  if (!Array.isArray(rest) || rest.length !== 3) {
    return "over_width";
  }
  for (const c of rest) {
    if (typeof c !== "number" || !Number.isInteger(c) || c < -r || c > r) {
      return "over_width";
    }
  }
  const [a, b, c] = rest as [number, number, number];
  const d = 2 * r * r - (a * a + b * b + c * c);
  for (let i = 0; i < 3; i++) {
    const q = (rest as number[])[i]!;
    // The place of `rest[i]` among x, y, z, w: the dropped component is skipped.
    const before = i < largest;
    if (before ? !(q * q < d) : !(q * q <= d)) {
      return "non_canonical";
    }
  }
  return undefined;
}

/**
 * `x` rounded to the nearest integer, halves away from zero, as Rust's `f64::round` (a copy of
 * ints.ts's, so that this file stands on its own).
 */
function roundHalfAway(x: number): number {
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
 * The smallest three of `q` (x, y, z, w) at `bits` bits a component, computed in doubles as
 * every ackwire runtime computes it, so that the same floats give the same integers everywhere.
 * Each input is first rounded to a single (the model's `[f32; 4]`).
 *
 * The quaternion is normalised (a zero or non-finite norm gives the identity (0, 0, 0, 1));
 * `largest` is the index of the largest magnitude, the lowest on a tie; when that component
 * is negative all four are negated (q and -q are the same rotation); each sent component is
 * `round_half_away_from_zero(c * sqrt 2 * R)` (the factor computed once), clamped to `[-R, R]`;
 * then, while a component breaks rule 3 of {@link smallestThreeFault} (rounding can make a
 * sent one larger than the dropped one), the failing component of largest magnitude (the
 * lowest index on a tie) moves one step toward zero. The result always passes the rules.
 */
export function fromXyzw(
  q: readonly [number, number, number, number],
  bits: number,
): SmallestThree {
  const r = quatRange(bits);
  let c = q.map((v) => Math.fround(v));
  const norm = Math.sqrt(c[0]! * c[0]! + c[1]! * c[1]! + c[2]! * c[2]! + c[3]! * c[3]!);
  if (norm === 0 || !Number.isFinite(norm)) {
    c = [0, 0, 0, 1];
  } else {
    c = c.map((v) => v / norm);
  }
  let largest = 0;
  for (let i = 1; i < 4; i++) {
    if (Math.abs(c[i]!) > Math.abs(c[largest]!)) {
      largest = i;
    }
  }
  if (c[largest]! < 0) {
    c = c.map((v) => -v);
  }
  const factor = Math.SQRT2 * r;
  const rest = c
    .filter((_, i) => i !== largest)
    .map((v) => Math.min(r, Math.max(-r, roundHalfAway(v * factor)))) as [number, number, number];
  for (;;) {
    const d = 2 * r * r - (rest[0] * rest[0] + rest[1] * rest[1] + rest[2] * rest[2]);
    let worst = -1;
    for (let i = 0; i < 3; i++) {
      const v = rest[i]!;
      const fails = i < largest ? !(v * v < d) : !(v * v <= d);
      if (fails && (worst < 0 || Math.abs(v) > Math.abs(rest[worst]!))) {
        worst = i;
      }
    }
    if (worst < 0) {
      break;
    }
    // The one chosen is never 0: were every failing component 0, the others would pass with
    // `v^2 <= D`, so `D >= 0`, all of them would be 0, `D = 2 R^2 > 0`, and 0 would pass too.
    const v = rest[worst]!;
    rest[worst] = v - Math.sign(v);
  }
  // `+ 0` turns a -0 (a small negative component rounded to zero) into 0: an integer has no
  // sign of zero, and values compare equal to those decoded.
  return { largest, rest: rest.map((v) => v + 0) as [number, number, number] };
}

/**
 * The four floats (x, y, z, w) of `s` at `bits` bits a component: each sent component is
 * `rest[i] * (FRAC_1_SQRT_2 / R)` (the factor computed once, as a double), the dropped one
 * `sqrt(max(0, 1 - the sum of their squares))`, each then rounded to a single.
 */
export function toXyzw(s: SmallestThree, bits: number): [number, number, number, number] {
  const factor = Math.SQRT1_2 / quatRange(bits);
  const sent = s.rest.map((v) => v * factor);
  const dropped = Math.sqrt(
    Math.max(0, 1 - (sent[0]! * sent[0]! + sent[1]! * sent[1]! + sent[2]! * sent[2]!)),
  );
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < 4; i++) {
    out.push(Math.fround(i === s.largest ? dropped : sent[next++]!));
  }
  return out as [number, number, number, number];
}
