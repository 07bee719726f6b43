// Bit sets: a layout of named bits, and the checks of a raw value against it.

import type { ErrorKind } from "./errors.js";

/**
 * A bit set's layout: its width, its named bits (in declaration order) and the bits each
 * requires. A value of the set is the list of the names of its set bits; every bit not named is
 * reserved.
 */
export interface BitSet<N extends string> {
  /** Width on the wire, in bits. */
  readonly width: number;
  /** Every named bit, with its index (0 is the least significant). */
  readonly names: readonly (readonly [N, number])[];
  /** `[bit, other]`: `bit` may only be set when `other` is set too. */
  readonly requires: readonly (readonly [N, N])[];
  /** The set is written most significant byte first. */
  readonly bigEndian?: boolean;
}

function hasBit(raw: number | bigint, index: number): boolean {
  return typeof raw === "bigint"
    ? ((raw >> BigInt(index)) & 1n) === 1n
    : Math.floor(raw / 2 ** index) % 2 === 1;
}

/** The first `requires` a set of names breaks, as an error kind. */
function requiresFault<N extends string>(
  set: BitSet<N>,
  names: readonly N[],
): ErrorKind | undefined {
  for (const [bit, other] of set.requires) {
    if (names.includes(bit) && !names.includes(other)) {
      return "invalid_condition";
    }
  }
  return undefined;
}

/** The names of the bits set in `raw`, or why it is refused: a reserved bit, then `requires`. */
export function bitSetNames<N extends string>(
  set: BitSet<N>,
  raw: number | bigint,
): N[] | ErrorKind {
  const names: N[] = [];
  let named: number | bigint = typeof raw === "bigint" ? 0n : 0;
  for (const [name, index] of set.names) {
    if (hasBit(raw, index)) {
      names.push(name);
      named = typeof named === "bigint" ? named | (1n << BigInt(index)) : named + 2 ** index;
    }
  }
  if (named !== raw) {
    return "reserved_bit";
  }
  return requiresFault(set, names) ?? names;
}

/** The raw bits of a list of names, or why it is refused. */
export function bitSetRaw<N extends string>(
  set: BitSet<N>,
  names: readonly N[],
): number | bigint | ErrorKind {
  let raw: number | bigint = set.width > 32 ? 0n : 0;
  for (const [name, index] of set.names) {
    if (names.includes(name)) {
      raw = typeof raw === "bigint" ? raw | (1n << BigInt(index)) : raw + 2 ** index;
    }
  }
  if (names.some((n) => !set.names.some(([known]) => known === n))) {
    // A name that is no bit of the set would be a reserved bit.
    return "reserved_bit";
  }
  return requiresFault(set, names) ?? raw;
}
